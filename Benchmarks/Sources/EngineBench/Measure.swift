import Foundation

/// Runs one library's version of one case in this process and returns its figure.
func measure(library: String, caseID: String) -> Double {
    switch (library, caseID) {
    case ("PromiseEngine", "a"): return EngineCases.createMapFulfil(count: 1_000_000)
    case ("PromiseEngine", "b"): return EngineCases.chain(links: 100_000)
    case ("PromiseEngine", "c"): return EngineCases.when(count: 100_000)
    case ("PromiseEngine", "d"): return EngineCases.memory(count: 4_000_000)
    case ("PromiseEngine", "e"): return EngineCases.chainWithToken(links: 100_000)
    case ("NIO", "a"): return NIOCases.createMapFulfil(count: 1_000_000)
    case ("NIO", "b"): return NIOCases.chain(links: 100_000)
    case ("NIO", "c"): return NIOCases.when(count: 100_000)
    case ("NIO", "d"): return NIOCases.memory(count: 4_000_000)
    case ("GCD", "a"): return GCDCases.createMapFulfil(count: 1_000_000)
    case ("GCD", "b"): return GCDCases.chain(links: 100_000)
    case ("GCD", "c"): return GCDCases.when(count: 100_000)
    case ("GCD", "d"): return GCDCases.memory(count: 1_000_000)
    case ("Concurrency", "a"): return ConcurrencyCases.createMapFulfil(count: 200_000)
    case ("Concurrency", "b"): return ConcurrencyCases.chain(links: 100_000)
    case ("Concurrency", "c"): return ConcurrencyCases.when(count: 100_000)
    case ("Concurrency", "d"): return ConcurrencyCases.memory(count: 100_000)
    case (_, "e"): return .nan  // tokens are PromiseEngine's (Tomorrowland's) alone
    default: fatalError("unknown \(library) \(caseID)")
    }
}

/// Nanoseconds per item of `body`.
@inline(never)
func nanosecondsPer(_ count: Int, _ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    let end = DispatchTime.now().uptimeNanoseconds
    return Double(end - start) / Double(count)
}

/// Bytes of resident memory added per item by `body`, which must keep its
/// items alive until it returns (it returns them so they are not freed early).
@inline(never)
func bytesPer<Kept>(_ count: Int, _ body: () -> Kept) -> Double {
    let before = residentBytes()
    let kept = body()
    let after = peakResidentBytes()
    withExtendedLifetime(kept) {}
    return Double(after - before) / Double(count)
}

/// Bytes of resident memory each of `count` values made by `make` adds,
/// the array that keeps them excluded: the array is made, and its pages
/// touched (every slot holding one first value), before the memory is
/// read; each slot then gets a value of its own. What is left is the
/// values' own memory (a promise's chunk), not the benchmark's 8 bytes a
/// slot.
@inline(never)
func bytesPerHeld<Value>(_ count: Int, _ make: () -> Value) -> Double {
    var held = [Value](repeating: make(), count: count)
    let before = residentBytes()
    for index in 0..<count { held[index] = make() }
    let after = peakResidentBytes()
    withExtendedLifetime(held) {}
    return Double(after - before) / Double(count)
}

func residentBytes() -> Int { statusField("VmRSS:") }
func peakResidentBytes() -> Int { statusField("VmHWM:") }

private func statusField(_ name: String) -> Int {
    let status = try! String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    for line in status.split(separator: "\n") where line.hasPrefix(name) {
        let digits = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first!
        return Int(digits)! * 1024
    }
    return 0
}

/// Keeps a value from being optimised away.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
