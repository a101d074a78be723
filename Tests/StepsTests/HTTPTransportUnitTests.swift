import PromiseEngine
import Testing
import WorkflowModel

@testable import Steps

@Suite("HTTP: URLs as sent, and redirects resolved")
struct RequestURLTests {
    @Test func partsOfAURL() throws {
        let url = try #require(RequestURL.parse("HTTP://User:p%40ss@Example.COM:8080/a/b?q=1#frag"))
        #expect(url.scheme == "http")
        #expect(url.userInfo == "User:p%40ss")
        #expect(url.host == "example.com")
        #expect(url.port == 8080)
        #expect(url.target == "/a/b?q=1")
        #expect(url.authority == "example.com:8080")
        #expect(url.text == "http://example.com:8080/a/b?q=1")
        #expect(RequestURL.parse("https://h")?.target == "/")
        #expect(RequestURL.parse("https://h")?.port == 443)
        #expect(RequestURL.parse("https://h:443/x")?.authority == "h")
        #expect(RequestURL.parse("http://[::1]:9000/x")?.host == "::1")
        #expect(RequestURL.parse("http://[::1]:9000/x")?.authority == "[::1]:9000")
    }

    /// A URL is an object shared by reference (a request's hops and
    /// exchange hold one), yet equal by what it says: two made apart from
    /// the same text are equal and hash alike, and a different port, user
    /// or path is another URL.
    @Test func equalByWhatItSaysNotByIdentity() throws {
        let made = RequestURL(scheme: "http", userInfo: nil, host: "h", port: 8080, portWritten: true, target: "/a?b")
        let again = RequestURL(scheme: "http", userInfo: nil, host: "h", port: 8080, portWritten: true, target: "/a?b")
        #expect(made !== again)
        #expect(made == again)
        #expect(Set([made, again]).count == 1)
        let others = [
            RequestURL(scheme: "http", userInfo: nil, host: "h", port: 8081, portWritten: true, target: "/a?b"),
            RequestURL(scheme: "http", userInfo: "u:p", host: "h", port: 8080, portWritten: true, target: "/a?b"),
            RequestURL(scheme: "http", userInfo: nil, host: "h", port: 8080, portWritten: true, target: "/a"),
            RequestURL(scheme: "https", userInfo: nil, host: "h", port: 8080, portWritten: true, target: "/a?b"),
        ]
        for other in others { #expect(other != made) }
        #expect(Set(others + [made]).count == 5)
    }

    @Test(arguments: ["ftp://h/x", "http:/x", "http://", "http://h:99999/", "http://h:x/", "mailto:a@b", "/relative"])
    func notHTTPURLs(_ text: String) {
        #expect(RequestURL.parse(text) == nil)
    }

    @Test func sentAsWrittenWithOnlyUnsendableBytesEncoded() {
        #expect(RequestURL.parse("http://h/p?p={bar}&q=a%3db")?.target == "/p?p=%7Bbar%7D&q=a%3db")
        #expect(RequestURL.parse("http://h/a b/é?x=\"<>|\\^`")?.target == "/a%20b/%C3%A9?x=%22%3C%3E%7C%5C%5E%60")
        #expect(RequestURL.parse("http://h/%zz/100%")?.target == "/%zz/100%")
    }

    @Test func dotSegmentsAreRemoved() {
        #expect(RequestURL.parse("http://h/a/./b/../c")?.target == "/a/c")
        #expect(RequestURL.parse("http://h/a/..")?.target == "/")
        #expect(RequestURL.parse("http://h/../../x")?.target == "/x")
        #expect(RequestURL.parse("http://h/a.b/.c/..d")?.target == "/a.b/.c/..d")
    }

    @Test(
        "RFC 3986 section 5.4's examples",
        arguments: [
            ("g", "/b/c/g"), ("./g", "/b/c/g"), ("g/", "/b/c/g/"), ("/g", "/g"), ("?y", "/b/c/d;p?y"),
            ("g?y", "/b/c/g?y"), ("g#s", "/b/c/g"), (";x", "/b/c/;x"), ("g;x", "/b/c/g;x"), ("", "/b/c/d;p?q"), ("#s", "/b/c/d;p?q"),
            (".", "/b/c/"), ("./", "/b/c/"), ("..", "/b/"), ("../", "/b/"), ("../g", "/b/g"), ("../..", "/"),
            ("../../", "/"), ("../../g", "/g"), ("../../../g", "/g"), ("/./g", "/g"), ("/../g", "/g"), ("g.", "/b/c/g."),
            (".g", "/b/c/.g"), ("g..", "/b/c/g.."), ("..g", "/b/c/..g"), ("./../g", "/b/g"), ("./g/.", "/b/c/g/"),
            ("g/./h", "/b/c/g/h"), ("g/../h", "/b/c/h"),
        ])
    func relativeReferences(_ reference: String, _ target: String) throws {
        let base = try #require(RequestURL.parse("http://a/b/c/d;p?q"))
        #expect(base.resolving(reference)?.target == target)
        #expect(base.resolving(reference)?.host == "a")
    }

    @Test func absoluteAndSchemeRelativeReferences() throws {
        let base = try #require(RequestURL.parse("https://a:8443/b/c"))
        #expect(base.resolving("//other/x")?.text == "https://other/x")
        #expect(base.resolving("http://other:81/y")?.text == "http://other:81/y")
        #expect(base.resolving("ftp://other/y") == nil)
        #expect(base.resolving("/p q")?.target == "/p%20q")
        let other = try #require(base.resolving("//a:8443/z"))
        #expect(other.origin == base.origin)
        #expect(base.resolving("http://a:8443/z")?.origin != base.origin)
    }

    @Test func aRelativeReferenceSaysItsOwnText() throws {
        let base = try #require(RequestURL.parse("http://a:81/b/c?q"))
        let resolved = try #require(base.resolving("../d?x=1"))
        #expect(resolved.text == "http://a:81/d?x=1")
        #expect(resolved.authority == "a:81")
        #expect(base.text == "http://a:81/b/c?q")
    }

    /// The URLs parsed last are kept (a load test sends one URL thousands
    /// of times): more URLs than are kept, in turns, each parsed to its
    /// own parts every time, and an unparsable one still refused.
    @Test func keptURLsAreEachTheirOwn() throws {
        let count = RecentURLs.capacity * 2 + 3
        for round in 0..<3 {
            for index in 0..<count {
                let port = 8000 + index
                let url = try #require(RequestURL.parse("http://Host\(index).test:\(port)/p/\(index)?r=\(round % 2)"))
                #expect(url.host == "host\(index).test")
                #expect(url.port == port)
                #expect(url.target == "/p/\(index)?r=\(round % 2)")
                #expect(url.text == "http://host\(index).test:\(port)/p/\(index)?r=\(round % 2)")
                #expect(url.origin == Origin(scheme: "http", host: "host\(index).test", port: port))
            }
            #expect(RequestURL.parse("http://h:99999/") == nil)
        }
    }
}

@Suite("HTTP: reading HTTP/1.1 responses")
struct HTTP1ResponseParserTests {
    /// Feeds `chunks` one after another; returns the head, the body and
    /// how it ended.
    private func parse(_ chunks: [String], isHead: Bool = false, closeAtEnd: Bool = false)
        -> (head: ResponseHead?, body: String, end: String)
    {
        var parser = HTTP1ResponseParser(isHead: isHead)
        var head: ResponseHead?
        var body: [UInt8] = []
        for chunk in chunks {
            let bytes = Array(chunk.utf8)
            var offset = 0
            let done: String? = bytes.withUnsafeBytes { buffer in
                while true {
                    switch parser.next(buffer, offset: &offset) {
                    case .needMore: return nil
                    case .head(let parsed): head = parsed
                    case .body(let range): body += buffer[range]
                    case .end(let reusable): return reusable ? "reusable" : "closed"
                    case .failure(let message): return "failure: \(message)"
                    }
                }
            }
            if let done { return (head, String(decoding: body, as: UTF8.self), done) }
        }
        guard closeAtEnd else { return (head, String(decoding: body, as: UTF8.self), "more") }
        switch parser.closed() {
        case .end(let reusable): return (head, String(decoding: body, as: UTF8.self), reusable ? "reusable" : "closed")
        case .failure(let message): return (head, String(decoding: body, as: UTF8.self), "failure: \(message)")
        default: return (head, String(decoding: body, as: UTF8.self), "?")
        }
    }

