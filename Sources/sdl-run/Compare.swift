import ArgumentParser
import Foundation
import SDLCoreHMI
import SDLScenario
import SmartDeviceLink

/// `sdl-run compare SCENARIO... --tcp HOST:PORT --hmi ws://HOST:8087`: each scenario on the
/// embedded emulator and on a real sdl_core, and where the two answered differently.
struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run scenarios on the embedded emulator and on sdl_core (--tcp with --hmi); print where they answered differently.",
        discussion: "Exit codes: 0 no difference, 1 some, 2 invalid input, 3 core or its HMI WebSocket unreachable.")

    @Argument(help: "Scenario files, directories and globs.")
    var files: [String]

    @OptionGroup var selection: ScenarioSelection

    @Option(help: ArgumentHelp("sdl_core's app port.", valueName: "host:port"))
    var tcp: String

    @Option(help: ArgumentHelp("sdl_core's HMI WebSocket; sdl-run is its HMI.", valueName: "ws://host:8087"))
    var hmi: String

    @Option(help: ArgumentHelp("A JSON object of HMI API methods and the results the HMI answers them with.", valueName: "file"))
    var hmiConfig: String?

    @Option(help: ArgumentHelp(
        "Leave out what differs on purpose between the two setups: capabilities (the registration's) or permissions (OnPermissionsChange); repeatable.",
        valueName: "aspect"))
    var ignore: [String] = []

    /// `--ignore`, read.
    var ignored: Set<ScenarioComparison.Aspect> {
        get throws {
            try Set(ignore.map { word in
                guard let aspect = ScenarioComparison.Aspect(rawValue: word) else {
                    throw ValidationError("--ignore \(word): choose \(ScenarioComparison.Aspect.allCases.map(\.rawValue).joined(separator: " or "))")
                }
                return aspect
            })
        }
    }

    func validate() throws { _ = try ignored }

    @Option(help: ArgumentHelp("Write the differences as JSON.", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Write both runs of each scenario side by side as sequence charts, the differences marked.", valueName: "file"))
    var html: String?

    @Option(help: ArgumentHelp("How long core may take to accept the app, in seconds.", valueName: "seconds"))
    var registerTimeout: Double = 20

    @OptionGroup var security: SecurityOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let scenarios = try selection.load(files)
        let endpoint = tcp
        do { _ = try TCPTransport(endpoint: endpoint) } catch { throw CommandFailure.invalid("--tcp \(endpoint): \(error.description)") }
        let makeCoreLink: @Sendable () throws -> any SDLTransport = { try TCPTransport(endpoint: endpoint) }
        let core: CoreHMI
        let answers = try HMIAnswersFile.read(hmiConfig)
        do { core = try CoreHMI(url: hmi, answers: answers) } catch { throw CommandFailure.invalid(error.description) }
        do { try await core.start() } catch { throw CommandFailure.connection(error.description) }
        var runner = ScenarioRunner(promptPolicy: .fail)
        runner.security = try security.configuration()
        var comparisons: [ScenarioComparison] = []
        for scenario in scenarios {
            let emulator: ScenarioTarget
            do { emulator = try EmbeddedEmulator.target(for: scenario, policyServerAtItsAddress: true) } catch {
                throw CommandFailure.invalid("\(scenario.source): $.emulator: \(error)")
            }
            let onEmulator = await runner.run(scenario, on: emulator)
            var coreTarget = ScenarioTarget(name: "sdl_core \(tcp)", makeTransport: makeCoreLink, driver: core)
            coreTarget.registrationTimeout = .milliseconds(Int64(registerTimeout * 1000))
            let onCore = await runner.run(scenario, on: coreTarget)
            let comparison = ScenarioComparison(left: onEmulator, right: onCore, ignoring: try ignored)
            print(Self.report(comparison))
            comparisons.append(comparison)
        }
        await core.stop()
        let differing = comparisons.filter { !$0.differences.isEmpty }
        let partly = comparisons.filter { $0.differences.isEmpty && !$0.setAside.isEmpty }.count
        print("\(comparisons.count) scenario\(comparisons.count == 1 ? "" : "s") compared: \(comparisons.count - differing.count) the same"
              + (partly > 0 ? " (\(partly) with steps only one side could run)" : "") + ", \(differing.count) different")
        if let json {
            do {
                try Data((JSONValue.array(comparisons.map(\.json)).serialized() + "\n").utf8).write(to: URL(fileURLWithPath: json))
            } catch {
                throw CommandFailure.invalid("cannot write \(json): \(error.localizedDescription)")
            }
        }
        if let html {
            do { try Data(HTMLReportWriter.document(comparisons: comparisons).utf8).write(to: URL(fileURLWithPath: html)) } catch {
                throw CommandFailure.invalid("cannot write \(html): \(error.localizedDescription)")
            }
        }
        if !differing.isEmpty { throw ExitCode(1) }
    }

    /// One block per scenario: both verdicts, then each difference under its step.
    static func report(_ comparison: ScenarioComparison) -> String {
        var lines = ["\(comparison.scenario): emulator \(comparison.left.status.rawValue.uppercased()), "
                     + "sdl_core \(comparison.right.status.rawValue.uppercased())"
                     + (comparison.differences.isEmpty ? ", no difference" : "")]
        var lastStep: String?
        if let first = comparison.setAside.first {
            lines.append("  \(comparison.setAside.count) step\(comparison.setAside.count == 1 ? "" : "s") not compared, run on one side only: \(first.detail)")
        }
        for difference in comparison.differences {
            if difference.step != lastStep {
                lines.append("  \(difference.step)" + (difference.summary.isEmpty ? "" : " \(difference.summary)"))
                lastStep = difference.step
            }
            lines.append("    \(difference.detail)")
        }
        return lines.joined(separator: "\n")
    }
}

/// `--hmi-config FILE`: a JSON object of HMI API methods and their results.
enum HMIAnswersFile {
    static func read(_ path: String?) throws -> JSONObject {
        guard let path else { return [:] }
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure.invalid("cannot read --hmi-config \(path)") }
        guard case .object(let answers) = try? JSONValue.parse(Array(data)) else {
            throw CommandFailure.invalid("--hmi-config \(path): expected a JSON object of HMI API methods and their results")
        }
        for (method, result) in answers where !method.contains(".") || result.objectValue == nil {
            throw CommandFailure.invalid("--hmi-config \(path): \"\(method)\" must be an HMI API method (UI.GetCapabilities) with a result object")
        }
        return answers
    }
}
