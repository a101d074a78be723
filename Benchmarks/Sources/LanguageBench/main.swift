// Parse + check + lower of generated workflows of 10,000 and 100,000 steps
// (a mix of step kinds, groups and references). Each size runs in a child
// process of its own so that its peak memory is its own.
//
//   swift run -c release LanguageBench     (from the repository root)
//   swift run -c release LanguageBench --size 100000   # one size, in this process
import Foundation
import PromiseEngine
import WorkflowLanguage
import WorkflowModel

/// A workflow of about `steps` steps: blocks of ten steps (sh, exec, http
/// with expectations and captures, file, log, sleep, fail) in sequence,
/// parallel with needs, foreach, if/else, catch and ensure, each step
/// referring to earlier ones.
func generateWorkflow(steps: Int) -> String {
    var text = "workflow \"bench\"\ntimeout 1h\nvar base = \"http://127.0.0.1:8080\"\nvar mode = \"debug\"\n\n"
    text.reserveCapacity(steps * 80)
    for block in 0..<(steps / 10) {
        let i = String(block)
        text += """
            g\(i): sequence {
              timeout 5m
              s\(i)a: sh "make part\(i) MODE={{mode}}" {
                timeout 30s
                retry 1 delay 100ms
                expect exit 0
              }
              s\(i)b: exec "tool" "--in" "{{s\(i)a.stdout}}"
              parallel limit 4 {
                h\(i)a: http GET "{{base}}/items/\(i)" {
                  expect status 200
                  expect json ".items[0].id" == \(i)
                  capture tok = json ".token"
                }
                h\(i)b: http POST "{{base}}/items" {
                  needs h\(i)a
                  header "Authorization" "Bearer {{h\(i)a.tok}}"
                  json "{\\"n\\": \(i)}"
                }
                f\(i): file write "out/\(i).txt" "{{s\(i)b.stdout | trim}}"
              }
              foreach x in ["a", "b"] {
                l\(i): log "{{x}} {{h\(i)b.status}}"
              }
              if "{{s\(i)a.exit}}" == "0" {
                log "ok \(i)"
              } else {
                fail "bad \(i)"
              }
              catch {
                log "{{error.message}}"
              }
              ensure {
                sleep 1ms
              }
            }

            """
    }
    return text
}

/// The process's resident set (`VmRSS`) or its peak (`VmHWM`), in bytes.
func memory(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return digits * 1024
    }
    return 0
}

/// Resets `VmHWM` to the current RSS (Linux 4.0+).
func resetPeakMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

struct Measurement: Codable {
    var steps: Int
    var bytes: Int
    var bestSeconds: Double
    var medianSeconds: Double
    var peakBytes: Int
}

func measure(steps requested: Int) -> Measurement {
    let text = generateWorkflow(steps: requested)
    let source = SourceFile(path: "bench.workflow", text: text)
    let baseline = memory("VmRSS")
    resetPeakMemory()
    let clock = ContinuousClock()
    var times: [Duration] = []
    var steps = 0
    var peak = 0
    for run in 0..<5 {
        let start = clock.now
        let result = WorkflowCompiler.compile(source)
        times.append(clock.now - start)
        guard let workflow = result.workflow else {
            print(result.renderedDiagnostics().prefix(2000))
            exit(1)
        }
        if run == 0 {
            peak = max(0, memory("VmHWM") - baseline)
            steps = workflow.allNodes.filter { if case .step = $0.kind { return true } else { return false } }.count
        }
    }
    times.sort()
    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
    return Measurement(steps: steps, bytes: source.bytes.count, bestSeconds: seconds(times[0]),
                       medianSeconds: seconds(times[times.count / 2]), peakBytes: peak)
}

let arguments = CommandLine.arguments
if let index = arguments.firstIndex(of: "--size"), index + 1 < arguments.count, let size = Int(arguments[index + 1]) {
    let result = measure(steps: size)
    let data = try JSONEncoder().encode(result)
    print(String(decoding: data, as: UTF8.self))
    exit(0)
}

var results: [Measurement] = []
for size in [10_000, 100_000] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--size", String(size)]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last,
          let result = try? JSONDecoder().decode(Measurement.self, from: Data(line.utf8)) else {
        print("size \(size) failed: \(String(decoding: data, as: UTF8.self))")
        exit(1)
    }
    results.append(result)
}

func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

print("LanguageBench: parse + check + lower (WorkflowCompiler.compile), best and median of 5 runs")
print("| steps | file size | best | median | per step (best) | peak memory | memory per step |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for result in results {
    print("| \(result.steps) | \(format(Double(result.bytes) / 1_048_576, 1)) MB | \(format(result.bestSeconds * 1000, 1)) ms"
        + " | \(format(result.medianSeconds * 1000, 1)) ms | \(format(result.bestSeconds / Double(result.steps) * 1e6, 2)) µs"
        + " | \(format(Double(result.peakBytes) / 1_048_576, 1)) MB | \(result.peakBytes / max(1, result.steps)) B |")
}
if results.count == 2 {
    print("time ratio 100k/10k: \(format(results[1].bestSeconds / results[0].bestSeconds, 1))x (linear would be 10x)")
}
