extension Promise {
    /// Calls `handler` with the promise's progress, a fraction from 0 to 1, as
    /// it is reported (and with 1 when the promise is fulfilled). A derived
    /// promise reports the progress of the promise it waits on; `when`
    /// reports the mean of its inputs.
    public func onProgress(on executor: PromiseContext = .inline, _ handler: @escaping @Sendable (Double) -> Void) {
        guard case .inline = executor else {
            // `.nowOr` runs on its context: progress is news of a promise
            // still pending, never "already settled".
            addProgressListener { fraction in executor.execute { handler(fraction) } }
            return
        }
        addProgressListener(handler)
    }

    /// The last reported progress (1 once fulfilled).
    public var progress: Double {
        withLock { state in
            switch outcomeIfSettled(state) {
            case .fulfilled?: return 1
            case .rejected?, .cancelled?: return extrasUnderLock?.progress ?? 0
            case nil: return extrasUnderLock?.progress ?? 0
            }
        }
    }

    /// Records progress and tells the listeners. Ignored once settled.
    @usableFromInline
    final func reportProgress(_ fraction: Double) {
        let clamped = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
        let listeners: [@Sendable (Double) -> Void] = withLock { state in
            guard state.isPending else { return [] }
            let extras = extrasForWritingUnderLock()
            extras.progress = clamped
            return extras.progressListeners
        }
        for listener in listeners { listener(clamped) }
    }

    /// Lets `hooks` answer cancellation and progress for this promise.
    /// Ignored once settled (there is nothing left to cancel).
    @usableFromInline
    final func setHooks(_ hooks: CombinatorHooks) {
        withLock { state in
            guard state.isPending else { return }
            if case .none = link {
                link = .hooks(hooks)
            } else {
                extrasForWritingUnderLock().hooks = hooks
            }
        }
    }

    /// Sets what to start listening to when the first progress listener
    /// arrives (used by combinators with several inputs).
    @usableFromInline
    final func setProgressSource(_ start: @escaping @Sendable () -> Void) {
        withLock { state in
            guard state.isPending else { return }
            extrasForWritingUnderLock().progressSource = start
        }
    }
}

/// Where a promise's progress comes from, found when the first listener arrives.
enum ProgressSource {
    case none
    case upstream(AnyPromise)
    case custom(@Sendable () -> Void)
    case hooks(CombinatorHooks)
}
