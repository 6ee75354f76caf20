import SmartDeviceLink
import Foundation

extension HeadUnitEmulator {
    /// PerformAudioPassThru: OnAudioPassThru with PCM (mono, the requested rate and sample
    /// size) every `audioPassThruChunkMs`, in (scaled) real time, until `maxDuration`
    /// (SUCCESS), EndAudioPassThru (SUCCESS) or the driver cancels (ABORTED). A second one
    /// while one runs is REJECTED.
    ///
    /// As on sdl_core, a chunk is sent at each full interval *before* `maxDuration`: core's
    /// sender wakes every second, and the HMI's answer at `maxDuration` ends the pass-thru
    /// before the wake-up that would carry the last second (audio_stream_sender_thread.cc).
    /// So 3000 ms bring two chunks, the first two seconds, and 3500 ms bring three.
    func performAudioPassThru(_ request: IncomingRequest, _ recording: PerformAudioPassThru) {
        guard let app = apps[request.key] else { return }
        guard app.audioPassThru == nil, !apps.values.contains(where: { $0.audioPassThru != nil }) else {
            // core passes the recording to the HMI, which refuses a second.
            respond(request, "REJECTED", info: HMIAnswers.refusedBehindModal("PerformAudioPassThru", shown: "PerformAudioPassThru"))
            return
        }
        // core records what the app asks for, whatever audioPassThruCapabilities say
        // (perform_audio_pass_thru_request.cc checks no capability).
        let rates: [SamplingRate: Int] = [._8khz: 8000, ._16khz: 16000, ._22khz: 22050, ._44khz: 44100]
        guard let rate = rates[recording.samplingRate] else {
            respond(request, "INVALID_DATA", info: "no sampling rate \(recording.samplingRate)")
            return
        }
        let bits = recording.bitsPerSample == ._8Bit ? 8 : 16
        let maxDuration = recording.maxDuration
        let signal: Microphone.Signal
        do {
            signal = try Microphone.Signal(source: configuration.microphone, sampleRate: rate, bits: bits)
        } catch {
            respond(request, "GENERIC_ERROR", info: "\(error)")
            return
        }
        let token = newToken()
        apps[request.key]?.audioPassThru = PendingUI(kind: .audioPassThru, request: request, token: token)
        // The HMI's recording dialog covers the app (OnSystemContext HMI_OBSCURED) until it closes.
        apps[request.key]?.systemContext = .hmiObscured
        refreshStatus(request.key)
        let chunkMs = configuration.audioPassThruChunkMs
        let delay = configuration.scaled(chunkMs)
        let clock = self.clock, configuration = self.configuration
        timers[token] = Task { [weak self] in
            var sentMs = 0
            while sentMs + chunkMs < maxDuration {
                guard (try? await clock.sleep(for: delay)) != nil else { return }
                let chunk = signal.pcm(samples: signal.sampleIndex(atMs: sentMs)..<signal.sampleIndex(atMs: sentMs + chunkMs))
                guard let self, await self.audioChunk(request.key, token: token, chunk) else { return }
                sentMs += chunkMs
            }
            guard (try? await clock.sleep(for: configuration.scaled(maxDuration - sentMs))) != nil else { return }
            await self?.finishAudioPassThru(request.key, token: token, resultCode: "SUCCESS")
        }
    }

    /// Sends one chunk; false when the pass-thru is over.
    private func audioChunk(_ key: SessionKey, token: Int, _ bytes: [UInt8]) -> Bool {
        guard apps[key]?.audioPassThru?.token == token else { return false }
        if !bytes.isEmpty { notify(key, "OnAudioPassThru", [:], bulkData: bytes) }
        return true
    }

    /// Ends the running pass-thru with `resultCode`.
    @discardableResult
    func finishAudioPassThru(_ key: SessionKey, token: Int?, resultCode: String) -> Bool {
        guard let pending = apps[key]?.audioPassThru, token == nil || pending.token == token else { return false }
        timers.removeValue(forKey: pending.token)?.cancel()
        apps[key]?.audioPassThru = nil
        if apps[key]?.modal == nil, apps[key]?.openMenuID == nil { apps[key]?.systemContext = .main }
        respond(pending.request, resultCode)
        refreshStatus(key)
        return true
    }

