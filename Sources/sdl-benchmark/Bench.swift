import Foundation
import Logging
import SDLEmulator
import SmartDeviceLink

/// `sdl-benchmark`: measures the library against a baseline measured in the same run and prints
/// ratios (ours ÷ baseline; lower is better). Run it in release mode:
///
///     swift run -c release --static-swift-stdlib sdl-benchmark [--quick]
///     swift run -c release --static-swift-stdlib sdl-benchmark soak [RUNS]      (see Soak)
///     sdl-benchmark link usb-gadget|usb-host|rfcomm|tcp [--quick] [--rounds N] (real links, in the lab: see RealLinks)
///     sdl-benchmark core [--hmi URL] [--links tcp,usb-gadget] [--quick] [--rounds N] (a running sdl_core: see CoreLinks)
///
/// and one workload alone, for `perf record -g`:
///
///     sdl-benchmark profile-framing [FRAME SIZE]
///     sdl-benchmark profile-roundtrip [thin|thin-pinned|raw|memory]   (emulator, protocol-only head unit, the same
///                                                          on linkExecutor, raw TCP, no I/O)
///     sdl-benchmark profile-upload [thin|raw|byhand|byhand-link]   (file manager to the emulator, protocol-only
///                                                          head unit, raw TCP, PutFile by hand from the pool
///                                                          or from linkExecutor)
///
/// No assertions: these numbers are for people, the tests never time anything.
@main
struct Bench {
    /// Fragments `payload` into frames, encodes them, decodes them from 16 KiB reads and
    /// reassembles the message: what a large RPC costs on each side of the link.
    static func frameAndReassemble(_ payload: [UInt8], mtu: Int) {
        var wire: [UInt8] = []
        FrameFragmenter.encode(payload, version: 5, serviceType: .rpc, sessionID: 1, messageID: 7, maximumPayloadPerFrame: mtu, into: &wire)
        var decoder = FrameDecoder(maximumPayloadSize: 131_072)
        var reassembler = FrameReassembler()
        var total = 0
        var offset = 0
        let now = ContinuousClock.now
        while offset < wire.count {
            let end = min(offset + 16_384, wire.count)
            // As the protocol machines read: the reassembler lends each message to the decoder.
            decoder.append(wire[offset..<end], lending: &reassembler)
            while let event = decoder.next(lending: &reassembler) {
                let outcome: FrameReassembler.Outcome
                switch event {
                case .frame(let frame): outcome = reassembler.receive(frame, now: now)
                case .loaned(let header, let buffer): outcome = reassembler.receive(loaned: header, buffer: buffer)
                case .malformed: continue
                }
                if case .message(_, let message) = outcome { total += message.count }
            }
            offset = end
        }
        precondition(total == payload.count)
    }

