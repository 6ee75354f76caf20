/// Which of a session's two links a service runs on.
public enum TransportRole: String, Sendable, Hashable {
    /// The link the RPC session was started on; RPC and hybrid services never leave it.
    case primary
    /// The link registered with RegisterSecondaryTransport for the primary's session.
    case secondary
}

/// A kind of link this library can open as a secondary transport.
public enum SecondaryTransportKind: String, Sendable, Hashable, CaseIterable {
    /// TCP to the address of the head unit's TransportEventUpdate (`TCP_WIFI`).
    case tcp
    /// USB to a head unit that lists `AOA_USB` (the secondary of a Bluetooth primary).
    case usb

    /// The secondaries allowed when the configuration names none: TCP beside a USB or
    /// Bluetooth primary (as sdl_ios and sdl_java_suite do), none beside a TCP primary. An
    /// in-memory link stands for a USB cable, so the embedded emulator can offer TCP.
    public static func defaults(forPrimary primary: TransportKind) -> Set<SecondaryTransportKind> {
        primary == .tcp ? [] : [.tcp]
    }

    /// The kind a transport name of `secondaryTransports` denotes (protocol spec §3.1.3.2.2); nil for
    /// those this library does not open as a secondary (Bluetooth).
    init?(protocolName: String) {
        switch protocolName {
        case "TCP_WIFI": self = .tcp
        case "AOA_USB", "IAP_USB", "IAP_USB_HOST_MODE", "IAP_USB_DEVICE_MODE", "IAP_CARPLAY": self = .usb
        default: return nil
        }
    }
}

/// Where a secondary transport is to be opened.
public enum SecondaryEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The TCP endpoint of a TransportEventUpdate.
    case tcp(host: String, port: UInt16)
    /// A USB head unit (found the way ``USBDeviceSelector/default`` finds one).
    case usb

    /// The kind of transport this endpoint is reached over.
    public var kind: SecondaryTransportKind {
        switch self {
        case .tcp: return .tcp
        case .usb: return .usb
        }
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): return "TCP \(host):\(port)"
        case .usb: return "USB"
        }
    }

    /// The library's own transport for an endpoint, used unless the configuration gives a factory.
    public static func defaultTransport(_ endpoint: SecondaryEndpoint) -> any SDLTransport {
        switch endpoint {
        case .tcp(let host, let port): return TCPTransport(host: host, port: port)
        case .usb: return USBTransport()
        }
    }
}

/// What happened to a session's links, in order, for apps and test benches that follow the
/// primary/secondary dance (``SDLConnection/transportEvents()``, ``SDLManager/transportEvents()``).
public enum TransportEvent: Sendable, Hashable, CustomStringConvertible {
    /// The RPC session started on the primary link (its description).
    case primaryConnected(String)
    /// The primary link is gone, and with it the session and its secondary (protocol spec §4.6.4).
    case primaryLost(String)
    /// The head unit offers a secondary this app may open.
    case secondaryOffered(SecondaryEndpoint)
    /// The head unit withdrew its TCP endpoint (a TransportEventUpdate with an empty address).
    case secondaryWithdrawn
    /// RegisterSecondaryTransport was acknowledged on this link (its description).
    case secondaryRegistered(String)
    /// The head unit refused the registration (its NAK reason), or it could not be made.
    case secondaryRejected(String)
    /// The registered secondary dropped; its services end (and may restart on the primary).
    case secondaryLost(String)
    /// A running audio or video service was ended on one link and started again on the other.
    case serviceMoved(ServiceType, to: TransportRole)
    /// A service ended because its link went and it is not allowed on the other one.
    case serviceStopped(ServiceType, reason: String)

    /// The event's name, as scenarios write it (`{"expect": {"transport": "secondaryRegistered"}}`).
    public var name: String {
        switch self {
        case .primaryConnected: return "primaryConnected"
        case .primaryLost: return "primaryLost"
        case .secondaryOffered: return "secondaryOffered"
        case .secondaryWithdrawn: return "secondaryWithdrawn"
        case .secondaryRegistered: return "secondaryRegistered"
        case .secondaryRejected: return "secondaryRejected"
        case .secondaryLost: return "secondaryLost"
        case .serviceMoved: return "serviceMoved"
        case .serviceStopped: return "serviceStopped"
        }
    }

    /// Every name ``name`` can take, for scenario validation.
    public static let names = ["primaryConnected", "primaryLost", "secondaryOffered", "secondaryWithdrawn", "secondaryRegistered",
                               "secondaryRejected", "secondaryLost", "serviceMoved", "serviceStopped"]

    public var description: String {
        switch self {
        case .primaryConnected(let link): return "primary connected: \(link)"
        case .primaryLost(let why): return "primary lost: \(why)"
        case .secondaryOffered(let endpoint): return "secondary offered: \(endpoint)"
        case .secondaryWithdrawn: return "secondary withdrawn by the head unit"
        case .secondaryRegistered(let link): return "secondary registered: \(link)"
        case .secondaryRejected(let why): return "secondary rejected: \(why)"
        case .secondaryLost(let why): return "secondary lost: \(why)"
        case .serviceMoved(let service, let role): return "\(service) moved to the \(role.rawValue)"
        case .serviceStopped(let service, let why): return "\(service) stopped: \(why)"
        }
    }
}

/// Which link carries audio and video, by the head unit's preference lists from the RPC
/// StartServiceACK (`audioServiceTransports`, `videoServiceTransports`: 1 = primary,
/// 2 = secondary, in order of preference; protocol spec §4.6.3).
struct ServiceRouting: Sendable, Equatable {
    var audio: [TransportRole] = [.primary]
    var video: [TransportRole] = [.primary]
    /// The secondary kinds the head unit named in `secondaryTransports`.
    var offered: Set<SecondaryTransportKind> = []

    init() {}

    /// Reads the lists of an ACK. A list that is missing (before 5.1) means the primary only.
    init(ack: ControlPayload?) {
        audio = Self.roles(ack?.audioServiceTransports)
        video = Self.roles(ack?.videoServiceTransports)
        offered = Set((ack?.secondaryTransports ?? []).compactMap(SecondaryTransportKind.init(protocolName:)))
    }

    private static func roles(_ list: [Int32]?) -> [TransportRole] {
        guard let list else { return [.primary] }
        var roles: [TransportRole] = []
        for entry in list {
            let role: TransportRole? = entry == 1 ? .primary : entry == 2 ? .secondary : nil
            if let role, !roles.contains(role) { roles.append(role) }
        }
        return roles
    }

    /// The links a service may run on, best first. RPC and hybrid stay on the primary.
    func preference(for service: ServiceType) -> [TransportRole] {
        switch service {
        case .audio: return audio
        case .video: return video
        default: return [.primary]
        }
    }

    /// The best link for `service` among those up now; nil when none it may use is up.
    func route(for service: ServiceType, secondaryUp: Bool) -> TransportRole? {
        preference(for: service).first { $0 == .primary || secondaryUp }
    }
}
