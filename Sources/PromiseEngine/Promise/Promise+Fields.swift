// The promise's pointer-sized fields (`link`, `firstObserver`), read and
// written through these helpers, each only inside `withLock`.

extension Promise {
    /// The promise this one waits on, if any.
    @inlinable
    var upstreamUnderLock: AnyPromise? {
        get {
            switch link {
            case .none, .hooks: return nil
            case .upstream(let upstream): return upstream
            case .extras(let extras): return extras.upstream
            }
        }
        set {
            switch link {
            case .extras(let extras): extras.upstream = newValue
            case .hooks: extrasForWritingUnderLock().upstream = newValue
            case .none, .upstream: link = newValue.map { .upstream($0) } ?? .none
            }
        }
    }

    /// The extras, if any were needed.
    @inlinable
    var extrasUnderLock: PromiseExtras? {
        if case .extras(let extras) = link { return extras }
        return nil
    }

    /// The extras, made on first use (the upstream moves into them).
    @inlinable
    func extrasForWritingUnderLock() -> PromiseExtras {
        switch link {
        case .extras(let extras):
            return extras
        case .upstream(let upstream):
            let extras = PromiseExtras()
            extras.upstream = upstream
            link = .extras(extras)
            return extras
        case .hooks(let hooks):
            let extras = PromiseExtras()
            extras.hooks = hooks
            link = .extras(extras)
            return extras
        case .none:
            let extras = PromiseExtras()
            link = .extras(extras)
            return extras
        }
    }

    /// Adds an observer after the ones already waiting.
    @inlinable
    func appendObserverUnderLock(_ observer: consuming @escaping Observer) {
        if firstObserver == nil, extrasUnderLock?.moreObservers.isEmpty ?? true {
            firstObserver = consume observer
        } else {
            extrasForWritingUnderLock().moreObservers.append(consume observer)
        }
    }
}
