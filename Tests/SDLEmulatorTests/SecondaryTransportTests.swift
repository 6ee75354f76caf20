@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// RegisterSecondaryTransport against the emulator with hand-written frames, and core's
/// NAK reasons (PROTOCOL.md §4.7).
@Suite("Secondary transport registration")
struct SecondaryTransportTests {
    typealias RawLink = ProtocolTests.RawLink

    /// Starts an RPC session on a new link (hand-written v5 StartService); returns the link.
    func primary(_ headUnit: HeadUnitEmulator) async throws -> RawLink {
        var link = await RawLink(headUnit)
        try await link.send([0x50, 0x07, 0x01, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x01] + ProtocolTests.versionBSON)
        let ack = try #require(try await link.nextFrame())
        #expect(ack.header.frameInfo == 0x02 && ack.header.sessionID == 1)
        return link
    }

    /// Sends RegisterSecondaryTransport for `session` on `link`; nil for an ACK, else the NAK's reason.
    func register(_ session: UInt8, on link: inout RawLink) async throws -> String?? {
        try await link.send([0x50, 0x00, 0x07, session, 0, 0, 0, 0, 0, 0, 0, 1])
        while let frame = try await link.nextFrame() {
            guard frame.header.serviceType == .control else { continue }
            if frame.header.frameInfo == 0x08 { return .some(nil) }
            if frame.header.frameInfo == 0x09 { return .some(ControlPayload(bytes: frame.payload)?.reason) }
        }
        return nil
    }

    @Test("with secondary transports off, core's \"already registered\" NAK; session 0 and unknown sessions get their own")
    func disabled() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let first = try await primary(headUnit)
        var second = await RawLink(headUnit)
        #expect(try await register(1, on: &second) == .some("RegisterSecondaryTransport session ID has already been registered"))
        var third = await RawLink(headUnit)
        #expect(try await register(0, on: &third) == .some("RegisterSecondaryTransport MUST include a non-zero session ID"))
        var fourth = await RawLink(headUnit)
        #expect(try await register(9, on: &fourth) == .some("RegisterSecondaryTransport session ID not found"))
        _ = first
        await headUnit.stop()
    }

    @Test("one secondary per session; when it drops, the session may register another")
    func onePerSession() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { $0.secondaryTransports = ["TCP_WIFI"] })
        let first = try await primary(headUnit)
        var second = await RawLink(headUnit)
        #expect(try await register(1, on: &second) == .some(nil))
        var third = await RawLink(headUnit)
        #expect(try await register(1, on: &third) == .some("RegisterSecondaryTransport session ID has already been registered"))
        await second.transport.close()
        var registered = false
        for _ in 0..<200 where !registered {
            var next = await RawLink(headUnit)
            registered = try await register(1, on: &next) == .some(nil)
            if !registered { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(registered, "the dropped secondary freed the session")
        _ = first
        await headUnit.stop()
    }
}
