import CSystemShims
import Glibc
import PromiseEngine

/// Says when the entries of some folders change: a file or folder made,
/// removed, or renamed in or out (an atomic write is a rename in), never a
/// file written in place. A burst of events is one call, once the folders
/// have been quiet for `quiet`. inotify, read on a thread of its own that
/// starts with the first folder watched; folders may be added at any
/// time, from any thread. What changed is for the caller to find out (the
/// language server compares the files it cares about with what it saw).
package final class FolderWatcher: Sendable {
    private struct State {
        var started = false
        var stopped = false
    }

    private let descriptor: Int32
    private let quiet: Duration
    private let changed: @Sendable () -> Void
    private let state = Lock(State())

    package init(quiet: Duration = .milliseconds(50), changed: @escaping @Sendable () -> Void) {
        descriptor = csh_inotify_open()
        self.quiet = quiet
        self.changed = changed
    }

    /// Watches `folder`'s entries too (again: nothing new). False when it
    /// cannot be watched (it is missing or no folder, or inotify is not to
    /// be had).
    @discardableResult
    package func watch(_ folder: String) -> Bool {
        var info = stat()
        guard descriptor >= 0, stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR,
            csh_inotify_watch(descriptor, folder) >= 0
        else { return false }
        let start = state.withLock { state in
            guard !state.started, !state.stopped else { return false }
            state.started = true
            return true
        }
        if start { startDetachedThread(named: "pr-folder-watch") { [self] in run() } }
        return true
    }

    /// No more calls; the descriptor is closed (by its thread, within a
    /// quarter of a second, when it runs).
    package func stop() {
        let running = state.withLock { state in
            state.stopped = true
            return state.started
        }
        if !running, descriptor >= 0 { close(descriptor) }
    }

    private func run() {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let (seconds, attoseconds) = quiet.components
        let quietMilliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        while !state.withLock({ $0.stopped }) {
            guard poll(&entry, 1, 250) > 0 else { continue }
            _ = csh_inotify_drain(descriptor)
            // The rest of the burst.
            while poll(&entry, 1, max(1, quietMilliseconds)) > 0 { _ = csh_inotify_drain(descriptor) }
            if !state.withLock({ $0.stopped }) { changed() }
        }
        close(descriptor)
    }
}
