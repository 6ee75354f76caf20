import Foundation

/// Where a stream of a navigation or projection app is.
public enum StreamState: Sendable, Hashable, CustomStringConvertible {
    /// The app has not asked for it (or stopped it).
    case stopped
    /// Asked for, but the HMI state does not allow it now (the reason); it starts by itself
    /// when the HMI state does (FULL or LIMITED, streamable or audible).
    case waitingForHMI(String)
    /// StartService sent, no answer yet.
    case starting
    /// Running: data sent now reaches the head unit.
    case streaming
    /// The head unit refused every way of starting it (its NAK reason); tried again at the
    /// next HMI change that allows it.
    case refused(String)

    /// The state's name as scenarios and reports write it.
    public var name: String {
        switch self {
        case .stopped: return "stopped"
        case .waitingForHMI: return "waitingForHMI"
        case .starting: return "starting"
        case .streaming: return "streaming"
        case .refused: return "refused"
        }
    }

    public var description: String {
        switch self {
        case .waitingForHMI(let why): return "waiting for the HMI: \(why)"
        case .refused(let why): return "refused: \(why)"
        default: return name
        }
    }
}

/// How the app wants its video sent.
public struct VideoStreamingSettings: Sendable, Hashable {
    /// Formats in order of preference; the first the head unit lists (and accepts) is used.
    public var formats: [VideoStreamingFormat]
    /// The resolution to ask for; nil takes the head unit's preferred resolution.
    public var resolution: ImageResolution?

    /// Settings; by default raw H.264, then RTP H.264, at the head unit's resolution.
    public init(formats: [VideoStreamingFormat] = [VideoStreamingFormat(protocol: .raw, codec: .h264),
                                                   VideoStreamingFormat(protocol: .rtp, codec: .h264)],
                resolution: ImageResolution? = nil) {
        self.formats = formats
        self.resolution = resolution
    }
}

/// The video format the head unit accepted (its StartServiceACK).
public struct NegotiatedVideoFormat: Sendable, Hashable {
    /// The protocol and codec.
    public var format: VideoStreamingFormat
    /// The picture's width in pixels, when the head unit said.
    public var width: Int?
    /// The picture's height in pixels, when the head unit said.
    public var height: Int?
}

/// What a ``StreamingMediaManager/streamVideo(file:fps:timestamps:duration:)`` run sent.
public struct VideoStreamReport: Sendable, Hashable {
    /// Access units (frames) sent while the service streamed.
    public var framesSent = 0
    /// Frames dropped because the service was not streaming (HMI state, head unit).
    public var framesDropped = 0
    /// Bytes handed to the link (RTP framing included).
    public var bytesSent = 0
}

