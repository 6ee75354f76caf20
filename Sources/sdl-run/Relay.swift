import ArgumentParser
import Foundation
import SDLScenario
import SmartDeviceLink

/// `sdl-run relay --usb | --bt | --tcp … --listen HOST:PORT`: this machine holds the link to
/// the TDK and offers it as a TCP server, so an app on a developer machine reaches the TDK
/// over the network (what the SDL Relay app did). Frames pass unchanged both ways.
struct Relay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Offer a TDK's USB, Bluetooth or TCP link to one app at a time over TCP.",
        discussion: """
            Each app that connects gets a fresh link to the TDK; when the app goes, that link is
            closed, and when the TDK goes, the app's connection is closed. A second app while one is
            connected is turned away (and logged). One JSON line per event on stdout: listening,
            connected, refused, closed (with the frames each way). --trace records every frame.
            """)

    @OptionGroup var transport: TransportOptions

    @Option(help: ArgumentHelp("Where apps connect (loopback unless told otherwise).", valueName: "host:port"))
    var listen = "127.0.0.1:12345"

    @Option(help: ArgumentHelp("Record every frame: FILE.pcapng, or JSON lines (repeatable).", valueName: "file"))
    var trace: [String] = []

    @Flag(help: "Keep every frame's bytes in JSON-lines traces.")
    var traceBytes = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard transport.isExternal else { throw ValidationError("relay needs the TDK's link: --usb, --bt or --tcp HOST:PORT") }
        _ = try Emulate.endpoint(listen, option: "--listen")
    }

    func run() async throws {
        logging.bootstrap()
        _ = try transport.makeTransport()  // a malformed device or address fails here, with exit code 2
        let address = try Emulate.endpoint(listen, option: "--listen")
        let listener: TCPListener
        do { listener = try TCPListener(host: address.host, port: address.port) } catch {
            throw CommandFailure.connection("cannot listen on \(listen): \(error.description)")
        }
        let traces: TraceFiles?
        do { traces = trace.isEmpty ? nil : try TraceFiles(paths: trace, fullBytes: traceBytes) } catch {
            throw CommandFailure.invalid("cannot write --trace \(trace.joined(separator: ", ")): \(error.localizedDescription)")
        }
        let relay = LinkRelay(makeDevice: { [transport] in try transport.makeTransport()! }, traces: traces)
        relay.emit(["event": "listening", "address": .string("\(listener.host):\(listener.port)")])
        let signals = StopSignals { listener.close() }
        for await app in listener.connections { await relay.accept(app) }
        withExtendedLifetime(signals) {}
        traces?.close()
    }
}

/// Joins each app to a fresh link to the device, one app at a time.
actor LinkRelay {
    private let makeDevice: @Sendable () throws -> any SDLTransport
    private let traces: TraceFiles?
    private var busy = false
    private var session = 0

    init(makeDevice: @escaping @Sendable () throws -> any SDLTransport, traces: TraceFiles?) {
        self.makeDevice = makeDevice
        self.traces = traces
    }

    private let output = JSONLineWriter()

    nonisolated func emit(_ object: JSONObject) { output.write(object) }

    func accept(_ app: StreamSocketTransport) async {
        guard !busy else {
            emit(["event": "refused", "app": .string(app.description), "reason": "an app is already connected through this relay"])
            await app.close()
            return
        }
        busy = true
        session += 1
        let number = session
        Task {
            await self.serve(app, session: number)
            self.busy = false
        }
    }

    private func serve(_ app: StreamSocketTransport, session: Int) async {
        let device: any SDLTransport
        do {
            device = try makeDevice()
            try await app.open()
            try await device.open()
        } catch {
            emit(["event": "closed", "session": .int(Int64(session)), "reason": .string("cannot reach the TDK: \(error)")])
            await app.close()
            return
        }
        emit(["event": "connected", "session": .int(Int64(session)), "app": .string(app.description), "device": .string(device.description)])
        // Each direction pumps until its side ends; then both links close, which ends the other.
        async let toDevice = pump(from: app, to: device, direction: .sent, session: session)
        async let toApp = pump(from: device, to: app, direction: .received, session: session)
        let (sent, received) = await (toDevice, toApp)
        emit(["event": "closed", "session": .int(Int64(session)), "framesToDevice": .int(Int64(sent.frames)),
              "framesToApp": .int(Int64(received.frames)), "reason": .string(sent.ended ?? received.ended ?? "closed")])
    }

    /// Copies bytes from one side to the other unchanged, counting (and tracing) the frames.
    private nonisolated func pump(from source: any SDLTransport, to sink: any SDLTransport,
                                  direction: FrameTraceEvent.Direction, session: Int) async -> (frames: Int, ended: String?) {
        var decoder = FrameDecoder(maximumPayloadSize: 1 << 20, fromHeadUnit: direction == .received)
        var frames = 0
        var ended: String?
        do {
            for try await chunk in source.incoming {
                try await sink.send(chunk)
                for case .frame(let frame) in decoder.decode(chunk) {
                    frames += 1
                    traces?.record(FrameTraceEvent(direction: direction, time: .now, frame: frame), scenario: "relay session \(session)", app: nil)
                }
            }
            ended = direction == .sent ? "the app disconnected" : "the TDK closed the link"
        } catch {
            ended = "\(direction == .sent ? "app" : "TDK") link failed: \(error)"
        }
        await source.close()
        await sink.close()
        return (frames, ended)
    }
}
