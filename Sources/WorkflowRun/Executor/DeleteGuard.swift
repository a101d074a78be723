import Glibc
import RunnerSystem
import WorkflowModel

/// What `file delete` refuses before anything is removed (docs/steps.md,
/// "What file delete refuses"), as `rm --preserve-root` does and more:
///
/// - an empty path (a template that resolved to nothing);
/// - `/`, the workflow's folder, the step's folder (`.`, `./`) and any
///   folder that holds one of them, by their text and by where links
///   lead (`sub/..`, a link to the checkout's parent);
/// - a path outside the workflow's folder that was not written absolute:
///   `file delete "../x"`, or `"{{dir}}/x"` whose `dir` resolved to
///   nothing or to another place. Deleting outside the checkout takes a
///   path written with its leading `/`.
enum DeleteGuard {
    /// Why the delete must not run; nil when it may.
    static func refusal(written: Template, resolved: String, stepFolder: String, workflowFolder: String) -> String? {
        if resolved.isEmpty {
            return "the path \(written.displayText.isEmpty ? "is empty" : "'\(written.displayText)' resolved to nothing"); "
                + "nothing was deleted"
        }
        let path = Paths.resolve(resolved, against: stepFolder)
        // By its text, and as the system would walk it (`sub/..` through a
        // link); the last component itself is deleted as a link.
        let candidates = [Paths.normalized(path), kernelPath(path)].compactMap { $0 }
        let workflow = Paths.normalized(workflowFolder)
        let step = Paths.normalized(stepFolder)
        for (folder, name) in [(workflow, "the workflow's folder"), (step, "the step's folder")] {
            let spellings = Set([folder, realPath(folder)].compactMap { $0 })
            for candidate in candidates {
                for spelling in spellings where isInside(spelling, candidate) {
                    let what = candidate == "/" ? "the root folder" : candidate == spelling ? name : "a folder holding \(name)"
                    return "refused: \(resolved) is \(what) (\(candidate)); nothing was deleted"
                }
            }
        }
        if candidates.contains("/") { return "refused: \(resolved) is the root folder; nothing was deleted" }
        let writtenAbsolute: Bool
        if case .literal(let text)? = written.parts.first { writtenAbsolute = text.hasPrefix("/") } else { writtenAbsolute = false }
        if !writtenAbsolute && !isInside(candidates[0], workflow) {
            return "refused: \(resolved) (\(candidates[0])) is outside the workflow's folder \(workflow), and the path was not "
                + "written absolute (nothing was deleted); write it with its leading '/' to delete outside the workflow's folder"
        }
        return nil
    }

    /// Whether `path` is `folder` or inside it (both normalized).
    private static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// The path as the system reaches it: its folder with every link
    /// followed, then its last name (not followed: a link is deleted as a
    /// link); a path ending in `.` or `..` followed whole. Nil when its
    /// folder does not exist.
    private static func kernelPath(_ path: String) -> String? {
        let last = Paths.lastComponent(of: path)
        if last == "." || last == ".." || last == "/" { return realPath(path) }
        guard let folder = realPath(Paths.parent(of: path)) else { return nil }
        return folder == "/" ? "/" + last : folder + "/" + last
    }

    /// Where the path leads with every link followed; nil when it does not
    /// exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
