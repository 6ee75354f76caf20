import ArgumentParser
import SmartDeviceLink

/// Where to find the head unit: `--tcp HOST:PORT`, `--usb [VID:PID|BUS:ADDR|serial=S]`, or nothing
/// for the embedded emulator.
struct TransportOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Connect to a head unit over TCP.", valueName: "host:port"))
    var tcp: String?

    @Option(name: .long, help: ArgumentHelp("Connect over USB to a TDK or bridge; choose one by VID:PID (hex), BUS:ADDR (decimal) or serial=SERIAL, else the first SDL device.", valueName: "device"))
    var usb: String?

    @Option(name: .customLong("usb-gadget"), help: ArgumentHelp(
        "Be the phone on a head unit's USB host port (a TDK): a configfs + FunctionFS gadget on this board's USB device controller (optionally its name in /sys/class/udc), switched into Android accessory mode by the head unit.",
        valueName: "udc"))
    var usbGadget: String?

    @Flag(name: .customLong("usb-gadget-accessory"), help: ArgumentHelp(
        "With --usb-gadget: start as the Android accessory (18d1:2d00) instead of a phone the head unit switches, for a kernel that does not pass the accessory requests to FunctionFS."))
    var usbGadgetAccessory = false

    @Option(name: .long, help: ArgumentHelp(
        "Bluetooth RFCOMM: connect to a head unit (ADDRESS, or ADDRESS@CHANNEL without an SDP lookup); alone, publish the SDL service and wait for the head unit.",
        valueName: "address"))
    var bt: String?

    @Option(name: .customLong("bt-adapter"), help: ArgumentHelp(
        "With --bt: the local Bluetooth adapter to use (hciN or its address) on a machine with more than one.", valueName: "adapter"))
    var btAdapter: String?

    @OptionGroup var serialLine: SerialLineOptions
    var serial: String? { serialLine.serial }

    @Option(name: .long, help: ArgumentHelp(
        "The secondary transport the app may open when the head unit offers one: tcp, usb (this machine the USB host), usb-gadget (this board the USB device, as a phone beside a TCP or Bluetooth primary) or none (default: tcp beside USB, Bluetooth and the emulator; none beside TCP).",
        valueName: "kind"))
    var secondary: SecondaryChoice?

    @Option(name: .long, help: ArgumentHelp(
        "With --usb: wait this long for the device to be plugged in (also on each reconnect). With --usb-gadget or --bt alone: wait this long for the head unit to take the link.",
        valueName: "seconds"))
    var wait: Double?

    @Option(name: .long, help: ArgumentHelp("Connect timeout in seconds.", valueName: "seconds"))
    var connectTimeout: Double = 10

    @Option(name: .long, help: ArgumentHelp(
        "How long the head unit may take to answer StartService and RegisterAppInterface, in seconds.", valueName: "seconds"))
    var registerTimeout: Double = 20

    var registrationTimeout: Duration { .milliseconds(Int64(registerTimeout * 1000)) }

    /// `--secondary`, for the library: nil keeps its defaults.
    var secondaryTransports: Set<SecondaryTransportKind>? {
        switch secondary {
        case nil: return nil
        case .tcp?: return [.tcp]
        case .usb?, .usbGadget?: return [.usb]
        case .none?: return []
        }
    }

    /// How the app opens a secondary: with `--secondary usb-gadget` its USB secondary is this
    /// board's gadget (the head unit is the USB host, as beside a phone's Bluetooth or Wi-Fi);
    /// nil keeps the library's (TCP, and libusb as the host).
    var makeSecondaryTransport: (@Sendable (SecondaryEndpoint) -> any SDLTransport)? {
        guard secondary == .usbGadget else { return nil }
        return { endpoint in
            guard case .usb = endpoint else { return SecondaryEndpoint.defaultTransport(endpoint) }
            return USBGadgetTransport(options: .init())
        }
    }

    /// The placeholder `--usb` gets when given without a device.
    static let anyUSBDevice = "any"
    /// The placeholder `--bt` gets when given without an address: wait for the head unit.
    static let waitForHeadUnit = "wait"
    /// The placeholder `--usb-gadget` gets when given without a UDC: the machine's first.
    static let defaultUDC = "default"

    /// Whether a real head unit is the target (not the embedded emulator).
    var isExternal: Bool { tcp != nil || usb != nil || bt != nil || usbGadget != nil || serial != nil }

    /// The link's name in the report: "TCP 127.0.0.1:12345", "USB", "USB gadget", "Bluetooth", "serial /dev/ttyACM0".
    var name: String {
        tcp.map { "TCP \($0)" } ?? serial.map { "serial \($0)" } ?? (usb != nil ? "USB" : usbGadget != nil ? "USB gadget" : "Bluetooth")
    }

    func validate() throws {
        if [tcp, usb, bt, usbGadget, serial].compactMap({ $0 }).count > 1 {
            throw ValidationError("choose one transport: --tcp, --usb, --usb-gadget, --bt or --serial")
        }
        if usbGadgetAccessory && usbGadget == nil { throw ValidationError("--usb-gadget-accessory goes with --usb-gadget") }
        if btAdapter != nil && bt == nil { throw ValidationError("--bt-adapter goes with --bt") }
        if let secondary, secondary == .usb || secondary == .usbGadget, usb != nil || usbGadget != nil {
            throw ValidationError("--secondary \(secondary.rawValue): the primary is USB already; a USB secondary goes beside --tcp or --bt")
        }
        if connectTimeout <= 0 { throw ValidationError("--connect-timeout must be positive") }
        if let wait {
            if wait <= 0 { throw ValidationError("--wait must be positive") }
            if usb == nil && usbGadget == nil && bt != Self.waitForHeadUnit {
                throw ValidationError("--wait goes with --usb, --usb-gadget, or --bt alone (waiting for the head unit)")
            }
        }
        if registerTimeout <= 0 { throw ValidationError("--register-timeout must be positive") }
    }

    /// Lets `--usb` and `--bt` stand alone: inserts their placeholder when no value follows.
    static func normalizing(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            result.append(argument)
            guard let placeholder = ["--usb": anyUSBDevice, "--bt": waitForHeadUnit, "--usb-gadget": defaultUDC][argument] else { continue }
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            if next == nil || next!.hasPrefix("-") || next!.hasSuffix(".json") { result.append(placeholder) }
        }
        return result
    }

    /// The transport to open, or nil for the embedded emulator.
    func makeTransport() throws -> (any SDLTransport)? {
        if let tcp {
            do {
                return try TCPTransport(endpoint: tcp, connectTimeout: .milliseconds(Int64(connectTimeout * 1000)))
            } catch {
                throw CommandFailure.invalid("--tcp \(tcp): \(error.description)")
            }
        }
        if let usb {
            return try USBSupport.makeTransport(selector: usb == Self.anyUSBDevice ? nil : usb,
                                                waitForDevice: wait.map { .milliseconds(Int64($0 * 1000)) })
        }
        if let usbGadget {
            var options = USBGadgetTransport.Options()
            options.udc = usbGadget == Self.defaultUDC ? nil : usbGadget
            options.startAsAccessory = usbGadgetAccessory
            if let wait { options.waitForHost = .milliseconds(Int64(wait * 1000)) }
            return USBGadgetTransport(options: options)
        }
        if let port = try serialLine.port() {
            return SerialTransport(port)
        }
        if let bt {
            return try BluetoothSupport.makeTransport(bt == Self.waitForHeadUnit ? nil : bt, adapter: btAdapter,
                                                      timeout: .milliseconds(Int64((wait ?? connectTimeout) * 1000)))
        }
        return nil
    }
}

