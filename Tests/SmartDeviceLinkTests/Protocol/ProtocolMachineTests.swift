// The role-aware session machine (PROTOCOL.md §4), app and head unit wired back to back,
// plus hand-written frames for what a real head unit (sdl_core) sends.
import Testing
@testable import SmartDeviceLink

/// Hand-written frames and payloads used below.
enum PTFrames {
    /// A1: the app's first StartService, v1 header, BSON {protocolVersion:"5.4.1"}, session 0.
    static let startService541 = PT.bytes("10 07 01 00 00 00 00 20  20 00 00 00 02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 06 00 00 00 35 2E 34 2E 31 00 00")
    /// §4.1: the empty v1 StartService of protocol 1–4.
    static let startServiceEmpty = PT.bytes("10 07 01 00 00 00 00 00")
    /// The head-unit role's (core-like) ACK to A1: v5, session 1, message id 0, with
    /// {protocolVersion:"5.4.0", hashId:0x00010001, mtu:int64 131072, secondaryTransports:[],
    ///  audioServiceTransports:[1], videoServiceTransports:[1]} (negotiated ≥ 5.1.0, §4.2).
    static let ack540 = PT.bytes("""
        50 07 02 01 00 00 00 9B 00 00 00 00
        9B 00 00 00
        02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00  06 00 00 00 35 2E 34 2E 30 00
        10 68 61 73 68 49 64 00  01 00 01 00
        12 6D 74 75 00  00 00 02 00 00 00 00 00
        04 73 65 63 6F 6E 64 61 72 79 54 72 61 6E 73 70 6F 72 74 73 00  05 00 00 00 00
        04 61 75 64 69 6F 53 65 72 76 69 63 65 54 72 61 6E 73 70 6F 72 74 73 00  0C 00 00 00 10 30 00 01 00 00 00 00
        04 76 69 64 65 6F 53 65 72 76 69 63 65 54 72 61 6E 73 70 6F 72 74 73 00  0C 00 00 00 10 30 00 01 00 00 00 00
        00
        """)
    /// A v5 ACK, session 7, {protocolVersion:"5.0.0", hashId:0x00070001, mtu:int64 1000}.
    static let ack500mtu1000 = PT.bytes("""
        50 07 02 07 00 00 00 39 00 00 00 00
        39 00 00 00
        02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00  06 00 00 00 35 2E 30 2E 30 00
        10 68 61 73 68 49 64 00  01 00 07 00
        12 6D 74 75 00  E8 03 00 00 00 00 00 00
        00
        """)
    /// v4 and v3 ACKs of §4.1: session 5, raw 4-byte BE hash 0x00050001.
    static let ackV4 = PT.bytes("40 07 02 05 00 00 00 04 00 00 00 00  00 05 00 01")
    static let ackV3 = PT.bytes("30 07 02 05 00 00 00 04 00 00 00 00  00 05 00 01")
    /// StartServiceNAK(RPC), session 0, {rejectedParams:["videoCodec"], reason:"H265 only"}.
    static let nakRPC = PT.bytes("""
        50 07 03 00 00 00 00 42 00 00 00 00
        42 00 00 00
        04 72 65 6A 65 63 74 65 64 50 61 72 61 6D 73 00  17 00 00 00 02 30 00 0B 00 00 00 76 69 64 65 6F 43 6F 64 65 63 00 00
        02 72 65 61 73 6F 6E 00  0A 00 00 00 48 32 36 35 20 6F 6E 6C 79 00
        00
        """)
    /// {rejectedParams:["protocolVersion"]}
    static let rejectedProtocolVersion = PT.bytes("""
        31 00 00 00  04 72 65 6A 65 63 74 65 64 50 61 72 61 6D 73 00
        1C 00 00 00 02 30 00 10 00 00 00 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 00  00
        """)
    /// {rejectedParams:["hashId"]}
    static let rejectedHashID = PT.bytes("""
        28 00 00 00  04 72 65 6A 65 63 74 65 64 50 61 72 61 6D 73 00
        13 00 00 00 02 30 00 07 00 00 00 68 61 73 68 49 64 00 00  00
        """)
}

@Suite("Protocol: session state machine")
struct ProtocolMachineTests {
    static func app(_ config: ProtocolConfiguration = ProtocolConfiguration()) -> AppProtocolMachine {
        AppProtocolMachine(configuration: config)
    }

    static func startedInfo(_ actions: [ProtocolAction]) -> SessionInfo? {
        for case .sessionStarted(let info) in actions { return info }
        return nil
    }

    // MARK: Starting, version negotiation

    @Test("the app's first StartService is a v1 header, session 0, BSON {protocolVersion:\"5.4.1\"} (A1)")
    func firstStartService() throws {
        var app = Self.app()
        let actions = try app.startSession(now: PT.t0)
        #expect(PT.hex(PT.sentBytes(actions)) == PT.hex(PTFrames.startService541))
        #expect(throws: ProtocolStateError.self) { try app.startSession(now: PT.t0) }
    }

    @Test("app configured with maximum 3 or 4 sends the empty v1 StartService of §4.1", arguments: [3, 4])
    func emptyStartServiceForOldMaximum(major: Int) throws {
        var app = Self.app(ProtocolConfiguration(maximumVersion: ProtocolVersion(major)))
        #expect(PT.sentBytes(try app.startSession(now: PT.t0)) == PTFrames.startServiceEmpty)
    }

    @Test("back to back: HU answers 5.4.0 (v5 ACK, message id 0, hashId int32, mtu int64) → app uses 5.4.0 and header version 5")
    func negotiate540() throws {
        var link = PTLink()
        let info = try #require(try link.start())
        #expect(info.version == ProtocolVersion(5, 4, 0))
        #expect(info.headerVersion == 5)
        #expect(info.sessionID == 1)
        #expect(info.hashID == 0x0001_0001)
        #expect(info.maximumSendPayload == 131_072 - 12, "send at most mtu − 12 (§2.2)")
        let ack = try #require(link.wire.first { !$0.fromApp })
        #expect(PT.hex(ack.frame.encoded) == PT.hex(PTFrames.ack540))
        #expect(link.huEvents.contains { if case .sessionStarted(let i) = $0 { return i.sessionID == 1 && i.version == ProtocolVersion(5, 4, 0) } else { return false } })
        #expect(link.wire.first?.frame.encoded == PTFrames.startService541)
    }

