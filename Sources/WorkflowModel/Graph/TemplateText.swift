import PromiseEngine

// Templates written back as workflow text, for the renderers and messages.

extension Template {
    /// The template as it would be written between `"` quotes: escapes
    /// where needed, expressions in `{{ }}`.
    @usableFromInline
    package var sourceText: String {
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal.escapedForTemplate()
            case .expression(let expression): text += "{{" + expression.sourceText + "}}"
            }
        }
        return text
    }

    /// The template for people: literal text as it is, expressions as
    /// `{{...}}`. Not valid workflow syntax (nothing is escaped).
    @usableFromInline
    package var displayText: String {
        rendered { _ in nil }
    }

    /// The template with each expression replaced by `resolve`'s answer, or
    /// kept as `{{...}}` when it answers nil. Used by `--dry-run`.
    package func rendered(resolving resolve: (TemplateExpression) -> String?) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal
            case .expression(let expression):
                text += resolve(expression) ?? "{{" + expression.sourceText + "}}"
            }
        }
        return text
    }
}

extension TemplateExpression {
    /// The inside of the braces: `label.field | trim`.
    package var sourceText: String {
        reference.sourceText + FilterCall.sourceText(filters)
    }
}

extension Reference {
    /// The reference as written: `build.stdout`, `env.HOME ?? "/root"`.
    package var sourceText: String {
        switch self {
        case .step(let label, let field): return label + "." + field.name
        case .variable(let name): return name
        case .environment(let name, let fallback):
            guard let fallback else { return "env." + name }
            return "env.\(name) ?? \"\(fallback.sourceText)\""
        case .error(let field): return "error." + field.rawValue
        case .function(let function): return function.rawValue
        }
    }
}

extension String {
    /// Escapes for a `"..."` template: backslash, quote, control characters,
    /// and `{{` (as `\{{`).
    /// On scalars: a CR LF is one `Character`, which neither `"\r"` nor
    /// `"\n"` matches.
    package func escapedForTemplate() -> String {
        var text = ""
        let characters = Array(unicodeScalars)
        for (index, character) in characters.enumerated() {
            switch character {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            case "{":
                // "{{" must not read as an interpolation.
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                text += next == "{" ? "\\{" : "{"
            default: text.unicodeScalars.append(character)
            }
        }
        return text
    }
}
