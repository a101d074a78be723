import RunnerSystem
import WorkflowModel

/// Where the shared cache lives: `--cache URL` or
/// `PROMISE_RUN_CACHE`. A folder (`/mnt/cache`, `file:///mnt/cache`,
/// relative to the current folder), or an HTTP(S) store that answers GET
/// and PUT under the URL. Credentials come from the URL's user info (sent
/// as Basic authentication) or `PROMISE_RUN_CACHE_TOKEN` (sent as a
/// Bearer token); `display` never holds them.
/// See docs/language.md, 'A shared cache'.
package struct CacheLocation: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// An absolute folder.
        case folder(String)
        /// The store's base URL, without user info and without a trailing `/`.
        case http(String)
    }

    package var kind: Kind
    /// From the URL's user info.
    package var user: String?
    package var password: String?
    /// `PROMISE_RUN_CACHE_TOKEN`.
    package var token: String?

    /// The location as it may be shown: no user info, no token.
    package var display: String {
        switch kind {
        case .folder(let path): return path
        case .http(let url): return url
        }
    }

    /// The secrets it carries, for masking: the password, its Basic
    /// authentication token, the token.
    package var secrets: [String] {
        let basic = password.flatMap { $0.isEmpty ? nil : BasicAuthToken.of(user: user ?? "", password: $0) }
        return [password, basic, token].compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// Parses `--cache`'s value; the error says what is wrong and what to
    /// write instead.
    package static func parse(_ text: String, currentDirectory: String, token: String?) -> Result<CacheLocation, CacheLocationError> {
        let token = token.flatMap { $0.isEmpty ? nil : $0 }
        guard !text.isEmpty else { return .failure(CacheLocationError("the cache's URL is empty")) }
        if text.hasPrefix("file://") {
            let path = String(text.dropFirst("file://".count))
            guard path.hasPrefix("/") else {
                return .failure(CacheLocationError("'\(text)': a file:// URL needs an absolute path (file:///mnt/cache)"))
            }
            return .success(CacheLocation(kind: .folder(Paths.normalized(percentDecoded(path))), token: token))
        }
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let schemeEnd = text.firstRange(of: "://")!.upperBound
            let scheme = String(text[..<schemeEnd]).lowercased()
            var rest = Substring(text[schemeEnd...])
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
            var authority = rest[..<authorityEnd]
            rest = rest[authorityEnd...]
            var user: String?
            var password: String?
            if let at = authority.lastIndex(of: "@") {
                let info = authority[..<at]
                authority = authority[authority.index(after: at)...]
                if let colon = info.firstIndex(of: ":") {
                    user = percentDecoded(String(info[..<colon]))
                    password = percentDecoded(String(info[info.index(after: colon)...]))
                } else {
                    user = percentDecoded(String(info))
                }
            }
            guard !authority.isEmpty else { return .failure(CacheLocationError("'\(Self.withoutUserInfo(text))' names no host")) }
            guard !rest.contains("?"), !rest.contains("#") else {
                return .failure(CacheLocationError("'\(Self.withoutUserInfo(text))': the cache's URL takes no query or fragment"))
            }
            var path = String(rest)
            while path.hasSuffix("/") { path.removeLast() }
            return .success(CacheLocation(kind: .http(scheme + authority + path), user: user, password: password, token: token))
        }
        if let colon = text.firstRange(of: "://") {
            let scheme = text[..<colon.lowerBound]
            return .failure(
                CacheLocationError(
                    "'\(scheme)://' caches are not supported; give a folder, file://, http:// or https:// "
                        + "(an object store through its HTTP endpoint)"))
        }
        return .success(CacheLocation(kind: .folder(Paths.normalized(Paths.absolute(text, from: currentDirectory))), token: token))
    }

    /// `text` with any user info replaced by `***` (for error messages).
    static func withoutUserInfo(_ text: String) -> String {
        guard let schemeEnd = text.firstRange(of: "://")?.upperBound else { return text }
        let rest = text[schemeEnd...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<schemeEnd]) + "***" + String(text[at...])
    }

    private static func percentDecoded(_ text: String) -> String {
        Filter.percentDecoded(text)
    }
}

/// A `--cache` value that cannot be used.
package struct CacheLocationError: Error, Sendable, Equatable {
    package var message: String
    init(_ message: String) { self.message = message }
}
