/// A value that only one event loop's thread touches, carried through the
/// `Sendable` closures that reach that thread (`EventLoop.execute`, a
/// Dispatch worker's answer handed back to the loop), as swift-nio's
/// `NIOLoopBound` is.
///
/// Debug builds check every access: `value` and `withValue` stop the
/// process when called off the loop's thread. Release builds check
/// nothing and pay nothing: the box is the value and the loop, no more.
///
/// A struct: a copy holds the same object when `Value` is a class (the
/// loop-confined objects of the runner are), and its own copy otherwise.
/// Inlinable: made twice per HTTP request in another module, an
/// unspecialized `init` looked up `LoopBound<Value>`'s metadata each time
/// (about 450 instructions).
@usableFromInline
package struct LoopBound<Value>: @unchecked Sendable {
    // @unchecked: `stored` is read and written only on `loop`'s thread, which
    // `value` and `withValue` assert in debug builds; `handingOver` takes a
    // value no one else holds.

    /// The loop whose thread may touch the value.
    @usableFromInline
    package let loop: EventLoop
    @usableFromInline
    var stored: Value

    /// Binds `value`, on the loop's thread, to `loop`.
    @inlinable
    package init(_ value: Value, loop: EventLoop) {
        assert(loop.inLoop, "a LoopBound made off its event loop's thread (LoopBound(handingOver:to:) takes a value made elsewhere)")
        self.loop = loop
        stored = value
    }

    /// Binds `value`, made on another thread and held by nothing else
    /// (`sending`), to `loop`: from now on only the loop's thread touches
    /// it. Any thread.
    @inlinable
    package init(handingOver value: sending Value, to loop: EventLoop) {
        self.loop = loop
        stored = value
    }

    /// The value; on the loop's thread only.
    @inlinable
    package var value: Value {
        get {
            assert(loop.inLoop, "a LoopBound value read off its event loop's thread")
            return stored
        }
        set {
            assert(loop.inLoop, "a LoopBound value written off its event loop's thread")
            stored = newValue
        }
    }

    /// Runs `body` with the value, in place; on the loop's thread only.
    @inlinable
    package mutating func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        assert(loop.inLoop, "a LoopBound value changed off its event loop's thread")
        return try body(&stored)
    }
}
