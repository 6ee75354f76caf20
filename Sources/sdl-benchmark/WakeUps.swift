import Foundation

/// What one thread wake-up costs on this machine: two threads hand a byte back and forth
/// through two pipes, each blocking in `read` until the other writes. Each hand-over is one
/// voluntary context switch, the unit `sdl-benchmark link` counts per round trip; so the
/// round trip's extra switches over raw's, times this cost, is how much of its extra time
/// is waking threads rather than the library's own work.
enum WakeUps {
    /// The mean time of a hand-over, over `count / 2` round trips of the byte.
    static func cost(handOvers count: Int = 2_000) async throws -> Duration {
        try await RealLinks.blocking { pingPong(count) }
    }

    private static func pingPong(_ count: Int) -> Duration {
        var there: [Int32] = [-1, -1], back: [Int32] = [-1, -1]
        guard pipe(&there) == 0, pipe(&back) == 0 else { fatalError("pipe: \(String(cString: strerror(errno)))") }
        let (readThere, writeBack) = (there[0], back[1])
        let echoEnded = DispatchSemaphore(value: 0)
        Thread {
            var byte: UInt8 = 0
            while read(readThere, &byte, 1) == 1 { _ = write(writeBack, &byte, 1) }
            echoEnded.signal()
        }.start()
        var byte: UInt8 = 1
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<count / 2 {
                _ = write(there[1], &byte, 1)
                _ = read(back[0], &byte, 1)
            }
        }
        close(there[1])  // the echo thread's read ends
        echoEnded.wait()
        for fd in [there[0], back[0], back[1]] { close(fd) }
        return elapsed / count
    }
}