    /// A benchmark prints its table; the library's logs only when asked (`--log-level info`),
    /// on standard error. swift-log's default would print every session's info lines between
    /// the rows.
    static func bootstrapLogging() {
        let arguments = CommandLine.arguments
        let asked = arguments.firstIndex(of: "--log-level").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        let configuration = SDLLogConfiguration(defaultLevel: asked.flatMap(Logger.Level.init(rawValue:)) ?? .warning)
        LoggingSystem.bootstrap { label in
            configuration.handler(label: label) { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        }
    }

    static func main() async throws {
        bootstrapLogging()
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "soak" {
            let runs = arguments.dropFirst().first.flatMap { Int($0) } ?? 1000
            return try await Soak.run(runs: runs)
        }
        keepFreedMemory()
        if arguments.first == "link" {
            return try await RealLinks.run(Array(arguments.dropFirst()))
        }
        if arguments.first == "core" {
            return try await CoreLinks.run(Array(arguments.dropFirst()))
        }
        if let mode = arguments.first, mode.hasPrefix("profile-") {
            return try await Profiles.run(mode, variant: arguments.dropFirst().first)
        }
        let quick = CommandLine.arguments.contains("--quick")
        let scale = quick ? 1 : 8
        func record(_ name: String, _ baseline: String, _ ours: Duration, _ base: Duration, ratio: Double? = nil) {
            let ratio = ratio ?? ours.seconds / max(base.seconds, 1e-9)
            print(String(format: "%-44@ %9.2f ms   %-30@ %9.2f ms   ratio %6.2f",
                         name as NSString, ours.seconds * 1000, baseline as NSString, base.seconds * 1000, ratio))
        }
        /// Medians, and the median of the per-round ratios.
        func record(_ name: String, _ baseline: String, _ ours: Rounds, _ base: Rounds) {
            record(name, baseline, ours.median, base.median, ratio: ours.ratio(to: base))
        }

        // 1. Framing: fragment, encode, decode from 16 KiB reads and reassemble 32 MiB, against copying the same bytes.
        let payload = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for mtu in [131_072, 1488] {
            let rounds = scale
            let (ours, baseline) = interleaved {
                for _ in 0..<rounds { frameAndReassemble(payload, mtu: mtu) }
            } against: {
                for _ in 0..<rounds {
                    var copy: [UInt8] = []
                    copy.reserveCapacity(payload.count)
                    var offset = 0
                    while offset < payload.count {
                        let end = min(offset + 16_384, payload.count)
                        copy.append(contentsOf: payload[offset..<end])
                        offset = end
                    }
                    var second = [UInt8](repeating: 0, count: copy.count)
                    second.withUnsafeMutableBytes { target in copy.withUnsafeBytes { target.copyMemory(from: $0) } }
                    precondition(second.count == payload.count)
                }
            }
            record("frame+reassemble \(rounds * 4) MiB, payload \(mtu)", "copy via 16 KiB chunks (memcpy)", ours, baseline)
        }

        // 1b. CRC-32 (every PutFile chunk, and the emulator's check of it): folded where the
        // CPU multiplies carry-less, against zlib's crc32 and a table lookup per byte.
        let crcRounds = 4 * scale
        var crcs: (UInt32, UInt32, UInt32) = (0, 0, 0)
        let (ourCRC, zlibCRC) = interleaved {
            for _ in 0..<crcRounds { crcs.0 = CRC32.checksum(payload) }
        } against: {
            for _ in 0..<crcRounds { crcs.1 = CRC32.zlib(payload) }
        }
        let tableCRC = measure { for _ in 0..<crcRounds { crcs.2 = CRC32.bytewise(payload) } }
        precondition(crcs.0 == crcs.1 && crcs.1 == crcs.2)
        let how = CRC32.foldingAvailable ? "folded" : "zlib, no PCLMULQDQ here"
        record("CRC-32 of \(crcRounds * 4) MiB (\(how))", "zlib's crc32", ourCRC, zlibCRC)
        record("CRC-32 of \(crcRounds * 4) MiB (\(how))", "a table lookup per byte", ourCRC, tableCRC)

        // 2. RPC JSON: a full RegisterAppInterface response, our JSON against Foundation's.
        let response = try await registrationResponseJSON()
        let bytes = response.serializedBytes()
        let iterations = 200 * scale
        let ours = measure {
            for _ in 0..<iterations {
                let parsed = try! JSONValue.parse(bytes)
                precondition(parsed.serializedBytes().count == bytes.count)
            }
        }
        let data = Data(bytes)
        let foundation = measure {
            for _ in 0..<iterations {
                let parsed = try! JSONSerialization.jsonObject(with: data)
                precondition(try! JSONSerialization.data(withJSONObject: parsed).count > 0)
            }
        }
        record("JSON parse+write RAI response ×\(iterations)", "Foundation JSONSerialization", ours, foundation)

        // 3. Round trips over loopback TCP: Show against the emulator and against the
        // protocol-only head unit, and a raw TCP echo of the same sizes; medians of five, in turns.
        let (headUnit, connection) = try await registeredOverTCP(unlimited)
        try await headUnit.activateApp("bench")
        let manager = try await managerOverTCP(to: headUnit)
        let trips = 1000 * scale  // 2,400 moved the medians between runs by 15%
        let show = Show(mainField1: "Hello", mainField2: "bench")
        let clock = ContinuousClock()
        let requestSize = 12 + 12 + show.json.serializedBytes().count
        let responseSize = 12 + 12 + ThinHeadUnit.success.count
        // Each also with the caller on the link's reader thread (`linkExecutor`), and the echo
        // with its client on the reader thread too: the same trick, given to the baseline.
        let roundTrips = try await inTurns([
            { try await rawTCPRoundTrips(count: trips, requestSize: requestSize, responseSize: responseSize) },
            { try await thinRoundTrips(count: trips, show, pinned: false) },
            { try await clock.measure { try await showRoundTrips(count: trips, show, on: connection, pinned: false) } },
            {
                var machines = try InMemoryRoundTrips()
                return try clock.measure { try machines.run(count: trips, show) }
            },
            { try await rawTCPRoundTrips(count: trips, requestSize: requestSize, responseSize: responseSize, onReaderThread: true) },
            { try await thinRoundTrips(count: trips, show, pinned: true) },
            { try await clock.measure { try await showRoundTrips(count: trips, show, on: connection, pinned: true) } },
            {
                try await clock.measure {
                    for _ in 0..<trips {
                        let answer = try await manager.send(show, timeout: nil)
                        precondition(answer.success)
                    }
                }
            },
        ])
        record("Show round trips ×\(trips), TCP, protocol-only head unit", "raw TCP echo, same sizes", roundTrips[1], roundTrips[0])
        record("the same, caller on linkExecutor", "raw TCP echo, same sizes", roundTrips[5], roundTrips[0])
        record("the same, caller on linkExecutor", "echo, client on its reader thread", roundTrips[5], roundTrips[4])
        record("Show round trips ×\(trips), TCP + emulator", "raw TCP echo, same sizes", roundTrips[2], roundTrips[0])
        record("the same, caller on linkExecutor", "raw TCP echo, same sizes", roundTrips[6], roundTrips[0])
        record("the same through SDLManager", "raw TCP echo, same sizes", roundTrips[7], roundTrips[0])
        record("the same through SDLManager", "through SDLConnection", roundTrips[7], roundTrips[2])
        record("the same through both machines in memory", "raw TCP echo, same sizes", roundTrips[3], roundTrips[0])

        // 4. Bulk: PutFile of 8 MiB in 64 KiB chunks against raw TCP carrying the same bytes:
        // by hand, one at a time (waiting on the shared pool, then on the link's reader thread
        // as the file manager does); through the file manager with one and four chunks in flight
        // (no rate cap); and to the protocol-only head unit (no CRC check, no disk), so the
        // library's share shows apart from the emulator's. The raw baselines: one chunk at a
        // time, four in flight as the file manager's window, and four in flight with the
        // server appending each chunk to a file, which shows what the disk alone costs. Then
        // the four-in-flight rows again at the chunk size SDLManager uses.
        let file = [UInt8](repeating: 0x5A, count: (quick ? 2 : 8) << 20)
        let chunk = 64 * 1024
        @Sendable func upload(_ file: [UInt8] = file, as name: String = "thin.bin", window: Int, chunk: Int = chunk,
                              to connection: SDLConnection) async throws {
            let files = SDLFileManager(channel: connection, chunkSize: chunk, pacing: UploadPacing(window: window, maximumRequestsPerSecond: nil))
            try await files.upload(SDLFile(name: name, source: .data(file), fileType: .binary))
        }
        // Each timed upload to the emulator stores a new file, deleted after the timing, as the
        // raw server does (`rawTCPRoundTrips`): an upload over the last round's copy truncated
        // it first, and truncating 8 MiB the kernel was still writing back made the upload 5.5
        // ms slower (ten paired runs), a cost the raw server paid outside its timing.
        @Sendable func stored(_ upload: (String) async throws -> Void) async throws -> Duration {
            let name = "bench-\(UUID().uuidString).bin"
            let elapsed = try await clock.measure { try await upload(name) }
            let deleted = try await connection.send(DeleteFile(syncFileName: name))
            precondition(deleted.success, "\(deleted.resultCode)")
            return elapsed
        }
        // What SDLManager uploads with: chunks fitted to the session's frame (fitChunks), and
        // a file of whole such chunks, so that the raw baseline sends the same writes.
        let fitted = await {
            let files = SDLFileManager(channel: connection)
            if let session = await connection.session { await files.fitChunks(to: session) }
            return await files.chunkSize
        }()
        let fittedFile = Array(file.prefix(file.count / fitted * fitted))
        let rawSink = NSTemporaryDirectory() + "sdl-bench-raw-\(getpid())"
        @Sendable func byHand(as name: String) async throws { try await putFileByHand(file, chunk: chunk, as: name, on: connection) }
        // Nine rounds: an 8 MiB upload takes 10 to 25 ms, and on this machine kind one round in
        // three or four is slowed by the kernel writing back what the last ones stored.
        let uploads = try await inTurns(rounds: 9, [
            { try await rawTCPBulk(bytes: file.count, chunk: chunk) },
            { try await rawTCPBulk(bytes: file.count, chunk: chunk, window: 4) },
            { try await rawTCPBulk(bytes: file.count, chunk: chunk, window: 4, storingIn: rawSink) },
            { try await stored { try await byHand(as: $0) } },
            { try await stored { try await upload(as: $0, window: 1, to: connection) } },
            { try await stored { try await upload(as: $0, window: 4, to: connection) } },
            { try await thinRoundTrips { try await upload(window: 4, to: $0) } },
            { try await rawTCPBulk(bytes: fittedFile.count, chunk: fitted, window: 4) },
            { try await rawTCPBulk(bytes: fittedFile.count, chunk: fitted, window: 4, storingIn: rawSink) },
            { try await stored { try await upload(fittedFile, as: $0, window: 4, chunk: fitted, to: connection) } },
            { try await stored { name in try await withTaskExecutorPreference(connection.linkExecutor) { try await byHand(as: name) } } },
        ])
        let megabytes = file.count >> 20
        record("PutFile \(megabytes) MiB in 64 KiB chunks", "raw TCP, same chunks, acked", uploads[3], uploads[0])
        record("the same, caller on linkExecutor", "raw TCP, same chunks, acked", uploads[10], uploads[0])
        record("upload \(megabytes) MiB, 64 KiB chunks, 1 in flight", "raw TCP, same chunks, acked", uploads[4], uploads[0])
        record("upload \(megabytes) MiB, 64 KiB chunks, 4 in flight", "raw TCP, same chunks, acked", uploads[5], uploads[0])
        record("the same", "raw TCP, acked, 4 in flight", uploads[5], uploads[1])
        record("the same", "the same, server writing to disk", uploads[5], uploads[2])
        record("raw TCP, 4 in flight, server writing to disk", "raw TCP, acked, 4 in flight", uploads[2], uploads[1])
        record("upload \(megabytes) MiB, 4 in flight, protocol-only head unit", "raw TCP, same chunks, acked", uploads[6], uploads[0])
        record("the same", "raw TCP, acked, 4 in flight", uploads[6], uploads[1])
        record("upload \(fittedFile.count / fitted) chunks of \(fitted) bytes, 4 in flight", "raw TCP, same chunks, acked, 4 in flight", uploads[9], uploads[7])
        record("the same", "the same, server writing to disk", uploads[9], uploads[8])
        record("raw TCP, \(fitted)-byte chunks, 4 in flight, to disk", "raw TCP, acked, 4 in flight", uploads[8], uploads[7])
        await manager.stop()
        await connection.stop()
        await headUnit.stop()

        // 4d. Small chunks under core's flood limit (1,000 messages a second): the standard
        // pacing keeps the upload alive where unpaced chunks get the app unregistered.
        let (limited, paced) = try await registeredOverTCP(.standard)
        let small = 16 * 1024
        let pacedFile = [UInt8](repeating: 0x3C, count: (quick ? 4 : 16) << 20)
        let pacedTime = try await clock.measure {
            try await SDLFileManager(channel: paced, chunkSize: small).upload(SDLFile(name: "paced.bin", source: .data(pacedFile), fileType: .binary))
        }
        let rawSmall = try await rawTCPBulk(bytes: pacedFile.count, chunk: small)
        record("upload \(pacedFile.count >> 20) MiB, 16 KiB chunks, paced ≤800/s", "raw TCP, same chunks, acked", pacedTime, rawSmall)
        await paced.stop()
        await limited.stop()

        // 5. Menu updates: a 300-cell menu with 3 cells changed, the manager's diff against
        // clearing the menu and adding it again (what an app without a diff does).
        let (diffed, rebuilt) = try await menuUpdates(cells: 300, changed: 3, rounds: quick ? 3 : 10)
        record("menu update, 3 of 300 cells changed", "delete all, add all", diffed, rebuilt)

        // 6. Many apps: 100 apps each sending a Show every 100 ms, against one app doing the same.
        let span: Duration = quick ? .seconds(1) : .seconds(3)
        let hundred = try await ManyApps.medianRoundTrip(apps: 100, interval: .milliseconds(100), duration: span)
        let one = try await ManyApps.medianRoundTrip(apps: 1, interval: .milliseconds(100), duration: span)
        record("median Show round trip, 100 apps at 10/s each", "the same, one app", hundred, one)

        // 7. Whole processes: start to FULL and out (hello against the embedded emulator),
        // and the peak memory of an upload from disk; sdl-run must be built beside sdl-bench.
        guard Processes.sdlRun != nil else {
            return print("(sdl-run is not built beside sdl-benchmark: `swift build -c release --static-swift-stdlib --product sdl-run` for the process rows)")
        }
        print(Processes.linkage)
        let hello = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/hello.json").standardized.path
        let helloTime = try Processes.median(runs: quick ? 3 : 9, [hello])
        let versionTime = try Processes.median(runs: quick ? 3 : 9, ["--version"])
        record("sdl-run hello.json: start, FULL, Show, exit", "sdl-run --version", helloTime, versionTime)
        let (uploadPeak, basePeak) = try Processes.uploadPeakResident(megabytes: quick ? 20 : 100)
        print(String(format: "%-44@ %9.1f MB   %-30@ %9.1f MB   ratio %6.2f", "peak RSS, sdl-run uploading \(quick ? 20 : 100) MB" as NSString,
                     Double(uploadPeak) / 1e6, "sdl-run --version" as NSString, Double(basePeak) / 1e6, Double(uploadPeak) / Double(max(basePeak, 1))))
    }

    /// A measured app downloads nothing from the web (the emulator names core's lock screen icon URL).
    static func offline(_ configuration: SDLConfiguration) -> SDLConfiguration {
        var configuration = configuration
        configuration.lockScreen.fetchIcon = false
        return configuration
    }

    /// A second app, through ``SDLManager`` as apps send, registered with `headUnit` over TCP and in FULL.
    static func managerOverTCP(to headUnit: HeadUnitEmulator) async throws -> SDLManager {
        let port = try await headUnit.listen(host: "127.0.0.1", port: 0)
        let manager = SDLManager(configuration: offline(SDLConfiguration(appName: "bench-manager", appID: "bench-manager",
                                                                         transports: [.tcp(host: "127.0.0.1", port: port)])))
        try await manager.start()
        try await headUnit.activateApp("bench-manager")
        _ = await manager.firstNonNoneHMILevel()
        return manager
    }

    static func menuUpdates(cells count: Int, changed: Int, rounds: Int) async throws -> (Duration, Duration) {
        let headUnit = HeadUnitEmulator(configuration: unlimited)
        let manager = SDLManager(configuration: offline(SDLConfiguration(appName: "bench-menu", appID: "bench-menu", transports: [
            TransportChoice("emulator") {
                let (app, unit) = MemoryTransport.pair()
                Task { await headUnit.serve(unit) }
                return app
            },
        ])))
        try await manager.start()
        try await headUnit.activateApp("bench-menu")
        _ = await manager.firstNonNoneHMILevel()
        let menu = manager.screenManager.menu
        func cells(_ generation: Int) -> [MenuCell] {
            (0..<count).map { MenuCell(title: $0 < changed ? "Cell \($0) v\(generation)" : "Cell \($0)") }
        }
        let clock = ContinuousClock()
        try await menu.setMenu(cells(0))
        var start = clock.now
        for round in 1...rounds { try await menu.setMenu(cells(round)) }
        let diffed = clock.now - start
        start = clock.now
        for round in 1...rounds {
            try await menu.setMenu([])
            try await menu.setMenu(cells(round + rounds))
        }
        let rebuilt = clock.now - start
        await manager.stop()
        await headUnit.stop()
        return (diffed, rebuilt)
    }

    /// The standard emulator without its flood limit. Real head units unregister an app that
    /// sends over 1,000 RPCs a second (core's FrequencyCount); the benchmarks measure speed.
    static var unlimited: EmulatorConfiguration {
        var configuration = EmulatorConfiguration.standard
        configuration.floodLimit = (count: Int.max, ms: 1000)
        return configuration
    }

    /// An emulator listening on loopback and an app registered with it over TCP.
    static func registeredOverTCP(_ configuration: EmulatorConfiguration) async throws -> (HeadUnitEmulator, SDLConnection) {
        let headUnit = HeadUnitEmulator(configuration: configuration)
        let port = try await headUnit.listen(host: "127.0.0.1", port: 0)
        let connection = SDLConnection(transport: TCPTransport(host: "127.0.0.1", port: port))
        try await connection.start()
        _ = try await connection.send(RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "bench",
            isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "bench"))
        return (headUnit, connection)
    }

