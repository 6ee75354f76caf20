public import Foundation

/// Why a lock screen icon was not fetched, in one line.
public struct LockScreenIconError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    /// An error that says `description`.
    public init(_ description: String) { self.description = description }
}

/// Downloads what a URL holds, within a time and a size: the seam between the lock screen
/// manager and HTTP (``HTTPLockScreenIconFetcher`` by default).
public protocol LockScreenIconFetching: Sendable {
    /// The response's status code, Content-Type and body; throws when the download fails,
    /// takes longer than `timeout`, or the body grows past `limit` bytes.
    func get(_ url: URL, timeout: Duration, limit: Int) async throws(LockScreenIconError) -> (status: Int, contentType: String?, body: [UInt8])
}

/// A download that checks what came: an HTTP(S) URL, a 2xx answer, an image.
enum LockScreenIconDownload {
    static func run(url text: String, fetcher: any LockScreenIconFetching, timeout: Duration, limit: Int) async throws(LockScreenIconError) -> LockScreenIcon {
        guard let url = HTTPExchange.webURL(text) else {
            throw LockScreenIconError("the lock screen icon URL \(text) is not an http(s) URL")
        }
        let (status, contentType, body) = try await fetcher.get(url, timeout: timeout, limit: limit)
        guard (200..<300).contains(status) else { throw LockScreenIconError("the lock screen icon at \(text) answered HTTP \(status)") }
        let declared = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let type = declared.flatMap({ $0.hasPrefix("image/") ? $0 : nil }) ?? imageType(of: body) else {
            throw LockScreenIconError("the lock screen icon at \(text) is not an image (\(declared ?? "no Content-Type"), \(body.count) bytes)")
        }
        return LockScreenIcon(url: text, bytes: body, mimeType: type)
    }

    /// The image type the first bytes announce (PNG, JPEG, GIF, BMP), for a server that did not say.
    static func imageType(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.starts(with: Array("BM".utf8)), bytes.count > 14 { return "image/bmp" }
        return nil
    }
}

/// ``LockScreenIconFetching`` over Foundation's URLSession (HTTP and HTTPS, with the
/// system's certificate store); it stops reading at the size limit.
public struct HTTPLockScreenIconFetcher: LockScreenIconFetching {
    /// A fetcher over Foundation's URLSession.
    public init() {}

    public func get(_ url: URL, timeout: Duration, limit: Int) async throws(LockScreenIconError) -> (status: Int, contentType: String?, body: [UInt8]) {
        do {
            let answer = try await HTTPExchange.run("GET", url, timeout: timeout, limit: limit)
            return (answer.status, answer.contentType, answer.body)
        } catch {
            throw LockScreenIconError("the lock screen icon at \(url.absoluteString): \(error.reason)")
        }
    }
}
