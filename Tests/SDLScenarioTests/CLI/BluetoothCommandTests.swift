import Foundation
import Testing

/// `--bt` on the command line. This machine (and CI) has no Bluetooth adapter, so what is
/// tested is what a bench user meets first: typos and a missing adapter, each with a
/// message that says what to do. The transport behind it is tested over a socketpair.
@Suite("sdl-run --bt")
struct BluetoothCommandTests {
    @Test("a malformed address or channel is a usage error (exit 2) that shows the expected form", arguments: [
        ("00:11:22", "like 00:1A:7D:DA:71:13"),
        ("00:11:22:33:44:5G", "like 00:1A:7D:DA:71:13"),
        ("00:11:22:33:44:55@0", "channel is 1…30"),
        ("00:11:22:33:44:55@x", "channel is 1…30"),
    ])
    func malformed(address: String, hint: String) async throws {
        let result = try await CommandRunner.sdlRun(["register", "--bt", address])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("--bt \(address)") && result.stderr.contains(hint), "\(result.stderr)")
    }

    @Test("--wait goes with --usb or with --bt alone; elsewhere it is a usage error", arguments: [
        ["--wait", "5"], ["--tcp", "127.0.0.1:1", "--wait", "5"], ["--bt", "00:11:22:33:44:55", "--wait", "5"], ["--usb", "--wait", "0"],
    ])
    func waitNeedsAWaitingTransport(arguments: [String]) async throws {
        let result = try await CommandRunner.sdlRun(["examples/hello.json"] + arguments)
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--wait"), "\(result.stderr)")
    }

    @Test("one transport at a time")
    func oneTransport() async throws {
        let result = try await CommandRunner.sdlRun(["examples/hello.json", "--bt", "00:11:22:33:44:55", "--tcp", "127.0.0.1:1"])
        #expect(result.exitCode != 0)
        #expect(result.stderr.contains("choose one transport"), "\(result.stderr)")
    }

    @Test("a scenario over Bluetooth that cannot connect fails as a connection failure (exit 3), naming Bluetooth")
    func unreachable() async throws {
        let hello = CommandRunner.packageRoot.appendingPathComponent("examples/hello.json").path
        let result = try await CommandRunner.sdlRun([hello, "--bt", "00:11:22:33:44:55", "--connect-timeout", "2"])
        #expect(result.exitCode == 3, "\(result.stdout)\(result.stderr)")
        #expect((result.stdout + result.stderr).contains("Bluetooth"))
    }
}
