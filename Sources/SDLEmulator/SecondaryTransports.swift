import SmartDeviceLink

/// Secondary transports as sdl_core's smartDeviceLink.ini sets them: `[MultipleTransports]`
/// and `[ServicesMap]` (core's ParseSecondaryTransportConfiguration).
public struct MultipleTransports: Sendable, Hashable {
    /// MultipleTransportsEnabled: sessions get TransportEventUpdates and may register a
    /// secondary. Off, RegisterSecondaryTransport is refused as "already registered" (as core).
    public var enabled = false
    /// SecondaryTransportForBluetooth, ForUSB, ForWiFi: the categories ("WiFi", "USB",
    /// "Bluetooth") offered beside a primary of that kind.
    public var forBluetooth: [String] = []
    /// See ``forBluetooth``.
    public var forUSB: [String] = []
    /// See ``forBluetooth``.
    public var forWiFi: [String] = []
    /// AudioServiceTransports, VideoServiceTransports: transport names (TCP_WIFI, AOA_USB,
    /// SPP_BLUETOOTH, IAP_USB...) allowed to carry the service, best first; empty allows all.
    /// Applied even when secondaries are off, as core does.
    public var audioServiceTransports: [String] = []
    /// See ``audioServiceTransports``.
    public var videoServiceTransports: [String] = []
    /// The endpoint TransportEventUpdates announce; nil: the emulator's own TCP listener.
    public var host: String?
    /// See ``host``.
    public var port: Int?

    /// Core's defaults: off, every link allowed.
    public init() {}

    /// core's profile name of a link. An in-memory link stands for a USB cable to an Android
    /// phone, so the embedded emulator offers what a head unit offers a USB primary.
    static func profileName(of kind: TransportKind) -> String {
        switch kind {
        case .usb, .memory: return "AOA_USB"
        // A serial line is the Serial Port Profile's kind of link.
        case .bluetooth, .serial: return "SPP_BLUETOOTH"
        case .tcp: return "TCP_WIFI"
        }
    }

    /// core's TransportTypeFromTransport: the category of a transport name.
    static func category(of name: String) -> String? {
        switch name.uppercased() {
        case "IAP_BLUETOOTH", "SPP_BLUETOOTH": return "bluetooth"
        case "IAP_USB", "AOA_USB", "IAP_USB_HOST_MODE", "IAP_USB_DEVICE_MODE": return "usb"
        case "TCP_WIFI", "IAP_CARPLAY": return "wifi"
        default: return nil
        }
    }

    /// The configured secondary categories for a primary of `kind` (none when off).
    func secondaryCategories(forPrimary kind: TransportKind) -> [String] {
        guard enabled else { return [] }
        switch kind {
        case .usb, .memory: return forUSB
        case .bluetooth, .serial: return forBluetooth
        case .tcp: return forWiFi
        }
    }

    /// The ACK's `secondaryTransports`: a TCP primary counts as iOS and Android at once, so
    /// it gets both names of USB and Bluetooth (core's GenerateSecondaryTransportsForStartSessionAck).
    func secondaryTransports(forPrimary kind: TransportKind) -> [String] {
        secondaryCategories(forPrimary: kind).flatMap { category -> [String] in
            switch category.lowercased() {
            case "usb": return kind == .tcp ? ["IAP_USB", "AOA_USB"] : ["AOA_USB"]
            case "bluetooth": return kind == .tcp ? ["IAP_BLUETOOTH", "SPP_BLUETOOTH"] : ["SPP_BLUETOOTH"]
            case "wifi": return ["TCP_WIFI"]
            default: return []
            }
        }
    }

    /// The ACK's `audioServiceTransports`/`videoServiceTransports` (1 primary, 2 secondary):
    /// core's GenerateServiceTransportsForStartSessionAck.
    func serviceTransports(_ allowed: [String], forPrimary kind: TransportKind) -> [Int32] {
        let secondaries = secondaryCategories(forPrimary: kind).map { $0.lowercased() }
        guard !allowed.isEmpty else { return enabled && !secondaries.isEmpty ? [1, 2] : [1] }
        var list: [Int32] = []
        for name in allowed {
            if !list.contains(1), name.uppercased() == Self.profileName(of: kind) { list.append(1) }
            if !list.contains(2), let category = Self.category(of: name), secondaries.contains(category) { list.append(2) }
        }
        return list
    }

    /// core's ServiceDisallowedBySettings: audio or video on a link whose name is not listed.
    func allows(_ service: ServiceType, on kind: TransportKind) -> Bool {
        let list = service == .audio ? audioServiceTransports : service == .video ? videoServiceTransports : []
        return list.isEmpty || list.contains(Self.profileName(of: kind))
    }

    static let keys = ["enabled", "forBluetooth", "forUSB", "forWiFi", "audioServiceTransports", "videoServiceTransports", "host", "port"]

    /// Reads `{"secondaryTransport": {...}}`. Present, it is on unless `enabled` says not,
    /// and a USB or Bluetooth primary is offered WiFi unless the lists say otherwise.
    init(json object: JSONObject, reader: ConfigReader) throws(EmulatorConfigurationError) {
        try reader.checkKeys(object, allowed: Self.keys, path: "$.secondaryTransport")
        enabled = try object["enabled"].map { v throws(EmulatorConfigurationError) in
            guard case .bool(let on) = v else { throw EmulatorConfigurationError(path: "$.secondaryTransport.enabled", reason: "expected true or false") }
            return on
        } ?? true
        func categories(_ key: String, default value: [String]) throws(EmulatorConfigurationError) -> [String] {
            guard let v = object[key] else { return value }
            let list = try reader.strings(v, path: "$.secondaryTransport.\(key)")
            for (i, name) in list.enumerated() where !["wifi", "usb", "bluetooth"].contains(name.lowercased()) {
                throw reader.unknown(name, allowed: ["WiFi", "USB", "Bluetooth"], path: "$.secondaryTransport.\(key)[\(i)]")
            }
            return list
        }
        forBluetooth = try categories("forBluetooth", default: ["WiFi"])
        forUSB = try categories("forUSB", default: ["WiFi"])
        forWiFi = try categories("forWiFi", default: [])
        for key in ["audioServiceTransports", "videoServiceTransports"] {
            let list = try object[key].map { v throws(EmulatorConfigurationError) in try reader.strings(v, path: "$.secondaryTransport.\(key)") } ?? []
            for (i, name) in list.enumerated() where Self.category(of: name) == nil {
                let names = ["TCP_WIFI", "AOA_USB", "SPP_BLUETOOTH", "IAP_USB", "IAP_BLUETOOTH", "IAP_USB_HOST_MODE", "IAP_USB_DEVICE_MODE", "IAP_CARPLAY"]
                throw reader.unknown(name, allowed: names, path: "$.secondaryTransport.\(key)[\(i)]")
            }
            if key == "audioServiceTransports" { audioServiceTransports = list } else { videoServiceTransports = list }
        }
        host = try object["host"].map { v throws(EmulatorConfigurationError) in try reader.string(v, path: "$.secondaryTransport.host") }
        port = try object["port"].map { v throws(EmulatorConfigurationError) in try reader.int(v, path: "$.secondaryTransport.port") }
        if let port, !(1...65535).contains(port) {
            throw EmulatorConfigurationError(path: "$.secondaryTransport.port", reason: "\(port) is not a TCP port 1…65535")
        }
    }
}
