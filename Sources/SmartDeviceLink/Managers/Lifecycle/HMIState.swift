/// What the head unit says about the app's place on screen and in the audio mix (OnHMIStatus).
public struct HMIState: Sendable, Hashable {
    /// FULL, LIMITED, BACKGROUND or NONE: how much of the head unit the app has.
    public var hmiLevel: HMILevel
    /// Whether the app is heard now.
    public var audioStreamingState: AudioStreamingState
    /// What the head unit shows over the app (MAIN, MENU, ALERT, VRSESSION, HMI_OBSCURED).
    public var systemContext: SystemContext
    /// Whether the app may stream video now (from RPC 5.0).
    public var videoStreamingState: VideoStreamingState?

    /// A state of these values.
    public init(hmiLevel: HMILevel, audioStreamingState: AudioStreamingState, systemContext: SystemContext,
                videoStreamingState: VideoStreamingState? = nil) {
        self.hmiLevel = hmiLevel
        self.audioStreamingState = audioStreamingState
        self.systemContext = systemContext
        self.videoStreamingState = videoStreamingState
    }

    /// Before the first OnHMIStatus: NONE, not audible, main context.
    public static let initial = HMIState(hmiLevel: HMILevel.none, audioStreamingState: .notAudible, systemContext: .main)

    init(_ status: OnHMIStatus) {
        self.init(hmiLevel: status.hmiLevel, audioStreamingState: status.audioStreamingState,
                  systemContext: status.systemContext, videoStreamingState: status.videoStreamingState)
    }
}

/// A real change of the HMI state: old and new differ.
public struct HMIStateChange: Sendable, Hashable {
    /// The state before.
    public var old: HMIState
    /// The state now.
    public var new: HMIState

    /// Whether the HMI level changed.
    public var hmiLevelChanged: Bool { old.hmiLevel != new.hmiLevel }
    /// Whether the audio streaming state changed.
    public var audioStreamingStateChanged: Bool { old.audioStreamingState != new.audioStreamingState }
    /// Whether the system context changed.
    public var systemContextChanged: Bool { old.systemContext != new.systemContext }
    /// Whether the video streaming state changed.
    public var videoStreamingStateChanged: Bool { old.videoStreamingState != new.videoStreamingState }
}

/// Where an ``SDLManager`` is in its life.
public enum LifecycleState: Sendable, Hashable, CustomStringConvertible {
    /// Not started, or stopped by the app.
    case stopped
    /// Opening a link and starting the RPC session.
    case connecting
    /// RegisterAppInterface succeeded.
    case registered
    /// The managers are reading what the head unit can do (capabilities, files).
    case settingUpManagers
    /// Registered and set up: requests and the managers work.
    case ready
    /// The link dropped; this is the `attempt`-th try to get it back.
    case reconnecting(attempt: Int)

    public var description: String {
        switch self {
        case .stopped: return "stopped"
        case .connecting: return "connecting"
        case .registered: return "registered"
        case .settingUpManagers: return "setting up managers"
        case .ready: return "ready"
        case .reconnecting(let attempt): return "reconnecting (attempt \(attempt))"
        }
    }
}
