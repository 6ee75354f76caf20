/// What to record and what the user sees and hears meanwhile.
public struct AudioPassThruOptions: Sendable {
    /// Spoken before recording starts.
    public var prompt: String?
    /// Shown on the first line of the recording dialog.
    public var text1: String?
    /// Shown on the second line of the recording dialog.
    public var text2: String?
    /// One the head unit lists in its audio pass-thru capabilities.
    public var samplingRate: SamplingRate
    /// Sample size of the PCM.
    public var bitsPerSample: BitsPerSample
    /// PCM, the only type of the spec.
    public var audioType: AudioType
    /// The longest recording; the head unit ends it then with SUCCESS.
    public var maxDuration: Duration
    /// Whether the head unit mutes its audio source while recording.
    public var muteAudio: Bool

    /// Options with the common format, 16 kHz 16-bit PCM, and at most 10 s.
    public init(prompt: String? = nil, text1: String? = nil, text2: String? = nil, samplingRate: SamplingRate = ._16khz,
                bitsPerSample: BitsPerSample = ._16Bit, audioType: AudioType = .pcm, maxDuration: Duration = .seconds(10),
                muteAudio: Bool = true) {
        self.prompt = prompt
        self.text1 = text1
        self.text2 = text2
        self.samplingRate = samplingRate
        self.bitsPerSample = bitsPerSample
        self.audioType = audioType
        self.maxDuration = maxDuration
        self.muteAudio = muteAudio
    }
}

/// How a recording ended.
public struct AudioPassThruResult: Sendable, Equatable {
    /// What the result code means for the app.
    public enum Outcome: Sendable, Equatable {
        /// The maximum duration passed, the user pressed Done, or the app ended it (SUCCESS).
        case completed
        /// The user cancelled (ABORTED): the audio is usually to be thrown away.
        case cancelled
        /// The head unit asks to try again (RETRY), e.g. it could not hear the user.
        case retry
    }

    /// How the recording ended.
    public var outcome: Outcome
    /// The PerformAudioPassThru result code.
    public var resultCode: ResultCode
    /// The head unit's explanation, if any.
    public var info: String?
    /// PCM bytes received.
    public var bytes: Int
}

/// A running recording: its PCM as it arrives, and how it ended.
public struct AudioPassThruRecording: Sendable {
    /// PCM chunks in arrival order; the stream ends with the recording.
    public let chunks: AsyncStream<[UInt8]>
    private let outcome: Task<AudioPassThruResult, any Error>

    init(chunks: AsyncStream<[UInt8]>, outcome: Task<AudioPassThruResult, any Error>) {
        self.chunks = chunks
        self.outcome = outcome
    }

    /// Waits for the end of the recording.
    ///
    /// - Throws: ``ManagerError/refused(function:resultCode:info:)`` when the head unit
    ///   would not record (REJECTED while another recording runs, UNSUPPORTED_RESOURCE for a
    ///   format its microphone lacks, DISALLOWED...), ``ManagerError/link(_:)`` when the
    ///   link failed.
    public var result: AudioPassThruResult {
        get async throws(ManagerError) {
            do {
                return try await outcome.value
            } catch let error as ManagerError {
                throw error
            } catch {
                throw .link("\(error)")
            }
        }
    }
}

/// Records from the car's microphone (PerformAudioPassThru) and streams the PCM.
///
/// The head unit runs one recording at a time; a second ``start(_:)`` while one runs is
/// REJECTED by it and leaves the first one untouched.
public actor AudioPassThruManager {
    private struct Running {
        var id: Int
        var continuation: AsyncStream<[UInt8]>.Continuation
        var bytes = 0
    }

    private let channel: any RPCChannel
    /// Recordings asked for, oldest first; chunks belong to the oldest (the one recording).
    private var running: [Running] = []
    private var nextID = 0
    private let clock: LinkClock
    private var lastChunk: ContinuousClock.Instant
    private var listening = false

    /// A manager over any channel (``SDLManager`` has one of its own, on its configured clock).
    public init(channel: any RPCChannel, clock: LinkClock = .continuous) {
        self.channel = channel
        self.clock = clock
        self.lastChunk = clock.now
    }

    private func startListening() async {
        guard !listening else { return }
        listening = true
        await channel.forEach(OnAudioPassThru.self, on: self) { await $0.deliver($1.bulkData ?? []) }
    }

    /// Starts recording. The PCM arrives on ``AudioPassThruRecording/chunks``; ``finish()``
    /// ends the recording early.
    public func start(_ options: AudioPassThruOptions) async -> AudioPassThruRecording {
        await startListening()
        let (chunks, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        nextID += 1
        let id = nextID
        running.append(Running(id: id, continuation: continuation))
        let request = PerformAudioPassThru(
            samplingRate: options.samplingRate, maxDuration: options.maxDuration.milliseconds, bitsPerSample: options.bitsPerSample,
            audioType: options.audioType, initialPrompt: options.prompt.map { [TTSChunk(text: $0, type: .text)] },
            audioPassThruDisplayText1: options.text1, audioPassThruDisplayText2: options.text2, muteAudio: options.muteAudio)
        let outcome = Task { () async throws -> AudioPassThruResult in
            let response: PerformAudioPassThruResponse
            do throws(SDLError) {
                response = try await self.channel.send(request, timeout: nil)
            } catch {
                self.end(id)
                throw ManagerError(error)
            }
            let bytes = response.success || response.resultCode == .aborted ? await self.drain(id) : self.end(id)
            switch response.resultCode {
            case .success: return AudioPassThruResult(outcome: .completed, resultCode: response.resultCode, info: response.info, bytes: bytes)
            case .aborted: return AudioPassThruResult(outcome: .cancelled, resultCode: response.resultCode, info: response.info, bytes: bytes)
            case .retry: return AudioPassThruResult(outcome: .retry, resultCode: response.resultCode, info: response.info, bytes: bytes)
            default: throw ManagerError.refused(function: "PerformAudioPassThru", resultCode: response.resultCode, info: response.info)
            }
        }
        return AudioPassThruRecording(chunks: chunks, outcome: outcome)
    }

    /// Ends the running recording early (EndAudioPassThru); it then ends with SUCCESS.
    public func finish() async throws(ManagerError) {
        try await channel.expectSuccess(EndAudioPassThru())
    }

    private func deliver(_ pcm: [UInt8]) {
        guard !running.isEmpty, !pcm.isEmpty else { return }
        running[0].bytes += pcm.count
        lastChunk = clock.now
        running[0].continuation.yield(pcm)
    }

    /// The response can overtake the last OnAudioPassThru on its way through the library
    /// (they travel different paths after the link), so the chunk stream stays open a
    /// moment, and until no chunk has come for a while.
    private func drain(_ id: Int) async -> Int {
        try? await clock.sleep(for: .milliseconds(50))
        let deadline = clock.now + .seconds(1)
        while clock.now - lastChunk < .milliseconds(100), clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(20))
        }
        return end(id)
    }

    @discardableResult
    private func end(_ id: Int) -> Int {
        guard let index = running.firstIndex(where: { $0.id == id }) else { return 0 }
        let ended = running.remove(at: index)
        ended.continuation.finish()
        return ended.bytes
    }
}
