import CommandLineOptions
import PromiseEngine
import RunnerSystem
import Steps
import WorkflowLanguage
import WorkflowModel
import WorkflowRun

/// `promise-run fmt [--check] FILE...`: rewrites each file in the
/// canonical layout (atomically); `--check` rewrites nothing and exits 1
/// when a file would change, naming it. `-` formats standard input to
/// standard output (with `--check`: checks it, writing nothing else). A file with errors is left as it is (exit 2).
enum FmtCommand {
    static func run(_ options: FmtOptions) -> Int32 {
        let colored = StandardStreams.useColor(options.color)
        var status: Int32 = 0
        for file in options.files {
            let source: SourceFile
            switch SourceReader.read(file) {
            case .success(let read): source = read
            case .failure(let error):
                StandardStreams.writeError("promise-run: \(error.message)\n")
                status = 2
                continue
            }
            guard let formatted = WorkflowFormatter.format(source) else {
                let result = WorkflowCompiler.compile(source)
                if result.hasErrors {
                    StandardStreams.writeError(result.renderedDiagnostics(colored: colored))
                    StandardStreams.writeError("promise-run: \(source.displayPath) has errors; fmt left it as it is\n")
                } else {
                    StandardStreams.writeError("promise-run: \(source.displayPath) includes other files; format each of them\n")
                }
                status = 2
                continue
            }
            let original = String(decoding: source.bytes, as: UTF8.self)
            if file == "-" && !options.check {
                StandardStreams.writeOutput(formatted)
                continue
            }
            guard formatted != original else { continue }
            if options.check {
                StandardStreams.writeOutput("\(source.displayPath): not formatted\n")
                if status == 0 { status = 1 }
                continue
            }
            do {
                try AtomicFile.write(formatted, to: file, relativeTo: ProcessEnvironment.currentDirectory())
                StandardStreams.writeOutput("\(source.displayPath): formatted\n")
            } catch {
                StandardStreams.writeError("promise-run: cannot write \(file): \(error)\n")
                status = 2
            }
        }
        return status
    }
}
