import Foundation
import NavigationApp
import SDLEmulator
import SmartDeviceLink
import Synchronization
import Testing

/// The navigation app against the emulator in the same process: the test is the driver (it
/// opens the app and taps the map) and checks the video that arrives, the maneuvers shown
/// and what the app says on its terminal.
@Suite("The navigation app, driven on the emulator")
struct NavigationAppTests {
    @Test("streams the pattern, reports taps, and guides maneuver by maneuver to the destination", .timeLimit(.minutes(2)))
    func drive() async throws {
        // The head unit records the video it gets: into a folder of this test's own.
        let recordings = FileManager.default.temporaryDirectory.appendingPathComponent("nav-app-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: recordings) }
        var configuration = EmulatorConfiguration.standard
        configuration.recordingDirectory = recordings
        let headUnit = HeadUnitEmulator(configuration: configuration)
        let port = try await headUnit.listen(port: 0)
        let lines = Mutex<[String]>([])
        let app = NavigationApp(link: .tcp(host: "127.0.0.1", port: port)) { line in lines.withLock { $0.append(line) } }
        try await app.start()
        try await headUnit.activateApp()
        let appID = "sdl-maps-0001"
        // The whole pattern (38,046 bytes) arrived, and it goes on looping.
        #expect(await headUnit.waitUntil { ($0.app(appID)?.streams["video"]?.bytesOnPrimary ?? 0) > 38_046 }, "the pattern went through once")
        #expect(await headUnit.waitUntil { $0.app(appID)?.navigation["maneuver"]?["navigationText1"] == "Turn left onto Main St" })
        #expect(await headUnit.waitUntil { $0.app(appID)?.navigation["turnList"]?.arrayValue?.count == 3 })

        try await headUnit.touch("tap", at: (x: 120, y: 340))
        #expect(await headUnit.waitUntil { $0.app(appID)?.navigation["maneuver"]?["navigationText1"] == "Turn right onto 2nd Ave" })
        try await headUnit.touch("tap", at: (x: 400, y: 240))
        #expect(await headUnit.waitUntil { $0.app(appID)?.navigation["maneuver"]?["navigationText1"] == "Arrive at the destination" })
        #expect(await headUnit.waitUntil { $0.app(appID)?.navigation["turnList"]?.arrayValue?.count == 1 }, "only the last turn is left")
        try await headUnit.touch("pan", at: (x: 100, y: 100), to: (x: 300, y: 100))

        let said = { lines.withLock { $0 } }
        for _ in 0..<100 where !said().contains(where: { $0.hasPrefix("pan from") }) { try await Task.sleep(for: .milliseconds(50)) }
        let expected = ["registered as SDL Maps", "maneuver: Turn left onto Main St in 200 m", "tap at (120, 340)",
                        "maneuver: Turn right onto 2nd Ave in 1.2 km", "tap at (400, 240)",
                        "maneuver: Arrive at the destination in 50 m", "spoken: You have arrived"]
        #expect(said().filter { expected.contains($0) } == expected, "\(said())")
        #expect(said().contains("video: streaming"), "\(said())")
        #expect(said().contains { $0.hasPrefix("pan from (100, 100) to") }, "\(said())")
        await app.stop()
        await headUnit.stop()
        #expect(!said().contains { $0.contains("failed") }, "\(said())")
        // What reached the head unit's screen is the pattern, as ffprobe reads it.
        #expect(try Self.probe(recordings + "/sdl-maps-0001-video.h264") == "h264,800,480")
    }

    @Test("the command line: a clip that is not there, a link it cannot read: one line each, exit 2")
    func commandLineErrors() throws {
        let app = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("nav-app").path
        let noClip = try Self.run(app, ["--video", "/nonexistent/clip.h264"])
        #expect(noClip.status == 2 && noClip.stderr == "nav-app: --video /nonexistent/clip.h264: no such file, or it cannot be read\n", "\(noClip)")
        let badLink = try Self.run(app, ["--bt", "00:11"])
        #expect(badLink.status == 2 && badLink.stderr.hasPrefix("nav-app: --bt 00:11: expected a Bluetooth address"), "\(badLink)")
    }

    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    /// The codec and size of a recorded stream, from ffprobe.
    static func probe(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
