// A small program in PromiseKit's spellings, with Foundation imported too:
// every name resolves without a module prefix. It prints what it did and
// exits 1 if anything came out other than expected.
import Dispatch
import Foundation
import PromiseEngine

struct User: Sendable {
    let id: Int
    let name: String
}
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

// Issue 47: Tomorrowland's tokens, contexts, lazy and shared promises;
// OMPromises' combinators; PromiseKit's bad-input check.
final class Screen: PromiseTokenOwner {
    let promiseToken = PromiseInvalidationToken()
}
let silenced = Promise<Int>.pending()
let token = PromiseInvalidationToken()
let afterInvalidate = silenced.promise.map(token: token) { $0 * 2 }
token.invalidate()
silenced.resolver.fulfill(1)
check(afterInvalidate.isPending == false && afterInvalidate.isFulfilled == false, "an invalidated token cancels its handler's promise")

let parentToken = PromiseInvalidationToken()
let childToken = PromiseInvalidationToken()
childToken.chainInvalidation(from: parentToken)
let work = Promise<Int>.pending()
work.resolver.onCancel { work.resolver.cancel() }
work.promise.requestCancelOnInvalidate(childToken)
parentToken.cancelWithoutInvalidating()
check(work.promise.outcome?.isCancelled == true, "chained tokens and requestCancelOnInvalidate")

let owned = Promise<Int>.pending()
owned.resolver.onCancel { owned.resolver.cancel() }
do { owned.promise.requestCancelOnDeinit(Screen()) }
check(owned.promise.outcome?.isCancelled == true, "requestCancelOnDeinit(owner)")

final class Starts: @unchecked Sendable { var count = 0 }
let starts = Starts()
let delayed = DelayedPromise<String> { resolver in
    starts.count += 1
    resolver.fulfill("loaded")
}
check(starts.count == 0, "a delayed promise waits to be asked")
let lazyValue = try await delayed.promise.value
check(lazyValue == "loaded" && starts.count == 1 && delayed.promise === delayed.promise, "DelayedPromise starts once")

let shared = login().propagatingCancellation(on: .inline) { _ in }
let sharedUser = try await shared.makeChild().value
check(sharedUser.id == 7, "propagatingCancellation and makeChild")

let ranNow = Promise.value(1).map(on: .nowOr(.main)) { _ in PromiseContext.isExecutingNow }
check(ranNow.outcome?.value == true, ".nowOr runs at once on a settled promise")
let deferred = try await Promise.value(2).map(on: .deferred) { $0 + 1 }.value
check(deferred == 3, ".deferred for Promises/A+'s order")

let joined = try await Promise.value(fetchName(user)).join().value
let chained = try await chain([{ .value($0 + 1) }, { .value($0 * 2) }], initial: 1).value
let relayed = Promise<Int>.pending()
Promise.value(5).relay(to: relayed.resolver)
check(joined == "Ada" && chained == 4 && relayed.promise.outcome?.value == 5, "join, chain and relay")

var numbers = (1...3).makeIterator()
let refused = when(fulfilled: AnyIterator { numbers.next().map { Promise.value($0) } }, concurrently: 0)
if case PromiseError.badInput? = refused.outcome?.error {
    check(true, "concurrently: 0 rejects with badInput")
} else {
    check(false, "concurrently: 0 rejects with badInput")
}

if failures.isEmpty {
    print("adopter: all checks passed")
} else {
    print("adopter: \(failures.count) failed")
    exit(1)
}
