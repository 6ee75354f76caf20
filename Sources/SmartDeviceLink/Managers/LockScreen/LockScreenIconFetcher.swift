public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a lock screen icon was not fetched, in one line.
public struct LockScreenIconError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
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
        // A head unit's URL must not make the app read its own files (file://) or anything but the web.
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
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
    public init() {}

    public func get(_ url: URL, timeout: Duration, limit: Int) async throws(LockScreenIconError) -> (status: Int, contentType: String?, body: [UInt8]) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let download = BoundedDownload(limit: limit)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url)
        // The session's own limits did not always end a server that sends a byte now and then;
        // this one does.
        let deadline = Task {
            try await Task.sleep(for: timeout)
            download.timedOut()
            task.cancel()
        }
        defer { deadline.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { done in
                download.start(task, done)
            }
        } onCancel: {
            task.cancel()
        }
        switch result {
        case .success(let answer): return answer
        case .failure(let failure):
            throw LockScreenIconError("the lock screen icon at \(url.absoluteString): \(failure.reason)")
        }
    }
}

/// URLSession's delegate for one download: collects the body, and cancels at the limit.
private final class BoundedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    typealias Outcome = Result<(status: Int, contentType: String?, body: [UInt8]), Failure>
    struct Failure: Error { var reason: String }

    private struct State {
        var body: [UInt8] = []
        var status = 0
        var contentType: String?
        var failure: String?
        var done: CheckedContinuation<Outcome, Never>?
    }
    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) { self.limit = limit }

    func start(_ task: URLSessionDataTask, _ done: CheckedContinuation<Outcome, Never>) {
        state.withLock { $0.done = done }
        task.resume()
    }

    func timedOut() {
        state.withLock { if $0.failure == nil { $0.failure = "no complete answer in time" } }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        state.withLock { state in
            state.status = http?.statusCode ?? 0
            state.contentType = http?.value(forHTTPHeaderField: "Content-Type")
        }
        if response.expectedContentLength > Int64(limit) {
            state.withLock { $0.failure = "larger than the \(limit)-byte limit (\(response.expectedContentLength) bytes)" }
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state -> Bool in
            state.body.append(contentsOf: data)
            guard state.body.count > limit else { return false }
            state.failure = "larger than the \(limit)-byte limit"
            return true
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (done, outcome) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Outcome) in
            defer { state.done = nil }
            if let failure = state.failure { return (state.done, .failure(Failure(reason: failure))) }
            if let error { return (state.done, .failure(Failure(reason: error.localizedDescription))) }
            return (state.done, .success((state.status, state.contentType, state.body)))
        }
        done?.resume(returning: outcome)
    }
}
