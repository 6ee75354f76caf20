import Foundation

/// Runs the built `sdl-run` and helper processes for end-to-end tests of the command line.
enum CommandRunner {
    struct Result {
        var exitCode: Int32
        var stdout: String
        var stderr: String
    }

    /// The package root, from this file's location.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `sdl-run` as built beside the test bundle (`swift build --build-tests` builds it).
    static var sdlRun: URL {
        let productsDirectory = Bundle.main.bundleURL.deletingLastPathComponent()
        let beside = productsDirectory.appendingPathComponent("sdl-run")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        // xctest runner: the test bundle sits in the products directory.
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("sdl-run")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug/sdl-run")
    }

    static func run(_ executable: URL, _ arguments: [String], stdin: String? = nil, timeout: Double = 60) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let input = Pipe()
            process.standardInput = input
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try? input.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        // Read both pipes concurrently so a full pipe never blocks the child.
        let outData = Locked(Data()), errData = Locked(Data())
        let group = DispatchGroup()
        for (handle, sink) in [(out.fileHandleForReading, outData), (err.fileHandleForReading, errData)] {
            group.enter()
            DispatchQueue.global().async {
                let data = handle.readDataToEndOfFile()
                sink.set(data)
                group.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        group.wait()
        return Result(exitCode: process.terminationStatus,
                      stdout: String(decoding: outData.get(), as: UTF8.self),
                      stderr: String(decoding: errData.get(), as: UTF8.self))
    }

    static func sdlRun(_ arguments: [String], stdin: String? = nil, timeout: Double = 60) throws -> Result {
        try run(sdlRun, arguments, stdin: stdin, timeout: timeout)
    }
}

/// A background process whose first stdout line is read (e.g. a port number).
final class BackgroundProcess {
    let process = Process()
    private let output = Pipe()
    let firstLine: String

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        var line = Data()
        let handle = output.fileHandleForReading
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        firstLine = String(decoding: line, as: UTF8.self)
    }

    /// Waits for exit and returns the exit code and the rest of stdout.
    func finish(timeout: Double = 30) -> (Int32, String) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: rest, as: UTF8.self))
    }
}

final class Locked<Value>: @unchecked Sendable {
    // The lock protects `value`, written by one reader thread and read after group.wait().
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ newValue: Value) { lock.lock(); value = newValue; lock.unlock() }
    func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
}
