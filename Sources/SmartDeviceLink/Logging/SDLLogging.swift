public import Logging
import Foundation

/// The modules the library logs under; a logger's label is `SmartDeviceLink.<module>`.
public enum SDLLogModule: String, Sendable, CaseIterable {
    /// The TCP transport: connects, reads and writes.
    case tcp = "transport.tcp"
    /// The USB transports: devices, the accessory switch, the gadget.
    case usb = "transport.usb"
    /// The Bluetooth transport: BlueZ, SDP and RFCOMM.
    case bluetooth = "transport.bluetooth"
    /// Sessions, services and frames (at trace level every frame).
    case `protocol` = "protocol"
    /// Requests, responses and notifications.
    case rpc = "rpc"
    /// ``SDLManager``: registration, reconnects, the HMI state.
    case lifecycle = "lifecycle"
    /// Uploads and the file manager.
    case files = "files"
    /// The screen managers: text, menus, choice sets, alerts.
    case screen = "screen"

    /// The logger label of this module.
    public var label: String { "SmartDeviceLink.\(rawValue)" }
}

/// How log lines look.
public enum SDLLogFormat: String, Sendable, CaseIterable {
    /// `message`
    case simple
    /// `level module: message`
    case `default`
    /// `timestamp level module: message (file:line function) metadata`
    case detailed
}

/// Per-module levels, filters and a format for the library's logs (the sdl_ios log
/// configuration, on swift-log).
///
/// ```swift
/// var logging = SDLLogConfiguration(defaultLevel: .warning)
/// logging.moduleLevels["protocol"] = .debug
/// logging.messagePattern = "session \\d+"
/// LoggingSystem.bootstrap { logging.handler(label: $0, write: { line in print(line) }) }
/// ```
public struct SDLLogConfiguration: Sendable {
    /// The level of modules with no entry in ``moduleLevels`` (and of non-library labels).
    public var defaultLevel: Logger.Level
    /// Levels by module name (``SDLLogModule`` raw values, or any label suffix).
    public var moduleLevels: [String: Logger.Level]
    /// Only these modules log (nil: all).
    public var modules: Set<String>?
    /// Only messages matching this regular expression are written (nil: all).
    public var messagePattern: String?
    /// How much of each record a line shows (see ``SDLLogFormat``).
    public var format: SDLLogFormat

    /// A configuration; by default warnings and errors of every module, each on a line of level, module and message.
    public init(defaultLevel: Logger.Level = .warning, moduleLevels: [String: Logger.Level] = [:], modules: Set<String>? = nil,
                messagePattern: String? = nil, format: SDLLogFormat = .default) {
        self.defaultLevel = defaultLevel
        self.moduleLevels = moduleLevels
        self.modules = modules
        self.messagePattern = messagePattern
        self.format = format
    }

    /// The module of a logger label (`SmartDeviceLink.transport.usb` → `transport.usb`).
    public static func module(ofLabel label: String) -> String {
        label.hasPrefix("SmartDeviceLink.") ? String(label.dropFirst("SmartDeviceLink.".count)) : label
    }

    /// A handler for `label` that writes formatted lines through `write`.
    public func handler(label: String, write: @escaping @Sendable (String) -> Void) -> SDLLogHandler {
        let module = Self.module(ofLabel: label)
        var handler = SDLLogHandler(module: module, configuration: self, write: write)
        handler.logLevel = moduleLevels[module] ?? defaultLevel
        return handler
    }

    /// The line for one event, or nil when the filters drop it.
    func line(module: String, event: LogEvent, metadata: Logger.Metadata) -> String? {
        if let modules, !modules.contains(module) { return nil }
        let message = "\(event.message)"
        if let messagePattern, let regex = try? Regex(messagePattern), !message.contains(regex) { return nil }
        switch format {
        case .simple:
            return message
        case .default:
            return "\(event.level) \(module): \(message)"
        case .detailed:
            let file = event.file.split(separator: "/").last.map(String.init) ?? event.file
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let extras = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(ISO8601DateFormatter().string(from: Date())) \(event.level) \(module): \(message) (\(file):\(event.line) \(event.function))\(extras)"
        }
    }
}

/// The swift-log handler of ``SDLLogConfiguration``.
public struct SDLLogHandler: LogHandler {
    /// The module of its logger (`transport.usb`, `protocol`...).
    public let module: String
    let configuration: SDLLogConfiguration
    let write: @Sendable (String) -> Void
    /// The lowest level it writes.
    public var logLevel: Logger.Level = .warning
    /// Metadata added to every line.
    public var metadata: Logger.Metadata = [:]

    init(module: String, configuration: SDLLogConfiguration, write: @escaping @Sendable (String) -> Void) {
        self.module = module
        self.configuration = configuration
        self.write = write
    }

    /// One metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the line when its level, module and the filter let it through.
    public func log(event: LogEvent) {
        if let line = configuration.line(module: module, event: event, metadata: metadata) { write(line) }
    }
}

/// One logger per module, as sdl_ios has log modules: `--log-module files=debug` turns up
/// one layer. Trace is for bytes, debug for decisions, info for what a user cares about.
/// (SDLConnection and SDLManager log through the logger their configuration is given,
/// `protocol` and `lifecycle` by default.)
package enum SDLLog {
    package static let tcp = Logger(label: SDLLogModule.tcp.label)
    package static let usb = Logger(label: SDLLogModule.usb.label)
    package static let bluetooth = Logger(label: SDLLogModule.bluetooth.label)
    package static let rpc = Logger(label: SDLLogModule.rpc.label)
    package static let files = Logger(label: SDLLogModule.files.label)
    package static let screen = Logger(label: SDLLogModule.screen.label)
}
