import Foundation
import SDLCoreHMI
import SDLScenario
import SmartDeviceLink

/// `sdl-benchmark core [--hmi ws://127.0.0.1:8087] [--links tcp,usb-gadget] [--js-suite DIR] [--rounds N] [--quick]`:
/// the work of `sdl-benchmark link` with a real sdl_core at the other end, over core's TCP
/// transport and over its own USB transport (core the host, the app the gadget that core
/// switches into accessory mode), each round on both, in turns.
///
/// The app registers through `SDLManager` as apps do, as a navigation app; this process is
/// core's HMI (``CoreHMI``, as `sdl-run --hmi`), which activates it. The rows give the USB
/// link's time over TCP's to the same core in the same round: what core's USB transport and
/// the library's gadget cost over a socket, with core's own work on both sides of the ratio.
/// Core runs with its flood limit off (`--ini FrequencyCount=0`): a thousand Shows as fast
/// as they go is a flood to it. Its video goes to its socket consumer (port 5050), which this
/// process reads: the stream is timed until core has passed every byte on.
///
/// With `--js-suite DIR` (the official JavaScript suite, as scripts/fetch-js-suite leaves
/// it) each round also runs the round trips and the upload through that suite over TCP to
/// the same core (`js-suite-bench.mjs`, in Node.js); it has no video streaming over TCP.
enum CoreLinks {
    enum Link: String, CaseIterable { case tcp, usbGadget = "usb-gadget", jsSuite = "js-suite" }

    struct Timings {
        var trips, upload: Duration
        var video: Duration?
    }

    static let appID = "bench-core-0001"
    static let jsAppID = "bench-js-0001"

