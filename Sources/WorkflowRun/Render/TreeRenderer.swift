import PromiseEngine
package import WorkflowModel

/// Renders a workflow as a tree with box-drawing lines: labels, kinds, the
/// command or URL, and attributes. With a `DryRunValues`, templates show
/// the values known before running (variables, `--var`, environment).
package struct TreeRenderer: Sendable {
    package var values: DryRunValues?

    package init(values: DryRunValues? = nil) {
        self.values = values
    }

    package func render(_ workflow: Workflow) -> String {
        var scope = values
        var root = TreeItem("workflow \(quoted(.literal(workflow.name), scope))" + brackets(timeout: workflow.timeout))
        for variable in workflow.variables {
            root.children.append(declaration(variable, &scope))
        }
        root.children += items(workflow.body, &scope)
        var output = ""
        root.write(to: &output)
        // What is `on-demand` and not run by this run: one line each.
        if !workflow.leftOutOnDemand.isEmpty {
            var apart = TreeItem("on demand, not run (name one to run it: promise-run \(workflow.path) LABEL)")
            apart.children = workflow.leftOutOnDemand.map { node in
                var shown = node
                shown.attributes.onDemand = false
                return TreeItem(item(shown, nil).text)
            }
            output += "\n"
            apart.write(to: &output)
        }
        return output
    }

    // MARK: - Items

    private func items(_ block: Block, _ scope: inout DryRunValues?) -> [TreeItem] {
        var inner = scope
        var result: [TreeItem] = []
        for statement in block.statements {
            switch statement {
            case .node(let node): result.append(item(node, inner))
            case .catch(let clause):
                var item = TreeItem("catch" + clause.kinds.map { " " + $0.rawValue }.joined())
                item.children = items(clause.body, &inner)
                result.append(item)
            case .ensure(let body):
                var item = TreeItem("ensure")
                item.children = items(body, &inner)
                result.append(item)
            case .environment(let setting):
                result.append(TreeItem("env \(setting.name) = \(quoted(setting.value, inner))"))
            case .dotenv(let file):
                result.append(TreeItem("dotenv \(quotedName(file.path))" + (file.optional ? " optional" : "")))
            case .variable(let variable):
                result.append(declaration(variable, &inner))
            }
        }
        return result
    }

    private func declaration(_ variable: VariableDeclaration, _ scope: inout DryRunValues?) -> TreeItem {
        let keyword = variable.isSecret ? "secret" : "var"
        if scope != nil {
            scope!.declare(variable)
            let shown =
                scope!.isSecret(variable.name)
                ? "***" : (scope!.value(of: variable.name).map { "\"" + $0.escapedForTemplate() + "\"" } ?? quoted(variable.value, scope))
            return TreeItem("\(keyword) \(variable.name) = \(shown)")
        }
        // A secret's value is never printed, even as written in the file.
        return TreeItem("\(keyword) \(variable.name) = \(variable.isSecret ? "***" : quoted(variable.value, nil))")
    }

    private func item(_ node: Node, _ scope: DryRunValues?) -> TreeItem {
        var scope = scope
        let prefix = node.label.map { $0 + ": " } ?? ""
        var options: [String] = []
        var children: [TreeItem] = []
        let attributes = node.attributes
        var head: String
        switch node.kind {
        case .step(let step):
            head = stepHead(step, scope)
            children = stepDetails(step, scope, options: &options)
        case .group(let group):
            head = group.kindName
            switch group {
            case .sequence(let block):
                children = items(block, &scope)
            case .parallel(let parallel):
                if let limit = parallel.limit { options.append("limit \(limit)") }
                if let rate = parallel.rateText { options.append("rate \(rate)") }
                if parallel.keepGoing { options.append("keep-going") }
                children = lanes(parallel.lanes, &scope)
            case .race(let lanes), .any(let lanes):
                children = self.lanes(lanes, &scope)
            case .foreach(let foreach):
                // A load shape from templates: as `--dry-run` knows it.
                let show: (Template) -> String = { template in scope.map { $0.display(template) } ?? template.sourceText }
                head = foreach.repetitionText(show) ?? "foreach \(foreach.variable) in \(list(foreach.list, scope))"
                if foreach.parallel { options.append("parallel") }
                if let limit = foreach.limitText(show) { options.append("limit \(limit)") }
                if let rate = foreach.writtenRate(show) { options.append("rate \(rate)") }
                if foreach.keepGoing { options.append("keep-going") }
                // `repeat for D ... rate R`: exactly the iterations due before D.
                if foreach.shape == nil, case .duration(let duration) = foreach.repetition, let rate = foreach.rate {
                    options.append("\(foreach.ramp?.iterations(within: duration) ?? Iterations.due(within: duration, rate: rate)) iterations")
                }
                scope?.declareUnknown(foreach.variable)
                children = items(foreach.body, &scope)
            case .conditional(let conditional):
                head = "if \(condition(conditional.condition, scope))"
                var then = TreeItem("then")
                then.children = items(conditional.then, &scope)
                children = [then]
                if let otherwise = conditional.otherwise {
                    var item = TreeItem("else")
                    item.children = items(otherwise, &scope)
                    children.append(item)
                }
            }
        }
        if let timeout = attributes.timeout { options.insert("timeout \(DurationText.format(timeout))", at: 0) }
        if let retry = attributes.retry {
            var text = "retry \(retry.count)"
            if let delay = retry.delay { text += " delay \(DurationText.format(delay))" }
            if let backoff = retry.backoff { text += " backoff \(DurationText.format(backoff))" }
            options.append(text)
        }
        if !attributes.needs.isEmpty { options.append("needs " + attributes.needs.joined(separator: " ")) }
        if attributes.allowFailure { options.append("allow-failure") }
        if attributes.onDemand { options.append("on-demand") }
        if node.isProcessStep {
            // Where it runs: a Slurm step says so with what it asks for.
            let placement = attributes.placement
            if placement.executor == .slurm {
                var text = "on slurm"
                if let partition = placement.partition { text += " partition \(quoted(partition, scope))" }
                if let cpus = placement.cpus { text += " cpus \(cpus)" }
                if let memory = placement.memory { text += " memory \(quoted(memory, scope))" }
                if let more = placement.slurmOptions { text += " slurm-options \(quoted(more, scope))" }
                options.append(text)
            } else if let cpus = placement.cpus {
                options.append("cpus \(cpus)")
            }
        }
        var details: [TreeItem] = []
        if let description = attributes.description { details.append(TreeItem("desc \(quotedName(description))")) }
        if let cwd = attributes.cwd { details.append(TreeItem("cwd \(quoted(cwd, scope))")) }
        for threshold in attributes.thresholds { details.append(TreeItem("expect \(threshold.text)")) }
        for setting in attributes.environment {
            details.append(TreeItem("env \(setting.name) = \(quoted(setting.value, scope))"))
        }
        var item = TreeItem(prefix + head + (options.isEmpty ? "" : "  [" + options.joined(separator: ", ") + "]"))
        item.children = details + children
        return item
    }

    private func lanes(_ lanes: Lanes, _ scope: inout DryRunValues?) -> [TreeItem] {
        var result: [TreeItem] = []
        for setting in lanes.environment {
            result.append(TreeItem("env \(setting.name) = \(quoted(setting.value, scope))"))
        }
        for variable in lanes.variables {
            result.append(declaration(variable, &scope))
        }
        return result + lanes.children.map { item($0, scope) }
    }

    private func stepHead(_ step: Step, _ scope: DryRunValues?) -> String {
        switch step {
        case .shell(let command, _): return "sh " + quoted(command, scope)
        case .exec(let arguments, _): return "exec " + arguments.map { quoted($0, scope) }.joined(separator: " ")
        case .http(let request): return "http \(request.method.rawValue) \(quoted(request.url, scope))"
        case .file(let operation): return "file \(operation.name) " + operation.operands.map { quoted($0, scope) }.joined(separator: " ")
        case .sleep(let duration): return "sleep " + DurationText.format(duration)
        case .log(let message): return "log " + quoted(message, scope)
        case .fail(let message): return "fail " + quoted(message, scope)
        case .rethrow: return "rethrow"
        }
    }

    private func stepDetails(_ step: Step, _ scope: DryRunValues?, options: inout [String]) -> [TreeItem] {
        var details: [TreeItem] = []
        var expectations: [StepExpectation] = []
        var captures: [Capture] = []
        switch step {
        case .shell(_, let process), .exec(_, let process):
            if let stdin = process.stdin { details.append(TreeItem("stdin \(quoted(stdin, scope))")) }
            if !process.sources.isEmpty { details.append(TreeItem("sources " + process.sources.map { quoted($0, scope) }.joined(separator: " "))) }
            if !process.generates.isEmpty {
                details.append(TreeItem("generates " + process.generates.map { quoted($0, scope) }.joined(separator: " ")))
            }
            if let depfile = process.depfile { details.append(TreeItem("depfile " + quoted(depfile, scope))) }
            if !process.environmentInputs.isEmpty { details.append(TreeItem("env-inputs " + process.environmentInputs.joined(separator: " "))) }
            if process.detach { options.append("detach") }
            expectations = process.expectations
            captures = process.captures
        case .http(let request):
            if let redirects = request.redirects { options.append("redirects \(redirects)") }
            for item in request.query {
                details.append(TreeItem("query \(quotedName(item.name, scope)) \(quoted(item.value, scope))"))
            }
            for header in request.headers {
                details.append(TreeItem("header \(quotedName(header.name, scope)) \(quoted(header.value, scope))"))
            }
            if let auth = request.basicAuth {
                details.append(TreeItem("basic-auth \(quoted(auth.user, scope)) \(quoted(auth.password, scope))"))
            }
            switch request.body {
            case .none: break
            case .text(let body): details.append(TreeItem("body \(quoted(body, scope))"))
            case .file(let path): details.append(TreeItem("body file \(quoted(path, scope))"))
            case .json(let body): details.append(TreeItem("json \(quoted(body, scope))"))
            case .form(let fields):
                for field in fields { details.append(TreeItem("form \(quotedName(field.name, scope)) \(quoted(field.value, scope))")) }
            case .multipart(let parts):
                for part in parts {
                    switch part.content {
                    case .text(let value):
                        details.append(TreeItem("multipart \(quotedName(part.name, scope)) \(quoted(value, scope))"))
                    case .file(let path, let type):
                        let typeText = type.map { " type \(quoted($0, scope))" } ?? ""
                        details.append(TreeItem("multipart \(quotedName(part.name, scope)) file \(quoted(path, scope))\(typeText)"))
                    }
                }
            }
            if let save = request.save { details.append(TreeItem("save \(quoted(save, scope))")) }
            if request.tls.insecure { options.append("insecure") }
            if let path = request.tls.caCertificate { details.append(TreeItem("cacert \(quoted(path, scope))")) }
            if let path = request.tls.certificate { details.append(TreeItem("cert \(quoted(path, scope))")) }
            if let path = request.tls.key { details.append(TreeItem("key \(quoted(path, scope))")) }
            if !request.cookies { options.append("cookies off") }
            expectations = request.expectations
            captures = request.captures
        default:
            break
        }
        details += expectations.map { TreeItem("expect " + ExpectationText.describe($0)) }
        details += captures.map { TreeItem("capture " + ExpectationText.describe($0)) }
        return details
    }

    private func list(_ source: ListSource, _ scope: DryRunValues?) -> String {
        switch source {
        case .items(let items): return "[" + items.map { quoted($0, scope) }.joined(separator: ", ") + "]"
        case .lines(let file): return "lines(\(quoted(file, scope)))"
        case .split(let value): return "split(\(quoted(value, scope)))"
        case .glob(let pattern): return "glob(\(quoted(pattern, scope)))"
        case .range(let low, let high): return "range(\(bound(low, scope)), \(bound(high, scope)))"
        }
    }

    private func bound(_ template: Template, _ scope: DryRunValues?) -> String {
        if let literal = template.literalValue, Int(literal) != nil { return literal }
        return quoted(template, scope)
    }

    private func condition(_ condition: Condition, _ scope: DryRunValues?) -> String {
        switch condition {
        case .equal(let left, let right): return "\(quoted(left, scope)) == \(quoted(right, scope))"
        case .notEqual(let left, let right): return "\(quoted(left, scope)) != \(quoted(right, scope))"
        case .exists(let path): return "exists \(quoted(path, scope))"
        case .not(let inner): return "not " + self.condition(inner, scope)
        }
    }

    private func quoted(_ template: Template, _ scope: DryRunValues?) -> String {
        guard let scope else { return "\"" + template.sourceText + "\"" }
        return "\"" + scope.display(template) + "\""
    }

    private func quotedName(_ name: String) -> String {
        "\"" + name.escapedForTemplate() + "\""
    }

    /// A header, query or form name: as written when literal, else with
    /// the values known (dry run).
    private func quotedName(_ name: Template, _ scope: DryRunValues?) -> String {
        if let literal = name.literalValue { return quotedName(literal) }
        return quoted(name, scope)
    }

    private func brackets(timeout: Duration?) -> String {
        timeout.map { "  [timeout \(DurationText.format($0))]" } ?? ""
    }
}

/// A line of the tree and the lines below it.
struct TreeItem {
    var text: String
    var children: [TreeItem] = []

    init(_ text: String) {
        self.text = text
    }

    /// Writes the item and its children with `├─ │ └─` prefixes.
    func write(to output: inout String, prefix: String = "", childPrefix: String = "") {
        output += prefix + text + "\n"
        for (index, child) in children.enumerated() {
            let last = index == children.count - 1
            child.write(to: &output, prefix: childPrefix + (last ? "└─ " : "├─ "), childPrefix: childPrefix + (last ? "   " : "│  "))
        }
    }
}
