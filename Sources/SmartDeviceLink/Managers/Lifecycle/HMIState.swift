/// What the head unit says about the app's place on screen and in the audio mix (OnHMIStatus).
public struct HMIState: Sendable, Hashable {
    public var hmiLevel: HMILevel
    public var audioStreamingState: AudioStreamingState
    public var systemContext: SystemContext
    public var videoStreamingState: VideoStreamingState?

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
    public var old: HMIState
    public var new: HMIState

    public var hmiLevelChanged: Bool { old.hmiLevel != new.hmiLevel }
    public var audioStreamingStateChanged: Bool { old.audioStreamingState != new.audioStreamingState }
    public var systemContextChanged: Bool { old.systemContext != new.systemContext }
    public var videoStreamingStateChanged: Bool { old.videoStreamingState != new.videoStreamingState }
}

/// Where an ``SDLManager`` is in its life.
public enum LifecycleState: Sendable, Hashable, CustomStringConvertible {
    case stopped
    case connecting
    case registered
    case settingUpManagers
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
