public import JSON
import PromiseEngine

/// A string of the workflow with `{{ ... }}` interpolations: literal text
/// and expressions, in order. Values are substituted when the step runs.
package struct Template: Sendable, Hashable {
    /// Most templates are plain text: they are kept without an array.
    private enum Storage: Sendable, Hashable {
        case literal(String)
        case parts([TemplatePart])
    }

    private var storage: Storage

    package init(parts: [TemplatePart]) {
        if parts.isEmpty {
            storage = .literal("")
        } else if parts.count == 1, case .literal(let text) = parts[0] {
            storage = .literal(text)
        } else {
            storage = .parts(parts)
        }
    }

    /// A template without interpolation.
    package static func literal(_ text: String) -> Template {
        Template(parts: [.literal(text)])
    }

    /// The literal text and the expressions, in order (no empty literal).
    package var parts: [TemplatePart] {
        get {
            switch storage {
            case .literal(let text): return text.isEmpty ? [] : [.literal(text)]
            case .parts(let parts): return parts
            }
        }
        set { self = Template(parts: newValue) }
    }

    /// The text, when the template has no expression.
    package var literalValue: String? {
        switch storage {
        case .literal(let text): return text
        case .parts(let parts):
            var text = ""
            for part in parts {
                guard case .literal(let piece) = part else { return nil }
                text += piece
            }
            return text
        }
    }

    package static func == (lhs: Template, rhs: Template) -> Bool {
        lhs.parts == rhs.parts
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(parts)
    }

    /// Every expression of the template, defaults of `env.X ?? "..."` included.
    package var expressions: [TemplateExpression] {
        var found: [TemplateExpression] = []
        for part in parts {
            guard case .expression(let expression) = part else { continue }
            found.append(expression)
            if case .environment(_, let fallback?) = expression.reference {
                found += fallback.expressions
            }
        }
        return found
    }
}

/// A piece of a template.
package enum TemplatePart: Sendable, Hashable {
    case literal(String)
    case expression(TemplateExpression)
}

/// `{{ reference | filter | ... }}`: a value and the filters applied to it,
/// left to right. `range` is where it is in the file (the inside of the
/// braces), for errors found at run time.
package struct TemplateExpression: Sendable, Hashable {
    package var reference: Reference
    package var filters: [FilterCall]
    package var range: SourceRange

    package init(reference: Reference, filters: [FilterCall] = [], range: SourceRange) {
        self.reference = reference
        self.filters = filters
        self.range = range
    }
}

/// What an expression names.
package enum Reference: Sendable, Hashable {
    /// `{{label.field}}`: a value of a step that has finished.
    case step(label: String, field: StepField)
    /// `{{name}}`: a `var`, a `secret` or a `foreach` item in scope.
    case variable(String)
    /// `{{env.NAME}}` or `{{env.NAME ?? "default"}}`: promise-run's environment.
    case environment(String, default: Template?)
    /// `{{error.message}}` and its siblings, inside a `catch`.
    case error(ErrorField)
    /// `{{newUuid}}`, `{{newDate}}`: a value made at each use.
    case function(TemplateFunction)
}

/// The values a template makes itself.
/// See docs/steps.md, 'For Hurl users'.
package enum TemplateFunction: String, Sendable, Hashable, CaseIterable {
    /// A random UUID (version 4), fresh at each use.
    case newUuid
    /// The time now, RFC 3339 in UTC with microseconds:
    /// `2026-01-31T12:00:00.123456Z`.
    case newDate
}

/// A value field of a step; which fields a step has depends on
/// its kind, and the checker has made sure the field exists.
/// See docs/language.md, 'Steps'.
package enum StepField: Sendable, Hashable {
    case stdout, stderr, exit, duration
    case status, body
    /// `header.NAME`: a response header, looked up case-insensitively.
    case header(String)
    /// `json.PATH`: a value in the response body parsed as JSON.
    case json(JSONPath)
    /// `path` of a file step, `content` of `file read`.
    case path, content
    /// A `capture NAME = ...` of the step.
    case capture(String)
    /// An http step's final URL, the redirects it followed, its HTTP
    /// version.
    case url, redirects, version
    /// `cookie.NAME`: a cookie in the run's store after the step.
    case cookie(String)
    /// `timing.PHASE`: when a phase of the request ended, in seconds.
    case timing(HTTPTimingPhase)

    /// The field as written after `label.`.
    package var name: String {
        switch self {
        case .stdout: return "stdout"
        case .stderr: return "stderr"
        case .exit: return "exit"
        case .duration: return "duration"
        case .status: return "status"
        case .body: return "body"
        case .header(let name): return "header.\(name)"
        case .json(let path): return path.components.isEmpty ? "json" : "json" + path.description
        case .path: return "path"
        case .content: return "content"
        case .capture(let name): return name
        case .url: return "url"
        case .redirects: return "redirects"
        case .version: return "version"
        case .cookie(let name): return "cookie.\(name)"
        case .timing(let phase): return "timing.\(phase.rawValue)"
        }
    }
}

