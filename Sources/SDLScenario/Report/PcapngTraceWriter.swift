public import SmartDeviceLink
import Foundation

/// Where `--trace` writes: JSON lines (``FrameTraceWriter``) or pcapng (``PcapngTraceWriter``).
public protocol TraceWriter: AnyObject, Sendable {
    /// A frame of `scenario` (scenarios of a `--parallel` run write at the same time), of its
    /// app `app` in a scenario with several.
    func record(_ event: FrameTraceEvent, scenario: String, app: String?)
    /// A driver action performed between the frames.
    func record(driver action: DriverAction, scenario: String)
    /// Writes what is buffered and closes the file.
    func close()
}

/// The `--trace` files of a run: each gets every frame, in the format its name says
/// (`.pcapng`: packet capture; anything else: JSON lines).
public final class TraceFiles: TraceWriter {
    private let writers: [any TraceWriter]
    /// One frame at a time through every file, so that the files agree on the order of frames
    /// that two links (several apps' connections) record at once.
    private let order = NSLock()

    /// The trace files at `paths`, each in the format its name says.
    /// - Parameters:
    ///   - paths: the files, each replaced.
    ///   - fullBytes: JSON-lines traces also keep every frame's bytes (`--trace-bytes`).
    public init(paths: [String], fullBytes: Bool = false) throws {
        writers = try paths.map { path -> any TraceWriter in
            path.hasSuffix(".pcapng") ? try PcapngTraceWriter(path: path) : try FrameTraceWriter(path: path, fullBytes: fullBytes)
        }
    }

    public func record(_ event: FrameTraceEvent, scenario: String, app: String?) {
        order.withLock { writers.forEach { $0.record(event, scenario: scenario, app: app) } }
    }
    public func record(driver action: DriverAction, scenario: String) {
        order.withLock { writers.forEach { $0.record(driver: action, scenario: scenario) } }
    }
    /// Closes every file.
    public func close() { writers.forEach { $0.close() } }
}

/// `--trace FILE.pcapng`: every frame of every link as Wireshark and tshark read it, with
/// absolute timestamps.
///
/// Each link is written as a TCP/IPv4 conversation, the app at 10.0.0.2 and the head unit at
/// 10.0.0.1 port 12345, the port sdl_core's SDL dissector decodes (or "Decode As" any
/// dissector for it): the primary link of a scenario from app port 40001, its secondary
/// from the next port, each scenario (and each app of a scenario with several) its own pair.
/// A frame is one TCP segment (frames over 60,000 bytes several), sequence numbers run per
/// direction, so reassembly works.
/// Written by hand: the format is a few fixed blocks (pcapng, IETF draft
/// draft-ietf-opsawg-pcapng); libpcap adds nothing we need.
public final class PcapngTraceWriter: TraceWriter, @unchecked Sendable {
    // `lock` serializes the writes and the stream table.
    private let lock = NSLock()
    private let handle: FileHandle
    /// The wall-clock time of `start`, for absolute timestamps.
    private let wallStart = Date()
    private let start = ContinuousClock.now
    private var streams: [String: Stream] = [:]
    private var nextPort: UInt16 = 40001

    /// One TCP conversation: the app's port and the next sequence number of each side.
    private struct Stream {
        var appPort: UInt16
        var appSequence: UInt32 = 1
        var headUnitSequence: UInt32 = 1
    }

    static let appAddress: [UInt8] = [10, 0, 0, 2]
    static let headUnitAddress: [UInt8] = [10, 0, 0, 1]
    static let headUnitPort: UInt16 = 12345
    static let segmentLimit = 60_000

    /// A capture at `path` (replaced).
    public init(path: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        self.handle = handle
        handle.write(Data(Self.sectionHeader() + Self.interfaceDescription()))
    }

