import Glibc
import RunnerSystem

/// The proxies promise-run's environment names, read as curl reads them:
/// `http_proxy` (lower-case only: a CGI server may set `HTTP_PROXY` from a
/// request header), `https_proxy` or `HTTPS_PROXY`, `all_proxy` or
/// `ALL_PROXY` for both, and `no_proxy` or `NO_PROXY`: `*`, or host names
/// (matching the name and its subdomains, a leading dot optional) and IP
/// addresses or IPv4 ranges (`10.0.0.0/8`), separated by commas.
struct ProxySettings: Sendable {
    var http: String?
    var https: String?
    var exceptions: [String] = []

    init(environment: [String: String]) {
        func value(_ names: String...) -> String? {
            for name in names {
                if let value = environment[name], !value.isEmpty { return value }
            }
            return nil
        }
        let all = value("all_proxy", "ALL_PROXY")
        http = value("http_proxy") ?? all
        https = value("https_proxy", "HTTPS_PROXY") ?? all
        exceptions = (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",").map {
            var entry = $0.trimmingSpaces.lowercased()[...]
            while entry.hasPrefix(".") { entry = entry.dropFirst() }
            return String(entry)
        }.filter { !$0.isEmpty }
    }

    /// promise-run's own environment (the first of a name wins, as
    /// everywhere else promise-run reads it).
    static func fromProcess() -> ProxySettings {
        ProxySettings(environment: ProcessEnvironment.current().filter { $0.key.lowercased().hasSuffix("_proxy") })
    }

    /// The proxy for a request to `url`, or nil to go directly.
    func proxy(for url: RequestURL) -> String? {
        guard let proxy = url.isSecure ? https : http else { return nil }
        return isExcepted(url.host) ? nil : proxy
    }

    private func isExcepted(_ host: String) -> Bool {
        for entry in exceptions {
            if entry == "*" || entry == host || host.hasSuffix("." + entry) { return true }
            if let slash = entry.firstIndex(of: "/"), let bits = Int(entry[entry.index(after: slash)...]),
                let network = IPv4(String(entry[..<slash])), let address = IPv4(host), (0...32).contains(bits)
            {
                let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
                if network & mask == address & mask { return true }
            }
        }
        return false
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    private func IPv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }
}
