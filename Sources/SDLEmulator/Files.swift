import SmartDeviceLink
import Foundation

extension HeadUnitEmulator {
    /// Whether an app-given file name stays inside the app's folder: no path separators,
    /// no "..", no NUL, not empty (core refuses such names).
    static func isSafeFileName(_ name: String) -> Bool {
        // Bytes, not Foundation's String.contains: this runs for every PutFile chunk.
        let bytes = name.utf8
        return !bytes.isEmpty && bytes.count <= 255 && !bytes.starts(with: "..".utf8) && name != "."
            && !bytes.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 }
    }

    /// The app's own folder under the storage root, whatever its app id: letters, digits and
    /// "-" stay, every other byte (".", "/", "_" among them) becomes "_XX", so ids map to
    /// distinct names that are never empty, "." or ".." and never leave the root.
    func folder(of appID: String) -> String {
        var name = appID.isEmpty ? "_" : ""
        for byte in appID.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                name += "_" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return storageRoot + "/" + name
    }

    /// Where `file` is kept on disk.
    func path(of file: StoredFileKey) -> String { folder(of: file.appID) + "/" + file.name }

    private func usedSpace(_ appID: String) -> Int { (files[appID] ?? [:]).values.reduce(0) { $0 + $1.size } }

    private func spaceAvailable(_ appID: String) -> Int { max(0, configuration.storageQuota - usedSpace(appID)) }

    /// core's NONE limits (PutFileRequest, DeleteFileRequest, ListFilesRequest): true when
    /// the request was REJECTED for going beyond one.
    private func overNoneLimit(_ request: IncomingRequest, _ app: AppState, _ limit: KeyPath<FileRequestCounts, Int>,
                               info: String? = nil, _ extra: JSONObject = [:]) -> Bool {
        guard app.hmiLevel == .none, app.fileRequests[keyPath: limit] >= configuration.inNoneLimits[keyPath: limit] else { return false }
        respond(request, "REJECTED", info: info, extra)
        return true
    }

    /// PutFile: chunks by offset/length, CORRUPTED_DATA when `crc` (CRC-32 of this chunk)
    /// does not match, OUT_OF_MEMORY above the quota, INVALID_DATA for names that would
    /// leave the storage folder; answers with spaceAvailable.
    func putFile(_ request: IncomingRequest, _ file: PutFile) {
        guard let app = apps[request.key] else { return }
        guard !overNoneLimit(request, app, \.putFile, info: "Too many requests from the app with HMILevel HMI_NONE",
                             ["spaceAvailable": .int(Int64(spaceAvailable(app.appID)))]) else { return }
        // core checks for the data before the name (put_file_request.cc), and says so in these words.
        guard !request.bulkData.isEmpty else {
            respond(request, "INVALID_DATA", info: "Binary data empty")
            return
        }
        let name = file.syncFileName
        guard Self.isSafeFileName(name) else {
            respond(request, "INVALID_DATA", info: "the file name \"\(name)\" is not a plain file name")
            return
        }
        let data = request.bulkData
        if let crc = file.crc, UInt32(truncatingIfNeeded: crc) != CRC32.checksum(data) {
            // core's words (put_file_request.cc); the computed CRC goes only to its log.
            respond(request, "CORRUPTED_DATA", info: "CRC Check on file failed. File upload has been cancelled, please retry.",
                    ["spaceAvailable": .int(Int64(spaceAvailable(app.appID)))])
            return
        }
        // core (ApplicationManagerImpl::SaveBinary): a chunk at an offset must continue the
        // file exactly where it ends; a gap, a repeat, or the chunk after one that failed its
        // CRC (and so was not written) is INVALID_DATA.
        let offset = file.offset ?? 0
        let existing = offset > 0 ? files[app.appID]?[name] : nil
        if offset > 0, existing?.size != offset {
            respond(request, "INVALID_DATA",
                    info: existing.map { "offset \(offset) does not continue the \($0.size) bytes received" }
                        ?? "offset \(offset) into a file that does not exist",
                    ["spaceAvailable": .int(Int64(spaceAvailable(app.appID)))])
            return
        }
        let newSize = offset + data.count
        let oldSize = files[app.appID]?[name]?.size ?? 0
        if usedSpace(app.appID) - oldSize + newSize > configuration.storageQuota {
            respond(request, "OUT_OF_MEMORY", info: "the app's storage quota of \(configuration.storageQuota) bytes is used up",
                    ["spaceAvailable": .int(Int64(spaceAvailable(app.appID)))])
            return
        }
        let stored = StoredFileKey(appID: app.appID, name: name)
        do {
            if offset == 0 { try FileManager.default.createDirectory(atPath: folder(of: app.appID), withIntermediateDirectories: true) }
            try storage.write(data, to: stored, at: path(of: stored), appending: offset > 0)
        } catch {
            respond(request, "GENERIC_ERROR", info: "storage failed: \(error)")
            return
        }
        if files[app.appID]?[name] == nil { apps[request.key]?.fileRequests.putFile += 1 }
        let persistent = file.persistentFile ?? existing?.persistent ?? false
        files[app.appID, default: [:]][name] = StoredFile(name: name, persistent: persistent, size: newSize, fileType: file.fileType.rawValue)
        // core (PutFileRequest::on_event): every stored chunk answers with this info.
        respond(request, "SUCCESS", info: "File was downloaded", ["spaceAvailable": .int(Int64(spaceAvailable(app.appID)))])
    }

    /// ListFiles: the app's file names and its free space.
    func listFiles(_ request: IncomingRequest) {
        guard let app = apps[request.key], !overNoneLimit(request, app, \.listFiles) else { return }
        apps[request.key]?.fileRequests.listFiles += 1
        // In the order the file system lists the app's folder, as core's file_system::ListFiles
        // (readdir) does; a file the folder lost meanwhile is not listed.
        let known = files[app.appID] ?? [:]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder(of: app.appID))) ?? []).filter { known[$0] != nil }.map(JSONValue.string)
        var extra: JSONObject = ["spaceAvailable": .int(Int64(spaceAvailable(app.appID)))]
        if !names.isEmpty { extra["filenames"] = .array(names) }
        respond(request, "SUCCESS", extra)
    }

    /// DeleteFile: REJECTED for a file the app does not have.
    func deleteFile(_ request: IncomingRequest, name: String) {
        guard let app = apps[request.key], !overNoneLimit(request, app, \.deleteFile) else { return }
        guard Self.isSafeFileName(name) else {
            respond(request, "INVALID_DATA", info: "the file name \"\(name)\" is not a plain file name")
            return
        }
        guard files[app.appID]?[name] != nil else {
            respond(request, "REJECTED")  // core says nothing more (delete_file_request.cc; seen on 8.2)
            return
        }
        removeStoredFile(StoredFileKey(appID: app.appID, name: name))
        if appIcons[app.appID] == name { appIcons[app.appID] = nil }
        apps[request.key]?.fileRequests.deleteFile += 1
        respond(request, "SUCCESS", ["spaceAvailable": .int(Int64(spaceAvailable(app.appID)))])
    }

    /// SetAppIcon: REJECTED when the file was never put.
    func setAppIcon(_ request: IncomingRequest, name: String) {
        guard let app = apps[request.key] else { return }
        guard Self.isSafeFileName(name) else {
            respond(request, "INVALID_DATA", info: "Sync file name contains forbidden symbols.")  // set_app_icon_request.cc
            return
        }
        guard files[app.appID]?[name] != nil else {
            respond(request, "INVALID_DATA")  // set_app_icon_request.cc: no such file
            return
        }
        appIcons[app.appID] = name
        respond(request, "SUCCESS")
    }

    /// A stored file goes: from the disk (its upload's open file closed first) and from the list.
    func removeStoredFile(_ stored: StoredFileKey) {
        storage.close(ifWriting: stored)
        try? FileManager.default.removeItem(atPath: path(of: stored))
        files[stored.appID]?[stored.name] = nil
    }

    /// Session (non-persistent) files go when the app unregisters or drops.
    func deleteSessionFiles(of appID: String) {
        for file in (files[appID] ?? [:]).values where !file.persistent {
            removeStoredFile(StoredFileKey(appID: appID, name: file.name))
            if appIcons[appID] == file.name { appIcons[appID] = nil }
        }
    }
}

