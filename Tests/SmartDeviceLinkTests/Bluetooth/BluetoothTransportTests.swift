#if canImport(Glibc)
import Glibc
#endif
import SmartDeviceLink
import Testing

/// A connector that hands out one end of a socketpair: the rest of the transport runs for real.
struct SocketPairConnector: RFCOMMConnector {
    let descriptor: Int32
    func accept(channel: UInt8?, timeout: Duration) async throws(TransportError) -> (descriptor: Int32, peer: String) {
        (descriptor, "00:1A:7D:DA:71:13")
    }
    func connect(address: String, channel: UInt8?, timeout: Duration) async throws(TransportError) -> Int32 {
        descriptor
    }
    func discover(seconds: Int) async throws(TransportError) -> [String] { ["00:1A:7D:DA:71:13"] }
}

/// Whether this host's kernel offers RFCOMM sockets; the no-Bluetooth test means nothing where it does.
let hostHasBluetoothSockets: Bool = {
    let fd = socket(31 /* AF_BLUETOOTH */, Int32(SOCK_STREAM.rawValue), 3 /* BTPROTO_RFCOMM */)
    if fd >= 0 { close(fd) }
    return fd >= 0
}()

@Suite("Bluetooth RFCOMM transport")
struct BluetoothTransportTests {
    @Test("on a machine without Bluetooth both modes fail with one clear line",
          .enabled(if: !hostHasBluetoothSockets, "this host has Bluetooth sockets"), arguments: [
        BluetoothTransport.Mode.connect(address: "00:1A:7D:DA:71:13", channel: 3), .waitForHeadUnit(channel: nil),
    ])
    func noBluetoothHere(mode: BluetoothTransport.Mode) async {
        let transport = BluetoothTransport(mode: mode, timeout: .seconds(1))
        await #expect {
            try await transport.open()
        } throws: { error in
            guard case TransportError.unsupported(let message) = error else { return false }
            // Waiting tries BlueZ's D-Bus API first, and names both paths when neither works.
            let cause = "this machine has no Bluetooth support (the kernel offers no AF_BLUETOOTH sockets)"
            let expected = if case .connect = mode { message.hasPrefix(cause) } else {
                message.hasPrefix("cannot publish the SDL service over Bluetooth: ") && message.contains("legacy SDP path failed too (\(cause))")
            }
            return expected && !message.contains("\n")
        }
    }

    @Test("a malformed address says how to write one")
    func malformedAddress() async {
        let transport = BluetoothTransport(mode: .connect(address: "00:1A:7D", channel: 1))
        await #expect {
            try await transport.open()
        } throws: { error in
            "\(error)".contains("not a Bluetooth address; write it as 00:11:22:33:44:55")
        }
    }

    @Test("over a connected stream socket the SDL session runs end to end (socketpair stands in for RFCOMM)")
    func sessionOverSeam() async throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let appSide = BluetoothTransport(mode: .waitForHeadUnit(channel: nil), connector: SocketPairConnector(descriptor: pair[0]))
        let headUnitSide = StreamSocketTransport(connectedDescriptor: pair[1], description: "head unit end", kind: .bluetooth)
        var machine = HeadUnitProtocolMachine(configuration: .headUnit)
        try await headUnitSide.open()
        let headUnit = Task {
            for try await chunk in headUnitSide.incoming {
                for action in machine.receive(chunk, now: .now) {
                    switch action {
                    case .send(let bytes): try await headUnitSide.send(bytes)
                    case .startServiceRequested(let request):
                        for case .send(let bytes) in try machine.acceptStartService(request, now: .now) { try await headUnitSide.send(bytes) }
                    default: break
                    }
                }
            }
        }
        let connection = SDLConnection(transport: appSide)
        let session = try await connection.start()
        #expect(session.version == ProtocolVersion(5, 4, 0))
        #expect(appSide.kind == .bluetooth)
        await connection.stop()
        await headUnitSide.close()
        headUnit.cancel()
    }
}