    @Test("hand-written v5 ACK with mtu 1000: version 5.0.0, hash kept, frames of mtu − 12 = 988 payload bytes")
    func ackWithMTU() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        let info = try #require(Self.startedInfo(app.receive(PTFrames.ack500mtu1000, now: PT.t0)))
        #expect(info.version == ProtocolVersion(5, 0, 0))
        #expect(info.sessionID == 7)
        #expect(info.hashID == 0x0007_0001)
        #expect(info.maximumSendPayload == 988)
        let frames = PT.sent(try app.send([UInt8](repeating: 0x55, count: 2000), service: .rpc, now: PT.t0))
        #expect(frames.map(\.payload.count) == [8, 988, 988, 24])
        #expect(frames.allSatisfy { $0.header.version == 5 && $0.header.sessionID == 7 && $0.header.messageID != 0 })
        #expect(frames.map(\.header.frameInfo) == [0, 1, 2, 0])
    }

    @Test("fragmentation after a back-to-back ACK with mtu 1500 uses 1488 bytes per frame, and the HU reassembles it")
    func fragmentationAtMTU1500() throws {
        var huConfig = ProtocolConfiguration.headUnit
        huConfig.maximumPayloadSize = 1500
        var link = PTLink(hu: huConfig)
        let info = try #require(try link.start())
        #expect(info.maximumSendPayload == 1488)
        link.clearLog()
        let data = (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        link.pump(fromApp: true, try link.app.send(data, service: .rpc, now: PT.t0), now: PT.t0)
        #expect(link.wire.map(\.frame.payload.count) == [8, 1488, 1488, 1024])
        #expect(link.wire.first?.frame.payload == PT.bytes("00 00 0F A0 00 00 00 03"))
        #expect(link.huEvents == [.message(sessionID: 1, serviceType: .rpc, payload: data, protected: false)])
    }

    @Test("negotiation down to protocol 4 and 3: hand-written v4/v3 ACK with a raw 4-byte BE hash", arguments: [(PTFrames.ackV4, 4), (PTFrames.ackV3, 3)])
    func negotiateDown(ack: [UInt8], major: Int) throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        let info = try #require(Self.startedInfo(app.receive(ack, now: PT.t0)))
        #expect(info.version.major == major)
        #expect(info.headerVersion == UInt8(major))
        #expect(info.hashID == 0x0005_0001)
        #expect(info.maximumSendPayload == 131_072, "no mtu: 131,072 for v3–v5 (§2.2)")
        let frame = try #require(PT.sent(try app.send(PT.bytes("01 02"), service: .rpc, now: PT.t0)).first)
        #expect(frame.header.version == UInt8(major))
        #expect(frame.header.sessionID == 5)
        // EndService(RPC) carries the raw BE hash for v2–4 (§4.4 item 2).
        let end = try #require(PT.sent(try app.endService(.rpc, now: PT.t0)).first)
        #expect(end.header.version == UInt8(major))
        #expect(end.header.frameInfo == ControlFrameInfo.endService.rawValue)
        #expect(end.payload == PT.bytes("00 05 00 01"))
    }

    @Test("app configured with maximum 3 or 4, back to back: HU answers v4 with a raw hash, app uses min(own, 4)", arguments: [3, 4])
    func oldAppBackToBack(major: Int) throws {
        var link = PTLink(app: ProtocolConfiguration(maximumVersion: ProtocolVersion(major)))
        let info = try #require(try link.start())
        #expect(info.version.major == major)
        let ack = try #require(link.wire.first { !$0.fromApp }?.frame)
        #expect(ack.header.version == 4, "core caps the ACK at 4 when the app showed no v5 support")
        #expect(ack.payload == PT.bytes("00 01 00 01"))
        // The head unit follows the app's lower version for what it sends afterwards.
        link.clearLog()
        link.pump(fromApp: true, try link.app.send(PT.bytes("AA"), service: .rpc, now: PT.t0), now: PT.t0)
        link.pump(fromApp: false, try link.hu.send(PT.bytes("BB"), service: .rpc, sessionID: 1, now: PT.t0), now: PT.t0)
        #expect(link.wire.map(\.frame.header.version) == [UInt8(major), UInt8(major)])
        #expect(link.appEvents == [.message(sessionID: 1, serviceType: .rpc, payload: [0xBB], protected: false)])
        // EndService with the raw hash ends the session on both sides.
        link.clearLog()
        link.pump(fromApp: true, try link.app.endService(.rpc, now: PT.t0), now: PT.t0)
        #expect(link.appEvents == [.sessionEnded(sessionID: 1)])
        #expect(link.huEvents == [.sessionEnded(sessionID: 1)])
    }

    @Test("a StartServiceNAK is reported with reason and rejectedParams")
    func nakReported() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        let actions = app.receive(PTFrames.nakRPC, now: PT.t0)
        #expect(actions == [.sessionStartFailed(reason: "H265 only", rejectedParams: ["videoCodec"])])
        #expect(app.activeSessions.isEmpty)
        // The app may try again.
        #expect(PT.sentBytes(try app.startSession(now: PT.t0)) == PTFrames.startService541)
    }

    @Test("an ACK below the configured minimum fails the start")
    func belowMinimum() throws {
        var app = Self.app(ProtocolConfiguration(minimumVersion: ProtocolVersion(4)))
        _ = try app.startSession(now: PT.t0)
        let actions = app.receive(PTFrames.ackV3, now: PT.t0)
        guard case .sessionStartFailed? = actions.first else {
            Issue.record("v3 accepted below a minimum of 4: \(actions)")
            return
        }
        #expect(app.activeSessions.isEmpty)
    }

    @Test("HU role NAKs a v5 BSON StartService without a valid protocolVersion, rejectedParams [\"protocolVersion\"] (core ParseFullVersion)",
          arguments: [
            "05 00 00 00 00",  // {}
            "11 00 00 00 10 68 61 73 68 49 64 00 01 00 01 00 00",  // {hashId: 0x00010001}
            "20 00 00 00 02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 06 00 00 00 34 2E 39 2E 39 00 00",  // "4.9.9"
            "1E 00 00 00 02 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 04 00 00 00 61 62 63 00 00",  // "abc"
            "1E 00 00 00 12 70 72 6F 74 6F 63 6F 6C 56 65 72 73 69 6F 6E 00 05 00 00 00 00 00 00 00 00",  // int64 5
          ])
    func huNAKsMissingProtocolVersion(bson: String) {
        var hu = HeadUnitProtocolMachine(configuration: .headUnit)
        let payload = PT.bytes(bson)
        var start = PT.bytes("10 07 01 00 00 00 00 00")
        start[7] = UInt8(payload.count)
        let actions = hu.receive(start + payload, now: PT.t0)
        let expected = PT.bytes("50 07 03 00 00 00 00 31 00 00 00 00") + PTFrames.rejectedProtocolVersion
        #expect(actions.count == 1)
        #expect(PT.hex(PT.sentBytes(actions)) == PT.hex(expected))
        #expect(hu.activeSessions.isEmpty)
    }

    @Test("HU role: a StartService payload that is not BSON is ignored; the session starts v1–4 style")
    func huIgnoresUnparsablePayload() throws {
        var hu = HeadUnitProtocolMachine(configuration: .headUnit)
        let actions = hu.receive(PT.bytes("10 07 01 00 00 00 00 04  DE AD BE EF"), now: PT.t0)
        guard case .startServiceRequested(let request)? = actions.first else {
            Issue.record("no request: \(actions)")
            return
        }
        #expect(request.offeredVersion == nil)
        let accepted = try hu.acceptStartService(request, now: PT.t0)
        #expect(PT.sentBytes(accepted) == PT.bytes("40 07 02 01 00 00 00 04 00 00 00 00  00 01 00 01"))
    }

    @Test("the app's NAK path: back-to-back HU rejecting with rejectedParams reaches the app")
    func rejectedBackToBack() throws {
        var link = PTLink()
        link.autoAccept = false
        link.pump(fromApp: true, try link.app.startSession(now: PT.t0), now: PT.t0)
        guard case .startServiceRequested(let request)? = link.huEvents.first else {
            Issue.record("no request")
            return
        }
        #expect(request.offeredVersion == ProtocolVersion(5, 4, 1))
        #expect(request.sessionID == 0)
        link.pump(fromApp: false, link.hu.rejectStartService(request, reason: "too many sessions", rejectedParams: []), now: PT.t0)
        #expect(link.appEvents == [.sessionStartFailed(reason: "too many sessions", rejectedParams: [])])
    }

    // MARK: Session id, message id, frame info

    @Test("session id 0 only on the first StartService; every later app frame carries the assigned id")
    func sessionIDAfterStart() throws {
        var link = PTLink()
        try link.start()
        link.pump(fromApp: true, try link.app.send(PT.bytes("01"), service: .rpc, now: PT.t0), now: PT.t0)
        link.pump(fromApp: true, try link.app.sendHeartbeat(now: PT.t0), now: PT.t0)
        link.pump(fromApp: true, try link.app.startService(.video, now: PT.t0), now: PT.t0)
        link.pump(fromApp: true, try link.app.send(PT.bytes("02"), service: .video, now: PT.t0), now: PT.t0)
        link.pump(fromApp: true, try link.app.endService(.rpc, now: PT.t0), now: PT.t0)
        let appFrames = link.wire.filter(\.fromApp).map(\.frame)
        #expect(appFrames.count == 6)
        #expect(appFrames.first?.header.sessionID == 0)
        #expect(appFrames.dropFirst().allSatisfy { $0.header.sessionID == 1 })
    }

    @Test("data frames never carry message id 0, also across the 32-bit wrap; Single/First frames carry frame info 0")
    func messageIDWrap() throws {
        var link = PTLink()
        try link.start()
        link.app.setNextMessageID(0xFFFF_FFFE)
        for _ in 0..<3 {
            link.pump(fromApp: true, try link.app.send(PT.bytes("01 02 03"), service: .rpc, now: PT.t0), now: PT.t0)
        }
        link.app.setNextMessageID(0xFFFF_FFFF)
        link.pump(fromApp: true, try link.app.send([UInt8](repeating: 9, count: 300_000), service: .rpc, now: PT.t0), now: PT.t0)
        link.pump(fromApp: true, try link.app.send(PT.bytes("04"), service: .rpc, now: PT.t0), now: PT.t0)
        let data = link.wire.filter { $0.fromApp && $0.frame.header.frameType != .control }.map(\.frame)
        #expect(data.map(\.header.messageID) == [0xFFFF_FFFE, 0xFFFF_FFFF, 1, 0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF, 1])
        #expect(data.filter { $0.header.frameType == .single || $0.header.frameType == .first }.allSatisfy { $0.header.frameInfo == 0 })
        #expect(link.huEvents.filter { if case .message = $0 { return true } else { return false } }.count == 5)
        #expect(!link.huEvents.contains { if case .violation = $0 { return true } else { return false } })
        // The head unit's counter skips 0 the same way.
        link.clearLog()
        link.hu.setNextMessageID(0xFFFF_FFFF, sessionID: 1)
        for _ in 0..<2 {
            link.pump(fromApp: false, try link.hu.send(PT.bytes("05"), service: .rpc, sessionID: 1, now: PT.t0), now: PT.t0)
        }
        #expect(link.wire.map(\.frame.header.messageID) == [0xFFFF_FFFF, 1])
    }

    @Test("the app's data message ids start at 1 and increase; one id per multi-frame message")
    func messageIDsIncrease() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        _ = app.receive(PTFrames.ack500mtu1000, now: PT.t0)
        let first = PT.sent(try app.send(PT.bytes("01"), service: .rpc, now: PT.t0))
        let multi = PT.sent(try app.send([UInt8](repeating: 1, count: 2000), service: .rpc, now: PT.t0))
        let third = PT.sent(try app.send(PT.bytes("02"), service: .rpc, now: PT.t0))
        #expect(first[0].header.messageID == 1)
        #expect(Set(multi.map(\.header.messageID)) == [2])
        #expect(third[0].header.messageID == 3)
    }

    @Test("sending before a session exists, or on a service not started, throws")
    func sendWithoutSession() throws {
        var app = Self.app()
        #expect(throws: ProtocolStateError.self) { try app.send([1], service: .rpc, now: PT.t0) }
        _ = try app.startSession(now: PT.t0)
        _ = app.receive(PTFrames.ackV4, now: PT.t0)
        #expect(throws: ProtocolStateError.self) { try app.send([1], service: .video, now: PT.t0) }
        #expect(throws: ProtocolStateError.self) { try app.startService(.hybrid, now: PT.t0) }
    }

    // MARK: Heartbeat

    @Test("a Heartbeat is always answered with a HeartbeatACK echoing session and message id (A2 → A3)")
    func heartbeatAnswered() throws {
        var link = PTLink()
        try link.start()
        let a2 = PT.bytes("50 00 00 01 00 00 00 00 00 00 00 07")
        let a3 = PT.bytes("50 00 FF 01 00 00 00 00 00 00 00 07")
        #expect(PT.sentBytes(link.app.receive(a2, now: PT.t0)) == a3)
        #expect(PT.sentBytes(link.hu.receive(a2, now: PT.t0)) == a3)
        // A v4 heartbeat with another id, and one before any session exists.
        #expect(PT.sentBytes(link.app.receive(PT.bytes("40 00 00 01 00 00 00 00 00 00 12 34"), now: PT.t0)) == PT.bytes("40 00 FF 01 00 00 00 00 00 00 12 34"))
        var fresh = Self.app()
        #expect(PT.sentBytes(fresh.receive(PT.bytes("50 00 00 09 00 00 00 00 00 00 00 63"), now: PT.t0)) == PT.bytes("50 00 FF 09 00 00 00 00 00 00 00 63"))
    }

    @Test("app heartbeat: none without an interval; with one, a Heartbeat after the interval and a timeout after 2× of silence")
    func appHeartbeat() throws {
        var quiet = Self.app()
        _ = try quiet.startSession(now: PT.at(0))
        _ = quiet.receive(PTFrames.ack540, now: PT.at(0))
        #expect(quiet.tick(now: PT.at(3600)).isEmpty)

        var app = Self.app(ProtocolConfiguration(heartbeatInterval: .seconds(5)))
        _ = try app.startSession(now: PT.at(0))
        _ = app.receive(PTFrames.ack540, now: PT.at(0))
        #expect(app.tick(now: PT.at(4.9)).isEmpty)
        let beat = PT.sent(app.tick(now: PT.at(5)))
        #expect(beat.count == 1)
        #expect(beat.first?.header == FrameHeader(version: 5, frameType: .control, serviceType: .control, frameInfo: 0x00, sessionID: 1, dataSize: 0, messageID: 1))
        #expect(app.tick(now: PT.at(9.9)).isEmpty, "no second heartbeat within the interval, no timeout before 2×")
        #expect(app.tick(now: PT.at(10)) == [.heartbeatTimedOut(sessionID: 1)])

        // Any frame received resets the silence.
        var busy = Self.app(ProtocolConfiguration(heartbeatInterval: .seconds(5)))
        _ = try busy.startSession(now: PT.at(0))
        _ = busy.receive(PTFrames.ack540, now: PT.at(0))
        _ = busy.tick(now: PT.at(5))
        _ = busy.receive(PT.bytes("50 00 FF 01 00 00 00 00 00 00 00 01"), now: PT.at(6))
        #expect(busy.tick(now: PT.at(10)).isEmpty)
        #expect(PT.sent(busy.tick(now: PT.at(11))).count == 1, "a new heartbeat after another interval of silence")
        #expect(busy.tick(now: PT.at(15.9)).isEmpty)
        #expect(busy.tick(now: PT.at(16)) == [.heartbeatTimedOut(sessionID: 1)])
    }

    @Test("back to back: the app's heartbeats keep the session alive while the HU answers them")
    func heartbeatBackToBack() throws {
        var link = PTLink(app: ProtocolConfiguration(heartbeatInterval: .seconds(5)))
        try link.start(now: PT.at(0))
        for second in stride(from: 1.0, through: 60, by: 1) {
            link.pump(fromApp: true, link.app.tick(now: PT.at(second)), now: PT.at(second))
            link.pump(fromApp: false, link.hu.tick(now: PT.at(second)), now: PT.at(second))
        }
        #expect(!link.appEvents.contains(.heartbeatTimedOut(sessionID: 1)))
        #expect(!link.huEvents.contains(.heartbeatTimedOut(sessionID: 1)))
        #expect(link.wire.contains { $0.fromApp && $0.frame.header.frameInfo == 0 && $0.frame.header.frameType == .control && $0.frame.header.serviceType == .control })
        #expect(link.app.activeSessions[1] != nil)
    }

    @Test("HU supervision starts only after the app sent a Heartbeat (core's opt-in), then Heartbeat after the timeout, close after another")
    func huSupervision() throws {
        var link = PTLink()
        try link.start(now: PT.at(0))
        #expect(link.hu.tick(now: PT.at(1000)).isEmpty, "no supervision before the app's first heartbeat")
        let answer = link.hu.receive(PT.bytes("50 00 00 01 00 00 00 00 00 00 00 02"), now: PT.at(1000))
        #expect(PT.sentBytes(answer) == PT.bytes("50 00 FF 01 00 00 00 00 00 00 00 02"))
        #expect(link.hu.tick(now: PT.at(1006.9)).isEmpty)
        let beat = PT.sent(link.hu.tick(now: PT.at(1007)))
        #expect(beat.map(\.header.frameInfo) == [0x00])
        #expect(beat.first?.header.serviceType == .control)
        #expect(beat.first?.header.sessionID == 1)
        #expect(link.hu.tick(now: PT.at(1013.9)).isEmpty)
        #expect(link.hu.tick(now: PT.at(1014)) == [.heartbeatTimedOut(sessionID: 1)])
        #expect(link.hu.activeSessions.isEmpty)
    }

    @Test("HU supervision: an answer to its Heartbeat keeps the session")
    func huSupervisionAnswered() throws {
        var link = PTLink()
        try link.start(now: PT.at(0))
        _ = link.hu.receive(PT.bytes("50 00 00 01 00 00 00 00 00 00 00 02"), now: PT.at(0))
        let beat = link.hu.tick(now: PT.at(7))
        #expect(PT.sent(beat).count == 1)
        _ = link.hu.receive(PT.bytes("50 00 FF 01 00 00 00 00 00 00 00 05"), now: PT.at(8))
        #expect(link.hu.tick(now: PT.at(14)).isEmpty)
        #expect(link.hu.activeSessions[1] != nil)
    }

    @Test("core's supervision is per session: the one that opted in and went quiet is closed, a quiet one that never sent a Heartbeat lives on, a v2 session is never supervised (protocol_handler_impl.cc)")
    func heartbeatPerSession() throws {
        var hu = HeadUnitProtocolMachine(configuration: .headUnit)
        func start(_ bytes: [UInt8]) throws -> UInt8 {
            guard case .startServiceRequested(let request)? = hu.receive(bytes, now: PT.at(0)).first else { throw ProtocolStateError("no request") }
            for case .sessionStarted(let info) in try hu.acceptStartService(request, now: PT.at(0)) { return info.sessionID }
            throw ProtocolStateError("not started")
        }
        let optedIn = try start(PTFrames.startService541)
        let quiet = try start(PTFrames.startService541)
        let old = try start(PTFrames.startServiceEmpty)
        // Heartbeats: session 1 on v5, session 3 on a v2 header (the old app settled on 2).
        _ = hu.receive(PT.bytes("50 00 00 01 00 00 00 00 00 00 00 02"), now: PT.at(0))
        _ = hu.receive(PT.bytes("20 00 00 03 00 00 00 00 00 00 00 02"), now: PT.at(0))
        #expect([optedIn, quiet, old] == [1, 2, 3])
        #expect(hu.activeSessions[old]?.version.major == 2)
        let beats = PT.sent(hu.tick(now: PT.at(7)))
        #expect(beats.map(\.header.sessionID) == [optedIn], "only the session that opted in, and not the v2 one")
        #expect(hu.tick(now: PT.at(14)) == [.heartbeatTimedOut(sessionID: optedIn)])
        #expect(hu.activeSessions.keys.sorted() == [quiet, old], "the other sessions on the link live on")
        #expect(hu.tick(now: PT.at(10_000)).isEmpty, "nobody else is ever dropped")
        #expect(hu.nextDeadline == nil)
    }

    // MARK: Ending

    @Test("EndService(RPC) with the right hashId → EndServiceACK and sessionEnded on both sides")
    func endServiceRightHash() throws {
        var link = PTLink()
        try link.start()
        link.clearLog()
        link.pump(fromApp: true, try link.app.endService(.rpc, now: PT.t0), now: PT.t0)
        let end = try #require(link.wire.first?.frame)
        #expect(end.header.frameInfo == 0x04)
        #expect(end.header.serviceType == .rpc)
        #expect(PT.hex(end.payload) == PT.hex(PT.bytes("11 00 00 00 10 68 61 73 68 49 64 00 01 00 01 00 00")))
        let ack = try #require(link.wire.last?.frame)
        #expect(ack.header.frameInfo == 0x05)
        #expect(ack.payload.isEmpty, "EndServiceACK has no payload")
        #expect(link.appEvents == [.sessionEnded(sessionID: 1)])
        #expect(link.huEvents == [.sessionEnded(sessionID: 1)])
        #expect(link.app.activeSessions.isEmpty)
        #expect(link.hu.activeSessions.isEmpty)
    }

    @Test("EndService(RPC) with a wrong hashId → EndServiceNAK {rejectedParams:[\"hashId\"]}; the session stays")
    func endServiceWrongHash() throws {
        var link = PTLink()
        try link.start()
        let wrong = PT.bytes("50 07 04 01 00 00 00 11 00 00 00 09  11 00 00 00 10 68 61 73 68 49 64 00 45 23 01 00 00")
        let actions = link.hu.receive(wrong, now: PT.t0)
        let nak = try #require(PT.sent(actions).first)
        #expect(nak.header.frameType == .control)
        #expect(nak.header.frameInfo == 0x06)
        #expect(nak.header.serviceType == .rpc)
        #expect(nak.header.sessionID == 1)
        #expect(PT.hex(nak.payload) == PT.hex(PTFrames.rejectedHashID))
        #expect(link.hu.activeSessions[1] != nil)
        // Delivered to the app it is reported as a failed end.
        #expect(link.app.receive(nak.encoded, now: PT.t0) == [.serviceEndFailed(sessionID: 1, serviceType: .rpc, rejectedParams: ["hashId"])])
        #expect(link.app.activeSessions[1] != nil)
        // An EndService without any hash is wrong too.
        let none = PT.sent(link.hu.receive(PT.bytes("50 07 04 01 00 00 00 00 00 00 00 0A"), now: PT.t0))
        #expect(none.first?.header.frameInfo == 0x06)
    }

    @Test("the head unit may end the session: the app ACKs and reports sessionEnded")
    func huEndsSession() throws {
        var link = PTLink()
        try link.start()
        link.clearLog()
        link.pump(fromApp: false, try link.hu.endService(.rpc, sessionID: 1, now: PT.t0), now: PT.t0)
        #expect(link.wire.map(\.frame.header.frameInfo) == [0x04, 0x05])
        #expect(link.appEvents == [.sessionEnded(sessionID: 1)])
        #expect(link.huEvents == [.sessionEnded(sessionID: 1)])
    }

    // MARK: Audio and video

    @Test("a second StartService of a running service is NAKed (one service of each type per session, PS §5)")
    func duplicateServiceNAKed() throws {
        var link = PTLink()
        try link.start()
        link.pump(fromApp: true, try link.app.startService(.video, now: PT.t0), now: PT.t0)
        #expect(link.hu.services(of: 1).contains(.video))
        // Hand-written: our app side refuses to send this itself.
        let again = PT.bytes("50 0B 01 01 00 00 00 00 00 00 00 0C")
        let requested = link.hu.receive(again, now: PT.t0)
        guard case .startServiceRequested(let request)? = requested.first else {
            Issue.record("no StartService request: \(requested)")
            return
        }
        let answer = try link.hu.acceptStartService(request, now: PT.t0)
        guard case .send(let bytes)? = answer.first else {
            Issue.record("no answer: \(answer)")
            return
        }
        let nak = try #require(PT.frames(bytes).first)
        #expect(nak.header.frameInfo == 0x03 && nak.header.serviceType == .video)
        // core's text (ConnectionHandlerImpl::OnSessionStartedCallback; AddNewService adds nothing),
        // trailing space included, as a real core 8.2 answers a second RPC service.
        #expect(ControlPayload(bytes: nak.payload)?.reason == "Cannot start an unprotected service of type 11. ")
        #expect(!answer.contains { if case .serviceStarted = $0 { true } else { false } })
    }

    @Test("a StartService for a session that does not exist is NAKed without a reason: no version was announced for it (seen on core 8.2)")
    func unknownSessionNAKed() throws {
        var hu = HeadUnitProtocolMachine(configuration: .headUnit)
        let request = StartServiceRequest(sessionID: 9, serviceType: .video, headerVersion: 5,
                                          offeredVersion: nil, payload: nil, isEncrypted: false)
        let answer = try hu.acceptStartService(request, now: PT.t0)
        let nak = try #require(PT.sent(answer).first)
        #expect(nak.header.frameInfo == 0x03 && nak.header.sessionID == 9)
        #expect(ControlPayload(bytes: nak.payload) == ControlPayload(), "an empty BSON document, as core 8.2 answers")
    }

    @Test("video StartService carries A7's BSON; the ACK has mtu int64 and the accepted values; EndService ends only video")
    func videoService() throws {
        var link = PTLink()
        try link.start()
        link.clearLog()
        let asked = ControlPayload(height: 480, width: 800, videoProtocol: "RAW", videoCodec: "H264")
        link.pump(fromApp: true, try link.app.startService(.video, payload: asked, now: PT.t0), now: PT.t0)
        let start = try #require(link.wire.first?.frame)
        let a7 = PT.bytes("""
            50 0B 01 01 00 00 00 48 00 00 00 0B
            48 00 00 00 10 68 65 69 67 68 74 00 E0 01 00 00 10 77 69 64 74 68 00 20 03 00 00
            02 76 69 64 65 6F 50 72 6F 74 6F 63 6F 6C 00 04 00 00 00 52 41 57 00
            02 76 69 64 65 6F 43 6F 64 65 63 00 05 00 00 00 48 32 36 34 00 00
            """)
        var expectedHeader = PT.frames(a7)[0].header
        expectedHeader.messageID = start.header.messageID
        #expect(start.header == expectedHeader)
        #expect(start.payload == Array(a7.dropFirst(12)))
        let ack = try #require(link.wire.last?.frame)
        #expect(ack.header.frameInfo == 0x02)
        #expect(ack.header.serviceType == .video)
        #expect(PT.hex(ack.payload) == PT.hex(PT.bytes("""
            55 00 00 00  12 6D 74 75 00 00 00 02 00 00 00 00 00
            10 68 65 69 67 68 74 00 E0 01 00 00  10 77 69 64 74 68 00 20 03 00 00
            02 76 69 64 65 6F 50 72 6F 74 6F 63 6F 6C 00 04 00 00 00 52 41 57 00
            02 76 69 64 65 6F 43 6F 64 65 63 00 05 00 00 00 48 32 36 34 00  00
            """)))
        var accepted = asked
        accepted.mtu = 131_072
        #expect(link.appEvents == [.serviceStarted(sessionID: 1, serviceType: .video, payload: accepted, protected: false)])
        #expect(link.app.services.contains(.video))

        link.clearLog()
        let frame = [UInt8](repeating: 0x67, count: 1000)
        link.pump(fromApp: true, try link.app.send(frame, service: .video, now: PT.t0), now: PT.t0)
        #expect(link.huEvents == [.message(sessionID: 1, serviceType: .video, payload: frame, protected: false)])

        link.clearLog()
        link.pump(fromApp: true, try link.app.endService(.video, now: PT.t0), now: PT.t0)
        #expect(link.wire.map(\.frame.header.frameInfo) == [0x04, 0x05])
        #expect(link.wire.allSatisfy { $0.frame.payload.isEmpty && $0.frame.header.serviceType == .video })
        #expect(link.appEvents == [.serviceEnded(sessionID: 1, serviceType: .video)])
        #expect(link.huEvents == [.serviceEnded(sessionID: 1, serviceType: .video)])
        #expect(link.app.services == [.rpc, .hybrid])
        #expect(link.app.activeSessions[1] != nil)
    }

    @Test("audio StartService has no payload; its ACK carries {mtu:int64}")
    func audioService() throws {
        var link = PTLink()
        try link.start()
        link.clearLog()
        link.pump(fromApp: true, try link.app.startService(.audio, now: PT.t0), now: PT.t0)
        #expect(link.wire.first?.frame.payload == [])
        #expect(link.wire.first?.frame.header.serviceType == .audio)
        #expect(PT.hex(link.wire.last?.frame.payload ?? []) == PT.hex(PT.bytes("12 00 00 00  12 6D 74 75 00 00 00 02 00 00 00 00 00  00")))
        #expect(link.appEvents == [.serviceStarted(sessionID: 1, serviceType: .audio, payload: ControlPayload(mtu: 131_072), protected: false)])
    }

    @Test("an audio/video ACK's mtu overrides the RPC one for that service only (§2.2, PS §4.2.3.2)")
    func perServiceMTU() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        _ = app.receive(PTFrames.ack540, now: PT.t0)
        _ = try app.startService(.video, now: PT.t0)
        // StartServiceACK(Video) {mtu:int64 1000}
        let videoACK = PT.bytes("50 0B 02 01 00 00 00 12 00 00 00 01  12 00 00 00 12 6D 74 75 00 E8 03 00 00 00 00 00 00 00")
        #expect(app.receive(videoACK, now: PT.t0) == [.serviceStarted(sessionID: 1, serviceType: .video, payload: ControlPayload(mtu: 1000), protected: false)])
        let video = PT.sent(try app.send([UInt8](repeating: 1, count: 2000), service: .video, now: PT.t0))
        #expect(video.map(\.payload.count) == [8, 988, 988, 24])
        let rpc = PT.sent(try app.send([UInt8](repeating: 1, count: 2000), service: .rpc, now: PT.t0))
        #expect(rpc.map(\.payload.count) == [2000], "RPC keeps the RPC ACK's limit")
    }

    @Test("a video StartServiceNAK is reported with its rejectedParams and reason")
    func videoNAK() throws {
        var link = PTLink()
        try link.start()
        link.autoAccept = false
        link.clearLog()
        link.pump(fromApp: true, try link.app.startService(.video, payload: ControlPayload(videoProtocol: "RAW", videoCodec: "H265"), now: PT.t0), now: PT.t0)
        guard case .startServiceRequested(let request)? = link.huEvents.first else {
            Issue.record("no request: \(link.huEvents)")
            return
        }
        #expect(request.serviceType == .video && request.sessionID == 1 && request.payload?.videoCodec == "H265")
        link.pump(fromApp: false, link.hu.rejectStartService(request, reason: "H265 only", rejectedParams: ["videoCodec"]), now: PT.t0)
        let nak = try #require(link.wire.last?.frame)
        #expect(nak.header.frameInfo == 0x03 && nak.header.serviceType == .video && nak.header.sessionID == 1 && nak.header.version == 5)
        #expect(PT.hex(nak.payload) == PT.hex(Array(PTFrames.nakRPC.dropFirst(12))))
        #expect(link.appEvents == [.serviceStartFailed(sessionID: 1, serviceType: .video, reason: "H265 only", rejectedParams: ["videoCodec"])])
        #expect(!link.app.services.contains(.video))
    }

    @Test("HU role: no `reason` in a NAK when the app announced a version below 5.3.0 (core, §4.3)")
    func nakWithoutReasonBelow53() throws {
        var link = PTLink(app: ProtocolConfiguration(maximumVersion: ProtocolVersion(5, 2, 0)))
        try link.start()
        link.autoAccept = false
        link.clearLog()
        link.pump(fromApp: true, try link.app.startService(.audio, now: PT.t0), now: PT.t0)
        guard case .startServiceRequested(let request)? = link.huEvents.first else {
            Issue.record("no request")
            return
        }
        link.pump(fromApp: false, link.hu.rejectStartService(request, reason: "no audio", rejectedParams: []), now: PT.t0)
        #expect(link.wire.last?.frame.payload == PT.bytes("05 00 00 00 00"))
    }

    @Test("hand-written StartServiceNAK(Audio) without payload is reported")
    func audioNAKWithoutPayload() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        _ = app.receive(PTFrames.ack540, now: PT.t0)
        _ = try app.startService(.audio, now: PT.t0)
        let actions = app.receive(PT.bytes("50 0A 03 01 00 00 00 00 00 00 00 04"), now: PT.t0)
        guard case .serviceStartFailed(1, .audio, _, let params)? = actions.first else {
            Issue.record("not reported: \(actions)")
            return
        }
        #expect(params.isEmpty)
    }

    // MARK: Secondary transport

    @Test("TransportEventUpdate is delivered to the app, an empty address meaning TCP gone")
    func transportEventUpdate() throws {
        var link = PTLink()
        try link.start()
        link.clearLog()
        link.pump(fromApp: false, try link.hu.sendTransportEventUpdate(sessionID: 1, address: "192.168.1.10", port: 12345, now: PT.t0), now: PT.t0)
        let frame = try #require(link.wire.first?.frame)
        #expect(frame.header.serviceType == .control && frame.header.frameInfo == 0xFD)
        #expect(PT.hex(frame.payload) == PT.hex(PT.bytes("""
            31 00 00 00  02 74 63 70 49 70 41 64 64 72 65 73 73 00 0D 00 00 00 31 39 32 2E 31 36 38 2E 31 2E 31 30 00
            10 74 63 70 50 6F 72 74 00 39 30 00 00  00
            """)))
        #expect(link.appEvents == [.transportEventUpdate(address: "192.168.1.10", port: 12345)])
        link.clearLog()
        link.pump(fromApp: false, try link.hu.sendTransportEventUpdate(sessionID: 1, address: "", port: 12345, now: PT.t0), now: PT.t0)
        #expect(PT.hex(link.wire.first?.frame.payload ?? []) == PT.hex(PT.bytes("18 00 00 00  02 74 63 70 49 70 41 64 64 72 65 73 73 00 01 00 00 00 00  00")))
        #expect(link.appEvents == [.transportEventUpdate(address: "", port: nil)])
        // Hand-written, before the StartServiceACK (§10 #17): still delivered.
        var fresh = Self.app()
        _ = try fresh.startSession(now: PT.t0)
        let early = PT.bytes("50 00 FD 01 00 00 00 18 00 00 00 01  18 00 00 00 02 74 63 70 49 70 41 64 64 72 65 73 73 00 01 00 00 00 00 00")
        #expect(fresh.receive(early, now: PT.t0) == [.transportEventUpdate(address: "", port: nil)])
    }

    @Test("RegisterSecondaryTransport (A4) → ACK with message id 2 (core), reported on both sides")
    func registerSecondaryACK() throws {
        var primary = PTLink()
        let info = try #require(try primary.start())
        var secondary = PTLink()
        let register = secondary.app.registerSecondaryTransport(for: info, now: PT.t0)
        #expect(PT.sentBytes(register) == PT.bytes("50 00 07 01 00 00 00 00 00 00 00 01"))
        secondary.pump(fromApp: true, register, now: PT.t0)
        #expect(secondary.huEvents == [.secondaryTransportRequested(sessionID: 1)])
        secondary.pump(fromApp: false, secondary.hu.answerSecondaryTransport(sessionID: 1, version: 5, joining: info, now: PT.t0), now: PT.t0)
        #expect(secondary.wire.last?.frame.encoded == PT.bytes("50 00 08 01 00 00 00 00 00 00 00 02"))
        #expect(secondary.appEvents == [.secondaryTransportRegistered(sessionID: 1)])
        // The registered link belongs to the session: video starts there, RPC is not on it.
        #expect(secondary.hu.services(of: 1).isEmpty)
        secondary.pump(fromApp: true, try secondary.app.startService(.video, now: PT.t0), now: PT.t0)
        let request = try #require(secondary.huEvents.compactMap { event -> StartServiceRequest? in
            if case .startServiceRequested(let request) = event { return request } else { return nil }
        }.first)
        secondary.pump(fromApp: false, try secondary.hu.acceptStartService(request, now: PT.t0), now: PT.t0)
        #expect(secondary.appEvents.contains { if case .serviceStarted(1, .video, _, _) = $0 { return true } else { return false } })
        #expect(secondary.hu.services(of: 1) == [.video])
    }

    @Test("RegisterSecondaryTransportNAK {reason} is reported with the reason")
    func registerSecondaryNAK() throws {
        var primary = PTLink()
        let info = try #require(try primary.start())
        var app = Self.app()
        _ = app.registerSecondaryTransport(for: info, now: PT.t0)
        let nak = PT.bytes("50 00 09 01 00 00 00 13 00 00 00 02  13 00 00 00 02 72 65 61 73 6F 6E 00 02 00 00 00 78 00 00")
        #expect(app.receive(nak, now: PT.t0) == [.secondaryTransportRejected(sessionID: 1, reason: "x")])
        // And from the head-unit role.
        var hu = HeadUnitProtocolMachine(configuration: .headUnit)
        #expect(PT.sentBytes(hu.answerSecondaryTransport(sessionID: 1, version: 5, joining: nil, reason: "x", now: PT.t0)) == nak)
    }

    // MARK: Reception

    @Test("a multi-frame message from the head unit is reassembled by the app; frames of an unknown session are dropped")
    func receiveMultiFrame() throws {
        var link = PTLink()
        try link.start()
        link.clearLog()
        let data = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        link.pump(fromApp: false, try link.hu.send(data, service: .hybrid, sessionID: 1, now: PT.t0), now: PT.t0)
        #expect(link.wire.count == 4)
        #expect(link.appEvents == [.message(sessionID: 1, serviceType: .hybrid, payload: data, protected: false)])
        let stray = link.app.receive(PT.bytes("51 07 00 09 00 00 00 01 00 00 00 01 AA"), now: PT.t0)
        guard case .violation(.unknownSession(9, service: .rpc))? = stray.first else {
            Issue.record("frame for unknown session 9 not dropped: \(stray)")
            return
        }
    }

    @Test("malformed bytes between frames are reported once and do not stop the session")
    func malformedInSession() throws {
        var link = PTLink()
        try link.start()
        let actions = link.app.receive(PT.bytes("FF EE DD") + PT.bytes("50 00 00 01 00 00 00 00 00 00 00 07"), now: PT.t0)
        #expect(actions.count == 2)
        if case .violation(.malformedFrame(.version(15)))? = actions.first {} else { Issue.record("no malformed action: \(actions)") }
        #expect(PT.sentBytes(actions) == PT.bytes("50 00 FF 01 00 00 00 00 00 00 00 07"))
    }

    @Test("v2 ACK: 1488 payload bytes per frame (§2.1/§2.2)")
    func v2Limit() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        let info = try #require(Self.startedInfo(app.receive(PT.bytes("20 07 02 05 00 00 00 04 00 00 00 00  00 05 00 01"), now: PT.t0)))
        #expect(info.version.major == 2)
        #expect(info.maximumSendPayload == 1488)
        #expect(PT.sent(try app.send([UInt8](repeating: 0, count: 1489), service: .rpc, now: PT.t0)).map(\.payload.count) == [8, 1488, 1])
    }

    @Test("after a v3/v4 ACK without mtu the app accepts core's 131,072-byte frames, whatever it sends itself (§2.2, §10 #3)")
    func receiveLimitWithoutMTU() throws {
        var app = Self.app(ProtocolConfiguration(maximumPayloadSize: 1488))
        _ = try app.startSession(now: PT.t0)
        _ = app.receive(PTFrames.ackV4, now: PT.t0)
        let big = PT.bytes("41 07 00 05 00 02 00 00 00 00 00 01") + [UInt8](repeating: 0x42, count: 131_072)
        let actions = app.receive(big, now: PT.t0)
        #expect(actions == [.message(sessionID: 5, serviceType: .rpc, payload: [UInt8](repeating: 0x42, count: 131_072), protected: false)])
    }

    @Test("protection: the second StartService(RPC) with E=1 uses a v2+ header and the session id (§2.4)")
    func encryptedRPCStart() throws {
        var link = PTLink()
        try link.start()
        let frame = try #require(PT.sent(try link.app.startService(.rpc, encrypted: true, now: PT.t0)).first)
        #expect(frame.encoded.prefix(4) == [0x58, 0x07, 0x01, 0x01])
    }

    @Test("a head unit without a security manager reads E=1 as core built without security does: RPC again is NAKed as unprotected, video starts unprotected")
    func protectionWithoutSecurity() throws {
        var link = PTLink()
        try link.start()
        link.pump(fromApp: true, try link.app.startService(.rpc, encrypted: true, now: PT.t0), now: PT.t0)
        let refusal = link.appEvents.compactMap { event -> String? in
            if case .serviceStartFailed(_, .rpc, let reason, _) = event { return reason }
            return nil
        }
        #expect(refusal == ["Cannot start an unprotected service of type 7. "])
        link.pump(fromApp: true, try link.app.startService(.video, encrypted: true, now: PT.t0), now: PT.t0)
        let ack = try #require(link.wire.last?.frame)
        #expect(ack.header.frameInfo == 0x02 && ack.header.serviceType == .video && !ack.header.isEncrypted)
    }

    @Test("reset (transport lost) forgets sessions and partial input; a new session can start (§10 #19)")
    func resetOnTransportLoss() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        _ = app.receive(PTFrames.ack540, now: PT.t0)
        _ = app.receive(PTFrames.ack540.prefix(7), now: PT.t0)
        app.reset()
        #expect(app.activeSessions.isEmpty)
        #expect(PT.sentBytes(try app.startSession(now: PT.t0)) == PTFrames.startService541)
        #expect(Self.startedInfo(app.receive(PTFrames.ack540, now: PT.t0))?.sessionID == 1)
    }

    @Test("core's deprecated Service Data ACK (0xFE, 4-byte count) and a HeartbeatACK cause nothing (§1.3)")
    func ignoredControlFrames() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.t0)
        _ = app.receive(PTFrames.ackV4, now: PT.t0)
        #expect(app.receive(PT.bytes("40 0B FE 05 00 00 00 04 00 00 00 03  00 00 00 05"), now: PT.t0).isEmpty)
        #expect(app.receive(PT.bytes("40 00 FF 05 00 00 00 00 00 00 00 04"), now: PT.t0).isEmpty)
    }

    @Test("§4.1: the head unit's NAK to an empty v1 StartService has session 0 and no payload; the app reports it")
    func v1StyleNAK() throws {
        var link = PTLink(app: ProtocolConfiguration(maximumVersion: ProtocolVersion(4)))
        link.autoAccept = false
        link.pump(fromApp: true, try link.app.startSession(now: PT.t0), now: PT.t0)
        guard case .startServiceRequested(let request)? = link.huEvents.first else {
            Issue.record("no request")
            return
        }
        link.pump(fromApp: false, link.hu.rejectStartService(request, reason: "no", rejectedParams: []), now: PT.t0)
        let nak = try #require(link.wire.last?.frame)
        #expect(nak.header.frameInfo == 0x03 && nak.header.sessionID == 0 && nak.payload.isEmpty)
        guard case .sessionStartFailed(_, let params)? = link.appEvents.first else {
            Issue.record("not reported: \(link.appEvents)")
            return
        }
        #expect(params.isEmpty)
    }

    @Test("a partial message expires on tick after the reassembly timeout")
    func reassemblyExpiryOnTick() throws {
        var app = Self.app()
        _ = try app.startSession(now: PT.at(0))
        _ = app.receive(PTFrames.ack540, now: PT.at(0))
        _ = app.receive(PT.bytes("52 07 00 01 00 00 00 08 00 00 00 05  00 00 00 20 00 00 00 02"), now: PT.at(1))
        #expect(app.tick(now: PT.at(10.9)).isEmpty)
        guard case .violation(.expired(messageID: 5, service: .rpc))? = app.tick(now: PT.at(11)).first else {
            Issue.record("not expired")
            return
        }
    }

    @Test("each role reports a control message only the other role receives as a typed violation, and answers nothing")
    func wrongRoleControl() throws {
        var link = PTLink()
        try link.start()
        // A StartService to the app (0x01) and a RegisterSecondaryTransportACK to the head unit (0x08).
        let toApp = link.app.receive(PT.bytes("50 07 01 01 00 00 00 00 00 00 00 09"), now: PT.t0)
        #expect(toApp == [.violation(.unexpected(.startService, sessionID: 1, service: .rpc))])
        let toHU = link.hu.receive(PT.bytes("50 00 08 01 00 00 00 00 00 00 00 02"), now: PT.t0)
        #expect(toHU == [.violation(.unexpected(.registerSecondaryTransportACK, sessionID: 1, service: .control))])
        #expect(link.app.activeSessions[1] != nil && link.hu.activeSessions[1] != nil, "both sessions live on")
    }
}

@Suite("Protocol: what sdl_core 8.2 really sends")
struct CoreQuirkTests {
    /// core 8.2's UnregisterAppInterface response, captured on loopback after a navigation
    /// app's streams ended: a v5 single frame with message ID 0 (its session counter is gone).
    static let unregisterResponseWithMessageIDZero = PT.bytes("""
        51 07 00 01 00 00 00 3d 00 00 00 00
        10 00 00 02 00 00 00 04 00 00 00 31
        """) + Array("{\n\t\"resultCode\" : \"SUCCESS\",\n\t\"success\" : true\n}\n".utf8)

    @Test("the app reads core's message-ID-0 response as the message it is, and the head unit's side still refuses such frames")
    func messageIDZeroFromCore() throws {
        var app = AppProtocolMachine(configuration: ProtocolConfiguration())
        _ = try app.startSession(now: PT.t0)
        _ = app.receive(PTFrames.ack540, now: PT.t0)
        let actions = app.receive(Self.unregisterResponseWithMessageIDZero, now: PT.t0)
        #expect(!actions.contains { if case .violation = $0 { true } else { false } }, "\(actions)")
        #expect(!actions.contains { if case .send = $0 { true } else { false } }, "no answer to bytes misread as a heartbeat")
        let message = try #require(actions.compactMap { action -> [UInt8]? in
            if case .message(_, .rpc, let payload, _) = action { return payload } else { return nil }
        }.first)
        #expect(message.count == 0x3d)

        var strict = FrameDecoder()
        strict.append(Self.unregisterResponseWithMessageIDZero)
        #expect(strict.next() == .malformed(.messageIDZero), "core's own rule, kept on the head unit's side")
        // Whatever else reads a head unit's bytes (traces, the relay, replays) reads it as a frame.
        var reader = FrameDecoder(fromHeadUnit: true)
        reader.append(Self.unregisterResponseWithMessageIDZero)
        guard case .frame(let frame)? = reader.next() else {
            Issue.record("core's response was not read as a frame")
            return
        }
        #expect(frame.header.messageID == 0 && frame.payload.count == 0x3d)
    }
}
