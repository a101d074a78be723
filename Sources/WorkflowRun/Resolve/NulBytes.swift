import WorkflowModel

/// What a step hands to the system as C strings: a process's command,
/// arguments, folder and the environment the workflow gives it; a file
/// step's paths; an http step's `save`, `body file`, multipart files and
/// TLS files. A NUL byte (from an interpolated value: a program's output,
/// a file read) would cut such a text short there, and the step would act
/// on another path, argument or value than the one written; the step
/// fails instead, before it starts. (An http header is refused as it is
/// built, `HTTPRequestBuilder`; a URL sends it as `%00`.)
enum NulBytes {
    /// The failure for the first text of `step`, its `folder` or the
    /// `environment` the workflow gives it that holds a NUL; nil when none
    /// does.
    static func failure(in step: borrowing ResolvedStep, folder: String, environment: [String: String], id: String) -> RunError? {
        let what: String
        let kind: FailureKind
        switch step {
        case .shell(let command, _):
            kind = .spawn
            guard let found = holdsNul(command) ? "the command" : processPart(folder, environment) else { return nil }
            what = "sh: " + found
        case .exec(let arguments, _):
            kind = .spawn
            let argument = arguments.firstIndex(where: holdsNul).map { $0 == 0 ? "the program" : "argument \($0)" }
            guard let found = argument ?? processPart(folder, environment) else { return nil }
            what = "exec: " + found
        case .file(let operation):
            kind = .file
            // `write` and `append` take a path and a content (any bytes).
            let paths = operation.name == "write" || operation.name == "append" ? [operation.operands[0]] : operation.operands
            guard paths.contains(where: holdsNul) else { return nil }
            what = "file \(operation.name): the path"
        case .http(let request):
            kind = .file
            guard let found = httpPath(request) else { return nil }
            what = "http: the \(found) path"
        case .sleep, .log, .fail, .rethrow:
            return nil
        }
        return RunError(
            stepID: id, kind: kind,
            message: "\(what) holds a NUL byte (\\0) from an interpolated value, "
                + "which would cut it short there; the step was not started")
    }

    /// The folder, or the variable of the environment, that holds a NUL.
    private static func processPart(_ folder: String, _ environment: [String: String]) -> String? {
        if holdsNul(folder) { return "the folder (cwd)" }
        guard let entry = environment.first(where: { holdsNul($0.key) || holdsNul($0.value) }) else { return nil }
        return "env \(entry.key.prefix { $0 != "\0" })"
    }

    /// Which of an http step's files holds a NUL. Inlined: the request
    /// handed to a call is a copy of it (a dozen retains), its fields read
    /// where it is bound are not.
    @inline(__always)
    private static func httpPath(_ request: borrowing ResolvedHTTPRequest) -> String? {
        if let save = request.save, holdsNul(save) { return "save" }
        switch request.body {
        case .file(let path) where holdsNul(path): return "body file"
        case .multipart(let parts):
            for part in parts {
                if case .file(let path, _) = part.content, holdsNul(path) { return "multipart file" }
            }
        default: break
        }
        let tls = request.tls
        guard !tls.isEmpty else { return nil }
        for (name, path) in [("cacert", tls.caCertificate), ("cert", tls.certificate), ("key", tls.key)] where path.map(holdsNul) ?? false {
            return name
        }
        return nil
    }

    private static func holdsNul(_ text: String) -> Bool {
        text.utf8.contains(0)
    }
}
