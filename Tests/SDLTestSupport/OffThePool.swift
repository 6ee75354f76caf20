import Foundation

/// Runs blocking work (a child process waited for, a pipe read) on a thread of its own and
/// returns its result.
///
/// The suites run in parallel on the cooperative pool, which has one thread per core: a test
/// that blocks one of them for seconds (ffmpeg making a clip, python checking the generated
/// code, a pipe waiting for a process's first line) holds back every other test's tasks.
package func offThePool<T: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        Thread.detachNewThread { continuation.resume(returning: Result { () throws(Failure) in try work() }) }
    }
    return try result.get()
}
