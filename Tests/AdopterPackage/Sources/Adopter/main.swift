// A small program in PromiseKit's spellings, with Foundation imported too:
// every name resolves without a module prefix. It prints what it did and
// exits 1 if anything came out other than expected.
import Dispatch
import Foundation
import PromiseEngine

struct User: Sendable { let id: Int; let name: String }
enum NetError: Error { case offline }

func login() -> Promise<User> { after(.milliseconds(5)).map { User(id: 7, name: "ada") } }
func fetchName(_ user: User) -> Promise<String> { .value(user.name.capitalized) }
func flaky(_ attempt: Int) -> Promise<Int> { attempt < 3 ? Promise(error: NetError.offline) : .value(attempt) }
func legacyLoad(_ path: String, completion: @escaping @Sendable (String?, (any Error)?) -> Void) {
    DispatchQueue.global().async { completion("contents of \(path)", nil) }
}

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ what: String) {
    print(condition ? "ok   \(what)" : "FAIL \(what)")
    if !condition { failures.append(what) }
}

// Foundation's types with names PromiseEngine once also had.
let stream = OutputStream.toMemory()
check(stream.streamStatus == .notOpen, "Foundation's OutputStream is the only one")

let user = try await login().value
let pair = try await when(fulfilled: login(), fetchName(user)).value
check(pair.0.id == 7 && pair.1 == "Ada", "when over a pack gives a tuple")

// PromiseKit's README idiom, as written there.
_ = await when(fulfilled: login(), fetchName(user)).done { user, name in print(user.id, name) }.settled
_ = await firstly { when(fulfilled: login(), fetchName(user)) }.done { user, name in print(user.id, name) }.settled

let greeting = try await firstly { login() }
    .then { user in fetchName(user) }
    .map { "Hello, \($0)" }
    .timeout(.seconds(5))
    .value
check(greeting == "Hello, Ada", "firstly/then/map/timeout")

let three = try await Promise.value(3).then { n -> Promise<Int> in n > 2 ? .value(n * 2) : .value(0) }.value
check(three == 6, "Promise.value and .value in a then")

let caught = try await flaky(1)
    .recover { error -> Promise<Int> in
        if case NetError.offline = error { return .value(-1) }
        throw error
    }
    .value
check(caught == -1, "recover by error type")

let attempts = try await retry(maxAttempts: 5, delay: .fixed(.milliseconds(1))) { attempt in flaky(attempt) }.value
check(attempts == 3, "retry until the third attempt")

let loaded = try await Promise<String> { seal in legacyLoad("a.txt", completion: seal.resolve) }.value
check(loaded == "contents of a.txt", "a completion handler through seal.resolve")

let fastest = try await race(after(.seconds(5)).map { "slow" }, after(.milliseconds(1)).map { "fast" }).value
check(fastest == "fast", "variadic race")

var pages = (1...10).makeIterator()
let doubled = try await when(fulfilled: AnyIterator { pages.next().map { Promise.value($0 * 2) } }, concurrently: 3).value
check(doubled == Array(stride(from: 2, through: 20, by: 2)), "when over an iterator, 3 at a time")

let outcomes = try await when(resolved: [flaky(1), flaky(3)]).value
check(outcomes[0].error != nil && outcomes[1].value == 3, "when(resolved:)")

let handled = Promise<Int>.pending()
handled.resolver.reject(NetError.offline)
let sawType = try await handled.promise.map { _ in "value" }.recover { error -> String in error is NetError ? "net" : "other" }.value
check(sawType == "net", "errors keep their type")

final class Seen: @unchecked Sendable { var which = "" }
let seen = Seen()
_ = try? await flaky(1).done { _ in }
    .catch(NetError.self) { _ in seen.which = "NetError handler" }
    .catch { _ in seen.which = "general handler" }
    .value
check(seen.which == "NetError handler", ".catch(NetError.self) then .catch")

let slow = Promise<Int>.pending()
slow.resolver.onCancel { slow.resolver.cancel() }
slow.promise.cancel()
check(slow.promise.isPending == false && slow.promise.isRejected == false, "cancel reaches the resolver")

if failures.isEmpty {
    print("adopter: all checks passed")
} else {
    print("adopter: \(failures.count) failed")
    exit(1)
}
