// Drives SystemStepRunner directly, for the Steps benchmarks
// (Benchmarks/steps/*.sh run it side by side with xargs, GNU parallel,
// curl and wrk).
//
//   StepsBench spawn N CONCURRENCY [sh|exec]  N `sh "true"` (or `exec "true"`)
//                                         steps, CONCURRENCY at once
//   StepsBench http URL N CONCURRENCY     N GETs of URL, CONCURRENCY at once
//   StepsBench output BYTES               one sh step printing BYTES of lines
//   StepsBench save URL PATH              one GET of URL saved to PATH
//   StepsBench json ITEMS                 parses a generated JSON array of
//                                         ITEMS objects (PromiseEngine's parser)
//
// Each prints one line: what it did, the time, the rate, and the peak
// resident memory of this process (VmHWM).
import Foundation
import PromiseEngine
import WorkflowRun
import Steps
import Synchronization
import WorkflowModel
import WorkflowLanguage
import JSON

/// Peak and current resident memory of this process, in MiB.
func memory() -> (peak: Double, current: Double) {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
              let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            return 0
        }
        return kilobytes / 1024
    }
    return (field("VmHWM"), field("VmRSS"))
}

/// CPU seconds used by this process and by its reaped children.
func cpu() -> (own: Double, children: Double) {
    func total(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    return (total(RUSAGE_SELF), total(RUSAGE_CHILDREN))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// Runs `count` steps made by `step`, at most `concurrency` at once, as
/// the executor does: each finished promise starts the next step (no task
/// per step). Returns the number of failures.
func runAll(count: Int, concurrency: Int, _ runner: SystemStepRunner, _ context: StepContext,
            _ step: @escaping @Sendable (Int) -> ResolvedStep) async -> Int {
    struct Progress {
        var started = 0
        var finished = 0
        var failed = 0
    }
    let progress = Mutex(Progress())
    let (done, doneResolver) = Promise<Int>.pending()
    @Sendable func startNext() {
        let index: Int? = progress.withLock { state in
            guard state.started < count else { return nil }
            state.started += 1
            return state.started - 1
        }
        guard let index else { return }
        _ = runner.run(step(index), in: context).tap { outcome in
            let result: (Bool, Int) = progress.withLock { state in
                state.finished += 1
                if outcome.value == nil { state.failed += 1 }
                return (state.finished == count, state.failed)
            }
            if result.0 { doneResolver.fulfill(result.1) } else { startNext() }
        }
    }
    if count == 0 { return 0 }
    for _ in 0..<min(concurrency, count) { startNext() }
    return (try? await done.value) ?? count
}

/// Counts the lines a step prints.
final class CountingSink: StepOutputSink {
    let lines = Atomic<Int>(0)
    func line(_ text: String, stream: OutputChannel, step id: String) {
        lines.add(1, ordering: .relaxed)
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments.dropFirst()
guard let mode = arguments.first else { fail("usage: StepsBench spawn|http|output|save ...") }
let runner = SystemStepRunner()
let context = StepContext(id: "bench", workingDirectory: FileManager.default.currentDirectoryPath,
                          environment: ProcessInfo.processInfo.environment)
let start = ContinuousClock.now
switch mode {
case "spawn":
    let count = Int(arguments.dropFirst().first ?? "1000") ?? 1000
    let concurrency = Int(arguments.dropFirst(2).first ?? "8") ?? 8
    let useExec = arguments.dropFirst(3).first == "exec"
    let step: ResolvedStep = useExec
        ? .exec(arguments: ["true"], process: ResolvedProcessOptions())
        : .shell(command: "true", process: ResolvedProcessOptions())
    let failed = await runAll(count: count, concurrency: concurrency, runner, context) { _ in step }
    let elapsed = seconds(start.duration(to: .now))
    let used = cpu()
    print(String(format: "spawn (%@): %d steps at %d, %.3f s, %.0f/s, %d failed, cpu: runner %.0f us/step, children %.0f us/step, peak %.1f MiB",
                 useExec ? "exec true" : "sh true", count, concurrency, elapsed, Double(count) / elapsed, failed,
                 used.own / Double(count) * 1e6, used.children / Double(count) * 1e6, memory().peak))
    if failed > 0 { exit(1) }
case "http":
    guard let url = arguments.dropFirst().first else { fail("http URL N CONCURRENCY") }
    let count = Int(arguments.dropFirst(2).first ?? "10000") ?? 10000
    let concurrency = Int(arguments.dropFirst(3).first ?? "64") ?? 64
    let request = ResolvedHTTPRequest(method: .GET, url: url)
    let failed = await runAll(count: count, concurrency: concurrency, runner, context) { _ in .http(request) }
    let elapsed = seconds(start.duration(to: .now))
    print(String(format: "http: %d GETs at %d, %.3f s, %.0f/s, %d failed, cpu %.0f us/request, peak %.1f MiB",
                 count, concurrency, elapsed, Double(count) / elapsed, failed, cpu().own / Double(count) * 1e6,
                 memory().peak))
    if failed > 0 { exit(1) }
case "output":
    let bytes = Int(arguments.dropFirst().first ?? "400000000") ?? 400_000_000
    let sink = CountingSink()
    let before = memory().current
    let step = ResolvedStep.shell(command: "yes 'a line of output, as a build would print it' | head -c \(bytes)",
                          process: ResolvedProcessOptions())
    var sinkContext = context
    sinkContext.output = sink
    let outcome = await runner.run(step, in: sinkContext).settled
    let elapsed = seconds(start.duration(to: .now))
    guard let result = outcome.value else { fail("output: \(outcome)") }
    print(String(format: "output: %d bytes (%d lines to the sink, %d bytes kept), %.3f s, %.0f MB/s, rss before %.1f MiB, peak %.1f MiB",
                 result.stdout?.totalBytes ?? 0, sink.lines.load(ordering: .relaxed), result.stdout?.text.utf8.count ?? 0,
                 elapsed, Double(bytes) / elapsed / 1e6, before, memory().peak))
case "save":
    guard let url = arguments.dropFirst().first, let path = arguments.dropFirst(2).first else { fail("save URL PATH") }
    let before = memory().current
    let step = ResolvedStep.http(ResolvedHTTPRequest(method: .GET, url: url, save: path))
    let outcome = await runner.run(step, in: context).settled
    let elapsed = seconds(start.duration(to: .now))
    guard let result = outcome.value else { fail("save: \(outcome)") }
    let size = result.body?.totalBytes ?? 0
    print(String(format: "save: %d bytes, %.3f s, %.0f MB/s, rss before %.1f MiB, peak %.1f MiB",
                 size, elapsed, Double(size) / elapsed / 1e6, before, memory().peak))
case "json":
    let items = Int(arguments.dropFirst().first ?? "100000") ?? 100_000
    var text = "["
    for index in 0..<items {
        if index > 0 { text += "," }
        text += #"{"id": \#(index), "name": "item \#(index) \u00e9", "price": \#(Double(index) / 8), "tags": ["a", "b"], "ok": true, "none": null}"#
    }
    text += "]"
    let path = JSONPath([.index(items / 2), .key("name")])
    var best = Double.infinity
    var found = ""
    for _ in 0..<5 {
        let start = ContinuousClock.now
        guard let document = try? JSONDocument.parse(text) else { fail("json: parse failed") }
        found = document[path]?.textValue ?? "?"
        best = min(best, seconds(start.duration(to: .now)))
    }
    print(String(format: "json: %d items, %.1f MB, best of 5 %.1f ms, %.0f MB/s (%@)",
                 items, Double(text.utf8.count) / 1e6, best * 1000, Double(text.utf8.count) / best / 1e6, found))
default:
    fail("unknown mode \(mode)")
}
try? await runner.shutdown().value