/// The fields of the error a `catch` handles.
package enum ErrorField: String, Sendable, Hashable, CaseIterable {
    /// What went wrong, in words.
    case message
    /// The id of the step that failed.
    case step
    /// The failure kind: exit, timeout, http, ...
    case kind
    /// The exit code, for kind `exit`; empty otherwise.
    case exit
}

/// A filter applied to a value: `{{x | trim}}`, `{{r.body | jsonpath "$.id"
/// | toInt}}`, `capture n = json "$.items[*]" | count`.
/// See docs/language.md, 'Interpolation'; docs/steps.md, 'For Hurl users'.
@usableFromInline
package enum Filter: String, Sendable, Hashable, CaseIterable {
    /// Removes leading and trailing white space.
    case trim
    /// Quotes for a POSIX shell.
    case shell
    /// A JSON string literal.
    case json
    /// Percent-encoded for a URL.
    case url
    /// A path's last name: `src/a.c` → `a.c`.
    case base
    /// The last name without its extension: `src/a.c` → `a`.
    case stem
    /// The last name's extension, with its dot: `src/a.c` → `.c` (none: empty).
    case ext
    /// The folder part: `src/a.c` → `src` (none: `.`).
    case dir
    /// How many items a list has (members, for an object).
    case count
    /// A list's first item.
    case first
    /// A list's last item.
    case last
    /// `nth N`: a list's item N, counting from 0 (negative: from the end).
    case nth
    /// `split "SEP"`: the text cut at each separator, a list.
    case split
    /// `replace "A" "B"`: every A in the text replaced by B.
    case replace
    /// The text in lower case.
    case lower
    /// The text in upper case.
    case upper
    /// A number from a text that holds an integer (a decimal is cut to
    /// its whole part).
    case toInt
    /// A number from a text that holds one.
    case toFloat
    /// The text's UTF-8 in base64.
    case base64Encode
    /// The text base64 holds (UTF-8).
    case base64Decode
    /// Percent-encoded: all but `A-Z a-z 0-9 - . _ ~`.
    case urlEncode
    /// `%XX` escapes decoded.
    case urlDecode
    /// The text's SHA-256, lower-case hex.
    case sha256
    /// `jsonpath "PATH"`: the value at a JSON path of a text holding JSON
    /// (or of a list or object).
    case jsonpath
}

/// What a filter takes after its name.
package enum FilterParameter: Sendable, Hashable {
    /// A whole number: `nth 2`.
    case integer
    /// A string: `split ","`.
    case text
    /// A string holding a JSON path: `jsonpath "$.id"`.
    case jsonPath
}

/// A filter's argument, as written.
@usableFromInline
package enum FilterArgument: Sendable, Hashable {
    case integer(Int)
    case text(String)
    case path(JSONPath)
}

/// A filter with its arguments: `nth 0`, `replace "a" "b"`.
@usableFromInline
package struct FilterCall: Sendable, Hashable {
    @usableFromInline
    package var filter: Filter
    @usableFromInline
    package var arguments: [FilterArgument]

    @inlinable
    package init(_ filter: Filter, _ arguments: [FilterArgument] = []) {
        self.filter = filter
        self.arguments = arguments
    }
}

/// What a value is known to be before a run (a filter applied
/// to the wrong kind of value is a `check` error where the kind is known).
/// See docs/steps.md, 'For Hurl users'.
package enum FilterValueKind: String, Sendable, Hashable {
    /// A text: a body, a stream, a header, a variable.
    case text
    /// A number: a status, an exit code, a count.
    case number
    /// A list: what `split` gives.
    case list
    /// Not known before the run (a JSON value, a capture).
    case any
}
