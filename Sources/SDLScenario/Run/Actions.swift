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
        case .show, .alert, .subscribeVehicleData, .unsubscribeVehicleData, .getVehicleData, .setAppIcon, .showManeuver:
            let (function, parameters) = ScenarioActions.singleRequest(action)!
            return try await request(function, substitute(parameters), timeoutMS: actionTimeoutMS)
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
        let menu = connection.screenManager.menu
        do {
            try await menu.setMenu(cells(items))
        } catch {
            throw StepFailure(message: error.description)
        }
        for (path, id) in await menu.cellIDs { variables["menu.\(path.last!)"] = .int(Int64(id)) }
        return try decidingResponse(since: mark, what: "the menu")
    }

    /// A recording through the library's AudioPassThruManager, written chunk by chunk to
    /// a WAV file by WAVWriter.
    private func audioPassThru(_ action: AudioPassThruAction) async throws(StepFailure) -> RPCEnvelope {
        let rate = SamplingRate(rawValue: action.samplingRate)
        let bits = BitsPerSample(rawValue: action.bitsPerSample)
        let writer: WAVWriter
        let path = outputPath(written: action.fileAsWritten, resolved: action.file)
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            writer = try WAVWriter(path: path, samplingRate: rate, bitsPerSample: bits)
        } catch {
            throw StepFailure(message: "\(error)")
        }
        let options = AudioPassThruOptions(prompt: action.prompt, text1: action.text.first ?? "Recording",
                                           text2: action.text.count > 1 ? action.text[1] : nil, samplingRate: rate,
                                           bitsPerSample: bits, maxDuration: .milliseconds(action.maxDurationMS))
        let mark = managerResponses.count
        let recording = await connection.audioPassThruManager.start(options)
        var writeError: (any Error)?
        for await pcm in recording.chunks where writeError == nil {
            do { try writer.write(pcm) } catch { writeError = error }
        }
        do {
            try writer.finish()
        } catch {
            writeError = writeError ?? error
        }
        if let writeError { throw StepFailure(message: "cannot write \(path): \(writeError)") }
        do {
            _ = try await recording.result
        } catch .refused {
            // The head unit's answer decides the step (an expected REJECTED passes).
        } catch {
            throw StepFailure(message: error.description)
        }
        reporter?.progress("wrote \(writer.dataBytes) bytes of PCM to \(path)")
        return try decidingResponse(since: mark, what: "the audio pass-thru")
    }

    /// PutFile through the library's file manager: chunks with offset, length and CRC32,
    /// read from disk chunk by chunk.
    private func putFile(_ action: PutFileAction) async throws(StepFailure) -> RPCEnvelope {
        let files = connection.fileManager
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
            // The answer that refused decides the step (an expected OUT_OF_MEMORY passes).
            if let refusal = managerResponses[mark...].last(where: { $0.success != true }) { return refusal }
            return try decidingResponse(since: mark, what: "put file \(action.name)")
        } catch {
            throw StepFailure(message: "\(error)")
        }
        // Uploaded: the last answer decides. Earlier refusals were the file manager finding
        // where the head unit's copy ends after a reconnect (a wrong offset is INVALID_DATA).
        guard let last = managerResponses[mark...].last else { throw StepFailure(message: "put file \(action.name) sent no request") }
        return last
    }
}
