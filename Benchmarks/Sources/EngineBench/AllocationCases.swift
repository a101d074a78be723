import CMallocCounter
import NIOCore
import NIOEmbedded
import PromiseEngine

/// Allocations per operation, PromiseEngine beside NIO: every call to
/// malloc and its relatives in the process (CMallocCounter), counted over
/// `count` repetitions after one warm-up round and divided by `count`.
enum AllocationCases {
    static let count = 10_000

    /// (operation, PromiseEngine, NIO or nil where NIO has no such thing).
    static func table() -> [(String, Double, Double?)] {
        malloc_counter_start()
        let loop = EmbeddedEventLoop()
        let token = PromiseInvalidationToken()
        return [
            ("a pending promise", per { keep in
                keep.append(Promise<Int>.pending().resolver)
            }, per { keep in
                keep.append(loop.makePromise(of: Int.self))
            }),
            ("bytes asked of malloc for a pending promise", bytes { keep in
                keep.append(Promise<Int>.pending().resolver)
            }, bytes { keep in
                keep.append(loop.makePromise(of: Int.self))
            }),
            ("the malloc chunk of a pending promise (bytes)", chunk(of: Promise<Int>.pending().promise),
             chunk(of: loop.makePromise(of: Int.self).futureResult)),
            ("a `map` link, then fulfilled", chain { $0.map { $0 &+ 1 } }, nioChain(loop) { $0.map { $0 &+ 1 } }),
            ("a `map(token:)` link, then fulfilled (NIO: a `map` link; it has no tokens)", chain { $0.map(token: token) { $0 &+ 1 } },
             nioChain(loop) { $0.map { $0 &+ 1 } }),
            ("a `then` link returning a settled promise", chain { $0.then { Promise(value: $0 &+ 1) } },
             nioChain(loop) { future in future.flatMap { future.eventLoop.makeSucceededFuture($0 &+ 1) } }),
            ("a `recover` link", chain { $0.recover { _ in 0 } }, nioChain(loop) { $0.recover { _ in 0 } }),
            ("an `ensure` link (NIO's `always` makes no new future)", chain { $0.ensure {} }, nioChain(loop) { $0.always { _ in } }),
            ("`done`, a new `Promise<Void>` (NIO: `map { _ in }`)", per { keep in
                let (promise, resolver) = Promise<Int>.pending()
                promise.done { _ in }
                resolver.fulfill(1)
            }, per { keep in
                let promise = loop.makePromise(of: Int.self)
                _ = promise.futureResult.map { _ in }
                promise.succeed(1)
            }),
            ("`done` where NIO makes no new future (`whenSuccess`)", per { keep in
                let (promise, resolver) = Promise<Int>.pending()
                promise.done { _ in }
                resolver.fulfill(1)
            }, per { keep in
                let promise = loop.makePromise(of: Int.self)
                promise.futureResult.whenSuccess { _ in }
                promise.succeed(1)
            }),
            ("`when(fulfilled:)` over 100, per input (NIO: `whenAllSucceed`)", combinator(100) { inputs in
                when(fulfilled: inputs)
            }, nioCombinator(loop, 100) { inputs in
                EventLoopFuture.whenAllSucceed(inputs, on: loop)
            }),
            ("`when(resolved:)` over 100, per input (NIO: `whenAllComplete`)", combinator(100) { inputs in
                when(resolved: inputs)
            }, nioCombinator(loop, 100) { inputs in
                EventLoopFuture.whenAllComplete(inputs, on: loop)
            }),
            ("`when` of two values (NIO: `and`)", per { keep in
                let a = Promise<Int>.pending(), b = Promise<Int>.pending()
                let both = when(fulfilled: a.promise, b.promise)
                a.resolver.fulfill(1)
                b.resolver.fulfill(2)
                keep.append(both)
            }, per { keep in
                let a = loop.makePromise(of: Int.self), b = loop.makePromise(of: Int.self)
                let both = a.futureResult.and(b.futureResult)
                a.succeed(1)
                b.succeed(2)
                keep.append(both)
            }),
            ("`race` over 100, per input", combinator(100) { inputs in race(inputs) }, nil),
            ("`any` over 100, per input", combinator(100) { inputs in any(inputs) }, nil),
        ]
    }

