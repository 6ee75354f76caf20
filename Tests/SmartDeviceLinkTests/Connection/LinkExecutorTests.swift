import Foundation
@testable import SmartDeviceLink
import Testing

/// `linkExecutor`: a task that prefers it gets its responses on the link's reader thread,
/// and the file manager runs its uploads there.
@Suite("linkExecutor: requests answered on the reader thread")
struct LinkExecutorTests {
    /// A connection over loopback TCP to a head unit that answers every request with SUCCESS,
    /// and only once the connection's actor is free: a response read while the caller still
    /// held the actor would be taken in on the caller's thread, and the test would say nothing
    /// about where a response is taken in otherwise.
    static func connected() async throws -> (SDLConnection, putFiles: Locked<[[UInt8]]>, stop: @Sendable () async -> Void) {
        let link = try await LoopbackLink.make()
        let (listener, app, headUnitEnd) = (link.listener, link.app, link.headUnit)
        try await headUnitEnd.open()
        let connection = SDLConnection(transport: app)
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
                    case .message(let session, _, let payload):
                        let request = try RPCPacket(decoding: payload)
                        if request.functionID == PutFile.functionID { putFiles.withLock { $0.append(request.bulkData) } }
                        // Waits until the caller has let the actor go, in a task of its own, which
                        // has surely let it go too once it ended. Read here, this task might still
                        // be on the actor while it answers; the reader, finding the actor taken,
                        // hands the caller to the pool (all 20 requests, once in nine full runs).
                        _ = await Task { await connection.state }.value
                        let answer = RPCPacket(messageType: .response, functionID: request.functionID, correlationID: request.correlationID,
                                               json: Array(#"{"success":true,"resultCode":"SUCCESS"}"#.utf8))
                        for case .send(let bytes) in try machine.send(answer, sessionID: session, now: .now) { try await headUnitEnd.send(bytes) }
                    default:
                        continue
                    }
                }
            }
        }
        try await connection.start()
        return (connection, putFiles, {
            await connection.stop()
            serving.cancel()
            listener.close()
        })
    }

    /// The name of the thread running the caller ("sdl-read …" for a socket's reader).
    static func threadName() -> String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
    }

    @Test("a caller on linkExecutor goes on from each response on the reader thread", .timeLimit(.minutes(1)))
    func callerResumesOnReaderThread() async throws {
        let (connection, _, stop) = try await Self.connected()
        let executor = try #require(connection.linkExecutor, "a TCP connection has a reader thread")
        let threads = try await withTaskExecutorPreference(executor) {
            var threads: [String] = []
            for index in 0..<20 {
                _ = try await connection.send(Show(mainField1: "\(index)"))
                threads.append(Self.threadName())
            }
            return threads
        }
        #expect(threads.allSatisfy { $0.hasPrefix("sdl-read") }, "resumed on \(Set(threads))")
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
        // Which executor the upload prefers, seen from its progress. (Which thread each answer
        // lands on is the runtime's choice and the first test's subject: under load a thread
        // still letting an actor go takes the job, which is allowed.)
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
