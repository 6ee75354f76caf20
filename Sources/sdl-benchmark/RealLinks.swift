import Foundation
@_spi(RawLinks) import SmartDeviceLink

/// `sdl-benchmark link usb-gadget|usb-host|rfcomm|tcp [--quick] [--rounds N]`: the library on
/// a real link against the raw link, in the same process and the same run. Made for the lab,
/// where dummy_hcd joins a USB device controller and a host controller in one kernel, and
/// btvirt makes two Bluetooth controllers (``RFCOMMLink``); `tcp` (loopback) is the control
/// that shows what the machine itself costs the library (``LoopbackTCP``).
///
/// - `usb-gadget`: the app is the USB device (``USBGadgetTransport``: configfs and
///   FunctionFS), the head unit the host (``USBTransport``: libusb), as a phone on a head
///   unit's port.
/// - `usb-host`: the app is the host and the head unit the device, as an app on a board
///   with a TDK's vendor-bulk port plugged in.
///
/// The head unit is ``ThinHeadUnit``: the protocol and nothing else, so that the rows show
/// the library and the link. The baseline is the same bytes over the same endpoints with
/// nothing over them: FunctionFS reads and writes on one side, libusb's synchronous bulk
/// transfers on the other (``RawWork``). Each round times every workload on a fresh link of
/// each kind, ours then raw, after a warm-up round; a row gives the median of the rounds'
/// ratios and their spread.
enum RealLinks {
    enum Link: String, CaseIterable {
        case usbGadget = "usb-gadget", usbHost = "usb-host", rfcomm, tcp
    }

    /// What both sides carry in a round.
    struct Work: Sendable {
        var trips: Int
        var file: [UInt8]
        var chunk: Int
        /// Upload chunks in flight.
        var window: Int
        var video: [[UInt8]]
        var show = Show(mainField1: "Hello", mainField2: "bench")

        /// 1,000 Show round trips, 8 MiB in `SDLManager`'s chunks four in flight, and the
        /// navigation app's test pattern ten times; a tenth of each (about) with `quick`.
        static func standard(quick: Bool) throws -> Work {
            let clip = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Examples/NavigationApp/Sources/NavigationApp/pattern.h264").standardized)
            let units = H264.accessUnits(in: [UInt8](clip)).map { H264.annexB($0) }
            let chunk = 131_072 - 12 - 512  // SDLFileManager.fitChunks for core's 128 KiB frames: what SDLManager uploads with
            let file = [UInt8](repeating: 0x5A, count: (quick ? 1 : 8) << 20)
            return Work(trips: quick ? 100 : 1000, file: Array(file.prefix(file.count / chunk * chunk)), chunk: chunk,
                        window: 4, video: Array(repeating: units, count: quick ? 2 : 10).flatMap { $0 })
        }

        var requestSize: Int { 12 + 12 + show.json.serializedBytes().count }
        var responseSize: Int { 12 + 12 + ThinHeadUnit.success.count }
        var videoBytes: Int { video.reduce(0) { $0 + $1.count } }
    }

    /// One round's timings: round trips, upload, video; and the process's context switches
    /// per round trip (both ends are in it), the cost an emulated machine multiplies.
    struct Timings {
        var trips, upload, video: Duration
        var switchesPerTrip = 0.0
    }

