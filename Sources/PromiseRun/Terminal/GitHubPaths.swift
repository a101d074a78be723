import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// Paths in GitHub Actions annotations (`::error file=...`): GitHub reads
/// them from the repository's root, so a workflow run from another folder
/// (`working-directory: ci`) is named relative to `GITHUB_WORKSPACE`, the
/// checkout's root, when it lies under it.
enum GitHubPaths {
    static func annotationPath(
        _ path: String, environment: [String: String] = ProcessEnvironment.current(),
        currentDirectory: String = ProcessEnvironment.currentDirectory()
    ) -> String {
        guard let workspace = environment["GITHUB_WORKSPACE"], workspace.hasPrefix("/"), path != "-", path != "<stdin>" else {
            return path
        }
        // Through symbolic links as the file system sees them (a runner's
        // workspace is often reached through one).
        let absolute = real(normalized(path.hasPrefix("/") ? path : currentDirectory + "/" + path))
        let root = real(normalized(workspace))
        if root == "/" { return String(absolute.dropFirst()) }
        guard absolute.hasPrefix(root + "/") else { return path }
        return String(absolute.dropFirst(root.count + 1))
    }

    /// The path with its links resolved, when it exists.
    private static func real(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `/a/./b//c/../d` as `/a/b/d`.
    private static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}
