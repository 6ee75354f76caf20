import Foundation
import SDLScenario
import Testing

/// The bench station's index page, from report folders as `sdl-run watch` leaves them.
@Suite("The bench station's index: its runs newest first, each with its outcome and a link to its report")
struct BenchIndexTests {
    func folder(_ reports: URL, _ name: String, run: String, result: String?) throws {
        let folder = reports.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try run.write(to: folder.appendingPathComponent("run.json"), atomically: true, encoding: .utf8)
        try result?.write(to: folder.appendingPathComponent("result.json"), atomically: true, encoding: .utf8)
    }

    @Test("two runs on two devices and one still going: newest first, outcome, verdict counts with flaky ones, links; the running one left out")
    func index() throws {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: reports) }
        try folder(reports, "20261128T0900-1-4", run: #"{"device": "TDK A", "startedAt": "2026-11-28T09:00:00Z", "outcome": "failed"}"#,
                   result: #"{"scenarios": [{"status": "passed", "flaky": true}, {"status": "failed"}]}"#)
        try folder(reports, "20261128T1000-gadget", run: #"{"device": "USB gadget on dummy_udc.0", "startedAt": "2026-11-28T10:00:00Z", "outcome": "passed"}"#,
                   result: #"{"scenarios": [{"status": "passed"}]}"#)
        try FileManager.default.createDirectory(at: reports.appendingPathComponent("20261128T1100-1-5"), withIntermediateDirectories: true)
        try BenchIndex.write(reports: reports.path)
        let page = try String(contentsOf: reports.appendingPathComponent("index.html"), encoding: .utf8)
        let newer = try #require(page.range(of: "20261128T1000-gadget/report.html")), older = try #require(page.range(of: "20261128T0900-1-4/report.html"))
        #expect(newer.lowerBound < older.lowerBound, "newest first")
        #expect(page.contains("1 passed, 1 failed, 1 flaky") && page.contains("<td>USB gadget on dummy_udc.0</td>"))
        #expect(page.contains("2 runs on 2 devices, 1 not passed"))
        #expect(!page.contains("T1100"), "a run without run.json is still going")
    }

    @Test("a farm's runs: each with its place and exporter, counted by place")
    func farm() throws {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("farm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: reports) }
        try folder(reports, "20261207T0900-tdk-a", run: #"{"device": "TDK 1d6b:0104", "place": "tdk-a", "exporter": "bench1", "startedAt": "2026-12-07T09:00:00Z", "outcome": "passed"}"#,
                   result: #"{"scenarios": [{"status": "passed"}, {"status": "passed"}]}"#)
        try folder(reports, "20261207T0901-tdk-b", run: #"{"device": "TDK 1d6b:0104", "place": "tdk-b", "exporter": "bench2", "startedAt": "2026-12-07T09:01:00Z", "outcome": "failed"}"#,
                   result: #"{"scenarios": [{"status": "failed"}]}"#)
        try BenchIndex.write(reports: reports.path)
        let page = try String(contentsOf: reports.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(page.contains("<h1>Farm</h1>") && page.contains("<th>place</th><th>exporter</th>"))
        #expect(page.contains("<td>2026-12-07T09:01:00Z</td><td>tdk-b</td><td>bench2</td><td>TDK 1d6b:0104</td><td>failed</td>"))
        #expect(page.contains("2 runs on 2 places, 1 not passed"))
    }

    @Test("a station's runs have no place: no place or exporter columns")
    func station() throws {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: reports) }
        try folder(reports, "20261207T0900-1-4", run: #"{"device": "TDK A", "startedAt": "2026-12-07T09:00:00Z", "outcome": "passed"}"#, result: nil)
        try BenchIndex.write(reports: reports.path)
        let page = try String(contentsOf: reports.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(page.contains("<h1>Bench station</h1>") && !page.contains("<th>place</th>"))
    }
}
