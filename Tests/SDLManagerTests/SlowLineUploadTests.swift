import Foundation
import SDLEmulator
import SmartDeviceLink
import Testing

/// An upload on a line far slower than its window: four chunks in flight take longer to
/// cross than a request's time limit, as 128 KB chunks do on a UART at 115,200 baud.
@Suite("An upload over a slow line")
struct SlowLineUploadTests {
    /// The app's end of a memory link that carries `bytesPerSecond` and says so, and counts
    /// the PutFiles it carries.
    final class SlowLine: SDLTransport {
        let description = "slow line"
        var kind: TransportKind { .serial }
        let bytesPerSecond: Int?
        private let app: MemoryTransport
        private let chunks = Locked(0)

        init(_ app: MemoryTransport, bytesPerSecond: Int) {
            self.app = app
            self.bytesPerSecond = bytesPerSecond
        }

        var incoming: AsyncThrowingStream<[UInt8], any Error> { app.incoming }
        var chunksSent: Int { chunks.withLock { $0 } }
        func open() async throws(TransportError) { try await app.open() }
        func close() async { await app.close() }

        func send(_ bytes: [UInt8]) async throws(TransportError) {
            // The writer joins what was queued together: count each chunk in the batch.
            let count = LossyLinkUploadTests.occurrences(of: "syncFileName", in: bytes)
            chunks.withLock { $0 += count }
            // A line carries bytes as they go, not a batch at its end: 1 KB at a time.
            let piece = 1_000
            for start in stride(from: 0, to: bytes.count, by: piece) {
                let end = min(start + piece, bytes.count)
                try? await Task.sleep(for: .seconds(Double(end - start) / Double(bytesPerSecond ?? 1)))
                try await app.send(Array(bytes[start..<end]))
            }
        }
    }

    @Test("eight 10 KB chunks at 20 KB/s with a 1 s limit: each sent once, the file identical", .timeLimit(.minutes(1)))
    func eachChunkOnce() async throws {
        let directory = NSTemporaryDirectory() + "sdl-slow-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var headUnitConfiguration = EmulatorConfiguration.standard
        headUnitConfiguration.storageDirectory = directory
        let emulator = HeadUnitEmulator(configuration: headUnitConfiguration)
        let line = Locked<SlowLine?>(nil)
        var app = SDLConfiguration(appName: "Slow", appID: "slow-1", transports: [TransportChoice("slow") {
            let (app, headUnit) = MemoryTransport.pair()
            Task { await emulator.serve(headUnit) }
            let slow = SlowLine(app, bytesPerSecond: 20_000)
            line.withLock { $0 = slow }
            return slow
        }], reconnect: ReconnectPolicy(maximumAttempts: 0), registrationTimeout: .seconds(30), requestTimeout: .seconds(1))
        app.lockScreen.fetchIcon = false
        let manager = SDLManager(configuration: app)
        try await manager.start()
        await manager.fileManager.setChunkSize(10_000)

        let content = (0..<80_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        try await manager.fileManager.upload(SDLFile(name: "slow.bin", source: .data(content), fileType: .binary))
        let stored = try Data(contentsOf: URL(fileURLWithPath: directory + "/slow-1/slow.bin"))
        #expect(Array(stored) == content)
        #expect(line.withLock { $0?.chunksSent } == 8, "a chunk timed out in the queue and was sent again")
        await manager.stop()
    }
}
