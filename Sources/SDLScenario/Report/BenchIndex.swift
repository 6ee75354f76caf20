import Foundation
import SmartDeviceLink

/// The runs of a bench station or a farm on one page: `index.html` in their reports folder,
/// made again after each run from the run folders' `run.json` (device, times, outcome, and on
/// a farm the labgrid place and exporter) and `result.json` (the scenarios' verdicts), newest
/// first, each run linking to its `report.html`.
public enum BenchIndex {
    /// One run folder as the index shows it.
    struct Entry {
        var folder: String
        var device: String
        var started: String
        var outcome: String
        var place: String?
        var exporter: String?
        var passed = 0
        var failed = 0
        var flaky = 0
    }

    /// Writes `reports/index.html`; folders without a `run.json` (a run still going) are left out.
    public static func write(reports: String) throws {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []
        let entries = folders.compactMap { entry(reports, $0) }.sorted { $0.started > $1.started }
        try Data(page(entries).utf8).write(to: URL(fileURLWithPath: (reports as NSString).appendingPathComponent("index.html")))
    }

    static func entry(_ reports: String, _ folder: String) -> Entry? {
        let path = (reports as NSString).appendingPathComponent(folder)
        guard let data = FileManager.default.contents(atPath: (path as NSString).appendingPathComponent("run.json")),
              case .object(let run)? = try? JSONValue.parse(Array(data)) else { return nil }
        var entry = Entry(folder: folder, device: run["device"]?.stringValue ?? "?", started: run["startedAt"]?.stringValue ?? "",
                          outcome: run["outcome"]?.stringValue ?? "?", place: run["place"]?.stringValue,
                          exporter: run["exporter"]?.stringValue)
        if let data = FileManager.default.contents(atPath: (path as NSString).appendingPathComponent("result.json")),
           let scenarios = (try? JSONValue.parse(Array(data)))?["scenarios"]?.arrayValue {
            entry.passed = scenarios.filter { $0["status"] == "passed" }.count
            entry.failed = scenarios.count - entry.passed
            entry.flaky = scenarios.filter { $0["flaky"] == true }.count
        }
        return entry
    }

    static func page(_ entries: [Entry]) -> String {
        func cell(_ text: String) -> String { "<td>\(HTMLReportWriter.escaped(text))</td>" }
        // A farm's runs say where they ran; a station's all ran here, so it leaves the columns out.
        let farm = entries.contains { $0.place != nil }
        let rows = entries.map { entry in
            let result = "\(entry.passed) passed, \(entry.failed) failed" + (entry.flaky > 0 ? ", \(entry.flaky) flaky" : "")
            let link = "<a href=\"\(HTMLReportWriter.escaped(entry.folder))/report.html\">\(HTMLReportWriter.escaped(entry.folder))</a>"
            let location = farm ? cell(entry.place ?? "") + cell(entry.exporter ?? "") : ""
            return "<tr class=\"\(entry.outcome == "passed" ? "passed" : "failed")\">" + cell(entry.started) + location + cell(entry.device)
                + cell(entry.outcome) + cell(result) + "<td>\(link)</td></tr>"
        }
        let title = farm ? "Farm" : "Bench station"
        let places = Set(entries.compactMap(\.place)).count, devices = Set(entries.map(\.device)).count
        let spread = farm ? "\(places) place\(places == 1 ? "" : "s")" : "\(devices) device\(devices == 1 ? "" : "s")"
        let failing = entries.filter { $0.outcome != "passed" }.count
        let outcomeColumn = farm ? 5 : 3
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(title) — sdl-run</title>
        <style>body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{padding:.3em .8em;text-align:left}
        tr.passed td:nth-child(\(outcomeColumn)){color:#1a7f37}tr.failed td:nth-child(\(outcomeColumn)){color:#cf222e;font-weight:600}tr:nth-child(even){background:#f6f8fa}</style>
        </head><body><h1>\(title)</h1>
        <p class="summary">\(entries.count) run\(entries.count == 1 ? "" : "s") on \(spread), \(failing) not passed; newest first.</p>
        <table><tr><th>started</th>\(farm ? "<th>place</th><th>exporter</th>" : "")<th>device</th><th>outcome</th><th>scenarios</th><th>report</th></tr>
        \(rows.joined(separator: "\n"))
        </table></body></html>

        """
    }
}
