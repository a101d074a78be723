import Foundation

/// A reading of Markdown as GitHub renders it, enough to check a report:
/// headings, tables (every row with the header's number of cells), fenced
/// blocks that close, `<details>` that close. `problems` lists what a
/// renderer would show broken.
struct MarkdownShape {
    var headings: [String] = []
    /// Each table's rows as cells (header first, delimiter row left out).
    var tables: [[[String]]] = []
    /// The text of each fenced block.
    var blocks: [String] = []
    var problems: [String] = []

    init(_ text: String) {
        var fence: String?
        var block: [Substring] = []
        var table: [[String]]?
        var openDetails = 0
        // A renderer breaks lines at LF, CR LF and a lone CR.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for (number, line) in lines.enumerated() {
            if let open = fence {
                if line.hasPrefix(open), line.allSatisfy({ $0 == "`" }) {
                    blocks.append(block.joined(separator: "\n"))
                    block = []
                    fence = nil
                } else {
                    block.append(line)
                }
                continue
            }
            if line.hasPrefix("```") {
                fence = String(line.prefix { $0 == "`" })
                continue
            }
            if line.hasPrefix("|") {
                let cells = Self.cells(line)
                if table == nil {
                    table = [cells]
                } else if table!.count == 1, cells.allSatisfy({ $0.allSatisfy { ":-".contains($0) } && !$0.isEmpty }) {
                    if cells.count != table![0].count { problems.append("line \(number + 1): delimiter row has \(cells.count) cells") }
                } else {
                    if cells.count != table![0].count {
                        problems.append("line \(number + 1): \(cells.count) cells, the header has \(table![0].count)")
                    }
                    table!.append(cells)
                }
                continue
            }
            if let made = table {
                tables.append(made)
                table = nil
            }
            if line.hasPrefix("#") { headings.append(String(line)) }
            openDetails += line.components(separatedBy: "<details>").count - 1
            openDetails -= line.components(separatedBy: "</details>").count - 1
        }
        if let made = table { tables.append(made) }
        if fence != nil { problems.append("a fenced block is never closed") }
        if openDetails != 0 { problems.append("<details> opened and closed do not match") }
    }

    /// The cells of a table row: split at pipes not escaped by a backslash.
    static func cells(_ line: Substring) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in line.dropFirst() {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "|" {
                cells.append(current.trimmed(" "))
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.trimmed(" ").isEmpty { cells.append(current.trimmed(" ")) }
        return cells
    }
}

extension String {
    fileprivate func trimmed(_ set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
