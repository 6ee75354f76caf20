import Foundation
import SDLEmulator
import SmartDeviceLink
import Testing

/// Uploads over a link that stays up but loses or damages what it carries, as a noisy
/// serial line does: the upload finds where the head unit is and goes on, without a reconnect.
@Suite("An upload through a lossy link")
struct LossyLinkUploadTests {
    /// What the line does to the PutFile with this index (0 is the first chunk sent).
    enum Damage: Sendable, CustomTestStringConvertible {
        /// The request never arrives.
        case dropRequest(Int)
        /// A byte of the chunk's data is changed on the way (the head unit answers CORRUPTED_DATA).
        case corruptRequest(Int)
        /// A burst of line noise arrives just before the request.
        case noiseBefore(Int)
        /// The head unit's answer to it never arrives (the chunk was written).
        case dropAnswer(Int)

        var testDescription: String {
            switch self {
            case .dropRequest(let n): "request \(n) lost"
            case .corruptRequest(let n): "request \(n) corrupted"
            case .noiseBefore(let n): "noise before request \(n)"
            case .dropAnswer(let n): "answer \(n) lost"
            }
        }
    }

    /// The app's end of a memory link with `damage` done to what crosses it.
    final class LossyLink: SDLTransport {
        let description = "lossy line"
        var kind: TransportKind { .memory }
        private let app: MemoryTransport
        private let damage: @Sendable (_ sent: Int) -> [Damage]
        private let requests = Locked(0)
        private let answers = Locked(0)

        init(_ app: MemoryTransport, damage: @escaping @Sendable (Int) -> [Damage]) {
            self.app = app
            self.damage = damage
        }

        var incoming: AsyncThrowingStream<[UInt8], any Error> {
            let upstream = app.incoming
            let damage = damage, answers = answers
            return AsyncThrowingStream { continuation in
                let relay = Task {
                    do {
                        for try await bytes in upstream {
                            if LossyLinkUploadTests.contains(bytes, "File was downloaded") {
                                let index = answers.withLock { count in defer { count += 1 }; return count }
                                if damage(index).contains(where: { if case .dropAnswer = $0 { true } else { false } }) { continue }
                            }
                            continuation.yield(bytes)
                        }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in relay.cancel() }
            }
        }

        func open() async throws(TransportError) { try await app.open() }
        func close() async { await app.close() }

        /// The link's writer joins what was queued together: damage is done to each frame.
        func send(_ bytes: [UInt8]) async throws(TransportError) {
            for frame in Self.frames(in: bytes) { try await sendFrame(frame) }
        }

        /// `bytes` cut at frame boundaries (protocol 2 and later: a 12-byte header whose
        /// bytes 4-7 give the payload's size).
        static func frames(in bytes: [UInt8]) -> [[UInt8]] {
            var frames: [[UInt8]] = []
            var start = 0
            while start < bytes.count {
                guard start + 12 <= bytes.count else { frames.append(Array(bytes[start...])); break }
                let size = bytes[(start + 4)..<(start + 8)].reduce(0) { $0 << 8 | Int($1) }
                let end = min(start + 12 + size, bytes.count)
                frames.append(Array(bytes[start..<end]))
                start = end
            }
            return frames
        }

        private func sendFrame(_ bytes: [UInt8]) async throws(TransportError) {
            guard LossyLinkUploadTests.contains(bytes, "syncFileName") else { return try await app.send(bytes) }
            let index = requests.withLock { count in defer { count += 1 }; return count }
            var bytes = bytes
            for damage in damage(index) {
                switch damage {
                case .dropRequest: return
                case .corruptRequest: bytes[bytes.count - 100] ^= 0x5A
                case .noiseBefore: try await app.send((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
                case .dropAnswer: break
                }
            }
            try await app.send(bytes)
        }
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        occurrences(of: text, in: bytes) > 0
    }

    static func occurrences(of text: String, in bytes: [UInt8]) -> Int {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return 0 }
        return (0...(bytes.count - needle.count)).count { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// An app registered with an emulator storing in `directory`, over a lossy link.
    static func registered(_ appID: String, directory: String, damage: @escaping @Sendable (Int) -> [Damage])
        async throws -> SDLManager {
        var headUnitConfiguration = EmulatorConfiguration.standard
        headUnitConfiguration.storageDirectory = directory
        let emulator = HeadUnitEmulator(configuration: headUnitConfiguration)
        var app = SDLConfiguration(appName: "Lossy", appID: appID, transports: [TransportChoice("lossy") {
            let (app, headUnit) = MemoryTransport.pair()
            Task { await emulator.serve(headUnit) }
            return LossyLink(app, damage: damage)
        }], reconnect: ReconnectPolicy(maximumAttempts: 0), registrationTimeout: .seconds(30), requestTimeout: .seconds(2))
        app.lockScreen.fetchIcon = false
        let manager = SDLManager(configuration: app)
        try await manager.start()
        await manager.fileManager.setChunkSize(10_000)
        return manager
    }

    @Test("a chunk lost, damaged, or preceded by noise, or its answer lost: the file arrives identical over the same link",
          arguments: [[Damage.dropRequest(3)], [.corruptRequest(5)], [.noiseBefore(2)], [.dropAnswer(4)],
                      [.dropRequest(0)], [.dropAnswer(9)], [.noiseBefore(1), .corruptRequest(6), .dropAnswer(8)]])
    func survives(damage: [Damage]) async throws {
        let directory = NSTemporaryDirectory() + "sdl-lossy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Each damage once: a chunk sent again is a later request, and goes through.
        let manager = try await Self.registered("lossy-1", directory: directory) { index in
            damage.filter {
                switch $0 {
                case .dropRequest(let n), .corruptRequest(let n), .noiseBefore(let n), .dropAnswer(let n): n == index
                }
            }
        }
        let content = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try await manager.fileManager.upload(SDLFile(name: "noisy.bin", source: .data(content), fileType: .binary))
        let stored = try Data(contentsOf: URL(fileURLWithPath: directory + "/lossy-1/noisy.bin"))
        #expect(Array(stored) == content)
        #expect(await manager.state == .ready, "the link held: no reconnect")
        await manager.stop()
    }

    @Test("a line that loses every chunk from some offset on: the upload ends after four tries there, saying so and what was acknowledged")
    func givesUp() async throws {
        let directory = NSTemporaryDirectory() + "sdl-lossy-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let manager = try await Self.registered("lossy-2", directory: directory) { index in index >= 3 ? [.dropRequest(index)] : [] }
        let content = [UInt8](repeating: 9, count: 100_000)
        await #expect {
            try await manager.fileManager.upload(SDLFile(name: "lost.bin", source: .data(content), fileType: .binary))
        } throws: { error in
            guard case FileUploadError.interrupted(let name, let acknowledged, let reason) = error else { return false }
            return name == "lost.bin" && acknowledged == 30_000 && reason.contains("did not get through in 4 tries")
                && !"\(error)".contains("\n")
        }
        #expect(await manager.state == .ready)
        await manager.stop()
    }
}
