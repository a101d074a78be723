import PromiseEngine

/// What an `http` step's exchange was, besides the final response: where
/// it ended, after how many redirects, over which HTTP version, how long
/// each phase took, and the cookies the run's store then held for it.
@usableFromInline
package struct HTTPExchangeInfo: Sendable, Hashable, BoxedFields {
    /// The fields, read and written as the exchange's own (`info.url`).
    @usableFromInline
    package struct Fields: Sendable, Hashable {
        /// The final URL, after redirects (`url` field).
        package var url: String
        /// How many redirects were followed (`redirects` field).
        package var redirects: Int
        /// `1.1`, `2` or `1.0` (`version` field).
        package var version: String
        /// The phases of the final request (`timing.*` fields).
        package var timings: HTTPTimings
        /// The cookies the run's store holds for the final URL's host after
        /// the step, in the order they were set (`cookie.NAME` fields).
        package var cookies: [HTTPCookieValue]
        /// The server's certificate, over TLS when a step asked for it
        /// (`expect certificate ...`).
        package var certificate: ServerCertificate? = nil
    }

    /// In one shared box: a record of every step of a 100,000-request run
    /// keeps one, so the record stays small.
    @usableFromInline
    package var storage: CopyOnWrite<Fields>

    package init(url: String, redirects: Int, version: String, timings: HTTPTimings, cookies: [HTTPCookieValue] = []) {
        storage = CopyOnWrite(Fields(url: url, redirects: redirects, version: version, timings: timings, cookies: cookies))
    }

    /// The value of the cookie `name` (the last one of that name).
    package func cookie(_ name: String) -> String? {
        storage.fields.cookies.last { $0.name == name }?.value
    }
}

/// The fields of a server's certificate that `expect certificate` reads,
/// as promise-run writes them: names in RFC 4514 order
/// (`CN=api,O=Example`), times in RFC 3339 (UTC), the serial number in
/// lower-case hex without colons.
/// See docs/steps.md, 'For Hurl users'.
package struct ServerCertificate: Sendable, Hashable {
    package var subject: String
    package var issuer: String
    package var startDate: String
    package var expireDate: String
    package var serialNumber: String

    package init(subject: String, issuer: String, startDate: String, expireDate: String, serialNumber: String) {
        self.subject = subject
        self.issuer = issuer
        self.startDate = startDate
        self.expireDate = expireDate
        self.serialNumber = serialNumber
    }

    /// A field by its name in `expect certificate FIELD`.
    package subscript(field: CertificateField) -> String {
        switch field {
        case .subject: return subject
        case .issuer: return issuer
        case .startDate: return startDate
        case .expireDate: return expireDate
        case .serialNumber: return serialNumber
        }
    }
}

/// A cookie's name and value.
package struct HTTPCookieValue: Sendable, Hashable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// When each phase of a request ended, measured as curl measures it: from
/// the start of the final request (after any redirects) for `dns`,
/// `connect`, `tls` and `firstByte`, and from the start of the step's first
/// request for `total`. A phase that did not happen (no lookup for an
/// address, no handshake over plain HTTP, nothing of it on a kept-alive
/// connection) took no time, so each is at least the one before:
/// dns ≤ connect ≤ tls ≤ firstByte ≤ total.
package struct HTTPTimings: Sendable, Hashable {
    /// The name was resolved.
    package var dns: Duration
    /// The TCP connection was made.
    package var connect: Duration
    /// The TLS handshake was done.
    package var tls: Duration
    /// The first byte of the response arrived.
    package var firstByte: Duration
    /// The body was read to its end.
    package var total: Duration

    package init(
        dns: Duration = .zero, connect: Duration = .zero, tls: Duration = .zero, firstByte: Duration = .zero,
        total: Duration = .zero
    ) {
        self.dns = dns
        self.connect = connect
        self.tls = tls
        self.firstByte = firstByte
        self.total = total
    }

    /// The phase named by a `timing.NAME` field.
    package subscript(phase: HTTPTimingPhase) -> Duration {
        switch phase {
        case .dns: return dns
        case .connect: return connect
        case .tls: return tls
        case .firstByte: return firstByte
        case .total: return total
        }
    }
}

/// The phases `timing.NAME` names.
package enum HTTPTimingPhase: String, Sendable, Hashable, CaseIterable {
    case dns, connect, tls, firstByte, total
}
