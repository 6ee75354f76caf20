import Foundation
import SmartDeviceLink

extension RunContext {
    /// Runs a high-level action as RPCs; returns the response that decides the step.
    func perform(_ action: Action) async throws(StepFailure) -> RPCEnvelope {
        switch action {
        case .menu(let items):
            return try await addMenu(items, parentID: nil)
        case .audioPassThru(let action):
            return try await audioPassThru(action)
        case .putFile(let action):
            return try await putFile(action)
        case .show, .alert, .subscribeVehicleData, .unsubscribeVehicleData, .getVehicleData, .setAppIcon:
            let (function, parameters) = ScenarioActions.singleRequest(action)!
            return try await request(function, substitute(parameters))
        }
    }

    /// AddSubMenu/AddCommand for each item. Ids are assigned unless given; each title's id
    /// is stored as variable `menu.<title>` for later driver steps.
    private func addMenu(_ items: [MenuItem], parentID: Int?) async throws(StepFailure) -> RPCEnvelope {
        var last: RPCEnvelope?
        for (position, item) in items.enumerated() {
            if let children = item.items {
                let menuID = item.id ?? nextMenuID
                nextMenuID = max(nextMenuID, menuID) + 1
                let response = try await request("AddSubMenu", ["menuID": .int(Int64(menuID)), "menuName": .string(item.title), "position": .int(Int64(position))])
                try check(response, against: .succeeds, function: "AddSubMenu \(item.title)")
                variables["menu.\(item.title)"] = .int(Int64(menuID))
                last = try await addMenu(children, parentID: menuID)
            } else {
                let commandID = item.id ?? nextCommandID
                nextCommandID = max(nextCommandID, commandID) + 1
                var menuParams: JSONObject = ["menuName": .string(item.title), "position": .int(Int64(position))]
                if let parentID { menuParams["parentID"] = .int(Int64(parentID)) }
                var parameters: JSONObject = ["cmdID": .int(Int64(commandID)), "menuParams": .object(menuParams)]
                if let voice = item.voiceCommands, !voice.isEmpty { parameters["vrCommands"] = .array(voice.map(JSONValue.string)) }
                let response = try await request("AddCommand", parameters)
                try check(response, against: .succeeds, function: "AddCommand \(item.title)")
                variables["menu.\(item.title)"] = .int(Int64(commandID))
                last = response
            }
        }
        guard let last else { throw StepFailure(message: "the menu has no items") }
        return last
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

    /// PutFile in chunks with offset, length and CRC32, reading the file from disk chunk by chunk.
    private func putFile(_ action: PutFileAction) async throws(StepFailure) -> RPCEnvelope {
        guard let handle = FileHandle(forReadingAtPath: action.path) else {
            throw StepFailure(message: "cannot open \(action.path)")
        }
        defer { try? handle.close() }
        let total = (try? FileManager.default.attributesOfItem(atPath: action.path)[.size] as? Int) ?? 0
        let chunkSize = action.chunkSize ?? 64 * 1024
        var offset = 0
        var last: RPCEnvelope?
        repeat {
            let chunk = Array((try? handle.read(upToCount: chunkSize)) ?? Data())
            var parameters: JSONObject = [
                "syncFileName": .string(action.name), "fileType": .string(action.fileType),
                "persistentFile": .bool(action.persistent), "systemFile": false,
                "offset": .int(Int64(offset)), "length": .int(Int64(offset == 0 ? total : chunk.count)),
                "crc": .int(Int64(CRC32.checksum(chunk))),
            ]
            if total <= chunkSize { parameters["length"] = .int(Int64(total)) }
            let response = try await request("PutFile", parameters, bulk: chunk)
            guard response.success == true else { return response }
            offset += chunk.count
            last = response
            if total > chunkSize { reporter?.progress("put \(action.name): \(offset * 100 / max(total, 1))% (\(offset)/\(total) bytes)") }
        } while offset < total
        return last!
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
