import ArgumentParser
import Foundation
import SDLEmulator
import SmartDeviceLink

/// `sdl-run emulate`: runs the head-unit emulator until SIGINT or SIGTERM.
struct Emulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the head-unit emulator (an sdl_core 8.2 stand-in) for apps to connect to.",
        discussion: """
            Prints `listening on HOST:PORT` (and `control on ...`) at start, then runs until SIGINT or SIGTERM.
            The control channel takes JSON lines such as {"action":"activateApp","appID":"x"},
            {"action":"selectCommand","cmdID":3} or {"action":"snapshot"} and answers one JSON line each.
            """)

    @Option(help: ArgumentHelp("Where apps connect (loopback unless told otherwise).", valueName: "host:port"))
    var listen = "127.0.0.1:12345"

    @Option(help: ArgumentHelp("Emulator configuration (capabilities, policy table, vehicle data, ...).", valueName: "hu.json"))
    var config: String?

    @Option(help: ArgumentHelp("Serve the control channel on TCP (port 0 picks a free one).", valueName: "host:port"))
    var control: String?

    @Option(name: .customLong("control-socket"), help: ArgumentHelp("Serve the control channel on a Unix domain socket.", valueName: "path"))
    var controlSocket: String?

    @Flag(help: "Print what the emulator does as JSON lines on standard error.")
    var events = false

    @Option(help: ArgumentHelp(
        "Also serve Android phones over USB: switch these devices (VID:PID[,VID:PID...]; bare --usb: phones already in accessory mode) with the AOA sequence, as sdl_core does.",
        valueName: "phones"))
    var usb: String?

    @Option(help: ArgumentHelp(
        "Also serve phones over Bluetooth, as sdl_core does: be the RFCOMM client of these phones' SDL service (ADDRESS[,ADDRESS...]; bare --bt: the phones an inquiry finds).",
        valueName: "phones"))
    var bt: String?

    @Option(name: .customLong("bt-adapter"), help: ArgumentHelp(
        "With --bt: the local Bluetooth adapter to connect from (hciN or its address).", valueName: "adapter"))
    var btAdapter: String?

    /// Also serve an app on a serial line, opened again whenever it goes down.
    @OptionGroup var serialLine: SerialLineOptions

    @OptionGroup var logging: LoggingOptions

    /// `--bt`'s phones, nil for "find them by inquiry".
    var bluetoothPhones: [String]? {
        get throws {
            guard let bt, bt != TransportOptions.waitForHeadUnit else { return nil }
            return try bt.split(separator: ",").map { text in
                guard let address = BluetoothTransport.Mode.address(String(text)) else {
                    throw ValidationError("--bt \(text): expected a Bluetooth address like 00:1A:7D:DA:71:13; `bluetoothctl devices` lists them")
                }
                return address
            }
        }
    }

    func validate() throws {
        if btAdapter != nil && bt == nil { throw ValidationError("--bt-adapter goes with --bt") }
        _ = try bluetoothPhones
        if control != nil && controlSocket != nil { throw ValidationError("choose one control channel: --control or --control-socket") }
        if let usb, usb != TransportOptions.anyUSBDevice {
            do { _ = try USBDeviceSelector(parsing: usb) } catch { throw ValidationError("--usb \(usb): \(error.description)") }
        }
        _ = try Self.endpoint(listen, option: "--listen")
        if let control { _ = try Self.endpoint(control, option: "--control") }
    }

    /// Splits "HOST:PORT" (a bare port means loopback).
    static func endpoint(_ text: String, option: String) throws -> (host: String, port: UInt16) {
        do {
            let address = try HostPort(parsing: text, defaultHost: "127.0.0.1", listening: true)
            return (address.host, address.port)
        } catch {
            throw ValidationError("\(option) \(text): \(error.description)")
        }
    }

    func run() async throws {
        logging.bootstrap()
        // Before anything is printed: whoever reads "listening on" may stop it at once.
        let (stop, stopped) = AsyncStream.makeStream(of: Void.self)
        let signals = StopSignals { stopped.yield() }
        var configuration = EmulatorConfiguration.standard
        if let config {
            do {
                configuration = try EmulatorConfiguration.load(path: config)
            } catch {
                throw CommandFailure.invalid(error.description)
            }
        }
        let headUnit = HeadUnitEmulator(configuration: configuration)
        if events {
            let stream = await headUnit.events()
            Task {
                for await event in stream {
                    FileHandle.standardError.write(Data((event.json.serialized(sortedKeys: true) + "\n").utf8))
                }
            }
        }
        let (host, port) = try Self.endpoint(listen, option: "--listen")
        let bound: UInt16
        do {
            bound = try await headUnit.listen(host: host, port: port)
        } catch {
            throw CommandFailure.connection("\(error)")
        }
        var lines = ["listening on \(host):\(bound)"]
        do {
            if let control {
                let (controlHost, controlPort) = try Self.endpoint(control, option: "--control")
                let boundControl = try await headUnit.listenControl(host: controlHost, port: controlPort)
                lines.append("control on \(controlHost):\(boundControl)")
            } else if let controlSocket {
                try await headUnit.listenControl(socketPath: controlSocket)
                lines.append("control on unix:\(controlSocket)")
            }
        } catch {
            await headUnit.stop()
            throw CommandFailure.connection("\(error)")
        }
        var usbTask: Task<Void, any Error>?
        if let usb {
            let phones = usb == TransportOptions.anyUSBDevice ? nil : try? USBDeviceSelector(parsing: usb)
            // Fail at start, in one line, when this machine has no USB at all.
            if !FileManager.default.fileExists(atPath: "/dev/bus/usb") {
                await headUnit.stop()
                throw CommandFailure.connection(
                    "no USB support on this machine: /dev/bus/usb does not exist (no usbfs in this kernel or container); emulate without --usb")
            }
            usbTask = Task { try await headUnit.serveUSB(phones: phones) }
            lines.append("usb: serving " + (phones.map { "\($0) and phones in accessory mode" } ?? "phones in accessory mode"))
        }
        var bluetoothTask: Task<Void, any Error>?
        if bt != nil {
            let phones = try bluetoothPhones
            let adapter: BluetoothAdapter
            do {
                adapter = try BluetoothAdapter.find(btAdapter)
                try adapter.requirePowered()
            } catch {
                await headUnit.stop()
                throw CommandFailure.connection("--bt: \(error.description)")
            }
            bluetoothTask = Task { [btAdapter] in
                do {
                    try await headUnit.serveBluetooth(phones: phones, connector: BlueZConnector(adapter: btAdapter))
                } catch {
                    FileHandle.standardError.write(Data("sdl-run: --bt: \(error)\n".utf8))
                }
            }
            lines.append("bluetooth: from \(adapter), " + (phones.map { "connecting to \($0.joined(separator: ", "))" } ?? "looking for phones"))
        }
        var serialTask: Task<Void, Never>?
        if let options = try serialLine.port() {
            do {
                serialTask = try await headUnit.serveSerial(options)
            } catch {
                await headUnit.stop()
                throw CommandFailure.connection("--serial: \(error.description)")
            }
            lines.append("serial: serving \(options)")
        }
        try? FileHandle.standardOutput.write(contentsOf: Data((lines.joined(separator: "\n") + "\n").utf8))
        for await _ in stop { break }
        withExtendedLifetime(signals) {}
        usbTask?.cancel()
        bluetoothTask?.cancel()
        serialTask?.cancel()
        await headUnit.stop()
    }
}

