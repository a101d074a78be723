import PromiseEngine

/// What a build generates, as its steps are resolved (`--watch`):
/// a step's `generates "obj/{{f|stem}}.o"` is known only when it runs, and
/// is added here before its command starts, so that the file it writes
/// never stops the run that writes it. Shared by the run and the watcher
/// across the runs of one `--watch`.
/// See docs/language.md, 'Incremental steps'.
package final class GeneratedOutputs: Sendable {
    private let patterns = Lock<(list: [(pattern: String, base: String)], seen: Set<String>)>(([], []))

    package init() {}

    /// Adds a step's resolved `generates` patterns, relative to `base` (an
    /// absolute folder).
    package func add(_ added: [String], base: String) {
        patterns.withLock { state in
            for pattern in added where state.seen.insert(base + "\u{0}" + pattern).inserted {
                state.list.append((pattern, base))
            }
        }
    }

    /// Whether one of the patterns covers `path` (absolute).
    package func covers(_ path: String) -> Bool {
        let list = patterns.withLock { $0.list }
        return list.contains { pattern, base in
            let folder = base.hasSuffix("/") ? base : base + "/"
            return path.hasPrefix(folder) && SourceGlob.covers(pattern, path: String(path.dropFirst(folder.count)))
        }
    }
}