    /// This process's context switches so far, voluntary and not (getrusage).
    static func contextSwitches() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_nvcsw + usage.ru_nivcsw
    }

    /// The library's transports as shipped, or with a setting changed: a change to a
    /// transport is shown by its rows beside the shipped ones, from the same rounds.
    struct Variant: Sendable {
        var name: String
        var gadget: @Sendable (inout USBGadgetTransport.Options) -> Void = { _ in }
        var host: @Sendable (inout USBTransport.Options) -> Void = { _ in }

        static let all = [
            Variant(name: "ours"),
            Variant(name: "host transfers of 16 KiB, one OUT in flight (the earlier defaults)",
                    host: { $0.inTransferSize = 16_384; $0.outTransferSize = 16_384; $0.outTransfersInFlight = 1 }),
            Variant(name: "host transfers of 64 KiB IN, 128 KiB OUT, one OUT in flight", host: {
                $0.inTransferSize = 65_536; $0.outTransferSize = 131_072; $0.outTransfersInFlight = 1
            }),
            Variant(name: "gadget reading a packet a time", gadget: { $0.largestRead = 512 }),
        ]
    }

    static func run(_ arguments: [String]) async throws {
        let usage = "usage: sdl-benchmark link \(Link.allCases.map(\.rawValue).joined(separator: "|")) [--quick] [--rounds N]"
        guard let name = arguments.first, let link = Link(rawValue: name) else { return say(usage) }
        let quick = arguments.contains("--quick")
        let rounds = arguments.firstIndex(of: "--rounds").flatMap { arguments.dropFirst($0 + 1).first }.flatMap { Int($0) } ?? (quick ? 1 : 5)
        let work = try Work.standard(quick: quick)
        say("\(link.rawValue): \(work.trips) Show round trips; \(work.file.count / work.chunk) PutFile chunks of \(work.chunk) bytes, "
              + "\(work.window) in flight; \(work.video.count) H.264 access units (\(work.videoBytes) bytes) back to back; "
              + "\(rounds) rounds after a warm-up")
        let variants = quick || link == .rfcomm || link == .tcp ? [Variant.all[0]] : Variant.all
        var ours = [[Timings]](repeating: [], count: variants.count), raw: [Timings] = [], wakeUps: [Duration] = []
        for round in 0...rounds {
            var timings: [Timings] = []
            for variant in variants { timings.append(try await measureOurs(link, variant, work)) }
            let baseline = try await measureRaw(link, work)
            let wakeUp = try await WakeUps.cost()
            progress("\(link.rawValue): round \(round) of \(rounds) done")
            guard round > 0 else { continue }
            for index in variants.indices { ours[index].append(timings[index]) }
            raw.append(baseline)
            wakeUps.append(wakeUp)
        }
        for (variant, timings) in zip(variants, ours) {
            say("\(variant.name) ÷ raw:")
            report(timings, raw, work, wakeUp: wakeUps.median)
        }
    }

    /// Says on standard error how far a run got (a link that stalls shows where).
    static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Prints a line at once, also into a pipe: a lab test's log shows each as it comes.
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    static func report(_ ours: [Timings], _ raw: [Timings], _ work: Work, wakeUp: Duration) {
        func row(_ name: String, _ path: KeyPath<Timings, Duration>, bytes: Int?) {
            let ratios = zip(ours, raw).map { $0[keyPath: path].seconds / $1[keyPath: path].seconds }.sorted()
            let median = { (timings: [Timings]) in timings.map { $0[keyPath: path] }.median }
            let rate = { (time: Duration) in bytes.map { String(format: " (%.1f MB/s)", Double($0) / time.seconds / 1e6) } ?? "" }
            say(String(format: "%-28@ ours %9.1f ms%@   raw %9.1f ms%@   ratio %5.2f (%.2f to %.2f)",
                         name as NSString, median(ours).seconds * 1000, rate(median(ours)) as NSString,
                         median(raw).seconds * 1000, rate(median(raw)) as NSString,
                         ratios.median, ratios.first!, ratios.last!))
        }
        row("Show round trips ×\(work.trips)", \.trips, bytes: nil)
        let switches = { (timings: [Timings]) in timings.map(\.switchesPerTrip).median }
        say(String(format: "%-28@ ours %9.1f      raw %9.1f      ratio %5.2f", "  context switches a trip" as NSString,
                   switches(ours), switches(raw), switches(ours) / max(switches(raw), 0.01)))
        // What the extra switches cost at this machine's price of a wake-up, against how much
        // longer a trip takes: the share of the gap that is waking threads.
        let trip = { (timings: [Timings]) in timings.map(\.trips.seconds).median / Double(work.trips) }
        let gap = trip(ours) - trip(raw), extra = (switches(ours) - switches(raw)) * wakeUp.seconds
        say(String(format: "  a wake-up here %.1f µs: the %.1f more switches a trip cost %.0f µs of the %.0f µs it takes longer (%.0f %%)",
                   wakeUp.seconds * 1e6, switches(ours) - switches(raw), extra * 1e6, gap * 1e6, gap > 0 ? 100 * extra / gap : 0))
        row("upload \(work.file.count >> 10) KiB, \(work.window) in flight", \.upload, bytes: work.file.count)
        row("video, \(work.video.count) access units", \.video, bytes: work.videoBytes)
    }

    // MARK: - Ours

    /// The library's transports for `link`: the app's first.
    static func transports(_ link: Link, _ variant: Variant) async throws -> (app: any SDLTransport, unit: any SDLTransport) {
        var device = USBGadgetTransport.Options()
        device.startAsAccessory = true  // the switch is not what is measured
        variant.gadget(&device)
        var host = USBTransport.Options()
        host.waitForDevice = .seconds(60)
        variant.host(&host)
        switch link {
        case .usbGadget:
            host.endpoints = .firstInAndOut  // as sdl_core claims a phone's accessory interface
            return (USBGadgetTransport(options: device), USBTransport(.ids([.androidAccessory]), options: host))
        case .usbHost:
            return (USBTransport(.ids([.androidAccessory]), options: host), USBGadgetTransport(options: device))
        case .rfcomm:
            return try await RFCOMMLink.transports()
        case .tcp:
            let (app, unit) = try LoopbackTCP.pair()
            return (StreamSocketTransport(connectedDescriptor: app, description: "TCP", kind: .tcp),
                    StreamSocketTransport(connectedDescriptor: unit, description: "TCP", kind: .tcp))
        }
    }

    static func measureOurs(_ link: Link, _ variant: Variant, _ work: Work) async throws -> Timings {
        let (app, unit) = try await transports(link, variant)
        let (videoBytes, videoIn) = AsyncStream.makeStream(of: Int.self)
        let server = Task { try await ThinHeadUnit.serve(unit, video: videoIn) }
        let connection = SDLConnection(transport: app)
        defer { server.cancel() }
        try await connection.start()
        progress("ours: connected over \(app.description)")
        let clock = ContinuousClock()
        let warmUp = try await connection.send(Show(mainField1: "warm up"))
        precondition(warmUp.success)
        let switchesBefore = contextSwitches()
        let trips = try await clock.measure { try await Bench.showRoundTrips(count: work.trips, work.show, on: connection, pinned: false) }
        let switches = Double(contextSwitches() - switchesBefore) / Double(work.trips)

        progress("ours: round trips done")
        let files = SDLFileManager(channel: connection, chunkSize: work.chunk, pacing: UploadPacing(window: work.window, maximumRequestsPerSecond: nil))
        let upload = try await clock.measure {
            try await files.upload(SDLFile(name: "bench.bin", source: .data(work.file), fileType: .binary))
        }

        progress("ours: upload done")
        _ = try await connection.startService(.video, payload: ControlPayload(height: 480, width: 800, videoProtocol: "RAW", videoCodec: "H264"))
        let video = try await clock.measure {
            for accessUnit in work.video { try await connection.sendServiceData(accessUnit, on: .video) }
            var received = 0
            for await count in videoBytes {
                received += count
                if received >= work.videoBytes { break }
            }
        }
        await connection.stop()
        await unit.close()
        return Timings(trips: trips, upload: upload, video: video, switchesPerTrip: switches)
    }

    // MARK: - Raw

    static func measureRaw(_ link: Link, _ work: Work) async throws -> Timings {
        let (app, unit, close) = try await rawEnds(link)
        defer { close() }
        progress("raw: connected")
        let switchesBefore = contextSwitches()
        let trips = try await RawWork.exchange(app: app, unit: unit, count: work.trips, requestSize: work.requestSize,
                                               responseSize: work.responseSize, window: 1)
        let switches = Double(contextSwitches() - switchesBefore) / Double(work.trips)
        progress("raw: round trips done")
        let upload = try await RawWork.exchange(app: app, unit: unit, count: work.file.count / work.chunk, requestSize: work.chunk,
                                                responseSize: work.responseSize, window: work.window)
        progress("raw: upload done")
        let video = try await RawWork.stream(app: app, unit: unit, units: work.video)
        return Timings(trips: trips, upload: upload, video: video, switchesPerTrip: switches)
    }

    /// The raw link's ends, the app's first, and what closes them.
    static func rawEnds(_ link: Link) async throws -> (app: any RawEnd, unit: any RawEnd, close: @Sendable () -> Void) {
        if link == .rfcomm { return try await RFCOMMLink.rawEnds() }
        if link == .tcp {
            let (app, unit) = try LoopbackTCP.pair()
            return (FileEnd(readFD: app, writeFD: app), FileEnd(readFD: unit, writeFD: unit), { Glibc.close(app); Glibc.close(unit) })
        }
        let options = { var options = USBGadgetTransport.Options(); options.startAsAccessory = true; return options }()
        let gadget = Task { try await blocking { try RawGadgetLink.open(options) } }
        let host = try await blocking { try LibUSBEnd(.androidAccessory) }
        let device = try await gadget.value
        let deviceEnd = FileEnd(readFD: device.bulkOut, writeFD: device.bulkIn)
        let close: @Sendable () -> Void = { host.close(); device.close() }
        return link == .usbGadget ? (deviceEnd, host, close) : (host, deviceEnd, close)
    }

    /// Runs `body`, which blocks (opening a link), on a thread of its own instead of the pool.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { done in
            Thread { done.resume(with: Result { try body() }) }.start()
        }
    }
}
