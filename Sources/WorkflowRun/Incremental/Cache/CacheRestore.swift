import Glibc
import RunnerSystem

/// Placing a shared cache entry's files and links in a step's folder, all
/// or none (docs/language.md, "What a restore may write"). An entry is
/// data from a store other checkouts write to, so it is checked before
/// anything is made: it may name only paths its step's `generates` covers,
/// never a path through a link, never the workflow's own files, `.git` or
/// `.promise-run`; modes lose setuid, setgid, sticky and world-write. Then
/// the folders it needs are made, each file is downloaded beside its place
/// and checked, each link made beside its place (a symbolic link with its
/// target text, never followed; a hard link of its file's download), and
/// all are renamed into place; a failure at any point puts back what was
/// there and removes what was made.
struct CacheRestore: Sendable {
    /// One path on its way: where it goes, where it is downloaded or made,
    /// and where what it replaces waits until all are placed.
    struct Item: Sendable {
        var file: CacheEntry.File
        var target: String
        var temporary: String
        var backup: String
    }

    /// Names a restore never writes under, at any depth.
    static let forbiddenNames: Set<Substring> = [".git", ".promise-run", ".hg", ".svn", ".jj"]
    /// The permission bits a restored file may have: no setuid, setgid,
    /// sticky or world-write.
    static let allowedMode: UInt32 = 0o775

    let items: [Item]
    /// The folders made for it, outermost first.
    let madeFolders: [String]

    /// Checks the entry (each of its paths, whatever its kind) and makes
    /// the folders its paths need; a refusal makes nothing.
    static func prepare(
        _ entry: CacheEntry, into folder: String, generates: [String],
        protected: Set<String>
    ) throws(CacheProblem) -> CacheRestore {
        var missing: [String] = []
        var seen: Set<String> = []
        var items: [Item] = []
        for file in entry.files {
            let names = file.path.split(separator: "/")
            if let name = names.first(where: forbiddenNames.contains) {
                throw CacheProblem(.failed, "its entry names \(file.path), inside \(name); refused")
            }
            guard generates.contains(where: { SourceGlob.covers($0, path: file.path) }) else {
                throw CacheProblem(.failed, "its entry names \(file.path), which the step's generates does not match; refused")
            }
            let target = Paths.absolute(file.path, from: folder)
            if protected.contains(Paths.normalized(target)) {
                throw CacheProblem(.failed, "its entry names \(file.path), a file of the workflow itself; refused")
            }
            // Every folder on the way must be a folder, not a link to one.
            var path = folder
            for name in names.dropLast() {
                path += "/" + name
                if seen.contains(path) { continue }
                var info = stat()
                if lstat(path, &info) != 0 {
                    guard errno == ENOENT else { throw CacheProblem(.failed, "\(FileError(path))") }
                    missing.append(path)
                    seen.insert(path)
                    continue
                }
                if (info.st_mode & S_IFMT) == S_IFLNK {
                    throw CacheProblem(.failed, "its entry names \(file.path), which leads through the link \(path); refused")
                }
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw CacheProblem(.failed, "\(path) is in the way of \(file.path): it is not a folder")
                }
            }
            var info = stat()
            if lstat(target, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG, (info.st_mode & S_IFMT) != S_IFLNK {
                throw CacheProblem(.failed, "\(file.path) is \(FileSystem.kindName(info)) here; refused")
            }
            let stem = Paths.parent(of: target) + "/." + Paths.lastComponent(of: target) + ".\(UInt32.random(in: 0...UInt32.max))"
            items.append(Item(file: file, target: target, temporary: stem + ".restore", backup: stem + ".restore-old"))
        }
        var made: [String] = []
        for path in missing {
            guard mkdir(path, 0o777) == 0 else {
                let failure = FileError(path)
                for folder in made.reversed() { rmdir(folder) }
                throw CacheProblem(.failed, "\(failure)")
            }
            made.append(path)
        }
        return CacheRestore(items: items, madeFolders: made)
    }

    /// The regular files, to download.
    var downloads: [Item] { items.filter { $0.file.object != nil } }

    /// Checks a downloaded file and sets its mode.
    func check(_ item: Item) throws(CacheProblem) {
        guard case .file(let sha256, _, let mode) = item.file.kind else { return }
        guard SHA256.hex(ofFile: item.temporary) == sha256 else {
            throw CacheProblem(.failed, "\(item.file.path): its contents do not match their SHA-256; refused")
        }
        guard chmod(item.temporary, mode_t(mode & Self.allowedMode)) == 0 else {
            throw CacheProblem(.failed, "\(item.file.path): \(FileError(item.temporary))")
        }
    }

    /// Makes each link beside its place, once every file is downloaded and
    /// checked: a symbolic link with its target text as stored (nothing is
    /// read or written through it), a hard link of its file's download (so
    /// the group is placed as one inode). Nil, or why not.
    private func makeLinks() -> String? {
        var downloaded: [String: String] = [:]
        for item in items where item.file.object != nil { downloaded[item.file.path] = item.temporary }
        for item in items {
            let made: Int32
            switch item.file.kind {
            case .file: continue
            case .link(let target): made = symlink(target, item.temporary)
            // `parse` lets a hard link name only a file before it.
            case .hardLink(let of): made = link(downloaded[of] ?? "", item.temporary)
            }
            guard made == 0 else { return "\(item.file.path): \(FileError(item.temporary))" }
        }
        return nil
    }

    /// Makes the links, then renames every path into place, keeping what
    /// each replaces until all are placed (a rename replaces a link at the
    /// place, never writes through it); on a failure, puts everything back.
    /// Nil, or why not.
    func commit() -> String? {
        if let failure = makeLinks() {
            discard()
            return failure
        }
        var placed: [(item: Item, replaced: Bool)] = []
        for item in items {
            let replaced = rename(item.target, item.backup) == 0
            if !replaced && errno != ENOENT {
                let failure = FileError(item.target)
                rollBack(placed)
                return "\(failure)"
            }
            guard rename(item.temporary, item.target) == 0 else {
                let failure = FileError(item.target)
                if replaced { rename(item.backup, item.target) }
                rollBack(placed)
                return "\(failure)"
            }
            placed.append((item, replaced))
        }
        for (item, replaced) in placed where replaced { unlink(item.backup) }
        return nil
    }

    private func rollBack(_ placed: [(item: Item, replaced: Bool)]) {
        for (item, replaced) in placed.reversed() {
            if replaced { rename(item.backup, item.target) } else { unlink(item.target) }
        }
        discard()
    }

    /// Removes the downloads, the links made and the folders made (when
    /// still empty).
    func discard() {
        for item in items { unlink(item.temporary) }
        for folder in madeFolders.reversed() { rmdir(folder) }
    }
}
