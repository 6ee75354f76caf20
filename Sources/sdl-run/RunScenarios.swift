import ArgumentParser
import Foundation
import SDLEmulator
import SDLScenario
import SDLCoreHMI
import SmartDeviceLink

/// `sdl-run [run] FILE...`: runs scenarios and reports pass/fail.
struct RunScenarios: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenario files (the default command: `sdl-run scenario.json --usb`).",
        discussion: "Without --tcp, --usb or --bt, each scenario runs against the embedded emulator.")

    @Argument(help: "Scenario files, directories (searched for scenarios) and globs, run one after another.")
    var files: [String]

    @OptionGroup var selection: ScenarioSelection
    @OptionGroup var transport: TransportOptions
    @OptionGroup var security: SecurityOptions

    @Option(help: ArgumentHelp("Write the full result as JSON.", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Write JUnit XML (a scenario is a suite, a step a test case).", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Write a self-contained HTML page: each scenario as a sequence chart of its messages, the failed step in red; a click on an arrow shows the message.", valueName: "file"))
    var html: String?

    @Option(help: ArgumentHelp(
        "Write every frame of every link: FILE.pcapng for Wireshark and tshark, any other name one JSON object per line (repeatable).",
        valueName: "file"))
    var trace: [String] = []

    @Flag(help: "Keep every frame's bytes (and RPC bulk data) in JSON-lines traces: for fuzz seeds and for replaying uploads.")
    var traceBytes = false

    @Option(help: ArgumentHelp("Put everything the run writes here: result.json, junit.xml and report.html (unless --json/--junit/--html name other files) and the files scenarios write (audio pass-thru WAVs).", valueName: "dir"))
    var outputDir: String?

    @Flag(help: "Show the JSON of every message.")
    var verbose = false

    @Flag(help: "Fail a scenario when a message from the head unit breaks the RPC spec (a missing mandatory parameter, a wrong type, an unknown enum value, a value out of bounds); without it each is a warning in the console and the reports.")
    var strict = false


    @Option(help: ArgumentHelp(
        "What `prompt` steps, and driver steps on a real head unit, do without an operator: skip (them and the steps after a skipped driver step) or fail (default: ask on the terminal).",
        valueName: "skip|fail"))
    var nonInteractive: String?

    @Option(help: ArgumentHelp("On a real head unit, how long the expectation after a driver step waits for the operator, in seconds.", valueName: "seconds"))
    var operatorTimeout: Double = 120

    @Option(help: ArgumentHelp(
        "On a real head unit, do a driver action with a local command instead of a person (a robot finger, a CAN message); it gets SDL_DRIVER_ACTION and SDL_DRIVER_ARGUMENTS (JSON).",
        valueName: "action=command"))
    var driverCommand: [String] = []

    /// `--driver-command` as action → command line.
    func driverCommands() throws -> [String: String] {
        var commands: [String: String] = [:]
        for entry in driverCommand {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else { throw ValidationError("--driver-command \(entry): expected ACTION=COMMAND") }
            if let problem = DriverAction.problem(withName: parts[0]) { throw ValidationError("--driver-command \(entry): \(problem)") }
            commands[parts[0]] = parts[1]
        }
        return commands
    }

    /// The prompt policy: ask unless --non-interactive says skip or fail.
    var promptPolicy: PromptPolicy { nonInteractive.flatMap(PromptPolicy.init(rawValue:)) ?? .ask }

    @Option(help: ArgumentHelp("With a link to `sdl-run emulate` (--tcp, or --usb/--bt through a bridge): run driver steps through its control channel.", valueName: "host:port"))
    var control: String?

    @Option(help: ArgumentHelp("With a link to a real sdl_core (--tcp, --usb, --usb-gadget, --bt): be its HMI on this WebSocket, so driver steps happen there.", valueName: "ws://host:8087"))
    var hmi: String?

    @Option(help: ArgumentHelp("With --hmi: a JSON object of HMI API methods and the results the HMI answers them with (over its own: the official sdl_hmi's at start-up, SUCCESS after), e.g. {\"UI.GetCapabilities\": {...}}.", valueName: "file"))
    var hmiConfig: String?

    @Option(help: ArgumentHelp("Run up to N scenarios at once (embedded emulator only).", valueName: "n"))
    var parallel: Int = 1

    @Option(help: ArgumentHelp("Run a scenario that did not pass up to N more times; passing on a retry is reported as flaky.", valueName: "n"))
    var retries: Int = 0

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if parallel < 1 { throw ValidationError("--parallel must be at least 1") }
        if operatorTimeout <= 0 { throw ValidationError("--operator-timeout must be positive") }
        _ = try driverCommands()
        if retries < 0 { throw ValidationError("--retries must be 0 or more") }
        if parallel > 1 && transport.isExternal {
            throw ValidationError("--parallel runs only against the embedded emulator (one head unit serves one scenario at a time)")
        }
        if control != nil && !transport.isExternal {
            throw ValidationError("--control goes with --tcp, --usb, --usb-gadget or --bt (the embedded emulator needs no control channel)")
        }
        if hmi != nil && !transport.isExternal {
            throw ValidationError("--hmi goes with the app's link to that core: --tcp, --usb, --usb-gadget or --bt")
        }
        if hmi != nil && control != nil { throw ValidationError("choose --hmi (a real sdl_core) or --control (sdl-run emulate), not both") }
        if hmiConfig != nil && hmi == nil { throw ValidationError("--hmi-config goes with --hmi") }
        if let nonInteractive, nonInteractive != "skip", nonInteractive != "fail" {
            throw ValidationError("--non-interactive takes skip or fail, not '\(nonInteractive)'")
        }
    }

    func run() async throws {
        logging.bootstrap()
        let scenarios = try selection.load(files)
        let stop = stopOnSignals()

        // Core lets no app in before its HMI said OnReady: connect the HMI first.
        var coreHMI: CoreHMI?
        if let hmi {
            let client: CoreHMI
            let answers = try HMIAnswersFile.read(hmiConfig)
            do { client = try CoreHMI(url: hmi, answers: answers) } catch { throw CommandFailure.invalid(error.description) }
            do { try await client.start() } catch { throw CommandFailure.connection(error.description) }
            coreHMI = client
        }
        defer { if let coreHMI { Task { await coreHMI.stop() } } }
        let reporter = ConsoleReporter(verbose: verbose, color: logging.noColor ? false : nil)
        let traceWriter: TraceFiles?
        do {
            traceWriter = trace.isEmpty ? nil : try TraceFiles(paths: trace, fullBytes: traceBytes)
        } catch {
            throw CommandFailure.invalid("cannot write --trace \(trace.joined(separator: ", ")): \(error.localizedDescription)")
        }
        var runner = ScenarioRunner(promptPolicy: promptPolicy, reporter: reporter)
        runner.secondaryTransports = transport.secondaryTransports
        runner.makeSecondaryTransport = transport.makeSecondaryTransport
        runner.security = try security.configuration()
        runner.operatorTimeout = .milliseconds(Int64(operatorTimeout * 1000))
        runner.driverCommands = try driverCommands()
        runner.strict = strict
        runner.stop = stop
        var json = self.json, junit = self.junit, html = self.html
        if let outputDir {
            do {
                try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure.invalid("cannot create --output-dir \(outputDir): \(error.localizedDescription)")
            }
            runner.outputDirectory = outputDir
            json = json ?? (outputDir as NSString).appendingPathComponent("result.json")
            junit = junit ?? (outputDir as NSString).appendingPathComponent("junit.xml")
            html = html ?? (outputDir as NSString).appendingPathComponent("report.html")
        }
        let results = try await runAll(scenarios, runner: runner, traceWriter: traceWriter, hmi: coreHMI)
        traceWriter?.close()
        if results.count > 1 || retries > 0 { print(results.summaryLine) }
        do {
            if let json { try JSONResultWriter.write(results, to: json) }
            if let junit { try JUnitWriter.write(results, to: junit) }
            if let html { try HTMLReportWriter.write(results, to: html) }
        } catch {
            throw CommandFailure.invalid("cannot write the report: \(error.localizedDescription)")
        }
        settleScratchRecordings(reported: json != nil || junit != nil || html != nil)
        let worst: ScenarioResult.Status = results.map { $0.status }.max { rank($0) < rank($1) } ?? .passed
        if worst != .passed { throw ExitCode(worst.exitCode) }
    }

    /// Ctrl-C or SIGTERM (systemd, `sdl-run watch`, a farm client gone) ends the steps, and
    /// each app unregisters before the reports are written: a head unit that kept the app
    /// would refuse the next run's. A second signal quits at once.
    private func stopOnSignals() -> RunStop {
        let stop = RunStop()
        _ = StopSignals {
            guard stop.reason == nil else { Foundation.exit(ScenarioResult.Status.stopped.exitCode) }
            stop.request("SIGINT or SIGTERM")
            FileHandle.standardError.write(Data("stopping: each app unregisters first (Ctrl-C again quits at once)\n".utf8))
        }
        return stop
    }

    /// Where the embedded emulator records the app's streams when there is no --output-dir.
    static let scratchRecordings = NSTemporaryDirectory() + "sdl-recordings-\(ProcessInfo.processInfo.processIdentifier)"

    /// Recordings no report names are removed, saying so; those a report names stay, saying where.
    private func settleScratchRecordings(reported: Bool) {
        let folder = Self.scratchRecordings
        guard outputDir == nil, let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        if reported && !files.isEmpty {
            print("the emulator's recordings of the app's streams are in \(folder) (--output-dir keeps them beside the reports)")
            return
        }
        try? FileManager.default.removeItem(atPath: folder)
        if !files.isEmpty { print("the emulator's recordings of the app's streams were removed: --output-dir DIR keeps them") }
    }

    private func rank(_ status: ScenarioResult.Status) -> Int {
        switch status {
        case .passed: return 0
        case .failed: return 1
        case .invalid: return 2
        case .connectionFailed: return 3
        case .stopped: return 4
        }
    }

    private func runAll(_ scenarios: [Scenario], runner: ScenarioRunner, traceWriter: TraceFiles?,
                        hmi: CoreHMI?) async throws -> [ScenarioResult] {
        if parallel == 1 {
            var results: [ScenarioResult] = []
            for scenario in scenarios where runner.stop?.reason == nil {
                let runner = runner.tracing(scenario, into: traceWriter)
                results.append(try await runner.run(scenario, attempts: retries + 1) {
                    try await target(for: scenario, tracing: traceWriter, hmi: hmi)
                })
            }
            return results
        }
        return try await withThrowingTaskGroup(of: (Int, ScenarioResult).self) { group in
            var results = [ScenarioResult?](repeating: nil, count: scenarios.count)
            var next = 0
            func launch() async throws {
                let index = next
                let scenario = scenarios[index]
                // The first target here, so a broken emulator configuration stops the run before
                // anything starts; a retry makes a fresh one only when it is needed.
                let first = try await target(for: scenario, tracing: traceWriter, hmi: hmi)
                let command = self
                var runner = runner.tracing(scenario, into: traceWriter)
                if let console = runner.reporter as? ConsoleReporter { runner.reporter = console.labelled(scenario.name) }
                group.addTask {
                    var firstUnused = true
                    return (index, try await runner.run(scenario, attempts: command.retries + 1) {
                        if firstUnused {
                            firstUnused = false
                            return first
                        }
                        return try await command.target(for: scenario, tracing: traceWriter, hmi: hmi)
                    })
                }
                next += 1
            }
            while next < min(parallel, scenarios.count) { try await launch() }
            while let (index, result) = try await group.next() {
                results[index] = result
                if next < scenarios.count, runner.stop?.reason == nil { try await launch() }
            }
            return results.compactMap { $0 }
        }
    }

    /// The target for a scenario; with a trace, its driver actions are recorded too.
    private func target(for scenario: Scenario, tracing traceWriter: TraceFiles?, hmi: CoreHMI?) async throws -> ScenarioTarget {
        var target = try await plainTarget(for: scenario)
        if let hmi { target.driver = hmi }
        target.registrationTimeout = transport.registrationTimeout
        if let writer = traceWriter, let driver = target.driver {
            target.driver = TracingDriver(driver, writer: writer, scenario: scenario.name)
        }
        return target
    }

    private func plainTarget(for scenario: Scenario) async throws -> ScenarioTarget {
        guard transport.isExternal else {
            do {
                // With --output-dir the head unit's recordings of the app's streams are results
                // too; without, they go to a folder of this run's, removed when no report names it.
                return try EmbeddedEmulator.target(for: scenario, recordings: outputDir.map { ($0 as NSString).appendingPathComponent("recordings") }
                                                   ?? Self.scratchRecordings)
            } catch {
                throw CommandFailure.invalid("\(scenario.source): $.emulator: \(error)")
            }
        }
        let options = transport
        _ = try options.makeTransport()  // a malformed endpoint or address fails here, once, with exit code 2
        // An emulator behind the link (`sdl-run emulate`, bridged by a TDK or over Bluetooth)
        // plays driver steps through its control channel.
        var driver: (any ScenarioDriver)?
        if let control {
            do {
                driver = try await ControlCommandDriver.remote(control)
            } catch {
                throw CommandFailure.connection("cannot reach the emulator's control channel at \(control): \(error)")
            }
        }
        var target = ScenarioTarget(name: options.name, makeTransport: { try options.makeTransport()! }, driver: driver)
        // Over TCP each app has a connection of its own; a USB or Bluetooth link is shared, a session per app.
        target.allowsSeveralApps = options.tcp != nil
        return target
    }
}

