import Foundation
import Testing

/// `cpus N` on this machine: the step takes N of the `-j` slots.
/// See docs/language.md, 'Where process steps run: Slurm'.
@Suite("cpus N takes N of the -j slots")
struct CPUsSlotsTests {
    @Test("with -j 2, two steps of cpus 2 run one after the other; two of cpus 1 at once")
    func cpusTakeSlots() async throws {
        let space = try Workspace()
        defer { space.remove() }
        // Each step notes when it starts and ends (milliseconds).
        let step = "date +%s%3N >> {{name}}.start; sleep 0.5; date +%s%3N >> {{name}}.end"
        // The cpus 1 steps each wait (up to 5 s) until the other has
        // started: together they end at once; one after the other, the
        // first ends before the second starts.
        let meeting =
            "date +%s%3N >> {{name}}.start; touch {{name}}.up; i=0; "
            + "while [ ! -e {{other}}.up ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; "
            + "sleep 0.1; date +%s%3N >> {{name}}.end"
        let run = try await space.run(
            """
            parallel {
              big1: sh "\(step.replacingOccurrences(of: "{{name}}", with: "big1"))" { cpus 2 }
              big2: sh "\(step.replacingOccurrences(of: "{{name}}", with: "big2"))" { cpus 2 }
            }
            parallel {
              small1: sh "\(meeting.replacingOccurrences(of: "{{name}}", with: "small1").replacingOccurrences(of: "{{other}}", with: "small2"))" { cpus 1 }
              small2: sh "\(meeting.replacingOccurrences(of: "{{name}}", with: "small2").replacingOccurrences(of: "{{other}}", with: "small1"))" { cpus 1 }
            }
            """, ["-j", "2"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        func time(_ name: String) throws -> Int {
            try #require(Int((space.read(name) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let (big1, big2) = ((try time("big1.start"), try time("big1.end")), (try time("big2.start"), try time("big2.end")))
        #expect(big1.1 <= big2.0 || big2.1 <= big1.0, "the cpus 2 steps overlapped: \(big1) \(big2)")
        let (small1, small2) = ((try time("small1.start"), try time("small1.end")), (try time("small2.start"), try time("small2.end")))
        #expect(small1.0 < small2.1 && small2.0 < small1.1, "the cpus 1 steps ran one after the other: \(small1) \(small2)")
    }
}
