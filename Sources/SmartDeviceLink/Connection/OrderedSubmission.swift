/// Requests that must reach the wire in a given order although they are sent from
/// concurrent tasks: the chunks of an upload in flight together (sdl_core writes a PutFile
/// only at the offset that continues what it has).
///
/// The sender gives each task a ticket, its place in the sequence, as a task-local value;
/// ``SDLConnection`` holds a request back until every request before it in the sequence was
/// queued or given up. A task-local, because between the sender and the connection a
/// request passes managers and tools (the scenario runner reports each one) that need not
/// know about the order.
package struct OrderedSubmission: Sendable {
    package let gate: Gate
    package let index: Int

    @TaskLocal package static var current: OrderedSubmission?

    /// One sequence of requests.
    package final class Gate: Sendable {
        private struct State {
            var next = 0
            var finished: Set<Int> = []
            var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        }
        private let state = Locked(State())

        package init() {}

        /// The ticket of the `index`-th request.
        package func ticket(_ index: Int) -> OrderedSubmission { OrderedSubmission(gate: self, index: index) }

        /// Returns once every earlier request is through, or at once when the task is cancelled.
        /// Any ``RPCChannel`` that queues requests honours a ticket this way: wait for the
        /// turn, queue the request, then ``finished(_:)``.
        package func waitForTurn(_ index: Int) async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state in
                        guard state.next < index, !Task.isCancelled else { return true }
                        state.waiters[index] = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: index) }?.resume()
            }
        }

        /// The `index`-th request was queued, or will never be: the next may go. Saying it
        /// again changes nothing.
        package func finished(_ index: Int) {
            let woken = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard index >= state.next else { return nil }
                state.finished.insert(index)
                while state.finished.remove(state.next) != nil { state.next += 1 }
                return state.waiters.removeValue(forKey: state.next)
            }
            woken?.resume()
        }
    }
}
