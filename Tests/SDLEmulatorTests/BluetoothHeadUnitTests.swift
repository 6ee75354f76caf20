#if canImport(Glibc)
import Glibc
#endif
@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// The radio under the emulator's Bluetooth role: an inquiry finds `inRange`, the phones in
/// `publishingSDL` answer the SDP lookup, and each connect makes a socketpair whose other
/// end is the phone's, handed to the test.
struct FakeRadio: RFCOMMConnector {
    var inRange: [String]
    var publishingSDL: Set<String>
    let phoneEnds: AsyncStream<(address: String, descriptor: Int32)>.Continuation

    func accept(channel: UInt8?, timeout: Duration) async throws(TransportError) -> (descriptor: Int32, peer: String) {
        throw .unsupported("the head unit's radio does not wait for connections")
    }

    func connect(address: String, channel: UInt8?, timeout: Duration) async throws(TransportError) -> Int32 {
        guard publishingSDL.contains(address) else {
            throw .unreachable(endpoint: address, reason: "it does not publish the SDL service in SDP; is the SDL app running?")
        }
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw .io(operation: "socketpair", code: errno, message: "") }
        phoneEnds.yield((address, pair[1]))
        return pair[0]
    }

    func discover(seconds: Int) async throws(TransportError) -> [String] { inRange }
}

@Suite("The emulator as a Bluetooth head unit (RFCOMM client)")
struct BluetoothHeadUnitTests {
    static let phone = "00:AA:01:01:00:01"
    static let headset = "00:AA:01:02:00:02"

    @Test("finds the phone by inquiry, serves its app, connects again when the link drops, and names a device without SDL once")
    func inquiryConnectAndReconnect() async throws {
        let (ends, phoneEnds) = AsyncStream.makeStream(of: (address: String, descriptor: Int32).self)
        let radio = FakeRadio(inRange: [Self.headset, Self.phone], publishingSDL: [Self.phone], phoneEnds: phoneEnds)
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let events = await headUnit.events()
        let serving = Task { try await headUnit.serveBluetooth(phones: nil, connector: radio, interval: .milliseconds(20)) }
        var arrivals = ends.makeAsyncIterator()

        for round in 1...2 {
            let end = try #require(await arrivals.next())
            #expect(end.address == Self.phone)
            let app = try await TestApp.connect(over: StreamSocketTransport(
                connectedDescriptor: end.descriptor, description: "phone end", kind: .bluetooth))
            let response = try await app.register(appID: "bt-app-\(round)")
            #expect(response.success == true)
            #expect(await headUnit.snapshot().apps.map(\.appID) == ["bt-app-\(round)"])
            await app.connection.stop()  // the link drops: the emulator connects again
        }
        serving.cancel()
        await headUnit.stop()

        var failures: [String: [String]] = [:]
        var opened: [String] = []
        for await event in events {
            switch event {
            case .bluetoothDeviceFailed(let device, let reason): failures[device, default: []].append(reason)
            case .connectionOpened(_, let description): opened.append(description)
            default: break
            }
        }
        // Two links served; a third may have opened before the task was cancelled.
        #expect(opened.count >= 2 && opened.allSatisfy { $0 == "Bluetooth RFCOMM \(Self.phone)" }, "\(opened)")
        #expect(failures.keys.sorted() == [Self.headset])
        #expect(failures[Self.headset] == ["cannot reach \(Self.headset): it does not publish the SDL service in SDP; is the SDL app running?"])
    }

    @Test("on a machine without Bluetooth it stops at once with the one line the radio gave")
    func noBluetooth() async {
        struct NoRadio: RFCOMMConnector {
            func accept(channel: UInt8?, timeout: Duration) async throws(TransportError) -> (descriptor: Int32, peer: String) { throw .unsupported("no radio") }
            func connect(address: String, channel: UInt8?, timeout: Duration) async throws(TransportError) -> Int32 { throw .unsupported("no radio") }
            func discover(seconds: Int) async throws(TransportError) -> [String] {
                throw .unsupported("this machine has no Bluetooth support")
            }
        }
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        await #expect {
            try await headUnit.serveBluetooth(phones: nil, connector: NoRadio())
        } throws: { error in
            "\(error)" == "this machine has no Bluetooth support"
        }
        await headUnit.stop()
    }
}
