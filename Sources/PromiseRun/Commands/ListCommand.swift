import CommandLineOptions
import JSON
import PromiseEngine
import Reports
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// `promise-run list [--format text|json] FILE`: the labelled steps and
/// groups, indented by nesting, each with its kind and `desc`; what a
/// target may name, `on-demand` ones marked.
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv' and 'Incremental steps'.
enum ListCommand {
    static func run(_ options: ListOptions) -> Int32 {
        guard case .success(let workflow) = CheckCommand.load(options.file, colored: StandardStreams.useColor(options.color)) else {
            return 2
        }
        switch options.format {
        case .text:
            StandardStreams.writeOutput(text(workflow.outline, style: ConsoleStyle(colored: StandardStreams.useColor(options.color, descriptor: 1))))
        case .json: StandardStreams.writeOutput(json(workflow.outline))
        }
        return 0
    }

    static func text(_ items: [OutlineItem], style: ConsoleStyle) -> String {
        var rows: [(name: String, kind: String, description: String)] = []
        func walk(_ items: [OutlineItem], depth: Int) {
            for item in items {
                var description = item.description ?? ""
                if item.insideForeach { description += (description.isEmpty ? "" : " ") + "(once per item: not a target)" }
                if item.onDemand { description += (description.isEmpty ? "" : " ") + "(on demand: runs only when named)" }
                rows.append((String(repeating: "  ", count: depth) + item.label, item.kind, description))
                walk(item.children, depth: depth + 1)
            }
        }
        walk(items, depth: 0)
        guard !rows.isEmpty else { return "no labelled steps or groups: label one (name: sh \"...\") to list it and run it as a target\n" }
        let nameWidth = rows.map(\.name.count).max() ?? 0
        let kindWidth = rows.map(\.kind.count).max() ?? 0
        var text = ""
        for row in rows {
            var line = Format.padded(row.name, nameWidth) + "  " + style.dim(Format.padded(row.kind, kindWidth))
            if !row.description.isEmpty { line += "  " + row.description }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        return text
    }

    static func json(_ items: [OutlineItem]) -> String {
        func value(_ item: OutlineItem) -> JSONValue {
            var members: [(String, JSONValue)] = [
                ("label", .string(item.label)), ("kind", .string(item.kind)),
                ("desc", item.description.map(JSONValue.string) ?? .null),
                ("line", .integer(item.location.line)), ("column", .integer(item.location.column)),
                ("target", .bool(!item.insideForeach)), ("onDemand", .bool(item.onDemand)),
            ]
            members.append(("children", .array(item.children.map(value))))
            return .object(members)
        }
        return JSONValue.array(items.map(value)).rendered() + "\n"
    }
}