/// One app's stored file.
struct StoredFileKey: Equatable {
    var appID: String
    var name: String
}

extension HeadUnitEmulator {
    /// The HMI asks the app for a file again (UI.OnUpdateFile): core passes on the name
    /// without its path (OnUpdateFile).
    func requestFileUpdate(_ fileName: String, appID: String?) throws(EmulatorError) {
        let key = try resolve(appID)
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        if mayReceive(key, "OnUpdateFile") { notify(key, "OnUpdateFile", ["fileName": .string(name)]) }
    }
}

/// The file an upload is writing to, kept open from chunk to chunk.
///
/// core opens, appends and closes the file for every chunk; opening and closing were a
/// fifth of the emulator's disk work per 64 KiB chunk (measured with perf), on the thread that
/// also reads the link. What an app sees is the same: each chunk is on disk before its answer.
final class UploadStorage {
    private var open: (file: StoredFileKey, fd: Int32)?

    /// Appends `bytes` to `file`, or writes it anew when not `appending`; from the bytes
    /// received (a Data copy and FileHandle cost a tenth of an upload). The file's `path` is
    /// built only to open it: building it for every chunk was 1% of the reader thread.
    func write(_ bytes: ArraySlice<UInt8>, to file: StoredFileKey, at path: @autoclosure () -> String,
               appending: Bool) throws(Microphone.Failure) {
        let fd: Int32
        if appending, let open, open.file == file, Self.isLinked(open.fd) {
            fd = open.fd
        } else {
            close()
            let path = path()
            fd = Glibc.open(path, O_WRONLY | O_CLOEXEC | (appending ? O_APPEND : O_CREAT | O_TRUNC), 0o644)
            guard fd >= 0 else { throw Microphone.Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
            open = (file, fd)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                close()
                throw Microphone.Failure(description: "cannot write \(path()): \(reason)")
            }
            written += count
        }
    }

    /// Whether the open file still has a name: one deleted behind the emulator's back must
    /// fail the next chunk as a fresh open would, not take it into a file nobody can read.
    private static func isLinked(_ fd: Int32) -> Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && status.st_nlink > 0
    }

    /// Closes `file` if it is the one open (before it is deleted).
    func close(ifWriting file: StoredFileKey) {
        if open?.file == file { close() }
    }

    func close() {
        if let open { Glibc.close(open.fd) }
        open = nil
    }

    deinit { close() }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
