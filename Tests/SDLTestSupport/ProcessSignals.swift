package import Foundation
import SmartDeviceLink

extension Process {
    /// Starts the process with no signal blocked, as a shell would start it.
    ///
    /// A child inherits the signal mask of the thread that spawns it, and the threads of
    /// Swift's cooperative pool (libdispatch's workers) block nearly every signal: a peer
    /// started from a test held SIGTERM blocked, so `terminate()` did nothing and each test
    /// that stopped one waited out the peer's own 30 s timeout. The spawn happens on a
    /// thread of its own whose mask is empty.
    package func runWithSignalsUnblocked() throws {
        let failure = Locked<(any Error)?>(nil)
        let started = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            do { try self.run() } catch { failure.withLock { $0 = error } }
            started.signal()
        }
        started.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
