import Foundation
import SmartDeviceLink
import Testing

/// `sdl-run relay`: a TDK's link (here TCP to `sdl-run emulate`) offered to one app at a time
/// over TCP, frames unchanged.
@Suite("sdl-run relay")
struct RelayCommandTests {
    /// An emulator and a relay in front of it; returns them with the relay's address and the emulator's control channel.
    func station() async throws -> (emulator: BackgroundProcess, relay: BackgroundProcess, relayAddress: String, control: String) {
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0"])
        let endpoint = String(emulator.firstLine.dropFirst("listening on ".count))
        let control = String(await emulator.nextLine().dropFirst("control on ".count))
        let relay = try await BackgroundProcess(CommandRunner.sdlRun.path, ["relay", "--tcp", endpoint, "--listen", "127.0.0.1:0"])
        let listening = try JSONValue.parse(relay.firstLine)
        let address = try #require(listening["address"]?.stringValue, "\(relay.firstLine)")
        return (emulator, relay, address, control)
    }

    func verdicts(_ path: String) throws -> [String] {
        let report = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return (report["scenarios"]?.arrayValue?.first?["steps"]?.arrayValue ?? []).map {
            "\($0["path"]?.stringValue ?? "") \($0["status"]?.stringValue ?? "")"
        }
    }

    @Test("a scenario through the relay gives the same verdicts as straight to the head unit; the relay logs the session")
    func sameAsDirect() async throws {
        let (emulator, relay, address, control) = try await station()
        defer { relay.stop(); emulator.stop() }
        let menu = CommandRunner.packageRoot.appendingPathComponent("examples/menu.json").path
        let viaRelay = FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString).json").path
        let direct = FileManager.default.temporaryDirectory.appendingPathComponent("direct-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: viaRelay); try? FileManager.default.removeItem(atPath: direct) }
        let relayed = try await CommandRunner.sdlRun([menu, "--tcp", address, "--control", control, "--json", viaRelay])
        #expect(relayed.exitCode == 0, "\(relayed.stdout)\(relayed.stderr)")
        let connected = try JSONValue.parse(await relay.nextLine())
        #expect(connected["event"] == "connected" && connected["session"] == 1)
        let closed = try JSONValue.parse(await relay.nextLine())
        #expect(closed["event"] == "closed" && closed["reason"] == "the app disconnected")
        #expect((closed["framesToDevice"]?.intValue ?? 0) > 5 && (closed["framesToApp"]?.intValue ?? 0) > 5, "\(closed)")
        // Straight to the head unit, through the emulator's own endpoint.
        let headUnit = String(emulator.firstLine.dropFirst("listening on ".count))
        let again = try await CommandRunner.sdlRun([menu, "--tcp", headUnit, "--control", control, "--json", direct])
        #expect(again.exitCode == 0)
        #expect(try verdicts(viaRelay) == verdicts(direct))
    }

    @Test("a second app while one is connected is turned away and logged; the first app's leaving frees the relay")
    func oneAppAtATime() async throws {
        let (emulator, relay, address, _) = try await station()
        defer { relay.stop(); emulator.stop() }
        let first = try TCPTransport(endpoint: address)
        try await first.open()
        #expect(try JSONValue.parse(await relay.nextLine())["event"] == "connected")
        let second = try TCPTransport(endpoint: address)
        try await second.open()
        let refused = try JSONValue.parse(await relay.nextLine())
        #expect(refused["event"] == "refused" && refused["reason"] == "an app is already connected through this relay")
        var ended = false
        do {
            for try await _ in second.incoming {}
            ended = true
        } catch {
            ended = true
        }
        #expect(ended, "the relay closed the second app's connection")
        await first.close()
        #expect(try JSONValue.parse(await relay.nextLine())["event"] == "closed")
        let third = try TCPTransport(endpoint: address)
        try await third.open()
        #expect(try JSONValue.parse(await relay.nextLine())["event"] == "connected", "the next app is served")
        await third.close()
        await second.close()
    }
}
