import Foundation

/// Rows that time or weigh whole `sdl-run` processes (the executable beside this one).
enum Processes {
    /// `sdl-run` next to `sdl-benchmark` (same build), if it was built.
    static var sdlRun: URL? {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sdl-run")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// Whether the `sdl-run` timed below loads the Swift runtime as shared libraries (as `ldd`
    /// lists them): binding their symbols at load is a third of its start (hello.json 50 ms
    /// against 37 ms linked with `--static-swift-stdlib`), so the rows say which.
    static var linkage: String {
        guard let sdlRun else { return "" }
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [sdlRun.path]
        let output = Pipe()
        ldd.standardOutput = output
        ldd.standardError = FileHandle.nullDevice
        guard (try? ldd.run()) != nil else { return "(ldd is missing: cannot tell how sdl-run links the Swift runtime)" }
        let libraries = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        return libraries.contains("libswiftCore.so")
            ? "(sdl-run loads the Swift runtime as shared libraries; built with --static-swift-stdlib it starts faster)"
            : "(sdl-run has the Swift runtime linked in: --static-swift-stdlib)"
    }

    /// Starts `sdlRun` with `arguments`, its output discarded.
    static func launch(_ arguments: [String]) throws -> Process {
        guard let sdlRun else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = sdlRun
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func requireSuccess(_ process: Process, _ arguments: [String]) {
        precondition(process.terminationStatus == 0, "sdl-run \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }

    /// Runs `sdlRun` with `arguments` to its end; returns how long it took.
    @discardableResult
    static func run(_ arguments: [String]) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let process = try launch(arguments)
        process.waitUntilExit()
        requireSuccess(process, arguments)
        return clock.now - start
    }

    /// The median time of `runs` runs.
    static func median(runs: Int, _ arguments: [String]) throws -> Duration {
        let times = try (0..<runs).map { _ in try run(arguments) }.sorted()
        return times[runs / 2]
    }

    /// Runs `sdlRun` with `arguments` and returns its own peak resident memory in bytes: its
    /// VmHWM in /proc, read every 5 ms while it runs (monotonic, so the last read is the
    /// peak but for its last milliseconds). Not getrusage: on Linux a child's ru_maxrss
    /// starts from its parent's, the mm it was spawned from.
    static func peakResident(_ arguments: [String]) throws -> Int {
        let process = try launch(arguments)
        var peak = 0
        while process.isRunning {
            if let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
                peak = max(peak, kilobytes * 1024)
            }
            usleep(5_000)
        }
        requireSuccess(process, arguments)
        return peak
    }

    /// Peak resident memory of `sdl-run` uploading `megabytes` from disk over TCP to
    /// `sdl-run emulate` in another process, against `sdl-run --version`'s (the executable
    /// and its libraries alone). The emulator is not counted: it ends after the upload.
    static func uploadPeakResident(megabytes: Int) throws -> (upload: Int, base: Int) {
        guard let sdlRun else { throw CocoaError(.fileNoSuchFile) }
        let base = try peakResident(["--version"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdl-bench-rss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("hu"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let big = folder.appendingPathComponent("big.bin")
        _ = FileManager.default.createFile(atPath: big.path, contents: nil)
        let handle = try FileHandle(forWritingTo: big)
        let block = Data(repeating: 0xA5, count: 1 << 20)
        for _ in 0..<megabytes { handle.write(block) }
        try handle.close()
        try Data("""
            {"name": "rss", "app": {"appName": "Bench", "appID": "bench-rss"},
             "steps": [{"putFile": {"path": "\(big.path)", "name": "big.bin"}}]}
            """.utf8).write(to: folder.appendingPathComponent("upload.json"))
        try Data(#"{"storage": {"directory": "\#(folder.path)/hu", "quota": \#(Int64(megabytes + 16) << 20)}}"#.utf8)
            .write(to: folder.appendingPathComponent("hu.json"))
        let emulator = Process()
        emulator.executableURL = sdlRun
        emulator.arguments = ["emulate", "--listen", "127.0.0.1:0", "--config", folder.appendingPathComponent("hu.json").path]
        let output = Pipe()
        emulator.standardOutput = output
        emulator.standardError = FileHandle.nullDevice
        try emulator.run()
        defer { emulator.terminate(); emulator.waitUntilExit() }
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        guard let port = String(decoding: line, as: UTF8.self).split(separator: ":").last.map(String.init) else { throw CocoaError(.fileReadCorruptFile) }
        let upload = try peakResident([folder.appendingPathComponent("upload.json").path, "--tcp", "127.0.0.1:\(port)"])
        return (upload, base)
    }
}
