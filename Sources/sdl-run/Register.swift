import ArgumentParser
import Foundation
import SDLScenario
import SmartDeviceLink

/// `sdl-run register`: connect, negotiate, register, print what the head unit says, unregister.
struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register an app with a head unit and print the response and each OnHMIStatus as JSON lines.",
        discussion: """
            The response is printed as it came on the wire. Each way it breaks the RPC spec (a
            mandatory parameter missing, a wrong type, an unknown enum value, a value out of
            bounds) follows it as a line of its own: {"event": "specViolation", "path": ..., "problem": ...}.
            """)

    @OptionGroup var transport: TransportOptions
    @OptionGroup var security: SecurityOptions

    @Option(help: "The app name to register.")
    var appName = "sdl-run"

    @Option(help: "The app id to register.")
    var appID = "sdlrun-0001"

    @Option(help: ArgumentHelp("How long to listen for notifications after registering, in seconds.", valueName: "seconds"))
    var listen: Double = 1

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        // Checked before anything is sent; the response is printed as it came on the wire, not
        // decoded and encoded again: a typed decoding fills a missing mandatory array with an
        // empty one and would hide the head unit's mistake.
        let request = RegisterAppInterface(
            syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0),
            appName: appName, isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs,
            appID: appID, fullAppID: appID)
        do throws(RPCValidationError) {
            try RPCSpec.validate(request)
        } catch {
            throw CommandFailure.invalid(error.description)
        }
        guard let link = try transport.makeTransport() else {
            throw CommandFailure.invalid("register needs --tcp HOST:PORT, --usb, --usb-gadget or --bt (the embedded emulator comes with scenarios)")
        }
        var configuration = SDLConnection.Configuration(
            startTimeout: transport.registrationTimeout, secondaryTransports: transport.secondaryTransports)
        configuration.protocolConfiguration.security = try security.configuration()
        if let makeSecondary = transport.makeSecondaryTransport { configuration.makeSecondaryTransport = makeSecondary }
        let connection = SDLConnection(transport: link, configuration: configuration)
        let output = JSONLineWriter()
        let events = await connection.transportEvents()
        let transportPrinter = Task {
            for await event in events { output.write(["event": "transport", "name": .string(event.name), "detail": .string(event.description)]) }
        }
        defer { transportPrinter.cancel() }
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
            response = try await connection.request(functionID: RegisterAppInterface.functionID, functionName: RegisterAppInterface.functionName,
                                                    parameters: request.json.objectValue ?? [:], timeout: transport.registrationTimeout)
        } catch {
            printer.cancel()
            await connection.stop()
            if case .invalidRequest = error { throw CommandFailure.invalid(error.description) }
            throw CommandFailure.connection(error.description)
        }
        output.write(["event": "response", "name": "RegisterAppInterface", "parameters": .object(response.parameters)])
        // Checked as a run checks what it receives: the same words, the same leniency.
        for violation in HeadUnitSpecCheck.violations(of: response, index: 0) {
            output.write(["event": "specViolation", "name": "RegisterAppInterface", "path": .string(violation.path), "problem": .string(violation.problem)])
        }
        guard response.success == true else {
            printer.cancel()
            await connection.stop()
            throw CommandFailure.connection("the head unit refused the app: \(response.resultCode ?? "no result code")"
                                            + (response.parameters["info"]?.stringValue.map { " (\($0))" } ?? ""))
        }
        try? await Task.sleep(for: .milliseconds(Int64(listen * 1000)))
        let unregister = try? await connection.send(UnregisterAppInterface())
        output.write(["event": "response", "name": "UnregisterAppInterface", "parameters": unregister?.json ?? [:]])
        await connection.stop()
        printer.cancel()
    }
}

/// Writes one JSON object per line to standard output, serialized across tasks.
final class JSONLineWriter: Sendable {
    func write(_ object: JSONObject) {
        let line = JSONValue.object(object).serialized(sortedKeys: true) + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}
