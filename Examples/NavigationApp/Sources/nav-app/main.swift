import Foundation
import Logging
import NavigationApp
import SmartDeviceLink

// `nav-app [--video FILE.h264] [--tcp HOST:PORT | --usb [DEVICE] | --usb-gadget [UDC] | --bt [ADDRESS] | --serial PATH]`:
// the link as sdl-run takes it; with none, the emulator of `sdl-run emulate` on this machine.
func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("nav-app: \(message)\n".utf8))
    exit(status)
}

LoggingSystem.bootstrap { label in
    SDLLogConfiguration(defaultLevel: .warning).handler(label: label) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
}

var arguments = Array(CommandLine.arguments.dropFirst())
var video: String?
if let index = arguments.firstIndex(of: "--video") {
    guard index + 1 < arguments.count else { fail("--video needs an H.264 file (Annex B, as `ffmpeg -f h264` writes)", status: 2) }
    video = arguments[index + 1]
    guard FileManager.default.isReadableFile(atPath: video!) else { fail("--video \(video!): no such file, or it cannot be read", status: 2) }
    arguments.removeSubrange(index...(index + 1))
}
let link: TransportChoice
do {
    let (named, rest) = try CommandLineLink.parse(arguments)
    guard rest.isEmpty else { fail("unknown arguments \(rest.joined(separator: " ")): give --video and one of \(CommandLineLink.options.joined(separator: ", "))", status: 2) }
    link = named?.choice ?? .tcp(host: "127.0.0.1")
} catch {
    fail("\(error)", status: 2)
}

// Ctrl-C or SIGTERM from here on, even while connecting, ends in an unregistered app.
let stopRequests = StopSignals.requests()
let app = NavigationApp(link: link, video: video) { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
do {
    try await app.start()
} catch {
    fail("\(error)", status: 3)
}

// Runs until Ctrl-C or SIGTERM, then unregisters.
for await _ in stopRequests { break }
await app.stop()
