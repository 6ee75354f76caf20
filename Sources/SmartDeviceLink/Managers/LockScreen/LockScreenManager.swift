/// Whether the app must lock its own screen now: the head unit's view of the driver's
/// attention, as sdl_ios and sdl_java_suite compute it.
public enum LockScreenStatus: String, Sendable, Hashable, CaseIterable {
    /// The app is not in use on the head unit: no lock screen.
    case off = "OFF"
    /// The app is in use but the driver is not distracted: a lock screen may be shown.
    case optional = "OPTIONAL"
    /// The app is in use while the car moves (or nobody said it does not): lock the screen.
    case required = "REQUIRED"

    /// The status for an HMI level, whether the user chose the app in this session, and the
    /// last OnDriverDistraction (nil: none arrived yet, which counts as distracted). The
    /// truth table of sdl_ios's SDLLockScreenStatusManager: NONE is OFF; BACKGROUND is OFF
    /// unless the user chose the app; FULL and LIMITED, and a chosen app in BACKGROUND, are
    /// OPTIONAL when the driver is known not to be distracted and REQUIRED otherwise.
    public static func of(hmiLevel: HMILevel, userSelected: Bool, driverDistracted: Bool?) -> LockScreenStatus {
        let inUse = hmiLevel == .full || hmiLevel == .limited || (hmiLevel == .background && userSelected)
        guard inUse else { return .off }
        return driverDistracted == false ? .optional : .required
    }
}

/// How an app shows its lock screen; the modes of sdl_ios's SDLLockScreenConfiguration.
public struct LockScreenConfiguration: Sendable, Hashable {
    /// When the lock screen is shown.
    public enum DisplayMode: String, Sendable, Hashable {
        /// The app shows no lock screen of ours (it may follow ``LockScreenState/status`` itself).
        case never
        /// Shown while the status is REQUIRED.
        case requiredOnly
        /// Shown while the status is OPTIONAL or REQUIRED.
        case optionalOrRequired
        /// Shown whenever the app is connected.
        case always
    }

    /// When the lock screen is shown (sdl_ios's `displayMode`).
    public var displayMode: DisplayMode
    /// Whether the user may dismiss the lock screen when the head unit allows it
    /// (OnDriverDistraction's lockScreenDismissalEnabled, SDL 6.0).
    public var enableDismissGesture: Bool
    /// Fetch the head unit's lock screen icon (OnSystemRequest LOCK_SCREEN_ICON_URL).
    public var fetchIcon: Bool
    /// How long the icon's download may take.
    public var iconTimeout: Duration
    /// The largest icon accepted, in bytes: a bigger body ends the download.
    public var iconSizeLimit: Int

    /// A configuration; the defaults are sdl_ios's.
    public init(displayMode: DisplayMode = .requiredOnly, enableDismissGesture: Bool = true, fetchIcon: Bool = true,
                iconTimeout: Duration = .seconds(10), iconSizeLimit: Int = 1 << 20) {
        self.displayMode = displayMode
        self.enableDismissGesture = enableDismissGesture
        self.fetchIcon = fetchIcon
        self.iconTimeout = iconTimeout
        self.iconSizeLimit = iconSizeLimit
    }

    /// sdl_ios's default: shown while REQUIRED, dismissible where allowed, with the icon.
    public static let enabled = LockScreenConfiguration()
    /// No lock screen and no icon download; the status is still computed.
    public static let disabled = LockScreenConfiguration(displayMode: .never, enableDismissGesture: false, fetchIcon: false)
    /// Shown whenever connected.
    public static let always = LockScreenConfiguration(displayMode: .always)
}

/// The lock screen as the app should show it now.
public struct LockScreenState: Sendable, Hashable {
    /// What the head unit's state says (sdl_ios's truth table).
    public var status: LockScreenStatus
    /// Whether the app should show its lock screen: the status, the display mode, and
    /// whether the user dismissed it.
    public var isShown: Bool
    /// Whether the user may dismiss it now (the head unit allows it and the configuration does).
    public var isDismissible: Bool
    /// The head unit's warning to show on a dismissible lock screen ("Swipe down to dismiss,
    /// acknowledging that you are not the driver" on sdl_core's default policy).
    public var dismissalWarning: String?
    /// The app's HMI level when the state was worked out.
    public var hmiLevel: HMILevel
    /// Whether the user chose the app (it reached FULL or LIMITED) since it was last in NONE.
    public var userSelected: Bool
    /// The last OnDriverDistraction's state; nil before the first.
    public var driverDistracted: Bool?
}

/// The head unit's lock screen icon, downloaded from the URL it sent.
public struct LockScreenIcon: Sendable, Hashable {
    /// The URL the head unit sent (OnSystemRequest LOCK_SCREEN_ICON_URL).
    public var url: String
    /// The image's bytes as downloaded.
    public var bytes: [UInt8]
    /// The image type, e.g. `image/png`: the server's Content-Type, else read from the bytes.
    public var mimeType: String
}

/// What became of a lock screen icon the head unit offered.
public enum LockScreenIconEvent: Sendable, Hashable {
    /// The icon was downloaded.
    case fetched(LockScreenIcon)
    /// The download failed; the reason says why in one line (a 404, too large, too slow, not an image).
    case failed(url: String, reason: String)
}

