/// Why a manager (screen, buttons, vehicle data, audio pass-thru, phone and navigation)
/// could not do what it was asked.
public enum ManagerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The head unit answered a request with a failure.
    case refused(function: String, resultCode: ResultCode, info: String?)
    /// The link failed or the app is not registered.
    case link(String)
    /// The request breaks a rule the head unit enforces; nothing was sent.
    case invalid(String)
    /// The head unit lacks what this needs (a capability it reports as absent).
    case unsupported(String)

    public var description: String {
        switch self {
        case .refused(let function, let code, let info):
            return "\(function) failed with \(code)" + (info.map { ": \($0)" } ?? "")
        case .link(let why): return why
        case .invalid(let why): return "not sent: \(why)"
        case .unsupported(let why): return "the head unit does not support this: \(why)"
        }
    }

    /// A request the spec refuses was never sent: that is the caller's to fix, not the link.
    init(_ error: SDLError) {
        if case .invalidRequest(let why) = error {
            self = .invalid(why)
        } else {
            self = .link(error.description)
        }
    }
}

extension RPCChannel {
    /// Sends a request for a manager: a failed link becomes ``ManagerError/link(_:)``.
    func managedSend<Request: RPCRequest>(_ request: Request) async throws(ManagerError) -> Request.Response {
        do {
            return try await send(request, timeout: nil)
        } catch {
            throw ManagerError(error)
        }
    }

    /// Sends a request and throws the head unit's refusal; `accepted` result codes count
    /// as success too (IGNORED for a subscription that already exists, say).
    @discardableResult
    func expectSuccess<Request: RPCRequest>(_ request: Request, accepting accepted: Set<ResultCode> = []) async throws(ManagerError) -> Request.Response {
        let response = try await managedSend(request)
        guard response.success || accepted.contains(response.resultCode) else {
            throw .refused(function: Request.functionName, resultCode: response.resultCode, info: response.info)
        }
        return response
    }

    /// Calls `handle` with every notification of one kind for as long as `owner` lives.
    func forEach<Notification: RPCNotification, Owner: AnyObject & Sendable>(
        _ type: Notification.Type, on owner: Owner, _ handle: @escaping @Sendable (Owner, Notification) async -> Void
    ) async {
        let stream = await notifications(type)
        Task { [weak owner] in
            for await notification in stream {
                guard let owner else { return }
                await handle(owner, notification)
            }
        }
    }
}
