import Foundation

/// Everything ``SDLManager`` needs to know, given by value.
public struct SDLConfiguration: Sendable {
    /// The app's name on the head unit (RegisterAppInterface `appName`).
    public var appName: String
    /// The app's id, the key of its policy (`appID` and `fullAppID`).
    public var appID: String
    /// The short name head units show where space is tight (`ngnMediaScreenAppName`).
    public var shortName: String?
    /// What kind of app it is (`appHMIType`): DEFAULT, MEDIA, NAVIGATION, ...
    public var appTypes: [AppHMIType]
    /// Whether it plays audio the head unit routes (`isMediaApplication`).
    public var isMedia: Bool
    /// The voice language it asks for (`languageDesired`).
    public var language: Language
    /// The display language it asks for (`hmiDisplayLanguageDesired`).
    public var hmiDisplayLanguage: Language
    /// How the head unit says its name.
    public var ttsName: [TTSChunk]?
    /// Other names the user may say for it (`vrSynonyms`).
    public var voiceRecognitionSynonyms: [String]?
    /// Its colours by day, where the head unit lets apps choose.
    public var dayColorScheme: TemplateColorScheme?
    /// Its colours by night.
    public var nightColorScheme: TemplateColorScheme?
    /// The app icon: uploaded (if the head unit does not have it) and set once registered,
    /// and again after every reconnect.
    public var icon: SDLFile?
    /// Refuse head units below this protocol version.
    public var minimumProtocolVersion: ProtocolVersion
    /// Refuse head units whose RPC spec version (`syncMsgVersion`) is below this.
    public var minimumRPCVersion: ProtocolVersion
    /// Links to try, in order (e.g. USB, then TCP); each call makes a fresh transport.
    public var transports: [TransportChoice]
    /// When and how often to try again after the link dropped.
    public var reconnect: ReconnectPolicy
    /// How long connecting and registering may take before it is an error.
    public var registrationTimeout: Duration
    /// Default time a request waits for its response.
    public var requestTimeout: Duration
    /// The time the manager, its links and its managers run on: reconnect back-off, request
    /// and registration timeouts, heartbeats. Real time unless a test injects its own clock.
    public var clock: LinkClock
    /// The secondary transports the app opens when the head unit offers them (protocol spec §4.6); nil
    /// for ``SecondaryTransportKind/defaults(forPrimary:)``: TCP beside USB or Bluetooth.
    public var secondaryTransports: Set<SecondaryTransportKind>?
    /// Makes the link to a secondary endpoint; tests and benches substitute their own.
    public var makeSecondaryTransport: @Sendable (SecondaryEndpoint) -> any SDLTransport = SecondaryEndpoint.defaultTransport
    /// When to try a secondary again after it dropped (sdl_ios: 5 s); nil waits for the head
    /// unit's next TransportEventUpdate.
    public var secondaryRetryDelay: Duration? = .seconds(5)
    /// How the file manager paces uploads: chunks in flight and the most PutFiles a second,
    /// under the head unit's flood limit (``UploadPacing/standard``).
    public var uploadPacing: UploadPacing = .standard
    /// How the app shows its lock screen, and whether the head unit's icon is downloaded
    /// (``LockScreenConfiguration/enabled``, as sdl_ios).
    public var lockScreen: LockScreenConfiguration = .enabled
    /// The policy table updates and cloud app icons the app carries for the head unit by itself.
    public var systemRequests = SystemRequestConfiguration()
    /// The app's certificate and key for protected services (TLS inside the protocol, the
    /// app the server); nil: none, and a head unit that requires protection refuses them.
    /// With it the RPC service is protected by itself once the head unit's policy requires
    /// encryption of an RPC and the app leaves NONE (sdl_ios's `SDLEncryptionConfiguration`).
    public var security: SecurityConfiguration?

