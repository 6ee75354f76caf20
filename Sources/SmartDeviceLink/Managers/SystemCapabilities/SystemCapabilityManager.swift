/// What the head unit can do: the capabilities of the RegisterAppInterface response, kept
/// current from SetDisplayLayout responses, GetSystemCapability and OnSystemCapabilityUpdated.
public actor SystemCapabilityManager {
    private let channel: any RPCChannel

    /// The main display: text fields, image fields, templates, screen size (deprecated in the spec for `displays`, still sent).
    public private(set) var displayCapabilities: DisplayCapabilities?
    /// The hardware buttons and what presses each reports.
    public private(set) var buttonCapabilities: [ButtonCapabilities]?
    /// What soft buttons can do (images, long presses).
    public private(set) var softButtonCapabilities: [SoftButtonCapabilities]?
    /// Whether presets are shown on screen.
    public private(set) var presetBankCapabilities: PresetBankCapabilities?
    /// Where the head unit is (front, back).
    public private(set) var hmiZoneCapabilities: [HmiZoneCapabilities]?
    /// What text-to-speech takes (text, phonemes, silence...).
    public private(set) var speechCapabilities: [SpeechCapabilities]?
    /// The head unit's recorded sounds (jingles).
    public private(set) var prerecordedSpeech: [PrerecordedSpeech]?
    /// What voice recognition takes.
    public private(set) var vrCapabilities: [VrCapabilities]?
    /// The formats the microphone records in.
    public private(set) var audioPassThruCapabilities: [AudioPassThruCapabilities]?
    /// The PCM format audio streaming takes.
    public private(set) var pcmStreamCapabilities: AudioPassThruCapabilities?
    /// Which features the HMI has (navigation, phone, video streaming, remote control...).
    public private(set) var hmiCapabilities: HMICapabilities?
    /// The vehicle: make, model, year, trim.
    public private(set) var vehicleType: VehicleType?
    /// System capabilities by type, as last read or pushed (navigation, phone, displays...).
    public private(set) var systemCapabilities: [SystemCapabilityType: SystemCapability] = [:]
    /// OnSystemCapabilityUpdated exists from RPC 5.1; before that, reads are one-shot polls.
    public private(set) var supportsSubscriptions = false
    /// The RPC spec version the head unit registered the app with (syncMsgVersion).
    public private(set) var rpcVersion: ProtocolVersion?

    /// The remote-control modules (climate, radio, seats, ...) as last read or pushed: read them
    /// with `capability(.remoteControl, subscribe: true)` first (a REMOTE_CONTROL app only).
    public var remoteControlCapability: RemoteControlCapabilities? { systemCapabilities[.remoteControl]?.remoteControlCapability }
    /// The app services the head unit knows of, as last read or pushed (`capability(.appServices)`).
    public var appServicesCapabilities: AppServicesCapabilities? { systemCapabilities[.appServices]?.appServicesCapabilities }
    /// The seats, as last read or pushed (`capability(.seatLocation)`).
    public var seatLocationCapability: SeatLocationCapability? { systemCapabilities[.seatLocation]?.seatLocationCapability }
    /// The phone, as last read or pushed (`capability(.phoneCall)`).
    public var phoneCapability: PhoneCapability? { systemCapabilities[.phoneCall]?.phoneCapability }
    /// Navigation, as last read or pushed (`capability(.navigation)`).
    public var navigationCapability: NavigationCapability? { systemCapabilities[.navigation]?.navigationCapability }
    /// The main window's capabilities (DISPLAYS, window 0): its text and image fields,
    /// templates and buttons for the app's current template, as the head unit pushes them
    /// after registration and at each change of template. sdl_ios's `defaultMainWindowCapability`.
    public var defaultMainWindowCapability: WindowCapability? { windowCapability(0) }
    /// The capabilities of one of the app's windows (0: the main one; a widget's id from
    /// CreateWindow), from the DISPLAYS capability as last read or pushed.
    public func windowCapability(_ windowID: Int) -> WindowCapability? {
        systemCapabilities[.displays]?.displayCapabilities?.first?.windowCapabilities?.first { ($0.windowID ?? 0) == windowID }
    }
    /// Video streaming, as last read or pushed (`capability(.videoStreaming)`).
    public var videoStreamingCapability: VideoStreamingCapability? { systemCapabilities[.videoStreaming]?.videoStreamingCapability }

    /// One broadcast per capability type, made on first use.
    private var observers: [SystemCapabilityType: Broadcast<SystemCapability>] = [:]

    /// A manager that asks and listens through `channel` (an ``SDLManager`` or a connection).
    public init(channel: any RPCChannel) {
        self.channel = channel
    }

    /// Forgets the system capabilities the last head unit answered or pushed. Called as a
    /// registration starts, not when its response comes: a head unit pushes DISPLAYS right
    /// after the response, and the push may be handled first.
    public func forgetSystemCapabilities() {
        systemCapabilities.removeAll()
    }

    /// Takes everything the registration response says (the system capabilities read or
    /// pushed are kept: see ``forgetSystemCapabilities()``).
    public func update(registration response: RegisterAppInterfaceResponse) {
        displayCapabilities = response.displayCapabilities
        buttonCapabilities = response.buttonCapabilities
        softButtonCapabilities = response.softButtonCapabilities
        presetBankCapabilities = response.presetBankCapabilities
        hmiZoneCapabilities = response.hmiZoneCapabilities
        speechCapabilities = response.speechCapabilities
        prerecordedSpeech = response.prerecordedSpeech
        vrCapabilities = response.vrCapabilities
        audioPassThruCapabilities = response.audioPassThruCapabilities
        pcmStreamCapabilities = response.pcmStreamCapabilities
        hmiCapabilities = response.hmiCapabilities
        vehicleType = response.vehicleType
        let version = response.syncMsgVersion
        supportsSubscriptions = (version?.majorVersion ?? 0, version?.minorVersion ?? 0) >= (5, 1)
        rpcVersion = version.map { ProtocolVersion($0.majorVersion, $0.minorVersion, $0.patchVersion ?? 0) }
    }

    /// Takes the display, button and soft-button capabilities of the new layout.
    public func update(layout response: SetDisplayLayoutResponse) {
        guard response.success else { return }
        if let display = response.displayCapabilities { displayCapabilities = display }
        if let buttons = response.buttonCapabilities { buttonCapabilities = buttons }
        if let softButtons = response.softButtonCapabilities { softButtonCapabilities = softButtons }
        if let presets = response.presetBankCapabilities { presetBankCapabilities = presets }
    }

    /// Takes a capability the head unit pushed (OnSystemCapabilityUpdated) and tells observers.
    /// A pushed DISPLAYS names only the windows that changed (a new widget, a new template):
    /// they replace those of the same id in the display known so far, the others stay.
    public func update(pushed capability: SystemCapability) {
        store(capability.systemCapabilityType == .displays ? mergingWindows(of: capability) : capability)
    }

    private func mergingWindows(of pushed: SystemCapability) -> SystemCapability {
        guard var display = systemCapabilities[.displays]?.displayCapabilities?.first,
              let update = pushed.displayCapabilities?.first, update.displayName == display.displayName else { return pushed }
        var windows = display.windowCapabilities ?? []
        for window in update.windowCapabilities ?? [] {
            if let index = windows.firstIndex(where: { ($0.windowID ?? 0) == (window.windowID ?? 0) }) {
                windows[index] = window
            } else {
                windows.append(window)
            }
        }
        display.windowCapabilities = windows
        if let types = update.windowTypeSupported { display.windowTypeSupported = types }
        var merged = pushed
        merged.displayCapabilities = [display] + (pushed.displayCapabilities?.dropFirst() ?? [])
        return merged
    }

    /// Whether the head unit says it has this capability (HMI capabilities of the
    /// registration, or a capability already read).
    public func isCapabilitySupported(_ type: SystemCapabilityType) -> Bool {
        if systemCapabilities[type] != nil { return true }
        guard let hmi = hmiCapabilities else { return false }
        switch type {
        case .navigation: return hmi.navigation ?? false
        case .phoneCall: return hmi.phoneCall ?? false
        case .videoStreaming: return hmi.videoStreaming ?? false
        case .remoteControl: return hmi.remoteControl ?? false
        case .appServices: return hmi.appServices ?? false
        case .displays: return hmi.displays ?? (displayCapabilities != nil)
        case .seatLocation: return hmi.seatLocation ?? false
        case .driverDistraction: return hmi.driverDistraction ?? false
        default: return false
        }
    }

    /// A system capability: the cached one, or read with GetSystemCapability (always when
    /// `refresh`). With `subscribe` on RPC ≥ 5.1 the head unit pushes later changes.
    public func capability(_ type: SystemCapabilityType, refresh: Bool = false, subscribe: Bool = false) async throws(SDLError) -> SystemCapability? {
        if !refresh, !subscribe, let cached = systemCapabilities[type] { return cached }
        let request = GetSystemCapability(systemCapabilityType: type, subscribe: subscribe && supportsSubscriptions ? true : nil)
        let response = try await channel.send(request, timeout: nil)
        guard response.success, let capability = response.systemCapability else { return nil }
        store(capability)
        return capability
    }

    /// Every later value of a capability, pushed or read.
    public func updates(of type: SystemCapabilityType) -> AsyncStream<SystemCapability> {
        let broadcast = observers[type] ?? Broadcast()
        observers[type] = broadcast
        return broadcast.subscribe()
    }

    private func store(_ capability: SystemCapability) {
        systemCapabilities[capability.systemCapabilityType] = capability
        observers[capability.systemCapabilityType]?.yield(capability)
    }
}
