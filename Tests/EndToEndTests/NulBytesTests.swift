import Foundation
import Testing

/// A NUL byte that an interpolated value brings into what a step hands to
/// the system (a path, an argument, an environment value, a folder) would
/// cut it short there: the step fails instead, saying so, and nothing is
/// done with the shortened text.
@Suite("End to end: a NUL byte in an interpolated value")
struct NulBytesTests {
    @Test("a NUL from an interpolated value fails the step clearly instead of cutting a path, an argument or an env value short")
    func refused() async throws {
        let space = try Workspace()
        defer { space.remove() }
        let base = try await TestServers.plain()
        let run = try await space.run(
            """
            workflow "nul"
            nul: sh "printf 'safe\\\\000evil'"
            argument: exec "printf" "%s" "{{nul.stdout}}" { allow-failure }
            path: file write "out-{{nul.stdout}}.txt" "x" { allow-failure }
            environment: sh "printf '%s' \\"$V\\"" { env V = "{{nul.stdout}}"; allow-failure }
            folder: sh "pwd" { cwd "{{nul.stdout}}"; allow-failure }
            save: http GET "\(base)/hello" { save "saved-{{nul.stdout}}"; allow-failure }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let expected = [
            "argument": ("spawn", "exec: argument 2 holds a NUL byte"),
            "path": ("file", "file write: the path holds a NUL byte"),
            "environment": ("spawn", "sh: env V holds a NUL byte"),
            "folder": ("spawn", "sh: the folder (cwd) holds a NUL byte"),
            "save": ("file", "http: the save path holds a NUL byte"),
        ]
        for (id, (kind, message)) in expected {
            let error = run.error(of: id)
            #expect(run.step(id)?["status"] as? String == "failed", "\(id): \(run.step(id) ?? [:])")
            #expect(error?["kind"] as? String == kind, "\(id): \(error ?? [:])")
            #expect((error?["message"] as? String)?.hasPrefix(message) == true, "\(id): \(error ?? [:])")
        }
        let made = try FileManager.default.contentsOfDirectory(atPath: space.folder.path)
        #expect(!made.contains { $0.hasPrefix("out-") || $0.hasPrefix("saved-") }, "\(made)")
    }
}