    static func run(_ arguments: [String]) async throws {
        func value(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first } }
        let quick = arguments.contains("--quick")
        let rounds = value("--rounds").flatMap { Int($0) } ?? (quick ? 1 : 5)
        let names = (value("--links") ?? "tcp,usb-gadget").split(separator: ",").map(String.init)
        var links = try names.map { name in
            guard let link = Link(rawValue: name), link != .jsSuite else { throw CoreBenchError("no link \(name): tcp or usb-gadget") }
            return link
        }
        let suite = value("--js-suite")
        if suite != nil { links.append(.jsSuite) }
        let hmi = try CoreHMI(url: value("--hmi") ?? "ws://127.0.0.1:8087")
        try await hmi.start()
        let work = try RealLinks.Work.standard(quick: quick)
        RealLinks.say("sdl_core over \(links.map(\.rawValue).joined(separator: ", ")): \(work.trips) Show round trips; \(work.file.count / work.chunk) "
                      + "PutFile chunks of \(work.chunk) bytes through the file manager; \(work.video.count) H.264 access units "
                      + "(\(work.videoBytes) bytes) back to back; \(rounds) rounds after a warm-up")
        var timings = [Link: [Timings]]()
        for round in 0...rounds {
            for link in links {
                let measured = if link == .jsSuite, let suite { try await measureJSSuite(suite, hmi, work) }
                               else { try await measure(link, hmi, work, round: round) }
                if round > 0 { timings[link, default: []].append(measured) }
            }
            RealLinks.progress("core: round \(round) of \(rounds) done")
        }
        await hmi.stop()
        report(timings, links, work)
    }

    // MARK: - One round on one link

    static func measure(_ link: Link, _ hmi: CoreHMI, _ work: RealLinks.Work, round: Int) async throws -> Timings {
        let transport: TransportChoice
        switch link {
        case .tcp, .jsSuite: transport = .tcp(host: "127.0.0.1", port: 12345)  // the suite's own run is measureJSSuite
        case .usbGadget:
            var options = USBGadgetTransport.Options()
            options.waitForHost = .seconds(60)  // core's USB transport switches it, as a phone's
            transport = .usbGadget(options)
        }
        let manager = SDLManager(configuration: Bench.offline(SDLConfiguration(
            appName: "Bench Core", appID: appID, appTypes: [.navigation], transports: [transport])))
        try await manager.start()
        try await hmi.perform(DriverAction(name: "activateApp", arguments: ["appID": .string(appID)]))
        guard await manager.firstNonNoneHMILevel() == .full else { throw CoreBenchError("core did not put the app in FULL") }
        RealLinks.progress("core: registered and in FULL over \(link.rawValue)")
        let clock = ContinuousClock()
        _ = try await manager.send(Show(mainField1: "warm up"), timeout: nil)
        let trips = try await clock.measure {
            for _ in 0..<work.trips {
                let answer = try await manager.send(work.show, timeout: nil)
                guard answer.success else { throw CoreBenchError("core answered a Show with \(answer.resultCode.rawValue)") }
            }
        }
        let name = "bench-\(link.rawValue)-\(round).bin"
        let upload = try await clock.measure {
            try await manager.fileManager.upload(SDLFile(name: name, source: .data(work.file), fileType: .binary))
        }
        try await manager.fileManager.delete(name)  // core's app folder holds 100 MB
        let video = try await streamVideo(manager, work)
        await manager.stop()
        return Timings(trips: trips, upload: upload, video: video)
    }

    /// Starts the video service, sends access units until core's socket consumer is up and
    /// passing them on (core drops what comes before the HMI let it stream), then times the
    /// work's access units back to back until core has passed all of them to the consumer.
    static func streamVideo(_ manager: SDLManager, _ work: RealLinks.Work) async throws -> Duration {
        _ = try await manager.startService(.video, payload: ControlPayload(height: 480, width: 800, videoProtocol: "RAW", videoCodec: "H264"))
        let consumer = StreamConsumer()
        let primed = ContinuousClock.now + .seconds(60)
        while !consumer.connect(port: 5050) || consumer.received == 0 {
            guard ContinuousClock.now < primed else { throw CoreBenchError("core's video consumer (port 5050) passed nothing on in 60 s") }
            try await manager.sendServiceData(work.video[0], on: .video)
            try await Task.sleep(for: .milliseconds(100))
        }
        // What core still has of the priming frames comes in before the timing starts.
        var settled = consumer.received
        repeat {
            settled = consumer.received
            try await Task.sleep(for: .milliseconds(300))
        } while consumer.received != settled
        let clock = ContinuousClock()
        let video = try await clock.measure {
            for accessUnit in work.video { try await manager.sendServiceData(accessUnit, on: .video) }
            let deadline = ContinuousClock.now + .seconds(120)
            while consumer.received < settled + work.videoBytes {
                guard ContinuousClock.now < deadline else {
                    throw CoreBenchError("core passed \(consumer.received - settled) of \(work.videoBytes) video bytes on in 120 s")
                }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        try await manager.endService(.video)
        consumer.close()
        return video
    }

    /// The official JavaScript suite's run of the round trips and the upload over TCP, in a
    /// Node.js process of its own that this HMI activates.
    static func measureJSSuite(_ suite: String, _ hmi: CoreHMI, _ work: RealLinks.Work) async throws -> Timings {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Tests/Lab/support/js-suite-bench.mjs").standardized.path
        let node = Process()
        node.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        node.arguments = ["node", script, suite, "--app-id", jsAppID, "--trips", "\(work.trips)", "--bytes", "\(work.file.count)"]
        let output = Pipe()
        node.standardOutput = output
        try node.run()
        // Node.js loading the suite's few hundred modules takes a while under emulation; the
        // HMI waits for an app's registration five seconds a try.
        let registration = ContinuousClock.now + .seconds(120)
        while true {
            do {
                try await hmi.perform(DriverAction(name: "activateApp", arguments: ["appID": .string(jsAppID)]))
                break
            } catch where node.isRunning && ContinuousClock.now < registration {
                continue
            }
        }
        RealLinks.progress("core: the JavaScript suite's app activated")
        let printed = try await RealLinks.blocking { output.fileHandleForReading.readDataToEndOfFile() }
        node.waitUntilExit()
        // The suite logs to standard output too: the timings are the last line.
        let last = String(decoding: printed, as: UTF8.self).split(separator: "\n").last { $0.hasPrefix("{") }
        guard node.terminationStatus == 0, let last,
              let times = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Double],
              let trips = times["trips"], let upload = times["upload"] else {
            throw CoreBenchError("the JavaScript suite's run failed (exit \(node.terminationStatus)): \(String(decoding: printed, as: UTF8.self))")
        }
        return Timings(trips: .milliseconds(trips), upload: .milliseconds(upload))
    }

    // MARK: - Report

    static func report(_ timings: [Link: [Timings]], _ links: [Link], _ work: RealLinks.Work) {
        func row(_ name: String, _ path: (Timings) -> Duration?, bytes: Int?) {
            for link in links {
                let times = timings[link, default: []].compactMap { path($0)?.seconds }
                guard !times.isEmpty else { continue }
                let rate = bytes.map { String(format: " (%.1f MB/s)", Double($0) / times.median / 1e6) } ?? ""
                RealLinks.say("\(name), \(link.rawValue): " + String(format: "%.1f ms%@", times.median * 1000, rate as NSString))
            }
            // Each ratio from one round's pair, then the median and spread of the rounds.
            for (over, base) in [(Link.usbGadget, Link.tcp), (.tcp, .jsSuite)] {
                let pairs = zip(timings[over, default: []], timings[base, default: []]).compactMap { pair -> Double? in
                    guard let top = path(pair.0), let bottom = path(pair.1) else { return nil }
                    return top.seconds / bottom.seconds
                }.sorted()
                guard !pairs.isEmpty else { continue }
                RealLinks.say(String(format: "  ratio %@ ÷ %@ %.2f (%.2f to %.2f)", over.rawValue as NSString, base.rawValue as NSString,
                                     pairs.median, pairs.first!, pairs.last!))
            }
        }
        row("Show round trips ×\(work.trips)", { $0.trips }, bytes: nil)
        row("upload \(work.file.count >> 10) KiB", { $0.upload }, bytes: work.file.count)
        row("video, \(work.video.count) access units", { $0.video }, bytes: work.videoBytes)
    }
}

struct CoreBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A reader of core's video socket consumer: counts what core passes on (its HTTP header too).
final class StreamConsumer: Sendable {
    private let count = Locked(0)
    private let socket = Locked<Int32>(-1)
    private let readerEnded = DispatchSemaphore(value: 0)

    var received: Int { count.withLock { $0 } }

    /// Connects once (true from then on); the bytes are counted on a thread of their own.
    func connect(port: UInt16) -> Bool {
        if socket.withLock({ $0 }) >= 0 { return true }
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { Glibc.close(fd); return false }
        socket.withLock { $0 = fd }
        Thread { [count, readerEnded] in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                guard got > 0 else { break }
                count.withLock { $0 += got }
            }
            readerEnded.signal()
        }.start()
        return true
    }

    /// Ends the reading and closes the socket (core closes its end when the service ends, too).
    func close() {
        let fd = socket.withLock { fd in defer { fd = -1 }; return fd }
        guard fd >= 0 else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        readerEnded.wait()
        Glibc.close(fd)
    }
}
