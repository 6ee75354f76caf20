#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import SmartDeviceLink
import SDLTestSupport
import Synchronization
import Testing

/// The link driver under SDLConnection: ordered writes, cancellation, closing on a stalled
/// peer, and time from an injected clock.
@Suite("Link driver: write order, cancellation, stalled peers, injected time")
struct LinkDriverTests {
    let silent: @Sendable (RPCPacket) -> JSONObject? = { _ in nil }

    func connect(
        configuration: SDLConnection.Configuration = .init(),
        respond: @escaping @Sendable (RPCPacket) -> JSONObject? = { _ in ["success": true, "resultCode": "SUCCESS"] }
    ) async throws -> (SDLConnection, ScriptedHeadUnit, Task<Void, Never>) {
        let (app, headUnitEnd) = MemoryTransport.pair()
        let headUnit = ScriptedHeadUnit(link: headUnitEnd, respond: respond)
        let task = Task { await headUnit.run() }
        let connection = SDLConnection(transport: app, configuration: configuration)
        try await connection.start()
        return (connection, headUnit, task)
    }

    @Test("requests sent concurrently reach the head unit in the order the connection took them")
    func writeOrderUnderConcurrentSends() async throws {
        let (connection, headUnit, task) = try await connect()
        let count = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    _ = try await connection.request(functionID: 13, functionName: "Show", parameters: ["mainField1": .string("\(index)")])
                }
            }
            try await group.waitForAll()
        }
        let arrived = await headUnit.requests
        #expect(arrived.count == count)
        // Correlation ids are handed out in the order the connection took the requests; the
        // bytes must leave in that order too.
        let ids = arrived.map(\.correlationID)
        #expect(ids == ids.sorted(), "requests left out of order: \(ids.prefix(20))…")
        #expect(Set(ids).count == count)
        await connection.stop()
        task.cancel()
    }

    @Test("large requests from many tasks over a real socket arrive whole and in order")
    func writeOrderOverSocket() async throws {
        let link = try await LoopbackLink.make()
        let (listener, app, headUnitEnd) = (link.listener, link.app, link.headUnit)
        let headUnit = ScriptedHeadUnit(link: headUnitEnd) { _ in ["success": true, "resultCode": "SUCCESS"] }
        try await headUnitEnd.open()
        let serving = Task { await headUnit.run() }
        let connection = SDLConnection(transport: app)
        try await connection.start()
        // 200 KiB each, several frames and partial socket writes per message.
        let bulk = [UInt8](repeating: 0xA5, count: 200 * 1024)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    _ = try await connection.request(functionID: 32, functionName: "PutFile",
                                                     parameters: ["syncFileName": .string("f\(index)"), "fileType": .string("BINARY")],
                                                     bulkData: bulk)
                }
            }
            try await group.waitForAll()
        }
        let arrived = await headUnit.requests
        #expect(arrived.map(\.correlationID) == arrived.map(\.correlationID).sorted())
        #expect(arrived.allSatisfy { Array($0.bulkData) == bulk })
        await connection.stop()
        serving.cancel()
        listener.close()
    }

    @Test("a cancelled request returns at once with .cancelled, and its late response is ignored", .timeLimit(.minutes(1)))
    func cancelledRequestReturnsAtOnce() async throws {
        // A day-long timeout: if cancelling did not end the wait, the time limit fails the test.
        let (connection, headUnit, task) = try await connect(configuration: .init(requestTimeout: .seconds(86_400)), respond: silent)
        let waiting = Task { try await connection.request(functionID: 13, functionName: "Show", parameters: [:]) }
        await headUnit.waitForRequests(1)
        waiting.cancel()
        await #expect {
            _ = try await waiting.value
        } throws: { error in
            guard case SDLError.cancelled(let function) = error else { return false }
            return function == "Show"
        }
        // The connection is still usable.
        let headUnit2Answer = Task { try await connection.request(functionID: 13, functionName: "Show", parameters: [:], timeout: .seconds(86_400)) }
        await headUnit.waitForRequests(2)
        headUnit2Answer.cancel()
        _ = try? await headUnit2Answer.value
        #expect(await connection.session != nil)
        await connection.stop()
        task.cancel()
    }

    @Test("a request already cancelled when it is made is never left pending", .timeLimit(.minutes(1)))
    func requestMadeWhileCancelled() async throws {
        let (connection, _, task) = try await connect(configuration: .init(requestTimeout: .seconds(86_400)), respond: silent)
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await connection.request(functionID: 13, functionName: "Show", parameters: [:])
        }
        await #expect(throws: SDLError.self) { _ = try await waiting.value }
        await connection.stop()
        task.cancel()
    }

    @Test("a peer that stopped reading cannot block stop(): the stuck write fails, stop returns", .timeLimit(.minutes(1)))
    func stalledPeerCannotBlockClose() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let peer = RawPeer(fd: fds[1])
        let app = StreamSocketTransport(connectedDescriptor: fds[0], description: "socketpair", kind: .tcp)
        let clock = ManualClock()
        let connection = SDLConnection(transport: app, configuration: .init(requestTimeout: .seconds(86_400), stopTimeout: .seconds(2), clock: clock))
        async let started = connection.start()
        try await peer.acceptSession()
        _ = try await started
        // The peer never reads again: 8 MiB cannot fit in the socket buffers.
        let upload = Task {
            try await connection.request(functionID: 32, functionName: "PutFile",
                                         parameters: ["syncFileName": .string("big"), "fileType": .string("BINARY")],
                                         bulkData: [UInt8](repeating: 1, count: 8 << 20))
        }
        try await peer.waitUntilBufferFull()
        let stopped = Atomic(false)
        let stopping = Task {
            await connection.stop()
            stopped.store(true, ordering: .sequentiallyConsistent)
        }
        // stop() waits for the EndServiceACK until its own deadline, on the injected clock;
        // time moves until it gives up waiting and closes the link under the stuck write.
        while !stopped.load(ordering: .sequentiallyConsistent) {
            clock.advance(by: .milliseconds(500))
            try await Task.sleep(for: .milliseconds(1))
        }
        await stopping.value
        await #expect {
            _ = try await upload.value
        } throws: { error in
            if case SDLError.connectionLost = error { return true }
            return false
        }
        peer.close()
    }

    @Test("request timeouts run on the injected clock and name the limit that request had", .timeLimit(.minutes(1)))
    func timeoutOnInjectedClock() async throws {
        let clock = ManualClock()
        let (connection, headUnit, task) = try await connect(configuration: .init(requestTimeout: .seconds(10), clock: clock), respond: silent)
        let waiting = Task { try await connection.request(functionID: 13, functionName: "Show", parameters: [:], timeout: .seconds(7)) }
        await headUnit.waitForRequests(1)
        // Time moves a second at a time until the request ends: the link's other timers sleep
        // on this clock too, so a count of sleepers does not say the request's own is armed.
        let ended = Atomic(false)
        let ending = Task { _ = await waiting.result; ended.store(true, ordering: .sequentiallyConsistent) }
        while !ended.load(ordering: .sequentiallyConsistent) && clock.now.offset < .seconds(30) {
            clock.advance(by: .seconds(1))
            try await Task.sleep(for: .milliseconds(2))
        }
        let endedOnTheClock = ended.load(ordering: .sequentiallyConsistent)
        #expect(endedOnTheClock, "the request was still waiting 30 s into its 7 s timeout")
        if !endedOnTheClock { waiting.cancel() }
        await ending.value
        #expect(clock.now.offset >= .seconds(7), "the request ended \(clock.now.offset) into a 7 s timeout")
        await #expect {
            _ = try await waiting.value
        } throws: { error in
            guard case SDLError.requestTimedOut(let function, _, let seconds) = error else { return false }
            return function == "Show" && seconds == 7
        }
        await connection.stop()
        task.cancel()
    }
}