    @Test func contentLengthAcrossReads() {
        let parsed = parse(["HTTP/1.1 200 OK\r\nContent-", "Length: 11\r\nX-A: 1\r", "\n\r\nhello", " world"])
        #expect(parsed.head?.status == 200)
        #expect(parsed.head?.headers.map(\.name) == ["Content-Length", "X-A"])
        #expect(parsed.body == "hello world")
        #expect(parsed.end == "reusable")
    }

    @Test func headEndSplitAcrossEveryByte() {
        let text = "HTTP/1.1 204 No Content\r\nA: b\r\n\r\n"
        let parsed = parse(text.map { String($0) })
        #expect(parsed.head?.status == 204)
        #expect(parsed.end == "reusable")
    }

    @Test func chunkedWithExtensionsAndTrailers() {
        let parsed = parse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n", " world\r\n0\r\nTrailer: x\r\n\r\n"])
        #expect(parsed.body == "hello world")
        #expect(parsed.end == "reusable")
        let bad = parse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"])
        #expect(bad.end.hasPrefix("failure"))
    }

    @Test func bodyUntilCloseAndCutShort() {
        let untilClose = parse(["HTTP/1.0 200 OK\r\n\r\nall of it"], closeAtEnd: true)
        #expect(untilClose.body == "all of it")
        #expect(untilClose.end == "closed")
        let cut = parse(["HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"], closeAtEnd: true)
        #expect(cut.end.hasPrefix("failure"))
        let nothing = parse([], closeAtEnd: true)
        #expect(nothing.end.contains("without answering"))
    }

