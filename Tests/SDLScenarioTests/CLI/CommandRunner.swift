import Foundation
import SDLTestSupport

/// Runs the built `sdl-run` and helper processes for end-to-end tests of the command line.
///
/// Everything that blocks (reading pipes, waiting for exit) runs on threads of its own and
/// is awaited, so these tests never hold the cooperative pool's few threads: on a 2-core
/// machine that would starve every other test running in parallel.
enum CommandRunner {
    struct Result: Sendable {
        var exitCode: Int32
        var stdout: String
        var stderr: String
    }

    /// The package root, from this file's location.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `sdl-run` as built beside the test bundle (`swift build --build-tests` builds it).
    static var sdlRun: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("sdl-run")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        // The test executable's own folder: under swift-testing there is no .xctest bundle to
        // ask, and Bundle.main's URL is that folder itself (its parent held no sdl-run, and a
        // sanitizer run fell back to the plain debug build's, unsanitized).
        if let executable = Bundle.main.executableURL {
            let beside = executable.deletingLastPathComponent().appendingPathComponent("sdl-run")
            if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        }
        return packageRoot.appendingPathComponent(".build/debug/sdl-run")
    }

    static func run(_ executable: URL, _ arguments: [String], timeout: Double = 120) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        try process.runWithSignalsUnblocked()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeout))
            process.terminate()
        }
        async let stdout = readAll(out.fileHandleForReading)
        async let stderr = readAll(err.fileHandleForReading)
        var status: Int32 = -1
        for await code in exited.stream { status = code }
        watchdog.cancel()
        return Result(exitCode: status, stdout: await stdout, stderr: await stderr)
    }

    static func sdlRun(_ arguments: [String], timeout: Double = 120) async throws -> Result {
        try await run(sdlRun, arguments, timeout: timeout)
    }

    /// Reads a pipe to its end on a thread of its own.
    static func readAll(_ handle: FileHandle) async -> String {
        await offThePool { String(decoding: handle.readDataToEndOfFile(), as: UTF8.self) }
    }
}

/// A background process whose first stdout line is awaited (e.g. the port it listens on).
final class BackgroundProcess: Sendable {
    let process: Process
    private let output: Pipe
    let firstLine: String
    /// The process's TMPDIR, removed with it: `sdl-run emulate` keeps what it records in its
    /// temporary folder when given no other, as a user wants, and the test must not.
    private let scratch: TestFolder

    init(_ executable: String, _ arguments: [String]) async throws {
        let scratch = try TestFolder("background")
        let process = Process()
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.path
        process.environment = environment
        let output = Pipe()
        // Its diagnostics go through a pipe of ours to our stderr. Given our stderr itself, a
        // peer outliving a crashed test process kept swift test's pipe open, and swift test
        // waited for it forever: a 90-minute CI timeout instead of a crash report.
        let diagnostics = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = diagnostics
        process.standardInput = FileHandle.nullDevice
        try process.runWithSignalsUnblocked()
        Thread.detachNewThread {
            let reading = diagnostics.fileHandleForReading
            while case let data = reading.availableData, !data.isEmpty { FileHandle.standardError.write(data) }
        }
        self.process = process
        self.output = output
        self.scratch = scratch
        firstLine = await Self.readLine(output.fileHandleForReading)
    }

    /// The file descriptor `fd` of this process, as /proc shows its target (`pipe:[1234]`).
    func descriptorTarget(_ fd: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/fd/\(fd)")
    }

    /// The next line the process prints; what it had of one when `timeout` passes (a test
    /// then fails on what it read, where a line that never came hung the whole run).
    func nextLine(timeout: Double = 60) async -> String {
        await Self.readLine(output.fileHandleForReading, timeout: timeout)
    }

    private static func readLine(_ handle: FileHandle, timeout: Double = 60) async -> String {
        await offThePool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while deadline.timeIntervalSinceNow > 0 {
                var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
                let count = read(handle.fileDescriptor, &byte, 1)
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }  // a child's SIGCHLD, say
                guard count == 1, byte != UInt8(ascii: "\n") else { break }
                line.append(byte)
            }
            return String(decoding: line, as: UTF8.self)
        }
    }

    /// Waits for exit and returns the exit code and the rest of stdout.
    func finish(timeout: Double = 30) async -> (Int32, String) {
        let rest = await CommandRunner.readAll(output.fileHandleForReading)
        let deadline = ContinuousClock.now + .seconds(timeout)
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus, rest)
    }

    /// Stops a long-running process (e.g. `sdl-run emulate`) and waits for its end, so
    /// nothing it writes on its way out lands after its folder is gone.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
