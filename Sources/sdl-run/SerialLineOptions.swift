import ArgumentParser
import SmartDeviceLink

/// `--serial PATH[:BAUD]` and `--serial-flow`: the serial line of the app (`sdl-run`) or of the
/// head unit (`sdl-run emulate`).
struct SerialLineOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A serial line: a TTY (UART, USB serial bridge, CDC-ACM, /dev/rfcommN) at BAUD (115200 when left out).",
        valueName: "path[:baud]"))
    var serial: String?

    @Option(name: .customLong("serial-flow"), help: ArgumentHelp("With --serial: flow control, none or rtscts.", valueName: "kind"))
    var serialFlow: String?

    @Flag(name: .customLong("serial-carrier"), help: ArgumentHelp(
        "With --serial: the carrier (DCD) is the link: up while the other end raises DCD, down when it drops (a modem, a bridge with DCD wired, a CDC-ACM host port whose gadget end a program holds open)."))
    var serialCarrier = false

    func validate() throws {
        if let serialFlow {
            if serial == nil { throw ValidationError("--serial-flow goes with --serial") }
            if SerialFlowControl(rawValue: serialFlow) == nil { throw ValidationError("--serial-flow is none or rtscts, not \(serialFlow)") }
        }
        if serialCarrier && serial == nil { throw ValidationError("--serial-carrier goes with --serial") }
        if let serial {
            do { _ = try SerialPortOptions(parsing: serial) } catch { throw ValidationError(error.description) }
        }
    }

    /// The port asked for, nil without `--serial`.
    func port() throws -> SerialPortOptions? {
        guard let serial else { return nil }
        return try SerialPortOptions(parsing: serial, flowControl: serialFlow.flatMap(SerialFlowControl.init(rawValue:)) ?? .none,
                                     carrierDetect: serialCarrier)
    }
}
