#if canImport(Glibc)
import Glibc
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SDLEmulator
import SDLScenario
import SDLTestSupport
import SmartDeviceLink
import Testing

/// A policy table update from end to end in one process: the emulator hands the app the
/// snapshot, the library posts it to a real HTTP server and brings the answer back, the
/// emulator applies it; and every way the server can fail is one line that leaves the app
/// registered.
@Suite("Policy table updates: the library's HTTP exchange, the emulator's update, the policy server")
struct PolicyUpdateTests {
    static let update = CommandRunner.packageRoot.appendingPathComponent("examples/policy/fleet-cloud-store.json").path

    /// A manager registered with an emulator whose policy table sends updates to `url`.
    static func registered(url: String, appID: String = "fleet-0001", timeout: Duration = .seconds(45))
        async throws -> (HeadUnitEmulator, SDLManager) {
        var configuration = EmulatorConfiguration.standard
        configuration.policyUpdate.url = url
        let emulator = HeadUnitEmulator(configuration: configuration)
        var app = SDLConfiguration(appName: "Fleet", appID: appID, transports: [TransportChoice("memory") {
            let (app, headUnit) = MemoryTransport.pair()
            Task { await emulator.serve(headUnit) }
            return app
        }], registrationTimeout: .seconds(30))
        app.lockScreen.fetchIcon = false
        app.systemRequests.timeout = timeout
        let manager = SDLManager(configuration: app)
        try await manager.start()
        try await emulator.activateApp(appID)
        return (emulator, manager)
    }

    /// Asks for an update and returns how the app's exchange ended.
    static func update(_ emulator: HeadUnitEmulator, _ manager: SDLManager) async -> SystemRequestEvent? {
        var events = await manager.systemRequestManager.events().makeAsyncIterator()
        let started = await emulator.control(["action": "updatePolicy"])
        #expect(started["ok"] == true, "\(started)")
        return await events.next()
    }

