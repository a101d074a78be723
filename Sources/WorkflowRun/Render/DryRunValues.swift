import Glibc
import JSON
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// The values known before anything runs, for `--dry-run`: variables (with
/// `--var` overrides) and promise-run's environment. Step values, foreach
/// items and `error.*` are not known and stay as `{{...}}`; secrets show as
/// `***`.
package struct DryRunValues: Sendable {
    /// Known values by variable name; nil: declared, but not known yet.
    private var variables: [String: String?] = [:]
    private var secrets: Set<String> = []
    private let overrides: [String: String]
    private let environment: @Sendable (String) -> String?

    /// - Parameters:
    ///   - overrides: `--var NAME=VALUE` values for top-level variables.
    ///   - environment: looks up an environment variable (default: the process's).
    package init(overrides: [String: String] = [:], environment: @escaping @Sendable (String) -> String? = DryRunValues.processEnvironment) {
        self.overrides = overrides
        self.environment = environment
    }

    @Sendable package static func processEnvironment(_ name: String) -> String? {
        ProcessEnvironment.value(name)
    }

    /// The known value of a variable.
    package func value(of name: String) -> String? {
        variables[name] ?? nil
    }

    /// True when the variable holds a secret (or a value made from one).
    package func isSecret(_ name: String) -> Bool {
        secrets.contains(name)
    }

    /// Records a declaration: its value when every part of it is known.
    mutating func declare(_ variable: VariableDeclaration) {
        // A value made from a secret is as secret as the secret.
        let usesSecret = variable.value.expressions.contains { expression in
            if case .variable(let name) = expression.reference { return secrets.contains(name) }
            return false
        }
        if variable.isSecret || usesSecret { secrets.insert(variable.name) } else { secrets.remove(variable.name) }
        if let override = overrides[variable.name] {
            variables[variable.name] = .some(override)
        } else {
            variables[variable.name] = .some(resolve(variable.value))
        }
    }

    /// A name in scope whose value is not known before running (a foreach item).
    mutating func declareUnknown(_ name: String) {
        variables[name] = .some(nil)
        secrets.remove(name)
    }

    /// The template's text when every expression is known, else nil.
    func resolve(_ template: Template) -> String? {
        var complete = true
        let text = template.rendered { expression in
            let value = self.value(expression, masked: false)
            if value == nil { complete = false }
            return value
        }
        return complete ? text : nil
    }

    /// The template as shown: known values substituted (secrets masked),
    /// unknown expressions kept as `{{...}}`; escaped for a `"..."` string.
    func display(_ template: Template) -> String {
        var text = ""
        for part in template.parts {
            switch part {
            case .literal(let literal): text += literal.escapedForTemplate()
            case .expression(let expression):
                text += value(expression, masked: true).map { $0.escapedForTemplate() } ?? "{{" + expression.sourceText + "}}"
            }
        }
        return text
    }

    private func value(_ expression: TemplateExpression, masked: Bool) -> String? {
        var value: String?
        switch expression.reference {
        case .variable(let name):
            if masked, secrets.contains(name) { return "***" }
            value = self.value(of: name)
        case .environment(let name, let fallback):
            value = environment(name) ?? fallback.flatMap { resolve($0) }
        case .step, .error, .function:
            return nil
        }
        guard let result = value else { return nil }
        guard !expression.filters.isEmpty else { return result }
        return (try? FilterCall.apply(expression.filters, to: .string(result), sha256: SHA256.hex(of:)))?.textValue
    }
}
