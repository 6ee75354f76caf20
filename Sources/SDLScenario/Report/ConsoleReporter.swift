public import Foundation
public import SmartDeviceLink

/// The readable log of a run: every request, response and notification with correlation
/// ids and timing, and each step's verdict. Colour only on a terminal.
public final class ConsoleReporter: ScenarioReporter, @unchecked Sendable {
    // `lock` serializes writes so lines from the recorder and the steps never interleave.
    private let lock: NSLock
    private let verbose: Bool
    private let color: Bool
    private let output: FileHandle
    /// Where lines go instead of `output`, when set (the console prints above the line being typed).
    private let printer: (@Sendable (String) -> Void)?
    private let progressOnTerminal: Bool
    /// Put before every line, so scenarios run in parallel can be told apart.
    private let prefix: String

    /// A reporter that writes to `output`.
    /// - Parameters:
    ///   - verbose: also print each message's JSON.
    ///   - color: nil decides by whether standard output is a terminal.
    ///   - output: where the log goes.
    ///   - printer: takes each piece of the log (whole lines) instead of `output`, for an
    ///     interactive program that must keep its input line below what is printed.
    public init(verbose: Bool = false, color: Bool? = nil, output: FileHandle = .standardOutput,
                printer: (@Sendable (String) -> Void)? = nil) {
        self.verbose = verbose
        self.printer = printer
        let isTerminal = isatty(output.fileDescriptor) == 1
        self.color = color ?? (isTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
        self.progressOnTerminal = isTerminal
        self.output = output
        self.lock = NSLock()
        self.prefix = ""
    }

    private init(sharing base: ConsoleReporter, prefix: String) {
        (verbose, color, output, progressOnTerminal, lock) = (base.verbose, base.color, base.output, base.progressOnTerminal, base.lock)
        printer = base.printer
        self.prefix = prefix
    }

    /// The same console, every line of it starting with `[label] ` (one per scenario of a
    /// `--parallel` run); lines of all of them never interleave mid-line.
    public func labelled(_ label: String) -> ConsoleReporter {
        ConsoleReporter(sharing: self, prefix: paint("[\(label)]", .dim) + " ")
    }

    private enum Style: String {
        case request = "36"        // cyan
        case success = "32"        // green
        case warning = "33"        // yellow: WARNINGS, ABORTED, timeouts, skipped
        case failure = "31"        // red
        case notification = "35"   // magenta
        case dim = "2"
        case bold = "1"
    }

    private func paint(_ text: String, _ style: Style) -> String {
        color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    private func write(_ line: String) {
        let text = line.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 + "\n" }.joined()
        lock.lock()
        defer { lock.unlock() }
        if let printer { printer(text) } else { output.write(Data(text.utf8)) }
    }

    private func time(_ ms: Double) -> String {
        paint(String(format: "%8.1f ms", ms), .dim)
    }

    /// Prints the scenario's first line: its name, file and target.
    public func started(_ scenario: Scenario, target: String) {
        write(paint("▶ \(scenario.name)", .bold) + paint("  (\(scenario.source) on \(target))", .dim))
    }

    /// Prints a request or notification sent.
    public func sent(_ message: SentMessage) {
        let answer = message.isResponse ? " answered \(message.parameters["resultCode"]?.stringValue ?? "?")" : ""
        var line = "\(time(message.timeMS))  " + appTag(message.app) + paint("→ \(message.function)\(answer)", .request)
        if verbose { line += " " + JSONValue.object(message.parameters).description }
        write(line)
    }

    /// Prints a message from the head unit.
    public func received(_ message: LoggedMessage) {
        let envelope = message.envelope
        var line = time(message.timeMS) + "  " + appTag(message.app)
        switch envelope.messageType {
        case .response:
            let code = envelope.resultCode ?? "?"
            let style: Style = envelope.success == true ? (code == "SUCCESS" ? .success : .warning)
                : (["ABORTED", "TIMED_OUT", "WARNINGS", "IGNORED"].contains(code) ? .warning : .failure)
            line += paint("← \(envelope.functionName) #\(envelope.correlationID) \(code)", style)
            if let info = envelope.parameters["info"]?.stringValue { line += paint(" \(info)", .dim) }
        case .notification:
            line += paint("⇠ \(envelope.functionName)", .notification)
            if let level = envelope.parameters["hmiLevel"]?.stringValue { line += " \(level)" }
            if !envelope.bulkData.isEmpty { line += paint(" +\(envelope.bulkData.count) bytes", .dim) }
        case .request:
            line += paint("⇠ request \(envelope.functionName)", .notification)
        }
        if verbose { line += " " + JSONValue.object(envelope.parameters).description }
        write(line)
    }

    public func transport(_ event: Logged<TransportEvent>) {
        write(time(event.timeMS) + "  " + appTag(event.app) + paint("⇄ \(event.entry)", .notification))
    }

    /// Prints a note of the run (an upload's progress, a stream's summary).
    public func progress(_ text: String) {
        guard progressOnTerminal || verbose else { return }
        write("            " + paint(text, .dim))
    }

    /// Prints a step's verdict, with why it failed.
    public func finished(_ step: StepResult) {
        let mark: String
        switch step.status {
        case .passed: mark = paint("✔", .success)
        case .failed: mark = paint("✘", .failure)
        case .skipped: mark = paint("–", .warning)
        }
        var line = "\(mark) \(step.summary) " + paint("[\(step.path), \(Int(step.durationMS)) ms]", .dim)
        if let message = step.message {
            line += "\n    " + paint(message, step.status == .failed ? .failure : .warning)
        }
        write(line)
    }

    /// Prints the scenario's verdict line.
    public func finished(_ result: ScenarioResult) {
        let broken = HeadUnitSpecCheck.summary(result.specViolations)
        if !broken.isEmpty {
            write(paint("⚠ the head unit broke the RPC spec \(result.specViolations.count) times (--strict fails the run for it):", .warning)
                  + broken.map { "\n    " + $0 }.joined())
        }
        let counts = Dictionary(grouping: result.steps, by: \.status).mapValues(\.count)
        let summary = "\(counts[.passed] ?? 0) passed, \(counts[.failed] ?? 0) failed, \(counts[.skipped] ?? 0) skipped"
        switch result.status {
        case .passed:
            let flaky = result.isFlaky ? " (flaky: passed on attempt \(result.attempts))" : ""
            write(paint("PASS \(result.name)", .success) + " — \(summary) in \(Int(result.durationMS)) ms" + flaky)
        case .failed:
            let why = result.message.map { "; " + $0 } ?? ""
            write(paint("FAIL \(result.name)", .failure) + " — \(summary) in \(Int(result.durationMS)) ms" + why)
        case .stopped:
            write(paint("STOPPED \(result.name)", .warning) + " — \(summary) in \(Int(result.durationMS)) ms; " + (result.message ?? ""))
        case .invalid, .connectionFailed:
            write(paint("ERROR \(result.name)", .failure) + " — \(result.status.rawValue): \(result.message ?? "")")
        }
    }
}
