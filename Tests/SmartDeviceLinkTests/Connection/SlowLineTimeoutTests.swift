import Foundation
@testable import SmartDeviceLink
import SDLTestSupport
import Synchronization
import Testing

/// Request time limits on a link that declares its rate (a serial line): the bytes queued
/// ahead of a request count on top of its limit, once, when it is queued.
@Suite("Request timeouts on a slow line")
struct SlowLineTimeoutTests {
    /// The app's end of a memory link that says it carries `bytesPerSecond`, and whose writes
    /// stop going out once `stall` is set, as on a line whose other end stopped reading.
    final class StallingLine: SDLTransport {
        let description = "stalling line"
        var kind: TransportKind { .serial }
        let bytesPerSecond: Int?
        let stall = Atomic(false)
        private let app: MemoryTransport
        private let stuck = Locked<[CheckedContinuation<Void, Never>]>([])

        init(_ app: MemoryTransport, bytesPerSecond: Int) {
            self.app = app
            self.bytesPerSecond = bytesPerSecond
        }

        var incoming: AsyncThrowingStream<[UInt8], any Error> { app.incoming }
        var stuckWriters: Int { stuck.withLock(\.count) }
        func open() async throws(TransportError) { try await app.open() }

        func send(_ bytes: [UInt8]) async throws(TransportError) {
            if stall.load(ordering: .sequentiallyConsistent) {
                await withCheckedContinuation { continuation in stuck.withLock { $0.append(continuation) } }
                throw .closed("the line was closed")
            }
            try await app.send(bytes)
        }

        func close() async {
            for writer in stuck.withLock({ stuck in defer { stuck.removeAll() }; return stuck }) { writer.resume() }
            await app.close()
        }
    }

    @Test("a request behind 5,000 stuck bytes at 1,000 B/s gets 5 s more than its 7 s, and still times out",
          .timeLimit(.minutes(1)))
    func backlogCountsOnceAndStuckWriterEnds() async throws {
        let clock = ManualClock()
        let (appEnd, headUnitEnd) = MemoryTransport.pair()
        let line = StallingLine(appEnd, bytesPerSecond: 1_000)
        let headUnit = ScriptedHeadUnit(link: headUnitEnd) { _ in nil }
        let serving = Task { await headUnit.run() }
        let connection = SDLConnection(transport: line, configuration: .init(requestTimeout: .seconds(10), clock: clock))
        try await connection.start()

        line.stall.store(true, ordering: .sequentiallyConsistent)
        let upload = Task {
            try await connection.request(functionID: 32, functionName: "PutFile", parameters: ["syncFileName": "a", "fileType": "BINARY"],
                                         bulkData: [UInt8](repeating: 1, count: 5_000), timeout: .seconds(600))
        }
        // The chunk is queued, and stuck in the writer, before the Show is sent.
        while line.stuckWriters == 0 { try await Task.sleep(for: .milliseconds(2)) }
        let show = Task { try await connection.request(functionID: 13, functionName: "Show", parameters: [:], timeout: .seconds(7)) }

        let ended = Atomic(false)
        let ending = Task { _ = await show.result; ended.store(true, ordering: .sequentiallyConsistent) }
        while !ended.load(ordering: .sequentiallyConsistent) && clock.now.offset < .seconds(60) {
            clock.advance(by: .milliseconds(500))
            try await Task.sleep(for: .milliseconds(2))
        }
        let endedOnTheClock = ended.load(ordering: .sequentiallyConsistent)
        #expect(endedOnTheClock, "a writer that never finishes kept the Show waiting 60 s")
        if !endedOnTheClock { show.cancel() }
        await ending.value
        await #expect {
            _ = try await show.value
        } throws: { error in
            // 7 s, and the line time of the chunk and the Show queued when the Show was: 5 s and a little.
            guard case SDLError.requestTimedOut("Show", _, let seconds) = error else { return false }
            return seconds > 12 && seconds < 12.5
        }
        #expect(clock.now.offset >= .seconds(12))
        upload.cancel()
        // The line goes first: a stop's EndService would wait behind the stuck write on a clock that stands still.
        await line.close()
        await connection.stop()
        serving.cancel()
    }

    @Test("a stop waiting for EndServiceACK behind a stuck write returns when the line closes", .timeLimit(.minutes(1)))
    func stopEndsWhenTheLineCloses() async throws {
        let (appEnd, headUnitEnd) = MemoryTransport.pair()
        let line = StallingLine(appEnd, bytesPerSecond: 1_000)
        let headUnit = ScriptedHeadUnit(link: headUnitEnd) { _ in nil }
        let serving = Task { await headUnit.run() }
        // A stop timeout far away, on a clock that stands still: only the line's end can end the wait.
        let connection = SDLConnection(transport: line, configuration: .init(stopTimeout: .seconds(3_600), clock: ManualClock()))
        try await connection.start()
        line.stall.store(true, ordering: .sequentiallyConsistent)
        let stopping = Task { await connection.stop() }
        while line.stuckWriters == 0 { try await Task.sleep(for: .milliseconds(2)) }
        await line.close()
        await stopping.value
        #expect(await connection.session == nil)
        serving.cancel()
    }

    @Test("a link that declares no rate (memory, CDC-ACM, RFCOMM, a pty): the limit is the request's own")
    func noRateNoExtraTime() async {
        let (appEnd, headUnitEnd) = MemoryTransport.pair()
        #expect(appEnd.bytesPerSecond == nil)
        #expect(SerialTransport(SerialPortOptions(path: "/dev/ttyUSB0", baudRate: 115_200)).bytesPerSecond == 11_520)
        #expect(SerialTransport(SerialPortOptions(path: "/dev/ttyS1", baudRate: 9_600)).bytesPerSecond == 960)
        // Links that take a baud rate and ignore it.
        for path in ["/dev/ttyACM0", "/dev/ttyGS0", "/dev/rfcomm0", "/dev/pts/4"] {
            #expect(SerialTransport(SerialPortOptions(path: path, baudRate: 115_200)).bytesPerSecond == nil, "\(path)")
        }
        #expect(LinkIO(transport: appEnd, clock: LinkClock(ContinuousClock())).lineTime() == nil)
        await appEnd.close()
        await headUnitEnd.close()
    }
}
