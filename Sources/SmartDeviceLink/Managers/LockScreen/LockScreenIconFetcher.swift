public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
    /// A fetcher over Foundation's URLSession.
    public init() {}

    public func get(_ url: URL, timeout: Duration, limit: Int) async throws(LockScreenIconError) -> (status: Int, contentType: String?, body: [UInt8]) {
        var request = URLRequest(url: url)
        request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let download = BoundedDownload(limit: limit)
        let task = IconSession.shared.session.dataTask(with: request)
        // URLSession's own limit did not always end a server that sends a byte now and then;
        // this one does.
        let deadline = Task {
            try await Task.sleep(for: timeout)
            download.timedOut()
            task.cancel()
        }
        defer { deadline.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { done in
                download.done = done
                IconSession.shared.start(task, download)
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

/// One URLSession for every icon download of the process, as URLSession is meant to be
/// used: a session per download left libcurl's handles behind on Linux (LeakSanitizer saw
/// them). Its delegate passes each task's callbacks to that download.
private final class IconSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    static let shared = IconSession()
    private(set) var session: URLSession!
    private let downloads = Locked<[Int: BoundedDownload]>([:])

    override private init() {
        super.init()
        session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    }

    func start(_ task: URLSessionDataTask, _ download: BoundedDownload) {
        downloads.withLock { $0[task.taskIdentifier] = download }
        task.resume()
    }

    private func download(_ task: URLSessionTask) -> BoundedDownload? { downloads.withLock { $0[task.taskIdentifier] } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        completionHandler(download(dataTask)?.received(response) ?? false ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if download(dataTask)?.received(data) == false { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let finished = downloads.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        finished?.completed(error)
    }
}

/// One download: collects the body, and says stop at the limit.
private final class BoundedDownload: @unchecked Sendable {
    typealias Outcome = Result<(status: Int, contentType: String?, body: [UInt8]), Failure>
    struct Failure: Error { var reason: String }

    private struct State {
        var body: [UInt8] = []
        var status = 0
        var contentType: String?
        var failure: String?
    }
    private let limit: Int
    private let state = Locked(State())
    /// Set before the task starts; resumed once, when it completes.
    var done: CheckedContinuation<Outcome, Never>?

    init(limit: Int) { self.limit = limit }

    func timedOut() {
        state.withLock { if $0.failure == nil { $0.failure = "no complete answer in time" } }
    }

    /// The response's head; false: stop (it announces more than the limit).
    func received(_ response: URLResponse) -> Bool {
        let http = response as? HTTPURLResponse
        return state.withLock { state in
            state.status = http?.statusCode ?? 0
            state.contentType = http?.value(forHTTPHeaderField: "Content-Type")
            guard response.expectedContentLength <= Int64(limit) else {
                state.failure = "larger than the \(limit)-byte limit (\(response.expectedContentLength) bytes)"
                return false
            }
            return true
        }
    }

    /// More of the body; false: stop (past the limit).
    func received(_ data: Data) -> Bool {
        state.withLock { state in
            state.body.append(contentsOf: data)
            guard state.body.count > limit else { return true }
            state.failure = "larger than the \(limit)-byte limit"
            return false
        }
    }

    func completed(_ error: (any Error)?) {
        let outcome: Outcome = state.withLock { state in
            if let failure = state.failure { return .failure(Failure(reason: failure)) }
            if let error { return .failure(Failure(reason: error.localizedDescription)) }
            return .success((state.status, state.contentType, state.body))
        }
        done?.resume(returning: outcome)
        done = nil
    }
}
