import JSON
import PromiseEngine
import WorkflowModel

/// The filters, on text and on values, as written, in `{{ }}` (the template
/// parser reads bytes) and after a capture's or an expectation's subject
/// (the parser reads tokens): one place checks a filter's name (with a
/// did-you-mean), its arguments, and the kinds of value along a chain.
enum FilterSyntax {
    /// An argument as read, with where it is.
    enum Written {
        case number(String, SourceRange)
        case string(String, SourceRange)

        var range: SourceRange {
            switch self {
            case .number(_, let range), .string(_, let range): return range
            }
        }
    }

    /// A problem and where it is.
    struct Problem: Error {
        var message: String
        var range: SourceRange
        var notes: [Diagnostic.Note] = []
    }

    static let names = Filter.allCases.map(\.rawValue)

    /// The filter a name gives, or the error naming the filters.
    static func filter(named name: String, at range: SourceRange) throws(Problem) -> Filter {
        if let filter = Filter(rawValue: name) { return filter }
        throw Problem(
            message: "unknown filter '\(name)'\(Suggestion.phrase(for: name, among: names))",
            range: range, notes: [.init("the filters are \(names.joined(separator: ", "))")])
    }

    /// A filter with its arguments checked: their number and kinds, a
    /// separator that is not empty, a JSON path that parses.
    static func call(_ filter: Filter, at range: SourceRange, arguments: [Written]) throws(Problem) -> FilterCall {
        let parameters = filter.parameters
        if arguments.count > parameters.count {
            let extra = arguments[parameters.count]
            let takes = parameters.isEmpty ? "takes no argument" : "takes \(parameters.count == 1 ? "one argument" : "\(parameters.count) arguments")"
            throw Problem(message: "'\(filter.rawValue)' \(takes) (\(filter.usage))", range: extra.range)
        }
        if arguments.count < parameters.count {
            throw Problem(
                message: "'\(filter.rawValue)' needs \(parameters.count == 1 ? "an argument" : "\(parameters.count) arguments"): \(filter.usage)",
                range: arguments.last?.range ?? range)
        }
        var values: [FilterArgument] = []
        for (parameter, argument) in zip(parameters, arguments) {
            switch (parameter, argument) {
            case (.integer, .number(let text, let where_)):
                guard let value = Int(text) else {
                    throw Problem(message: "'\(filter.rawValue)' takes a whole number, not '\(text)' (\(filter.usage))", range: where_)
                }
                values.append(.integer(value))
            case (.integer, .string(let text, let where_)):
                throw Problem(
                    message: "'\(filter.rawValue)' takes a number, not the string \"\(text)\" (\(filter.usage))", range: where_,
                    notes: [.init("write the number without quotes: \(filter.rawValue) \(Int(text) ?? 0)")])
            case (.text, .number(let text, let where_)), (.jsonPath, .number(let text, let where_)):
                throw Problem(
                    message: "'\(filter.rawValue)' takes a string, not the number \(text) (\(filter.usage))", range: where_,
                    notes: [.init("quote it: \(filter.rawValue) \"\(text)\"")])
            case (.text, .string(let text, let where_)):
                if text.isEmpty, values.isEmpty {
                    let what = filter == .split ? "separator" : "text to replace"
                    throw Problem(message: "the \(what) of '\(filter.rawValue)' is empty (\(filter.usage))", range: where_)
                }
                values.append(.text(text))
            case (.jsonPath, .string(let text, let where_)):
                let bytes = Array(text.utf8)
                do throws(JSONPath.ParseError) {
                    let (path, end) = try JSONPath.parse(bytes, from: 0, to: bytes.count)
                    guard end == bytes.count else {
                        throw JSONPath.ParseError(
                            message: "unexpected '\(String(decoding: bytes[end...end], as: UTF8.self))' in JSON path", offset: end)
                    }
                    values.append(.path(path))
                } catch {
                    throw Problem(
                        message: "invalid JSON path in 'jsonpath': \(error.message)", range: where_,
                        notes: [.init("JSON paths look like '$.items[0].id', '$..id', '.key'")])
                }
            }
        }
        return FilterCall(filter, values)
    }

    /// Checks that each filter of a chain applies to what comes to it,
    /// where that is known: `subject` (`'build.status'`, `the body`) gives
    /// `start`. Reports the first that does not.
    static func checkKinds(_ calls: [(call: FilterCall, range: SourceRange)], from start: FilterValueKind, subject: String) throws(Problem) {
        var kind = start
        var previous: FilterCall?
        for (call, range) in calls {
            if !call.filter.accepts(kind) {
                let what = previous.map { "'\($0.filter.rawValue)' gives \(kind.words)" } ?? "\(subject) is \(kind.words)"
                var notes: [Diagnostic.Note] = []
                if kind == .list, call.filter.accepts(.any) {
                    notes.append(.init("take an item first: | first, | last or | nth N"))
                } else if kind != .list, [.count, .first, .last, .nth].contains(call.filter) {
                    notes.append(.init("'split \"SEP\"' makes a list of a text"))
                }
                throw Problem(message: "'\(call.filter.rawValue)' applies to \(call.filter.inputWords), and \(what)", range: range, notes: notes)
            }
            kind = call.filter.readsAnyText ? .text : call.filter.output
            previous = call
        }
    }

    /// What a step's field is before filters.
    static func kind(of field: StepField) -> FilterValueKind {
        switch field {
        case .status, .exit, .redirects, .duration: return .number
        case .json, .capture: return .any
        default: return .text
        }
    }
}