    /// EndAudioPassThru: SUCCESS, then the running one ends with SUCCESS; REJECTED when none
    /// runs (sdl_hmi's answers, in its order, which core passes on).
    func endAudioPassThru(_ request: IncomingRequest) {
        guard apps[request.key]?.audioPassThru != nil else {
            respond(request, "REJECTED", info: HMIAnswers.noAudioPassThru)
            return
        }
        respond(request, "SUCCESS")
        finishAudioPassThru(request.key, token: nil, resultCode: "SUCCESS")
    }
}

/// The emulated microphone: PCM from a tone or a WAV file.
enum Microphone {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `milliseconds` of mono PCM (unsigned 8-bit or signed 16-bit little-endian).
    static func pcm(source: MicrophoneSource, sampleRate: Int, bits: Int, milliseconds: Int) throws(Failure) -> [UInt8] {
        let signal = try Signal(source: source, sampleRate: sampleRate, bits: bits)
        return signal.pcm(samples: 0..<signal.sampleIndex(atMs: milliseconds))
    }

    /// A microphone signal made on demand, chunk by chunk: a long pass-thru (maxDuration
    /// up to 1,000,000 ms) must not compute all its samples up front on the actor.
    struct Signal: Sendable {
        private enum Kind: Sendable {
            case tone(frequency: Double)
            case wav(samples: [Double], rate: Int)
        }

        private let kind: Kind
        let sampleRate: Int
        let bits: Int

        init(source: MicrophoneSource, sampleRate: Int, bits: Int) throws(Failure) {
            switch source {
            case .tone(let frequency):
                kind = .tone(frequency: frequency)
            case .wavFile(let path):
                let (wav, wavRate) = try readWAV(path)
                guard !wav.isEmpty else { throw Failure(description: "\(path) has no samples") }
                kind = .wav(samples: wav, rate: wavRate)
            }
            self.sampleRate = sampleRate
            self.bits = bits
        }

        /// The index of the sample at `ms` milliseconds.
        func sampleIndex(atMs ms: Int) -> Int { sampleRate * ms / 1000 }

        private func sample(_ index: Int) -> Double {
            switch kind {
            case .tone(let frequency):
                return 0.5 * sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate))
            case .wav(let wav, let wavRate):
                // Nearest-sample resampling, looping the file when it is shorter than asked.
                return wav[Int(Double(index) * Double(wavRate) / Double(sampleRate)) % wav.count]
            }
        }

        /// The PCM bytes of the samples in `range`.
        func pcm(samples range: Range<Int>) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(range.count * bits / 8)
            for index in range {
                let clamped = max(-1, min(1, sample(index)))
                if bits == 8 {
                    out.append(UInt8(clamping: Int((clamped * 127).rounded()) + 128))
                } else {
                    let value = UInt16(bitPattern: Int16((clamped * 32767).rounded()))
                    out.append(UInt8(value & 0xFF))
                    out.append(UInt8(value >> 8))
                }
            }
            return out
        }
    }

    /// Samples (−1…1, first channel) and the rate of a PCM WAV file.
    static func readWAV(_ path: String) throws(Failure) -> ([Double], Int) {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read the WAV file \(path)") }
        let bytes = [UInt8](data)
        func u32(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24 }
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw Failure(description: "\(path) is not a RIFF/WAVE file")
        }
        var offset = 12
        var channels = 1, rate = 16000, bits = 16
        var samples: [Double] = []
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            guard body + size <= bytes.count || id == "data" else { break }
            if id == "fmt ", size >= 16 {
                guard u16(body) == 1 else { throw Failure(description: "\(path) is not PCM (format \(u16(body)))") }
                channels = max(1, u16(body + 2))
                rate = u32(body + 4)
                bits = u16(body + 14)
            } else if id == "data" {
                let end = min(bytes.count, body + size)
                let frame = channels * bits / 8
                guard frame > 0, bits == 8 || bits == 16 else { throw Failure(description: "\(path): only 8- and 16-bit PCM") }
                var i = body
                while i + frame <= end {
                    samples.append(bits == 8 ? (Double(bytes[i]) - 128) / 128 : Double(Int16(bitPattern: UInt16(u16(i)))) / 32768)
                    i += frame
                }
            }
            offset = body + size + (size & 1)
        }
        return (samples, rate)
    }
}
