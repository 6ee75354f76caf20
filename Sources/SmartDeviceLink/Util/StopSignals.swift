import Foundation

/// The write end of the pipe the signal handler wakes the stop thread through. A global,
/// because a C signal handler captures nothing; set once by ``StopSignals``.
nonisolated(unsafe) private var stopSignalPipe: Int32 = -1

/// SIGTERM (systemd stopping the unit) and SIGINT, delivered to a handler instead of
/// ending the process, whatever thread the kernel picks and whatever signal mask the
/// process was started with: a real handler (not SIG_IGN plus a dispatch source, which
/// lost a signal delivered to a thread that had not blocked it) writes a byte to a pipe,
/// and a thread of its own reads it and calls the handler.
///
/// An app on Linux unregisters from the head unit before it exits:
///
/// ```swift
/// let stopRequests = StopSignals.requests()
/// try await manager.start()
/// for await _ in stopRequests { break }
/// await manager.stop()
/// ```
///
/// One process has one set of handlers: the latest `StopSignals` gets the signals.
public final class StopSignals: Sendable {
    /// Calls `handler` on a thread of its own at each SIGINT or SIGTERM from now on.
    public init(_ handler: @escaping @Sendable () -> Void) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        stopSignalPipe = fds[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(stopSignalPipe, &byte, 1)  // async-signal-safe
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGTERM, SIGINT] {
            sigaction(number, &action, nil)
            sigaddset(&set, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        let readEnd = fds[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 { handler() } else if count < 0, errno == EINTR { continue } else { return }
            }
        }
    }
}

extension StopSignals {
    /// Installs the handlers now and yields at each SIGINT or SIGTERM (Ctrl-C, or systemd
    /// stopping the unit). Ask before connecting, so that a signal during the connection
    /// is kept for the app too instead of ending the process.
    public static func requests() -> AsyncStream<Void> {
        let (requests, request) = AsyncStream.makeStream(of: Void.self)
        // The handler's thread keeps it (and so the stream's end) for the life of the process.
        _ = StopSignals { request.yield() }
        return requests
    }
}
