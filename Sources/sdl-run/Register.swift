import ArgumentParser
import Foundation
import SmartDeviceLink

/// `sdl-run register`: connect, negotiate, register, print what the head unit says, unregister.
struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register an app with a head unit and print the response and each OnHMIStatus as JSON lines.")

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
        let response: RegisterAppInterfaceResponse
        do {
            response = try await connection.send(RegisterAppInterface(
                syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0),
                appName: appName, isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs,
                appID: appID, fullAppID: appID), timeout: transport.registrationTimeout)
        } catch {
            printer.cancel()
            await connection.stop()
            if case .invalidRequest = error { throw CommandFailure.invalid(error.description) }
            throw CommandFailure.connection(error.description)
        }
        output.write(["event": "response", "name": "RegisterAppInterface", "parameters": response.json])
        guard response.success else {
            printer.cancel()
            await connection.stop()
            throw CommandFailure.connection("the head unit refused the app: \(response.resultCode)" + (response.info.map { " (\($0))" } ?? ""))
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
