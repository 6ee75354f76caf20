import Foundation

/// Why an exchange ended before the head unit got anything: one line, after "… failed: ".
struct SystemRequestFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The three exchanges: each returns the bytes to hand the head unit, or says why there are none.
extension SystemRequestManager {
    /// PROPRIETARY: the snapshot comes wrapped as `{"HTTPRequest": {"headers": {…}, "body": "…"}}`
    /// (sdl_core's form); the body goes to the URL as the headers say, the answer comes back.
    nonisolated func proprietary(_ request: OnSystemRequest) async throws(SystemRequestFailure) -> [UInt8] {
        let url = try webURL(request)
        if let type = request.fileType, type != .json {
            throw SystemRequestFailure("its file type is \(type.rawValue), and a policy snapshot comes as JSON")
        }
        var snapshot = request.bulkData ?? []
        if let encryption = configuration.encryption {
            do { snapshot = try await encryption.decrypt(snapshot) } catch {
                throw SystemRequestFailure("the OEM decryption of the snapshot failed: \(error)")
            }
        }
        guard case .object(let wrapper)? = try? JSONValue.parse(snapshot), case .object(let http)? = wrapper["HTTPRequest"],
              let body = http["body"]?.stringValue else {
            throw SystemRequestFailure("the head unit's snapshot is not {\"HTTPRequest\": {\"body\": …}} JSON (\(snapshot.count) bytes)")
        }
        let headers = http["headers"]?.objectValue ?? [:]
        let answer = try await fetch(headers["RequestMethod"]?.stringValue ?? "POST", url, from: "the policy server",
                                     contentType: headers["ContentType"]?.stringValue ?? "application/json", body: Array(body.utf8),
                                     timeout: timeout(headers))
        guard let encryption = configuration.encryption else {
            // Core reads the update as JSON; anything else would only be refused there, later and silently.
            guard case .object? = try? JSONValue.parse(answer) else {
                throw SystemRequestFailure("the server's answer is not a JSON policy table (\(answer.count) bytes), so it was not passed on")
            }
            return answer
        }
        do { return try await encryption.encrypt(answer) } catch {
            throw SystemRequestFailure("the OEM encryption of the server's answer failed: \(error)")
        }
    }

    /// HTTP: the snapshot is the bulk data itself, posted as it is.
    nonisolated func http(_ request: OnSystemRequest) async throws(SystemRequestFailure) -> [UInt8] {
        let url = try webURL(request)
        guard let snapshot = request.bulkData, !snapshot.isEmpty else { throw SystemRequestFailure("the head unit sent no snapshot to post") }
        return try await fetch("POST", url, from: "the policy server", contentType: "application/json", body: snapshot,
                               timeout: configuration.timeout)
    }

    /// ICON_URL: the cloud app's icon, fetched for the head unit.
    nonisolated func icon(_ request: OnSystemRequest) async throws(SystemRequestFailure) -> [UInt8] {
        try await fetch("GET", try webURL(request), from: "the icon's server", timeout: configuration.timeout, emptyAnswer: "no icon")
    }

    /// Sends what the server gave to the head unit.
    nonisolated func deliver<Request: RPCRequest>(_ request: Request) async throws(SystemRequestFailure) -> SystemRequestEvent.Outcome {
        do {
            let response = try await channel.send(request, timeout: nil)
            return .delivered(response.resultCode, info: response.info)
        } catch {
            throw SystemRequestFailure("the answer did not reach the head unit: \(error)")
        }
    }

    /// The body `server` answers `method` with: a 2xx with something in it, or why not.
    private nonisolated func fetch(_ method: String, _ url: URL, from server: String, contentType: String? = nil, body: [UInt8]? = nil,
                                   timeout: Duration, emptyAnswer: String = "nothing") async throws(SystemRequestFailure) -> [UInt8] {
        let answer: HTTPExchange.Answer
        do {
            answer = try await HTTPExchange.run(method, url, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: body,
                                                timeout: timeout, limit: configuration.sizeLimit)
        } catch {
            throw SystemRequestFailure("no answer from \(server): \(error.reason)")
        }
        guard (200..<300).contains(answer.status) else { throw SystemRequestFailure("\(server) answered HTTP \(answer.status)") }
        guard !answer.body.isEmpty else { throw SystemRequestFailure("\(server) answered with \(emptyAnswer)") }
        return answer.body
    }

    private nonisolated func webURL(_ request: OnSystemRequest) throws(SystemRequestFailure) -> URL {
        guard let text = request.url else { throw SystemRequestFailure("the head unit named no URL") }
        guard let url = HTTPExchange.webURL(text) else { throw SystemRequestFailure("\(text) is not an http(s) URL") }
        return url
    }

    /// The head unit's ConnectTimeout + ReadTimeout (seconds) when it gives them, within the configuration's.
    private nonisolated func timeout(_ headers: JSONObject) -> Duration {
        let seconds = (headers["ConnectTimeout"]?.intValue ?? 0) + (headers["ReadTimeout"]?.intValue ?? 0)
        return seconds > 0 ? min(.seconds(seconds), configuration.timeout) : configuration.timeout
    }
}
