import Logging
import Foundation

/// A file to put on the head unit.
public struct SDLFile: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        case data([UInt8])
        /// Read from disk chunk by chunk; never held in memory whole.
        case path(String)
    }

    /// The name on the head unit (`syncFileName`).
    public var name: String
    public var source: Source
    public var fileType: FileType
    /// Persistent files survive the app's session on the head unit.
    public var isPersistent: Bool
    /// Upload even when the head unit already lists a file of this name.
    public var overwrite: Bool

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

    /// - Parameter chunkSize: data bytes per PutFile; by default what fits one frame of
    ///   the protocol's 131,072-byte payload after the RPC header and JSON.
    public init(channel: any RPCChannel, chunkSize: Int = 128 * 1024) {
        self.channel = channel
        self.chunkSize = chunkSize
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
    /// When the link drops mid-upload and the channel reconnects (``SDLManager`` does, by its
    /// policy), the upload waits for the new registration, asks the head unit what it has,
    /// and goes on from the last acknowledged byte; the head unit ends with the exact bytes.
    /// It fails with ``FileUploadError/interrupted(file:uploadedBytes:reason:)`` only when the
    /// link does not come back.
    public func upload(_ file: SDLFile, progress: (@Sendable (Double) -> Void)? = nil) async throws {
        if !file.overwrite, remoteFiles.contains(file.name), resumeOffsets[file.name] == nil { return }
        guard let total = file.size else {
            if case .path(let path) = file.source { throw FileUploadError.unreadable(path: path) }
            return
        }
        var reader = try ChunkReader(file.source)
        var offset = resumeOffsets[file.name] ?? 0
        SDLLog.files.info("uploading \(file.name): \(total) bytes in chunks of \(chunkSize)\(offset > 0 ? ", resuming at \(offset)" : "")")
        /// Offsets to try after a reconnect, best first; empty while the link holds.
        var resumeCandidates: [Int] = []
        try reader.seek(to: offset)
        repeat {
            let chunk = try reader.read(min(chunkSize, total - offset))
            var request = PutFile(
                syncFileName: file.name, fileType: file.fileType, persistentFile: file.isPersistent, systemFile: false,
                offset: offset, length: offset == 0 ? total : chunk.count, crc: Int(CRC32.checksum(chunk)))
            request.bulkData = chunk
            let response: PutFileResponse
            do {
                response = try await channel.send(request, timeout: nil)
            } catch {
                resumeOffsets[file.name] = offset
                guard error.isLinkFailure else {
                    throw FileUploadError.interrupted(file: file.name, uploadedBytes: offset, reason: error.description)
                }
                // The chunk in flight may or may not have been written: try at it, after it,
                // then from the start (core answers INVALID_DATA to an offset that is not
                // the size it has, PutFileRequest / SaveBinary).
                SDLLog.files.info("\(file.name): the link dropped at \(offset) acknowledged bytes; waiting for the reconnect")
                resumeCandidates = try await reconnected(file.name, acknowledged: offset, inFlight: chunk.count)
                offset = resumeCandidates.removeFirst()
                SDLLog.files.info("\(file.name): resuming at \(offset) (then \(resumeCandidates.map(String.init).joined(separator: ", ")))")
                try reader.seek(to: offset)
                continue
            }
            if let space = response.spaceAvailable { bytesAvailable = space }
            if response.resultCode == .invalidData, !resumeCandidates.isEmpty {
                SDLLog.files.debug("\(file.name): the head unit refused offset \(offset) (INVALID_DATA); trying \(resumeCandidates[0])")
                offset = resumeCandidates.removeFirst()
                try reader.seek(to: offset)
                continue
            }
            guard response.success else {
                resumeOffsets[file.name] = nil
                SDLLog.files.warning("\(file.name): refused at \(offset) with \(response.resultCode.rawValue)")
                throw FileUploadError.refused(file: file.name, resultCode: response.resultCode.rawValue, info: response.info)
            }
            resumeCandidates = []
            SDLLog.files.debug("\(file.name): chunk at \(offset), \(chunk.count) bytes, acknowledged")
            offset += chunk.count
            resumeOffsets[file.name] = offset
            progress?(total == 0 ? 1 : Double(offset) / Double(total))
        } while offset < total
        resumeOffsets[file.name] = nil
        remoteFiles.insert(file.name)
        SDLLog.files.info("\(file.name) uploaded (\(total) bytes)")
    }

    /// Waits for the channel to reconnect after a dropped link, then lists what the head unit
    /// has: the offsets to resume at, best first (a file it does not list starts again).
    private func reconnected(_ name: String, acknowledged: Int, inFlight: Int) async throws -> [Int] {
        if case .gaveUp(let why) = await channel.waitForReconnection() {
            throw FileUploadError.interrupted(file: name, uploadedBytes: acknowledged, reason: why)
        }
        try? await refresh()
        guard acknowledged > 0, remoteFiles.contains(name) else { return [0] }
        return [acknowledged, acknowledged + inFlight, 0]
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
    private var position = 0

    init(_ source: SDLFile.Source) throws {
        switch source {
        case .data(let data): bytes = data
        case .path(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else { throw FileUploadError.unreadable(path: path) }
            self.handle = handle
        }
    }

    mutating func seek(to offset: Int) throws {
        position = offset
        try handle?.seek(toOffset: UInt64(offset))
    }

    mutating func read(_ count: Int) throws -> [UInt8] {
        defer { position += count }
        if let bytes { return Array(bytes[position..<min(position + count, bytes.count)]) }
        return Array(try handle?.read(upToCount: count) ?? Data())
    }
}
