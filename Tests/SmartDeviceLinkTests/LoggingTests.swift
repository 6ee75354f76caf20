import Logging
import SmartDeviceLink
import Testing

/// Collects log lines written by SDLLogHandler.
final class LineSink: Sendable {
    private let storage = Locked<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    func write(_ line: String) { storage.withLock { $0.append(line) } }
}

@Suite("Logging: per-module levels, filters, formats")
struct LoggingTests {
    func logger(_ module: SDLLogModule, _ configuration: SDLLogConfiguration, into sink: LineSink) -> Logger {
        Logger(label: module.label) { label in configuration.handler(label: label) { sink.write($0) } }
    }

    @Test("each module has its own level; unlisted modules use the default")
    func moduleLevels() {
        let sink = LineSink()
        let configuration = SDLLogConfiguration(defaultLevel: .warning, moduleLevels: ["protocol": .debug])
        logger(.protocol, configuration, into: sink).debug("frame decoded")
        logger(.usb, configuration, into: sink).debug("transfer done")
        logger(.usb, configuration, into: sink).error("device gone")
        #expect(sink.lines == ["debug protocol: frame decoded", "error transport.usb: device gone"])
    }

    @Test("filters by module and by message pattern")
    func filters() {
        let sink = LineSink()
        let configuration = SDLLogConfiguration(defaultLevel: .info, modules: ["lifecycle"], messagePattern: "attempt \\d+")
        logger(.lifecycle, configuration, into: sink).info("reconnect attempt 2 failed")
        logger(.lifecycle, configuration, into: sink).info("ready")
        logger(.protocol, configuration, into: sink).info("reconnect attempt 3 failed")
        #expect(sink.lines == ["info lifecycle: reconnect attempt 2 failed"])
    }

    @Test("formats: simple, default, detailed")
    func formats() {
        let sink = LineSink()
        for format in SDLLogFormat.allCases {
            logger(.files, SDLLogConfiguration(defaultLevel: .info, format: format), into: sink).info("uploaded", metadata: ["file": "a.png"])
        }
        #expect(sink.lines[0] == "uploaded")
        #expect(sink.lines[1] == "info files: uploaded")
        #expect(sink.lines[2].contains(" info files: uploaded (LoggingTests.swift:"))
        #expect(sink.lines[2].hasSuffix("file=a.png"))
    }
}