    public func record(_ event: FrameTraceEvent, scenario: String, app: String?) {
        let bytes = event.frame.encoded
        let microseconds = UInt64(max(0, (wallStart.timeIntervalSince1970 + (event.time - start).seconds) * 1_000_000))
        lock.lock()
        defer { lock.unlock() }
        let key = "\(scenario)\u{0}\(app ?? "")\u{0}\(event.link.rawValue)"
        var stream = streams[key] ?? Stream(appPort: nextPort)
        if streams[key] == nil { nextPort &+= 1 }
        var offset = 0
        repeat {
            let segment = Array(bytes[offset..<min(bytes.count, offset + Self.segmentLimit)])
            let fromApp = event.direction == .sent
            let packet = Self.tcpPacket(segment, fromApp: fromApp, appPort: stream.appPort,
                                        sequence: fromApp ? stream.appSequence : stream.headUnitSequence,
                                        acknowledgement: fromApp ? stream.headUnitSequence : stream.appSequence)
            if fromApp { stream.appSequence &+= UInt32(segment.count) } else { stream.headUnitSequence &+= UInt32(segment.count) }
            handle.write(Data(Self.enhancedPacket(packet, microseconds: microseconds)))
            offset += segment.count
        } while offset < bytes.count
        streams[key] = stream
    }

    /// Driver actions are in the JSON-lines trace; a packet capture has frames only.
    public func record(driver action: DriverAction, scenario: String) {}

    /// Writes what is buffered and closes the file.
    public func close() {
        lock.lock(); defer { lock.unlock() }
        try? handle.close()
    }

    // MARK: - Blocks

    private static func block(type: UInt32, body: [UInt8]) -> [UInt8] {
        var padded = body
        while padded.count % 4 != 0 { padded.append(0) }
        let length = UInt32(12 + padded.count)
        return le(type) + le(length) + padded + le(length)
    }

    /// Section Header Block: byte-order magic, version 1.0, section length unknown.
    static func sectionHeader() -> [UInt8] {
        block(type: 0x0A0D_0D0A, body: le(UInt32(0x1A2B_3C4D)) + le(UInt16(1)) + le(UInt16(0)) + [UInt8](repeating: 0xFF, count: 8)
            + option(4, Array("sdl-run".utf8)) + option(0, []))
    }

    /// Interface Description Block: LINKTYPE_RAW (101), raw IPv4 packets, microsecond stamps.
    static func interfaceDescription() -> [UInt8] {
        block(type: 1, body: le(UInt16(101)) + le(UInt16(0)) + le(UInt32(0)) + option(2, Array("sdl-run".utf8)) + option(0, []))
    }

    /// Enhanced Packet Block on interface 0.
    static func enhancedPacket(_ packet: [UInt8], microseconds: UInt64) -> [UInt8] {
        block(type: 6, body: le(UInt32(0)) + le(UInt32(microseconds >> 32)) + le(UInt32(microseconds & 0xFFFF_FFFF))
            + le(UInt32(packet.count)) + le(UInt32(packet.count)) + packet)
    }

    private static func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        var bytes = le(code) + le(UInt16(value.count)) + value
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    // MARK: - IPv4 and TCP

    static func tcpPacket(_ payload: [UInt8], fromApp: Bool, appPort: UInt16, sequence: UInt32, acknowledgement: UInt32) -> [UInt8] {
        let (source, destination) = fromApp ? (appAddress, headUnitAddress) : (headUnitAddress, appAddress)
        let (sourcePort, destinationPort) = fromApp ? (appPort, headUnitPort) : (headUnitPort, appPort)
        var tcp = be(sourcePort) + be(destinationPort) + be(sequence) + be(acknowledgement)
            + [0x50, 0x18] + be(UInt16(65535)) + [0, 0, 0, 0]  // header 20 bytes, PSH+ACK, window, checksum, urgent
        let pseudo = source + destination + [0, 6] + be(UInt16(tcp.count + payload.count))
        let tcpChecksum = checksum(pseudo + tcp + payload)
        tcp[16] = UInt8(tcpChecksum >> 8)
        tcp[17] = UInt8(tcpChecksum & 0xFF)
        var ip: [UInt8] = [0x45, 0] + be(UInt16(20 + tcp.count + payload.count)) + [0, 0, 0x40, 0, 64, 6, 0, 0] + source + destination
        let ipChecksum = checksum(ip)
        ip[10] = UInt8(ipChecksum >> 8)
        ip[11] = UInt8(ipChecksum & 0xFF)
        return ip + tcp + payload
    }

    /// The Internet checksum (RFC 1071).
    static func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var index = 0
        while index + 1 < bytes.count {
            sum &+= UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
            index += 2
        }
        if index < bytes.count { sum &+= UInt32(bytes[index]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }

    private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    private static func be<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
}
