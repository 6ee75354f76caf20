import Foundation

extension Thread {
    /// Runs `body` on a new thread that `top -H`, `perf` and debuggers show as `name`.
    ///
    /// Foundation on Linux names only a thread that sets its own name, and a new thread
    /// otherwise shows its creator's name (a pool thread's "…default-qos"). The system keeps
    /// 15 bytes of a name, so names are short: `sdl-read`, `sdl-write`, `sdl-accept`.
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            Thread.current.name = String(name.utf8.prefix(15)) ?? name
            body()
        }
        thread.start()
    }
}
