import ArgumentParser
import Foundation
import SmartDeviceLink

/// `sdl-run register`: connect, negotiate, register, print what the head unit says, unregister.
struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register an app with a head unit and print the response and each OnHMIStatus as JSON lines.")

    @OptionGroup var transport: TransportOptions

    @Option(help: "The app name to register.")
    var appName = "sdl-run"

    @Option(help: "The app id to register.")
    var appID = "sdlrun-0001"

    @Option(help: ArgumentHelp("How long to listen for notifications after registering, in seconds.", valueName: "seconds"))
    var listen: Double = 1

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        guard let link = try transport.makeTransport() else {
            throw CommandFailure.invalid("register needs --tcp HOST:PORT or --usb (the embedded emulator comes with scenarios)")
        }
        let connection = SDLConnection(transport: link)
        let output = JSONLineWriter()
        do {
            let session = try await connection.start()
            output.write(["event": "session", "sessionID": .int(Int64(session.sessionID)), "protocolVersion": .string(session.version.description)])
        } catch {
            throw CommandFailure.connection(error.description)
        }
        let notifications = await connection.messages()
        let printer = Task {
            for await message in notifications where message.messageType == .notification {
                output.write(["event": "notification", "name": .string(message.functionName), "parameters": .object(message.parameters)])
            }
        }
        let response: RPCEnvelope
        do {
            response = try await connection.request(
                functionID: 1, functionName: "RegisterAppInterface",
                parameters: RegistrationRequest.parameters(appName: appName, appID: appID))
        } catch {
            printer.cancel()
            await connection.stop()
            throw CommandFailure.connection(error.description)
        }
        output.write(["event": "response", "name": "RegisterAppInterface", "parameters": .object(response.parameters)])
        guard response.success == true else {
            printer.cancel()
            await connection.stop()
            throw CommandFailure.connection("the head unit refused the app: \(response.resultCode ?? "no resultCode")"
                                            + (response.parameters["info"]?.stringValue.map { " (\($0))" } ?? ""))
        }
        try? await Task.sleep(for: .milliseconds(Int64(listen * 1000)))
        let unregister = try? await connection.request(functionID: 2, functionName: "UnregisterAppInterface", parameters: [:])
        output.write(["event": "response", "name": "UnregisterAppInterface", "parameters": .object(unregister?.parameters ?? [:])])
        await connection.stop()
        printer.cancel()
    }
}

/// The RegisterAppInterface parameters `register` sends.
enum RegistrationRequest {
    static func parameters(appName: String, appID: String) -> JSONObject {
        [
            "syncMsgVersion": ["majorVersion": 8, "minorVersion": 0, "patchVersion": 0],
            "appName": .string(appName),
            "isMediaApplication": false,
            "languageDesired": "EN-US",
            "hmiDisplayLanguageDesired": "EN-US",
            "appID": .string(appID),
            "fullAppID": .string(appID),
        ]
    }
}

/// Writes one JSON object per line to standard output, serialized across tasks.
final class JSONLineWriter: Sendable {
    func write(_ object: JSONObject) {
        let line = JSONValue.object(object).serialized(sortedKeys: true) + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}
