/// A security query: how the TLS handshake and its errors travel between app and head
/// unit, as the payload of a Single frame on the Control service (protocol spec §5.1.1.2;
/// sdl_core's security_query.h). A 12-byte header, then JSON, then binary data:
///
/// | Bytes | Field |
/// |---|---|
/// | 0 | type: 0x00 request, 0x10 response, 0x20 notification |
/// | 1–3 | query ID (24 bit): 0x000001 handshake data, 0x000002 internal error |
/// | 4–7 | sequence number (big endian) |
/// | 8–11 | JSON size (big endian) |
public struct SecurityQuery: Sendable, Hashable {
    /// What the query is: a request, its response, or a notification (byte 0).
    public enum Kind: UInt8, Sendable {
        /// A request (sdl_core sends its handshake bytes so).
        case request = 0x00
        /// The answer to a request (the app answers the handshake so).
        case response = 0x10
        /// A notification (internal errors; cores before 8.0 sent handshake requests so).
        case notification = 0x20
    }

    /// What the query carries (bytes 1–3).
    public enum Query: UInt32, Sendable {
        /// TLS handshake bytes.
        case handshakeData = 0x000001
        /// A security manager's error: JSON `{"id", "text"}` and the code.
        case internalError = 0x000002
    }

    /// Request, response or notification.
    public var kind: Kind
    /// Handshake data or an internal error.
    public var query: Query
    /// Pairs a response with its request; sdl_core counts its requests from 1.
    public var sequenceNumber: UInt32
    /// The JSON part (an internal error's id and text), empty for handshake data.
    public var json: [UInt8]
    /// The binary part: the TLS handshake bytes, or an internal error's code.
    public var binary: [UInt8]

    /// A query of these parts.
    public init(kind: Kind, query: Query, sequenceNumber: UInt32, json: [UInt8] = [], binary: [UInt8] = []) {
        self.kind = kind
        self.query = query
        self.sequenceNumber = sequenceNumber
        self.json = json
        self.binary = binary
    }

    /// Handshake bytes for the peer.
    public static func handshake(_ bytes: [UInt8], kind: Kind, sequenceNumber: UInt32) -> SecurityQuery {
        SecurityQuery(kind: kind, query: .handshakeData, sequenceNumber: sequenceNumber, binary: bytes)
    }

    /// An internal error as sdl_core sends it: JSON `{"id": code, "text": …}` and the code
    /// again as the one binary byte.
    public static func internalError(_ error: SecurityErrorCode, text: String, sequenceNumber: UInt32) -> SecurityQuery {
        let json = JSONValue.object(["id": .int(Int64(error.rawValue)), "text": .string(text)]).serializedBytes()
        return SecurityQuery(kind: .notification, query: .internalError, sequenceNumber: sequenceNumber, json: json, binary: [error.rawValue])
    }

    /// The query as it travels: the 12-byte header, the JSON, the binary data.
    public var encoded: [UInt8] {
        let id = query.rawValue, size = UInt32(json.count)
        return [kind.rawValue, UInt8(id >> 16 & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF)]
            + Self.bigEndian(sequenceNumber) + Self.bigEndian(size) + json + binary
    }

    /// Reads a query; a short, unknown or inconsistent one is an error that says which.
    public init(decoding bytes: [UInt8]) throws(SecurityError) {
        guard bytes.count >= 12 else { throw SecurityError("a security query of \(bytes.count) bytes is shorter than its 12-byte header") }
        // Cores before 8.0 sent handshake requests as notifications (protocol spec §5.1.1.3.1).
        guard let kind = Kind(rawValue: bytes[0]) else {
            throw SecurityError("a security query of unknown type 0x\(String(bytes[0], radix: 16))")
        }
        let id = UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        guard let query = Query(rawValue: id) else { throw SecurityError("a security query with unknown ID 0x\(String(id, radix: 16))") }
        let sequence = Self.readBigEndian(bytes, at: 4), size = Int(Self.readBigEndian(bytes, at: 8))
        guard size <= bytes.count - 12 else {
            throw SecurityError("a security query says its JSON is \(size) bytes but carries \(bytes.count - 12)")
        }
        self.init(kind: kind, query: query, sequenceNumber: sequence, json: Array(bytes[12..<(12 + size)]), binary: Array(bytes[(12 + size)...]))
    }

    /// An internal error's code and text, when this is one.
    public var error: (code: SecurityErrorCode?, text: String)? {
        guard query == .internalError else { return nil }
        let object = (try? JSONValue.parse(json))?.objectValue ?? [:]
        let code = (object["id"]?.intValue).flatMap { UInt8(exactly: $0) } ?? binary.last
        return (code.flatMap(SecurityErrorCode.init(rawValue:)), object["text"]?.stringValue ?? "")
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func readBigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// sdl_core's security error codes (security_manager.h), with what each means for an app.
public enum SecurityErrorCode: UInt8, Sendable, CaseIterable {
    /// No error.
    case success = 0x00
    /// The query is too short, or its handshake data empty.
    case invalidQuerySize = 0x01
    /// The query id is not one sdl_core knows.
    case invalidQueryID = 0x02
    /// This side cannot protect services (no security manager, or no certificate).
    case notSupported = 0x03
    /// The service is protected already.
    case serviceAlreadyProtected = 0x04
    /// Protected data came for a service that is not protected.
    case serviceNotProtected = 0x05
    /// A protected frame could not be decrypted.
    case decryptionFailed = 0x06
    /// A frame could not be encrypted.
    case encryptionFailed = 0x07
    /// The TLS handshake failed on data it could not use (sdl_core gives up on it).
    case sslInvalidData = 0x08
    /// The TLS handshake failed.
    case handshakeFailed = 0x09
    /// The certificate is not signed by a trusted CA, not yet valid, or for another app.
    case invalidCertificate = 0x0A
    /// The certificate has expired.
    case expiredCertificate = 0x0B
    /// The security manager failed in itself.
    case internalError = 0xFF
    /// The security manager failed for a reason it does not say.
    case unknownInternalError = 0xFE

    /// What the app's user should do about it.
    public var advice: String {
        switch self {
        case .invalidCertificate: "the head unit does not trust the app's certificate: use one signed by the CA the head unit trusts"
        case .expiredCertificate: "the app's certificate has expired: renew it (or check the clocks of both ends)"
        case .notSupported: "the head unit was built without security (sdl_core's -DENABLE_SECURITY=OFF)"
        case .handshakeFailed, .sslInvalidData: "the TLS handshake failed: check that both ends allow the same protocol (TLS 1.2 or DTLS) and ciphers"
        case .serviceAlreadyProtected: "the service is protected already"
        case .serviceNotProtected: "protected data arrived for a service that was started unprotected"
        case .decryptionFailed, .encryptionFailed: "a protected frame could not be read or written: the TLS session is out of step"
        default: "the head unit's security manager failed"
        }
    }
}
