import ArgumentParser
import Foundation
import Logging
import SmartDeviceLink

/// How a subcommand prints: where the library's logs go (standard error at a level,
/// per-module levels, filters, a format, and optionally a file that gets everything from
/// debug up), and whether anything is coloured.
struct LoggingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Library log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "warning"

    @Option(help: ArgumentHelp("A module's level, e.g. protocol=debug or transport.usb=trace (repeatable).", valueName: "module=level"))
    var logModule: [String] = []

    @Option(help: ArgumentHelp("Only log lines whose message matches this regular expression.", valueName: "regex"))
    var logFilter: String?

    @Option(help: ArgumentHelp("Log line format: simple, default or detailed.", valueName: "format"))
    var logFormat: String = "default"

    @Option(help: ArgumentHelp("Also write the library's log to this file (from debug up).", valueName: "file"))
    var logFile: String?

    /// Every subcommand that prints takes it, whether or not it colours anything yet.
    @Flag(help: "Never colour what is printed (colour is used only on a terminal anyway).")
    var noColor = false

    func validate() throws {
        _ = try configuration()
    }

    /// The logging configuration these options describe.
    func configuration() throws -> SDLLogConfiguration {
        let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
        guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("--log-level must be one of: \(levels)") }
        guard let format = SDLLogFormat(rawValue: logFormat) else {
            throw ValidationError("--log-format must be one of: " + SDLLogFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var moduleLevels: [String: Logger.Level] = [:]
        for entry in logModule {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let moduleLevel = Logger.Level(rawValue: parts[1]) else {
                throw ValidationError("--log-module \(entry): write MODULE=LEVEL, e.g. protocol=debug; levels: \(levels)")
            }
            let known = SDLLogModule.allCases.map(\.rawValue)
            guard known.contains(parts[0]) else {
                let hint = RPCSpec.didYouMean(parts[0], among: known)
                throw ValidationError("--log-module \(entry): unknown module\(hint) (modules: \(known.joined(separator: ", ")))")
            }
            moduleLevels[parts[0]] = moduleLevel
        }
        if let logFilter, (try? Regex(logFilter)) == nil {
            throw ValidationError("--log-filter \(logFilter): not a valid regular expression")
        }
        return SDLLogConfiguration(defaultLevel: level, moduleLevels: moduleLevels, messagePattern: logFilter, format: format)
    }

    func bootstrap() {
        guard let console = try? configuration() else { return }
        let file = logFile.flatMap { path -> FileHandle? in
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }
        var fileConfiguration = console
        fileConfiguration.defaultLevel = .debug
        fileConfiguration.format = .detailed
        let toFile = fileConfiguration
        LoggingSystem.bootstrap { label in
            let stderr = console.handler(label: label) { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
            guard let file else { return stderr }
            let fileHandler = toFile.handler(label: label) { file.write(Data(($0 + "\n").utf8)) }
            return MultiplexLogHandler([stderr, fileHandler])
        }
    }
}
