import Foundation
import Testing

/// Broken head units and faulty links (Tests/Peers/fault_peer.py), seen as a user of
/// `sdl-run` sees them: the exit code, the one line that says what happened, and the
/// bytes that reached the head unit.
@Suite("Fault injection: broken head units and faulty links")
struct FaultInjectionTests {
    static let peer = CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/fault_peer.py").path

    /// Starts fault_peer.py and returns it with the port it listens on.
    func faultPeer(_ arguments: [String]) async throws -> (BackgroundProcess, Int) {
        let peer = try await BackgroundProcess("/usr/bin/python3", [Self.peer] + arguments)
        let port = try #require(Int(peer.firstLine), "fault_peer.py did not start")
        return (peer, port)
    }

    // MARK: - Broken head units

    @Test("a head unit that accepts and never answers: exit 3 once --register-timeout passes, naming StartService")
    func silentHeadUnit() async throws {
        let (peer, port) = try await faultPeer(["silent"])
        defer { peer.stop() }
        let result = try await CommandRunner.sdlRun(["examples/hello.json", "--tcp", "127.0.0.1:\(port)", "--register-timeout", "1"])
        #expect(result.exitCode == 3)
        #expect(result.stdout.contains("connection failed: no answer to StartService within 1 s: is this an SDL head unit"), "\(result.stdout)")
    }

    @Test("a head unit that closes every connection at once: retried by the reconnect policy, then exit 3 saying so")
    func closingHeadUnit() async throws {
        let (peer, port) = try await faultPeer(["close"])
        defer { peer.stop() }
        let result = try await CommandRunner.sdlRun(["examples/hello.json", "--tcp", "127.0.0.1:\(port)"])
        #expect(result.exitCode == 3)
        #expect(result.stdout.contains("reconnect attempts failed, the last: "), "\(result.stdout)")
        #expect(result.stdout.contains("before StartService was answered: is this an SDL head unit?"), "\(result.stdout)")
        #expect(!result.stdout.contains("connection lost: connection lost"), "an error layer repeats itself")
    }

    @Test("a port that answers with bytes that are not SDL: exit 3, saying how many bytes and why the first were not a frame")
    func garbageHeadUnit() async throws {
        let (peer, port) = try await faultPeer(["garbage"])
        defer { peer.stop() }
        let result = try await CommandRunner.sdlRun(["examples/hello.json", "--tcp", "127.0.0.1:\(port)", "--register-timeout", "1"])
        #expect(result.exitCode == 3)
        #expect(result.stdout.contains("the 512 bytes that came are not SDL (protocol version"), "\(result.stdout)")
        #expect(result.stdout.contains("is this the head unit's SDL port?"), "\(result.stdout)")
    }

    // MARK: - Faulty links in front of the emulator

    /// A folder with a 600 KB file, a scenario that uploads it persistently and lists it,
    /// and an emulator that stores files there; fault_peer.py's proxy sits in between.
    struct UploadRig {
        let folder: URL
        let content: [UInt8]
        let emulator: BackgroundProcess
        let emulatorPort: Int

        /// - Parameter stepTimeout: the putFile step's `timeout` (ms), how long each chunk waits for its answer.
        static func start(stepTimeout: Int? = nil) async throws -> UploadRig {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fault-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("hu"), withIntermediateDirectories: true)
            var generator = SystemRandomNumberGenerator()
            let content = (0..<600_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(content).write(to: folder.appendingPathComponent("big.bin"))
            try Data("""
                {"name": "upload", "app": {"appName": "Fault", "appID": "fault-1"},
                 "steps": [{"putFile": {"path": "big.bin", "name": "big.bin", "persistent": true}\(stepTimeout.map { ", \"timeout\": \($0)" } ?? "")},
                           {"send": "ListFiles", "response": {"params": {"filenames": ["big.bin"]}}}]}
                """.utf8).write(to: folder.appendingPathComponent("upload.json"))
            try Data(#"{"storage": {"directory": "\#(folder.path)/hu"}}"#.utf8).write(to: folder.appendingPathComponent("hu.json"))
            let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, [
                "emulate", "--listen", "127.0.0.1:0", "--config", folder.appendingPathComponent("hu.json").path])
            let port = try #require(emulator.firstLine.split(separator: ":").last.flatMap { Int($0) }, "\(emulator.firstLine)")
            return UploadRig(folder: folder, content: content, emulator: emulator, emulatorPort: port)
        }

        func run(through proxyPort: Int) async throws -> CommandRunner.Result {
            try await CommandRunner.sdlRun([folder.appendingPathComponent("upload.json").path, "--tcp", "127.0.0.1:\(proxyPort)"])
        }

        /// What the head unit stored, nil if nothing.
        var stored: [UInt8]? {
            FileManager.default.contents(atPath: folder.appendingPathComponent("hu/fault-1/big.bin").path).map(Array.init)
        }

        func stop() {
            emulator.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("a link cut at any byte: during registration, mid-frame in the upload, on the way back; the run passes and the head unit's file is identical",
          arguments: [("up", 100), ("down", 3_000), ("up", 200_001), ("up", 450_017), ("down", 6_000)])
    func cutLink(direction: String, offset: Int) async throws {
        let rig = try await UploadRig.start()
        defer { rig.stop() }
        let (proxy, port) = try await faultPeer(["proxy", "127.0.0.1:\(rig.emulatorPort)", "--cut-at", "\(offset)", "--direction", direction])
        defer { proxy.stop() }
        let result = try await rig.run(through: port)
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(rig.stored == rig.content, "the head unit's file differs from the app's")
    }

    @Test("a cut while answers are still on their way (20 ms each way): the resumed upload probes where the head unit's copy ends, and a probe's INVALID_DATA does not fail the step")
    func cutWithAnswersInFlight() async throws {
        let rig = try await UploadRig.start()
        defer { rig.stop() }
        let (proxy, port) = try await faultPeer(["proxy", "127.0.0.1:\(rig.emulatorPort)", "--cut-at", "450017", "--delay", "20"])
        defer { proxy.stop() }
        let result = try await rig.run(through: port)
        // Usually the answer to the third chunk is lost with the link: the head unit has more
        // than was acknowledged, and the first offset tried is refused.
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(rig.stored == rig.content, "the head unit's file differs from the app's")
    }

    @Test("a link that stalls mid-upload and stays open: the step fails after its timeout, saying how far it got, exit 1")
    func stalledLink() async throws {
        let rig = try await UploadRig.start(stepTimeout: 1500)
        defer { rig.stop() }
        let (proxy, port) = try await faultPeer(["proxy", "127.0.0.1:\(rig.emulatorPort)", "--stall-at", "300001"])
        defer { proxy.stop() }
        let result = try await rig.run(through: port)
        #expect(result.exitCode == 1)
        #expect(result.stdout.contains("acknowledged bytes: PutFile (correlation id"), "\(result.stdout)")
        #expect(result.stdout.contains("got no response within 1.5 s"), "\(result.stdout)")
    }

    @Test("a slow link (every chunk held 20 ms each way): the run passes and the file is identical")
    func slowLink() async throws {
        let rig = try await UploadRig.start()
        defer { rig.stop() }
        let (proxy, port) = try await faultPeer(["proxy", "127.0.0.1:\(rig.emulatorPort)", "--delay", "20"])
        defer { proxy.stop() }
        let result = try await rig.run(through: port)
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(rig.stored == rig.content)
    }
}
