import Dispatch
import PromiseEngine
import PromiseTestSupport
import Testing

/// Code written the way PromiseKit users write it compiles and behaves so
/// (issue 17's snippets, as written).
@Suite("PromiseKit spellings")
struct PromiseKitSpellingsTests {
    struct NetError: Error, Equatable { var code: Int }
    struct OtherError: Error {}

    @Test("Promise.value(3), and return .value(0) in a then")
    func value() async throws {
        let three = Promise.value(3)
        #expect(three.isFulfilled && !three.isPending && !three.isRejected)
        let chained = three.then { n -> Promise<Int> in
            if n > 2 { return .value(0) }
            return .value(n)
        }
        #expect(try await chained.value == 0)
    }

    @Test("isPending, isFulfilled, isRejected")
    func states() {
        let (pending, resolver) = Promise<Int>.pending()
        #expect(pending.isPending && !pending.isFulfilled && !pending.isRejected)
        resolver.reject(OtherError())
        #expect(!pending.isPending && pending.isRejected && !pending.isFulfilled)
    }

    @Test("race(a, b) with two or more promises")
    func variadicRace() async throws {
        let (slow, _) = Promise<String>.pending()
        let fast = Promise.value("fast")
        #expect(try await race(slow, fast).value == "fast")
        #expect(try await race(slow, slow, fast).value == "fast")
    }

    @Test(".catch(NetError.self) handles that type only; the next .catch gets the rest")
    func typedCatch() async throws {
        let handled = Mutexed<[String]>([])
        _ = await Promise<Int>(error: NetError(code: 7))
            .catch(NetError.self) { error in handled.append("net \(error.code)") }
            .catch { _ in handled.append("other") }
            .settled
        _ = await Promise<Int>(error: OtherError())
            .catch(NetError.self) { error in handled.append("net \(error.code)") }
            .catch { _ in handled.append("other") }
            .settled
        #expect(handled.value == ["net 7", "other"])
    }

    @Test("Promise { seal in legacy(seal.resolve) } with a (T?, Error?) callback")
    func completionHandler() async throws {
        func legacy(_ value: Int?, _ error: (any Error)?, completion: @escaping @Sendable (Int?, (any Error)?) -> Void) {
            DispatchQueue.global().async { completion(value, error) }
        }
        let ok = Promise<Int> { seal in legacy(5, nil, completion: seal.resolve) }
        #expect(try await ok.value == 5)
        let failed = Promise<Int> { seal in legacy(nil, NetError(code: 1), completion: seal.resolve) }
        await #expect(throws: NetError.self) { try await failed.value }
        let neither = Promise<Int> { seal in legacy(nil, nil, completion: seal.resolve) }
        await #expect(throws: PromiseError.noValueNorError) { try await neither.value }
    }

    @Test("when(fulfilled: voids).done { } and done(on: .main)")
    func voids() async throws {
        let saves: [Promise<Void>] = [Promise.value(()), Promise.value(())]
        let done = Mutexed<Bool>(false)
        _ = await when(fulfilled: saves).done { done.set(true) }.settled
        #expect(done.value)
        let main = Promise.value(1).done(on: .main) { _ in }
        _ = await main.settled
        #expect(main.isFulfilled)
    }

    @Test("when(fulfilled: iterator, concurrently: 4) makes each promise when a slot is free")
    func iterator() async throws {
        let made = Mutexed<Int>(0)
        var pages = (1...20).makeIterator()
        let all = when(
            fulfilled: AnyIterator { () -> Promise<Int>? in
                guard let page = pages.next() else { return nil }
                made.update { $0 += 1 }
                return after(.milliseconds(1)).map { page * 10 }
            }, concurrently: 4)
        #expect(try await all.value == (1...20).map { $0 * 10 })
        #expect(made.value == 20)
    }

