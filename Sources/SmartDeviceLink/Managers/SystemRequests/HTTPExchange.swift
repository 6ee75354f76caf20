import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request within a time and a size, over Foundation's URLSession (HTTP and HTTPS
/// with the system's certificate store): what the lock screen icon, a policy table update
/// and a cloud app's icon each need from the web.
enum HTTPExchange {
    struct Answer: Sendable {
        var status: Int
        var contentType: String?
        var body: [UInt8]
    }

    /// Why an exchange gave no answer, in words that fit after "the … at URL: ".
    struct Failure: Error, Sendable { var reason: String }

    /// Sends `method` to `url` with `headers` and `body`; throws when the exchange fails, takes
    /// longer than `timeout`, or the answer's body grows past `limit` bytes.
    static func run(_ method: String, _ url: URL, headers: [String: String] = [:], body: [UInt8]? = nil,
                    timeout: Duration, limit: Int) async throws(Failure) -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = method
        // URLSession's own limit a little later than ours, so that ours ends it, in our words.
        request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18 + 5
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body) }
        let download = BoundedDownload(limit: limit)
        let task = HTTPSession.shared.session.dataTask(with: request)
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
                HTTPSession.shared.start(task, download)
            }
        } onCancel: {
            task.cancel()
        }
        switch result {
        case .success(let answer): return answer
        case .failure(let failure): throw failure
        }
    }

    /// Whether `text` is a URL the head unit may send the app to: http or https only, so a
    /// head unit's URL cannot make the app read its own files (file://) or anything but the web.
    static func webURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false else { return nil }
        return url
    }
}

/// One URLSession for every download of the process, as URLSession is meant to be used: a
/// session per download left libcurl's handles behind on Linux (LeakSanitizer saw them). Its
/// delegate passes each task's callbacks to that download.
private final class HTTPSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    static let shared = HTTPSession()
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

    // A policy server that redirects is followed no further: the answer is the server's own.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(task.originalRequest?.httpMethod == "GET" ? request : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let finished = downloads.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        finished?.completed(error)
    }
}

/// One download: collects the body, and says stop at the limit.
private final class BoundedDownload: @unchecked Sendable {
    typealias Outcome = Result<HTTPExchange.Answer, HTTPExchange.Failure>

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
            if let failure = state.failure { return .failure(.init(reason: failure)) }
            if let timedOut = error as? URLError, timedOut.code == .timedOut { return .failure(.init(reason: "no complete answer in time")) }
            if let error { return .failure(.init(reason: error.localizedDescription)) }
            return .success(.init(status: state.status, contentType: state.contentType, body: state.body))
        }
        done?.resume(returning: outcome)
        done = nil
    }
}
