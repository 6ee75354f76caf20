import Foundation
import Logging
import MediaApp
import SmartDeviceLink

// The library's warnings and errors on standard error; what the app does on standard output.
LoggingSystem.bootstrap { label in
    SDLLogConfiguration(defaultLevel: .warning).handler(label: label) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
}

// `media-app [--tcp HOST:PORT | --usb [DEVICE] | --usb-gadget [UDC] | --bt [ADDRESS] | --serial PATH]`:
// the link as sdl-run takes it; with none, the emulator of `sdl-run emulate` on this machine.
let link: TransportChoice
do {
    let (named, rest) = try CommandLineLink.parse(Array(CommandLine.arguments.dropFirst()))
    guard rest.isEmpty else {
        FileHandle.standardError.write(Data("media-app: unknown arguments \(rest.joined(separator: " ")); the link is one of \(CommandLineLink.options.joined(separator: ", "))\n".utf8))
        exit(2)
    }
    link = named?.choice ?? .tcp(host: "127.0.0.1")
} catch {
    FileHandle.standardError.write(Data("media-app: \(error)\n".utf8))
    exit(2)
}

// Ctrl-C or SIGTERM from here on, even while connecting, ends in an unregistered app.
let stopRequests = StopSignals.requests()
let app = MediaApp(link: link) { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
do {
    try await app.start()
} catch {
    FileHandle.standardError.write(Data("media-app: \(error)\n".utf8))
    exit(3)
}

// Runs until Ctrl-C or SIGTERM, then unregisters.
for await _ in stopRequests { break }
await app.stop()
