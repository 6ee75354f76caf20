import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// `sdl-run --certificate/--key` and the protection steps against `sdl-run emulate` with a
/// security manager, over TCP, with certificates the openssl command line made.
@Suite("sdl-run with protected services: certificates, the protect step, core's refusals")
struct ProtectionCommandTests {
    /// An emulator that trusts the test CA, wants Show encrypted and forces audio protected.
    struct Rig {
        let certificates: TestCertificates
        let folder: URL
        let emulator: BackgroundProcess
        let endpoint: String
        let control: String

        /// `encrypting`: the policy requires Show encrypted, so the app protects RPC by itself in FULL.
        static func start(encrypting: Bool) async throws -> Rig {
            let certificates = try await TestCertificates()
            let folder = certificates.folder
            let config = folder.appendingPathComponent("hu.json")
            let encrypted = encrypting ? #"["Show"]"# : "[]"
            try Data(#"{"timeScale": 0.1, "security": {"ca": "\#(certificates.path("ca.pem"))", "encryptionRequired": \#(encrypted), "forceProtected": ["audio"]}}"#.utf8)
                .write(to: config)
            let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, [
                "emulate", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--config", config.path])
            let endpoint = String(emulator.firstLine.dropFirst("listening on ".count))
            let control = String(await emulator.nextLine().dropFirst("control on ".count))
            return Rig(certificates: certificates, folder: folder, emulator: emulator, endpoint: endpoint, control: control)
        }

        func run(_ steps: String, identity: String, extra: [String] = []) async throws -> CommandRunner.Result {
            let scenario = folder.appendingPathComponent("s-\(UUID().uuidString).json")
            try Data("""
                {"name": "secure", "app": {"appName": "Secure Nav", "appID": "secure-nav-1", "appTypes": ["NAVIGATION"]},
                 "steps": [{"driver": "activateApp"}, {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}}, \(steps)]}
                """.utf8).write(to: scenario)
            return try await CommandRunner.sdlRun([scenario.path, "--tcp", endpoint, "--control", control,
                                                   "--certificate", certificates.path("\(identity).pem"), "--key", certificates.path("\(identity).key")]
                                                  + extra)
        }
    }

    @Test("a trusted certificate: RPC protected by itself, Show encrypted, video protected; the trace marks E=1 frames and shows the handshake")
    func protectedRun() async throws {
        let rig = try await Rig.start(encrypting: true)
        defer { rig.emulator.stop() }
        let trace = rig.folder.appendingPathComponent("trace.jsonl").path
        let result = try await rig.run("""
            {"expect": {"protected": "rpc"}}, {"show": {"text": "encrypted"}},
            {"stream": {"service": "video", "bytes": 40000, "protected": true}}, {"expect": {"protected": "video"}}
            """, identity: "app", extra: ["--trace", trace])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { try? JSONValue.parse(Array($0.utf8)) }
        let queries = lines.compactMap { $0["security"] }
        #expect(queries.first?["type"] == "request" && queries.contains { $0["type"] == "response" }, "\(queries)")
        let protectedVideo = lines.filter { $0["service"] == "video" && $0["encrypted"] == true && $0["frameType"] != "control" }
        #expect(protectedVideo.count >= 3, "every video frame a record (40,000 bytes, 16,091 a record)")
        #expect(!lines.contains { $0["rpc"]?["name"] == "Show" }, "the Show is not readable in the trace")
    }

    @Test("refusals in one line with what to do; a refusal the step expects passes; audio forced, video falls back unprotected",
          arguments: [("stranger", "Certificate is not signed", "use one signed by the CA the head unit trusts"),
                      ("expired", "Certificate is expired", "renew it"),
                      ("other-app", "App ID does not match certificate", "subject serialNumber must be this app's appID")])
    func refused(identity: String, reason: String, advice: String) async throws {
        let rig = try await Rig.start(encrypting: false)
        defer { rig.emulator.stop() }
        let failed = try await rig.run(#"{"protect": "rpc"}"#, identity: identity)
        #expect(failed.exitCode == 1)
        #expect(failed.stdout.contains("RPC could not be protected: the head unit ended the session: \(reason): ") && failed.stdout.contains(advice),
                "\(failed.stdout)")
        let rpc = try await rig.run(#"{"protect": {"service": "rpc", "refused": "\#(reason)"}}"#, identity: identity)
        #expect(rpc.exitCode == 0, "\(rpc.stdout)\(rpc.stderr)")
        let streams = try await rig.run("""
            {"protect": {"service": "video", "refused": "Invalid certificate"}}, {"expect": {"protected": false, "service": "video"}},
            {"protect": {"service": "audio", "refused": "Invalid certificate"}}
            """, identity: identity)
        #expect(streams.exitCode == 0, "\(streams.stdout)\(streams.stderr)")
    }

    @Test("usage: --certificate without --key, an unreadable file", arguments: [
        (["--certificate", "/tmp/x.pem"], "--certificate and --key go together"),
        (["--certificate", "/nonexistent/app.pem", "--key", "/nonexistent/app.key"], "/nonexistent/app.pem"),
        (["--tls-protocol", "tls"], "--ca and --tls-protocol go with --certificate and --key"),
    ])
    func usage(arguments: [String], message: String) async throws {
        let hello = CommandRunner.packageRoot.appendingPathComponent("examples/hello.json").path
        let result = try await CommandRunner.sdlRun([hello] + arguments)
        #expect(result.exitCode == 2, "\(result.stdout)\(result.stderr)")
        #expect((result.stdout + result.stderr).contains(message), "\(result.stdout)\(result.stderr)")
    }
}
