import Glibc

/// Signal names for messages: `SIGKILL`.
enum SignalNames {
    static func name(of signal: Int) -> String {
        switch Int32(signal) {
        case SIGHUP: return "SIGHUP"
        case SIGINT: return "SIGINT"
        case SIGQUIT: return "SIGQUIT"
        case SIGILL: return "SIGILL"
        case SIGTRAP: return "SIGTRAP"
        case SIGABRT: return "SIGABRT"
        case SIGBUS: return "SIGBUS"
        case SIGFPE: return "SIGFPE"
        case SIGKILL: return "SIGKILL"
        case SIGUSR1: return "SIGUSR1"
        case SIGSEGV: return "SIGSEGV"
        case SIGUSR2: return "SIGUSR2"
        case SIGPIPE: return "SIGPIPE"
        case SIGALRM: return "SIGALRM"
        case SIGTERM: return "SIGTERM"
        case SIGXCPU: return "SIGXCPU"
        case SIGXFSZ: return "SIGXFSZ"
        default: return "signal \(signal)"
        }
    }
}