    /// Allocations (or, with `malloc_counter_bytes`, bytes) per call of
    /// `body`, which may keep what it made alive in `keep` until the count
    /// is taken.
    static func per(counting counter: () -> UInt = malloc_counter_allocations, _ body: (inout [Any]) -> Void) -> Double {
        var keep: [Any] = []
        keep.reserveCapacity(count * 2)
        for _ in 0..<count { body(&keep) }
        keep.removeAll(keepingCapacity: true)
        let before = counter()
        for _ in 0..<count { body(&keep) }
        let after = counter()
        withExtendedLifetime(keep) {}
        return Double(after - before) / Double(count)
    }

    /// Bytes requested from malloc per call of `body` (as `per`).
    static func bytes(_ body: (inout [Any]) -> Void) -> Double {
        per(counting: malloc_counter_bytes, body)
    }

    /// The malloc chunk `object` lives in (bytes).
    static func chunk(of object: AnyObject) -> Double {
        withExtendedLifetime(object) {
            Double(malloc_counter_chunk(Unmanaged.passUnretained(object).toOpaque()))
        }
    }

    /// Allocations made while `body` runs.
    static func allocations(_ body: () -> Void) -> UInt {
        let before = malloc_counter_allocations()
        body()
        return malloc_counter_allocations() - before
    }

    /// `run` once to warm up, then again: its count per one of `count` items.
    static func secondRun(_ run: () -> UInt) -> Double {
        _ = run()
        return Double(run()) / Double(count)
    }

    /// Allocations per link of a chain of `count` links built by `link` on a
    /// pending promise, then resolved.
    static func chain(_ link: (Promise<Int>) -> Promise<Int>) -> Double {
        secondRun {
            var tail: Promise<Int>?
            let made = allocations {
                let (head, resolver) = Promise<Int>.pending()
                var current = head
                for _ in 0..<count { current = link(current) }
                resolver.fulfill(0)
                tail = current
            }
            precondition(tail?.outcome != nil)
            return made
        }
    }

    static func nioChain(_ loop: EmbeddedEventLoop, _ link: (EventLoopFuture<Int>) -> EventLoopFuture<Int>) -> Double {
        secondRun {
            var tail: EventLoopFuture<Int>?
            let made = allocations {
                let head = loop.makePromise(of: Int.self)
                var current = head.futureResult
                for _ in 0..<count { current = link(current) }
                head.succeed(0)
                tail = current
            }
            precondition(isFulfilled(tail!))
            return made
        }
    }

    /// Allocations per input of a combinator over `width` pending inputs,
    /// all fulfilled, repeated until `count` inputs have gone through. The
    /// inputs themselves are made before counting.
    static func combinator<Result>(_ width: Int, _ combine: ([Promise<Int>]) -> Promise<Result>) -> Double {
        secondRun {
            var total: UInt = 0
            for _ in 0..<(count / width) {
                let pairs = (0..<width).map { _ in Promise<Int>.pending() }
                var result: Promise<Result>?
                total += allocations {
                    result = combine(pairs.map(\.promise))
                    for index in 0..<width { pairs[index].resolver.fulfill(index) }
                }
                precondition(result?.outcome != nil)
            }
            return total
        }
    }

    static func nioCombinator<Result>(_ loop: EmbeddedEventLoop, _ width: Int,
                                      _ combine: ([EventLoopFuture<Int>]) -> EventLoopFuture<Result>) -> Double {
        secondRun {
            var total: UInt = 0
            for _ in 0..<(count / width) {
                let promises = (0..<width).map { _ in loop.makePromise(of: Int.self) }
                var result: EventLoopFuture<Result>?
                total += allocations {
                    result = combine(promises.map(\.futureResult))
                    for index in 0..<width { promises[index].succeed(index) }
                    loop.run()
                }
                precondition(isFulfilled(result!))
            }
            return total
        }
    }

    /// Whether a future on the embedded loop has its value (NIO runs the
    /// callback inline then).
    static func isFulfilled<Value>(_ future: EventLoopFuture<Value>) -> Bool {
        let fulfilled = Flag()
        future.whenSuccess { _ in fulfilled.set() }
        return fulfilled.isSet
    }
}

/// A flag set from a callback (NIO's embedded loop runs callbacks inline).
final class Flag: @unchecked Sendable {
    private(set) var isSet = false
    func set() { isSet = true }
}
