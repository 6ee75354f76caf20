import Foundation
import SmartDeviceLink

/// One received stream written to a file as it arrives: video as the H.264 elementary
/// stream (RTP unpacked first), audio as a WAV file in the head unit's PCM format.
final class StreamRecording {
    let path: String
    private let handle: FileHandle
    private var depacketizer: RTPH264Depacketizer?
    private let wav: (rate: Int, bits: Int)?
    private(set) var bytes = 0

    init(path: String, rtp: Bool, wav: (rate: Int, bits: Int)?) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        self.path = path
        self.handle = handle
        self.depacketizer = rtp ? RTPH264Depacketizer() : nil
        self.wav = wav
        if let wav { try handle.write(contentsOf: WAVWriter.header(sampleRate: wav.rate, bitsPerSample: wav.bits, dataBytes: 0)) }
    }

    /// Switches to or from RTP unpacking (a restarted video service may change protocol).
    func expect(rtp: Bool) {
        if rtp != (depacketizer != nil) { depacketizer = rtp ? RTPH264Depacketizer() : nil }
    }

    /// Access units completed so far (RTP marker bits); nil for RAW video and audio.
    var accessUnits: Int? { depacketizer?.accessUnits }

    func append(_ payload: [UInt8]) {
        let data = depacketizer != nil ? depacketizer!.consume(payload) : payload
        guard !data.isEmpty else { return }
        try? handle.write(contentsOf: data)
        bytes += data.count
        if let wav {  // keep the header's sizes true, so the file plays even if the emulator dies
            try? handle.seek(toOffset: 0)
            try? handle.write(contentsOf: WAVWriter.header(sampleRate: wav.rate, bitsPerSample: wav.bits, dataBytes: bytes))
            _ = try? handle.seekToEnd()
        }
    }

    func close() { try? handle.close() }
}

/// Audio and video of navigation and projection apps as sdl_core 8.2 runs them
/// (application_manager_impl.cc: OnServiceStartedCallback, StartNaviService,
/// HMIStateAllowsStreaming, ProcessApp, StartEndStreamTimer), touches on the video screen
/// and haptic data.
extension HeadUnitEmulator {
    /// Why core would refuse this audio or video StartService now, after the protocol
    /// layer's checks; nil to accept.
    func streamRefusal(_ request: StartServiceRequest, app: AppState) -> (reason: String?, rejected: [String])? {
        let type = request.serviceType.rawValue
        guard app.isVideo else { return ("Service type: \(type) disallowed with current HMI type", []) }
        let allowed = request.serviceType == .video ? app.videoStreamingState == .streamable : app.audioStreamingState != .notAudible
        guard app.isForeground, allowed else { return ("Service type: \(type) disallowed with current HMI level", []) }
        guard request.serviceType == .video, let asked = request.payload else { return nil }
        // The HMI's Navigation.SetVideoConfig refuses what it cannot show; core NAKs with
        // the names it gave and no reason (OnStreamingConfigurationFailed).
        let formats = configuration.videoStreaming["supportedFormats"]?.arrayValue ?? []
        var rejected: [String] = []
        if let codec = asked.videoCodec, !formats.contains(where: { $0["codec"]?.stringValue == codec }) { rejected.append("videoCodec") }
        if let proto = asked.videoProtocol, !formats.contains(where: { $0["protocol"]?.stringValue == proto }) { rejected.append("videoProtocol") }
        return rejected.isEmpty ? nil : (nil, rejected)
    }

    /// A stream started: open (or go on with) its recording.
    func recordingStarted(_ service: ServiceType, key: SessionKey, payload: ControlPayload?) {
        guard let app = apps[key] else { return }
        let rtp = payload?.videoProtocol == "RTP"
        if let existing = recordings[key]?[service] {
            existing.expect(rtp: rtp)
        } else {
            let folder = recordingFolder ?? configuration.recordingDirectory
                ?? NSTemporaryDirectory() + "sdl-recordings-" + UUID().uuidString.prefix(8)
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            recordingFolder = folder
            let name = app.appID.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
            let path = folder + "/" + String(name) + (service == .video ? "-video.h264" : "-audio.wav")
            let pcm = configuration.capabilities["pcmStreamCapabilities"]
            let rate = pcm?["samplingRate"]?.stringValue.flatMap { SamplingRate(rawValue: $0).hertz } ?? 16_000
            let bits = pcm?["bitsPerSample"]?.stringValue == "8_BIT" ? 8 : 16
            guard let recording = try? StreamRecording(path: path, rtp: rtp, wav: service == .audio ? (rate, bits) : nil) else { return }
            recordings[key, default: [:]][service] = recording
        }
        apps[key]?.streams[service]?.recording = recordings[key]?[service]?.path
        apps[key]?.streams[service]?.videoFormat = service == .video ? payload.flatMap { p in
            p.videoCodec.map { "\($0)/\(p.videoProtocol ?? "RAW")" } } : nil
    }

    func record(_ payload: [UInt8], service: ServiceType, key: SessionKey) {
        guard let recording = recordings[key]?[service] else { return }
        recording.append(payload)
        apps[key]?.streams[service]?.recordedBytes = recording.bytes
        apps[key]?.streams[service]?.accessUnits = recording.accessUnits
    }

