import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets the task that consumes a socket's reads run on the socket's reader thread.
///
/// A read resumes the task waiting for it (the link's reader). On the global pool that is a
/// second thread to wake for every message, and when that task in turn resumes a request's
/// caller, a third. On the 2-core machine kind a wake-up cost 11 µs in a socketpair
/// experiment, and 2 to 4 µs of a 23 µs loopback echo in sdl-benchmark. A task that
/// prefers this executor (`Task(executorPreference:)`) is resumed on the reader thread
/// itself, which is awake anyway: the reader runs the jobs its own yield made ready before
/// it reads again.
///
/// Jobs that become ready on any other thread (the task waited for an actor another thread
/// held, say) run on the global pool as before: the reader thread blocks in `recv` and can
/// take nothing from outside, and a job must never wait for the next read. So this executor
/// only ever saves a hop and never delays one.
package final class ReaderThreadExecutor: TaskExecutor, Sendable {
    private struct State {
        /// The reader thread while it runs its loop; nil before and after.
        var reader: pthread_t?
        var ready: [UnownedJob] = []
        /// The jobs being run; swapped with `ready` so that neither array is allocated again.
        var running: [UnownedJob] = []
    }

    private let state = Locked(State())

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let taken = state.withLock { state -> Bool in
            guard let reader = state.reader, pthread_equal(reader, pthread_self()) != 0 else { return false }
            state.ready.append(unowned)
            return true
        }
        if !taken { runOnPool(unowned) }
    }

    /// Runs `job` on a thread of the global pool, as this executor's. Handing it to the global
    /// executor instead would make that the task's executor: its next resumption, even by the
    /// reader thread, would go to the pool too.
    private func runOnPool(_ job: UnownedJob) {
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Called by the reader thread before its first read.
    func readerStarted() {
        state.withLock { $0.reader = pthread_self() }
    }

    /// Runs, on the reader thread, every job made ready on it (by a yield to the stream, or
    /// by a job run here), until none is left.
    func runReadyJobs() {
        while true {
            do {
                let jobs = state.withLock { state -> [UnownedJob] in
                    swap(&state.ready, &state.running)
                    return state.running
                }
                if jobs.isEmpty { return }
                for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            }
            state.withLock { $0.running.removeAll(keepingCapacity: true) }
        }
    }

    /// Called by the reader thread as it ends: it runs what is ready, and from then on every
    /// job goes to the global pool.
    func readerEnded() {
        runReadyJobs()
        let late = state.withLock { state -> [UnownedJob] in
            state.reader = nil
            defer { state.ready.removeAll() }
            return state.ready
        }
        for job in late { runOnPool(job) }
    }
}