    @Test func interimResponsesAreSkippedAndHeadHasNoBody() {
        let parsed = parse(["HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"])
        #expect(parsed.head?.status == 200)
        #expect(parsed.body == "ok")
        let head = parse(["HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n"], isHead: true)
        #expect(head.end == "reusable")
    }

    @Test func connectionCloseDuplicateHeadersAndFoldedLines() {
        let parsed = parse(["HTTP/1.1 200 OK\r\nConnection: close\r\nX-Dup: one\r\nX-Dup: two\r\nX-Fold: a\r\n  b\r\nContent-Length: 0\r\n\r\n"])
        #expect(parsed.end == "closed")
        #expect(parsed.head?.headers.filter { $0.name == "X-Dup" }.map(\.value) == ["one", "two"])
        #expect(parsed.head?.value("x-fold") == "a b")
    }

    @Test func headersTheClientReadsAreFoundWhateverTheirCase() throws {
        let parsed = parse([
            "HTTP/1.1 301 Moved\r\nCONTENT-type: text/plain\r\nlocation: /a\r\nLocation: /b\r\n"
                + "Content-Encoding: gzip\r\ncontent-length: +2\r\n\r\nok"
        ])
        let head = try #require(parsed.head)
        #expect(head.value(.contentType) == "text/plain")
        #expect(head.value(.location) == "/a")
        #expect(head.value(.contentEncoding) == "gzip")
        #expect(head.value(.contentLength) == "+2")
        #expect(head.value(.transferEncoding) == nil)
        #expect(parsed.body == "ok")
        // The same facts from headers received as text (libcurl's).
        let text = ResponseHead(status: 200, version: "2", headers: [("X-A", "1"), ("Content-Type", "application/json")])
        #expect(text.value(.contentType) == "application/json")
        #expect(text.value(.connection) == nil)
    }

    @Test func contentLengthIsReadAsANumberOrRefused() {
        #expect(parse(["HTTP/1.1 200 OK\r\nContent-Length:  3 \r\n\r\nabc"]).body == "abc")
        #expect(parse(["HTTP/1.1 200 OK\r\nContent-Length: -0\r\n\r\n"]).end == "reusable")
        for bad in ["-1", "1x", "", "99999999999999999999", "3, 3"] {
            #expect(parse(["HTTP/1.1 200 OK\r\nContent-Length: \(bad)\r\n\r\nabc"]).end.hasPrefix("failure"), "\(bad)")
        }
        #expect(parse(["HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"]).body == "abc")
        #expect(parse(["HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"]).end.hasPrefix("failure"))
    }

    @Test func connectionOptionsAndTransferCodingsDecideReuse() {
        #expect(parse(["HTTP/1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\nContent-Length: 0\r\n\r\n"]).end == "closed")
        #expect(parse(["HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n"]).end == "reusable")
        #expect(parse(["HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"]).end == "closed")
        // A coding that does not end in chunked: the body runs to the end.
        let gzip = parse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nraw"], closeAtEnd: true)
        #expect(gzip.body == "raw")
        #expect(gzip.end == "closed")
        #expect(parse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip , Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"]).body == "ok")
        // A folded line that ends the connection is read as one value.
        #expect(parse(["HTTP/1.1 200 OK\r\nConnection: keep-alive,\r\n close\r\nContent-Length: 0\r\n\r\n"]).end == "closed")
    }

