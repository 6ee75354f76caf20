import Logging

/// An OEM's wrapping of the policy table exchange: some head units encrypt the snapshot they
/// hand the app and expect the server's answer encrypted the same way. The library calls
/// these around the HTTP request; without one, both go through unchanged (as core sends them).
public protocol PolicyUpdateEncryption: Sendable {
    /// The OnSystemRequest PROPRIETARY bulk data as the head unit sent it → the JSON the
    /// library reads (`{"HTTPRequest": {"headers": …, "body": …}}`).
    func decrypt(_ snapshot: [UInt8]) async throws -> [UInt8]
    /// The policy server's answer → the bulk data of the SystemRequest that carries it back.
    func encrypt(_ update: [UInt8]) async throws -> [UInt8]
}

/// What the app does by itself with the head unit's OnSystemRequest, as sdl_ios's and
/// sdl_java_suite's lifecycle managers do: the policy table update and cloud app icons.
public struct SystemRequestConfiguration: Sendable {
    /// Carry policy table updates (OnSystemRequest PROPRIETARY and HTTP) to the URL the head
    /// unit names and the server's answer back (SystemRequest PROPRIETARY, or PutFile JSON
    /// for HTTP as core's HTTP policy mode reads it).
    public var policyUpdates: Bool
    /// Fetch cloud apps' icons for the head unit (OnSystemRequest ICON_URL → SystemRequest ICON_URL).
    public var cloudAppIcons: Bool
    /// An OEM's encryption of the policy exchange; nil: none.
    public var encryption: (any PolicyUpdateEncryption)?
    /// The longest an exchange may take: the head unit's ConnectTimeout + ReadTimeout when it
    /// says less, this otherwise (sdl_ios waits 45 s).
    public var timeout: Duration
    /// The largest answer accepted, in bytes.
    public var sizeLimit: Int

    /// A configuration; by default both are handled, with sdl_ios's timeout.
    public init(policyUpdates: Bool = true, cloudAppIcons: Bool = true, encryption: (any PolicyUpdateEncryption)? = nil,
                timeout: Duration = .seconds(45), sizeLimit: Int = 8 << 20) {
        self.policyUpdates = policyUpdates
        self.cloudAppIcons = cloudAppIcons
        self.encryption = encryption
        self.timeout = timeout
        self.sizeLimit = sizeLimit
    }
}

/// How one OnSystemRequest the app handled ended.
public struct SystemRequestEvent: Sendable, Hashable, CustomStringConvertible {
    /// How it ended.
    public enum Outcome: Sendable, Hashable {
        /// The server answered and the answer went to the head unit, which answered this.
        case delivered(ResultCode, info: String?)
        /// Nothing reached the head unit, for this reason (one line).
        case failed(String)
    }

    /// PROPRIETARY, HTTP or ICON_URL.
    public var requestType: RequestType
    /// The URL the head unit named.
    public var url: String
    /// How it ended.
    public var outcome: Outcome

    /// One line: what was done and how it ended.
    public var description: String {
        let what = requestType == .iconUrl ? "cloud app icon \(url)" : "policy table update via \(url)"
        switch outcome {
        case .delivered(let code, let info):
            return "\(what): the head unit answered \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .failed(let reason):
            return "\(what) failed: \(reason)"
        }
    }
}

/// Answers the head unit's OnSystemRequest that need the web (see ``SystemRequestConfiguration``):
/// each in a task of its own, so a slow server never holds the app up, and each ends in a
/// ``SystemRequestEvent``; a failure is one line and the app carries on.
public actor SystemRequestManager {
    let configuration: SystemRequestConfiguration
    let channel: any RPCChannel
    private let logger: Logger
    private var exchanges: [Int: Task<Void, Never>] = [:]
    private var nextExchange = 0
    private let observers = Broadcast<SystemRequestEvent>()

    init(configuration: SystemRequestConfiguration, channel: any RPCChannel, logger: Logger) {
        self.configuration = configuration
        self.channel = channel
        self.logger = logger
    }

    /// How the OnSystemRequest handled from now on end.
    public func events() -> AsyncStream<SystemRequestEvent> { observers.subscribe() }

    /// Stops the exchanges under way (the app stopped).
    func cancelAll() {
        for exchange in exchanges.values { exchange.cancel() }
        exchanges = [:]
    }

    /// An OnSystemRequest arrived: starts its exchange when it is one this manager handles.
    func received(_ request: OnSystemRequest) {
        let handled: Bool = switch request.requestType {
        case .proprietary, .http: configuration.policyUpdates
        case .iconUrl: configuration.cloudAppIcons
        default: false
        }
        guard handled else { return }
        let id = nextExchange
        nextExchange += 1
        exchanges[id] = Task { [weak self] in
            guard let self else { return }
            let outcome = await self.exchange(request)
            await self.finished(id, SystemRequestEvent(requestType: request.requestType, url: request.url ?? "", outcome: outcome))
        }
    }

    private func finished(_ id: Int, _ event: SystemRequestEvent) {
        exchanges[id] = nil
        guard !Task.isCancelled else { return }
        if case .failed = event.outcome { logger.warning("\(event.description)") } else { logger.info("\(event.description)") }
        observers.yield(event)
    }

    private nonisolated func exchange(_ request: OnSystemRequest) async -> SystemRequestEvent.Outcome {
        do throws(SystemRequestFailure) {
            switch request.requestType {
            case .proprietary:
                return try await deliver(SystemRequest(requestType: .proprietary, bulkData: try await proprietary(request)))
            case .http:
                // sdl_ios's form, which core's HTTP policy mode reads (a JSON PutFile goes to its policy manager).
                return try await deliver(PutFile(syncFileName: "response_data", fileType: .json, bulkData: try await http(request)))
            default:
                return try await deliver(SystemRequest(requestType: .iconUrl, fileName: request.url, bulkData: try await icon(request)))
            }
        } catch {
            return .failed(error.reason)
        }
    }
}
