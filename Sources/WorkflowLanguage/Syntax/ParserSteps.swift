import PromiseEngine
import WorkflowModel

// Steps: `sh`, `exec`, `http`, `file`, `sleep`, `log`, `fail`, `rethrow`,
// and the block of attributes after them.

/// What a step's block adds to it, gathered while parsing.
struct StepExtras {
    var stdin: Template?
    var expectations: [StepExpectation] = []
    var captures: [Capture] = []
    var headers: [NamedTemplate] = []
    var query: [NamedTemplate] = []
    var basicAuth: BasicAuth?
    var body: HTTPBody = .none
    var redirects: Int?
    var save: Template?
    var tls = HTTPTLSOptions()
    var transport = HTTPTransportOptions()
    var detach = false
    var sources: [Template] = []
    var generates: [Template] = []
    var environmentInputs: [String] = []
    var depfile: Template?
    /// Where `depfile` is written (it needs `sources`).
    var depfileRange: SourceRange?

    var process: ProcessOptions {
        ProcessOptions(
            stdin: stdin, expectations: expectations, captures: captures, detach: detach,
            sources: sources, generates: generates, environmentInputs: environmentInputs, depfile: depfile)
    }
}

extension Parser {
    /// The attributes each step kind takes, from the language table.
    static func attributeNames(for kind: String) -> [String] {
        LanguageTable.attributes(for: kind)
    }

    static let stepAttributeNames = Set(LanguageTable.attributes.map(\.name))

    /// Attribute words from other tools (curl, GitHub Actions, go-task).
    static let attributeAliases = [
        "headers": "header", "working-directory": "cwd", "dir": "cwd", "workdir": "cwd", "environment": "env",
        "input": "stdin", "assert": "expect", "expects": "expect", "data": "body", "location": "redirects",
        "output": "save", "cacerts": "cacert",
    ]

