import Foundation
import Testing

/// The sources and tests cite the repository's own documents: the language
/// specification's section numbers and its command's specification are
/// not in the repository, so a comment that cites them sends its reader
/// nowhere. A citation of docs/ (`docs/language.md, 'Load'`) names a file
/// and a heading that are there.
@Suite("The sources cite the repository's own documents")
struct CitationsTests {
    /// A section of the language specification, also across a comment's
    /// line break (`spec` at the end of one line, the section at the start
    /// of the next), in any case; or the command's specification's file.
    static func foreign() throws -> Regex<AnyRegexOutput> {
        try Regex(#"(?i)\bspec[\s/#*-]*§|\bcli\.md"#)
    }

    /// `docs/FILE.md, 'Heading'`, and `and 'Another'` after it.
    static func docsCitation() throws -> Regex<AnyRegexOutput> {
        try Regex(#"(docs/[a-z]+\.md), '([^']+)'(?: and '([^']+)')?"#)
    }

    /// Every text file under Sources/ and Tests/, with its path from the
    /// package's root.
    static func texts() throws -> [(path: String, text: String)] {
        var found: [(path: String, text: String)] = []
        for folder in ["Sources", "Tests"] {
            let root = Binary.packageRoot.appendingPathComponent(folder)
            let walker = try #require(FileManager.default.enumerator(atPath: root.path))
            for case let path as String in walker {
                // Folders and binary fixtures are not UTF-8 text.
                guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { continue }
                found.append((folder + "/" + path, text))
            }
        }
        return found
    }

    /// The line `index` is on, from 1.
    static func line(of index: String.Index, in text: String) -> Int {
        text[..<index].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }

    @Test("the pattern finds the citations it is for, and not RFC sections")
    func patternFindsWhatItIsFor() async throws {
        let foreign = try Self.foreign()
        // Spelled with escapes, so that this file is not a citation itself.
        for cited in [
            "// (spec \u{A7}16)", "/// Spec \u{A7}22: quick fixes", "/// a rate (spec\n/// \u{A7}20)", "-- (spec\n-- \u{A7}22)",
            "(cli\u{2E}md \"Reports\")",
        ] {
            #expect(cited.contains(foreign), "\(cited)")
        }
        for clean in ["/// (RFC 6265 \u{A7}5.2)", "(CommonMark \u{A7}2.4)", "(docs/command.md, 'Options')", "a specification"] {
            #expect(!clean.contains(foreign), "\(clean)")
        }
    }

    @Test("no file under Sources/ or Tests/ cites the language specification by section or the command's by file")
    func noForeignCitations() async throws {
        let foreign = try Self.foreign()
        let texts = try Self.texts()
        #expect(texts.contains { $0.path == "Sources/RunnerSystem/EventLoop/EventLoop.swift" })
        var found: [String] = []
        for (path, text) in texts {
            for match in text.matches(of: foreign) {
                found.append("\(path):\(Self.line(of: match.range.lowerBound, in: text)): \(text[match.range])")
            }
        }
        #expect(found.isEmpty, "cite docs/ instead (docs/language.md, 'Load'), or nothing:\n\(found.joined(separator: "\n"))")
    }

    @Test("every docs/ citation under Sources/ and Tests/ names a file and a heading of it")
    func docsCitationsExist() async throws {
        let citation = try Self.docsCitation()
        var headings: [String: [String]] = [:]
        var checked = 0
        var missing: [String] = []
        for (path, text) in try Self.texts() {
            for match in text.matches(of: citation) {
                let file = String(match.output[1].substring ?? "")
                if headings[file] == nil {
                    let document = (try? String(contentsOf: Binary.packageRoot.appendingPathComponent(file), encoding: .utf8)) ?? ""
                    headings[file] = document.split(separator: "\n").filter { $0.hasPrefix("#") }
                        .map { String($0.drop { $0 == "#" }.drop { $0 == " " }) }
                }
                for index in 2...3 {
                    guard let heading = match.output[index].substring else { continue }
                    checked += 1
                    if !(headings[file] ?? []).contains(where: { $0.hasPrefix(heading) }) {
                        missing.append("\(path):\(Self.line(of: match.range.lowerBound, in: text)): \(file), '\(heading)'")
                    }
                }
            }
        }
        #expect(checked > 50)
        #expect(missing.isEmpty, "no such heading:\n\(missing.joined(separator: "\n"))")
    }
}
