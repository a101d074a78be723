import Foundation
import Synchronization
import Testing

/// The example workflows' HTTP server (Tests/Fixtures/example-server.py)
/// on 127.0.0.1, started once per test process; it exits with the tests.
enum ExampleServer {
    private static let base = Mutex<String?>(nil)

    /// `http://127.0.0.1:PORT`, starting the server on first use.
    static func url() throws -> String {
        try base.withLock { base in
            if let base { return base }
            let started = try start()
            base = started
            return started
        }
    }

    private static func start() throws -> String {
        let script = Binary.packageRoot.appendingPathComponent("Tests/Fixtures/example-server.py").path
        let folder = try Binary.temporaryFolder()
        let portFile = folder.appendingPathComponent("port").path
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, portFile]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                return "http://127.0.0.1:\(port)"
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw ServerError(message: "the example server did not start (python3 \(script))")
    }

    struct ServerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// A free loopback TCP port (bound to port 0, then released).
func freeLoopbackPort() -> Int {
    let (descriptor, port) = loopbackSocket()
    close(descriptor)
    return port
}

/// A TCP socket bound to 127.0.0.1 on a port the system chose, and the
/// port; the caller closes it (or listens on it first).
func loopbackSocket() -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}