    @Test func manyTrailersAndInterimResponsesNeitherRecurseNorHang() {
        let trailers = String(repeating: "X-T: 1\r\n", count: 5000)
        #expect(parse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + trailers + "\r\n"]).end.hasPrefix("failure"))
        let few = String(repeating: "X-T: 1\r\n", count: 50)
        #expect(parse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + few + "\r\n"]).end == "reusable")
        let interim = String(repeating: "HTTP/1.1 103 Early Hints\r\n\r\n", count: 500)
        #expect(parse([interim + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"]).end.hasPrefix("failure"))
        // Both framings: chunked wins, and the connection is not reused.
        let both = parse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n2\r\nok\r\n0\r\n\r\n"])
        #expect(both.body == "ok")
        #expect(both.end == "closed")
        // A bare CR inside a value is refused.
        #expect(parse(["HTTP/1.1 200 OK\r\nSet-Cookie: a=b\rX: y\r\nContent-Length: 0\r\n\r\n"]).end.hasPrefix("failure"))
    }

    @Test(arguments: [
        "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nNo colon\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "garbage\r\n\r\n",
    ])
    func malformedResponsesFail(_ text: String) {
        #expect(parse([text]).end.hasPrefix("failure"))
    }
}

@Suite("HTTP: the cookie store (RFC 6265)")
struct CookieJarTests {
    let now: Int64 = 1_800_000_000

    private func url(_ text: String) -> RequestURL { RequestURL.parse(text)! }

    @Test func hostOnlyDomainAndPath() {
        var jar = CookieJar()
        jar.store(
            [
                ("Set-Cookie", "a=1"), ("set-cookie", "b=2; Domain=.example.com; Path=/api"),
                ("Set-Cookie", "c=3; Path=/"),
            ], from: url("http://www.example.com/x/y"), now: now)
        #expect(jar.header(for: url("http://www.example.com/x/z"), now: now) == "a=1; c=3")
        #expect(jar.header(for: url("http://www.example.com/api/v1"), now: now) == "b=2; c=3")
        #expect(jar.header(for: url("http://other.example.com/api"), now: now) == "b=2")
        #expect(jar.header(for: url("http://example.org/"), now: now) == nil)
        #expect(jar.header(for: url("http://www.example.com/apis"), now: now) == "c=3")
    }

    @Test func refusedDomainsSecureAndExpiry() {
        var jar = CookieJar()
        let site = url("https://a.example.com/")
        jar.store("x=1; Domain=other.com", from: site, now: now)
        jar.store("y=1; Domain=com", from: site, now: now)
        jar.store("s=1; Secure", from: site, now: now)
        jar.store("old=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", from: site, now: now)
        jar.store("short=1; Max-Age=10", from: site, now: now)
        #expect(jar.header(for: site, now: now) == "s=1; short=1")
        #expect(jar.header(for: url("http://a.example.com/"), now: now) == "short=1")
        #expect(jar.header(for: site, now: now + 11) == "s=1")
        // Time has passed: `short` expired. Max-Age=0 deletes `s`.
        #expect(jar.values(for: site, now: now + 11).map(\.name) == ["s"])
        jar.store("s=; Max-Age=0", from: site, now: now + 12)
        #expect(jar.header(for: site, now: now + 12) == nil)
        #expect(jar.values(for: site, now: now + 12).isEmpty)
    }

    @Test func cookiesWithControlCharactersAreRefused() {
        var jar = CookieJar()
        let site = url("http://h/")
        jar.store("a=x\u{0D}X-Admin: 1", from: site, now: now)
        jar.store("b=\u{01}", from: site, now: now)
        jar.store("c=ok", from: site, now: now)
        #expect(jar.header(for: site, now: now) == "c=ok")
    }

    @Test func aNewValueReplacesTheOldInPlace() {
        var jar = CookieJar()
        let site = url("http://h/")
        jar.store("a=1", from: site, now: now)
        jar.store("b=2", from: site, now: now)
        jar.store("a=3", from: site, now: now)
        #expect(jar.header(for: site, now: now) == "a=3; b=2")
    }