    /// `[A-Za-z_][A-Za-z0-9_]*`: what a shell can export.
    static func isEnvironmentName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || (first | 0x20 >= 0x61 && first | 0x20 <= 0x7A) else { return false }
        return name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }
    }

    static let fileOperations = LanguageTable.fileOperations.map(\.name)

    mutating func parseStep(label: SyntaxName?, _ context: BlockContext) throws(ParseFailure) -> SyntaxNode {
        let keywordRange = current.range
        let keyword = text(current)
        advance()
        var extras = StepExtras()
        var attributes = SyntaxAttributes()
        // The step's own arguments; the step is built after its block.
        var templates: [Template] = []
        var method = HTTPMethod.GET
        var operation = ""
        var duration: Duration = .zero
        switch keyword {
        case "sh":
            templates.append(try parseTemplate("after 'sh' (the command for /bin/sh -c)"))
        case "exec":
            // A list, as Docker and GitHub Actions write a command: said.
            if current.kind == .leftBracket {
                throw error("'exec' takes the program and its arguments as strings in a row, not a list: exec \"make\" \"all\"")
            }
            templates.append(try parseTemplate("after 'exec' (the program, then its arguments)"))
            while current.kind.isString {
                templates.append(try parseTemplate("as an argument"))
            }
        case "http":
            guard current.kind == .identifier else {
                throw error(
                    "expected an HTTP method after 'http' (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, or another in capitals), found \(found)")
            }
            let name = text(current)
            let standard = HTTPMethod.standard.map(\.rawValue)
            guard name.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
                let upper = name.uppercased()
                let hint = standard.contains(upper) ? "; write '\(upper)'" : Suggestion.phrase(for: name, among: standard)
                throw error("'\(name)' is not an HTTP method: a method is written in capital letters (GET, POST, PURGE)\(hint)")
            }
            if !standard.contains(name),
                let near = standard.first(where: { Suggestion.editDistance(Array(name.utf8), Array($0.utf8), limit: 1) <= 1 })
            {
                // Sent as written (a server may know it), but it is likely a typo.
                diagnostics.warning(
                    "'\(name)' is not a standard HTTP method; did you mean '\(near)'?", at: current.range,
                    notes: [.init("it is sent as written; a method one letter away from a standard one is usually a typo")])
            }
            method = HTTPMethod(rawValue: name)
            advance()
            let urlToken = current
            let url = try parseTemplate("after 'http \(name)' (the URL)")
            // Written whole (no `{{ }}`): its shape is known before running.
            if case .literal(let text)? = url.parts.first, url.parts.count == 1, let problem = HTTPURLShape.problem(text) {
                diagnostics.error(problem, at: urlToken.range)
            }
            templates.append(url)
        case "file":
            guard current.kind == .identifier else {
                throw error("expected a file operation after 'file' (\(Parser.fileOperations.joined(separator: ", "))), found \(found)")
            }
            operation = text(current)
            guard Parser.fileOperations.contains(operation) else {
                throw error(
                    "unknown file operation '\(operation)'\(Suggestion.phrase(for: operation, among: Parser.fileOperations))",
                    notes: [.init("the operations are " + Parser.fileOperations.joined(separator: ", "))])
            }
            advance()
            switch operation {
            case "write", "append":
                templates.append(try parseTemplate("after 'file \(operation)' (the path)"))
                templates.append(try parseTemplate("after the path (the content)"))
            case "copy", "move":
                templates.append(try parseTemplate("after 'file \(operation)' (the source)"))
                templates.append(try parseTemplate("after the source (the destination)"))
            default:
                templates.append(try parseTemplate("after 'file \(operation)' (the path)"))
            }
        case "sleep":
            duration = try parseDuration()
        case "log", "fail":
            templates.append(try parseTemplate("after '\(keyword)'"))
        default:
            if !context.insideCatch {
                throw error("'rethrow' is only allowed inside a catch", at: keywordRange)
            }
        }
        if current.kind == .leftBrace {
            try parseStepBlock(keyword, isParallelChild: context.childrenAreParallelChildren, attributes: &attributes, extras: &extras)
            if let range = extras.depfileRange, extras.sources.isEmpty {
                diagnostics.error(
                    "'depfile' adds what the command discovers to the step's 'sources'; give the step 'sources' too "
                        + "(sources \"src/a.c\")", at: range)
            }
        }
        let step: Step
        switch keyword {
        case "sh": step = .shell(command: templates[0], process: extras.process)
        case "exec": step = .exec(arguments: templates, process: extras.process)
        case "http":
            step = .http(
                HTTPRequest(
                    method: method, url: templates[0], headers: extras.headers, body: extras.body,
                    redirects: extras.redirects, save: extras.save,
                    expectations: extras.expectations, captures: extras.captures, tls: extras.tls,
                    query: extras.query, basicAuth: extras.basicAuth, transport: extras.transport))
        case "file":
            switch operation {
            case "write": step = .file(.write(path: templates[0], content: templates[1]))
            case "append": step = .file(.append(path: templates[0], content: templates[1]))
            case "copy": step = .file(.copy(from: templates[0], to: templates[1]))
            case "move": step = .file(.move(from: templates[0], to: templates[1]))
            case "read": step = .file(.read(path: templates[0]))
            case "delete": step = .file(.delete(path: templates[0]))
            case "mkdir": step = .file(.mkdir(path: templates[0]))
            default: step = .file(.exists(path: templates[0]))
            }
        case "sleep": step = .sleep(duration)
        case "log": step = .log(templates[0])
        case "fail": step = .fail(templates[0])
        default: step = .rethrow
        }
        requireLabel(label, for: attributes)
        return SyntaxNode(label: label, keyword: keywordRange, end: previousEnd, attributes: attributes, kind: .step(step))
    }

    /// `{ attribute... }` after a step.
    private mutating func parseStepBlock(_ kind: String, isParallelChild: Bool, attributes: inout SyntaxAttributes, extras: inout StepExtras)
        throws(ParseFailure)
    {
        guard let open = try openBlock(after: "'\(kind)'") else { return }
        defer { depth -= 1 }
        let inline = isInline(open)
        parseEach { parser throws(ParseFailure) in
            try parser.parseStepAttribute(kind, isParallelChild: isParallelChild, attributes: &attributes, extras: &extras)
        }
        _ = closeBlock(open, inline: inline)
    }

    private mutating func parseStepAttribute(_ kind: String, isParallelChild: Bool, attributes: inout SyntaxAttributes, extras: inout StepExtras)
        throws(ParseFailure)
    {
        guard current.kind == .identifier else {
            if current.kind == .leftBrace {
                throw error("unexpected '{' in the attributes of a \(kind) step")
            }
            throw error("expected an attribute of the \(kind) step, found \(found)")
        }
        let name = text(current)
        let nameRange = current.range
        let allowed = Parser.attributeNames(for: kind)
        guard allowed.contains(name) else {
            if Parser.stepAttributeNames.contains(name) {
                let owners = ["sh", "exec", "http"].filter { Parser.attributeNames(for: $0).contains(name) }
                throw error(
                    "attribute '\(name)' does not apply to \(kind) steps; it is for \(owners.joined(separator: " and ")) steps", at: nameRange)
            }
            if Parser.stepKeywords.contains(name) || Parser.groupKeywords.contains(name) {
                throw error("a step's block holds its attributes, not other steps; '\(name)' cannot be written here", at: nameRange)
            }
            var phrase = Suggestion.phrase(for: name, among: allowed)
            if phrase.isEmpty, let alias = Parser.aliases[name] ?? Parser.attributeAliases[name], allowed.contains(alias) {
                phrase = "; did you mean '\(alias)'?"
            }
            throw error("unknown attribute '\(name)' for \(kind)\(phrase)", at: nameRange)
        }
        advance()
        switch name {
        case "timeout", "retry", "allow-failure", "desc", "on-demand", "executor", "partition", "cpus", "memory", "slurm-options":
            try parseCommonAttribute(name, keywordRange: nameRange, into: &attributes)
        case "needs":
            guard isParallelChild else {
                throw error("'needs' applies only to a direct child of a parallel group", at: nameRange)
            }
            try parseCommonAttribute(name, keywordRange: nameRange, into: &attributes)
        case "cwd":
            let cwd = try parseTemplate("after 'cwd' (the working folder)")
            if attributes.cwd != nil { throw error("duplicate 'cwd'", at: nameRange) }
            attributes.cwd = cwd
        case "env":
            let variable = try expectIdentifier("a name after 'env'")
            _ = try expect(.equal, "after 'env \(variable.text)'")
            attributes.environment.append(EnvironmentSetting(name: variable.text, value: try parseTemplate("as the value of '\(variable.text)'")))
        case "stdin":
            let stdin = try parseTemplate("after 'stdin'")
            if extras.stdin != nil { throw error("duplicate 'stdin'", at: nameRange) }
            extras.stdin = stdin
        case "header":
            let header = try parseNameTemplate("a header name", header: true)
            extras.headers.append(NamedTemplate(name: header, value: try parseTemplate("after the header name (its value)")))
        case "query":
            let parameter = try parseNameTemplate("a query parameter name", header: false)
            extras.query.append(NamedTemplate(name: parameter, value: try parseTemplate("after the parameter name (its value)")))
        case "basic-auth":
            let user = try parseTemplate("after 'basic-auth' (the user)")
            let password = try parseTemplate("after the user (the password)")
            if extras.basicAuth != nil { throw error("duplicate 'basic-auth'", at: nameRange) }
            extras.basicAuth = BasicAuth(user: user, password: password)
        case "body", "json":
            var body: HTTPBody
            if name == "body", isKeyword("file") {
                advance()
                body = .file(try parseTemplate("after 'body file' (the path)"))
            } else {
                let value = try parseTemplate("after '\(name)'")
                body = name == "json" ? .json(value) : .text(value)
            }
            guard case .none = extras.body else {
                throw error("a request has one body: 'body', 'json', 'form' or 'multipart'", at: nameRange)
            }
            extras.body = body
        case "form":
            let field = try parseNameTemplate("a form field name", header: false)
            let value = try parseTemplate("after the form field name (its value)")
            switch extras.body {
            case .none: extras.body = .form([NamedTemplate(name: field, value: value)])
            case .form(var fields):
                fields.append(NamedTemplate(name: field, value: value))
                extras.body = .form(fields)
            default: throw error("a request has one body: 'body', 'json', 'form' or 'multipart'", at: nameRange)
            }
        case "multipart":
            let field = try parseNameTemplate("a part name", header: false)
            let content: MultipartPart.Content
            if isKeyword("file") {
                advance()
                let path = try parseTemplate("after 'file' (the path of the file to send)")
                var type: Template?
                if isKeyword("type") {
                    advance()
                    let typeRange = current.range
                    type = try parseTemplate("after 'type' (a media type such as image/png)")
                    if let literal = type?.literalValue, let control = ControlCharacters.first(in: literal) {
                        throw error(
                            "a media type cannot hold control characters (this one has \(ControlCharacters.escape(control)))",
                            at: typeRange)
                    }
                }
                content = .file(path: path, type: type)
            } else {
                content = .text(try parseTemplate("after the part name (its value, or file PATH)"))
            }
            let part = MultipartPart(name: field, content: content)
            switch extras.body {
            case .none: extras.body = .multipart([part])
            case .multipart(var parts):
                parts.append(part)
                extras.body = .multipart(parts)
            default: throw error("a request has one body: 'body', 'json', 'form' or 'multipart'", at: nameRange)
            }
        case "redirects":
            let count = try parseInteger("the number of redirects", range: 0...100)
            if extras.redirects != nil { throw error("duplicate 'redirects'", at: nameRange) }
            extras.redirects = count
        case "save":
            let path = try parseTemplate("after 'save' (the path)")
            if extras.save != nil { throw error("duplicate 'save'", at: nameRange) }
            extras.save = path
        case "detach":
            if extras.detach { throw error("duplicate 'detach'", at: nameRange) }
            extras.detach = true
        case "sources", "generates":
            var patterns: [Template] = []
            repeat {
                patterns.append(try parseTemplate("after '\(name)' (glob patterns: *, ?, **; relative to the step's folder)"))
            } while current.kind.isString
            if name == "sources" {
                if !extras.sources.isEmpty { throw error("duplicate 'sources'; list every pattern after one 'sources'", at: nameRange) }
                extras.sources = patterns
            } else {
                if !extras.generates.isEmpty { throw error("duplicate 'generates'; list every pattern after one 'generates'", at: nameRange) }
                extras.generates = patterns
            }
        case "depfile":
            let path = try parseTemplate("after 'depfile' (the dependency file the command writes: depfile \"obj/a.d\")")
            if extras.depfile != nil { throw error("duplicate 'depfile'", at: nameRange) }
            extras.depfile = path
            extras.depfileRange = nameRange
        case "env-inputs":
            // Inherited variables a script reads by itself: part of the
            // fingerprint of a step with `sources`.
            guard current.kind == .identifier else {
                throw error("expected a variable name after 'env-inputs' (env-inputs CC CFLAGS)", at: current.range)
            }
            if !extras.environmentInputs.isEmpty {
                throw error("duplicate 'env-inputs'; list every variable after one 'env-inputs'", at: nameRange)
            }
            while current.kind == .identifier {
                let variable = text(current)
                guard Self.isEnvironmentName(variable) else {
                    throw error(
                        "'\(variable)' is not an environment variable's name (letters, digits and _, not first a digit)",
                        at: current.range)
                }
                if !extras.environmentInputs.contains(variable) { extras.environmentInputs.append(variable) }
                advance()
            }
        case "insecure":
            if extras.tls.insecure { throw error("duplicate 'insecure'", at: nameRange) }
            extras.tls.insecure = true
        case "cacert":
            let path = try parseTemplate("after 'cacert' (a PEM file of certificate authorities to trust)")
            if extras.tls.caCertificate != nil { throw error("duplicate 'cacert'", at: nameRange) }
            extras.tls.caCertificate = path
        case "cert":
            let path = try parseTemplate("after 'cert' (the client certificate, a PEM file)")
            if extras.tls.certificate != nil { throw error("duplicate 'cert'", at: nameRange) }
            extras.tls.certificate = path
        case "key":
            let path = try parseTemplate("after 'key' (the client certificate's key, a PEM file)")
            if extras.tls.key != nil { throw error("duplicate 'key'", at: nameRange) }
            extras.tls.key = path
        case "connect-timeout":
            if extras.transport.connectTimeout != nil { throw error("duplicate 'connect-timeout'", at: nameRange) }
            let duration = try parseDuration()
            guard duration > .zero else { throw error("a connect timeout above zero, as in connect-timeout 2s", at: nameRange) }
            extras.transport.connectTimeout = duration
        case "resolve":
            let token = current
            let mapping = try parseTemplate("after 'resolve' (\"HOST:PORT:ADDRESS\", as curl's --resolve)")
            if let text = mapping.literalValue, let problem = ResolveMapping.problem(in: text) {
                throw error(
                    "invalid resolve '\(text)': \(problem)", at: token.range,
                    notes: [.init("write resolve \"HOST:PORT:ADDRESS\", as in resolve \"api.example.com:443:127.0.0.1\"")])
            }
            extras.transport.resolve.append(mapping)
        case "unix-socket":
            if extras.transport.unixSocket != nil { throw error("duplicate 'unix-socket'", at: nameRange) }
            extras.transport.unixSocket = try parseTemplate("after 'unix-socket' (the path of a Unix domain socket)")
        case "http-version":
            if extras.transport.httpVersion != nil { throw error("duplicate 'http-version'", at: nameRange) }
            let word = current.kind == .number || current.kind == .identifier || current.kind.isString ? text(current) : ""
            let written = current.kind.isString ? String(word.dropFirst().dropLast()) : word
            guard let version = HTTPVersion(rawValue: written) else {
                throw error("expected an HTTP version after 'http-version' (1.1 or 2), found \(found)")
            }
            advance()
            extras.transport.httpVersion = version
        case "expect":
            extras.expectations.append(try parseExpectation(kind))
        default:
            let capture = try parseCapture(kind)
            if extras.captures.contains(where: { $0.name == capture.name }) {
                throw error("duplicate capture '\(capture.name)'", at: nameRange)
            }
            extras.captures.append(capture)
        }
    }
}
