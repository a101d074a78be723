import JSON
import PromiseEngine
import RunnerSystem
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
        // With filters, a step's field is read as a value (a JSON list, a
        // number): `count`, `nth` and `jsonpath` need more than its text.
        var document: JSONDocument?
        switch expression.reference {
        case .variable(let name):
            guard let found = values.variable(name) else {
                throw failure("'\(name)' has no value here", expression, stepID)
            }
            value = found.value
            isSecret = found.isSecret
        case .environment(let name, let fallback):
            DependencyJournal.shared.noteEnvironment(name, environment[name])
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
                if expression.filters.isEmpty {
                    value = try result.value(of: field)
                } else {
                    document = try result.document(of: field)
                    value = ""
                }
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
        case .function(.newUuid):
            // A new value each run: no run that reads one is a no-op.
            DependencyJournal.shared.taint("newUuid")
            value = Self.newUUID()
        case .function(.newDate):
            DependencyJournal.shared.taint("newDate")
            value = RFC3339.format(WallClock.now())
        }
        guard !expression.filters.isEmpty else { return value }
        var current = document ?? .string(value)
        for call in expression.filters {
            do {
                current = try call.apply(to: current, sha256: SHA256.hex(of:))
            } catch {
                throw failure("{{\(expression.sourceText)}}: \(error.message)", expression, stepID)
            }
            if isSecret { secrets.add(current.textValue) }
        }
        return current.textValue
    }

    /// A random UUID, version 4 (RFC 9562): 8-4-4-4-12 lower-case hex.
    static func newUUID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
        }
        return String(decoding: text, as: UTF8.self)
    }

    private func failure(_ message: String, _ expression: TemplateExpression, _ stepID: String) -> RunError {
        let location = workflow.location(of: expression.range)
        return RunError(
            stepID: stepID, kind: .reference,
            message: secrets.mask("\(location.file ?? workflow.source.displayPath):\(location.line):\(location.column): \(message)"))
    }
}
