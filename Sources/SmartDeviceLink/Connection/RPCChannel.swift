/// What managers need from a connection: typed requests and typed notification streams.
///
/// ``SDLConnection`` is the real one; a manager written against this seam can be driven by
/// a test double, and several managers can share one connection.
public protocol RPCChannel: Sendable {
    /// Sends a request and returns its response (unsuccessful responses are values too).
    func send<Request: RPCRequest>(_ request: Request, timeout: Duration?) async throws(SDLError) -> Request.Response
    /// Notifications of one kind from now on.
    func notifications<Notification: RPCNotification>(_ type: Notification.Type) async -> AsyncStream<Notification>
    /// After a request failed because the link dropped: waits until the app is registered
    /// again on a new link (true), or until that will not happen (false, with the reason).
    /// A single connection never comes back; ``SDLManager`` reconnects by its policy.
    func waitForReconnection() async -> LinkRecovery
    /// Where a task that sends request after request through this channel runs without a
    /// thread hop per response (see ``SDLConnection/linkExecutor``); nil when the link has
    /// no such place. Managers run their request loops there.
    var linkExecutor: (any TaskExecutor)? { get async }
}

/// Whether a dropped link came back, from ``RPCChannel/waitForReconnection()``.
public enum LinkRecovery: Sendable, Equatable {
    /// Registered again on a new link; requests can go out.
    case reconnected
    /// The link will not come back; the reason says why (reconnecting off, the policy gave up, stopped).
    case gaveUp(String)
}

extension RPCChannel {
    public func waitForReconnection() async -> LinkRecovery {
        .gaveUp("this channel does not reconnect")
    }

    public var linkExecutor: (any TaskExecutor)? {
        get async { nil }
    }
}

extension SDLError {
    /// Whether the link failed (as opposed to the head unit answering, or a bad request):
    /// the errors after which a reconnect can help.
    public var isLinkFailure: Bool {
        switch self {
        case .transport, .connectionLost, .notConnected: return true
        default: return false
        }
    }
}

extension SDLConnection: RPCChannel, RequestSubmitting {}
