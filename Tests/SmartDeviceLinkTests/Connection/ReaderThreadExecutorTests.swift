#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import SmartDeviceLink
import Testing

/// A task that prefers a socket's reader executor runs on the reader thread when the reader
/// resumes it, before the reader reads again; when anything else resumes it, it runs on the
/// pool at once and never waits for the reader.
@Suite("Reader-thread executor: run where the read happened, never wait for the reader")
struct ReaderThreadExecutorTests {
    /// The thread running the caller. (Foundation's `Thread.current` is not reliable inside
    /// a job run on a thread of our own: it named the pool's thread there.)
    static func currentThread() -> pthread_t { pthread_self() }

    /// A task preferring `executor` that suspends, then records where it was resumed.
    struct Waiter {
        /// Its continuation, handed over once the task is suspended.
        let parked: AsyncStream<CheckedContinuation<Void, Never>>
        let resumedOn = Locked<pthread_t?>(nil)
        let task: Task<Void, Never>

        init(on executor: ReaderThreadExecutor) {
            let (parked, handOver) = AsyncStream.makeStream(of: CheckedContinuation<Void, Never>.self)
            let resumedOn = resumedOn
            self.parked = parked
            task = Task(executorPreference: executor) {
                await withCheckedContinuation { handOver.yield($0) }
                resumedOn.withLock { $0 = ReaderThreadExecutorTests.currentThread() }
            }
        }

        /// Its continuation, once it is suspended.
        func continuation() async throws -> CheckedContinuation<Void, Never> {
            var handed = parked.makeAsyncIterator()
            return try #require(await handed.next())
        }
    }

    /// Runs `body` on a thread of its own, and returns when it has.
    static func onThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                body()
                done.resume()
            }
            thread.start()
        }
    }

    @Test("resumed by the reader thread, the task has run there by the time the reader goes on", .timeLimit(.minutes(1)))
    func runsOnReaderThread() async throws {
        let executor = ReaderThreadExecutor()
        let waiter = Waiter(on: executor)
        let continuation = try await waiter.continuation()
        let seenByReader = Locked<(reader: pthread_t, resumedOn: pthread_t?)?>(nil)
        await Self.onThread {
            executor.readerStarted()
            continuation.resume()
            executor.runReadyJobs()
            seenByReader.withLock { $0 = (pthread_self(), waiter.resumedOn.withLock { $0 }) }
            executor.readerEnded()
        }
        await waiter.task.value
        let seen = try #require(seenByReader.withLock { $0 })
        let resumedOn = try #require(seen.resumedOn, "the task had not run when the reader went on")
        #expect(pthread_equal(resumedOn, seen.reader) != 0)
    }

    @Test("resumed by another thread while the reader is blocked, the task runs on the pool at once", .timeLimit(.minutes(1)))
    func othersGoToThePool() async throws {
        let executor = ReaderThreadExecutor()
        let (started, reportStart) = AsyncStream.makeStream(of: pthread_t.self)
        let release = DispatchSemaphore(value: 0)
        let reader = Task {
            await Self.onThread {
                executor.readerStarted()
                reportStart.yield(pthread_self())
                release.wait()  // as in recv, waiting for bytes that do not come
                executor.readerEnded()
            }
        }
        var starts = started.makeAsyncIterator()
        let blockedReader = try #require(await starts.next())
        let waiter = Waiter(on: executor)
        try await waiter.continuation().resume()
        await waiter.task.value
        let resumedOn = try #require(waiter.resumedOn.withLock { $0 })
        #expect(pthread_equal(resumedOn, blockedReader) == 0)
        release.signal()
        await reader.value

        // After the reader ended, a job made ready on a thread goes to the pool, not to it.
        let late = Waiter(on: executor)
        let continuation = try await late.continuation()
        let resumer = Locked<pthread_t?>(nil)
        await Self.onThread {
            resumer.withLock { $0 = pthread_self() }
            continuation.resume()
        }
        await late.task.value
        let lateResumedOn = try #require(late.resumedOn.withLock { $0 })
        #expect(pthread_equal(lateResumedOn, try #require(resumer.withLock { $0 })) == 0)
    }
}
