import Foundation
import SmartDeviceLink

extension RunContext {
    /// Runs a high-level action as RPCs; returns the response that decides the step.
    func perform(_ action: Action) async throws(StepFailure) -> RPCEnvelope {
        switch action {
        case .menu(let items):
            return try await setMenu(items)
        case .audioPassThru(let action):
            return try await audioPassThru(action)
        case .putFile(let action):
            return try await putFile(action)
        case .show, .alert, .subscribeVehicleData, .unsubscribeVehicleData, .getVehicleData, .setAppIcon:
            let (function, parameters) = ScenarioActions.singleRequest(action)!
            return try await request(function, substitute(parameters))
        }
    }

    /// The menu through the library's MenuManager: a later menu step replaces the menu
    /// with the fewest RPCs. Each title's id is stored as variable `menu.<title>` for later
    /// driver steps.
    private func setMenu(_ items: [MenuItem]) async throws(StepFailure) -> RPCEnvelope {
        func cells(_ items: [MenuItem]) -> [MenuCell] {
            items.map { item in
                if let children = item.items { return MenuCell(title: item.title, subCells: cells(children)) }
                return MenuCell(title: item.title, voiceCommands: item.voiceCommands)
            }
        }
        let mark = managerResponses.count
        let menu = managers.screen.menu
        do {
            try await menu.setMenu(cells(items))
        } catch {
            throw StepFailure(message: error.description)
        }
        for (path, id) in await menu.cellIDs { variables["menu.\(path.last!)"] = .int(Int64(id)) }
        return try decidingResponse(since: mark, what: "the menu")
    }

    /// PerformAudioPassThru; the PCM of every OnAudioPassThru is written as a WAV file.
    private func audioPassThru(_ action: AudioPassThruAction) async throws(StepFailure) -> RPCEnvelope {
        var parameters: JSONObject = [
            "samplingRate": .string(action.samplingRate), "bitsPerSample": .string(action.bitsPerSample),
            "audioType": "PCM", "maxDuration": .int(Int64(action.maxDurationMS)),
            "audioPassThruDisplayText1": .string(action.text.first ?? "Recording"),
        ]
        if action.text.count > 1 { parameters["audioPassThruDisplayText2"] = .string(action.text[1]) }
        if let prompt = action.prompt { parameters["initialPrompt"] = [["text": .string(prompt), "type": "TEXT"]] }
        let mark = await log.count
        let response = try await request("PerformAudioPassThru", parameters)
        let audio = await log.messages(from: mark)
            .filter { $0.envelope.functionName == "OnAudioPassThru" }
            .flatMap(\.envelope.bulkData)
        let format = WAVFormat(samplingRate: action.samplingRate, bitsPerSample: action.bitsPerSample)
        do {
            try Data(format.file(pcm: audio)).write(to: URL(fileURLWithPath: action.file))
        } catch {
            throw StepFailure(message: "cannot write \(action.file): \(error.localizedDescription)")
        }
        reporter?.progress("wrote \(audio.count) bytes of PCM to \(action.file)")
        return response
    }

    /// PutFile through the library's file manager: chunks with offset, length and CRC32,
    /// read from disk chunk by chunk.
    private func putFile(_ action: PutFileAction) async throws(StepFailure) -> RPCEnvelope {
        let files = managers.files
        if let chunkSize = action.chunkSize { await files.setChunkSize(chunkSize) }
        let file = SDLFile(name: action.name, source: .path(action.path), fileType: FileType(rawValue: action.fileType),
                           isPersistent: action.persistent, overwrite: true)
        let mark = managerResponses.count
        let total = (try? FileManager.default.attributesOfItem(atPath: action.path)[.size] as? Int) ?? 0
        let chunked = total > (await files.chunkSize)
        let reporter = self.reporter
        do {
            try await files.upload(file) { fraction in
                if chunked {
                    reporter?.progress("put \(action.name): \(Int(fraction * 100))% (\(Int(fraction * Double(total)))/\(total) bytes)")
                }
            }
        } catch FileUploadError.refused {
            // The head unit's answer decides the step (an expected OUT_OF_MEMORY passes).
        } catch {
            throw StepFailure(message: "\(error)")
        }
        return try decidingResponse(since: mark, what: "put file \(action.name)")
    }
}

/// The header of a PCM WAV file for an audio pass-thru format.
struct WAVFormat {
    var sampleRate: UInt32
    var bitsPerSample: UInt16

    init(samplingRate: String, bitsPerSample: String) {
        switch samplingRate {
        case "8KHZ": sampleRate = 8000
        case "22KHZ": sampleRate = 22050
        case "44KHZ": sampleRate = 44100
        default: sampleRate = 16000
        }
        self.bitsPerSample = bitsPerSample == "8_BIT" ? 8 : 16
    }

    /// A complete mono WAV file around `pcm`.
    func file(pcm: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        func put32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func put16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        let blockAlign = bitsPerSample / 8
        out.append(contentsOf: Array("RIFF".utf8)); put32(UInt32(36 + pcm.count))
        out.append(contentsOf: Array("WAVE".utf8))
        out.append(contentsOf: Array("fmt ".utf8)); put32(16); put16(1); put16(1)
        put32(sampleRate); put32(sampleRate * UInt32(blockAlign)); put16(blockAlign); put16(bitsPerSample)
        out.append(contentsOf: Array("data".utf8)); put32(UInt32(pcm.count))
        out.append(contentsOf: pcm)
        return out
    }
}