    /// Makes glibc keep freed memory for reuse instead of returning blocks of a few MiB to
    /// the kernel at once (its mmap and trim thresholds), for ours and the baselines alike:
    /// otherwise a row measures which side happened to get freshly faulted pages, and the
    /// framing rows moved from 0.5 to 1.8 with the thread they ran on. A long-running app
    /// reaches the same state by itself: glibc raises its threshold after the first free.
    static func keepFreedMemory() {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1  // M_MMAP_THRESHOLD, M_TRIM_THRESHOLD (malloc.h)
        _ = mallopt(mmapThreshold, 32 << 20)  // glibc's largest
        _ = mallopt(trimThreshold, 1 << 30)
    }

    static func measure(_ body: () -> Void) -> Duration {
        let clock = ContinuousClock()
        body()  // warm up
        return clock.measure(body)
    }

    /// The median of five timings of `ours` and of `baseline`, taken in turns: the machine's
    /// speed drifts within a minute here, and a drift then moves both sides alike.
    static func interleaved(_ ours: () -> Void, against baseline: () -> Void) -> (Duration, Duration) {
        let clock = ContinuousClock()
        ours()
        baseline()  // warm up
        var timings: ([Duration], [Duration]) = ([], [])
        for _ in 0..<5 {
            timings.0.append(clock.measure(ours))
            timings.1.append(clock.measure(baseline))
        }
        return (timings.0.median, timings.1.median)
    }

