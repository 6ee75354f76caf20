import Foundation
import SmartDeviceLink

extension RunContext {
    /// Streams a file through the library's streaming media manager: asks for the service,
    /// waits until the HMI state lets it stream (the step's timeout), then sends the file.
    func stream(_ step: MediaStep) async throws(StepFailure) {
        let media = connection.streamingMediaManager
        var summary = ""
        switch step {
        case .video(let file, let fps, let timestamps, let duration, let proto):
            let formats = proto.map { [VideoStreamingFormat(protocol: VideoStreamingProtocol(rawValue: $0), codec: .h264)] }
            await media.startVideo(formats.map { VideoStreamingSettings(formats: $0) } ?? VideoStreamingSettings())
            try await waitForStreaming("video", await media.videoStates())
            let report: VideoStreamReport
            do {
                report = try await media.streamVideo(file: file, fps: fps, timestamps: timestamps?.map { .milliseconds($0) },
                                                     duration: duration.map { .milliseconds($0) })
            } catch {
                throw StepFailure(message: "stream video: \(error)")
            }
            let format = await media.videoFormat.map { " as \($0.format.codec.rawValue)/\($0.format.protocol.rawValue)" } ?? ""
            summary = "sent \(report.framesSent) frames (\(report.bytesSent) bytes)\(format)"
                + (report.framesDropped > 0 ? ", dropped \(report.framesDropped) while not streaming" : "")
        case .audio(let file):
            await media.startAudio()
            try await waitForStreaming("audio", await media.audioStates())
            do {
                summary = "sent \(try await media.streamAudio(file: file)) bytes of PCM"
            } catch {
                throw StepFailure(message: "stream audio: \(error)")
            }
        }
        let service = { if case .video = step { "video" } else { "audio" } }()
        if let recording = await driver?.recording(of: service) { summary += "\nthe head unit recorded it to \(recording)" }
        reporter?.progress(summary)
        stepOutput = summary
    }

    private func waitForStreaming(_ service: String, _ states: AsyncStream<StreamState>) async throws(StepFailure) {
        let windowMS = scenario.defaultTimeoutMS
        let (reached, last) = await Self.first(of: states, within: windowMS) { state in
            if case .refused = state { return false }  // final: no use waiting on
            return state == .streaming ? true : nil
        }
        let state = last ?? .stopped
        guard reached else {
            throw StepFailure(message: "\(service) did not start streaming within \(Double(windowMS) / 1000) s: \(state)"
                              + (state.name == "waitingForHMI" ? " (activate the app first: {\"driver\": \"activateApp\"})" : ""))
        }
    }

    /// Follows a stream of states until `decide` says true (reached) or false (will not be),
    /// or `windowMS` passes; returns the outcome and the last state seen (nil: none came).
    private static func first<State: Sendable>(of states: AsyncStream<State>, within windowMS: Int,
                                               _ decide: @escaping @Sendable (State) -> Bool?) async -> (Bool, State?) {
        let last = Locked<State?>(nil)
        let reached = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await state in states {
                    last.withLock { $0 = state }
                    if let decided = decide(state) { return decided }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(windowMS))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return (reached, last.withLock { $0 })
    }

    /// Waits for a stream state or a gesture.
    func expectMedia(_ expectation: MediaExpectation) async throws(StepFailure) {
        let media = connection.streamingMediaManager
        switch expectation {
        case .stream(let service, let state, let within):
            let windowMS = within ?? scenario.defaultTimeoutMS
            let states = service == "audio" ? await media.audioStates() : await media.videoStates()
            let (reached, current) = await Self.first(of: states, within: windowMS) { $0.name == state ? true : nil }
            guard reached else {
                throw StepFailure(message: "waited \(Double(windowMS) / 1000) s for \(service) \(state); it is \(current ?? .stopped)")
            }
        case .lockScreen(let status, let dismissible, let within):
            let windowMS = within ?? scenario.defaultTimeoutMS
            let states = await connection.lockScreenManager.states()
            let (reached, current) = await Self.first(of: states, within: windowMS) { state in
                state.status.rawValue == status && (dismissible == nil || state.isDismissible == dismissible) ? true : nil
            }
            guard reached else {
                let now = current.map { "\($0.status.rawValue)\($0.isDismissible ? ", dismissible" : "")" } ?? "unknown"
                throw StepFailure(message: "waited \(Double(windowMS) / 1000) s for \(expectation.summary); it is \(now)")
            }
        case .gesture(let name, let within):
            let windowMS = within ?? scenario.defaultTimeoutMS
            let deadline = ContinuousClock.now + .milliseconds(windowMS)
            let from = lastGestureMatch + 1
            func matches(_ gesture: TouchGesture) -> Bool { gesture.name == name || gesture.name.hasPrefix(name) && ["pan", "pinch"].contains(name) }
            while true {
                let seen = await gestures.messages(from: from)
                if let hit = seen.first(where: { $0.app == currentApp && matches($0.entry) }) {
                    lastGestureMatch = hit.index
                    return
                }
                if ContinuousClock.now >= deadline {
                    let names = seen.filter { $0.app == currentApp }.map(\.entry.name)
                    throw StepFailure(message: "waited \(Double(windowMS) / 1000) s for gesture \(name); "
                                      + (names.isEmpty ? "no touch came" : "came: " + names.joined(separator: ", ")))
                }
                try checkStopped()
                await gestures.waitForMore(than: from + seen.count, until: deadline)
            }
        }
    }
}
