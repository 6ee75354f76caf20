import ArgumentParser
import SmartDeviceLink

/// Where to find the head unit: `--tcp HOST:PORT`, `--usb [VID:PID|BUS:ADDR]`, or nothing
/// for the embedded emulator.
struct TransportOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Connect to a head unit over TCP.", valueName: "host:port"))
    var tcp: String?

    @Option(name: .long, help: ArgumentHelp("Connect over USB to a TDK or bridge (optionally VID:PID or BUS:ADDR).", valueName: "device"))
    var usb: String?

    @Option(name: .long, help: ArgumentHelp("Connect timeout in seconds.", valueName: "seconds"))
    var connectTimeout: Double = 10

    /// The placeholder `--usb` gets when given without a device.
    static let anyUSBDevice = "any"

    func validate() throws {
        if tcp != nil && usb != nil { throw ValidationError("choose one transport: --tcp or --usb") }
        if connectTimeout <= 0 { throw ValidationError("--connect-timeout must be positive") }
    }

    /// Lets `--usb` stand alone: inserts the "any device" placeholder when no device follows.
    static func normalizing(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            result.append(argument)
            guard argument == "--usb" else { continue }
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            if next == nil || next!.hasPrefix("-") || next!.hasSuffix(".json") { result.append(anyUSBDevice) }
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
            return try USBSupport.makeTransport(selector: usb == Self.anyUSBDevice ? nil : usb)
        }
        return nil
    }
}

/// The USB transport for `--usb [DEVICE]`.
enum USBSupport {
    /// `selector` nil: a phone in accessory mode or a known TDK id.
    static func makeTransport(selector: String?) throws -> any SDLTransport {
        guard let selector else { return USBTransport(.default) }
        do {
            return USBTransport(try USBDeviceSelector(parsing: selector))
        } catch {
            throw CommandFailure.invalid("--usb \(selector): \(error.description)")
        }
    }
}
