// swift-format-ignore-file: AmbiguousTrailingClosureOverload

// (the three `mapTexts` differ by the element they map, never called
// where two could apply)
import PromiseEngine

// Every text of a step passed through one function, once per kind of step:
// the resolver maps a `Step` to a `ResolvedStep` with it, and `texts`
// (every text, in the order written: what the checker checks) is derived
// from it.
//
// Other modules call the concrete forms below (`resolved(by:)`,
// `templates`), not the generic ones: a generic function called across a
// module boundary runs unspecialized, looking up generic metadata on every
// call (a 100,000-step `check` spent 7% there); called here, with the types
// known, the compiler specializes it.

extension StepModel.Step where Text == Template {
    /// The step with every template evaluated by `render`: the resolver's
    /// one call.
    package func resolved(by render: (Template) throws -> String) rethrows -> ResolvedStep {
        try map(render)
    }

    /// Every template of the step, in the order written.
    package var templates: [Template] { texts }
}

extension StepModel.Step {
    /// The step with every text passed through `transform`, in the order
    /// written.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.Step {
        switch self {
        case .shell(let command, let process):
            return .shell(command: try transform(command), process: try process.map(transform))
        case .exec(let arguments, let process):
            return .exec(arguments: try arguments.mapTexts(transform), process: try process.map(transform))
        case .http(let request): return .http(try request.map(transform))
        case .file(let operation): return .file(try operation.map(transform))
        case .sleep(let duration): return .sleep(duration)
        case .log(let message): return .log(try transform(message))
        case .fail(let message): return .fail(try transform(message))
        case .rethrow: return .rethrow
        }
    }

    /// Every text of the step, in the order written.
    package var texts: [Text] {
        textsVisited { visit in _ = map(visit) }
    }
}

extension StepModel.ProcessOptions {
    /// The options with every text passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.ProcessOptions
    {
        StepModel<Other>.ProcessOptions(
            stdin: try stdin.mapText(transform), expectations: try expectations.mapTexts(transform),
            captures: captures, detach: detach, sources: try sources.mapTexts(transform),
            generates: try generates.mapTexts(transform), environmentInputs: environmentInputs,
            depfile: try depfile.mapText(transform))
    }
}

extension StepModel.HTTPRequest {
    /// The request with every text passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.HTTPRequest {
        let url = try transform(url)
        let query = try query.mapTexts(transform)
        let headers = try headers.mapTexts(transform)
        var auth: StepModel<Other>.BasicAuth?
        if let basicAuth {
            auth = StepModel<Other>.BasicAuth(user: try transform(basicAuth.user), password: try transform(basicAuth.password))
        }
        let body = try body.map(transform)
        let save = try save.mapText(transform)
        let tls = StepModel<Other>.HTTPTLSOptions(
            insecure: tls.insecure, caCertificate: try tls.caCertificate.mapText(transform),
            certificate: try tls.certificate.mapText(transform), key: try tls.key.mapText(transform))
        let transportOptions = StepModel<Other>.HTTPTransportOptions(
            connectTimeout: transport.connectTimeout, resolve: try transport.resolve.mapTexts(transform),
            unixSocket: try transport.unixSocket.mapText(transform), httpVersion: transport.httpVersion)
        return StepModel<Other>.HTTPRequest(
            method: method, url: url, headers: headers, body: body, redirects: redirects, save: save,
            expectations: try expectations.mapTexts(transform), captures: captures, tls: tls,
            cookies: cookies, query: query, basicAuth: auth, transport: transportOptions)
    }
}

extension StepModel.Named {
    /// The name and value passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.Named {
        StepModel<Other>.Named(name: try transform(name), value: try transform(value))
    }
}

extension StepModel.HTTPBody {
    /// The body with every text passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.HTTPBody {
        switch self {
        case .none: return .none
        case .text(let body): return .text(try transform(body))
        case .file(let path): return .file(try transform(path))
        case .json(let body): return .json(try transform(body))
        case .form(let fields): return .form(try fields.mapTexts(transform))
        case .multipart(let parts):
            var mapped: [StepModel<Other>.MultipartPart] = []
            mapped.reserveCapacity(parts.count)
            for part in parts {
                let name = try transform(part.name)
                switch part.content {
                case .text(let value):
                    mapped.append(StepModel<Other>.MultipartPart(name: name, content: .text(try transform(value))))
                case .file(let path, let type):
                    mapped.append(
                        StepModel<Other>.MultipartPart(name: name, content: .file(path: try transform(path), type: try type.mapText(transform))))
                }
            }
            return .multipart(mapped)
        }
    }
}

extension StepModel.FileOperation {
    /// The operation with its paths and contents passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.FileOperation
    {
        switch self {
        case .write(let path, let content): return .write(path: try transform(path), content: try transform(content))
        case .append(let path, let content): return .append(path: try transform(path), content: try transform(content))
        case .read(let path): return .read(path: try transform(path))
        case .copy(let from, let to): return .copy(from: try transform(from), to: try transform(to))
        case .move(let from, let to): return .move(from: try transform(from), to: try transform(to))
        case .delete(let path): return .delete(path: try transform(path))
        case .mkdir(let path): return .mkdir(path: try transform(path))
        case .exists(let path): return .exists(path: try transform(path))
        }
    }
}