/// The Bluetooth transport for `--bt [ADDRESS[@CHANNEL]]`.
enum BluetoothSupport {
    /// `target` nil: the phone role, publish the SDL service and wait for the head unit.
    static func makeTransport(_ target: String?, adapter: String?, timeout: Duration) throws -> any SDLTransport {
        let connector = BlueZConnector(adapter: adapter)
        guard let target else { return BluetoothTransport(mode: .waitForHeadUnit(channel: nil), timeout: timeout, connector: connector) }
        do {
            return BluetoothTransport(mode: try BluetoothTransport.Mode(parsing: target), timeout: timeout, connector: connector)
        } catch {
            throw CommandFailure.invalid("--bt \(target): \(error.description)")
        }
    }
}

/// The USB transport for `--usb [DEVICE]`.
enum USBSupport {
    /// `selector` nil: a phone in accessory mode or a known TDK id.
    static func makeTransport(selector: String?, waitForDevice: Duration? = nil) throws -> any SDLTransport {
        var options = USBTransport.Options()
        options.waitForDevice = waitForDevice
        guard let selector else { return USBTransport(.default, options: options) }
        do {
            return USBTransport(try USBDeviceSelector(parsing: selector), options: options)
        } catch {
            throw CommandFailure.invalid("--usb \(selector): \(error.description)")
        }
    }
}

/// `--secondary tcp|usb|usb-gadget|none`.
enum SecondaryChoice: String, ExpressibleByArgument, CaseIterable {
    case tcp, usb, none
    case usbGadget = "usb-gadget"
}
