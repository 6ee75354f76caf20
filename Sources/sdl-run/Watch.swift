import ArgumentParser
import Foundation
import SDLScenario
import SmartDeviceLink

/// `sdl-run watch BENCH.json`: the unattended bench station. Waits for the configured TDKs
/// and phones (libusb hotplug) and serial ports (sysfs), runs the bench's scenarios on each
/// one plugged in, one report folder per run, and keeps going. systemd starts it (`sdl-bench.service`).
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wait for TDKs, phones and serial lines and run the bench's scenarios on each one plugged in.",
        discussion: """
            One JSON line on stdout per event (watching, attached, runStarted, runFinished, detached: with the
            report when a run was under way),
            also appended to REPORTS/watch.jsonl. Each run gets REPORTS/<time>-<bus>-<address>/ (a serial
            port's: <time>-<name>/) with
            result.json, junit.xml, trace.jsonl, console.log, what the scenarios write, and run.json
            (device, times, exit code, outcome: passed, failed, invalid, connectionFailed,
            stopped when the station stopped it, or deviceRemoved when the device went away mid-run).
            """)

    @Argument(help: "The bench configuration: which devices, which scenarios, where reports go.")
    var config: String

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let bench = try BenchConfiguration.load(path: config)
        let watcher = try BenchWatcher(bench)
        try await watcher.run()
    }
}

/// What a bench station runs: `{"devices": ["1d6b:0104", "serial=TDK-7"], "scenarios":
/// ["scenarios/"], "reports": "/var/lib/sdl-bench/reports", "include": [], "exclude": [],
/// "vars": {"tdk": "7"}, "retries": 0, "control": "127.0.0.1:12346", "driverCommands":
/// {"activateApp": "robot-tap app-icon"}}`. Relative paths are relative to the configuration file.
/// A board on a TDK's host port names its USB device controller instead of devices:
/// `"gadget": "default"` (or the UDC's name), with `"gadgetAccessory": true` to start as the
/// accessory and `"pause"` seconds between runs (default 10). Serial lines are watched with
/// `"serialPorts": ["1d6b:0104", "serial=FT1234", "/dev/rfcomm0"]` (the USB device a port
/// belongs to, or a node's path), at `"baud"` (115200) with `"flowControl"` (none, rtscts) and
/// `"carrierDetect"` (DCD is the link, `--serial-carrier`); without "devices" beside them the
/// station watches no USB device.
struct BenchConfiguration {
    var devices: [USBDeviceSelector]
    var deviceTexts: [String]
    var scenarios: [String]
    var reports: String
    var include: [String] = []
    var exclude: [String] = []
    var variables: [String] = []
    var retries = 0
    var control: String?
    /// Driver actions a bench device does (`--driver-command`): action → command line.
    var driverCommands: [String: String] = [:]
    /// A board's USB device controller ("default": the first): the station is the phone.
    var gadget: String?
    var gadgetAccessory = false
    /// Seconds between a board's runs.
    var pause = 10.0
    /// Serial ports to run on as they appear, and their line settings.
    var serialPorts: [SerialPortSelector] = []
    var serialTexts: [String] = []
    var baud = 115_200
    var flowControl = SerialFlowControl.none
    var carrierDetect = false

    static let keys = ["$schema", "devices", "scenarios", "reports", "include", "exclude", "vars", "retries", "control", "driverCommands",
                       "gadget", "gadgetAccessory", "pause", "serialPorts", "baud", "flowControl",
                       "carrierDetect"]