    /// A configuration; everything but the name, the id and the transports has a default.
    public init(
        appName: String, appID: String, shortName: String? = nil, appTypes: [AppHMIType] = [.default], isMedia: Bool = false,
        language: Language = .enUs, hmiDisplayLanguage: Language = .enUs, ttsName: [TTSChunk]? = nil,
        voiceRecognitionSynonyms: [String]? = nil, dayColorScheme: TemplateColorScheme? = nil,
        nightColorScheme: TemplateColorScheme? = nil, minimumProtocolVersion: ProtocolVersion = ProtocolVersion(2),
        minimumRPCVersion: ProtocolVersion = ProtocolVersion(1), transports: [TransportChoice],
        reconnect: ReconnectPolicy = ReconnectPolicy(), registrationTimeout: Duration = .seconds(20),
        requestTimeout: Duration = .seconds(10), clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.appName = appName
        self.appID = appID
        self.shortName = shortName
        self.appTypes = appTypes
        self.isMedia = isMedia
        self.language = language
        self.hmiDisplayLanguage = hmiDisplayLanguage
        self.ttsName = ttsName
        self.voiceRecognitionSynonyms = voiceRecognitionSynonyms
        self.dayColorScheme = dayColorScheme
        self.nightColorScheme = nightColorScheme
        self.minimumProtocolVersion = minimumProtocolVersion
        self.minimumRPCVersion = minimumRPCVersion
        self.transports = transports
        self.reconnect = reconnect
        self.registrationTimeout = registrationTimeout
        self.requestTimeout = requestTimeout
        self.clock = LinkClock(clock)
    }

    /// The RegisterAppInterface request for this configuration.
    public func registration(resumingWith hashID: String? = nil) -> RegisterAppInterface {
        RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: appName,
            isMediaApplication: isMedia, languageDesired: language, hmiDisplayLanguageDesired: hmiDisplayLanguage,
            appID: appID, ttsName: ttsName, ngnMediaScreenAppName: shortName, vrSynonyms: voiceRecognitionSynonyms,
            appHMIType: appTypes, hashID: hashID, fullAppID: appID,
            dayColorScheme: dayColorScheme, nightColorScheme: nightColorScheme)
    }
}

/// One entry of the transport plan: a name for logs and a factory for a fresh transport.
public struct TransportChoice: Sendable {
    /// The choice's name in logs and events ("USB", "TCP 192.168.1.20:12345").
    public var name: String
    /// Makes a fresh transport for each attempt.
    public var make: @Sendable () -> any SDLTransport

    /// A choice named `name` whose links `make` makes.
    public init(_ name: String, make: @escaping @Sendable () -> any SDLTransport) {
        self.name = name
        self.make = make
    }

    /// TCP to a head unit.
    public static func tcp(host: String, port: UInt16 = TCPTransport.defaultPort) -> TransportChoice {
        TransportChoice("TCP \(host):\(port)") { TCPTransport(host: host, port: port) }
    }

    /// USB: a phone in accessory mode or a TDK (see ``USBDeviceSelector``).
    public static func usb(_ selector: USBDeviceSelector = .default) -> TransportChoice {
        TransportChoice("USB \(selector)") { USBTransport(selector) }
    }

    /// A serial line: a TTY at a baud rate, with or without RTS/CTS (see ``SerialTransport``).
    public static func serial(path: String, baudRate: Int = 115_200, flowControl: SerialFlowControl = .none) -> TransportChoice {
        serial(SerialPortOptions(path: path, baudRate: baudRate, flowControl: flowControl))
    }

    /// A serial line with all of its settings (carrier detection too, see ``SerialPortOptions``).
    public static func serial(_ options: SerialPortOptions) -> TransportChoice {
        TransportChoice(options.description) { SerialTransport(options) }
    }

    /// USB as the phone on a head unit's USB host port: this board's USB gadget
    /// (see ``USBGadgetTransport``), switched into accessory mode by the head unit.
    public static func usbGadget(_ options: USBGadgetTransport.Options = USBGadgetTransport.Options()) -> TransportChoice {
        TransportChoice("USB gadget" + (options.udc.map { " on \($0)" } ?? "")) { USBGadgetTransport(options: options) }
    }
}

/// When and how often to reconnect after the link drops.
///
/// sdl_ios retries every 0.5 s forever; this backs off exponentially and gives up after a
/// limit, so a bench without a head unit ends in a clear error instead of spinning.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The wait before the first attempt.
    public var initialDelay: Duration
    /// How much longer each next wait is.
    public var multiplier: Double
    /// The longest wait between attempts.
    public var maximumDelay: Duration
    /// Attempts after a drop before giving up; 0 never reconnects.
    public var maximumAttempts: Int

    /// Exponential back-off from `initialDelay`, capped at `maximumDelay`, for `maximumAttempts`.
    public init(initialDelay: Duration = .milliseconds(500), multiplier: Double = 2, maximumDelay: Duration = .seconds(30),
                maximumAttempts: Int = 8) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// The wait before attempt `attempt` (1-based).
    public func delay(beforeAttempt attempt: Int) -> Duration {
        let factor = pow(multiplier, Double(max(0, attempt - 1)))
        let seconds = min(initialDelay.seconds * factor, maximumDelay.seconds)
        return .milliseconds(Int64(seconds * 1000))
    }
}

