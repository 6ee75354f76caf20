/// Which end of the link a state machine plays.
/// Settings of a protocol machine (the app's or the head unit's side of one link).
public struct ProtocolConfiguration: Sendable {
    /// The highest version this side speaks. App: 5.4.1 (as java/ios); head unit: 5.4.0 (as core 8.2).
    public var maximumVersion: ProtocolVersion
    /// App: a head unit answering below this fails the start. This library speaks 2 to 5.4.1.
    public var minimumVersion: ProtocolVersion
    /// The payload limit per frame used before an ACK says otherwise, and what a head unit
    /// advertises as `mtu` (core fills it with its maximum payload size).
    public var maximumPayloadSize: Int
    /// App: send a Heartbeat after this much silence and treat twice that without any frame
    /// as a timeout. nil (the default, as java and ios) never starts heartbeats.
    /// Head unit: the supervision timeout applied once the app sent a Heartbeat (core: 7 s).
    public var heartbeatInterval: Duration?
    /// How long a partial multi-frame message may wait for its last frame (core: 10 s).
    public var reassemblyTimeout: Duration
    /// Head unit: values for the RPC StartServiceACK of protocol 5.1+/5.4+.
    public var secondaryTransports: [String]?
    /// Head unit: where audio may run, for the RPC StartServiceACK (1 primary, 2 secondary).
    public var audioServiceTransports: [Int32]?
    /// Head unit: where video may run, for the RPC StartServiceACK.
    public var videoServiceTransports: [Int32]?
    /// Head unit: the vehicle strings of a protocol 5.4 StartServiceACK.
    public var vehicleInfo: VehicleTypeInfo?
    /// Head unit: part of the hash id (`connection | session << 16`, as core's KeyFromPair).
    public var connectionHandle: Int32
    /// How this side protects services (TLS inside the protocol); nil for
    /// none. A head unit without it is sdl_core built without ENABLE_SECURITY: it ignores a
    /// StartService's E bit, so RPC started again is a second unprotected service (NAKed) and
    /// audio and video start unprotected. An app without it cannot answer a handshake.
    public var security: SecurityConfiguration?

    /// Head unit: whether it reads a StartService's E bit (it has a security manager).
    public var protectsServices: Bool { security != nil }

    /// Settings for either role; the head unit's defaults are ``headUnit``.
    public init(
        maximumVersion: ProtocolVersion = .latest, minimumVersion: ProtocolVersion = ProtocolVersion(2),
        maximumPayloadSize: Int = 131_072, heartbeatInterval: Duration? = nil,
        reassemblyTimeout: Duration = .seconds(10), secondaryTransports: [String]? = nil,
        audioServiceTransports: [Int32]? = nil, videoServiceTransports: [Int32]? = nil,
        vehicleInfo: VehicleTypeInfo? = nil, connectionHandle: Int32 = 1
    ) {
        self.maximumVersion = maximumVersion
        self.minimumVersion = minimumVersion
        self.maximumPayloadSize = maximumPayloadSize
        self.heartbeatInterval = heartbeatInterval
        self.reassemblyTimeout = reassemblyTimeout
        self.secondaryTransports = secondaryTransports
        self.audioServiceTransports = audioServiceTransports
        self.videoServiceTransports = videoServiceTransports
        self.vehicleInfo = vehicleInfo
        self.connectionHandle = connectionHandle
    }

    /// The defaults of a head unit that behaves like sdl_core 8.2.
    public static var headUnit: ProtocolConfiguration {
        ProtocolConfiguration(maximumVersion: .coreMaximum, minimumVersion: ProtocolVersion(1), heartbeatInterval: .seconds(7))
    }
}

/// Vehicle strings a protocol 5.4 StartServiceACK may carry.
public struct VehicleTypeInfo: Sendable, Hashable {
    /// The vehicle's make.
    public var make: String?
    /// Its model.
    public var model: String?
    /// Its model year.
    public var modelYear: String?
    /// Its trim.
    public var trim: String?
    /// The head unit's software version.
    public var systemSoftwareVersion: String?
    /// The head unit's hardware version.
    public var systemHardwareVersion: String?
    /// Vehicle strings; each may be left out.
    public init(make: String? = nil, model: String? = nil, modelYear: String? = nil, trim: String? = nil,
                systemSoftwareVersion: String? = nil, systemHardwareVersion: String? = nil) {
        self.make = make
        self.model = model
        self.modelYear = modelYear
        self.trim = trim
        self.systemSoftwareVersion = systemSoftwareVersion
        self.systemHardwareVersion = systemHardwareVersion
    }
}

