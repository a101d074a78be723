import Foundation
import Testing
@testable import PromiseRun

/// The option table is the one place an option is described: parsing,
/// `--help`, the completion scripts and the man page's test read it, and
/// no other source of the executable spells an option's name in code.
@Suite("The option table")
struct OptionTableTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PromiseRun")

    @Test("no source of the executable but the table spells an option's name outside comments")
    func namesLiveInTheTable() throws {
        let files = FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" && $0.lastPathComponent != "OptionTable.swift" } ?? []
        #expect(files.count > 20)
        let names = Option.allCases.map(\.spec.long)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                for name in names where code.contains(name) {
                    // A longer name that starts with this one (--var-file, --report-output) is its own.
                    let after = code.components(separatedBy: name).dropFirst().map { $0.first }
                    if after.contains(where: { $0 == nil || !($0!.isLetter || $0! == "-") }) {
                        Issue.record("\(file.lastPathComponent):\(number + 1) spells \(name): \(line)")
                    }
                }
            }
        }
    }

    @Test("every option of a command is offered by each shell's completion and listed in its help")
    func completionsAndHelpFollowTheTable() {
        for shell in [BashCompletion.script, ZshCompletion.script, FishCompletion.script] {
            for option in Option.allCases {
                let spelled = shell.contains(option.spec.long) || shell.contains("-l " + option.spec.long.dropFirst(2))
                #expect(spelled, "\(option.spec.long) is missing from a completion script")
            }
        }
        for command in CommandName.allCases {
            let help = HelpText.options(for: command)
            for option in Option.of(command) { #expect(help.contains(option.usage), "\(command): \(option.usage)") }
        }
        #expect(HelpText.help.contains(HelpText.options(for: .run)))
    }

    @Test("the command word is found after every option that takes a value")
    func valueOptionsSkipTheirValue() throws {
        for option in Option.allCases where option.takesValue && option.spec.commands.contains(.run) {
            let value: String
            switch option.spec.value {
            case .choice(let words): value = words[0]
            case .prefixed(let words): value = words[0] + "=r"
            default: value = option == .timeout ? "5s" : "2"
            }
            let parsed = Arguments.parse([option.spec.long, value, "list", "f.workflow"])
            if case .failure(let error) = parsed {
                #expect(error.message.contains("is an option of running a workflow"), "\(option.spec.long): \(error.message)")
            } else if case .success(let command) = parsed, case .list = command {
            } else {
                Issue.record("\(option.spec.long) \(value) list f.workflow: \(parsed)")
            }
        }
    }
}
