import Foundation

/// SIGTERM (systemd stopping the unit) and SIGINT, delivered to a handler instead of
/// ending the process, whatever signal mask the process was started with.
final class StopSignals {
    private let sources: [any DispatchSourceSignal]

    init(_ handler: @escaping @Sendable () -> Void) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            sigaddset(&set, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }
}

extension StopSignals {
    /// Returns on the first SIGTERM or SIGINT (`sdl-run emulate` runs until then).
    static func wait() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let signals = StopSignals { continuation.yield() }
        for await _ in stream { break }
        withExtendedLifetime(signals) {}
    }
}
