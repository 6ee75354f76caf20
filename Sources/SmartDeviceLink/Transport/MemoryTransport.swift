
/// One end of an in-memory link: what one end sends, the other receives.
///
/// The embedded emulator and tests use it to run the full protocol stack with no socket.
/// Chunks arrive exactly as sent; use ``MemoryTransport/pair(chunkSize:)`` with a chunk
/// size to split them the way a real link might.
public final class MemoryTransport: SDLTransport {
    public let description: String
    /// Always ``TransportKind/memory``.
    public var kind: TransportKind { .memory }
    public let incoming: AsyncThrowingStream<[UInt8], any Error>

    private let inbox: AsyncThrowingStream<[UInt8], any Error>.Continuation
    /// The other end's inbox, nil once either end closed.
    private let peer = Locked<MemoryTransport?>(nil)
    private let chunkSize: Int?

    private init(description: String, chunkSize: Int?) {
        self.description = description
        self.chunkSize = chunkSize
        (incoming, inbox) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    }

    /// Two connected ends. `chunkSize` splits every send into reads of at most that size.
    public static func pair(chunkSize: Int? = nil) -> (app: MemoryTransport, headUnit: MemoryTransport) {
        let app = MemoryTransport(description: "memory (app end)", chunkSize: chunkSize)
        let headUnit = MemoryTransport(description: "memory (head-unit end)", chunkSize: chunkSize)
        app.peer.withLock { $0 = headUnit }
        headUnit.peer.withLock { $0 = app }
        return (app, headUnit)
    }

    public func open() async throws(TransportError) {}

    public func send(_ bytes: [UInt8]) async throws(TransportError) {
        guard let other = peer.withLock({ $0 }) else { throw TransportError.closed("\(description) is closed") }
        if let chunkSize, chunkSize > 0 {
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + chunkSize, bytes.count)
                other.inbox.yield(Array(bytes[offset..<end]))
                offset = end
            }
        } else {
            other.inbox.yield(bytes)
        }
    }

    /// Closes both ends: each end's `incoming` finishes, as a dropped link would.
    public func close() async {
        let other = peer.withLock { peer in
            defer { peer = nil }
            return peer
        }
        inbox.finish()
        if let other {
            other.peer.withLock { $0 = nil }
            other.inbox.finish()
        }
    }
}
