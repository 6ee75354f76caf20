import Logging
import Foundation

/// A file to put on the head unit.
public struct SDLFile: Sendable, Hashable {
    /// Where a file's bytes come from.
    public enum Source: Sendable, Hashable {
        /// Bytes held in memory.
        case data([UInt8])
        /// Read from disk chunk by chunk; never held in memory whole.
        case path(String)
    }

    /// The name on the head unit (`syncFileName`).
    public var name: String
    /// Where the bytes come from: memory or a path on disk.
    public var source: Source
    /// The file's type as PutFile declares it (`GRAPHIC_PNG`, `AUDIO_WAVE`, ...).
    public var fileType: FileType
    /// Persistent files survive the app's session on the head unit.
    public var isPersistent: Bool
    /// Upload even when the head unit already lists a file of this name.
    public var overwrite: Bool

    /// A file to upload as `name`; transient and not overwriting an existing one unless asked.
    public init(name: String, source: Source, fileType: FileType, isPersistent: Bool = false, overwrite: Bool = false) {
        self.name = name
        self.source = source
        self.fileType = fileType
        self.isPersistent = isPersistent
        self.overwrite = overwrite
    }

    /// An image named after a hash of its content, so the same bytes get the same name
    /// (and are found on the head unit instead of uploaded again).
    public static func artwork(_ bytes: [UInt8], fileType: FileType = .graphicPng, isPersistent: Bool = true) -> SDLFile {
        let ext = fileType == .graphicJpeg ? "jpg" : fileType == .graphicBmp ? "bmp" : "png"
        return SDLFile(name: "art-\(String(CRC32.checksum(bytes), radix: 16))-\(bytes.count).\(ext)",
                       source: .data(bytes), fileType: fileType, isPersistent: isPersistent)
    }

    var size: Int? {
        switch source {
        case .data(let bytes): return bytes.count
        case .path(let path): return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        }
    }
}

/// Why a file could not be put on the head unit.
public enum FileUploadError: Error, Sendable, CustomStringConvertible {
    /// The file at `path` could not be opened or read; check that it exists and is readable.
    case unreadable(path: String)
    /// The head unit answered a chunk with a failure (e.g. OUT_OF_MEMORY: its quota is used up).
    case refused(file: String, resultCode: String, info: String?)
    /// The link failed; `uploadedBytes` were acknowledged and a later `upload` resumes there.
    case interrupted(file: String, uploadedBytes: Int, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path): return "cannot read \(path)"
        case .refused(let file, let code, let info): return "the head unit refused \(file): \(code)" + (info.map { " (\($0))" } ?? "")
        case .interrupted(let file, let bytes, let reason):
            return "uploading \(file) stopped after \(bytes) acknowledged bytes: \(reason); upload it again to resume from there"
        }
    }
}

