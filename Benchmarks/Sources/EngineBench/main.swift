// EngineBench: PromiseEngine against NIO futures (EmbeddedEventLoop), GCD
// (DispatchGroup) and Swift concurrency (async let / TaskGroup).
//
//   swift run -c release EngineBench            all cases, table with ratios
//   swift run -c release EngineBench LIB CASE   one measurement (a child process)
//   swift run -c release EngineBench LIB CASE N the case N times in one process,
//                                               printing each (to profile warm runs)
//   swift run -c release EngineBench allocations  allocations per operation, beside NIO
//   swift run -c release EngineBench token-cost [ROUNDS]
//                                               (b) and (e) alternately in one process:
//                                               the cost of a token on a callback
//
// Each (library, case) runs in a process of its own, several times; the
// table shows the median. Memory (case d) is the growth of the peak resident
// set divided by the number of pending promises, the array that holds them
// made and touched before (`bytesPerHeld`: the promises' own memory).
import Foundation

let libraries = ["PromiseEngine", "NIO", "GCD", "Concurrency"]
let cases: [(id: String, title: String, unit: String)] = [
    ("a", "1,000,000 x create + map + fulfil", "ns/op"),
    ("b", "one chain of 100,000 maps, resolved", "ns/link"),
    ("c", "when over 100,000 pending, then resolve all", "ns/promise"),
    ("d", "memory per pending promise (4,000,000)", "bytes"),
    ("e", "(b) with a token on every map (`map(token:)`)", "ns/link"),
]
/// Cases only PromiseEngine has: the others are not run for them.
let engineOnly: Set = ["e"]

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "allocations" {
    print("| operation | PromiseEngine | NIO | PromiseEngine / NIO |")
    print("|---|---:|---:|---:|")
    for (operation, engine, nio) in AllocationCases.table() {
        let ratio = nio.map { String(format: "%.2f", engine / $0) } ?? "n/a"
        print("| \(operation) | \(String(format: "%.2f", engine)) | \(nio.map { String(format: "%.2f", $0) } ?? "n/a") | \(ratio) |")
    }
    exit(0)
}
if arguments.count >= 2, arguments[1] == "token-cost" {
    // Alternating rounds in one process, so a drift of the machine's speed
    // hits both alike; the medians and their ratio.
    let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 21 : 21
    var plain: [Double] = [], tokened: [Double] = []
    for _ in 0..<rounds {
        plain.append(EngineCases.chain(links: 100_000))
        tokened.append(EngineCases.chainWithToken(links: 100_000))
    }
    plain.sort()
    tokened.sort()
    let (b, e) = (plain[rounds / 2], tokened[rounds / 2])
    print(String(format: "(b) %.1f ns/link, (e) with a token %.1f ns/link: %.3f (target at most 1.10), medians of %d alternating rounds",
                 b, e, e / b, rounds))
    exit(0)
}
if arguments.count == 4, let repeats = Int(arguments[3]) {
    for _ in 0..<repeats { print(measure(library: arguments[1], caseID: arguments[2])) }
    exit(0)
}
if arguments.count == 3 {
    let figure = measure(library: arguments[1], caseID: arguments[2])
    print(figure)
    exit(0)
}

let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 7
print("EngineBench: median of \(runs) runs, one process per run; \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("")
var table: [String: [String: Double]] = [:]
for benchCase in cases {
    for library in libraries where library == "PromiseEngine" || !engineOnly.contains(benchCase.id) {
        var figures: [Double] = []
        for _ in 0..<runs {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: arguments[0])
            child.arguments = [library, benchCase.id]
            let pipe = Pipe()
            child.standardOutput = pipe
            try! child.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            child.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if let value = Double(text) { figures.append(value) }
        }
        figures.sort()
        table[benchCase.id, default: [:]][library] = figures.isEmpty ? .nan : figures[figures.count / 2]
    }
}

func cell(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "n/a" }
    return value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
}

print("| case | unit | PromiseEngine | NIO | GCD | async/TaskGroup | PromiseEngine / NIO |")
print("|---|---|---:|---:|---:|---:|---:|")
for benchCase in cases {
    let row = table[benchCase.id] ?? [:]
    let ratio = (row["PromiseEngine"] ?? .nan) / (row["NIO"] ?? .nan)
    print("| (\(benchCase.id)) \(benchCase.title) | \(benchCase.unit) | \(cell(row["PromiseEngine"])) | \(cell(row["NIO"])) | \(cell(row["GCD"])) | \(cell(row["Concurrency"])) | \(ratio.isFinite ? String(format: "%.2f", ratio) : "n/a") |")
}
let tokenCost = (table["e"]?["PromiseEngine"] ?? .nan) / (table["b"]?["PromiseEngine"] ?? .nan)
print("")
print("A token on a callback: (e) / (b) = \(tokenCost.isFinite ? String(format: "%.3f", tokenCost) : "n/a") (target at most 1.10)")
