import Glibc
import PromiseEngine
import RunnerSystem
import WorkflowModel

/// `include "PATH"`: before parsing, each `include` line at the
/// top level (at the start of its line) is turned into a comment and the
/// included file's text is inserted after it, as if written there. The
/// result keeps, per run of bytes, the file it came from
/// (`SourceFile.segments`), so that every location and diagnostic names
/// the file and line a person wrote. Paths are relative to the including
/// file and cannot interpolate; cycles are errors; an included file may
/// not name the workflow or set its timeout.
/// See docs/language.md, 'Targets, desc, allow-failure, dotenv'.
struct IncludeExpander {
    /// Texts that win over the disk, by normalized path (the language
    /// server's open buffers).
    private var overlay: [String: [UInt8]] = [:]
    private var reading = true
    private var bytes: [UInt8] = []
    private var segments: [SourceFile.Segment] = []
    private var diagnostics: [Diagnostic] = []

    /// The expanded source and the problems found (with ranges in it).
    /// Without `reading`, the include lines become comments and no file
    /// is read (what `fmt` needs: the file's own text).
    static func expand(_ source: SourceFile, overlay: [String: [UInt8]] = [:], reading: Bool = true) -> (SourceFile, [Diagnostic]) {
        guard hasInclude(source.bytes) else { return (source, []) }
        var expander = IncludeExpander()
        expander.overlay = overlay
        expander.reading = reading
        expander.append(source, includedFrom: nil, stack: [realPath(source.path) ?? source.path])
        let expanded = SourceFile(path: source.path, bytes: expander.bytes, segments: expander.segments)
        return (expanded, expander.diagnostics)
    }

    private static let keyword = Array("include".utf8)

    private static func hasInclude(_ bytes: [UInt8]) -> Bool {
        var lineStart = 0
        while lineStart < bytes.count {
            if startsInclude(bytes, at: lineStart) { return true }
            let next = LineBreaks.line(from: lineStart, in: bytes).next
            guard next < bytes.count else { break }
            lineStart = next
        }
        return false
    }

    private static func startsInclude(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard offset + keyword.count < bytes.count, bytes[offset..<(offset + keyword.count)].elementsEqual(keyword) else { return false }
        let next = bytes[offset + keyword.count]
        return next == 0x20 || next == 0x09
    }

    private mutating func append(_ file: SourceFile, includedFrom: String?, stack: [String]) {
        let source = file.bytes
        var runStart = 0
        var virtualRunStart = bytes.count
        var lineStart = 0
        var lineNumber = 1
        func closeRun(at end: Int) {
            if end > runStart {
                segments.append(
                    SourceFile.Segment(
                        start: virtualRunStart, end: virtualRunStart + (end - runStart), file: file,
                        fileOffset: runStart, includedFrom: includedFrom))
            }
        }
        while lineStart < source.count {
            let (lineEnd, next) = LineBreaks.line(from: lineStart, in: source)
            let virtualLineStart = bytes.count
            if includedFrom != nil, Self.startsWord(source, at: lineStart, "workflow") || Self.startsWord(source, at: lineStart, "timeout") {
                // Kept as a comment: the error below says why.
                bytes.append(UInt8(ascii: "#"))
                bytes += source[(lineStart + 1)..<next]
                let word = Self.startsWord(source, at: lineStart, "workflow") ? "workflow" : "timeout"
                let what = word == "workflow" ? "name the workflow" : "set the workflow's timeout"
                diagnostics.append(
                    Diagnostic(
                        .error, "an included file cannot \(what); write '\(word)' in the workflow's own file",
                        at: SourceRange(start: virtualLineStart, end: virtualLineStart + word.utf8.count)))
            } else if Self.startsInclude(source, at: lineStart) {
                // The line stays, as a comment, so that problems point at it.
                bytes.append(UInt8(ascii: "#"))
                bytes += source[(lineStart + 1)..<next]
                if next == source.count, !LineBreaks.endsWithBreak(source[...]) { bytes.append(0x0A) }
                let lineBytesEnd = next
                closeRun(at: lineBytesEnd)
                include(
                    line: Array(source[lineStart..<lineEnd]), virtualStart: virtualLineStart, from: file,
                    at: "\(file.displayPath):\(lineNumber)", stack: stack)
                runStart = next
                virtualRunStart = bytes.count
                lineStart = next
                lineNumber += 1
                continue
            } else {
                bytes += source[lineStart..<next]
            }
            lineStart = next
            lineNumber += 1
        }
        if !LineBreaks.endsWithBreak(source[...]), runStart < source.count { bytes.append(0x0A) }
        closeRun(at: source.count)
    }

