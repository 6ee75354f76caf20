import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The examples are the documentation: each must pass against the embedded emulator.
@Suite("sdl-run runs the examples against the embedded emulator")
struct ExamplesTests {
    static let examples = CommandRunner.packageRoot.appendingPathComponent("examples")
    static let passing = ["hello", "menu", "alert", "vehicle-data", "audio-pass-thru", "files", "reconnect", "keyboard", "secondary", "navigation", "remote-control", "app-services",
                          "lock-screen", "protected", "multi-app", "policy-update", "subtle-alert", "waypoints", "widgets"]

    /// The test's own folder for reports and recordings, removed after it.
    let scratch: TestFolder
    init() throws { scratch = try TestFolder("sdl-run-examples") }

    func temporaryFile(_ name: String) -> String { scratch.path(name) }

    @Test("example passes, with JSON and JUnit reports", arguments: passing)
    func examplePasses(name: String) async throws {
        let json = temporaryFile("result.json"), junit = temporaryFile("junit.xml")
        let result = try await CommandRunner.sdlRun(
            [Self.examples.appendingPathComponent("\(name).json").path, "--json", json, "--junit", junit, "--non-interactive", "fail",
             "--output-dir", scratch.path("output")])
        #expect(result.exitCode == 0, "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)")
        #expect(result.stdout.contains("PASS \(name)"))
        let report = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: json))))
        #expect(report["passed"] == 1)
        #expect(report["scenarios"]?.arrayValue?.first?["steps"]?.arrayValue?.allSatisfy { $0["status"] == "passed" } == true)
        let validation = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/xmllint"),
            ["--noout", "--schema", CommandRunner.packageRoot.appendingPathComponent("Tests/SDLScenarioTests/Fixtures/junit.xsd").path, junit])
        #expect(validation.exitCode == 0, "JUnit XML does not validate: \(validation.stderr)")
    }

    @Test("audio pass-thru writes a WAV file of the recorded PCM; --output-dir takes it and the reports")
    func audioPassThruWritesWAV() async throws {
        let output = scratch.url.appendingPathComponent("output")
        let result = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("audio-pass-thru.json").path, "--output-dir", output.path])
        #expect(result.exitCode == 0, "\(result.stdout)\n\(result.stderr)")
        let wav = try Data(contentsOf: output.appendingPathComponent("recording.wav"))
        #expect(wav.prefix(4) == Data("RIFF".utf8))
        #expect(wav.count > 44 + 16_000)  // one second at 16 kHz, 16 bit is 32,000 bytes of PCM
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("result.json").path))
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("junit.xml").path))
    }

    @Test("navigation without --output-dir: the recordings' folder is named while the run goes, and removed after, saying so")
    func scratchRecordingsRemoved() async throws {
        let result = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("navigation.json").path, "--verbose"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        let named = try #require(result.stdout.split(separator: "\n").lazy.compactMap { line -> String? in
            guard let range = line.range(of: "the head unit recorded it to ") else { return nil }
            return String(line[range.upperBound...])
        }.first, "the step says where the head unit records")
        let folder = (named as NSString).deletingLastPathComponent
        #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is left behind")
        #expect(result.stdout.contains("recordings of the app's streams were removed: --output-dir DIR keeps them"))
    }

    @Test("navigation: the head unit's recordings land in --output-dir, and ffprobe reads 60 frames of 320x240 H.264 and 16 kHz PCM")
    func navigationRecordings() async throws {
        let output = scratch.url.appendingPathComponent("output")
        let result = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("navigation.json").path, "--output-dir", output.path])
        #expect(result.exitCode == 0, "\(result.stdout)\n\(result.stderr)")
        let video = output.appendingPathComponent("recordings/navigator-0001-video.h264").path
        let probe = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/ffprobe"), [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height,nb_read_frames",
            "-of", "csv=p=0", video])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,320,240,60", "\(probe.stdout)\(probe.stderr)")
        let audio = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/ffprobe"), [
            "-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels", "-of", "csv=p=0",
            output.appendingPathComponent("recordings/navigator-0001-audio.wav").path])
        #expect(audio.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s16le,16000,1")
        let report = try JSONValue.parse(Array(try Data(contentsOf: output.appendingPathComponent("result.json"))))
        let outputs = report["scenarios"]?.arrayValue?.first?["steps"]?.arrayValue?.compactMap { $0["output"]?.stringValue } ?? []
        #expect(outputs.contains { $0.contains("sent 60 frames") && $0.contains("as H264/RTP") && $0.contains(video) }, "\(outputs)")
    }

    @Test("the failure example exits 1 and says which step failed and why")
    func failureReport() async throws {
        let junit = temporaryFile("junit.xml")
        let result = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("failure-report.json").path, "--junit", junit])
        #expect(result.exitCode == 1)
        #expect(result.stdout.contains("FAIL failure-report"))
        #expect(result.stdout.contains("Show answered DISALLOWED"), "\(result.stdout)")
        #expect(result.stdout.contains("[$.steps[0]"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<failure message=\"Show answered DISALLOWED"))
        #expect(xml.contains("<skipped message=\"not run: an earlier step failed\""))
        #expect(xml.contains("hostname=\"") && xml.contains("timestamp=\"20"))
        #expect(xml.contains("<system-out>") && xml.contains("→ RegisterAppInterface"), "the run's log is in system-out")
    }

    @Test("a run that cannot connect: one test in error, and the totals agree with the suite (JUnit XML validates)")
    func junitConnectError() async throws {
        let junit = temporaryFile("junit.xml")
        let result = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("hello.json").path, "--tcp", "127.0.0.1:1",
                                                     "--junit", junit, "--connect-timeout", "1"])
        #expect(result.exitCode == 3)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testsuites name=\"sdl-run\" tests=\"1\" failures=\"0\" errors=\"1\">"), "\(xml)")
        #expect(xml.contains("failures=\"0\" errors=\"1\" skipped=\"0\""))
        let validation = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/xmllint"),
            ["--noout", "--schema", CommandRunner.packageRoot.appendingPathComponent("Tests/SDLScenarioTests/Fixtures/junit.xsd").path, junit])
        #expect(validation.exitCode == 0, "JUnit XML does not validate: \(validation.stderr)")
    }

    @Test("several files run one after another; the exit code is the worst outcome")
    func severalFiles() async throws {
        let result = try await CommandRunner.sdlRun([
            Self.examples.appendingPathComponent("hello.json").path,
            Self.examples.appendingPathComponent("failure-report.json").path,
        ])
        #expect(result.exitCode == 1)
        #expect(result.stdout.contains("PASS hello") && result.stdout.contains("FAIL failure-report"))
    }

    @Test("--parallel runs scenarios at once against separate embedded emulators")
    func parallelRuns() async throws {
        let files = ["hello", "menu", "vehicle-data"].map { Self.examples.appendingPathComponent("\($0).json").path }
        let trace = temporaryFile("parallel.jsonl")
        let result = try await CommandRunner.sdlRun(files + ["--parallel", "3", "--trace", trace])
        // Each frame is its own scenario's: the app each registers is the one that scenario names.
        let registrations = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map { try JSONValue.parse(String($0)) }
            .filter { $0["rpc"]?["name"] == "RegisterAppInterface" && $0["rpc"]?["type"] == "request" }
        #expect(registrations.count == 3)
        let apps = ["hello": "hello-0001", "menu": "menu-0001", "vehicle-data": "gauge-0001"]
        for line in registrations {
            let scenario = try #require(line["scenario"]?.stringValue)
            #expect(line["rpc"]?["json"]?["appID"]?.stringValue == apps[scenario], "\(scenario) traced another's frames: \(line)")
        }
        #expect(result.exitCode == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "PASS ").count == 4)
        // Every line says its scenario (but the run's summary), and none is cut by another.
        let lines = result.stdout.split(separator: "\n")
        let unlabelled = lines.filter { line in !["[hello] ", "[menu] ", "[vehicle-data] "].contains { line.hasPrefix($0) } }
        #expect(unlabelled.count == 1 && unlabelled.first?.hasPrefix("3 scenarios: 3 passed") == true, "\(unlabelled)")
        #expect(lines.contains { $0.hasPrefix("[menu] PASS menu — ") })
        // In wire order: the registration's response comes before the first step's verdict.
        let menu = lines.filter { $0.hasPrefix("[menu] ") }
        let response = menu.firstIndex { $0.contains("← RegisterAppInterface #1 SUCCESS") }
        let firstStep = menu.firstIndex { $0.contains("✔ ") }
        #expect(response != nil && firstStep != nil && response! < firstStep!, "\(menu)")
    }

    @Test("tshark reads the pcapng trace of every example: one TCP segment per frame, the same bytes as the JSON trace, valid checksums",
          arguments: passing)
    func pcapngTrace(example: String) async throws {
        let capture = temporaryFile("\(example).pcapng"), lines = temporaryFile("\(example).jsonl")
        defer { try? FileManager.default.removeItem(atPath: capture); try? FileManager.default.removeItem(atPath: lines) }
        let result = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("\(example).json").path,
                                                     "--trace", capture, "--trace", lines, "--trace-bytes", "--non-interactive", "skip",
                                                     "--output-dir", scratch.path("output")])  // audio-pass-thru's recording.wav
        #expect(result.exitCode == 0, "\(result.stdout)")
        let tshark = URL(fileURLWithPath: "/usr/bin/tshark")
        try #require(FileManager.default.isExecutableFile(atPath: tshark.path), "tshark is missing: run scripts/setup")
        let read = try await CommandRunner.run(tshark, ["-r", capture, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
                                                        "-T", "fields", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "tcp.payload",
                                                        "-e", "_ws.expert.severity"])
        #expect(read.exitCode == 0, "\(read.stderr)")
        let packets = read.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        // Spelled with String? comparisons: JSONValue's literal conformances made this line
        // take 2.7 s to type-check, in each of CI's three builds.
        let frames: [JSONValue] = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n")
            .map { try JSONValue.parse(String($0)) }
            .filter { (frame: JSONValue) -> Bool in
                let direction: String? = frame["direction"]?.stringValue
                return direction == "sent" || direction == "received"
            }
        #expect(packets.count == frames.count, "one segment per frame (no frame here is over 60,000 bytes)")
        for (packet, frame) in zip(packets, frames) {
            let fromApp: Bool = frame["direction"]?.stringValue == "sent"
            #expect(packet[fromApp ? 1 : 0] == "12345", "the head unit's side is port 12345")
            #expect(packet[2] == frame["bytes"]?.stringValue, "the segment carries the frame's bytes")
            #expect(packet.count < 4 || packet[3].isEmpty, "tshark has no complaint (bad checksum, lost segment): \(packet)")
        }
    }

    @Test("the trace has every frame with times, header and decoded messages, large ones once; --trace-bytes adds the bytes")
    func traceFile() async throws {
        let trace = temporaryFile("trace.jsonl")
        let result = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("hello.json").path, "--trace", trace])
        #expect(result.exitCode == 0)
        let frames = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(frames.first?["direction"] == "sent")
        #expect(frames.first?["version"] == 1, "the first StartService uses a v1 header")
        #expect(frames.first?["control"] == "startService" && frames.first?["bson"]?["protocolVersion"] == "5.4.1")
        #expect(frames.allSatisfy { $0["time"]?.stringValue?.hasSuffix("Z") == true && $0["timeMS"] != nil }, "absolute and relative times")
        #expect(frames.contains { $0["rpc"]?["name"] == "RegisterAppInterface" && $0["rpc"]?["type"] == "response" })
        #expect(frames.contains { $0["direction"] == "received" && $0["rpc"]?["json"]?["hmiLevel"] == "FULL" })
        #expect(frames.contains { $0["direction"] == "driver" && $0["action"] == "activateApp" }, "driver actions are traced")
        #expect(!frames.contains { $0["bytes"] != nil }, "no frame is written twice by default")
        // With --trace-bytes every frame's bytes decode back to the same header.
        let full = temporaryFile("trace-bytes.jsonl")
        _ = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("hello.json").path, "--trace", full, "--trace-bytes"])
        for frame in try String(contentsOfFile: full, encoding: .utf8).split(separator: "\n").map({ try JSONValue.parse(String($0)) })
            where frame["direction"] != "driver" {
            let bytes = try #require(frame["bytes"]?.stringValue).hexBytes
            var decoder = FrameDecoder(maximumPayloadSize: 1 << 30)
            guard case .frame(let decoded)? = decoder.decode(bytes).first else {
                Issue.record("trace bytes do not decode: \(frame)")
                continue
            }
            #expect(Int64(decoded.header.sessionID) == frame["sessionID"]?.intValue)
            #expect(Int64(decoded.header.dataSize) == frame["dataSize"]?.intValue)
        }
    }

    @Test("logging options: a module's level and format on the console, everything from debug in --log-file, typos exit 2")
    func loggingOptions() async throws {
        let file = temporaryFile("sdl.log")
        let hello = Self.examples.appendingPathComponent("hello.json").path
        let result = try await CommandRunner.sdlRun([hello, "--log-module", "protocol=info", "--log-format", "simple", "--log-file", file])
        #expect(result.exitCode == 0)
        #expect(result.stderr.contains("session 1 started, protocol 5.4.0"), "\(result.stderr)")
        let log = try String(contentsOfFile: file, encoding: .utf8)
        #expect(log.contains(" info protocol: session 1 started"))
        let typo = try await CommandRunner.sdlRun([hello, "--log-module", "protcol=debug"])
        #expect(typo.exitCode == 2)
        #expect(typo.stderr.contains("unknown module; did you mean \"protocol\"?"), "\(typo.stderr)")
    }

    @Test("--log-level debug shows each layer's decisions for a menu update and an upload")
    func debugLogsEachLayer() async throws {
        let menu = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("menu.json").path, "--log-level", "debug"])
        #expect(menu.exitCode == 0)
        for line in ["debug lifecycle: stopped → connecting", "info protocol: session 1 started", "debug rpc: → RegisterAppInterface #1",
                     "debug screen: menu: 0 cells kept, 0 deleted, 2 added", "debug rpc: → AddSubMenu", "debug rpc: ⇠ OnHMIStatus"] {
            #expect(menu.stderr.contains(line), "missing \"\(line)\" in:\n\(menu.stderr)")
        }
        let files = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("files.json").path, "--log-module", "files=debug"])
        #expect(files.exitCode == 0)
        #expect(files.stderr.contains("info files: uploading artwork.png: 84443 bytes in chunks of"), "\(files.stderr)")
        #expect(files.stderr.contains("debug files: artwork.png: chunk at 32768 acknowledged"))
        #expect(files.stderr.contains("info files: artwork.png uploaded (84443 bytes)"))
        #expect(!files.stderr.contains(" rpc: "), "only the files module was turned up")
        let frames = try await CommandRunner.sdlRun([Self.examples.appendingPathComponent("hello.json").path, "--log-module", "protocol=trace"])
        #expect(frames.stderr.contains("trace protocol: → primary v1 control rpc info 1 session 0"), "frames at trace: \(frames.stderr)")
    }

}

extension String {
    var hexBytes: [UInt8] {
        var bytes: [UInt8] = []
        var index = startIndex
        while index < endIndex, let next = self.index(index, offsetBy: 2, limitedBy: endIndex) {
            bytes.append(UInt8(self[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
