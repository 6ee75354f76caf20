/// The link a command line names, with the options `sdl-run` takes, so that an app's own
/// command line reads the same (the example apps use it):
///
/// - `--tcp HOST[:PORT]` (12345 when left out)
/// - `--usb [VID:PID | BUS:ADDR | serial=SERIAL]`: the USB host role, a TDK or bridge
/// - `--usb-gadget [UDC]`: the phone on a head unit's USB host port
/// - `--bt [ADDRESS[@CHANNEL]]`: RFCOMM to a head unit; alone, publish the service and wait
/// - `--serial PATH[:BAUD]`: a TTY
///
/// ```swift
/// let (link, rest) = try CommandLineLink.parse(Array(CommandLine.arguments.dropFirst()))
/// let configuration = SDLConfiguration(appName: "Media", appID: "media-0001",
///                                      transports: [link?.choice ?? .tcp(host: "127.0.0.1")])
/// ```
public enum CommandLineLink: Sendable, Hashable {
    /// `--tcp`: a head unit's TCP port.
    case tcp(host: String, port: UInt16)
    /// `--usb`: a TDK, bridge or head unit on this machine's USB host port.
    case usb(USBDeviceSelector)
    /// `--usb-gadget`: this board as the phone, on the named USB device controller (nil: the first).
    case usbGadget(udc: String?)
    /// `--bt`: RFCOMM, connecting or waiting for the head unit.
    case bluetooth(BluetoothTransport.Mode)
    /// `--serial`: a TTY at a baud rate.
    case serial(SerialPortOptions)

    /// The option names, as a "choose one" message lists them.
    public static let options = ["--tcp", "--usb", "--usb-gadget", "--bt", "--serial"]

    /// Finds the one transport option in `arguments`; returns it (nil when there is none) and
    /// the arguments it did not take. Throws a one-line error naming the option and what it
    /// expects for a value it cannot read, a missing value or a second transport.
    public static func parse(_ arguments: [String]) throws(TransportError) -> (link: CommandLineLink?, rest: [String]) {
        var link: CommandLineLink?
        var rest: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let option = arguments[index]
            index += 1
            guard options.contains(option) else { rest.append(option); continue }
            if link != nil { throw .unsupported("choose one transport: " + options.joined(separator: ", ")) }
            // --usb, --usb-gadget and --bt may stand alone; the others need a value.
            var value: String?
            if index < arguments.endIndex, !arguments[index].hasPrefix("-") {
                value = arguments[index]
                index += 1
            }
            link = try read(option, value)
        }
        return (link, rest)
    }

    private static func read(_ option: String, _ value: String?) throws(TransportError) -> CommandLineLink {
        func named(_ error: TransportError) -> TransportError { .unsupported("\(option) \(value ?? ""): \(error.description)") }
        switch option {
        case "--tcp":
            guard let value else { throw .unsupported("--tcp needs HOST:PORT, e.g. --tcp 127.0.0.1:12345") }
            do {
                let address = try HostPort(parsing: value, defaultPort: TCPTransport.defaultPort)
                return .tcp(host: address.host, port: address.port)
            } catch { throw named(error) }
        case "--usb":
            guard let value else { return .usb(.default) }
            do { return .usb(try USBDeviceSelector(parsing: value)) } catch { throw named(error) }
        case "--usb-gadget":
            return .usbGadget(udc: value)
        case "--bt":
            guard let value else { return .bluetooth(.waitForHeadUnit(channel: nil)) }
            do { return .bluetooth(try BluetoothTransport.Mode(parsing: value)) } catch { throw named(error) }
        default:
            guard let value else { throw .unsupported("--serial needs a TTY, e.g. --serial /dev/ttyACM0:115200") }
            do { return .serial(try SerialPortOptions(parsing: value)) } catch { throw named(error) }
        }
    }

    /// The transport plan's entry for this link.
    public var choice: TransportChoice {
        switch self {
        case .tcp(let host, let port): return .tcp(host: host, port: port)
        case .usb(let selector): return .usb(selector)
        case .usbGadget(let udc):
            var options = USBGadgetTransport.Options()
            options.udc = udc
            return .usbGadget(options)
        case .bluetooth(let mode): return TransportChoice(mode.description) { BluetoothTransport(mode: mode) }
        case .serial(let options): return .serial(options)
        }
    }
}

extension BluetoothTransport.Mode: CustomStringConvertible {
    /// The link's name in logs and errors: "Bluetooth RFCOMM 00:1A:7D:DA:71:13 channel 3".
    public var description: String {
        switch self {
        case .waitForHeadUnit(let channel): return "Bluetooth RFCOMM (waiting on channel \(channel.map(String.init) ?? "auto"))"
        case .connect(let address, let channel): return "Bluetooth RFCOMM \(address)" + (channel.map { " channel \($0)" } ?? "")
        }
    }

    /// Reads `ADDRESS` (six hex pairs) or `ADDRESS@CHANNEL` (1…30, without an SDP lookup) as a
    /// connection to that device.
    public init(parsing text: String) throws(TransportError) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.address(String(parts[0])) else {
            throw .unsupported("expected a Bluetooth address like 00:1A:7D:DA:71:13 (optionally @CHANNEL); `bluetoothctl devices` lists them")
        }
        guard parts.count == 2 else {
            self = .connect(address: address, channel: nil)
            return
        }
        guard let channel = UInt8(parts[1]), (1...30).contains(channel) else { throw .unsupported("an RFCOMM channel is 1…30") }
        self = .connect(address: address, channel: channel)
    }

    /// The address in capitals, or nil when `text` is not six hex pairs.
    public static func address(_ text: String) -> String? {
        let octets = text.uppercased().split(separator: ":", omittingEmptySubsequences: false)
        guard octets.count == 6, octets.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return octets.joined(separator: ":")
    }
}
