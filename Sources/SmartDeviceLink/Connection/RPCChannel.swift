/// What managers need from a connection: typed requests and typed notification streams.
///
/// ``SDLConnection`` is the real one; a manager written against this seam can be driven by
/// a test double, and several managers can share one connection.
public protocol RPCChannel: Sendable {
    /// Sends a request and returns its response (unsuccessful responses are values too).
    func send<Request: RPCRequest>(_ request: Request, timeout: Duration?) async throws(SDLError) -> Request.Response
    /// Notifications of one kind from now on.
    func notifications<Notification: RPCNotification>(_ type: Notification.Type) async -> AsyncStream<Notification>
}

extension SDLConnection: RPCChannel {}