extension StepModel.StepExpectation {
    /// The expectation with its texts (if any) passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure)
        -> StepModel<Other>.StepExpectation
    {
        switch self {
        case .status(let patterns): return .status(patterns)
        case .exit(let codes): return .exit(codes)
        case .sha256(let hex, let negated): return .sha256(hex, negated: negated)
        case .bytes(let op, let count): return .bytes(op, count)
        case .md5(let hex, let negated): return .md5(hex, negated: negated)
        case .duration(let op, let duration): return .duration(op, duration)
        case .text(let stream, let predicate): return .text(stream, try predicate.map(transform))
        case .header(let name, .text(let predicate)): return .header(name: name, .text(try predicate.map(transform)))
        case .header(let name, .count(let comparison, let count)): return .header(name: name, .count(comparison, count))
        case .header(let name, .exists(let negated)): return .header(name: name, .exists(negated: negated))
        case .json(let path, let check): return .json(path, try check.map(transform))
        case .value(let subject, let filters, let check): return .value(subject, filters: filters, try check.map(transform))
        }
    }

    /// The texts of the expectation (none, or the one it compares with).
    package var texts: [Text] {
        textsVisited { visit in _ = map(visit) }
    }
}

extension StepModel.TextPredicate {
    /// The predicate with its text (if any) passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.TextPredicate
    {
        switch test {
        case .equals(let text): return StepModel<Other>.TextPredicate(.equals(try transform(text)), negated: negated)
        case .contains(let text): return StepModel<Other>.TextPredicate(.contains(try transform(text)), negated: negated)
        case .startsWith(let text): return StepModel<Other>.TextPredicate(.startsWith(try transform(text)), negated: negated)
        case .endsWith(let text): return StepModel<Other>.TextPredicate(.endsWith(try transform(text)), negated: negated)
        case .matches(let pattern): return StepModel<Other>.TextPredicate(.matches(pattern), negated: negated)
        }
    }
}

extension StepModel.JSONCheck {
    /// The check with its text (if any) passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.JSONCheck {
        switch self {
        case .exists(let negated): return .exists(negated: negated)
        case .compare(let comparison, let literal): return .compare(comparison, try literal.map(transform))
        case .count(let comparison, let count): return .count(comparison, count)
        case .contains(let text, let negated): return .contains(try transform(text), negated: negated)
        case .matches(let pattern, let negated): return .matches(pattern, negated: negated)
        case .isType(let type, let negated): return .isType(type, negated: negated)
        case .predicate(let predicate, let negated): return .predicate(predicate, negated: negated)
        case .startsWith(let text, let negated): return .startsWith(try transform(text), negated: negated)
        case .endsWith(let text, let negated): return .endsWith(try transform(text), negated: negated)
        }
    }
}

extension StepModel.JSONLiteral {
    /// The literal with its string (if it is one) passed through `transform`.
    package func map<Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> StepModel<Other>.JSONLiteral {
        switch self {
        case .string(let text): return .string(try transform(text))
        case .integer(let digits): return .integer(digits)
        case .number(let value): return .number(value)
        case .boolean(let value): return .boolean(value)
        case .null: return .null
        case .list(let items):
            var mapped: [StepModel<Other>.JSONLiteral] = []
            for item in items { mapped.append(try item.map(transform)) }
            return .list(mapped)
        }
    }
}

/// Every text a `map` passes to `visit`, in order: `walk` maps with it.
private func textsVisited<Text>(by walk: ((Text) -> Text) -> Void) -> [Text] {
    var all: [Text] = []
    walk { text in
        all.append(text)
        return text
    }
    return all
}

extension Optional {
    /// The wrapped text passed through `transform`, or nil.
    fileprivate func mapText<Other, Failure: Error>(_ transform: (Wrapped) throws(Failure) -> Other) throws(Failure) -> Other? {
        guard let self else { return nil }
        return try transform(self)
    }
}

extension Array {
    /// Each text passed through `transform`.
    fileprivate func mapTexts<Other: StepText, Failure: Error>(_ transform: (Element) throws(Failure) -> Other) throws(Failure) -> [Other]
    where Element: StepText {
        var mapped: [Other] = []
        mapped.reserveCapacity(count)
        for text in self { mapped.append(try transform(text)) }
        return mapped
    }

    /// Each named text passed through `transform`.
    fileprivate func mapTexts<Text, Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> [StepModel<
        Other
    >.Named]
    where Element == StepModel<Text>.Named {
        var mapped: [StepModel<Other>.Named] = []
        mapped.reserveCapacity(count)
        for named in self { mapped.append(try named.map(transform)) }
        return mapped
    }

    /// Each expectation passed through `transform`.
    fileprivate func mapTexts<Text, Other: StepText, Failure: Error>(_ transform: (Text) throws(Failure) -> Other) throws(Failure) -> [StepModel<
        Other
    >.StepExpectation]
    where Element == StepModel<Text>.StepExpectation {
        var mapped: [StepModel<Other>.StepExpectation] = []
        mapped.reserveCapacity(count)
        for expectation in self { mapped.append(try expectation.map(transform)) }
        return mapped
    }
}
