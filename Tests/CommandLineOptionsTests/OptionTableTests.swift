import CommandLineOptions
import Foundation
import Testing

/// The option table is the one place an option is described: parsing,
/// `--help`, the completion scripts and the man page's test read it, and
/// no other source of the executable, or of the libraries it takes the
/// command line and the reports from, spells an option's name in code.
/// (Parsing's side, that the command word is found after every option,
/// is `ArgumentsTests`.)
@Suite("The option table")
struct OptionTableTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The Swift files of a target, the table aside.
    static func files(of target: String) -> [URL] {
        FileManager.default.enumerator(at: sources.appendingPathComponent(target), includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" && $0.lastPathComponent != "OptionTable.swift" } ?? []
    }

    @Test("no source of the executable, the command line's library or the reports but the table spells an option's name outside comments")
    func namesLiveInTheTable() throws {
        let executable = Self.files(of: "PromiseRun")
        let commandLine = Self.files(of: "CommandLineOptions")
        let reports = Self.files(of: "Reports")
        #expect(executable.count > 20)
        #expect(commandLine.count >= 6)
        #expect(reports.count >= 8)
        let files = executable + commandLine + reports
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
}