    @Test func cookieDates() {
        #expect(CookieDate.parse("Wed, 21 Oct 2015 07:28:00 GMT") == 1_445_412_480)
        #expect(CookieDate.parse("Wednesday, 21-Oct-15 07:28:00 GMT") == 1_445_412_480)
        #expect(CookieDate.parse("Wed Oct 21 07:28:00 2015") == 1_445_412_480)
        #expect(CookieDate.parse("not a date") == nil)
    }
}

@Suite("HTTP: proxies from the environment, bodies decoded")
struct ProxyAndBodyTests {
    @Test func proxiesAsCurlReadsThem() throws {
        let settings = ProxySettings(environment: [
            "http_proxy": "http://p:1", "HTTPS_PROXY": "http://s:2", "HTTP_PROXY": "http://ignored:3",
            "no_proxy": "localhost, .internal.example,10.0.0.0/8",
        ])
        let url = { (text: String) in try #require(RequestURL.parse(text)) }
        #expect(settings.proxy(for: try url("http://example.com/")) == "http://p:1")
        #expect(settings.proxy(for: try url("https://example.com/")) == "http://s:2")
        #expect(settings.proxy(for: try url("http://localhost:8/")) == nil)
        #expect(settings.proxy(for: try url("http://a.internal.example/")) == nil)
        #expect(settings.proxy(for: try url("http://internal.example/")) == nil)
        #expect(settings.proxy(for: try url("http://10.2.3.4/")) == nil)
        #expect(settings.proxy(for: try url("http://11.2.3.4/")) == "http://p:1")
        let upper = ProxySettings(environment: ["HTTP_PROXY": "http://ignored:3", "ALL_PROXY": "http://all:4", "NO_PROXY": "*"])
        #expect(upper.proxy(for: try url("http://example.com/")) == nil)
        let all = ProxySettings(environment: ["ALL_PROXY": "http://all:4"])
        #expect(all.proxy(for: try url("https://example.com/")) == "http://all:4")
    }

    @Test func charsets() {
        #expect(BodyText.decode([0x63, 0x61, 0x66, 0xE9], contentType: "text/plain; charset=ISO-8859-1") == "café")
        #expect(BodyText.decode([0x80], contentType: "text/plain; charset=\"windows-1252\"") == "€")
        #expect(BodyText.decode(Array("café".utf8), contentType: "text/plain") == "café")
        #expect(BodyText.decode([0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00], contentType: "text/plain;charset=utf-16") == "hi")
        #expect(BodyText.decode([0x82, 0xA0], contentType: "text/plain; charset=Shift_JIS") == "あ")
    }

    @Test("deflate, zlib-wrapped or raw, decodes even when it comes a byte at a time", arguments: [true, false])
    func deflateByteByByte(_ wrapped: Bool) throws {
        let zlib: [UInt8] = [
            120, 156, 203, 72, 205, 201, 201, 215, 81, 72, 206, 207, 45, 40, 74, 45, 46, 78, 77, 81, 40, 207,
            47, 202, 73, 81, 84, 200, 24, 90, 18, 0, 198, 44, 72, 241,
        ]
        let data = wrapped ? zlib : Array(zlib[2..<(zlib.count - 4)])
        let decoder = try #require(try ContentDecoder.make(for: "deflate"))
        var decoded: [UInt8] = []
        for byte in data {
            try [byte].withUnsafeBytes { bytes in
                try decoder.decode(bytes) { piece in
                    decoded += piece
                    return true
                }
            }
        }
        #expect(String(decoding: decoded, as: UTF8.self) == String(repeating: "hello, compressed world! ", count: 8))
    }

    @Test func contentCodingsUnknownOrStackedFailClearly() {
        #expect(throws: ContentDecoder.DecodeError.self) { try ContentDecoder.make(for: "compress") }
        #expect(throws: ContentDecoder.DecodeError.self) { try ContentDecoder.make(for: "gzip, br") }
        #expect((try? ContentDecoder.make(for: "identity")) == nil)
        #expect(ContentDecoder.acceptEncoding.hasPrefix("gzip, deflate"))
    }

    @Test func base64() {
        #expect(Base64.encode("user:pass".utf8) == "dXNlcjpwYXNz")
        #expect(Base64.encode("a".utf8) == "YQ==")
        #expect(Base64.encode("ab".utf8) == "YWI=")
        #expect(Base64.encode([UInt8]()) == "")
    }
}