/// Uploads, lists and deletes files on the head unit.
///
/// Files go up in chunks that fit the negotiated frame size, each with its offset, length
/// and CRC-32. The acknowledged offset of every file is remembered: when the link drops
/// mid-upload, uploading the same file again (after the manager reconnected) resumes from
/// there, and the head unit ends with an identical file.
public actor SDLFileManager {
    private let channel: any RPCChannel
    /// Bytes of file data per PutFile.
    public private(set) var chunkSize: Int
    /// File names the head unit has (from ListFiles and successful uploads).
    public private(set) var remoteFiles: Set<String> = []
    /// Free space the head unit reported last.
    public private(set) var bytesAvailable: Int?
    /// Acknowledged bytes of uploads that did not finish, by file name.
    private var resumeOffsets: [String: Int] = [:]
    /// Chunks in flight and the request rate of uploads.
    public private(set) var pacing: UploadPacing
    private var pacer: RequestPacer

    /// A file manager that uploads over `channel`.
    /// - Parameters:
    ///   - channel: where the PutFiles go (an ``SDLManager`` or a connection).
    ///   - chunkSize: data bytes per PutFile; by default what fits one frame of the
    ///     protocol's 131,072-byte payload after the RPC header and JSON.
    ///   - pacing: chunks in flight and the most requests a second (see ``UploadPacing``).
    ///   - clock: the time the rate cap is measured on.
    public init(channel: any RPCChannel, chunkSize: Int = 128 * 1024, pacing: UploadPacing = .standard, clock: LinkClock = .continuous) {
        self.channel = channel
        self.chunkSize = chunkSize
        self.pacing = pacing
        self.pacer = RequestPacer(limit: pacing.maximumRequestsPerSecond, clock: clock)
        self.clock = clock
    }

    private let clock: LinkClock

    /// Changes how uploads pace themselves, from the next chunk on.
    public func setPacing(_ pacing: UploadPacing) {
        self.pacing = pacing
        pacer = RequestPacer(limit: pacing.maximumRequestsPerSecond, clock: clock)
    }

    /// Sets the data bytes per PutFile (at least 1).
    public func setChunkSize(_ size: Int) {
        chunkSize = max(1, size)
    }

    /// Fits chunks to a session's frame size (its payload limit less the RPC header and JSON).
    public func fitChunks(to session: SessionInfo) {
        chunkSize = max(1024, session.maximumSendPayload - 12 - 512)
    }

    /// Whether the head unit has a file of this name.
    public func hasUploaded(_ name: String) -> Bool { remoteFiles.contains(name) }

    /// Refreshes ``remoteFiles`` and ``bytesAvailable`` from ListFiles. A head unit that does
    /// not allow ListFiles yet (DISALLOWED in NONE on some) is not an error: nothing is known.
    public func refresh() async throws(SDLError) {
        let response = try await channel.send(ListFiles(), timeout: nil)
        guard response.success else { return }
        remoteFiles = Set(response.filenames ?? [])
        if let space = response.spaceAvailable { bytesAvailable = space }
    }

    /// Puts a file on the head unit, reporting progress as a fraction 0…1. A file the head
    /// unit already has counts as success unless `overwrite` is set.
    ///
    /// Chunks go out as ``pacing`` allows: a window of them in flight, and no more requests
    /// a second than the head unit's flood limit lets through.
    ///
    /// When the link drops mid-upload and the channel reconnects (``SDLManager`` does, by its
    /// policy), the upload waits for the new registration, asks the head unit what it has,
    /// and goes on from the last acknowledged byte; the head unit ends with the exact bytes.
    /// It fails with ``FileUploadError/interrupted(file:uploadedBytes:reason:)`` only when the
    /// link does not come back.
    ///
    /// A chunk lost on a link that stays up (a noisy serial line: no answer within the request
    /// timeout, or CORRUPTED_DATA) is sent again the same way, from what the head unit has;
    /// four losses in a row at one offset end the upload as interrupted, and so does a head
    /// unit that does not answer ListFiles then either (a stalled link).
    ///
    /// On a socket link the upload runs on the link's reader thread (``RPCChannel/linkExecutor``),
    /// and so does `progress`: keep it short, the next response is read after it returns.
    public func upload(_ file: SDLFile, progress: (@Sendable (Double) -> Void)? = nil) async throws {
        // Chunk after chunk: answers resume the upload on the link's reader thread, not on a
        // pool thread woken for each one.
        try await withTaskExecutorPreference(await channel.linkExecutor) {
            try await transfer(file, progress: progress)
        }
    }

    private func transfer(_ file: SDLFile, progress: (@Sendable (Double) -> Void)?) async throws {
        if !file.overwrite, remoteFiles.contains(file.name), resumeOffsets[file.name] == nil { return }
        guard let total = file.size else {
            if case .path(let path) = file.source { throw FileUploadError.unreadable(path: path) }
            return
        }
        var reader = try ChunkReader(file.source)
        var offset = resumeOffsets[file.name] ?? 0
        SDLLog.files.info("uploading \(file.name): \(total) bytes in chunks of \(chunkSize), \(pacing.window) in flight\(offset > 0 ? ", resuming at \(offset)" : "")")
        /// Offsets to try after a reconnect or a lost chunk, best first; empty while chunks get through.
        var resumeCandidates: [Int] = []
        var losses = LossCount()
        while true {
            // Probing where to resume goes one chunk at a time: a wrong offset is answered
            // INVALID_DATA, and chunks after it would be too.
            let probing = !resumeCandidates.isEmpty
            switch try await sendChunks(of: file, from: offset, total: total, reader: &reader, window: probing ? 1 : pacing.window,
                                        progress: progress) {
            case .finished:
                resumeOffsets[file.name] = nil
                remoteFiles.insert(file.name)
                SDLLog.files.info("\(file.name) uploaded (\(total) bytes)")
                return
            case .refused(let at, let response) where probing && response.resultCode == .invalidData:
                SDLLog.files.debug("\(file.name): the head unit refused offset \(at) (INVALID_DATA); trying \(resumeCandidates[0])")
                offset = resumeCandidates.removeFirst()
            case .refused(let at, let response) where response.resultCode == .corruptedData:
                // The chunk's bytes changed on the way (a noisy serial line): it was not
                // written, and the chunks after it will not be either. Send it again.
                try losses.count(at: at, file: file.name, why: "CORRUPTED_DATA")
                SDLLog.files.info("\(file.name): the chunk at \(at) arrived corrupted; sending it again")
                offset = at
            case .refused(let at, let response) where at > 0 && response.resultCode == .invalidData:
                // The head unit holds another size than the answers said (noise hit a chunk in a
                // way its CRC could not show, say): find where it is, as for a lost chunk.
                try losses.count(at: at, file: file.name, why: "INVALID_DATA at \(at)")
                try await relocate(file.name, acknowledged: at, inFlight: [], why: "INVALID_DATA at \(at)", into: &resumeCandidates)
                offset = resumeCandidates.removeFirst()
                SDLLog.files.info("\(file.name): the head unit refused offset \(at); going on at \(offset)")
            case .lost(let acknowledged, let inFlight, let why):
                // A request or its answer lost on the line, the link still up: where to go on
                // is found as after a reconnect, without waiting for one.
                try losses.count(at: acknowledged, file: file.name, why: why)
                try await relocate(file.name, acknowledged: acknowledged, inFlight: inFlight, why: why, into: &resumeCandidates)
                offset = resumeCandidates.removeFirst()
                SDLLog.files.info("\(file.name): no answer for the chunk at \(acknowledged); going on at \(offset)")
            case .refused(let at, let response):
                resumeOffsets[file.name] = nil
                SDLLog.files.warning("\(file.name): refused at \(at) with \(response.resultCode.rawValue)")
                throw FileUploadError.refused(file: file.name, resultCode: response.resultCode.rawValue, info: response.info)
            case .dropped(let acknowledged, let inFlight):
                // A chunk in flight may or may not have been written: try after the last
                // acknowledged byte, after each chunk in flight, then from the start (core
                // answers INVALID_DATA to an offset that is not the size it has,
                // PutFileRequest / SaveBinary).
                SDLLog.files.info("\(file.name): the link dropped at \(acknowledged) acknowledged bytes; waiting for the reconnect")
                resumeCandidates = try await reconnected(file.name, acknowledged: acknowledged, inFlight: inFlight)
                offset = resumeCandidates.removeFirst()
                SDLLog.files.info("\(file.name): resuming at \(offset) (then \(resumeCandidates.map(String.init).joined(separator: ", ")))")
            }
        }
    }

    /// How one run of chunks ended.
    private enum ChunkRun {
        case finished
        /// The head unit answered the chunk at this offset with a failure.
        case refused(at: Int, PutFileResponse)
        /// The link dropped; `inFlight` are the sizes of the chunks sent after the acknowledged bytes.
        case dropped(acknowledged: Int, inFlight: [Int])
        /// The next chunk's answer did not come in time, the link still up: `why`.
        case lost(acknowledged: Int, inFlight: [Int], why: String)
    }

    /// Chunks lost without one getting through since: a few are a noisy line, more are a head
    /// unit that no longer takes the file.
    private struct LossCount {
        static let limit = 4
        private var at = -1
        private var times = 0

        /// Counts a loss at `offset`; throws once `limit` losses in a row were at the same offset.
        mutating func count(at offset: Int, file: String, why: String) throws {
            times = offset == at ? times + 1 : 1
            at = offset
            guard times >= Self.limit else { return }
            throw FileUploadError.interrupted(file: file, uploadedBytes: offset,
                                              reason: "the chunk at \(offset) did not get through in \(times) tries (last: \(why))")
        }
    }

    /// Sends the file's chunks from `start` with up to `window` unanswered, until all are
    /// acknowledged, one is refused or the link drops. Acknowledged bytes are the unbroken
    /// run of answered chunks from `start`: what ``resumeOffsets`` remembers.
    private func sendChunks(of file: SDLFile, from start: Int, total: Int, reader: inout ChunkReader, window: Int,
                            progress: (@Sendable (Double) -> Void)?) async throws -> ChunkRun {
        reader.seek(to: start)
        var next = start, acknowledged = start, sentAny = false
        /// Chunks sent and not yet acknowledged, in offset order, each with its answer to come.
        var unanswered: [(offset: Int, count: Int, answer: PendingResponse<PutFileResponse>)] = []
        let order = OrderedSubmission.Gate()
        var sentCount = 0
        let direct = channel as? any RequestSubmitting
        // Where a chunk that needs a task of its own is sent from: the link's reader thread,
        // as the upload itself (a task made here would not inherit the preference).
        let linkExecutor = await channel.linkExecutor
        // However the run ends, the answers still to come are no longer wanted.
        defer { for chunk in unanswered { chunk.answer.cancel() } }
        /// The parameters every chunk shares, checked with this run's first chunk (see ``UploadChunk``).
        var checked: JSONObject?
        while true {
            while unanswered.count < window, next < total || !sentAny {
                let bytes = try reader.read(min(chunkSize, total - next))
                let length = next == 0 ? total : bytes.count, crc = Int(CRC32.checksum(bytes))
                var parameters: JSONObject
                if let checked {
                    parameters = checked
                    parameters["offset"] = next.json
                    parameters["length"] = length.json
                    parameters["crc"] = crc.json
                } else {
                    parameters = try PutFile(syncFileName: file.name, fileType: file.fileType, persistentFile: file.isPersistent,
                                             systemFile: false, offset: next, length: length, crc: crc).checkedParameters()
                    checked = parameters
                }
                try await pacer.wait(until: pacer.reserve())
                let answer = await submit(UploadChunk(parameters: parameters, bytes: bytes), through: direct,
                                          ticket: order.ticket(sentCount), from: linkExecutor)
                sentCount += 1
                unanswered.append((next, bytes.count, answer))
                next += bytes.count
                sentAny = true
            }
            guard let (at, count, answer) = unanswered.first else { return .finished }
            let response: PutFileResponse
            do throws(SDLError) {
                response = try await answer.value()
            } catch where error.isLinkFailure {
                resumeOffsets[file.name] = acknowledged
                return .dropped(acknowledged: acknowledged, inFlight: unanswered.map(\.count))
            } catch {
                resumeOffsets[file.name] = acknowledged
                if case .requestTimedOut = error {
                    return .lost(acknowledged: acknowledged, inFlight: unanswered.map(\.count), why: error.description)
                }
                throw FileUploadError.interrupted(file: file.name, uploadedBytes: acknowledged, reason: error.description)
            }
            await direct?.answerTaken()
            if let space = response.spaceAvailable { bytesAvailable = space }
            guard response.success else { return .refused(at: at, response) }
            SDLLog.files.debug("\(file.name): chunk at \(at) acknowledged")
            unanswered.removeFirst()
            acknowledged += count
            resumeOffsets[file.name] = acknowledged
            progress?(total == 0 ? 1 : Double(acknowledged) / Double(total))
            if unanswered.isEmpty && next >= total { return .finished }
        }
    }

    /// Queues a chunk's request behind the ones before it and returns its answer to come. A
    /// channel that can queue it at once (`direct`) does: no task per chunk. Otherwise a task
    /// sends it, holding its place in the order with `ticket`. A failure to queue is the answer.
    private func submit(_ chunk: UploadChunk, through direct: (any RequestSubmitting)?, ticket: OrderedSubmission,
                        from executor: (any TaskExecutor)?) async -> PendingResponse<PutFileResponse> {
        do throws(SDLError) {
            if let direct, let answer = try await direct.submit(chunk) { return answer }
        } catch {
            let failed = PendingResponse<PutFileResponse>()
            failed.settle(.failure(error))
            return failed
        }
        let answer = PendingResponse<PutFileResponse>()
        let channel = self.channel
        let sending = Task(executorPreference: executor) { @Sendable in
            await OrderedSubmission.$current.withValue(ticket) {
                do throws(SDLError) {
                    answer.settle(.success(try await channel.send(chunk.request, timeout: nil)))
                } catch {
                    answer.settle(.failure(error))
                }
            }
        }
        answer.onCancel { sending.cancel() }
        return answer
    }

    /// Asks the head unit what it has and sets the offsets to try; one that does not answer
    /// ListFiles either has stalled, and the upload ends with `why`.
    private func relocate(_ name: String, acknowledged: Int, inFlight: [Int], why: String, into candidates: inout [Int]) async throws {
        do {
            try await refresh()
        } catch {
            throw FileUploadError.interrupted(file: name, uploadedBytes: acknowledged, reason: why)
        }
        candidates = resumeOffsets(name, acknowledged: acknowledged, inFlight: inFlight)
    }

    /// Waits for the channel to reconnect after a dropped link, then lists what the head unit
    /// has: the offsets to resume at, best first (a file it does not list starts again).
    private func reconnected(_ name: String, acknowledged: Int, inFlight: [Int]) async throws -> [Int] {
        if case .gaveUp(let why) = await channel.waitForReconnection() {
            throw FileUploadError.interrupted(file: name, uploadedBytes: acknowledged, reason: why)
        }
        try? await refresh()
        return resumeOffsets(name, acknowledged: acknowledged, inFlight: inFlight)
    }

    /// The offsets to go on at, best first, from what the head unit listed last.
    private func resumeOffsets(_ name: String, acknowledged: Int, inFlight: [Int]) -> [Int] {
        guard acknowledged > 0 || inFlight.first.map({ $0 > 0 }) == true, remoteFiles.contains(name) else { return [0] }
        // After the acknowledged bytes, then after each chunk in flight, then from the start.
        var candidates = [acknowledged]
        for size in inFlight { candidates.append(candidates[candidates.count - 1] + size) }
        return Array(Set(candidates + [0])).sorted { a, b in a == 0 ? false : b == 0 ? true : a < b }
    }

    /// Uploads several files, each tried up to `attempts` times; returns each file's error,
    /// or nil for success. A retry after an interruption resumes where the last one stopped.
    public func upload(_ files: [SDLFile], attempts: Int = 1) async -> [String: (any Error)?] {
        var results: [String: (any Error)?] = [:]
        for file in files {
            var lastError: (any Error)?
            for _ in 0..<max(1, attempts) {
                do {
                    try await upload(file)
                    lastError = nil
                    break
                } catch {
                    lastError = error
                }
            }
            results[file.name] = .some(lastError)
        }
        return results
    }

    /// Deletes several files; returns each file's error, or nil for success.
    public func delete(_ names: [String]) async -> [String: (any Error)?] {
        var results: [String: (any Error)?] = [:]
        for name in names {
            do {
                try await delete(name)
                results[name] = .some(nil)
            } catch {
                results[name] = error
            }
        }
        return results
    }

    /// Deletes a file; a file the head unit does not have is REJECTED by it and thrown.
    public func delete(_ name: String) async throws {
        let response = try await channel.send(DeleteFile(syncFileName: name), timeout: nil)
        if let space = response.spaceAvailable { bytesAvailable = space }
        guard response.success else { throw FileUploadError.refused(file: name, resultCode: response.resultCode.rawValue, info: response.info) }
        remoteFiles.remove(name)
    }

    /// Forgets what the head unit had (after a reconnect the list is read again, and
    /// artwork is uploaded again: sdl_ios's known bug is to assume it is still there).
    public func forgetRemoteFiles() {
        remoteFiles.removeAll()
    }
}

