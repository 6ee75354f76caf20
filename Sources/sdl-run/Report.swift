import ArgumentParser
import Foundation
import SDLScenario
import SmartDeviceLink

/// `sdl-run report TRACE.jsonl --html OUT.html`: the HTML page made again from a saved trace.
struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make the HTML report of a saved --trace (JSON lines): every RPC and control message of every link as a sequence chart.")

    @Argument(help: ArgumentHelp("A trace written with --trace FILE.jsonl.", valueName: "trace"))
    var trace: String

    @Option(help: ArgumentHelp("The page to write.", valueName: "file"))
    var html: String

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        guard let text = try? String(contentsOfFile: trace, encoding: .utf8) else {
            throw CommandFailure.invalid("cannot read the trace \(trace): check the path")
        }
        let run: JSONValue
        do { run = try TraceReport.run(lines: text.split(separator: "\n"), source: trace) } catch {
            throw CommandFailure.invalid(error.description)
        }
        let count = run["scenarios"]?.arrayValue?.count ?? 0
        let page = HTMLReportWriter.document(run: run, title: (trace as NSString).lastPathComponent,
                                             summary: "\(count) scenario\(count == 1 ? "" : "s") from a trace")
        do { try Data(page.utf8).write(to: URL(fileURLWithPath: html)) } catch {
            throw CommandFailure.invalid("cannot write \(html): \(error.localizedDescription)")
        }
    }
}
