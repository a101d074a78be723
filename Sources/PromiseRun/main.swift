#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Thin: hand off to the nonisolated entry point at once, exit with its code.
let code = await Entry.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