/// Reads a file source in chunks: from memory, or from disk without loading it whole.
private struct ChunkReader {
    private var bytes: [UInt8]?
    private var handle: FileHandle?
    private var path = ""
    private var position = 0

    init(_ source: SDLFile.Source) throws {
        switch source {
        case .data(let data): bytes = data
        case .path(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else { throw FileUploadError.unreadable(path: path) }
            self.handle = handle
            self.path = path
        }
    }

    mutating func seek(to offset: Int) {
        position = offset
    }

    /// The next `count` bytes, fewer at the end of the file: a slice of an in-memory file, or
    /// a file's bytes read at the position straight into the chunk's array (through Data they
    /// were copied twice).
    mutating func read(_ count: Int) throws -> ArraySlice<UInt8> {
        defer { position += count }
        if let bytes { return bytes[position..<min(position + count, bytes.count)] }
        guard let fd = handle?.fileDescriptor else { return [] }
        let start = position
        var failure: Int32 = 0
        let chunk = [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            filled = 0
            while filled < count {
                let got = pread(fd, buffer.baseAddress! + filled, count - filled, off_t(start + filled))
                if got > 0 { filled += got; continue }
                if got < 0, errno == EINTR { continue }
                if got < 0 { failure = errno }
                break  // the end of the file, or an error
            }
        }
        guard failure == 0 else { throw FileUploadError.unreadable(path: "\(path) (\(String(cString: strerror(failure))))") }
        return chunk[...]
    }
}
