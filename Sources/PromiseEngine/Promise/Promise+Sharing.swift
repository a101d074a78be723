// One promise, many consumers: a child for each (`makeChild`), and a
// shared promise that lets its owner know when every consumer gave up
// (`propagatingCancellation`), for deduplicated loads (Tomorrowland's).

extension Promise {
    /// A new promise that settles as this one does: hand a child to each
    /// consumer of a shared promise, so that one consumer's `cancel()` is one
    /// vote, not the end of the shared work (this promise is cancelled once
    /// all of its children asked).
    ///
    /// ```swift
    /// func image(_ url: String) -> Promise<Image> {
    ///     let shared = loads[url] ?? download(url)
    ///     loads[url] = shared
    ///     return shared.makeChild()               // cancelling it cancels the download only with the others
    /// }
    /// ```
    public func makeChild() -> Promise<Value> {
        derive(.inline, .outcome { .outcome($0) })
    }

    /// A promise that settles as this one does, for keeping in a cache of
    /// shared work: once cancellation is requested of it (all of its
    /// children asked, or somebody called `cancel()` on it), `cancelRequested`
    /// runs on `context` with that promise, so the owner can drop it from
    /// the cache, and only then is this promise asked to cancel (as one of
    /// its children). Hand out `makeChild()`s of it, never the promise
    /// itself. Its progress is this promise's.
    ///
    /// In PromiseEngine every promise is cancelled once all its children
    /// asked, held or not (Tomorrowland does so only for promises nobody
    /// holds); what this adds is the callback, and its ordering before the
    /// request goes up.
    ///
    /// ```swift
    /// func profile(_ id: Int) -> Promise<Profile> {
    ///     let shared = cache.withLock { cache in
    ///         if let loading = cache[id] { return loading }
    ///         let loading = fetchProfile(id).propagatingCancellation(on: .inline) { promise in
    ///             cache.withLock { if $0[id] === promise { $0[id] = nil } }   // a new request loads again
    ///         }
    ///         cache[id] = loading
    ///         return loading
    ///     }
    ///     return shared.makeChild()
    /// }
    /// ```
    public func propagatingCancellation(
        on context: PromiseContext = .inline,
        cancelRequested: @escaping @Sendable (Promise<Value>) -> Void
    ) -> Promise<Value> {
        // Not derived (no upstream link): a derived promise passes a cancel
        // request up at once, and this one must run the callback first,
        // maybe on a queue.
        let shared = Promise<Value>(upstream: nil)
        shared.setProgressSource { [self] in
            self.addProgressListener { fraction in shared.reportProgress(fraction) }
        }
        shared.follow(self) { [self] in
            context.execute {
                cancelRequested(shared)
                self.cancelAsChild()
            }
        }
        return shared
    }

    /// Passes every event of this promise to `resolver`: its outcome
    /// (cancellation too) and each progress report, and returns this promise
    /// (OMPromises' `relay:`). The relay counts as one of this promise's
    /// children: a cancel request on the resolver's promise is its vote.
    ///
    /// ```swift
    /// let (download, resolver) = Promise<[UInt8]>.pending()
    /// show(download)                              // progress bar and result
    /// mirror(primary).relay(to: resolver)         // primary's events drive it
    /// ```
    @discardableResult
    public func relay(to resolver: Resolver<Value>) -> Promise<Value> {
        addProgressListener { fraction in resolver.progress(fraction) }
        resolver.onCancel { [self] in self.cancelAsChild() }
        observeNow(
            { pointer, drain in
                resolver.promise.settle(Outcome<Value>.load(from: pointer), &drain)
            }, asChild: true)
        return self
    }

    /// Makes this promise, a root one (no upstream), settle as `other` does,
    /// as one of its children, or as cancelled once cancellation was asked of
    /// it; `onCancelRequest` runs when it is asked (and should pass the
    /// request on to `other`, now or later). Its progress is its own.
    final func follow(_ other: Promise<Value>, onCancelRequest: @escaping @Sendable () -> Void) {
        addCancelHandler(onCancelRequest)
        other.observeNow(
            { [self] pointer, drain in
                self.settle(self.isCancelRequested ? .cancelled : Outcome<Value>.load(from: pointer), &drain)
            }, asChild: true)
    }
}
