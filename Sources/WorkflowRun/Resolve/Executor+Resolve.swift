import PromiseEngine
import WorkflowModel

extension WorkflowExecutor {
    /// The step with every template replaced by its text, as the step
    /// runner gets it.
    func resolve(_ step: Step, id: String, in values: ValueScope) throws(RunError) -> Step {
        func text(_ template: Template) throws(RunError) -> Template {
            .literal(try interpolator.render(template, in: values, stepID: id))
        }
        func process(_ options: ProcessOptions) throws(RunError) -> ProcessOptions {
            var options = options
            if let stdin = options.stdin { options.stdin = try text(stdin) }
            var sources: [Template] = []
            for pattern in options.sources { sources.append(try text(pattern)) }
            options.sources = sources
            var generates: [Template] = []
            for pattern in options.generates { generates.append(try text(pattern)) }
            options.generates = generates
            options.expectations = try expectations(options.expectations)
            return options
        }
        func expectations(_ list: [StepExpectation]) throws(RunError) -> [StepExpectation] {
            var resolved: [StepExpectation] = []
            for expectation in list {
                resolved.append(try expectation.mapTemplates(text))
            }
            return resolved
        }
        func named(_ list: [NamedTemplate]) throws(RunError) -> [NamedTemplate] {
            var resolved: [NamedTemplate] = []
            for item in list { resolved.append(NamedTemplate(name: try text(item.name), value: try text(item.value))) }
            return resolved
        }

        switch step {
        case .shell(let command, let options):
            return .shell(command: try text(command), process: try process(options))
        case .exec(let arguments, let options):
            var resolved: [Template] = []
            for argument in arguments { resolved.append(try text(argument)) }
            return .exec(arguments: resolved, process: try process(options))
        case .http(var request):
            request.url = try text(request.url)
            request.headers = try named(request.headers)
            switch request.body {
            case .none: break
            case .text(let body): request.body = .text(try text(body))
            case .file(let path): request.body = .file(try text(path))
            case .json(let body): request.body = .json(try text(body))
            case .form(let fields): request.body = .form(try named(fields))
            case .multipart(let parts):
                var resolved: [MultipartPart] = []
                for part in parts {
                    switch part.content {
                    case .text(let value):
                        resolved.append(MultipartPart(name: try text(part.name), content: .text(try text(value))))
                    case .file(let path, let type):
                        var resolvedType: Template?
                        if let type { resolvedType = try text(type) }
                        resolved.append(MultipartPart(name: try text(part.name), content: .file(path: try text(path), type: resolvedType)))
                    }
                }
                request.body = .multipart(resolved)
            }
            request.query = try named(request.query)
            if let auth = request.basicAuth {
                request.basicAuth = BasicAuth(user: try text(auth.user), password: try text(auth.password))
            }
            if let save = request.save { request.save = try text(save) }
            if let path = request.tls.caCertificate { request.tls.caCertificate = try text(path) }
            if let path = request.tls.certificate { request.tls.certificate = try text(path) }
            if let path = request.tls.key { request.tls.key = try text(path) }
            request.expectations = try expectations(request.expectations)
            return .http(request)
        case .file(let operation):
            switch operation {
            case .write(let path, let content): return .file(.write(path: try text(path), content: try text(content)))
            case .append(let path, let content): return .file(.append(path: try text(path), content: try text(content)))
            case .read(let path): return .file(.read(path: try text(path)))
            case .copy(let from, let to): return .file(.copy(from: try text(from), to: try text(to)))
            case .move(let from, let to): return .file(.move(from: try text(from), to: try text(to)))
            case .delete(let path): return .file(.delete(path: try text(path)))
            case .mkdir(let path): return .file(.mkdir(path: try text(path)))
            case .exists(let path): return .file(.exists(path: try text(path)))
            }
        case .sleep, .log, .fail, .rethrow:
            return step
        }
    }
}
