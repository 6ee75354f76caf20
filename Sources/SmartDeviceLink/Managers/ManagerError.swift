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

    init(_ error: SDLError) { self = .link(error.description) }
}
