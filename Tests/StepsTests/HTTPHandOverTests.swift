import Foundation
import Glibc
import PromiseEngine
import RunnerSystem
import Testing
import WorkflowModel

@testable import Steps

/// An http step is prepared on the calling thread and made on the event
/// loop (`HTTPClient`): one cancelled before the loop takes it up sends
/// nothing, not even a connection.
@Suite("HTTP steps: the hand-over to the loop")
struct HTTPHandOverTests {
    /// A listening socket on 127.0.0.1 that nobody serves: a connection to
    /// it waits in its queue, where `accept` finds it.
    private struct Listener {
        let fd: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, pointer, &length) == 0
                }
            }
            try #require(descriptor >= 0 && bound)
            fd = descriptor
            port = UInt16(bigEndian: address.sin_port)
        }

        /// A connection that came, looked for over `wait` (the caller closes
        /// it); nil when none did.
        func accepted(within wait: Duration) -> Int32? {
            let deadline = ContinuousClock.now + wait
            repeat {
                let accepted = accept(fd, nil, nil)
                if accepted >= 0 { return accepted }
                usleep(1000)
            } while ContinuousClock.now < deadline
            return nil
        }
    }

    @Test("cancelled while the loop is busy, before it makes the exchange: no connection, settled as cancelled")
    func cancelledBeforeTheLoopTakesItUp() async throws {
        let listener = try Listener()
        defer { close(listener.fd) }
        let runner = SystemStepRunner()
        let folder = TemporaryFolder()
        let loop = EventLoop.shared
        // The loop holds still until the request is cancelled.
        let busy = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        loop.execute {
            busy.signal()
            release.wait()
        }
        busy.wait()
        let promise = runner.run(http(.POST, "http://127.0.0.1:\(listener.port)/never", body: .text("sent?")), in: folder.context())
        promise.cancel()
        release.signal()
        #expect(await outcome(of: promise).isCancelled)
        let early = listener.accepted(within: .milliseconds(200))
        #expect(early == nil)
        if let early { close(early) }
        // The same request not cancelled connects: the listener is reachable.
        let sent = runner.run(http(.POST, "http://127.0.0.1:\(listener.port)/never", body: .text("sent")), in: folder.context())
        let connection = listener.accepted(within: .seconds(10))
        #expect(connection != nil)
        sent.cancel()
        #expect(await outcome(of: sent).isCancelled)
        if let connection { close(connection) }
    }
}
