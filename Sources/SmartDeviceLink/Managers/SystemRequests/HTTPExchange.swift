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
            download.stop(task, because: "no complete answer in time")
        }
        defer { deadline.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { done in
                if download.wait(done) { HTTPSession.shared.start(task, download) }
            }
        } onCancel: {
            download.stop(task, because: "cancelled")
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
        let configuration = URLSessionConfiguration.ephemeral
        // No cache. Nothing here is worth one (each exchange wants the server's answer now),
        // and with one, FoundationNetworking looks each answer up on another queue, where a
        // cancel that lands can fail a task that has already finished: a fatal error.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
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
        guard let download = download(dataTask), !download.received(data) else { return }
        download.stop(dataTask, because: "larger than the limit")
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

/// One download: collects the body, says stop at the limit, and ends the exchange once, with
/// whichever comes first: the answer, the limit, the deadline, or cancellation.
private final class BoundedDownload: Sendable {
    typealias Outcome = Result<HTTPExchange.Answer, HTTPExchange.Failure>

    private struct State {
        var body: [UInt8] = []
        var status = 0
        var contentType: String?
        /// Why the exchange ends without its answer, once something says so.
        var failure: String?
        /// The exchange waiting for its outcome; nil before it waits and after it has it.
        var done: CheckedContinuation<Outcome, Never>?
        /// The outcome is given (or the exchange was cancelled before it waited).
        var ended = false
    }
    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) { self.limit = limit }

    /// Waits for the outcome; false when it is already known (cancelled before it began):
    /// then `done` has it and the task is not to start.
    func wait(_ done: CheckedContinuation<Outcome, Never>) -> Bool {
        let failure: String? = state.withLock { state in
            guard state.ended else {
                state.done = done
                return nil
            }
            return state.failure ?? "cancelled"
        }
        guard let failure else { return true }
        done.resume(returning: .failure(.init(reason: failure)))
        return false
    }

    /// Ends the exchange with `reason` (unless a reason came first) and cancels `task`, once
    /// and only while it runs: FoundationNetworking fails on a task cancelled after it has
    /// left its session.
    func stop(_ task: URLSessionTask, because reason: String) {
        let (running, done, failure): (Bool, CheckedContinuation<Outcome, Never>?, String) = state.withLock { state in
            if state.failure == nil { state.failure = reason }
            let failure = state.failure ?? reason
            guard !state.ended else { return (false, nil, failure) }
            state.ended = true
            defer { state.done = nil }
            return (state.done != nil, state.done, failure)
        }
        done?.resume(returning: .failure(.init(reason: failure)))
        if running { task.cancel() }
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

    /// The task has completed: the outcome, unless the exchange has ended already.
    func completed(_ error: (any Error)?) {
        let (done, outcome): (CheckedContinuation<Outcome, Never>?, Outcome) = state.withLock { state in
            let outcome: Outcome
            if let failure = state.failure {
                outcome = .failure(.init(reason: failure))
            } else if let timedOut = error as? URLError, timedOut.code == .timedOut {
                outcome = .failure(.init(reason: "no complete answer in time"))
            } else if let error {
                outcome = .failure(.init(reason: error.localizedDescription))
            } else {
                outcome = .success(.init(status: state.status, contentType: state.contentType, body: state.body))
            }
            state.ended = true
            defer { state.done = nil }
            return (state.done, outcome)
        }
        done?.resume(returning: outcome)
    }
}
