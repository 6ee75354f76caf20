/// A protocol version "Major.Minor.Patch".
public struct ProtocolVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major version: the header version of every frame.
    public var major: Int
    /// The minor version.
    public var minor: Int
    /// The patch version.
    public var patch: Int

    /// The version `major.minor.patch`.
    public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses "5.4.1" (also "5" or "5.4"); nil when it is not numeric.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard let n = Int(part), n >= 0 else { return nil }
            numbers.append(n)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.init(numbers[0], numbers[1], numbers[2])
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (a: ProtocolVersion, b: ProtocolVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    /// What java and ios advertise, and the newest the protocol spec describes.
    public static let latest = ProtocolVersion(5, 4, 1)
    /// sdl_core 8.2's built-in maximum (`default_protocol_version`).
    public static let coreMaximum = ProtocolVersion(5, 4, 0)
}

/// The BSON payload of a control frame, with every key SDL defines.
///
/// All keys are optional and omitted when nil. Each key is written with exactly the BSON
/// type peers expect (`mtu` int64, `hashId`/`tcpPort`/`width`/`height` int32), because
/// bson_c_lib and java read a value of another type as absent.
public struct ControlPayload: Sendable, Hashable {
    /// RPC StartService and its ACK: the protocol version offered, and the one agreed.
    public var protocolVersion: String?
    /// The session's hash id (ACK), given back in EndService(RPC).
    public var hashID: Int32?
    /// The largest payload the sender of the ACK takes in one frame.
    public var mtu: Int64?
    /// The head unit's secondary transports for this primary (`TCP_WIFI`, `AOA_USB`, ...).
    public var secondaryTransports: [String]?
    /// Where audio may run, in the head unit's order: 1 the primary, 2 the secondary.
    public var audioServiceTransports: [Int32]?
    /// Where video may run, in the head unit's order: 1 the primary, 2 the secondary.
    public var videoServiceTransports: [Int32]?
    /// A token for cloud apps (protocol 5.2).
    public var authToken: String?
    /// The vehicle's make (protocol 5.4 ACK).
    public var make: String?
    /// The vehicle's model (protocol 5.4 ACK).
    public var model: String?
    /// The vehicle's model year (protocol 5.4 ACK).
    public var modelYear: String?
    /// The vehicle's trim (protocol 5.4 ACK).
    public var trim: String?
    /// The head unit's software version (protocol 5.4 ACK).
    public var systemSoftwareVersion: String?
    /// The head unit's hardware version (protocol 5.4 ACK).
    public var systemHardwareVersion: String?
    /// NAK: the parameters of the request the head unit refused.
    public var rejectedParams: [String]?
    /// NAK: why, in the head unit's words (from protocol 5.3).
    public var reason: String?
    /// Video StartService and its ACK: the picture's height in pixels.
    public var height: Int32?
    /// Video StartService and its ACK: the picture's width in pixels.
    public var width: Int32?
    /// Video: how frames travel (`RAW`, `RTP`).
    public var videoProtocol: String?
    /// Video: the codec (`H264`, ...).
    public var videoCodec: String?
    /// TransportEventUpdate: the head unit's TCP address for the secondary; empty when withdrawn.
    public var tcpIPAddress: String?
    /// TransportEventUpdate: its port.
    public var tcpPort: Int32?

    /// A payload with the given parameters; nil ones are left out of the BSON.
    public init(
        protocolVersion: String? = nil, hashID: Int32? = nil, mtu: Int64? = nil,
        secondaryTransports: [String]? = nil, audioServiceTransports: [Int32]? = nil,
        videoServiceTransports: [Int32]? = nil, authToken: String? = nil,
        make: String? = nil, model: String? = nil, modelYear: String? = nil, trim: String? = nil,
        systemSoftwareVersion: String? = nil, systemHardwareVersion: String? = nil,
        rejectedParams: [String]? = nil, reason: String? = nil,
        height: Int32? = nil, width: Int32? = nil, videoProtocol: String? = nil, videoCodec: String? = nil,
        tcpIPAddress: String? = nil, tcpPort: Int32? = nil
    ) {
        self.protocolVersion = protocolVersion
        self.hashID = hashID
        self.mtu = mtu
        self.secondaryTransports = secondaryTransports
        self.audioServiceTransports = audioServiceTransports
        self.videoServiceTransports = videoServiceTransports
        self.authToken = authToken
        self.make = make
        self.model = model
        self.modelYear = modelYear
        self.trim = trim
        self.systemSoftwareVersion = systemSoftwareVersion
        self.systemHardwareVersion = systemHardwareVersion
        self.rejectedParams = rejectedParams
        self.reason = reason
        self.height = height
        self.width = width
        self.videoProtocol = videoProtocol
        self.videoCodec = videoCodec
        self.tcpIPAddress = tcpIPAddress
        self.tcpPort = tcpPort
    }

