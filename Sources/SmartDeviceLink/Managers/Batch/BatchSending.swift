/// The outcome of one request of a batch.
public struct BatchResult<Response: RPCResponse>: Sendable {
    /// The request's position in the batch.
    public var index: Int
    /// The response (also when unsuccessful), or the error that prevented one.
    public var outcome: Result<Response, SDLError>

    /// True when a response arrived and says success.
    public var succeeded: Bool {
        if case .success(let response) = outcome { return response.success }
        return false
    }
}

extension RPCChannel {
    /// Sends requests at once and returns every result, in the order of `requests`, when
    /// all are answered (the iOS guide's "send concurrently").
    public func sendConcurrently<Request: RPCRequest>(_ requests: [Request], timeout: Duration? = nil) async -> [BatchResult<Request.Response>] {
        await withTaskGroup(of: BatchResult<Request.Response>.self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    do throws(SDLError) {
                        return BatchResult(index: index, outcome: .success(try await self.send(request, timeout: timeout)))
                    } catch {
                        return BatchResult(index: index, outcome: .failure(error))
                    }
                }
            }
            var results: [BatchResult<Request.Response>] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.index < $1.index }
        }
    }

    /// Sends requests one after another, reporting progress (completed, total) after each.
    /// Stops early when `progress` returns false, when the task is cancelled, or (with
    /// `stopOnFailure`) at the first unsuccessful response; returns the results so far.
    public func sendSequentially<Request: RPCRequest>(
        _ requests: [Request], stopOnFailure: Bool = false, timeout: Duration? = nil,
        progress: @Sendable (_ completed: Int, _ total: Int) -> Bool = { _, _ in true }
    ) async -> [BatchResult<Request.Response>] {
        var results: [BatchResult<Request.Response>] = []
        for (index, request) in requests.enumerated() {
            if Task.isCancelled { break }
            let result: BatchResult<Request.Response>
            do throws(SDLError) {
                result = BatchResult(index: index, outcome: .success(try await send(request, timeout: timeout)))
            } catch {
                result = BatchResult(index: index, outcome: .failure(error))
            }
            results.append(result)
            let keepGoing = progress(results.count, requests.count)
            if !keepGoing || (stopOnFailure && !result.succeeded) { break }
        }
        return results
    }
}