    /// PutFile by hand, one chunk at a time, as an app without the file manager would.
    static func putFileByHand(_ file: [UInt8], chunk: Int, as name: String, on connection: SDLConnection) async throws {
        var offset = 0
        while offset < file.count {
            let part = Array(file[offset..<min(offset + chunk, file.count)])
            var request = PutFile(syncFileName: name, fileType: .binary, persistentFile: false, systemFile: false,
                                  offset: offset, length: offset == 0 ? file.count : part.count, crc: Int(CRC32.checksum(part)))
            request.bulkData = part
            let answer = try await connection.send(request)
            precondition(answer.success, "\(answer.resultCode)")
            offset += part.count
        }
    }

    /// `rounds` timings of each workload (an odd number), taken in turns after one warm-up run
    /// of each (as ``interleaved(_:against:)``, for workloads that await): round by round, so
    /// that a row compares timings taken moments apart (see ``Rounds``).
    static func inTurns(rounds: Int = 5, _ workloads: [@Sendable () async throws -> Duration]) async throws -> [Rounds] {
        for workload in workloads { _ = try await workload() }
        var timings = [[Duration]](repeating: [], count: workloads.count)
        for _ in 0..<rounds {
            for (index, workload) in workloads.enumerated() { timings[index].append(try await workload()) }
        }
        return timings.map(Rounds.init)
    }

