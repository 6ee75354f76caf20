import Foundation
import SmartDeviceLink
import SDLScenario

/// Watches the USB bus and the serial ports and runs the bench's scenarios on each matching
/// device or port plugged in, or, on a board with a gadget, runs them each time a TDK takes
/// the board: one `sdl-run`
/// child process per run, so a run that crashes or hangs never takes the station down, and
/// each run's reports land in a folder of its own.
actor BenchWatcher {
    private let bench: BenchConfiguration
    /// The host's USB; nil on a board, whose station watches its gadget instead, and on a
    /// station that watches serial ports alone.
    private let backend: LibUSBBackend?
    private let executable: String
    private let log: FileHandle
    private var runs: [DeviceKey: ActiveRun] = [:]
    private var stopping = false
    private let timestamps = ISO8601DateFormatter()

    enum DeviceKey: Hashable {
        case usb(bus: UInt8, address: UInt8)
        /// A board's own gadget, which has no address on a bus of ours.
        case gadget
        /// A serial port, by the path it was found at.
        case serial(String)
        init(_ device: USBDeviceDescription) { self = .usb(bus: device.bus, address: device.address) }
    }

    /// The board's station waits here for its run to end.
    private var runEnded: CheckedContinuation<Void, Never>?

    /// The bench's devices and ports plugged in now, as described when they arrived.
    private var present: [DeviceKey: String] = [:]

    private struct ActiveRun {
        let process: Process
        let folder: String
        let device: String
        let started: Date
        var removedAt: Date?
    }

    init(_ bench: BenchConfiguration) throws {
        self.bench = bench
        if bench.devices.isEmpty {  // a board (its gadget), or a station of serial ports alone
            backend = nil
        } else {
            do { backend = try LibUSBBackend() } catch {
                throw CommandFailure.connection("cannot watch USB: libusb does not start (\(error)); is /dev/bus/usb there?")
            }
        }
        // The same sdl-run, whatever the working folder or PATH.
        executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        do {
            try FileManager.default.createDirectory(atPath: bench.reports, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure.invalid("cannot make the reports folder \(bench.reports): \(error.localizedDescription)")
        }
        let logPath = (bench.reports as NSString).appendingPathComponent("watch.jsonl")
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        guard let log = FileHandle(forWritingAtPath: logPath) else {
            throw CommandFailure.invalid("cannot write \(logPath): check the reports folder's permissions")
        }
        log.seekToEndOfFile()
        self.log = log
    }

    /// Watches until SIGTERM or SIGINT; running children get SIGTERM and are waited for.
    func run() async throws {
        if bench.gadget != nil { return try await runOnBoard() }
        let events: AsyncStream<USBHotplugEvent>?
        do { events = try backend?.hotplugEvents(enumerateExisting: true) } catch {
            throw CommandFailure.connection("cannot watch USB for devices (hotplug): \(error)")
        }
        let signals = StopSignals { [weak self] in Task { await self?.stop() } }
        var watching: JSONObject = ["event": "watching", "reports": .string(bench.reports)]
        if !bench.deviceTexts.isEmpty { watching["devices"] = .array(bench.deviceTexts.map(JSONValue.string)) }
        if !bench.serialTexts.isEmpty { watching["serialPorts"] = .array(bench.serialTexts.map(JSONValue.string)) }
        emit(watching)
        await withTaskGroup(of: Void.self) { group in
            if let events {
                group.addTask {
                    for await event in events {
                        if await self.stopping { break }
                        switch event {
                        case .arrived(let device): await self.arrived(device)
                        case .left(let device): await self.left(DeviceKey(device))
                        }
                    }
                }
            }
            if !bench.serialPorts.isEmpty { group.addTask { await self.watchSerialPorts() } }
        }
        withExtendedLifetime(signals) {}
    }

    /// Looks for the bench's serial ports twice a second: a TTY has no hotplug of its own to
    /// subscribe to without udev, and sysfs shows a port as soon as the kernel has it. A port
    /// counts as plugged in from when it is found to when it is gone.
    private func watchSerialPorts() async {
        let finder = SerialPortFinder()
        var known: [String: SerialPortDescription] = [:]
        while !stopping {
            var found: [String: SerialPortDescription] = [:]
            for selector in bench.serialPorts {
                for port in finder.ports(matching: selector) { found[port.path] = port }
            }
            for (path, port) in found.sorted(by: { $0.key < $1.key }) where known[path] == nil {
                // Back before its last run has ended: found again on a later look.
                if runs[.serial(path)] != nil { found[path] = nil; continue }
                present[.serial(path)] = port.description
                emit(["event": "attached", "device": .string(port.description)])
                start(key: .serial(path), name: port.description, folderSuffix: port.name, link: bench.link(to: port))
            }
            for path in known.keys.sorted() where found[path] == nil { left(.serial(path)) }
            known = found
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    /// A board's station: each run binds the gadget and waits for a TDK to take it; when the
    /// run ends the gadget goes, and after `pause` seconds the next run offers it again. So a
    /// TDK that stays plugged in gets the scenarios again and again, and one plugged in later
    /// gets them when it enumerates the board.
    private func runOnBoard() async throws {
        let udc: String
        do { udc = try USBGadgetTransport.controller(named: bench.gadget == "default" ? nil : bench.gadget) } catch {
            throw CommandFailure.connection(error.description)
        }
        let signals = StopSignals { [weak self] in Task { await self?.stop() } }
        emit(["event": "watching", "gadget": .string(udc), "reports": .string(bench.reports)])
        let name = "USB gadget on \(udc)"
        while !stopping {
            let taken = Task { [weak self] in await self?.announceHost(on: udc, as: name) }
            await withCheckedContinuation { continuation in
                runEnded = continuation
                start(key: .gadget, name: name, folderSuffix: "gadget", link: bench.gadgetLink)
                if runs[.gadget] == nil, let waiting = runEnded {  // it did not start
                    runEnded = nil
                    waiting.resume()
                }
            }
            taken.cancel()
            if stopping { break }
            try? await Task.sleep(for: .seconds(bench.pause))
        }
        withExtendedLifetime(signals) {}
    }

    /// Says "attached" when a host has configured the gadget (the UDC's state), once a run.
    private func announceHost(on udc: String, as name: String) async {
        while !Task.isCancelled {
            let state = (try? String(contentsOfFile: "\(USBGadgetPaths().udcClass)/\(udc)/state", encoding: .utf8)) ?? ""
            if state.trimmingCharacters(in: .whitespacesAndNewlines) == "configured" {
                emit(["event": "attached", "device": .string(name)])
                return
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    private func stop() {
        stopping = true
        for run in runs.values where run.process.isRunning { run.process.terminate() }
        emit(["event": "stopping", "runs": .int(Int64(runs.count))])
        // Let the children write their reports, then leave.
        Task {
            for _ in 0..<100 where !self.runs.isEmpty { try? await Task.sleep(for: .milliseconds(100)) }
            exit(0)
        }
    }

    private func arrived(_ device: USBDeviceDescription) {
        guard !stopping, runs[DeviceKey(device)] == nil else { return }
        // Selectors by serial need the strings, which hotplug does not read.
        let described = (try? backend?.devices(readingStrings: true))?.first { $0.bus == device.bus && $0.address == device.address } ?? device
        guard bench.devices.contains(where: { $0.matches(described) }) else { return }
        present[DeviceKey(device)] = described.description
        emit(["event": "attached", "device": .string(described.description)])
        start(key: DeviceKey(device), name: described.description, folderSuffix: "\(device.bus)-\(device.address)",
              link: BenchConfiguration.link(to: device))
    }

    private func left(_ key: DeviceKey) {
        guard let attached = present.removeValue(forKey: key) else { return }
        guard var run = runs[key], run.removedAt == nil else {
            emit(["event": "detached", "device": .string(attached)])
            return
        }
        run.removedAt = Date()
        runs[key] = run
        emit(["event": "detached", "device": .string(run.device), "report": .string(run.folder)])
        // The run sees its link fail and ends on its own; one that hangs is stopped.
        let process = run.process
        Task {
            try? await Task.sleep(for: .seconds(30))
            if process.isRunning { process.terminate() }
        }
    }

    private func start(key: DeviceKey, name: String, folderSuffix: String, link: [String]) {
        let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withYear, .withMonth, .withDay, .withTime])
        let folder = (bench.reports as NSString).appendingPathComponent("\(stamp)-\(folderSuffix)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = bench.runArguments(link: link, folder: folder)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let consolePath = (folder as NSString).appendingPathComponent("console.log")
            _ = FileManager.default.createFile(atPath: consolePath, contents: nil)
            let console = FileHandle(forWritingAtPath: consolePath)
            process.standardOutput = console
            process.standardError = console
            process.terminationHandler = { [weak self] finished in
                Task { await self?.finished(key, exitCode: finished.terminationStatus) }
            }
            try process.run()
        } catch {
            emit(["event": "runFailedToStart", "device": .string(name), "reason": .string(error.localizedDescription)])
            return
        }
        runs[key] = ActiveRun(process: process, folder: folder, device: name, started: Date())
        emit(["event": "runStarted", "device": .string(name), "report": .string(folder)])
    }

    private func finished(_ key: DeviceKey, exitCode: Int32) {
        guard let run = runs.removeValue(forKey: key) else { return }
        let outcome: String
        switch exitCode {
        case 0: outcome = "passed"
        case _ where run.removedAt != nil: outcome = "deviceRemoved"
        case 1: outcome = "failed"
        case 2: outcome = "invalid"
        case ScenarioResult.Status.stopped.exitCode: outcome = "stopped"
        default: outcome = "connectionFailed"
        }
        var summary: JSONObject = [
            "device": .string(run.device), "startedAt": .string(timestamps.string(from: run.started)),
            "finishedAt": .string(timestamps.string(from: Date())), "exitCode": .int(Int64(exitCode)), "outcome": .string(outcome),
            "arguments": .array((run.process.arguments ?? []).map(JSONValue.string)),
        ]
        if let removed = run.removedAt { summary["deviceRemovedAt"] = .string(timestamps.string(from: removed)) }
        let path = (run.folder as NSString).appendingPathComponent("run.json")
        _ = FileManager.default.createFile(atPath: path, contents: Data((JSONValue.object(summary).serialized() + "\n").utf8))
        try? BenchIndex.write(reports: bench.reports)  // the day's page, with this run on top
        emit(["event": "runFinished", "device": .string(run.device), "outcome": .string(outcome),
              "exitCode": .int(Int64(exitCode)), "report": .string(run.folder)])
        runEnded?.resume()
        runEnded = nil
    }

    /// One JSON line on stdout and in watch.jsonl.
    private func emit(_ object: JSONObject) {
        var line = object
        line["time"] = .string(timestamps.string(from: Date()))
        let data = Data((JSONValue.object(line).serialized() + "\n").utf8)
        // The file first: whoever reads the line on stdout finds it in watch.jsonl too.
        log.write(data)
        try? FileHandle.standardOutput.write(contentsOf: data)  // a closed stdout must not stop the station
    }
}
