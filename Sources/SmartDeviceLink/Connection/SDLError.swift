/// Everything that can go wrong between the app and the head unit, each with a message that
/// says what happened and what to do.
public enum SDLError: Error, Sendable, CustomStringConvertible {
    /// The link failed or could not be opened.
    case transport(TransportError)
    /// The head unit refused the RPC session (StartServiceNAK) or its protocol version.
    case sessionRejected(reason: String, rejectedParams: [String])
    /// No StartServiceACK arrived in time.
    case startTimedOut(seconds: Double)
    /// No StartServiceACK arrived in time, and what did arrive was not SDL frames: `firstProblem`
    /// says why the first of them was not (most likely another service listens there).
    case notSDL(seconds: Double, droppedBytes: Int, firstProblem: String)
    /// No response arrived in time for a request.
    case requestTimedOut(function: String, correlationID: Int32, seconds: Double)
    /// The link was lost while the request was pending.
    case connectionLost(String)
    /// The session is not (or no longer) started.
    case notConnected
    /// A request breaks the RPC spec (missing parameter, out of range...); nothing was sent.
    case invalidRequest(String)
    /// The head unit's answer does not fit the spec.
    case invalidResponse(String)
    /// The thrown form of an unsuccessful response, for callers that prefer `try`.
    case unsuccessfulResponse(function: String, resultCode: String, info: String?)
    /// The task waiting for the response was cancelled; the request no longer waits.
    case cancelled(function: String)
    /// A service could not be started protected: the head unit's refusal, with what its
    /// security manager or this app's TLS said about the handshake.
    case protectionFailed(service: String, reason: String)

    public var description: String {
        switch self {
        case .transport(let error):
            return error.description
        case .sessionRejected(let reason, let params):
            let detail = params.isEmpty ? "" : " (rejected parameters: \(params.joined(separator: ", ")))"
            return "the head unit refused the session: \(reason)\(detail)"
        case .startTimedOut(let seconds):
            return "no answer to StartService within \(seconds.formatted2) s: is this an SDL head unit, and is its HMI up?"
        case .notSDL(let seconds, let dropped, let problem):
            return "no answer to StartService within \(seconds.formatted2) s, and the \(dropped) bytes that came are not SDL (\(problem)): "
                + "is this the head unit's SDL port?"
        case .requestTimedOut(let function, let correlationID, let seconds):
            return "\(function) (correlation id \(correlationID)) got no response within \(seconds.formatted2) s"
        case .connectionLost(let why):
            return "connection lost: \(why)"
        case .notConnected:
            return "not connected: start the connection (and register the app) first"
        case .invalidRequest(let why):
            return "invalid request, not sent: \(why)"
        case .invalidResponse(let why):
            return "invalid message from the head unit: \(why)"
        case .unsuccessfulResponse(let function, let resultCode, let info):
            let why = resultCode == "ENCRYPTION_NEEDED"
                ? " (the head unit's policy requires it encrypted: protect the RPC service, SDLConfiguration.security)" : ""
            return "\(function) failed with \(resultCode)" + (info.map { ": \($0)" } ?? "") + why
        case .cancelled(let function):
            return "\(function) was cancelled before its response arrived"
        case .protectionFailed(let service, let reason):
            return "\(service) could not be protected: \(reason)"
        }
    }
}
