import Foundation
import SDLScenario
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The HTML report as a person sees it: rendered by Debian's chromium (headless, through
/// chromium-driver and python3-selenium, Tests/Peers/report_browser.py), which checks the
/// lifelines, an arrow per message, the failed step in red with its expected/got text, and
/// that a click on an arrow shows the message. Screenshots land in .build/report-screens/.
@Suite("sdl-run --html: the run as a sequence chart in one file, checked in a real browser")
struct HTMLReportTests {
    static let browser = CommandRunner.packageRoot.appendingPathComponent("Tests/Peers/report_browser.py").path
    static let screens = CommandRunner.packageRoot.appendingPathComponent(".build/report-screens")

    /// A new temporary folder, removed by the caller's `defer`.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdl-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Opens `page` in headless chromium and checks it against the run in `result`; what the
    /// check printed, after expecting it passed. `crop`: screenshot the first chart alone.
    @discardableResult
    static func browserCheck(_ page: URL, against result: URL, screenshot: URL, crop: Bool = false) async throws -> String {
        try FileManager.default.createDirectory(at: screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        let check = try await runChildProcess("/usr/bin/python3", [browser, page.path, result.path, screenshot.path] + (crop ? ["first-section"] : []),
                                              errorsIntoOutput: true)
        let said = String(decoding: check.output, as: UTF8.self)
        #expect(check.status == 0, "\(said)")
        return said
    }

    @Test("the report of a failing, an alert and a passing example renders as the result says, and text with </script> cannot break the page")
    func rendered() async throws {
        let output = try Self.folder()
        defer { try? FileManager.default.removeItem(at: output) }
        let tricky = output.appendingPathComponent("tricky.json")
        try #"""
        {"name": "tricky </script> name", "app": {"appName": "Tricky", "appID": "tricky-1"},
         "steps": [{"driver": "activateApp"}, {"show": {"text": ["</script><b>not markup</b>"]}}]}
        """#.write(to: tricky, atomically: true, encoding: .utf8)
        let examples = CommandRunner.packageRoot.appendingPathComponent("examples")
        let run = try await CommandRunner.sdlRun([examples.appendingPathComponent("failure-report.json").path,
                                                  examples.appendingPathComponent("alert.json").path, tricky.path,
                                                  "--output-dir", output.path])
        #expect(run.exitCode == 1, "failure-report fails on purpose: \(run.stdout)")
        let page = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(!page.contains("<link") && !page.contains(" src=") && !page.contains("@import"), "self-contained: nothing fetched from anywhere")
        #expect(page.components(separatedBy: "</script>").count == 3, "only the page's own two script elements end")

        let said = try await Self.browserCheck(output.appendingPathComponent("report.html"), against: output.appendingPathComponent("result.json"),
                                               screenshot: Self.screens.appendingPathComponent("examples.png"))
        #expect(said.contains("checked 3 scenarios"), "\(said)")
    }

    @Test("every example's report opens in headless chromium without a console error and shows what its result.json says; the failed run's chart is the README's picture")
    func everyExample() async throws {
        let output = try Self.folder()
        defer { try? FileManager.default.removeItem(at: output) }
        let examples = CommandRunner.packageRoot.appendingPathComponent("examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.path)
            .filter { $0.hasSuffix(".json") && $0 != "scenario.schema.json" }.sorted()
        #expect(files.count >= 12)
        let run = try await CommandRunner.sdlRun(files.map { examples.appendingPathComponent($0).path } + ["--output-dir", output.path])
        #expect(run.exitCode == 1, "only failure-report fails: \(run.stdout.suffix(400))")
        let said = try await Self.browserCheck(output.appendingPathComponent("report.html"), against: output.appendingPathComponent("result.json"),
                                               screenshot: Self.screens.appendingPathComponent("every-example.png"))
        #expect(said.contains("checked \(files.count) scenarios"), "\(said)")

        // The README's picture: the failed example's own chart. It lands beside the others;
        // SDL_REFRESH_DOC_IMAGES=1 puts it in docs/images/ (its time stamps change every run).
        let failed = output.appendingPathComponent("failed")
        _ = try await CommandRunner.sdlRun([examples.appendingPathComponent("failure-report.json").path, "--output-dir", failed.path])
        let refresh = ProcessInfo.processInfo.environment["SDL_REFRESH_DOC_IMAGES"] == "1"
        let picture = refresh ? CommandRunner.packageRoot.appendingPathComponent("docs/images/failed-run.png")
                              : Self.screens.appendingPathComponent("failed-run.png")
        try await Self.browserCheck(failed.appendingPathComponent("report.html"), against: failed.appendingPathComponent("result.json"),
                                    screenshot: picture, crop: true)
    }

    @Test("sdl-run report makes the page again from a saved --trace: every RPC and control message, the secondary link's marked; a pcapng is refused")
    func fromTrace() async throws {
        let output = try Self.folder()
        defer { try? FileManager.default.removeItem(at: output) }
        let trace = output.appendingPathComponent("secondary.jsonl"), page = output.appendingPathComponent("trace.html")
        let example = CommandRunner.packageRoot.appendingPathComponent("examples/secondary.json").path
        #expect(try await CommandRunner.sdlRun([example, "--trace", trace.path]).exitCode == 0)
        let report = try await CommandRunner.sdlRun(["report", trace.path, "--html", page.path])
        #expect(report.exitCode == 0, "\(report.stderr)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("registerSecondaryTransport (control) [secondary]") && html.contains("startServiceACK (video) [secondary]"))
        // The browser check counts against the same run, made here from the trace.
        let run = try TraceReport.run(lines: try String(contentsOf: trace, encoding: .utf8).split(separator: "\n"), source: trace.path)
        let runFile = output.appendingPathComponent("run.json")
        try Data(run.serializedBytes()).write(to: runFile)
        try await Self.browserCheck(page, against: runFile, screenshot: Self.screens.appendingPathComponent("trace.png"))

        let pcap = output.appendingPathComponent("frames.pcapng")
        try Data([0x0A, 0x0D, 0x0D, 0x0A, 0, 0, 0, 0]).write(to: pcap)
        let refused = try await CommandRunner.sdlRun(["report", pcap.path, "--html", page.path])
        #expect(refused.exitCode == 2 && refused.stderr.contains("not a line of an sdl-run --trace (JSON lines, not .pcapng)"), "\(refused.stderr)")
    }

    @Test("a run of 10,000 messages stays a short page: repeated steps and runs of one function fold into bars that count them")
    func largeRun() async throws {
        let output = try Self.folder()
        defer { try? FileManager.default.removeItem(at: output) }
        let many = output.appendingPathComponent("many.json")
        try #"""
        {"name": "many", "app": {"appName": "Many", "appID": "many-1"},
         "emulator": {"floodLimit": {"count": 100000, "ms": 1000}},
         "steps": [{"driver": "activateApp"},
                   {"repeat": {"times": 5000, "steps": [{"send": "Show", "params": {"mainField1": "x"}}]}}]}
        """#.write(to: many, atomically: true, encoding: .utf8)
        let run = try await CommandRunner.sdlRun([many.path, "--output-dir", output.path])
        #expect(run.exitCode == 0, "\(run.stdout)")
        let said = try await Self.browserCheck(output.appendingPathComponent("report.html"), against: output.appendingPathComponent("result.json"),
                                               screenshot: Self.screens.appendingPathComponent("many.png"))
        let rows = said.split(separator: "\n").first { $0.hasPrefix("many:") }.flatMap { $0.split(separator: " ").dropLast().last }.flatMap { Int($0) }
        #expect(rows.map { $0 < 30 } == true, "\(said)")
        print(said)  // with the time the page took to draw
    }
}