    /// One workload's timings, a round each.
    ///
    /// This machine kind is a virtual machine whose host's load swings for minutes at a time:
    /// on 2026-11-27 the same raw TCP upload took 75 ms and, ten minutes later, 260 to 340 ms.
    /// A ratio of two medians then mixes timings from different swings; the median of the
    /// ratios of each round (the two workloads run back to back) compares like with like.
    struct Rounds {
        let timings: [Duration]
        var median: Duration { timings.median }

        /// The median over the rounds of this round's timing ÷ the baseline's.
        func ratio(to baseline: Rounds) -> Double {
            zip(timings, baseline.timings).map { $0.seconds / max($1.seconds, 1e-9) }.median
        }
    }

    static func registrationResponseJSON() async throws -> JSONValue {
        let headUnit = HeadUnitEmulator(configuration: .standard)
        let connection = SDLConnection(transport: await headUnit.connectInMemory())
        try await connection.start()
        let response = try await connection.send(RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "bench-json",
            isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: "bench-json"))
        await connection.stop()
        await headUnit.stop()
        return response.json
    }

    /// Round trips of `request` to a ``ThinHeadUnit`` over loopback TCP.
    static func thinRoundTrips(count: Int, _ request: Show, pinned: Bool) async throws -> Duration {
        try await thinRoundTrips { try await showRoundTrips(count: count, request, on: $0, pinned: pinned) }
    }

    /// `count` round trips of `request`, one after another; `pinned`: the caller on the
    /// connection's ``SDLConnection/linkExecutor``.
    static func showRoundTrips(count: Int, _ request: Show, on connection: SDLConnection, pinned: Bool) async throws {
        try await withTaskExecutorPreference(pinned ? connection.linkExecutor : nil) {
            for _ in 0..<count {
                let answer = try await connection.send(request)
                precondition(answer.success)
            }
        }
    }

    /// How long `work` takes on a connection to a ``ThinHeadUnit`` over loopback TCP, after
    /// one Show to warm up.
    static func thinRoundTrips(_ work: @Sendable (SDLConnection) async throws -> Void) async throws -> Duration {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let server = ThinHeadUnit.serve(listener)
        let connection = SDLConnection(transport: TCPTransport(host: "127.0.0.1", port: listener.port))
        try await connection.start()
        let answer = try await connection.send(Show(mainField1: "warm up"))
        precondition(answer.success)
        let start = ContinuousClock.now
        try await work(connection)
        let elapsed = ContinuousClock.now - start
        await connection.stop()
        server.cancel()
        listener.close()
        return elapsed
    }
}
