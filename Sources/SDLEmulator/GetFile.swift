import Foundation
import SmartDeviceLink

/// GetFile: an app reads back a file it stored (core's get_file_request.cc): the part asked
/// for (offset, length) in the bulk data, with its CRC-32.
extension HeadUnitEmulator {
    func getFile(_ request: IncomingRequest, _ get: GetFile) {
        guard let app = apps[request.key] else { return }
        let name = get.fileName
        guard Self.isSafeFileName(name), files[app.appID]?[name] != nil else {
            return respond(request, "FILE_NOT_FOUND", info: "File does not exist")
        }
        let key = StoredFileKey(appID: app.appID, name: name)
        storage.close(ifWriting: key)
        guard let data = FileManager.default.contents(atPath: path(of: key)) else {
            return respond(request, "FILE_NOT_FOUND", info: "File does not exist")
        }
        let offset = get.offset ?? 0
        guard offset <= data.count else { return respond(request, "INVALID_DATA", info: "Offset greater than file size") }
        let length = min(get.length ?? (data.count - offset), data.count - offset)
        let part = Array(data[offset..<(offset + length)])
        // core echoes offset and length only when asked for them, and says "File uploaded" (measured).
        var extra: JSONObject = ["crc": .int(Int64(CRC32.checksum(part)))]
        if get.offset != nil { extra["offset"] = .int(Int64(offset)) }
        if get.length != nil { extra["length"] = .int(Int64(length)) }
        respond(request, "SUCCESS", info: "File uploaded", extra, bulkData: part)
    }
}
