import PromiseEngine
import WorkflowModel

/// Turns templates into text at run time: `{{label.field}}`, `{{var}}`,
/// `{{env.NAME ?? "default"}}`, `{{error.message}}`, then the filters.
/// A value that cannot be found is a failure of kind `reference` that
/// points at the expression in the workflow file.
struct Interpolator: Sendable {
    let workflow: Workflow
    let environment: [String: String]
    let secrets: Secrets

    /// The text of `template` in `values`.
    func render(_ template: Template, in values: ValueScope, stepID: String) throws(RunError) -> String {
        if let literal = template.literalValue { return literal }
        var text = ""
        for part in template.parts {
            switch part {
            case .literal(let literal): text += literal
            case .expression(let expression): text += try value(of: expression, in: values, stepID: stepID)
            }
        }
        return text
    }

    func value(of expression: TemplateExpression, in values: ValueScope, stepID: String) throws(RunError) -> String {
        var isSecret = false
        var value: String
        switch expression.reference {
        case .variable(let name):
            guard let found = values.variable(name) else {
                throw failure("'\(name)' has no value here", expression, stepID)
            }
            value = found.value
            isSecret = found.isSecret
        case .environment(let name, let fallback):
            if let found = environment[name] {
                value = found
            } else if let fallback {
                value = try render(fallback, in: values, stepID: stepID)
            } else {
                throw failure("environment variable '\(name)' is not set; write {{env.\(name) ?? \"default\"}} to give a default", expression, stepID)
            }
        case .step(let label, let field):
            guard let result = values.result(label) else {
                throw failure("step '\(label)' has no result here (it did not succeed)", expression, stepID)
            }
            do {
                value = try result.value(of: field)
            } catch {
                throw failure("\(label).\(field.name): \(error.message)", expression, stepID)
            }
        case .error(let field):
            let caught = values.caughtError
            switch field {
            case .message: value = caught?.message ?? ""
            case .step: value = caught?.stepID ?? ""
            case .kind: value = caught?.kind.rawValue ?? ""
            case .exit: value = caught?.exitCode.map(String.init) ?? ""
            }
        }
        for filter in expression.filters {
            value = filter.apply(to: value)
            if isSecret { secrets.add(value) }
        }
        return value
    }

    private func failure(_ message: String, _ expression: TemplateExpression, _ stepID: String) -> RunError {
        let location = workflow.location(of: expression.range)
        return RunError(stepID: stepID, kind: .reference,
                        message: secrets.mask("\(location.file ?? workflow.source.displayPath):\(location.line):\(location.column): \(message)"))
    }
}
