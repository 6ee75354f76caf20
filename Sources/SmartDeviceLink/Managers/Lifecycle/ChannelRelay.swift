import Foundation

/// Lets managers created in SDLManager's initializer send through it without a strong cycle.
final class ChannelRelay: RequestSubmitting, @unchecked Sendable {
    // `lock` guards `target`, set once right after SDLManager's initialiser.
    private let lock = NSLock()
    private weak var target: SDLManager?

    func attach(_ manager: SDLManager) {
        lock.lock()
        target = manager
        lock.unlock()
    }

    var attached: SDLManager? { manager }

    private var manager: SDLManager? {
        lock.lock()
        defer { lock.unlock() }
        return target
    }

    func send<Request: RPCRequest>(_ request: Request, timeout: Duration?) async throws(SDLError) -> Request.Response {
        guard let manager else { throw SDLError.notConnected }
        return try await manager.send(request, timeout: timeout)
    }

    func submit(_ chunk: UploadChunk) async throws(SDLError) -> PendingResponse<PutFileResponse>? {
        guard let manager else { throw SDLError.notConnected }
        return try await manager.submit(chunk)
    }

    func answerTaken() async {
        await manager?.answerTaken()
    }

    func notifications<Notification: RPCNotification>(_ type: Notification.Type) async -> AsyncStream<Notification> {
        guard let manager else { return AsyncStream { $0.finish() } }
        return await manager.notifications(type)
    }

    var linkExecutor: (any TaskExecutor)? {
        get async { await manager?.linkExecutor }
    }

    func waitForReconnection() async -> LinkRecovery {
        guard let manager else { return .gaveUp("the manager is gone") }
        return await manager.waitForReconnection()
    }
}

