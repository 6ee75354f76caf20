import Foundation
import SmartDeviceLink
#if canImport(Glibc)
import Glibc
#endif

/// Steps a person does at a real head unit: `prompt` steps, and `driver` steps when no
/// emulator plays them. A driver step then tells the operator exactly what to do ("Select
/// 'Kept' in Resilient's menu") and the expectation after it waits for the head unit's
/// answer as long as a person needs; or a bench command does it (`--driver-command`).
extension RunContext {
    func setOperator(timeout: Duration, commands: [String: String]) {
        operatorTimeout = timeout
        driverCommands = commands
    }

    func prompt(_ message: String) async throws(StepFailure) {
        switch promptPolicy {
        case .skip:
            throw StepFailure(message: "operator prompt skipped (--non-interactive skip): \(message)", skipped: true)
        case .fail:
            throw StepFailure(message: "needs an operator (--non-interactive fail): \(message)")
        case .ask:
            FileHandle.standardError.write(Data("\n>>> \(message)\n>>> press Enter when done: ".utf8))
            guard readLine() != nil else { throw StepFailure(message: "no operator: standard input closed at prompt '\(message)'") }
        }
    }

    /// A driver step on a real head unit: a bench command, the operator, or skipped with
    /// every step after it (they depend on what it would have done).
    func operatorDriverStep(_ action: DriverAction) async throws(StepFailure) {
        let arguments = substitute(action.arguments)
        if let command = driverCommands[action.name] {
            // The bench command is an exec step of its own: the same timeout, exit-code and
            // output handling, with the action and its arguments in its environment.
            do {
                stepOutput = try await exec(ExecStep(arguments: ["/bin/sh", "-c", command], timeoutMS: 60_000, expectedExitCode: 0), environment: [
                    "SDL_DRIVER_ACTION": action.name, "SDL_DRIVER_ARGUMENTS": JSONValue.object(arguments).serialized(),
                ])
            } catch {
                throw StepFailure(message: "driver \(action.name): \(error.message)", output: error.output)
            }
            return
        }
        let instruction = instruction(for: action.name, arguments)
        switch promptPolicy {
        case .skip:
            skippingRest = "it follows driver \(action.name), which needs an operator"
            throw StepFailure(message: "needs an operator (--non-interactive skip): \(instruction)", skipped: true)
        case .fail:
            throw StepFailure(message: "needs an operator (--non-interactive fail): \(instruction)")
        case .ask:
            guard isatty(STDIN_FILENO) == 1 else {
                throw StepFailure(message: "needs an operator at a terminal: \(instruction); pass --non-interactive skip to skip such steps")
            }
            FileHandle.standardError.write(Data("\n>>> On the head unit: \(instruction)\n".utf8))
            reporter?.progress("waiting up to \(Int(operatorTimeout.seconds)) s for the head unit's answer")
            operatorWindow = operatorTimeout
        }
    }

    /// What a person does at the head unit for a driver action, with the names the app
    /// used (menu titles, button texts, choices), not ids.
    func instruction(for name: String, _ arguments: JSONObject) -> String {
        // The step's app, in a scenario with several.
        let app = "\"\(scenario.apps.first { $0.name == currentApp }?.app.appName ?? scenario.app.appName)\""
        func int(_ key: String) -> Int64? { arguments[key]?.intValue }
        switch name {
        case "activateApp":
            return "open \(app) (tap its icon in the app list)"
        case "exitApp":
            return "leave \(app) (go back to the home screen)"
        case "selectCommand":
            let title = int("cmdID").flatMap(menuTitle) ?? "the command with id \(int("cmdID").map(String.init) ?? "?")"
            return arguments["triggerSource"]?.stringValue == "VR" ? "say \"\(title)\"" : "select \"\(title)\" in \(app)'s menu"
        case "openMenu":
            return "open \(app)'s menu"
        case "pressSoftButton":
            let id = int("id") ?? int("softButtonID")
            return "press the button \"\(id.flatMap(softButtonText) ?? "with id \(id.map(String.init) ?? "?")")\" on the screen"
        case "selectChoice":
            let id = int("choiceID")
            return "pick \"\(id.flatMap(choiceName) ?? "the choice with id \(id.map(String.init) ?? "?")")\" in the choices on the screen"
        case "typeOnKeyboard":
            return "type \"\(arguments["text"]?.stringValue ?? "")\" on the keyboard"
        case "submitKeyboard":
            return "submit the keyboard"
        case "cancelAudioPassThru":
            return "cancel the recording on the screen"
        case "endCall":
            return "hang up the phone call on the head unit"
        case "setVehicleData":
            let values = arguments.filter { $0.key != "appID" }.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }
            return "make the vehicle report " + (values.isEmpty ? "the new data" : values.joined(separator: ", "))
        case "dropTransport":
            return "disconnect the phone or unplug the cable, then connect it again"
        case "cutSecondary":
            return "turn the head unit's Wi-Fi off and on again"
        default:
            let detail = arguments.isEmpty ? "" : " " + JSONValue.object(arguments).serialized()
            return "do \(name)\(detail)"
        }
    }

    /// The title of a menu cell by the id the menu manager gave it (`${menu.<title>}`), or
    /// of an AddCommand the scenario sent.
    private func menuTitle(_ id: Int64) -> String? {
        if let cell = variables.first(where: { $0.key.hasPrefix("menu.") && $0.value.intValue == id }) { return String(cell.key.dropFirst(5)) }
        return sent.last { $0.function == "AddCommand" && $0.parameters["cmdID"]?.intValue == id }?
            .parameters["menuParams"]?["menuName"]?.stringValue
    }

    /// The text of the last soft button with this id the app showed (Alert, Show...).
    private func softButtonText(_ id: Int64) -> String? {
        for message in sent.reversed() {
            if let button = message.parameters["softButtons"]?.arrayValue?.first(where: { $0["softButtonID"]?.intValue == id }) {
                return button["text"]?.stringValue
            }
        }
        return nil
    }

    private func choiceName(_ id: Int64) -> String? {
        for message in sent.reversed() where message.function == "CreateInteractionChoiceSet" {
            if let choice = message.parameters["choiceSet"]?.arrayValue?.first(where: { $0["choiceID"]?.intValue == id }) {
                return choice["menuName"]?.stringValue
            }
        }
        return nil
    }
}