    static func load(path: String) throws -> BenchConfiguration {
        func invalid(_ where_: String, _ why: String) -> CommandFailure { .invalid("\(path): \(where_): \(why)") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure.invalid("\(path): cannot read the bench configuration; check the path and its permissions")
        }
        guard case .object(let json)? = try? JSONValue.parse(Array(data)) else { throw invalid("$", "not a JSON object") }
        for key in json.keys.sorted() where !keys.contains(key) {
            throw invalid("$.\(key)", "unknown key" + RPCSpec.didYouMean(key, among: keys))
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : (base as NSString).appendingPathComponent(p) }
        func strings(_ key: String) throws -> [String] {
            guard let value = json[key] else { return [] }
            guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else { throw invalid("$.\(key)", "expected an array of strings") }
            return items.compactMap(\.stringValue)
        }
        let deviceTexts = try strings("devices")
        var devices: [USBDeviceSelector] = []
        for (index, text) in deviceTexts.enumerated() {
            do { devices.append(try USBDeviceSelector(parsing: text)) } catch { throw invalid("$.devices[\(index)]", error.description) }
        }
        let serialTexts = try strings("serialPorts")
        var serialPorts: [SerialPortSelector] = []
        for (index, text) in serialTexts.enumerated() {
            do { serialPorts.append(try SerialPortSelector(parsing: text)) } catch { throw invalid("$.serialPorts[\(index)]", error.description) }
        }
        let scenarios = try strings("scenarios").map(resolve)
        guard !scenarios.isEmpty else { throw invalid("$.scenarios", "name at least one scenario file, folder or glob") }
        guard let reports = json["reports"]?.stringValue else { throw invalid("$.reports", "is required: the folder the reports go to") }
        // The default USB devices only for a station that names nothing else to watch.
        let watchesUSB = !deviceTexts.isEmpty || serialTexts.isEmpty
        var bench = BenchConfiguration(devices: devices.isEmpty && watchesUSB ? [.default] : devices,
                                       deviceTexts: deviceTexts.isEmpty && watchesUSB ? ["default"] : deviceTexts,
                                       scenarios: scenarios, reports: resolve(reports))
        bench.serialPorts = serialPorts
        bench.serialTexts = serialTexts
        if let baud = json["baud"] {
            guard !serialPorts.isEmpty else { throw invalid("$.baud", "goes with \"serialPorts\"") }
            guard let rate = baud.intValue, rate > 0 else { throw invalid("$.baud", "expected bits per second, e.g. 115200") }
            bench.baud = Int(rate)
        }
        if let flow = json["flowControl"] {
            guard !serialPorts.isEmpty else { throw invalid("$.flowControl", "goes with \"serialPorts\"") }
            guard let kind = flow.stringValue.flatMap(SerialFlowControl.init(rawValue:)) else {
                throw invalid("$.flowControl", "expected \"none\" or \"rtscts\"")
            }
            bench.flowControl = kind
        }
        if let carrier = json["carrierDetect"] {
            guard !serialPorts.isEmpty else { throw invalid("$.carrierDetect", "goes with \"serialPorts\"") }
            guard let watch = carrier.boolValue else { throw invalid("$.carrierDetect", "expected true or false") }
            bench.carrierDetect = watch
        }
        bench.include = try strings("include")
        bench.exclude = try strings("exclude")
        if let vars = json["vars"] {
            guard let object = vars.objectValue else { throw invalid("$.vars", "expected an object of NAME: value") }
            bench.variables = object.keys.sorted().map { "\($0)=\(object[$0]!.stringValue ?? object[$0]!.serialized())" }
        }
        if let retries = json["retries"] {
            guard let n = retries.intValue, n >= 0 else { throw invalid("$.retries", "expected a whole number ≥ 0") }
            bench.retries = Int(n)
        }
        bench.control = json["control"]?.stringValue
        if let commands = json["driverCommands"] {
            guard let object = commands.objectValue, object.values.allSatisfy({ $0.stringValue != nil }) else {
                throw invalid("$.driverCommands", "expected an object of driver action: command line")
            }
            for name in object.keys.sorted() {
                if let problem = DriverAction.problem(withName: name) { throw invalid("$.driverCommands.\(name)", problem) }
            }
            bench.driverCommands = object.compactMapValues(\.stringValue)
        }
        if let gadget = json["gadget"] {
            guard let name = gadget.stringValue, !name.isEmpty else { throw invalid("$.gadget", "expected \"default\" or a name in /sys/class/udc") }
            guard deviceTexts.isEmpty, serialTexts.isEmpty else {
                throw invalid("$.gadget", "a station is a host for devices or a board with a gadget, not both: drop \"devices\" and \"serialPorts\"")
            }
            bench.gadget = name
            bench.devices = []
            bench.deviceTexts = []
        }
        if let accessory = json["gadgetAccessory"] {
            guard let flag = accessory.boolValue else { throw invalid("$.gadgetAccessory", "expected true or false") }
            guard bench.gadget != nil else { throw invalid("$.gadgetAccessory", "goes with \"gadget\"") }
            bench.gadgetAccessory = flag
        }
        if let pause = json["pause"] {
            guard let seconds = pause.doubleValue, seconds >= 0 else { throw invalid("$.pause", "expected seconds ≥ 0") }
            bench.pause = seconds
        }
        // Found now, not at the first device: a station that would run nothing says so at start.
        do { _ = try ScenarioFiles.expand(scenarios) } catch { throw invalid("$.scenarios", "\(error)") }
        return bench
    }

    /// How a run on `device` reaches it.
    static func link(to device: USBDeviceDescription) -> [String] { ["--usb", "\(device.bus):\(device.address)"] }

    /// How a run on a serial port reaches it: by the node found now, at the bench's settings.
    func link(to port: SerialPortDescription) -> [String] {
        ["--serial", "\(port.path):\(baud)"] + (flowControl == .none ? [] : ["--serial-flow", flowControl.rawValue])
            + (carrierDetect ? ["--serial-carrier"] : [])
    }

    /// How a board's run reaches the TDK: the gadget, waiting as long as it takes for a host.
    var gadgetLink: [String] {
        ["--usb-gadget"] + (gadget == "default" ? [] : [gadget ?? ""]) + (gadgetAccessory ? ["--usb-gadget-accessory"] : []) + ["--wait", "31536000"]
    }

    /// The sdl-run arguments of one run over `link`, writing into `folder`.
    func runArguments(link: [String], folder: String) -> [String] {
        var arguments = ["run"] + scenarios + link + ["--output-dir", folder,
                                               "--trace", (folder as NSString).appendingPathComponent("trace.jsonl"),
                                               "--non-interactive", "skip", "--no-color"]
        for tag in include { arguments += ["--include", tag] }
        for tag in exclude { arguments += ["--exclude", tag] }
        for variable in variables { arguments += ["--var", variable] }
        if retries > 0 { arguments += ["--retries", String(retries)] }
        if let control { arguments += ["--control", control] }
        for (action, command) in driverCommands.sorted(by: { $0.key < $1.key }) { arguments += ["--driver-command", "\(action)=\(command)"] }
        return arguments
    }
}