    private static func startsWord(_ bytes: [UInt8], at offset: Int, _ word: String) -> Bool {
        let word = Array(word.utf8)
        guard offset + word.count < bytes.count, bytes[offset..<(offset + word.count)].elementsEqual(word) else { return false }
        let next = bytes[offset + word.count]
        return next == 0x20 || next == 0x09
    }

    /// One `include "PATH"` line: reads, checks and appends the file.
    private mutating func include(line: [UInt8], virtualStart: Int, from file: SourceFile, at place: String, stack: [String]) {
        var index = Self.keyword.count
        while index < line.count, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        let pathStart = index
        guard index < line.count, line[index] == UInt8(ascii: "\"") else {
            diagnostics.append(
                Diagnostic(
                    .error, "expected the path in double quotes after 'include': include \"lib/build.workflow\"",
                    at: SourceRange(start: virtualStart + min(index, line.count), end: virtualStart + line.count)))
            return
        }
        index += 1
        let contentStart = index
        while index < line.count, line[index] != UInt8(ascii: "\"") { index += 1 }
        let pathRange = SourceRange(start: virtualStart + pathStart, end: virtualStart + min(index + 1, line.count))
        guard index < line.count else {
            diagnostics.append(Diagnostic(.error, "the include path's '\"' is never closed", at: pathRange))
            return
        }
        let path = String(decoding: line[contentStart..<index], as: UTF8.self)
        var rest = line[(index + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
        if let first = rest.first, first != UInt8(ascii: "#") {
            rest = rest.prefix { $0 != 0x23 }
            diagnostics.append(
                Diagnostic(
                    .error, "unexpected text after the include path",
                    at: SourceRange(
                        start: virtualStart + line.count - line[(index + 1)...].drop { $0 == 0x20 || $0 == 0x09 }.count,
                        end: virtualStart + line.count)))
            return
        }
        if path.contains("{{") || path.contains("\\\\") {
            diagnostics.append(Diagnostic(.error, "an include path is read before anything runs: it cannot use '{{ }}' or escapes", at: pathRange))
            return
        }
        guard !path.isEmpty else {
            diagnostics.append(Diagnostic(.error, "the include path is empty", at: pathRange))
            return
        }
        let folder =
            file.path == "-"
            ? ""
            : String(
                file.path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
                    .joined(separator: "/"))
        let resolved = path.hasPrefix("/") || folder.isEmpty ? path : folder + "/" + path
        guard reading else { return }
        let real = Self.realPath(resolved) ?? resolved
        if let cycleStart = stack.firstIndex(of: real) {
            let chain = (stack[cycleStart...] + [real]).map { $0.split(separator: "/").last.map(String.init) ?? $0 }
            diagnostics.append(Diagnostic(.error, "include cycle: \(chain.joined(separator: " → "))", at: pathRange))
            return
        }
        if let held = overlay[Paths.normalized(resolved)] {
            append(SourceFile(path: resolved, bytes: held), includedFrom: place, stack: stack + [real])
            return
        }
        switch FileSystem.readBytes(resolved) {
        case .failure(let error):
            diagnostics.append(
                Diagnostic(
                    .error, "cannot include '\(path)': \(error.reason) (the path is relative to \(file.displayPath))",
                    at: pathRange))
        case .success(let bytes):
            append(SourceFile(path: resolved, bytes: bytes), includedFrom: place, stack: stack + [real])
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else {
            DependencyJournal.shared.noteResolved(path, nil)
            return nil
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        DependencyJournal.shared.noteResolved(path, real)
        return real
    }
}
