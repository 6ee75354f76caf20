import Foundation

/// A PCM WAV file: its format and where its samples start.
public struct WAVFile: Sendable, Hashable {
    /// Samples a second, per channel.
    public var sampleRate: Int
    /// Bits per sample, as the file's format chunk says.
    public var bitsPerSample: Int
    /// Channels: 1 for mono.
    public var channels: Int
    /// The PCM bytes (the `data` chunk).
    public var pcm: [UInt8]

    /// Reads a RIFF/WAVE file of uncompressed PCM (format 1).
    public init(path: String) throws(ManagerError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .invalid("cannot read the audio file \(path): check the path") }
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw .invalid("\(path) is not a WAV file (no RIFF/WAVE header)")
        }
        var format: (rate: Int, bits: Int, channels: Int, code: Int)?
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = u32(offset + 4)
            let body = offset + 8
            if bytes[offset..<offset + 4].elementsEqual("fmt ".utf8), size >= 16, body + 16 <= bytes.count {
                format = (u32(body + 4), u16(body + 14), u16(body + 2), u16(body))
            } else if bytes[offset..<offset + 4].elementsEqual("data".utf8) {
                guard let format else { throw .invalid("\(path): the data chunk comes before the fmt chunk") }
                guard format.code == 1 else { throw .invalid("\(path) is not plain PCM (format \(format.code)): convert it with ffmpeg -c:a pcm_s16le") }
                self.sampleRate = format.rate
                self.bitsPerSample = format.bits
                self.channels = format.channels
                self.pcm = Array(bytes[body..<min(body + size, bytes.count)])
                return
            }
            offset = body + size + size % 2
        }
        throw .invalid("\(path) has no PCM data chunk")
    }
}

extension StreamingMediaManager {
    /// Asks for the audio service (PCM); it starts now if the HMI state allows (FULL or
    /// LIMITED and audible), else when it does.
    public func startAudio() async {
        audioWanted = true
        if case .stopped = audioState { setAudio(.waitingForHMI(Self.audioBlocker(hmi) ?? "starting")) }
        await startListening()
        await evaluate()
    }

    /// Ends the audio service and stops asking for it.
    public func stopAudio() async {
        audioWanted = false
        await evaluate()
    }

    /// Sends PCM in the head unit's format (`pcmStreamCapabilities`). Returns false when it
    /// was dropped because audio is not streaming.
    @discardableResult
    public func sendAudio(_ pcm: [UInt8]) async throws(ManagerError) -> Bool {
        guard case .streaming = audioState else { return false }
        do {
            try await channel.sendServiceData(pcm, on: .audio)
            return true
        } catch {
            if case .invalidRequest = error { return false }
            throw ManagerError(error)
        }
    }

    /// Streams a WAV file in real time, 100 ms a chunk. The file must be in the format the
    /// head unit lists in `pcmStreamCapabilities` (16 kHz 16-bit mono by default). Returns
    /// the PCM bytes sent (chunks dropped while audio was not streaming are not counted).
    public func streamAudio(file path: String) async throws(ManagerError) -> Int {
        let wav = try WAVFile(path: path)
        let wanted = await channel.currentRegistration()?.pcmStreamCapabilities
        let rate = wanted?.samplingRate.hertz ?? 16_000
        let bits = wanted.map { $0.bitsPerSample == ._8Bit ? 8 : 16 } ?? 16
        guard wav.sampleRate == rate, wav.bitsPerSample == bits, wav.channels == 1 else {
            throw .unsupported("\(path) is \(wav.sampleRate) Hz \(wav.bitsPerSample)-bit, \(wav.channels) channel(s); the head unit plays "
                               + "\(rate) Hz \(bits)-bit mono PCM: convert it with ffmpeg -i IN -ar \(rate) -ac 1 -c:a pcm_s\(bits == 8 ? "8" : "16le") OUT.wav")
        }
        let chunk = max(rate * bits / 8 / 10, 1)
        let start = clock.now
        var sent = 0
        for (index, offset) in stride(from: 0, to: wav.pcm.count, by: chunk).enumerated() {
            try? await clock.sleep(until: start + .milliseconds(100 * index))
            let piece = Array(wav.pcm[offset..<min(offset + chunk, wav.pcm.count)])
            if try await sendAudio(piece) { sent += piece.count }
        }
        return sent
    }

    /// Why the HMI state does not allow audio now; nil when it does.
    static func audioBlocker(_ hmi: HMIState) -> String? {
        guard hmi.hmiLevel == .full || hmi.hmiLevel == .limited else { return "HMI level \(hmi.hmiLevel.rawValue)" }
        return hmi.audioStreamingState == .notAudible ? "audio NOT_AUDIBLE" : nil
    }

    func evaluateAudio() async {
        let blocker = Self.audioBlocker(hmi)
        switch (audioWanted, audioState) {
        case (false, .streaming), (false, .starting):
            try? await channel.endService(.audio)
            setAudio(.stopped)
        case (false, _):
            setAudio(.stopped)
        case (true, .streaming) where blocker != nil:
            try? await channel.endService(.audio)
            setAudio(.waitingForHMI(blocker ?? ""))
        case (true, .waitingForHMI), (true, .refused):
            if let blocker {
                audioEndedByHeadUnit = false
                setAudio(.waitingForHMI(blocker))
            } else if !audioEndedByHeadUnit {
                setAudio(.starting)
                do {
                    _ = try await channel.startService(.audio, payload: nil)
                    setAudio(audioWanted ? .streaming : .stopped)
                    if !audioWanted { try? await channel.endService(.audio) }
                } catch {
                    if case .sessionRejected(let reason, _) = error {
                        setAudio(.refused(reason.isEmpty ? "StartService(audio) refused" : reason))
                    } else {
                        setAudio(.refused(error.description))
                    }
                }
            }
        default:
            break
        }
    }
}
