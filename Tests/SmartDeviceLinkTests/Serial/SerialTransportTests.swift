#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import SmartDeviceLink
import SDLTestSupport
import Testing

/// Everything `incoming` delivers until `count` bytes came.
func collect(_ link: SerialTransport, count: Int) async throws -> [UInt8] {
    var received: [UInt8] = []
    for try await chunk in link.incoming {
        received += chunk
        if received.count >= count { break }
    }
    return received
}

@Suite("Serial transport on a pty")
struct SerialTransportTests {
    @Test("bytes cross both ways whole and in order, 300 KB toward the head unit")
    func roundTrip() async throws {
        let pty = try PseudoTerminal()
        let headUnit = SerialTransport(descriptor: pty.takeMaster(), description: "pty master")
        let app = SerialTransport(SerialPortOptions(path: pty.path, baudRate: 921_600))
        try await app.open()
        try await headUnit.open()
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        async let arrived = collect(headUnit, count: payload.count)
        for start in stride(from: 0, to: payload.count, by: 65_536) {
            try await app.send(Array(payload[start..<min(start + 65_536, payload.count)]))
        }
        #expect(try await arrived == payload, "raw mode: no byte translated, none lost")
        try await headUnit.send([1, 2, 3, 0x0D, 0x0A, 0x11, 0x13])
        #expect(try await collect(app, count: 7) == [1, 2, 3, 0x0D, 0x0A, 0x11, 0x13], "CR, LF, XON and XOFF pass as they are")
        await app.close()
        await headUnit.close()
    }

    @Test("the other end going away ends the link with one line; close() ends it without an error")
    func linkDown() async throws {
        let pty = try PseudoTerminal()
        let headUnit = SerialTransport(descriptor: pty.takeMaster(), description: "pty master")
        let app = SerialTransport(SerialPortOptions(path: pty.path))
        try await app.open()
        try await headUnit.open()
        await headUnit.close()
        await #expect(throws: TransportError.closed("the serial device went away (unplugged, or the other end of the line closed)")) {
            for try await _ in app.incoming {}
        }
        await #expect(throws: TransportError.self) { try await app.send([1]) }
        await app.close()

        let second = try PseudoTerminal()
        let quiet = SerialTransport(SerialPortOptions(path: second.path))
        let master = SerialTransport(descriptor: second.takeMaster(), description: "pty master")
        try await quiet.open()
        await quiet.close()
        for try await _ in quiet.incoming {}  // finishes, no error
        await master.close()
    }

    @Test("what cannot be opened says why and what to do: no such port, not a TTY, held by another, a rate no TTY has")
    func openErrors() async throws {
        let missing = SerialTransport(SerialPortOptions(path: "/dev/ttyNOSUCH7"))
        await #expect(throws: TransportError.noSerialPort(path: "/dev/ttyNOSUCH7", found: SerialPort.candidates())) { try await missing.open() }
        #expect(TransportError.noSerialPort(path: "/dev/ttyX", found: []).description
                == "no serial port /dev/ttyX (no serial ports at all): plug the device in, or name one of those")

        let notATTY = SerialTransport(SerialPortOptions(path: "/dev/null"))
        await #expect(throws: TransportError.unsupported("/dev/null is not a terminal device: --serial takes a TTY such as /dev/ttyACM0, /dev/ttyUSB0 or /dev/rfcomm0")) {
            try await notATTY.open()
        }

        let pty = try PseudoTerminal()
        let first = SerialTransport(SerialPortOptions(path: pty.path))
        try await first.open()
        let second = SerialTransport(SerialPortOptions(path: pty.path))
        let me = (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        await #expect(throws: TransportError.busy(device: "\(pty.path) (held by pid \(getpid()) (\(me)))")) { try await second.open() }
        await first.close()
        let master = SerialTransport(descriptor: pty.takeMaster(), description: "pty master")
        await master.close()

        let odd = SerialTransport(SerialPortOptions(path: "/dev/null", baudRate: 12_345))
        await #expect(throws: TransportError.self) { try await odd.open() }
        #expect(SerialPort.openError("/dev/ttyUSB0", EACCES).description.contains("usermod -aG"))
    }

    @Test("--serial's PATH[:BAUD]")
    func parsing() throws {
        #expect(try SerialPortOptions(parsing: "/dev/ttyACM0") == SerialPortOptions(path: "/dev/ttyACM0", baudRate: 115_200))
        #expect(try SerialPortOptions(parsing: "/dev/ttyUSB1:921600", flowControl: .rtsCts)
                == SerialPortOptions(path: "/dev/ttyUSB1", baudRate: 921_600, flowControl: .rtsCts))
        #expect(throws: TransportError.self) { try SerialPortOptions(parsing: "/dev/ttyUSB1:fast") }
        #expect(throws: TransportError.self) { try SerialPortOptions(parsing: "ttyUSB1") }
        #expect(SerialPortOptions(path: "/dev/ttyGS0", flowControl: .rtsCts).description == "serial /dev/ttyGS0 115200 baud RTS/CTS")
    }
}
