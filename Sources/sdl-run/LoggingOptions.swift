import ArgumentParser
import Foundation
import Logging

/// Where the library's logs go: standard error at a level, and optionally a file.
struct LoggingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Library log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "warning"

    @Option(help: ArgumentHelp("Also write the library's log to this file.", valueName: "file"))
    var logFile: String?

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of: " + Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    func bootstrap() {
        let level = Logger.Level(rawValue: logLevel) ?? .warning
        let file = logFile.flatMap { path -> FileHandle? in
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }
        LoggingSystem.bootstrap { label in
            var console = StreamLogHandler.standardError(label: label)
            console.logLevel = level
            guard let file else { return console }
            var handlers: [any LogHandler] = [console]
            var toFile = FileLogHandler(label: label, handle: file)
            toFile.logLevel = .debug
            handlers.append(toFile)
            return MultiplexLogHandler(handlers)
        }
    }
}

/// Writes log lines to a file.
struct FileLogHandler: LogHandler {
    let label: String
    let handle: FileHandle
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    init(label: String, handle: FileHandle) {
        self.label = label
        self.handle = handle
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        handle.write(Data("\(Date()) \(event.level) \(label): \(event.message)\n".utf8))
    }
}