    /// Wire key names, which differ from Swift naming for `hashId` and `tcpIpAddress`.
    private enum Key {
        static let protocolVersion = "protocolVersion", hashID = "hashId", mtu = "mtu"
        static let secondaryTransports = "secondaryTransports"
        static let audioServiceTransports = "audioServiceTransports"
        static let videoServiceTransports = "videoServiceTransports"
        static let authToken = "authToken", make = "make", model = "model", modelYear = "modelYear", trim = "trim"
        static let systemSoftwareVersion = "systemSoftwareVersion", systemHardwareVersion = "systemHardwareVersion"
        static let rejectedParams = "rejectedParams", reason = "reason"
        static let height = "height", width = "width", videoProtocol = "videoProtocol", videoCodec = "videoCodec"
        static let tcpIPAddress = "tcpIpAddress", tcpPort = "tcpPort"
    }

    /// The BSON document, keys in a fixed order.
    package var document: BSONDocument {
        var doc = BSONDocument()
        func put(_ key: String, _ value: BSONValue?) { if let value { doc.elements.append(BSONElement(key, value)) } }
        put(Key.protocolVersion, protocolVersion.map(BSONValue.string))
        put(Key.hashID, hashID.map(BSONValue.int32))
        put(Key.mtu, mtu.map(BSONValue.int64))
        put(Key.secondaryTransports, secondaryTransports.map { .array($0.map(BSONValue.string)) })
        put(Key.audioServiceTransports, audioServiceTransports.map { .array($0.map(BSONValue.int32)) })
        put(Key.videoServiceTransports, videoServiceTransports.map { .array($0.map(BSONValue.int32)) })
        put(Key.authToken, authToken.map(BSONValue.string))
        put(Key.make, make.map(BSONValue.string))
        put(Key.model, model.map(BSONValue.string))
        put(Key.modelYear, modelYear.map(BSONValue.string))
        put(Key.trim, trim.map(BSONValue.string))
        put(Key.systemSoftwareVersion, systemSoftwareVersion.map(BSONValue.string))
        put(Key.systemHardwareVersion, systemHardwareVersion.map(BSONValue.string))
        put(Key.rejectedParams, rejectedParams.map { .array($0.map(BSONValue.string)) })
        put(Key.reason, reason.map(BSONValue.string))
        put(Key.height, height.map(BSONValue.int32))
        put(Key.width, width.map(BSONValue.int32))
        put(Key.videoProtocol, videoProtocol.map(BSONValue.string))
        put(Key.videoCodec, videoCodec.map(BSONValue.string))
        put(Key.tcpIPAddress, tcpIPAddress.map(BSONValue.string))
        put(Key.tcpPort, tcpPort.map(BSONValue.int32))
        return doc
    }

    /// Reads the keys of a document; values of an unexpected BSON type read as absent.
    package init(document doc: BSONDocument) {
        self.init(
            protocolVersion: doc.string(Key.protocolVersion), hashID: doc.int32(Key.hashID), mtu: doc.int64(Key.mtu),
            secondaryTransports: doc.strings(Key.secondaryTransports),
            audioServiceTransports: doc.int32s(Key.audioServiceTransports),
            videoServiceTransports: doc.int32s(Key.videoServiceTransports),
            authToken: doc.string(Key.authToken), make: doc.string(Key.make), model: doc.string(Key.model),
            modelYear: doc.string(Key.modelYear), trim: doc.string(Key.trim),
            systemSoftwareVersion: doc.string(Key.systemSoftwareVersion),
            systemHardwareVersion: doc.string(Key.systemHardwareVersion),
            rejectedParams: doc.strings(Key.rejectedParams), reason: doc.string(Key.reason),
            height: doc.int32(Key.height), width: doc.int32(Key.width),
            videoProtocol: doc.string(Key.videoProtocol), videoCodec: doc.string(Key.videoCodec),
            tcpIPAddress: doc.string(Key.tcpIPAddress), tcpPort: doc.int32(Key.tcpPort))
    }

    /// The encoded BSON bytes.
    public var encoded: [UInt8] { document.encoded }

    /// Decodes BSON bytes; nil when they do not parse (core then treats the payload as empty).
    public init?(bytes: [UInt8]) {
        guard let doc = try? BSONDocument(decoding: bytes) else { return nil }
        self.init(document: doc)
    }
}
