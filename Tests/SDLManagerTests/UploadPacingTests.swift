import Foundation
import SDLEmulator
import SDLTestSupport
import SmartDeviceLink
import Testing

/// A head unit that holds every PutFile's answer until the test releases it. Like
/// SDLConnection, it takes requests in their ticket's order (the upload's chunks run as
/// concurrent tasks; without the gate their arrival order is the scheduler's).
actor HoldingChannel: RPCChannel {
    private(set) var offsets: [Int] = []
    private var held: [CheckedContinuation<Void, Never>] = []
    private var arrivalWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

    nonisolated func send<Request: RPCRequest>(_ request: Request, timeout: Duration?) async throws(SDLError) -> Request.Response {
        let ticket = OrderedSubmission.current
        if let ticket { await ticket.gate.waitForTurn(ticket.index) }
        await hold((request as? PutFile)?.offset ?? -1, ticket: ticket)
        do {
            return try Request.Response(json: ["success": true, "resultCode": "SUCCESS"], path: "$")
        } catch {
            throw SDLError.invalidRequest("\(error)")
        }
    }

    private func hold(_ offset: Int, ticket: OrderedSubmission?) async {
        offsets.append(offset)
        if let ticket { ticket.gate.finished(ticket.index) }
        for (count, waiter) in arrivalWaiters where offsets.count >= count { waiter.resume() }
        arrivalWaiters.removeAll { offsets.count >= $0.0 }
        await withCheckedContinuation { held.append($0) }
    }

    /// Returns once `count` requests arrived, or after 10 s (the test's expectations then
    /// fail with what did arrive, instead of the run hanging).
    func waitForArrivals(_ count: Int) async {
        guard offsets.count < count else { return }
        let timer = Task {
            try? await Task.sleep(for: .seconds(10))
            self.giveUpWaiting(for: count)
        }
        defer { timer.cancel() }
        await withCheckedContinuation { arrivalWaiters.append((count, $0)) }
    }

    private func giveUpWaiting(for count: Int) {
        for (wanted, waiter) in arrivalWaiters where wanted == count { waiter.resume() }
        arrivalWaiters.removeAll { $0.0 == count }
    }

    /// Answers the oldest held request.
    func answerOne() { if !held.isEmpty { held.removeFirst().resume() } }
    var heldCount: Int { held.count }

    nonisolated func notifications<Notification: RPCNotification>(_ type: Notification.Type) async -> AsyncStream<Notification> {
        AsyncStream { $0.finish() }
    }
    nonisolated func waitForReconnection() async -> LinkRecovery { .gaveUp("a test channel") }
}

@Suite("Upload pacing: a window of chunks in flight, and a rate under the flood limit")
struct UploadPacingTests {
    @Test("four chunks go out before the first answer, in offset order; each answer lets one more go")
    func window() async throws {
        let channel = HoldingChannel()
        let files = SDLFileManager(channel: channel, chunkSize: 100, pacing: UploadPacing(window: 4, maximumRequestsPerSecond: nil))
        let upload = Task { try await files.upload(SDLFile(name: "w.bin", source: .data([UInt8](repeating: 7, count: 1000)), fileType: .binary)) }
        await channel.waitForArrivals(4)
        #expect(await channel.offsets == [0, 100, 200, 300])
        await channel.answerOne()
        await channel.waitForArrivals(5)
        #expect(await channel.offsets == [0, 100, 200, 300, 400])
        #expect(await channel.heldCount <= 4)
        // One answer per chunk as it arrives: the n-th waits until n were sent.
        for count in 2...10 {
            await channel.waitForArrivals(count)
            await channel.answerOne()
        }
        try await upload.value
        #expect(await channel.offsets == Array(stride(from: 0, to: 1000, by: 100)))
        #expect(await files.hasUploaded("w.bin"))
    }

    @Test("the rate cap spaces requests evenly on the injected clock: at most four a second, one every 250 ms")
    func rateCap() async throws {
        let clock = ManualClock()
        let channel = HoldingChannel()
        let files = SDLFileManager(channel: channel, chunkSize: 10, pacing: UploadPacing(window: 8, maximumRequestsPerSecond: 4),
                                   clock: LinkClock(clock))
        let upload = Task { try await files.upload(SDLFile(name: "r.bin", source: .data([UInt8](repeating: 1, count: 30)), fileType: .binary)) }
        await channel.waitForArrivals(1)
        await clock.waitForSleepers()
        #expect(await channel.offsets == [0], "the second waits for the clock")
        clock.advance(by: .milliseconds(249))
        #expect(await channel.offsets.count == 1)
        clock.advance(by: .milliseconds(1))
        await channel.waitForArrivals(2)
        await clock.waitForSleepers()
        #expect(await channel.offsets == [0, 10])
        clock.advance(by: .milliseconds(250))
        await channel.waitForArrivals(3)
        for _ in 0..<3 { await channel.answerOne() }
        try await upload.value
    }

    @Test("against a head unit with a flood limit of 60 a second: 90 unpaced chunks get the app thrown out; paced at 30 a second, the file arrives whole")
    func floodLimit() async throws {
        func upload(_ pacing: UploadPacing) async throws -> (Result<Void, any Error>, [UInt8]?) {
            let directory = NSTemporaryDirectory() + "sdl-flood-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var emulatorConfiguration = EmulatorConfiguration.standard
            emulatorConfiguration.storageDirectory = directory
            emulatorConfiguration.floodLimit = (count: 60, ms: 1000)
            let headUnit = HeadUnitEmulator(configuration: emulatorConfiguration)
            let manager = SDLManager(configuration: configuration(headUnit, appID: "flood-1") {
                $0.uploadPacing = pacing
                $0.reconnect = ReconnectPolicy(initialDelay: .milliseconds(20), maximumAttempts: 0)
            })
            try await manager.start()
            await manager.fileManager.setChunkSize(512)
            let content = (0..<(90 * 512)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let result: Result<Void, any Error>
            do {
                try await manager.fileManager.upload(SDLFile(name: "f.bin", source: .data(content), fileType: .binary))
                result = .success(())
            } catch {
                result = .failure(error)
            }
            let stored = FileManager.default.contents(atPath: directory + "/flood-1/f.bin").map(Array.init)
            await manager.stop()
            return (result, stored == content ? stored : nil)
        }
        let (unpaced, _) = try await upload(UploadPacing(window: 16, maximumRequestsPerSecond: nil))
        #expect(throws: (any Error).self) { try unpaced.get() }
        let (paced, stored) = try await upload(UploadPacing(window: 8, maximumRequestsPerSecond: 30))
        #expect(throws: Never.self) { try paced.get() }
        #expect(stored != nil, "the head unit's file is the app's")
    }
}