    /// The app is gone: its recordings are complete.
    func closeRecordings(of key: SessionKey) {
        for recording in recordings.removeValue(forKey: key)?.values.map(\.self) ?? [] { recording.close() }
    }

    /// After an HMI state change (core's ProcessApp): streams of an app that may no longer
    /// stream end at once in NONE, and after StopStreamingTimeout in BACKGROUND or when not
    /// streamable, unless the app ends them itself or comes back first.
    func streamsFollowHMI(_ key: SessionKey) {
        guard let app = apps[key], !app.streams.isEmpty else { return }
        let disallowed = app.streams.keys.filter { service in
            app.streams[service]?.runningOn != nil
                && !(app.isForeground && (service == .video ? app.videoStreamingState == .streamable : app.audioStreamingState != .notAudible))
        }
        if let timer = streamEndTimers.removeValue(forKey: key) { cancelTimer(timer) }
        guard !disallowed.isEmpty else { return }
        if app.hmiLevel == .none {
            for service in disallowed { endStream(service, key: key, reason: "the app went to HMI level NONE") }
            return
        }
        streamEndTimers[key] = after(configuration.stopStreamingTimeoutMs) { unit in
            unit.streamEndTimers[key] = nil
            for service in disallowed { unit.endStream(service, key: key, reason: "StopStreamingTimeout after the app left FULL/LIMITED") }
        }
    }

    /// The head unit ends a stream: EndService to the app on the link it runs on.
    func endStream(_ service: ServiceType, key: SessionKey, reason: String) {
        guard let link = apps[key]?.streams[service]?.runningOn else { return }
        let id = link == "primary" ? key.connection : secondaryConnections[key.session]
        guard let id, let actions = try? connections[id]?.machine.endService(service, sessionID: key.session, now: clock.now) else { return }
        perform(actions, on: id)
        streamEnded(service, sessionID: key.session, on: id, reason: reason)
    }

    /// Driver: the head unit stops a stream (the driver closes the map, the HMI needs the screen).
    public func stopStreaming(_ service: String, appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        let type: ServiceType = service == "audio" ? .audio : .video
        guard service == "audio" || service == "video" else { throw .invalidAction("streamingStop: service is \"video\" or \"audio\", not \"\(service)\"") }
        guard apps[key]?.streams[type]?.runningOn != nil else { throw .invalidAction("streamingStop: no \(service) stream is running") }
        endStream(type, key: key, reason: "the head unit stopped it")
    }

    // MARK: - Touch

    /// Driver: the user touches the video screen: the OnTouchEvent sequence of a tap, double
    /// tap, pan (from `at` to `to`) or pinch (around `at`, by `scale`); see `TouchSequence`.
    public func touch(_ gesture: String, at point: (x: Int, y: Int)? = nil, to end: (x: Int, y: Int)? = nil, scale: Double = 2,
                      appID: String? = nil) async throws(EmulatorError) {
        let key = try resolve(appID)
        guard let app = apps[key], app.isVideo else { throw .invalidAction("touch: the app is not a NAVIGATION or PROJECTION app; it gets no touches") }
        guard mayReceive(key, "OnTouchEvent") else {
            throw .invalidAction("the app is in HMI level \(app.hmiLevel), where the policy does not allow OnTouchEvent; activate it first")
        }
        let resolution = configuration.videoStreaming["preferredResolution"]
        let center = (x: Int(resolution?["resolutionWidth"]?.intValue ?? 800) / 2, y: Int(resolution?["resolutionHeight"]?.intValue ?? 380) / 2)
        guard let steps = TouchSequence.steps(gesture, at: point ?? center, to: end, scale: scale, startTime: touchTime + 1000) else {
            throw .invalidAction("touch: gesture is \(TouchSequence.gestures.joined(separator: ", ")), not \"\(gesture)\"")
        }
        touchTime = steps.last?.events.first?.ts.first ?? touchTime
        for step in steps { notify(key, "OnTouchEvent", step.parameters) }
    }

    /// SendHapticData: kept for the app's snapshot; DISALLOWED for apps that stream no
    /// video (send_haptic_data_request.cc).
    func sendHapticData(_ request: IncomingRequest, _ typed: SendHapticData) {
        guard apps[request.key]?.isVideo == true else {
            respond(request, "DISALLOWED", info: "Application is not of type Navigation or Mobile Projection")
            return
        }
        apps[request.key]?.navigation["hapticRects"] = .array(typed.hapticRectData?.map(\.json) ?? [])
        respond(request, "SUCCESS")
    }

    /// ShowConstantTBT and UpdateTurnList: what the navigation screen shows.
    func navigationShown(_ request: IncomingRequest) {
        if request.name == "UpdateTurnList" {
            apps[request.key]?.navigation["turnList"] = request.parameters["turnList"] ?? []
        } else {
            apps[request.key]?.navigation["maneuver"] = .object(request.parameters.filter { $0.key != "softButtons" })
        }
        respond(request, "SUCCESS")
    }
}
