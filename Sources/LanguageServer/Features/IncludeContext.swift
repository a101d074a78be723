import Glibc
import RunnerSystem
import WorkflowLanguage
import WorkflowModel

/// A file analysed in the context of the file that includes it.
/// What the editor holds wins over the disk for every file an analysis
/// reads; an included file's includer is an open document whose include
/// tree holds it, else a workflow under the workspace folders whose tree
/// does. A file included by none is analysed alone.
/// See docs/language.md, 'Editors'.
extension LanguageServer {
    /// The open documents' texts, by normalized path: what every analysis
    /// reads instead of the disk.
    var overlay: [String: [UInt8]] {
        var texts: [String: [UInt8]] = [:]
        for document in documents.values { texts[document.normalizedPath] = document.bytes }
        return texts
    }

    /// The analysis the features of `document` read: its includer's when
    /// it has one, else its own.
    func analysis(of document: OpenDocument) -> LanguageAnalysis {
        if let cached = document.contextAnalysis { return cached }
        let includer = includerAnalysis(of: document)
        document.isIncluded = includer != nil
        let made = includer ?? ownAnalysis(of: document)
        document.contextAnalysis = made
        return made
    }

    /// The document's own text, its includes read from the editor first.
    func ownAnalysis(of document: OpenDocument) -> LanguageAnalysis {
        if let cached = document.ownAnalysis { return cached }
        let made = WorkflowCompiler.analyze(SourceFile(path: document.path, bytes: document.bytes), overlay: overlay)
        analysesMade += 1
        document.ownAnalysis = made
        return made
    }

    /// Whether `document` is analysed as part of another file.
    func isIncluded(_ document: OpenDocument) -> Bool {
        _ = analysis(of: document)
        return document.isIncluded
    }

    /// The analysis of the outermost file whose include tree holds
    /// `document`: an open one first (in URI order), else one under the
    /// workspace folders.
    private func includerAnalysis(of document: OpenDocument) -> LanguageAnalysis? {
        let path = document.normalizedPath
        func holds(_ analysis: LanguageAnalysis, besides own: String) -> Bool {
            analysis.source.segments.contains { Paths.normalized($0.file.path) == path } && own != path
        }
        var found: [(path: String, analysis: LanguageAnalysis)] = []
        // The open includers, as their include lines say (what the
        // expander reads): only the one chosen is analysed, and its
        // analysis confirms it. Right after an edit of a library, a request
        // there waits for that analysis alone; the other open files' wait
        // for their diagnostics.
        if let chosen = openIncluderByIncludeLines(of: document) {
            let analysis = ownAnalysis(of: chosen)
            if holds(analysis, besides: chosen.normalizedPath) { return analysis }
            // The include lines misled: every open file's analysis says.
            for other in documents.values.sorted(by: { $0.uri < $1.uri }) where other !== document {
                let analysis = ownAnalysis(of: other)
                if holds(analysis, besides: other.normalizedPath) { found.append((other.normalizedPath, analysis)) }
            }
        }
        if found.isEmpty {
            for file in diskCandidates(for: path) where documents.values.allSatisfy({ $0.normalizedPath != file }) {
                guard let bytes = diskTexts[file] else { continue }
                let analysis =
                    diskAnalyses[file]
                    ?? {
                        analysesMade += 1
                        return WorkflowCompiler.analyze(SourceFile(path: file, bytes: bytes), overlay: overlay)
                    }()
                diskAnalyses[file] = analysis
                if holds(analysis, besides: file) { found.append((file, analysis)) }
            }
        }
        // The outermost: one no other found file includes.
        let outermost = found.first { candidate in
            !found.contains { other in
                other.path != candidate.path && other.analysis.source.segments.contains { Paths.normalized($0.file.path) == candidate.path }
            }
        }
        return (outermost ?? found.first)?.analysis
    }