/// `sdl-run validate FILE...`: checks scenarios without connecting.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check scenario files against the scenario language and the RPC spec, without connecting.")

    @Argument(help: "Scenario files, directories and globs.")
    var files: [String]

    @Option(name: .customLong("var"), help: ArgumentHelp("A variable the scenarios use, as for a run.", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        for scenario in try ScenarioInputs.load(files, variables: try ScenarioInputs.variables(variables)) {
            print("\(scenario.source): valid (\(scenario.steps.count) steps)")
        }
    }
}

/// `sdl-run schema`: prints the JSON Schema of scenario files, or of emulator configurations.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the JSON Schema of scenario files, for editors.")

    @Flag(help: "Print the schema of `sdl-run emulate --config` files instead.")
    var emulatorConfig = false

    @OptionGroup var logging: LoggingOptions

    func run() {
        print(emulatorConfig ? EmulatorConfigurationSchema.text : ScenarioSchema.text)
    }
}

/// `sdl-run replay TRACE`: re-sends the app side of a recorded run and compares results.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a --trace recording against a head unit and compare each response's result code.",
        discussion: "Without --tcp the recording replays against a fresh embedded emulator.")

    @Argument(help: "A trace file written by `sdl-run --trace`.")
    var trace: String

    @Option(help: ArgumentHelp("The scenario in the trace to replay (default: the first).", valueName: "name"))
    var scenario: String?

    @OptionGroup var transport: TransportOptions

    @Option(help: ArgumentHelp("With --tcp to `sdl-run emulate`: perform recorded driver actions through its control channel.", valueName: "host:port"))
    var control: String?

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let replay: TraceReplay
        do {
            replay = try TraceReplay(tracePath: trace, scenario: scenario)
        } catch {
            throw CommandFailure.invalid(error.description)
        }
        var target: ScenarioTarget
        if let tcp = transport.tcp {
            var driver: (any ScenarioDriver)?
            if let control {
                driver = try await ControlCommandDriver.remote(control)
            }
            let timeout = Duration.milliseconds(Int64(transport.connectTimeout * 1000))
            target = ScenarioTarget(name: "TCP \(tcp)", makeTransport: { try TCPTransport(endpoint: tcp, connectTimeout: timeout) }, driver: driver)
        } else {
            target = EmbeddedEmulator.target(configuration: .standard)
        }
        target.registrationTimeout = transport.registrationTimeout
        let comparisons: [TraceReplay.Comparison]
        do {
            comparisons = try await replay.replay(on: target)
        } catch {
            throw CommandFailure.connection("replay failed: \(error)")
        }
        for comparison in comparisons {
            let mark = comparison.matches ? "✔" : "✘"
            let detail = comparison.matches ? "\(comparison.replayed) as recorded" : "recorded \(comparison.recorded), replayed \(comparison.replayed)"
            print("\(mark) \(comparison.function): \(detail)")
        }
        let differing = comparisons.filter { !$0.matches }.count
        print("\(comparisons.count - differing) passed, \(differing) failed")
        if differing > 0 { throw ExitCode(1) }
    }
}

