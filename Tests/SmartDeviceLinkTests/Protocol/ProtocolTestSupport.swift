// Helpers shared by the protocol tests. Everything lives in `PT` so it cannot collide with
// helpers other engineers add to the same test target.
import Testing
@testable import SmartDeviceLink

enum PT {
    /// Bytes from hand-written hex: spaces, newlines and `|` are ignored ("50 07 | 00 01").
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = hex.filter { $0.isHexDigit }
        precondition(digits.count % 2 == 0, "odd number of hex digits in \(hex)")
        var out: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            out.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    /// Lower-case hex without separators, for messages and the python bridge.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        for b in bytes {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 0x0F)])
        }
        return s
    }

    /// A fixed origin; tests move time by adding durations to it.
    static let t0 = ContinuousClock.now

    static func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    /// Every frame in a byte stream; fails the test on a malformed run.
    static func frames(_ bytes: [UInt8], maximumPayloadSize: Int = 131_072) -> [Frame] {
        var decoder = FrameDecoder(maximumPayloadSize: maximumPayloadSize)
        var frames: [Frame] = []
        for event in decoder.decode(bytes) {
            switch event {
            case .frame(let f): frames.append(f)
            case .malformed(let problem): Issue.record("unexpected malformed run: \(problem)")
            case .loaned: Issue.record("a frame was loaned without a lender")
            }
        }
        #expect(decoder.bufferedByteCount == 0, "bytes left over after the last frame")
        return frames
    }

    /// The bytes of every `.send` action, each send decoded into frames.
    static func sent(_ actions: [ProtocolAction]) -> [Frame] {
        actions.flatMap { action -> [Frame] in
            if case .send(let bytes) = action { return frames(bytes) }
            return []
        }
    }

    /// The raw bytes of every `.send` action, concatenated.
    static func sentBytes(_ actions: [ProtocolAction]) -> [UInt8] {
        actions.flatMap { action -> [UInt8] in
            if case .send(let bytes) = action { return bytes }
            return []
        }
    }

    /// The actions other than `.send`.
    static func events(_ actions: [ProtocolAction]) -> [ProtocolAction] {
        actions.filter { if case .send = $0 { return false } else { return true } }
    }
}

/// An app and a head unit wired back to back: whatever one side sends is fed to the other
/// until both are quiet. Non-send actions are collected per side.
struct PTLink {
    var app: AppProtocolMachine
    var hu: HeadUnitProtocolMachine
    /// Everything each side emitted except `.send`, in order.
    var appEvents: [ProtocolAction] = []
    var huEvents: [ProtocolAction] = []
    /// Every frame that went over the wire, with its direction.
    var wire: [(fromApp: Bool, frame: Frame)] = []
    /// Head unit: accept every StartService it is asked about (otherwise the test decides).
    var autoAccept = true

    init(app: ProtocolConfiguration = ProtocolConfiguration(), hu: ProtocolConfiguration = .headUnit) {
        self.app = AppProtocolMachine(configuration: app)
        self.hu = HeadUnitProtocolMachine(configuration: hu)
    }

    /// Delivers actions produced by one side, and everything that follows, until quiet.
    mutating func pump(fromApp: Bool, _ actions: [ProtocolAction], now: ContinuousClock.Instant) {
        var queue: [(fromApp: Bool, actions: [ProtocolAction])] = [(fromApp, actions)]
        while !queue.isEmpty {
            let (appSent, batch) = queue.removeFirst()
            for action in batch {
                switch action {
                case .send(let bytes):
                    for frame in PT.frames(bytes) { wire.append((appSent, frame)) }
                    if appSent {
                        queue.append((false, hu.receive(bytes, now: now)))
                    } else {
                        queue.append((true, app.receive(bytes, now: now)))
                    }
                case .startServiceRequested(let request) where !appSent && autoAccept:
                    huEvents.append(action)
                    do {
                        queue.append((false, try hu.acceptStartService(request, now: now)))
                    } catch {
                        Issue.record("head unit could not accept: \(error)")
                    }
                default:
                    if appSent { appEvents.append(action) } else { huEvents.append(action) }
                }
            }
        }
    }

    /// Starts the RPC session and returns the app's SessionInfo.
    @discardableResult
    mutating func start(now: ContinuousClock.Instant = PT.t0) throws -> SessionInfo? {
        pump(fromApp: true, try app.startSession(now: now), now: now)
        for case .sessionStarted(let info) in appEvents { return info }
        return nil
    }

    mutating func clearLog() {
        appEvents = []
        huEvents = []
        wire = []
    }
}