/// Turns the HMI level and OnDriverDistraction into the lock screen an app must show, as
/// sdl_ios's SDLLockScreenManager does, and fetches the head unit's lock screen icon.
///
/// A Linux app has no phone screen to lock, but when it drives one (a companion display,
/// a kiosk) it has the same duty; and a test rig checks that an app gets the status right.
/// ```swift
/// for await state in await manager.lockScreenManager.states() where state.isShown {
///     showLockScreen(warning: state.isDismissible ? state.dismissalWarning : nil)
/// }
/// ```
public actor LockScreenManager {
    /// How the lock screen is shown, fixed when the manager is made.
    public nonisolated let configuration: LockScreenConfiguration
    private let fetcher: any LockScreenIconFetching
    private var hmiLevel = HMILevel.none
    private var userSelected = false
    private var lastDistraction: OnDriverDistraction?
    private var dismissedByUser = false
    private var connected = false
    private var icon: LockScreenIconEvent?
    private var fetch: Task<Void, Never>?
    private let stateObservers = Broadcast<LockScreenState>()
    private let iconObservers = Broadcast<LockScreenIconEvent>()

    /// A manager; `fetcher` downloads the icon (nil: ``HTTPLockScreenIconFetcher``).
    public init(configuration: LockScreenConfiguration = .enabled, fetcher: (any LockScreenIconFetching)? = nil) {
        self.configuration = configuration
        self.fetcher = fetcher ?? HTTPLockScreenIconFetcher()
    }

    /// The lock screen now.
    public var state: LockScreenState {
        let status = LockScreenStatus.of(hmiLevel: hmiLevel, userSelected: userSelected, driverDistracted: driverDistracted)
        let dismissible = lastDistraction?.lockScreenDismissalEnabled == true && configuration.enableDismissGesture
        let shown: Bool = switch configuration.displayMode {
        case .never: false
        case .always: connected
        case .requiredOnly: status == .required && !dismissedByUser
        case .optionalOrRequired: status != .off && !dismissedByUser
        }
        return LockScreenState(status: status, isShown: shown, isDismissible: dismissible,
                               dismissalWarning: dismissible ? lastDistraction?.lockScreenDismissalWarning : nil,
                               hmiLevel: hmiLevel, userSelected: userSelected, driverDistracted: driverDistracted)
    }

    /// The current state, then each change.
    public func states() -> AsyncStream<LockScreenState> {
        stateObservers.subscribe(initial: state)
    }

    /// The icon's outcome if there was one, then each new one.
    public func icons() -> AsyncStream<LockScreenIconEvent> {
        iconObservers.subscribe(initial: icon)
    }

    /// The user dismissed the lock screen. Allowed only while it is shown and dismissible;
    /// it stays away until the head unit stops allowing dismissal during a distraction.
    @discardableResult
    public func dismiss() -> Bool {
        let now = state
        guard now.isShown, now.isDismissible else { return false }
        change { $0.dismissedByUser = true }
        return true
    }

    private var driverDistracted: Bool? { lastDistraction.map { $0.state == .ddOn } }

    // MARK: - Input (from SDLManager)

    /// The app registered: a lock screen shown ``LockScreenConfiguration/DisplayMode/always`` appears.
    func registered() {
        change { $0.connected = true }
    }

    func update(hmiLevel level: HMILevel) {
        change { manager in
            manager.hmiLevel = level
            if level == .full || level == .limited { manager.userSelected = true } else if level == .none { manager.userSelected = false }
        }
    }

    func update(_ distraction: OnDriverDistraction) {
        change { manager in
            manager.lastDistraction = distraction
            // As sdl_ios: a dismissal holds until a distraction comes that may not be dismissed.
            let dismissible = distraction.lockScreenDismissalEnabled == true && manager.configuration.enableDismissGesture
            if manager.dismissedByUser, distraction.state == .ddOn, !dismissible { manager.dismissedByUser = false }
        }
    }

    /// The link is gone: no app on a head unit, no lock screen.
    func disconnected() {
        fetch?.cancel()
        change { manager in
            manager.connected = false
            manager.hmiLevel = .none
            manager.userSelected = false
            manager.lastDistraction = nil
            manager.dismissedByUser = false
        }
    }

    /// OnSystemRequest LOCK_SCREEN_ICON_URL: downloads the icon (once per URL) off this actor.
    func iconOffered(at url: String) {
        guard configuration.fetchIcon else { return }
        if case .fetched(let known)? = icon, known.url == url { return }
        fetch?.cancel()
        let fetcher = self.fetcher, limit = configuration.iconSizeLimit, timeout = configuration.iconTimeout
        fetch = Task { [weak self] in
            let outcome: LockScreenIconEvent
            do throws(LockScreenIconError) {
                outcome = .fetched(try await LockScreenIconDownload.run(url: url, fetcher: fetcher, timeout: timeout, limit: limit))
            } catch {
                outcome = .failed(url: url, reason: error.description)
            }
            guard !Task.isCancelled else { return }
            await self?.iconFinished(outcome)
        }
    }

    private func iconFinished(_ outcome: LockScreenIconEvent) {
        icon = outcome
        iconObservers.yield(outcome)
    }

    /// Applies `update` and publishes the state when it changed.
    private func change(_ update: (isolated LockScreenManager) -> Void) {
        let before = state
        update(self)
        let after = state
        if after != before { stateObservers.yield(after) }
    }
}