/// The scenario inputs both `run` and `validate` take.
enum ScenarioInputs {
    /// `--var NAME=VALUE` values: JSON when VALUE parses as JSON (`50`, `true`), else text.
    static func variables(_ arguments: [String]) throws -> [String: JSONValue] {
        var variables: [String: JSONValue] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw ValidationError("--var takes NAME=VALUE, not '\(argument)'")
            }
            let text = String(argument[argument.index(after: equals)...])
            variables[String(argument[..<equals])] = (try? JSONValue.parse(Array(text.utf8))) ?? .string(text)
        }
        return variables
    }

    /// Every scenario the inputs name, all checked before any runs.
    static func load(_ inputs: [String], variables: [String: JSONValue]) throws -> [Scenario] {
        let files: [String]
        do {
            files = try ScenarioFiles.expand(inputs)
        } catch {
            throw CommandFailure.invalid(error.description)
        }
        var scenarios: [Scenario] = []
        var problems: [String] = []
        for file in files {
            do {
                scenarios.append(try ScenarioParser.load(path: file, variables: variables))
            } catch {
                problems.append(error.description)
            }
        }
        guard problems.isEmpty else { throw CommandFailure.invalid("invalid scenario:\n" + problems.joined(separator: "\n")) }
        return scenarios
    }
}

extension ScenarioRunner {
    /// This runner with its frames going into `traces` as frames of `scenario`: scenarios
    /// of a --parallel run each name their own frames.
    func tracing(_ scenario: Scenario, into traces: TraceFiles?) -> ScenarioRunner {
        guard let traces else { return self }
        var runner = self
        let name = scenario.name
        runner.frameObserver = { event, app in traces.record(event, scenario: name, app: app) }
        return runner
    }
}
