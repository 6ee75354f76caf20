package import Foundation
import SmartDeviceLink

/// What a finished child process left: its exit status and what it wrote.
package struct ChildProcessResult: Sendable {
    package var status: Int32
    package var output: Data
    /// Empty when the errors went into ``output``.
    package var errors: Data
}

/// Runs `executable` with `arguments` to its end off the pool (see ``offThePool(_:)``), `input`
/// on its standard input; with `errorsIntoOutput` its standard error joins its output.
///
/// Throws only when the process cannot be started (the tool is missing). Standard error is
/// read on a thread of its own, so a child that fills that pipe first cannot stall.
package func runChildProcess(_ executable: String, _ arguments: [String], input: Data = Data(),
                             errorsIntoOutput: Bool = false) async throws -> ChildProcessResult {
    try await offThePool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = errorsIntoOutput ? stdout : Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.runWithSignalsUnblocked()
        let errors = Locked(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        if !errorsIntoOutput {
            Thread.detachNewThread {
                let data = stderr.fileHandleForReading.readDataToEndOfFile()
                errors.withLock { $0 = data }
                errorsRead.signal()
            }
        }
        stdin.fileHandleForWriting.write(input)
        try? stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        if !errorsIntoOutput { errorsRead.wait() }
        process.waitUntilExit()
        return ChildProcessResult(status: process.terminationStatus, output: output, errors: errors.withLock { $0 })
    }
}