/// The far end of a socketpair, driven by hand: it accepts the RPC session and then never
/// reads again, as a head unit that hangs would.
final class RawPeer: Sendable {
    let fd: Int32

    init(fd: Int32) { self.fd = fd }

    /// Reads the StartService and answers it with an ACK, on a thread of its own.
    func acceptSession() async throws {
        let fd = self.fd
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                var machine = HeadUnitProtocolMachine(configuration: .headUnit)
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(fd, &buffer, buffer.count)
                    guard count > 0 else { return continuation.resume(throwing: TransportError.closed("peer read \(count)")) }
                    for action in machine.receive(buffer[0..<count], now: .now) {
                        guard case .startServiceRequested(let request) = action,
                              let accepted = try? machine.acceptStartService(request, now: .now) else { continue }
                        for case .send(let bytes) in accepted { _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, bytes.count) } }
                        return continuation.resume()
                    }
                }
            }.start()
        }
    }

    /// Returns once the app has filled the socket's buffers (its writes now wait).
    func waitUntilBufferFull() async throws {
        var queued: Int32 = 0
        var lastQueued: Int32 = -1
        // The kernel's count of unread bytes stops growing once both buffers are full.
        while true {
            try await Task.sleep(for: .milliseconds(20))
            _ = ioctl(fd, UInt(FIONREAD), &queued)
            if queued > 0, queued == lastQueued { return }
            lastQueued = queued
        }
    }

    func close() { _ = Glibc.close(fd) }
}

@Suite("HostPort: the one endpoint parser")
struct HostPortTests {
    @Test("the forms people write", arguments: [
        ("127.0.0.1:12345", "127.0.0.1", 12345), ("head-unit.local", "head-unit.local", 12345),
        ("[::1]:5000", "::1", 5000), ("[fe80::1]", "fe80::1", 12345), ("9000", "127.0.0.1", 9000),
    ] as [(String, String, UInt16)])
    func parses(text: String, host: String, port: UInt16) throws {
        let address = try HostPort(parsing: text, defaultPort: 12345, defaultHost: "127.0.0.1")
        #expect(address.host == host)
        #expect(address.port == port)
    }

    @Test("what it refuses, saying what to write")
    func refuses() {
        #expect(throws: TransportError.unreachable(endpoint: "host:0", reason: "'0' is not a port number 1…65535")) {
            try HostPort(parsing: "host:0")
        }
        #expect(throws: TransportError.unreachable(endpoint: "host", reason: "no port given; write HOST:PORT, e.g. 127.0.0.1:12345")) {
            try HostPort(parsing: "host")
        }
        #expect(throws: TransportError.unreachable(endpoint: ":80", reason: "no host given; write HOST:PORT, e.g. 127.0.0.1:12345")) {
            try HostPort(parsing: ":80")
        }
        // A bare number is a port only where a default host is given.
        #expect(throws: TransportError.self) { try HostPort(parsing: "9000") }
        #expect(HostPort(host: "::1", port: 80).description == "[::1]:80")
        // Listening on port 0 lets the system pick one.
        #expect((try? HostPort(parsing: "127.0.0.1:0", listening: true))?.port == 0)
    }
}
