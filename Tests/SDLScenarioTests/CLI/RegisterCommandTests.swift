import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// `sdl-run register` against an independent head unit (Tests/Peers/mini_head_unit.py,
/// written in Python from PROTOCOL.md), which checks every frame the app sends.
@Suite("sdl-run register against an independent head unit")
struct RegisterCommandTests {
    static let peer = CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/mini_head_unit.py").path

    func register(peerArguments: [String], _ more: [String] = []) async throws -> (CommandRunner.Result, Int32, String) {
        let headUnit = try await BackgroundProcess("/usr/bin/python3", [Self.peer] + peerArguments)
        let port = try #require(Int(headUnit.firstLine), "the peer did not start: run scripts/setup (it needs pymongo)")
        let result = try await CommandRunner.sdlRun(["register", "--tcp", "127.0.0.1:\(port)", "--listen", "0.2"] + more)
        let (peerExit, peerOutput) = await headUnit.finish()
        return (result, peerExit, peerOutput)
    }

    @Test("a peer holds none of the test process's standard streams, so a crashed test run ends")
    func peerHoldsNoStreamOfOurs() async throws {
        let headUnit = try await BackgroundProcess("/usr/bin/python3", [Self.peer])
        defer { headUnit.stop() }
        let ours = (0...2).map { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
        for fd: Int32 in 0...2 {
            let theirs = try #require(headUnit.descriptorTarget(fd))
            // /dev/null holds nothing open; a pipe or socket of ours would.
            #expect(theirs == "/dev/null" || !ours.contains(theirs), "the peer's descriptor \(fd) is ours: \(theirs)")
        }
    }

    func lines(_ text: String) throws -> [JSONObject] {
        try text.split(separator: "\n").map { try #require(JSONValue.parse(String($0)).objectValue) }
    }

    @Test("registers at protocol 5: v1 StartService with BSON 5.4.1, then 5.4.0 frames the peer accepts")
    func registersAtProtocol5() async throws {
        let (result, peerExit, peerOutput) = try await register(peerArguments: [])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(peerExit == 0, "the head unit saw violations: \(peerOutput)")
        let events = try lines(result.stdout)
        #expect(events.first { $0["event"] == "session" }?["protocolVersion"] == "5.4.0")
        #expect(events.contains { $0["name"] == "RegisterAppInterface" && $0["parameters"]?["resultCode"] == "SUCCESS" })
        #expect(events.contains { $0["name"] == "OnHMIStatus" && $0["parameters"]?["hmiLevel"] == "NONE" })
        #expect(events.last { $0["event"] == "response" }?["name"] == "UnregisterAppInterface")
    }

    @Test("--secondary tcp: the TCP endpoint of a TransportEventUpdate is registered as the session's secondary, as the peer checks")
    func registersSecondary() async throws {
        let (result, peerExit, peerOutput) = try await register(peerArguments: ["--secondary"], ["--secondary", "tcp", "--listen", "0.5"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(peerExit == 0, "the head unit saw violations: \(peerOutput)")
        let names = try lines(result.stdout).filter { $0["event"] == "transport" }.compactMap { $0["name"]?.stringValue }
        #expect(Array(names.prefix(3)) == ["primaryConnected", "secondaryOffered", "secondaryRegistered"])
    }

    @Test("beside a TCP primary the library opens no secondary unless told to")
    func noSecondaryByDefaultOverTCP() async throws {
        let (result, peerExit, peerOutput) = try await register(peerArguments: ["--secondary"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(peerExit == 1 && peerOutput.contains("never registered its secondary"), "\(peerOutput)")
        #expect(try !lines(result.stdout).contains { $0["name"] == "secondaryRegistered" })
    }

    @Test("negotiates down to the head unit's protocol", arguments: [4, 3])
    func negotiatesDown(version: Int) async throws {
        let (result, peerExit, peerOutput) = try await register(peerArguments: ["--version", String(version)])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(peerExit == 0, "the head unit saw violations: \(peerOutput)")
        #expect(try lines(result.stdout).first { $0["event"] == "session" }?["protocolVersion"] == .string("\(version).0.0"))
    }

    @Test("a StartServiceNAK exits 3 with the reason and the rejected parameters")
    func reportsNAK() async throws {
        let (result, _, _) = try await register(peerArguments: ["--nak"])
        #expect(result.exitCode == 3)
        #expect(result.stderr.contains("refused the session: test refuses (rejected parameters: protocolVersion)"))
    }

    @Test("nobody listening exits 3 and says what to check")
    func refusedConnection() async throws {
        let result = try await CommandRunner.sdlRun(["register", "--tcp", "127.0.0.1:1"])
        #expect(result.exitCode == 3)
        #expect(result.stderr.contains("connection refused by 127.0.0.1:1"))
    }

    @Test("a malformed --tcp value exits 2")
    func invalidEndpoint() async throws {
        let result = try await CommandRunner.sdlRun(["register", "--tcp", "127.0.0.1:notaport"])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("is not a port number"))
    }

    @Test("an app id longer than the spec allows exits 2 before anything is sent")
    func invalidAppID() async throws {
        let headUnit = try await BackgroundProcess("/usr/bin/python3", [Self.peer])
        let port = try #require(Int(headUnit.firstLine))
        let result = try await CommandRunner.sdlRun(["register", "--tcp", "127.0.0.1:\(port)", "--app-id", String(repeating: "x", count: 101)])
        headUnit.stop()
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("RegisterAppInterface.appID is 101 characters long"), "\(result.stderr)")
    }

    @Test("core 8.2's large answers: an 8 KB response and a 17 KB notification in 1,488-byte frames, after a 4.5 s ACK hold")
    func largeMultiFrameAnswersAfterSlowACK() async throws {
        let (result, peerExit, peerOutput) = try await register(peerArguments: ["--mtu", "1500", "--ack-delay", "4.5"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(peerExit == 0, "the head unit saw violations: \(peerOutput)")
        let events = try lines(result.stdout)
        let response = try #require(events.first { $0["name"] == "RegisterAppInterface" })
        #expect(response["parameters"]?["displayCapabilities"]?["textFields"]?.arrayValue?.count == 110)
        let permissions = try #require(events.first { $0["name"] == "OnPermissionsChange" })
        #expect(permissions["parameters"]?["permissionItem"]?.arrayValue?.count == 95)
    }
}

/// `sdl-run register` shows a head unit's mistakes instead of hiding them behind a decoding.
@Suite("sdl-run register reports what breaks the spec")
struct RegisterSpecTests {
    @Test("image fields without the mandatory imageTypeSupported are printed as they came, and each is named")
    func imageFieldsAsTheyCame() async throws {
        let scratch = try TestFolder("register-spec")
        // As core answers behind an HMI that gives it no display capabilities.
        let fields = (0..<3).map { _ in #"{"name": "menuIcon", "imageResolution": {"resolutionWidth": 35, "resolutionHeight": 35}}"# }
        try Data(#"{"capabilities": {"displayCapabilities": {"displayType": "SDL_GENERIC", "displayName": "GENERIC_DISPLAY", "graphicSupported": true, "mediaClockFormats": [], "textFields": [{"name": "mainField1", "characterSet": "UTF_8", "width": 500, "rows": 1}], "imageFields": [\#(fields.joined(separator: ","))]}}}"#.utf8)
            .write(to: scratch.url.appendingPathComponent("hu.json"))
        let emulator = try await BackgroundProcess(CommandRunner.sdlRun.path, ["emulate", "--listen", "127.0.0.1:0", "--config", scratch.path("hu.json")])
        defer { emulator.stop() }
        let endpoint = String(emulator.firstLine.dropFirst("listening on ".count))
        let result = try await CommandRunner.sdlRun(["register", "--tcp", endpoint, "--listen", "0.2"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let events = try result.stdout.split(separator: "\n").map { try #require(JSONValue.parse(String($0)).objectValue) }
        let response = try #require(events.first { $0["event"] == "response" && $0["name"] == "RegisterAppInterface" })
        let printed = response["parameters"]?["displayCapabilities"]?["imageFields"]?.arrayValue ?? []
        #expect(printed.count == 3 && printed.allSatisfy { $0["imageTypeSupported"] == nil }, "\(printed)")
        let violations = events.filter { $0["event"] == "specViolation" }
        #expect(violations.map { $0["path"]?.stringValue } == (0..<3).map { "RegisterAppInterface.displayCapabilities.imageFields[\($0)].imageTypeSupported" })
        #expect(violations.first?["problem"]?.stringValue?.hasSuffix("is missing but mandatory in the RegisterAppInterface response") == true,
                "\(violations)")
    }
}
