import Foundation

/// Runs blocking work (a child process waited for, a pipe read to its end) on a thread of its
/// own and returns its result.
///
/// The suites run in parallel on the cooperative pool, which has one thread per core: a test
/// that blocks one of them for seconds (ffmpeg making a clip, python checking the generated
/// code) starves every other test's tasks, and on the 2-core machine kind a connection then
/// waited 15 s for its StartService answer and failed.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