    @Test("concurrently: 0 or less rejects with a bad-input error and makes nothing", arguments: [0, -1, Int.min])
    func iteratorBadLimit(limit: Int) {
        let made = Mutexed<Int>(0)
        let all = when(
            fulfilled: AnyIterator { () -> Promise<Int>? in
                made.update { $0 += 1 }
                return .value(1)
            }, concurrently: limit)
        guard case PromiseError.badInput(let what)? = all.outcome?.error else {
            Issue.record("expected a bad-input rejection, got \(all.state_)")
            return
        }
        #expect(what.contains("\(limit)"))
        #expect(made.value == 0)
    }
}

extension PromiseKitSpellingsTests {
    struct User: Sendable { var id: Int }
    static func login() -> Promise<User> { .value(User(id: 1)) }
    static func fetchName(_ id: Int) -> Promise<String> { .value("name \(id)") }

    @Test("the pack when chained directly, and inside firstly")
    func packWhen() async throws {
        let seen = Mutexed<[String]>([])
        _ = await when(fulfilled: Self.login(), Self.fetchName(1)).done { user, name in seen.append("\(user.id) \(name)") }.settled
        _ = await firstly { when(fulfilled: Self.login(), Self.fetchName(2)) }.done { user, name in seen.append("\(user.id) \(name)") }.settled
        _ = await when(fulfilled: Self.login(), Self.fetchName(3)).done { user, name in
            let line = "\(user.id) \(name)"
            seen.append(line)
        }.settled
        #expect(seen.value == ["1 name 1", "1 name 2", "1 name 3"])
    }

    /// PromiseKit's README idiom, exactly: a two-parameter closure whose
    /// body calls a function taking `Any...` (`print`). The type checker
    /// must not wander to `when(fulfilled: AnyIterator, concurrently:)`.
    static func printed(_ items: Any...) -> String { items.map { "\($0)" }.joined(separator: " ") }

    @Test("when(fulfilled: a, b).done { user, name in print(user.id, name) }, chained and inside firstly, 2 to 5 promises")
    func packWhenWithVariadicBody() async throws {
        let seen = Mutexed<[String]>([])
        _ = await when(fulfilled: Self.login(), Self.fetchName(1)).done { user, name in print(user.id, name) }.settled
        _ = await firstly { when(fulfilled: Self.login(), Self.fetchName(2)) }.done { user, name in print(user.id, name) }.settled
        _ = await when(fulfilled: Self.login(), Self.fetchName(3)).done { user, name in seen.append(Self.printed(user.id, name)) }.settled
        _ = await firstly {
            when(fulfilled: Self.login(), Self.fetchName(4))
        }.done { user, name in
            seen.append(Self.printed(user.id, name))
        }.settled
        _ = await when(fulfilled: Self.login(), Self.fetchName(5), Promise.value(3.5)).done { user, name, ratio in
            seen.append(Self.printed(user.id, name, ratio))
        }.settled
        _ = await when(fulfilled: Self.login(), Self.fetchName(6), Promise.value(true), Promise.value([1, 2])).done { user, name, flag, list in
            seen.append(Self.printed(user.id, name, flag, list.count))
        }.settled
        _ = await firstly { when(fulfilled: Self.login(), Self.fetchName(7), Promise.value(true), Promise.value([1]), Promise.value("x")) }
            .done { user, name, flag, list, text in
                print(user.id, name, flag, list, text)
                seen.append(Self.printed(user.id, text))
            }.settled
        #expect(seen.value == ["1 name 3", "1 name 4", "1 name 5 3.5", "1 name 6 true 2", "1 x"])
    }
}

/// A value behind a lock, for handlers that run on other threads.
final class Mutexed<Value: Sendable>: @unchecked Sendable {
    private let lock = DispatchQueue(label: "mutexed")
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.sync { stored } }
    func set(_ value: Value) { lock.sync { stored = value } }
    func update(_ change: (inout Value) -> Void) { lock.sync { change(&stored) } }
}

extension Mutexed where Value == [String] {
    func append(_ text: String) { update { $0.append(text) } }
}
