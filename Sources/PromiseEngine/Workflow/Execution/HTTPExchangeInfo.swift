import PromiseEngine

/// What an `http` step's exchange was, besides the final response: where
/// it ended, after how many redirects, over which HTTP version, how long
/// each phase took, and the cookies the run's store then held for it.
package struct HTTPExchangeInfo: Sendable, Hashable {
    /// The fields, in one shared copy-on-write box: a record of every step
    /// of a 100,000-request run keeps one, so the record stays small.
    private final class Storage: @unchecked Sendable {
        // @unchecked: mutated only through an HTTPExchangeInfo holding the
        // one reference (`isKnownUniquelyReferenced`); never changed once
        // shared.
        var url: String
        var redirects: Int
        var version: String
        var timings: HTTPTimings
        var cookies: [HTTPCookieValue]

        init(url: String, redirects: Int, version: String, timings: HTTPTimings, cookies: [HTTPCookieValue]) {
            self.url = url
            self.redirects = redirects
            self.version = version
            self.timings = timings
            self.cookies = cookies
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(url: url, redirects: redirects, version: version, timings: timings, cookies: cookies)
        }
        return storage
    }

    /// The final URL, after redirects (`url` field).
    package var url: String {
        get { storage.url }
        set { unique().url = newValue }
    }

    /// How many redirects were followed (`redirects` field).
    package var redirects: Int {
        get { storage.redirects }
        set { unique().redirects = newValue }
    }

    /// `1.1`, `2` or `1.0` (`version` field).
    package var version: String {
        get { storage.version }
        set { unique().version = newValue }
    }

    /// The phases of the final request (`timing.*` fields).
    package var timings: HTTPTimings {
        get { storage.timings }
        set { unique().timings = newValue }
    }

    /// The cookies the run's store holds for the final URL's host after the
    /// step, in the order they were set (`cookie.NAME` fields).
    package var cookies: [HTTPCookieValue] {
        get { storage.cookies }
        set { unique().cookies = newValue }
    }

    package init(url: String, redirects: Int, version: String, timings: HTTPTimings, cookies: [HTTPCookieValue] = []) {
        storage = Storage(url: url, redirects: redirects, version: version, timings: timings, cookies: cookies)
    }

    /// The value of the cookie `name` (the last one of that name).
    package func cookie(_ name: String) -> String? {
        cookies.last { $0.name == name }?.value
    }

    package static func == (a: HTTPExchangeInfo, b: HTTPExchangeInfo) -> Bool {
        a.storage === b.storage || (a.url == b.url && a.redirects == b.redirects && a.version == b.version
                                    && a.timings == b.timings && a.cookies == b.cookies)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(redirects)
        hasher.combine(version)
        hasher.combine(timings)
        hasher.combine(cookies)
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

    package init(dns: Duration = .zero, connect: Duration = .zero, tls: Duration = .zero, firstByte: Duration = .zero,
                total: Duration = .zero) {
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
