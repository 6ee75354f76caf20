import Synchronization

/// Fans values out to any number of async streams, each of which sees every value yielded
/// after it subscribed.
///
/// This is the one subscriber list of the library and the emulator: a stream whose consumer
/// goes away unsubscribes itself, and ``finish()`` (or the list's end) ends every stream,
/// present and future.
package final class Broadcast<Element: Sendable>: Sendable {
    private typealias Subscriber = (id: Int, wanted: (@Sendable (Element) -> Bool)?, continuation: AsyncStream<Element>.Continuation)

    private struct State {
        /// In subscription order. An array, not a dictionary: `yield` takes a snapshot on
        /// every message, and an array's is a retain where a dictionary's values were a new array.
        var subscribers: [Subscriber] = []
        var nextID = 0
        var finished = false
    }

    private let state = Locked(State())
    /// How many subscribe, kept beside `state` and read first: from another module this class
    /// runs unspecialised, and the generic state's metadata, looked up at run time on every
    /// yield, was 1.4% of an emulator round trip with nobody subscribed. Atomics, not a lock
    /// around a tuple: the tuple's metadata was looked up on every yield too (2.7% of the
    /// emulator's reader thread). Written under `state`'s lock, read without.
    private let allCount = Atomic<Int>(0)
    private let unfilteredCount = Atomic<Int>(0)

    package init() {}

    // A stream's consumer waits inside the stream's storage, which the continuation here
    // keeps: unless the streams end with the list, the waiting tasks live forever.
    deinit { finish() }

    /// A new stream of the values yielded from now on, after `initial` when given; already
    /// finished if ``finish()`` ran. With `wanted`, only the values it accepts enter the
    /// stream: it is asked as each value is yielded, so a stream of one notification does
    /// not wake its consumer for every other message.
    package func subscribe(initial: Element? = nil, where wanted: (@Sendable (Element) -> Bool)? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let id: Int? = state.withLock { state in
            if let initial { continuation.yield(initial) }
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.subscribers.append((state.nextID, wanted, continuation))
            recount(state.subscribers)
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            state.withLock { state in
                state.subscribers.removeAll { $0.id == id }
                recount(state.subscribers)
            }
        }
        return stream
    }

    /// Sends `value` to every current subscriber.
    package func yield(_ value: Element) {
        guard hasSubscribers else { return }
        // Yield outside the lock: a consumer's termination handler takes it.
        let targets = state.withLock { $0.subscribers }
        for target in targets where target.wanted?(value) ?? true { target.continuation.yield(value) }
    }

    /// Ends every stream; later subscribers get a finished stream.
    package func finish() {
        let targets = state.withLock { state in
            state.finished = true
            recount([])
            defer { state.subscribers.removeAll() }
            return state.subscribers
        }
        for target in targets { target.continuation.finish() }
    }

    /// Whether anyone listens (to skip building values nobody reads).
    package var hasSubscribers: Bool { allCount.load(ordering: .acquiring) > 0 }

    /// Whether anyone takes every value, with no filter.
    package var hasUnfilteredSubscribers: Bool { unfilteredCount.load(ordering: .acquiring) > 0 }

    private func recount(_ subscribers: [Subscriber]) {
        allCount.store(subscribers.count, ordering: .releasing)
        unfilteredCount.store(subscribers.count { $0.wanted == nil }, ordering: .releasing)
    }
}
