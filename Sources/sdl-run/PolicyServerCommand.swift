import ArgumentParser
import Foundation
import SDLScenario
import SmartDeviceLink

/// `sdl-run policy-server UPDATE.json`: a policy server for a bench, as sdl_server answers a
/// head unit's policy table update, so a PTU runs end to end without the OEM's cloud.
struct PolicyServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy-server",
        abstract: "Answer every policy table update with one policy table file.",
        discussion: """
            Put its URL in the head unit's policy table: `scripts/run-core --policy-url URL` for
            sdl_core, `"policyUpdate": {"url": URL}` in the emulator's configuration. The app carries
            the head unit's snapshot there (OnSystemRequest PROPRIETARY) and the answer back
            (SystemRequest). One JSON line per event on stdout: listening (with the URL), snapshot
            (its size). Runs until SIGINT or SIGTERM.
            """)

    @Argument(help: ArgumentHelp("The policy table update to serve: JSON with a policy_table object, bare or as sdl_server's {\"data\": [...]}.",
                                 valueName: "update.json"))
    var update: String

    @Option(help: ArgumentHelp("Where it listens (sdl_server's port by default).", valueName: "host:port"))
    var listen = "127.0.0.1:3000"

    @Option(name: .customLong("file"), help: ArgumentHelp("Answer a GET of PATH with FILE (a cloud app's icon the update names; repeatable).",
                                                          valueName: "/path=file"))
    var files: [String] = []

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let address = try Emulate.endpoint(listen, option: "--listen")
        let output = JSONLineWriter()
        var served: [String: [UInt8]] = [:]
        for file in files {
            let parts = file.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].hasPrefix("/") else { throw ValidationError("--file takes /path=file, not \(file)") }
            guard let bytes = FileManager.default.contents(atPath: parts[1]) else { throw CommandFailure.invalid("--file: cannot read \(parts[1])") }
            served[parts[0]] = Array(bytes)
        }
        let server: PolicyServer
        do {
            server = try PolicyServer(update: try PolicyServer.readUpdate(at: update), files: served, host: address.host, port: address.port) { snapshot in
                output.write(["event": "snapshot", "bytes": .int(Int64(snapshot.count))])
            }
        } catch {
            throw CommandFailure.invalid(error.description)
        }
        output.write(["event": "listening", "url": .string(server.url)])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let waiting = Locked(Optional(done))
            // The handler outlives this closure: StopSignals' thread keeps it.
            _ = StopSignals { waiting.withLock { $0.take() }?.resume() }
        }
        server.stop()
    }
}
