import Glibc

// Thin: the stopping signals blocked and read before anything else (the
// constructor in CRunnerStart did it already for a binary named
// promise-run), then the nonisolated entry point; exit with its code.
SignalWatcher.start()
let code = await Entry.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