    /// The outermost open file whose include tree holds `document`, read
    /// off the include lines of the tree (the editor's texts, else the
    /// disk's; no analysis), the first in URI order; nil when none does.
    private func openIncluderByIncludeLines(of document: OpenDocument) -> OpenDocument? {
        let texts = overlay
        var included: [String: [String]] = [:]
        func tree(of root: OpenDocument) -> Set<String> {
            var seen: Set<String> = [root.normalizedPath]
            var pending = [root.normalizedPath]
            while let file = pending.popLast() {
                let targets =
                    included[file]
                    ?? {
                        guard file != root.normalizedPath else { return Self.includes(of: root).map(\.target) }
                        let bytes = texts[file] ?? (try? FileSystem.readBytes(file).get()) ?? []
                        return Self.includes(of: bytes, path: file).map(\.target)
                    }()
                included[file] = targets
                for target in targets where seen.insert(target).inserted { pending.append(target) }
            }
            return seen
        }
        let path = document.normalizedPath
        let found = documents.values.sorted { $0.uri < $1.uri }
            .filter { $0 !== document && $0.normalizedPath != path }
            .map { (document: $0, tree: tree(of: $0)) }
            .filter { $0.tree.contains(path) }
        return found.first { candidate in
            !found.contains { other in other.document !== candidate.document && other.tree.contains(candidate.document.normalizedPath) }
        }?.document ?? found.first?.document
    }

    /// The workflows under the workspace folders whose text names the
    /// file (`path`'s last name) and holds an `include`: the ones that may
    /// include it (found once a name, until the next save).
    private func diskCandidates(for path: String) -> [String] {
        if let known = diskMentions[path] { return known }
        let name = Array((path.split(separator: "/").last.map(String.init) ?? path).utf8)
        let include = Array("include".utf8)
        var candidates: [String] = []
        for file in workspaceWorkflows() where file != path {
            let bytes = diskTexts[file] ?? ((try? FileSystem.readBytes(file).get()) ?? [])
            diskTexts[file] = bytes
            if bytes.firstRange(of: name) != nil, bytes.firstRange(of: include) != nil { candidates.append(file) }
        }
        diskMentions[path] = candidates
        return candidates
    }

    /// Every `*.workflow` under the workspace folders (hidden folders and
    /// `.build` left out; at most 5,000), found once and again after a
    /// save (their texts are kept until then too).
    func workspaceWorkflows() -> [String] {
        if let workspaceFiles { return workspaceFiles }
        var files: [String] = []
        func walk(_ folder: String, depth: Int) {
            guard depth < 12, files.count < 5_000 else { return }
            for name in FileSystem.entriesOrNone(of: folder).sorted() where !name.hasPrefix(".") && name != "node_modules" {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    walk(path, depth: depth + 1)
                } else if name.hasSuffix(".workflow"), files.count < 5_000 {
                    files.append(Paths.normalized(path))
                }
            }
        }
        for folder in workspaceFolders { walk(folder, depth: 0) }
        workspaceFiles = files
        return files
    }

    /// Forgets the analyses a change of `path` may change: those whose
    /// include tree holds it, and those of the files in `trees` and `also`
    /// (what `path` included before and includes now, whose context may
    /// move). Returns the open documents touched.
    func invalidateAnalyses(touching path: String, trees: [LanguageAnalysis?], also: [String] = []) -> [OpenDocument] {
        var paths = Set([path] + also)
        for tree in trees.compactMap({ $0 }) {
            for segment in tree.source.segments { paths.insert(Paths.normalized(segment.file.path)) }
        }
        func holds(_ analysis: LanguageAnalysis?) -> Bool {
            analysis?.source.segments.contains { Paths.normalized($0.file.path) == path } ?? false
        }
        var touched: [OpenDocument] = []
        for document in documents.values
        where paths.contains(document.normalizedPath)
            || holds(document.ownAnalysis) || holds(document.contextAnalysis)
        {
            document.ownAnalysis = nil
            document.contextAnalysis = nil
            touched.append(document)
        }
        diskAnalyses = diskAnalyses.filter { !holds($0.value) }
        return touched
    }

    /// Forgets every analysis: a text changed, so any file's context may have.
    func invalidateAnalyses(rescan: Bool = false) {
        for document in documents.values {
            document.ownAnalysis = nil
            document.contextAnalysis = nil
        }
        diskAnalyses = [:]
        if rescan {
            workspaceFiles = nil
            diskTexts = [:]
            diskMentions = [:]
        }
    }
}