/// Video and audio streaming for NAVIGATION and PROJECTION apps, as sdl_ios's
/// SDLStreamingMediaManager does it: each service starts when the HMI state allows it
/// (FULL or LIMITED, `videoStreamingState` STREAMABLE for video, audible for audio), ends
/// when it no longer does, and starts again on return, negotiating the video format from
/// the head unit's VideoStreamingCapability (a NAK naming `videoCodec`/`videoProtocol`
/// moves on to the next format). Services run on the link the head unit prefers (the
/// secondary transport when it has one).
///
/// Backpressure blocks: sending waits while the link is more than a megabyte behind, so a
/// slow link slows the producer down instead of growing memory. Data sent while a service
/// is not streaming is dropped and counted, as a head unit that stopped a stream would.
///
/// ```swift
/// await manager.streamingMediaManager.startVideo()
/// let report = try await manager.streamingMediaManager.streamVideo(file: "map.h264", fps: 30)
/// ```
public actor StreamingMediaManager {
    let channel: any MediaServiceChannel
    private let capabilities: SystemCapabilityManager
    let clock: LinkClock
    private(set) var hmi = HMIState.initial
    private var listening = false
    private var evaluating = false
    private var evaluateAgain = false

    private var videoSettings: VideoStreamingSettings?
    /// Where the video service is (see ``StreamState``).
    public private(set) var videoState = StreamState.stopped
    /// The format of the running (or last) video service.
    public private(set) var videoFormat: NegotiatedVideoFormat?
    private var videoEndedByHeadUnit = false
    private var packetizer = RTPH264Packetizer()
    private var hapticRects: [HapticRect]?
    private let videoObservers = Broadcast<StreamState>()

    var audioWanted = false
    /// Where the audio service is (see ``StreamState``).
    public private(set) var audioState = StreamState.stopped
    var audioEndedByHeadUnit = false
    private let audioObservers = Broadcast<StreamState>()

    /// A manager that starts services over `channel` and reads the head unit's video capability from `capabilities`.
    public init(channel: any MediaServiceChannel, capabilities: SystemCapabilityManager, clock: LinkClock = .continuous) {
        self.channel = channel
        self.capabilities = capabilities
        self.clock = clock
    }

    /// The video state now, then every change.
    public func videoStates() -> AsyncStream<StreamState> { videoObservers.subscribe(initial: videoState) }

    /// The audio state now, then every change.
    public func audioStates() -> AsyncStream<StreamState> { audioObservers.subscribe(initial: audioState) }

    func startListening() async {
        guard !listening else { return }
        listening = true
        hmi = await channel.currentHMIState()
        await channel.forEach(OnHMIStatus.self, on: self) { manager, status in
            guard (status.windowID ?? 0) == 0 else { return }
            await manager.hmiChanged(HMIState(status))
        }
        let events = await channel.transportEvents()
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.transportChanged(event)
            }
        }
    }

    // MARK: - Video

    /// Asks for video: it starts now if the HMI state allows, else when it does. Returns
    /// once that first attempt is over (see ``videoState``).
    public func startVideo(_ settings: VideoStreamingSettings = VideoStreamingSettings()) async {
        await startListening()
        videoSettings = settings
        if case .stopped = videoState { setVideo(.waitingForHMI(Self.videoBlocker(hmi) ?? "starting")) }
        await evaluate()
    }

    /// Ends the video service and stops asking for it.
    public func stopVideo() async {
        videoSettings = nil
        await evaluate()
    }

    /// Sends one access unit (Annex-B bytes) shown at `presentationTime` from the stream's
    /// start. Returns false when the frame was dropped because video is not streaming.
    @discardableResult
    public func sendVideo(_ accessUnit: [UInt8], at presentationTime: Duration) async throws(ManagerError) -> Bool {
        guard case .streaming = videoState, let format = videoFormat else { return false }
        let bytes = format.format.protocol == .rtp
            ? packetizer.packets(for: H264.nalUnits(in: accessUnit), presentationTime: presentationTime) : accessUnit
        do {
            try await channel.sendServiceData(bytes, on: .video)
            return true
        } catch {
            if case .invalidRequest = error { return false }  // the service ended under us: dropped
            throw ManagerError(error)
        }
    }

    /// Streams an H.264 Annex-B file: its access units at `fps` (or at `timestamps`, one a
    /// frame), from now, for `duration` (the clip loops when it is shorter) or once through.
    /// Frames are sent at their times; while video is not streaming they are dropped.
    /// A named pipe (FIFO) is read as it is written, as ``streamVideo(from:fps:)`` does.
    public func streamVideo(file path: String, fps: Double = 30, timestamps: [Duration]? = nil,
                            duration: Duration? = nil) async throws(ManagerError) -> VideoStreamReport {
        if Self.isPipe(path) {
            guard let handle = FileHandle(forReadingAtPath: path) else { throw .invalid("cannot open the pipe \(path) for reading") }
            defer { try? handle.close() }
            return try await streamVideo(from: handle, fps: fps)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalid("cannot read the video file \(path): check the path")
        }
        let units = H264.accessUnits(in: [UInt8](data))
        guard !units.isEmpty else { throw .invalid("\(path) holds no H.264 NAL units: give an Annex-B elementary stream (ffmpeg -f h264)") }
        guard fps > 0 else { throw .invalid("fps must be above 0") }
        let interval = Duration.seconds(1 / fps)
        var report = VideoStreamReport()
        let start = clock.now
        var index = 0
        while true {
            let time = timestamps.map { $0.isEmpty ? .zero : $0[index % $0.count] } ?? interval * index
            if let duration, time >= duration { break }
            if duration == nil, index == units.count { break }
            try await sendPaced(H264.annexB(units[index % units.count]), at: time, from: start, into: &report)
            index += 1
        }
        return report
    }

    /// The focusable areas of the app's video UI (SendHapticData). Sent now when video
    /// streams and the head unit supports haptic data, and again after every video start;
    /// call again whenever the UI changes.
    public func setHapticRects(_ rects: [HapticRect]) async throws(ManagerError) {
        hapticRects = rects
        if case .streaming = videoState { try await sendHapticRects() }
    }

    private func sendHapticRects() async throws(ManagerError) {
        guard let rects = hapticRects else { return }
        let capability = try? await capabilities.capability(.videoStreaming)
        guard capability?.videoStreamingCapability?.hapticSpatialDataSupported == true else { return }
        try await channel.expectSuccess(SendHapticData(hapticRectData: rects))
    }

    private func setVideo(_ state: StreamState) {
        guard state != videoState else { return }
        videoState = state
        videoObservers.yield(state)
    }

    /// Why the HMI state does not allow video now; nil when it does.
    static func videoBlocker(_ hmi: HMIState) -> String? {
        guard hmi.hmiLevel == .full || hmi.hmiLevel == .limited else { return "HMI level \(hmi.hmiLevel.rawValue)" }
        if let video = hmi.videoStreamingState, video != .streamable { return "video \(video.rawValue)" }
        return nil
    }

    private func evaluateVideo() async {
        let blocker = Self.videoBlocker(hmi)
        switch (videoSettings, videoState) {
        case (nil, .streaming), (nil, .starting):
            try? await channel.endService(.video)
            setVideo(.stopped)
        case (nil, _):
            setVideo(.stopped)
        case (_?, .streaming) where blocker != nil:
            try? await channel.endService(.video)
            setVideo(.waitingForHMI(blocker ?? ""))
        case (let settings?, .waitingForHMI), (let settings?, .refused):
            if let blocker {
                videoEndedByHeadUnit = false
                setVideo(.waitingForHMI(blocker))
            } else if !videoEndedByHeadUnit {
                await startVideoService(settings)
            }
        default:
            break
        }
    }

    private func startVideoService(_ settings: VideoStreamingSettings) async {
        setVideo(.starting)
        let capability = (try? await capabilities.capability(.videoStreaming))?.videoStreamingCapability
        let listed = capability?.supportedFormats
        let candidates = settings.formats.filter { wanted in
            listed?.contains { $0.protocol == wanted.protocol && $0.codec == wanted.codec } ?? true
        }
        guard !candidates.isEmpty else {
            let names = listed?.map { "\($0.codec.rawValue)/\($0.protocol.rawValue)" }.joined(separator: ", ") ?? "none"
            return setVideo(.refused("the head unit streams \(names); none is in the app's formats"))
        }
        let resolution = settings.resolution ?? capability?.preferredResolution
        var lastReason = ""
        for format in candidates {
            let payload = ControlPayload(height: resolution.map { Int32($0.resolutionHeight) }, width: resolution.map { Int32($0.resolutionWidth) },
                                         videoProtocol: format.protocol.rawValue, videoCodec: format.codec.rawValue)
            do {
                let ack = try await channel.startService(.video, payload: payload)
                videoFormat = NegotiatedVideoFormat(format: format, width: (ack?.width ?? payload.width).map(Int.init),
                                                    height: (ack?.height ?? payload.height).map(Int.init))
                packetizer = RTPH264Packetizer()
                guard videoSettings != nil else { return }  // stopped while starting: evaluate ends it
                setVideo(.streaming)
                try? await sendHapticRects()
                return
            } catch {
                if case .sessionRejected(_, let rejected) = error,
                   rejected.contains("videoCodec") || rejected.contains("videoProtocol") {
                    lastReason = "\(format.codec.rawValue)/\(format.protocol.rawValue) rejected (\(rejected.joined(separator: ", ")))"
                    continue
                } else if case .sessionRejected(let reason, _) = error {
                    return setVideo(.refused(reason.isEmpty ? "StartService(video) refused" : reason))
                }
                return setVideo(.refused(error.description))
            }
        }
        setVideo(.refused(lastReason))
    }

    // MARK: - Changes from outside

    func hmiChanged(_ new: HMIState) async {
        hmi = new
        await evaluate()
    }

    private func transportChanged(_ event: TransportEvent) async {
        switch event {
        case .serviceStopped(.video, _):
            if case .streaming = videoState {
                videoEndedByHeadUnit = true
                setVideo(.waitingForHMI("the head unit ended the video service"))
            }
        case .serviceStopped(.audio, _):
            if case .streaming = audioState {
                audioEndedByHeadUnit = true
                setAudio(.waitingForHMI("the head unit ended the audio service"))
            }
        case .primaryLost(let why):
            if videoSettings != nil { setVideo(.waitingForHMI("the link dropped: \(why)")) }
            if audioWanted { setAudio(.waitingForHMI("the link dropped: \(why)")) }
        default:
            return
        }
        await evaluate()
    }

    /// Brings both services in line with what the app wants and the HMI allows; a change
    /// arriving meanwhile runs it again rather than overlapping.
    func evaluate() async {
        guard !evaluating else {
            evaluateAgain = true
            return
        }
        evaluating = true
        repeat {
            evaluateAgain = false
            await evaluateVideo()
            await evaluateAudio()
        } while evaluateAgain
        evaluating = false
    }

    func setAudio(_ state: StreamState) {
        guard state != audioState else { return }
        audioState = state
        audioObservers.yield(state)
    }
}
