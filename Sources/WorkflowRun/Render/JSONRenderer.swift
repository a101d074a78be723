import JSON
import PromiseEngine
package import WorkflowModel

/// Renders the graph model as JSON, with source locations: for tools, and
/// as a readable dump of what the checker understood. Templates appear as
/// they would be written (`"make {{target}}"`), durations as `1m30s`.
package struct JSONRenderer: Sendable {
    package init() {}

    package func render(_ workflow: Workflow) -> String {
        var members: [(String, JSONValue)] = [
            ("workflow", .string(workflow.name)),
            ("file", .string(workflow.source.path)),
            ("directory", .string(workflow.directory)),
        ]
        if let timeout = workflow.timeout { members.append(("timeout", .string(DurationText.format(timeout)))) }
        members.append(("variables", .array(workflow.variables.map(variable))))
        members.append(("body", block(workflow.body)))
        if !workflow.leftOutOnDemand.isEmpty {
            members.append(("onDemandNotRun", .array(workflow.leftOutOnDemand.map(node))))
        }
        return JSONValue.object(members).rendered() + "\n"
    }

    private func block(_ block: Block) -> JSONValue {
        .array(block.statements.map(statement))
    }

    private func statement(_ statement: Statement) -> JSONValue {
        switch statement {
        case .node(let node): return self.node(node)
        case .catch(let clause):
            return .object(
                [("type", .string("catch")), ("kinds", .array(clause.kinds.map { .string($0.rawValue) }))]
                    + location(clause.location) + [("body", block(clause.body))])
        case .ensure(let body):
            return .object([("type", .string("ensure")), ("body", block(body))])
        case .environment(let setting):
            return .object([("type", .string("env")), ("name", .string(setting.name)), ("value", template(setting.value))])
        case .variable(let declaration):
            return variable(declaration)
        case .dotenv(let file):
            return .object(
                [("type", .string("dotenv")), ("path", .string(file.path)), ("optional", .bool(file.optional))]
                    + location(file.location))
        }
    }

    private func variable(_ declaration: VariableDeclaration) -> JSONValue {
        .object(
            [
                ("type", .string(declaration.isSecret ? "secret" : "var")), ("name", .string(declaration.name)),
                ("value", declaration.isSecret ? .string("***") : template(declaration.value)),
            ] + location(declaration.location))
    }

    private func location(_ location: SourcePosition) -> [(String, JSONValue)] {
        [("line", .integer(location.line)), ("column", .integer(location.column))]
    }

    private func template(_ template: Template) -> JSONValue {
        .string(template.sourceText)
    }

    private func node(_ node: Node) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string({ if case .step = node.kind { return "step" } else { return "group" } }())),
            ("id", .string(node.id)),
            ("label", node.label.map(JSONValue.string) ?? .null),
            ("kind", .string(node.kindName)),
        ]
        members += location(node.location)
        let attributes = node.attributes
        if let timeout = attributes.timeout { members.append(("timeout", .string(DurationText.format(timeout)))) }
        if let retry = attributes.retry {
            var policy: [(String, JSONValue)] = [("count", .integer(retry.count))]
            if let delay = retry.delay { policy.append(("delay", .string(DurationText.format(delay)))) }
            if let backoff = retry.backoff { policy.append(("backoff", .string(DurationText.format(backoff)))) }
            members.append(("retry", .object(policy)))
        }
        if !attributes.needs.isEmpty { members.append(("needs", .array(attributes.needs.map(JSONValue.string)))) }
        if attributes.allowFailure { members.append(("allowFailure", .bool(true))) }
        if attributes.onDemand { members.append(("onDemand", .bool(true))) }
        if let description = attributes.description { members.append(("desc", .string(description))) }
        if !attributes.thresholds.isEmpty { members.append(("thresholds", .array(attributes.thresholds.map { .string($0.text) }))) }
        if let cwd = attributes.cwd { members.append(("cwd", template(cwd))) }
        if !attributes.environment.isEmpty { members.append(("env", named(attributes.environment.map { ($0.name, $0.value) }))) }
        if node.isProcessStep {
            let placement = attributes.placement
            members.append(("executor", .string((placement.executor ?? .local).rawValue)))
            if let partition = placement.partition { members.append(("partition", template(partition))) }
            if let cpus = placement.cpus { members.append(("cpus", .integer(cpus))) }
            if let memory = placement.memory { members.append(("memory", template(memory))) }
            if let more = placement.slurmOptions { members.append(("slurmOptions", template(more))) }
        }
        switch node.kind {
        case .step(let step): members += self.step(step)
        case .group(let group): members += self.group(group)
        }
        return .object(members)
    }

    private func named(_ pairs: [(String, Template)]) -> JSONValue {
        .array(pairs.map { .object([("name", .string($0.0)), ("value", template($0.1))]) })
    }

    private func named(_ pairs: [NamedTemplate]) -> JSONValue {
        .array(pairs.map { .object([("name", template($0.name)), ("value", template($0.value))]) })
    }

    private func step(_ step: Step) -> [(String, JSONValue)] {
        switch step {
        case .shell(let command, let process):
            return [("command", template(command))] + self.process(process)
        case .exec(let arguments, let process):
            return [("arguments", .array(arguments.map(template)))] + self.process(process)
        case .http(let request):
            var members: [(String, JSONValue)] = [("method", .string(request.method.rawValue)), ("url", template(request.url))]
            if !request.query.isEmpty { members.append(("query", named(request.query))) }
            if !request.headers.isEmpty { members.append(("headers", named(request.headers))) }
            if let auth = request.basicAuth {
                members.append(("basicAuth", .object([("user", template(auth.user)), ("password", template(auth.password))])))
            }
            switch request.body {
            case .none: break
            case .text(let body): members.append(("body", template(body)))
            case .file(let path): members.append(("bodyFile", template(path)))
            case .json(let body): members.append(("json", template(body)))
            case .form(let fields): members.append(("form", named(fields)))
            case .multipart(let parts):
                members.append(
                    (
                        "multipart",
                        .array(
                            parts.map { part in
                                switch part.content {
                                case .text(let value):
                                    return .object([("name", template(part.name)), ("value", template(value))])
                                case .file(let path, let type):
                                    var fields: [(String, JSONValue)] = [("name", template(part.name)), ("file", template(path))]
                                    if let type { fields.append(("type", template(type))) }
                                    return .object(fields)
                                }
                            })
                    ))
            }
            if let redirects = request.redirects { members.append(("redirects", .integer(redirects))) }
            if let save = request.save { members.append(("save", template(save))) }
            if request.tls.insecure { members.append(("insecure", .bool(true))) }
            if let path = request.tls.caCertificate { members.append(("cacert", template(path))) }
            if let path = request.tls.certificate { members.append(("cert", template(path))) }
            if let path = request.tls.key { members.append(("key", template(path))) }
            if !request.cookies { members.append(("cookies", .bool(false))) }
            return members + outcomes(request.expectations, request.captures)
        case .file(let operation):
            return [("operation", .string(operation.name)), ("operands", .array(operation.operands.map(template)))]
        case .sleep(let duration):
            return [("duration", .string(DurationText.format(duration)))]
        case .log(let message), .fail(let message):
            return [("message", template(message))]
        case .rethrow:
            return []
        }
    }

    private func process(_ process: ProcessOptions) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] =
            (process.stdin.map { [("stdin", template($0))] } ?? [])
            + (process.detach ? [("detach", .bool(true))] : [])
        if !process.sources.isEmpty { members.append(("sources", .array(process.sources.map(template)))) }
        if !process.generates.isEmpty { members.append(("generates", .array(process.generates.map(template)))) }
        if let depfile = process.depfile { members.append(("depfile", template(depfile))) }
        if !process.environmentInputs.isEmpty { members.append(("envInputs", .array(process.environmentInputs.map(JSONValue.string)))) }
        return members + outcomes(process.expectations, process.captures)
    }

    private func outcomes(_ expectations: [StepExpectation], _ captures: [Capture]) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if !expectations.isEmpty { members.append(("expect", .array(expectations.map { .string(ExpectationText.describe($0)) }))) }
        if !captures.isEmpty { members.append(("capture", .array(captures.map { .string(ExpectationText.describe($0)) }))) }
        return members
    }

    private func group(_ group: Group) -> [(String, JSONValue)] {
        switch group {
        case .sequence(let body):
            return [("body", block(body))]
        case .parallel(let parallel):
            var members: [(String, JSONValue)] = []
            if let limit = parallel.limit { members.append(("limit", .integer(limit))) }
            members.append(("keepGoing", .bool(parallel.keepGoing)))
            if let rate = parallel.rate { members.append(("ratePerSecond", .decimal(rate, places: 6))) }
            return members + lanes(parallel.lanes)
                + [("dependencies", .array(parallel.dependencies.map { .array($0.map(JSONValue.integer)) }))]
        case .race(let lanes), .any(let lanes):
            return self.lanes(lanes)
        case .foreach(let foreach):
            var members: [(String, JSONValue)] = [
                ("variable", .string(foreach.variable)), ("list", list(foreach.list)),
                ("parallel", .bool(foreach.parallel)),
            ]
            // A load shape from templates: each as written.
            let shape = foreach.shape ?? LoadShape()
            if let limit = shape.limit {
                members.append(("limit", .string(limit.sourceText)))
            } else if let limit = foreach.limit {
                members.append(("limit", .integer(limit)))
            }
            if foreach.parallel { members.append(("keepGoing", .bool(foreach.keepGoing))) }
            if let count = shape.count {
                members.append(("repeat", .string(count.sourceText)))
            } else if let duration = shape.duration {
                members.append(("repeatFor", .string(duration.sourceText)))
            } else {
                switch foreach.repetition {
                case .count(let count): members.append(("repeat", .integer(count)))
                case .duration(let duration): members.append(("repeatForSeconds", .decimal(duration.seconds, places: 3)))
                case nil: break
                }
            }
            if let rate = shape.rate {
                members.append(("rate", .string(rate.sourceText)))
            } else if let rate = foreach.rate {
                members.append(("ratePerSecond", .decimal(rate, places: 6)))
            }
            if let ramp = foreach.ramp { members.append(("ramp", .string(ramp.text))) }
            return members + [("body", block(foreach.body))]
        case .conditional(let conditional):
            var members: [(String, JSONValue)] = [
                ("condition", .string(FlowGraph.describe(conditional.condition))),
                ("then", block(conditional.then)),
            ]
            if let otherwise = conditional.otherwise { members.append(("else", block(otherwise))) }
            return members
        }
    }

    private func lanes(_ lanes: Lanes) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if !lanes.environment.isEmpty { members.append(("env", named(lanes.environment.map { ($0.name, $0.value) }))) }
        if !lanes.variables.isEmpty { members.append(("variables", .array(lanes.variables.map(variable)))) }
        return members + [("children", .array(lanes.children.map(node)))]
    }

    private func list(_ source: ListSource) -> JSONValue {
        switch source {
        case .items(let items): return .object([("items", .array(items.map(template)))])
        case .lines(let file): return .object([("lines", template(file))])
        case .split(let value): return .object([("split", template(value))])
        case .glob(let pattern): return .object([("glob", template(pattern))])
        case .range(let low, let high): return .object([("range", .array([template(low), template(high)]))])
        }
    }
}
