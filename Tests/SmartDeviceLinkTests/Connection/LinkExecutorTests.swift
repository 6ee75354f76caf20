@testable import SmartDeviceLink
import Testing

/// `linkExecutor`: a task that prefers it gets its responses on the link's reader thread,
/// and the file manager runs its uploads there.
@Suite("linkExecutor: requests answered on the reader thread")
struct LinkExecutorTests {
    /// A connection over loopback TCP to a head unit that answers every request with SUCCESS,
    /// once the connection's actor is free.
    static func connected() async throws -> (SDLConnection, putFiles: Locked<[[UInt8]]>, stop: @Sendable () async -> Void) {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let app = TCPTransport(host: "127.0.0.1", port: listener.port)
        // The connection opens the transport itself, so its link takes the socket's reads directly.
        let connection = SDLConnection(transport: app)
        let accepted = LoopbackLink.firstAccepted(on: listener)
        async let started = connection.start()
        let headUnitEnd = try #require(await accepted.value)
        try await headUnitEnd.open()
        let putFiles = Locked<[[UInt8]]>([])
        let serving = Task {
            var machine = HeadUnitProtocolMachine(configuration: .headUnit)
            for try await chunk in headUnitEnd.incoming {
                for action in machine.receive(chunk, now: .now) {
                    switch action {
                    case .send(let bytes):
                        try await headUnitEnd.send(bytes)
                    case .startServiceRequested(let request):
                        for case .send(let bytes) in try machine.acceptStartService(request, now: .now) { try await headUnitEnd.send(bytes) }
                    case .message(let session, _, let payload, _):
                        let request = try RPCPacket(decoding: payload)
                        if request.functionID == PutFile.functionID { putFiles.withLock { $0.append(Array(request.bulkData)) } }
                        _ = await connection.state  // waits until the caller has let the actor go
                        let answer = RPCPacket(messageType: .response, functionID: request.functionID, correlationID: request.correlationID,
                                               json: Array(#"{"success":true,"resultCode":"SUCCESS"}"#.utf8))
                        for case .send(let bytes) in try machine.send(answer, sessionID: session, now: .now) { try await headUnitEnd.send(bytes) }
                    default:
                        continue
                    }
                }
            }
        }
        _ = try await started
        return (connection, putFiles, {
            await connection.stop()
            serving.cancel()
            listener.close()
        })
    }

    /// What the preference guarantees: each response's continuation runs with the link's
    /// executor. Whether that is the reader thread itself is the runtime's choice: mostly, but
    /// in about one full test run in eight, under the whole suite's load, all 20 went to the
    /// pool (as this executor allows when a job is made ready elsewhere); sdl-benchmark measures it.
    @Test("a caller on linkExecutor goes on from each response with the link's executor", .timeLimit(.minutes(1)))
    func callerResumesOnLinkExecutor() async throws {
        let (connection, _, stop) = try await Self.connected()
        let executor = try #require(connection.linkExecutor, "a TCP connection has a reader thread")
        let seen = try await withTaskExecutorPreference(executor) {
            var seen: [UnownedTaskExecutor?] = []
            for index in 0..<20 {
                _ = try await connection.send(Show(mainField1: "\(index)"))
                seen.append(withUnsafeCurrentTask { $0?.unownedTaskExecutor })
            }
            return seen
        }
        #expect(seen.allSatisfy { $0 == executor.asUnownedTaskExecutor() })
        await stop()
    }

    @Test("a link without a reader thread has no linkExecutor")
    func memoryLinkHasNone() {
        let (app, _) = MemoryTransport.pair()
        #expect(SDLConnection(transport: app).linkExecutor == nil)
    }

    @Test("an upload over TCP runs on linkExecutor and arrives whole and in order", .timeLimit(.minutes(1)))
    func uploadOnLinkExecutor() async throws {
        let (connection, putFiles, stop) = try await Self.connected()
        let executor = try #require(connection.linkExecutor?.asUnownedTaskExecutor())
        let file = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let files = SDLFileManager(channel: connection, chunkSize: 32 * 1024, pacing: UploadPacing(window: 4, maximumRequestsPerSecond: nil))
        // Which executor the upload prefers, seen from its progress (which thread each answer
        // lands on is the runtime's choice, see above).
        let preferred = Locked<[UnownedTaskExecutor?]>([])
        try await files.upload(SDLFile(name: "whole.bin", source: .data(file), fileType: .binary)) { _ in
            let current = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
            preferred.withLock { $0.append(current) }
        }
        let seen = preferred.withLock { $0 }
        #expect(seen.count == 32)
        #expect(seen.allSatisfy { $0 == executor }, "the upload did not prefer the link's reader thread")
        let chunks = putFiles.withLock { $0 }
        #expect(chunks.count == 32)
        #expect(chunks.flatMap { $0 } == file)
        await stop()
    }
}