/// What both sides know about a started session.
public struct SessionInfo: Sendable, Hashable {
    /// The session id the head unit gave (1–255).
    public var sessionID: UInt8
    /// The negotiated version; its major number is the header version of every frame.
    public var version: ProtocolVersion
    /// The hash id of the session, for EndService(RPC) and resumption.
    public var hashID: Int32?
    /// Payload bytes this side sends per frame at most (`mtu` − 12 when the peer gave one).
    public var maximumSendPayload: Int
    /// The peer's full StartServiceACK payload (v5), e.g. secondary transports, vehicle info.
    public var ackPayload: ControlPayload?

    /// The header version of every frame of the session.
    public var headerVersion: UInt8 { UInt8(clamping: version.major) }
}

/// A StartService the head unit must accept or reject (head-unit role).
package struct StartServiceRequest: Sendable, Hashable {
    /// 0 for a new RPC session.
    package var sessionID: UInt8
    package var serviceType: ServiceType
    package var headerVersion: UInt8
    /// For RPC: the version the app offered (nil when it sent no BSON, i.e. v1–4 style).
    package var offeredVersion: ProtocolVersion?
    package var payload: ControlPayload?
    package var isEncrypted: Bool
}

/// What the driver of a protocol machine must do or learn.
package enum ProtocolAction: Sendable, Hashable {
    /// Write these bytes to the transport.
    case send([UInt8])
    /// App: the RPC session is up. Head unit: an RPC session was accepted.
    case sessionStarted(SessionInfo)
    /// App: the head unit refused the RPC session (StartServiceNAK) or answered a version below the minimum.
    case sessionStartFailed(reason: String, rejectedParams: [String])
    /// The session and all its services ended (EndService RPC acknowledged, or ended by the peer).
    case sessionEnded(sessionID: UInt8)
    /// `protected`: the ACK carried E=1, so the service's frames are protected from now on.
    case serviceStarted(sessionID: UInt8, serviceType: ServiceType, payload: ControlPayload?, protected: Bool)
    case serviceStartFailed(sessionID: UInt8, serviceType: ServiceType, reason: String, rejectedParams: [String])
    case serviceEnded(sessionID: UInt8, serviceType: ServiceType)
    case serviceEndFailed(sessionID: UInt8, serviceType: ServiceType, rejectedParams: [String])
    /// A complete message of a data service (RPC, Hybrid, audio, video), reassembled.
    /// `protected`: its frames came with E=1 and were decrypted.
    case message(sessionID: UInt8, serviceType: ServiceType, payload: [UInt8], protected: Bool)
    /// The peer's security manager reported an error (a security query's internal error), or
    /// this side's TLS failed; the handshake of the session is over.
    case securityFailed(sessionID: UInt8, SecurityFailure)
    /// Head unit: decide with the machine's `acceptStartService` or `rejectStartService`.
    case startServiceRequested(StartServiceRequest)
    /// Head unit: the app asked to register this link as its secondary transport.
    case secondaryTransportRequested(sessionID: UInt8)
    /// App: the head unit announced (or withdrew, with an empty address) its TCP secondary.
    case transportEventUpdate(address: String?, port: Int32?)
    case secondaryTransportRegistered(sessionID: UInt8)
    case secondaryTransportRejected(sessionID: UInt8, reason: String?)
    /// Nothing arrived for too long: close the link.
    case heartbeatTimedOut(sessionID: UInt8)
    /// The peer broke the protocol; the frame or bytes concerned were dropped.
    case violation(ProtocolViolation)
}

/// What a peer did wrong, as a value: the driver counts and logs it, a head unit closes a
/// link that does it too often (core's malformed-message filter).
package enum ProtocolViolation: Sendable, Hashable, CustomStringConvertible {
    /// The start of a run of bytes that form no valid frame; the run is dropped up to the
    /// next valid header. Counts for core's malformed-message limit.
    case malformedFrame(FrameProblem)
    /// A frame the reassembler could not place (out of order, unknown message, too big).
    case reassembly(ReassemblyProblem)
    /// A partial message whose last frame did not come within the reassembly timeout.
    case expired(messageID: UInt32, service: ServiceType)
    /// A data frame for a session that is not started.
    case unknownSession(UInt8, service: ServiceType)
    /// A control message this role never receives, or one for a session or service that
    /// is not there.
    case unexpected(ControlFrameInfo, sessionID: UInt8, service: ServiceType)

    package var description: String {
        switch self {
        case .malformedFrame(let problem): return "malformed frame: \(problem)"
        case .reassembly(let problem): return "frame dropped: \(problem)"
        case .expired(let id, let service): return "message \(id) on \(service) expired before its last frame"
        case .unknownSession(let id, let service): return "\(service) frame for unknown session \(id)"
        case .unexpected(let info, let id, let service): return "unexpected \(info) for \(service) in session \(id)"
        }
    }
}

/// A call that the current state does not allow.
package struct ProtocolStateError: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