    @Test("the snapshot goes to the server, its answer back: SUCCESS, the new group's RPCs allowed, the cloud app's icon fetched for the head unit")
    func endToEnd() async throws {
        let icon: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 1, 2, 3]
        // The example's update names its icon on port 3000; here the icon's server has a free port.
        let icons = try PolicyServer(update: [], files: ["/icons/weather-cloud.png": icon], port: 0)
        defer { icons.stop() }
        let iconURL = "http://\(icons.address)/icons/weather-cloud.png"
        let update = String(decoding: try PolicyServer.readUpdate(at: Self.update), as: UTF8.self)
            .replacingOccurrences(of: "http://127.0.0.1:3000/icons/weather-cloud.png", with: iconURL)
        let server = try PolicyServer(update: Array(update.utf8), port: 0)
        defer { server.stop() }
        let (emulator, manager) = try await Self.registered(url: server.url)
        defer { Task { await manager.stop() } }
        #expect(await !manager.permissionManager.isRPCAllowed("GetCloudAppProperties"))
        var events = await manager.systemRequestManager.events().makeAsyncIterator()
        #expect(await emulator.control(["action": "updatePolicy"])["ok"] == true)
        let event = await events.next()
        #expect(event?.outcome == .delivered(.success, info: nil), "\(event?.description ?? "no event")")
        #expect(event?.description == "policy table update via \(server.url): the head unit answered SUCCESS")
        let iconEvent = await events.next()
        #expect(iconEvent?.requestType == .iconUrl && iconEvent?.url == iconURL)
        #expect(iconEvent?.description == "cloud app icon \(iconURL): the head unit answered SUCCESS")
        let snapshot = try JSONValue.parse(try #require(server.received.first))
        #expect(snapshot["policy_table"]?["app_policies"]?["fleet-0001"] == "default", "the snapshot names the app")
        var allowed = false
        for _ in 0..<200 where !allowed {
            allowed = await manager.permissionManager.isRPCAllowed("GetCloudAppProperties")
            if !allowed { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(allowed, "OnPermissionsChange granted the CloudAppStore group")
        let properties = try await manager.send(GetCloudAppProperties(appID: "weather-cloud"), timeout: nil)
        #expect(properties.properties?.endpoint == "ws://127.0.0.1:9999" && properties.properties?.enabled == true)
    }

    @Test("a server that is down, slow, answers 503, or answers what is no policy table: one line, nothing sent, the app stays registered",
          arguments: [("down", "no answer from the policy server"), ("slow", "no complete answer in time"),
                      ("503", "the policy server answered HTTP 503"), ("garbage", "is not a JSON policy table (24 bytes), so it was not passed on")])
    func failures(server kind: String, reason: String) async throws {
        let bad = try BadServer(kind)
        defer { bad.stop() }
        let (emulator, manager) = try await Self.registered(url: bad.url, timeout: .seconds(1))
        defer { Task { await manager.stop() } }
        let event = try #require(await Self.update(emulator, manager))
        guard case .failed(let why) = event.outcome else { Issue.record("\(kind): \(event)"); return }
        #expect(why.contains(reason), "\(why)")
        #expect(event.description.hasPrefix("policy table update via \(bad.url) failed: "))
        #expect(!event.description.contains("\n"))
        #expect(await manager.state == .ready)
        let show = try await manager.send(Show(mainField1: "still here"), timeout: nil)
        #expect(show.resultCode == .success)
    }

    @Test("an answer that is JSON but no policy table: the head unit takes the file (SUCCESS, as sdl_hmi) and its policy manager refuses it, the permissions unchanged")
    func refusedTable() async throws {
        let server = try PolicyServer(update: Array(#"{"data": [{"policy_table": {"app_policies": {}}}]}"#.utf8), port: 0)
        defer { server.stop() }
        let (emulator, manager) = try await Self.registered(url: server.url)
        defer { Task { await manager.stop() } }
        var emulated = await emulator.events().makeAsyncIterator()
        let event = await Self.update(emulator, manager)
        #expect(event?.outcome == .delivered(.success, info: nil))
        while let next = await emulated.next(), next != .policyUpdate(applied: false) {
            #expect(next != .policyUpdate(applied: true))
        }
        #expect(await !manager.permissionManager.isRPCAllowed("GetCloudAppProperties"))
    }

    @Test("SystemRequest as core 8.2 checks it (measured): the file name, the data, the app carrying the update, a cloud icon's URL",
          arguments: [("PROPRIETARY", "SYNC", true, "REJECTED", nil), ("PROPRIETARY", nil, false, "REJECTED", nil),
                      ("PROPRIETARY", "../x", true, "INVALID_DATA", "Sync file name contains forbidden symbols."),
                      ("PROPRIETARY", "tab\tname", true, "INVALID_DATA", nil), ("PROPRIETARY", "bad name", true, "REJECTED", nil),
                      ("ICON_URL", "http://127.0.0.1:3000/icons/unknown.png", true, "INVALID_DATA", "Invalid file name"),
                      ("FILE_RESUME", "x.bin", true, "SUCCESS", nil)] as [(String, String?, Bool, String, String?)])
    func systemRequestChecks(type: String, fileName: String?, withData: Bool, result: String, info: String?) async throws {
        let (_, manager) = try await Self.registered(url: "http://127.0.0.1:9/")
        defer { Task { await manager.stop() } }
        let request = SystemRequest(requestType: RequestType(rawValue: type), fileName: fileName, bulkData: withData ? [1, 2, 3] : nil)
        let response = try await manager.send(request, timeout: nil)
        #expect(response.resultCode.rawValue == result && response.info == info, "\(response.resultCode) \(response.info ?? "")")
    }

    @Test("a scenario's policyServer is checked when it loads: the update file, the address, the files it serves", arguments: [
        (#"{"update": "missing.json"}"#, "$.policyServer.update: cannot read"),
        (#"{"update": "/dev/zero"}"#, "$.policyServer.update: cannot read /dev/zero"),
        (#"{"update": "not-a-table.json"}"#, "has no \"policy_table\" object"),
        (#"{"update": "update.json", "listen": "3000"}"#, "$.policyServer.listen: expected host:port"),
        (#"{"update": "update.json", "files": {"icon.png": "update.json"}}"#, "a path the server answers starts with /"),
        (#"{"update": "update.json", "files": {"/icon.png": "nowhere.png"}}"#, "cannot read"),
        (#"{"listen": "127.0.0.1:3000"}"#, "$.policyServer.update: is required"),
    ])
    func invalidServer(server: String, expected: String) throws {
        let folder = try TestFolder("policy-server-parse")
        try #"{"policy_table": {}}"#.write(toFile: folder.path("update.json"), atomically: true, encoding: .utf8)
        try #"{"table": {}}"#.write(toFile: folder.path("not-a-table.json"), atomically: true, encoding: .utf8)
        let path = folder.path("scenario.json")
        try (#"{"app": {"appName": "A", "appID": "a"}, "policyServer": "# + server + #", "steps": []}"#).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ScenarioError.self) { try ScenarioParser.load(path: path) }
        do { _ = try ScenarioParser.load(path: path) } catch { #expect(error.description.contains(expected), "\(error.description)") }
    }

    @Test("sdl-run policy-server: says where it listens, answers a POST with the update and says so, a GET from --file, stops on SIGINT")
    func command() async throws {
        let folder = try TestFolder("policy-server")
        let icon = folder.path("icon.png")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: icon))
        let server = try await BackgroundProcess(CommandRunner.sdlRun.path, ["policy-server", Self.update, "--listen", "127.0.0.1:0",
                                                                            "--file", "/icons/a.png=\(icon)"])
        defer { server.stop() }
        let listening = try JSONValue.parse(Array(server.firstLine.utf8))
        let url = try #require(listening["url"]?.stringValue)
        #expect(listening["event"] == "listening" && url.hasSuffix("/api/1/policies/proprietary"))
        var post = URLRequest(url: URL(string: url)!)
        post.httpMethod = "POST"
        post.httpBody = Data(#"{"policy_table": {}}"#.utf8)
        let (answer, _) = try await URLSession.shared.data(for: post)
        #expect(try JSONValue.parse(Array(answer))["policy_table"]?["app_policies"]?["fleet-0001"] != nil)
        #expect(try JSONValue.parse(Array(await server.nextLine().utf8)) == ["event": "snapshot", "bytes": 20])
        let (file, _) = try await URLSession.shared.data(from: URL(string: url.replacingOccurrences(of: "/api/1/policies/proprietary", with: "/icons/a.png"))!)
        #expect(Array(file) == [1, 2, 3])
        kill(server.process.processIdentifier, SIGINT)
        #expect(await server.finish().0 == 0, "SIGINT ends it cleanly")
    }
}

/// A web server that fails as a policy server can: `down` (nobody listens), `slow` (takes the
/// request and never answers), `503`, `garbage` (200 with an HTML page).
final class BadServer: Sendable {
    let url: String
    private let server: LoopbackServer?

    init(_ kind: String) throws {
        let path = "/api/1/policies/proprietary"
        guard kind != "down" else {
            server = nil
            url = "http://127.0.0.1:\(try LoopbackServer.closedPort())\(path)"
            return
        }
        let server = try LoopbackServer { client in
            var request = [UInt8](repeating: 0, count: 65536)
            _ = read(client, &request, request.count)
            // Slow: the connection stays open, unanswered, until the client gives up.
            if kind == "slow" {
                while read(client, &request, request.count) > 0 {}
            } else {
                let body = kind == "503" ? "busy" : "<html>maintenance</html>"
                let status = kind == "503" ? "503 Service Unavailable" : "200 OK"
                LoopbackServer.put(client, "HTTP/1.1 \(status)\r\nContent-Type: text/html\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
            close(client)
        }
        self.server = server
        url = server.url(path)
    }

    func stop() { server?.stop() }
}
