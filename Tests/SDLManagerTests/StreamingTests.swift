import Foundation
import SDLEmulator
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Runs a tool of the machine (ffmpeg, ffprobe) off the pool and returns its standard output.
func runTool(_ name: String, _ arguments: [String]) async throws -> String {
    let finished: ChildProcessResult
    do {
        finished = try await runChildProcess("/usr/bin/" + name, arguments)
    } catch {
        throw ToolMissing(description: "cannot run /usr/bin/\(name) (\(error)): run scripts/setup, which installs ffmpeg")
    }
    guard finished.status == 0 else { throw ToolMissing(description: "\(name) \(arguments.joined(separator: " ")) failed") }
    return String(decoding: finished.output, as: UTF8.self)
}

struct ToolMissing: Error, CustomStringConvertible { var description: String }

/// Video and audio through the library to the emulator, read back with ffprobe: what a
/// navigation app streams is what the head unit got, frame for frame.
@Suite("Streaming media: H.264 and PCM to the emulator, checked with ffprobe", .serialized)
struct StreamingTests {
    /// The test's own folder: its clips, tones and the head unit's recordings.
    let scratch: TestFolder
    var folder: String { scratch.path }

    init() throws { scratch = try TestFolder("sdl-streaming") }

    /// A 320×240 H.264 clip of `frames` frames (Annex B, no B-frames), made once per test.
    func clip(frames: Int) async throws -> String {
        let path = folder + "/clip-\(frames).h264"
        if !FileManager.default.fileExists(atPath: path) {
            _ = try await runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30",
                                       "-frames:v", "\(frames)", "-c:v", "libx264", "-bf", "0", "-g", "15", "-f", "h264", path])
        }
        return path
    }

    /// ffprobe's reading of a recording: codec, size and the frames it decodes.
    static func probeVideo(_ path: String) async throws -> (codec: String, width: Int, height: Int, frames: Int) {
        let text = try await runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                           "stream=codec_name,width,height,nb_read_frames", "-of", "default=noprint_wrappers=1", path])
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        return (fields["codec_name"] ?? "", Int(fields["width"] ?? "") ?? 0, Int(fields["height"] ?? "") ?? 0, Int(fields["nb_read_frames"] ?? "") ?? 0)
    }

    func headUnit(secondary: Bool = false, change: (inout EmulatorConfiguration) -> Void = { _ in }) async throws -> HeadUnitEmulator {
        var settings = EmulatorConfiguration.standard
        settings.recordingDirectory = folder + "/" + UUID().uuidString
        if secondary {
            settings.multipleTransports.enabled = true
            settings.multipleTransports.forUSB = ["WiFi"]
            settings.multipleTransports.videoServiceTransports = ["TCP_WIFI", "AOA_USB"]
        }
        change(&settings)
        let emulator = HeadUnitEmulator(configuration: settings)
        if secondary { _ = try await emulator.listen(port: 0) }
        return emulator
    }

    func navigationApp(_ emulator: HeadUnitEmulator, appID: String, types: [AppHMIType] = [.navigation],
                       waitForSecondary: Bool = false) async throws -> SDLManager {
        let manager = SDLManager(configuration: configuration(emulator, name: "Map \(appID)", appID: appID) { $0.appTypes = types })
        let (events, task) = Recorder.recording(await manager.transportEvents())
        try await manager.start()
        if waitForSecondary { #expect(await events.waitUntil { $0.contains { $0.name == "secondaryRegistered" } }) }
        task.cancel()
        return manager
    }

    /// Activates the app and waits until the app has seen FULL.
    func activate(_ emulator: HeadUnitEmulator, _ manager: SDLManager, _ appID: String) async throws {
        try await emulator.activateApp(appID)
        _ = await manager.firstNonNoneHMILevel()
    }

    func streamed(_ emulator: HeadUnitEmulator, _ appID: String) async -> StreamSnapshot? {
        await emulator.snapshot().app(appID)?.streams["video"]
    }

    @Test("a clip streamed RAW and RTP, on the primary and on the secondary, is recorded frame for frame", arguments: [
        ("RAW", false), ("RTP", false), ("RAW", true), ("RTP", true),
    ])
    func clipArrivesWhole(format: String, secondary: Bool) async throws {
        let clip = try await clip(frames: 30)
        let emulator = try await headUnit(secondary: secondary)
        let appID = "nav-\(format.lowercased())-\(secondary ? "secondary" : "primary")"
        let manager = try await navigationApp(emulator, appID: appID, waitForSecondary: secondary)
        try await activate(emulator, manager, appID)
        let media = manager.streamingMediaManager
        await media.startVideo(VideoStreamingSettings(formats: [VideoStreamingFormat(protocol: VideoStreamingProtocol(rawValue: format), codec: .h264)]))
        #expect(await media.videoState == .streaming)
        #expect(await media.videoFormat?.width == 800, "the head unit's preferred resolution was asked for and acknowledged")
        let report = try await media.streamVideo(file: clip, fps: 300)
        #expect(report.framesSent == 30 && report.framesDropped == 0)
        let size = try #require(FileManager.default.attributesOfItem(atPath: clip)[.size] as? Int)
        #expect(await emulator.waitUntil { $0.app(appID)?.streams["video"]?.recordedBytes ?? 0 >= size })
        let stream = try #require(await streamed(emulator, appID))
        #expect(stream.runningOn == (secondary ? "secondary" : "primary"))
        #expect(stream.videoFormat == "H264/\(format)")
        if format == "RTP" { #expect(stream.accessUnits == 30) }
        let recording = try #require(stream.recording)
        let received = try #require(FileManager.default.contents(atPath: recording)), sent = try #require(FileManager.default.contents(atPath: clip))
        #expect(H264.nalUnits(in: [UInt8](received)) == H264.nalUnits(in: [UInt8](sent)), "every NAL unit arrived as sent")
        let probe = try await Self.probeVideo(recording)
        #expect(probe.codec == "h264" && probe.width == 320 && probe.height == 240 && probe.frames == 30, "\(probe)")
        await manager.stop()
    }

    @Test("a named pipe is streamed as it is written, and the recording has every frame")
    func pipeStreamsLive() async throws {
        let clip = try await clip(frames: 30)
        let fifo = folder + "/map-\(UUID().uuidString).fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let bytes = try #require(FileManager.default.contents(atPath: clip))
        // The writer: the clip in 1000-byte writes, a little at a time, like an encoder.
        Thread.detachNewThread {
            guard let out = FileHandle(forWritingAtPath: fifo) else { return }
            var offset = 0
            while offset < bytes.count {
                out.write(bytes.subdata(in: offset..<min(offset + 1000, bytes.count)))
                offset += 1000
                usleep(2000)
            }
            try? out.close()
        }
        let emulator = try await headUnit()
        let manager = try await navigationApp(emulator, appID: "nav-pipe")
        try await activate(emulator, manager, "nav-pipe")
        let media = manager.streamingMediaManager
        await media.startVideo()
        #expect(await media.videoState == .streaming)
        let report = try await media.streamVideo(file: fifo, fps: 300)
        #expect(report.framesSent == 30 && report.framesDropped == 0, "\(report)")
        #expect(await emulator.waitUntil { $0.app("nav-pipe")?.streams["video"]?.recordedBytes ?? 0 >= bytes.count })
        let recording = try #require(await streamed(emulator, "nav-pipe")?.recording)
        let probe = try await Self.probeVideo(recording)
        #expect(probe.codec == "h264" && probe.frames == 30, "\(probe)")
        await manager.stop()
    }

    @Test("PCM from a WAV file in the head unit's format is recorded as a WAV ffprobe reads at 16 kHz with the same samples")
    func audioArrivesWhole() async throws {
        let wav = folder + "/tone.wav"
        _ = try await runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=0.5",
                                   "-ac", "1", "-c:a", "pcm_s16le", wav])
        let emulator = try await headUnit()
        let manager = try await navigationApp(emulator, appID: "nav-audio")
        try await activate(emulator, manager, "nav-audio")
        let media = manager.streamingMediaManager
        await media.startAudio()
        #expect(await media.audioState == .streaming)
        let sent = try await media.streamAudio(file: wav)
        let pcm = try WAVFile(path: wav).pcm
        #expect(sent == pcm.count)
        #expect(await emulator.waitUntil { $0.app("nav-audio")?.streams["audio"]?.recordedBytes ?? 0 >= pcm.count })
        let recording = try #require(await emulator.snapshot().app("nav-audio")?.streams["audio"]?.recording)
        #expect(try WAVFile(path: recording).pcm == pcm)
        let probe = try await runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels", "-of", "csv=p=0", recording])
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s16le,16000,1")
        // A WAV in another format is refused before anything is sent, saying how to convert it.
        let wrong = folder + "/tone-44k.wav"
        _ = try await runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=sample_rate=44100:duration=0.1", "-ac", "2", wrong])
        await #expect(throws: ManagerError.self) { _ = try await media.streamAudio(file: wrong) }
        await manager.stop()
    }

    @Test("video follows the HMI: it waits in NONE, starts in FULL, ends in BACKGROUND and starts again on return")
    func followsHMI() async throws {
        let emulator = try await headUnit()
        let manager = try await navigationApp(emulator, appID: "nav-hmi")
        let media = manager.streamingMediaManager
        let (states, task) = Recorder.recording(await media.videoStates())
        await media.startVideo()
        #expect(await media.videoState == .waitingForHMI("HMI level NONE"))
        try await emulator.activateApp("nav-hmi")
        #expect(await states.waitUntil { $0.last == .streaming })
        // Another navigation app takes the screen: this one goes to BACKGROUND, not streamable.
        let other = try await navigationApp(emulator, appID: "nav-other")
        try await emulator.activateApp("nav-other")
        #expect(await states.waitUntil { if case .waitingForHMI = $0.last { true } else { false } })
        #expect(await emulator.waitUntil { $0.app("nav-hmi")?.streams["video"]?.runningOn == nil }, "the app ended its stream")
        #expect(try await !media.sendVideo([0, 0, 1, 0x65, 0x88], at: .zero), "frames while waiting are dropped")
        try await emulator.activateApp("nav-hmi")
        #expect(await states.waitUntil { $0.filter { $0 == .streaming }.count == 2 })
        task.cancel()
        await other.stop()
        await manager.stop()
    }

    @Test("the head unit ends a stream itself: the app waits until the HMI lets it stream again, and never streams past the end")
    func headUnitStops() async throws {
        let emulator = try await headUnit()
        let manager = try await navigationApp(emulator, appID: "nav-stop")
        try await activate(emulator, manager, "nav-stop")
        let media = manager.streamingMediaManager
        await media.startVideo()
        #expect(await media.videoState == .streaming)
        try await emulator.stopStreaming("video", appID: "nav-stop")
        let (states, task) = Recorder.recording(await media.videoStates())
        #expect(await states.waitUntil { $0.last == .waitingForHMI("the head unit ended the video service") })
        task.cancel()
        #expect(await emulator.snapshot().app("nav-stop")?.streams["video"]?.runningOn == nil)
        await manager.stop()
    }

    @Test("core's refusals: a media app is not streamable and gets no video (HMI type), a format the head unit lacks is named in rejectedParams")
    func refusals() async throws {
        let emulator = try await headUnit { $0.videoStreaming["supportedFormats"] = [["protocol": "RAW", "codec": "H264"]] }
        let media = try await navigationApp(emulator, appID: "media-app", types: [.media])
        try await activate(emulator, media, "media-app")
        await media.streamingMediaManager.startVideo()
        // The head unit says NOT_STREAMABLE to a media app: the manager does not even ask...
        #expect(await media.streamingMediaManager.videoState == .waitingForHMI("video NOT_STREAMABLE"))
        // ...and asking anyway gets core's refusal.
        do {
            try await media.startService(.video, payload: nil)
            Issue.record("a media app was given video")
        } catch {
            guard case .sessionRejected(let reason, _) = error else { throw error }
            #expect(reason == "Service type: 11 disallowed with current HMI type")
        }
        await media.stop()

        let nav = try await navigationApp(emulator, appID: "nav-formats")
        try await activate(emulator, nav, "nav-formats")
        // The app wants RTP only: StartService asks for it anyway (the capability says no),
        // so ask past the capability with the service directly.
        do {
            try await nav.startService(.video, payload: ControlPayload(videoProtocol: "RTP", videoCodec: "H264"))
            Issue.record("RTP was accepted by a head unit that lists RAW only")
        } catch {
            guard case .sessionRejected(_, let rejected) = error else { throw error }
            #expect(rejected == ["videoProtocol"])
        }
        await nav.streamingMediaManager.startVideo(VideoStreamingSettings(formats: [VideoStreamingFormat(protocol: .rtp, codec: .h264)]))
        #expect(await nav.streamingMediaManager.videoState == .refused("the head unit streams H264/RAW; none is in the app's formats"))
        await nav.stop()
    }

    @Test("touches become gestures in the app; haptic rects reach the head unit; a maneuver shows on its navigation screen")
    func touchHapticsAndManeuvers() async throws {
        let emulator = try await headUnit()
        let manager = try await navigationApp(emulator, appID: "nav-touch")
        try await activate(emulator, manager, "nav-touch")
        let (gestures, task) = Recorder.recording(await manager.touchManager.gestures())
        try await emulator.touch("pinch", at: (400, 240), scale: 2, appID: "nav-touch")
        #expect(await gestures.waitUntil { $0.contains { $0.name == "pinchEnded" } })
        try await emulator.touch("tap", at: (100, 120), appID: "nav-touch")
        #expect(await gestures.waitUntil { $0.contains(.tap(TouchPoint(x: 100, y: 120))) })
        task.cancel()

        let media = manager.streamingMediaManager
        await media.startVideo()
        try await media.setHapticRects([HapticRect(id: 1, rect: Rectangle(x: 10, y: 10, width: 100, height: 50))])
        #expect(await emulator.waitUntil { $0.app("nav-touch")?.navigation["hapticRects"]?.arrayValue?.count == 1 })

        try await manager.navigationManager.show(Maneuver(text: "Turn left", secondaryText: "Main St", distance: "300 m"))
        try await manager.navigationManager.updateTurnList(["Turn left", "Keep right"])
        let navigation = try #require(await emulator.snapshot().app("nav-touch")?.navigation)
        #expect(navigation["maneuver"]?["navigationText1"] == "Turn left")
        #expect(navigation["turnList"]?.arrayValue?.count == 2)
        await manager.stop()
    }
}
