import CSDLTLS
public import Foundation

/// Why a protected service could not be set up or a protected frame not be read, in one line
/// that says what to do.
public struct SecurityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line to show.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// A certificate and its private key, PEM-encoded (the certificate may be followed by its chain).
public struct TLSIdentity: Sendable, Hashable {
    /// The certificate (PEM), the chain to its CA possibly after it.
    public var certificatePEM: String
    /// Its private key (PEM).
    public var privateKeyPEM: String

    /// An identity from PEM texts (checked when a session is made).
    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// Reads both from files; a missing or unreadable file is an error naming it.
    public init(certificateFile: String, privateKeyFile: String) throws(SecurityError) {
        self.init(certificatePEM: try Self.read(certificateFile, "certificate"), privateKeyPEM: try Self.read(privateKeyFile, "private key"))
    }

    package static func read(_ path: String, _ what: String) throws(SecurityError) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw SecurityError("cannot read the \(what) file \(path): check the path and its permissions")
        }
        return text
    }
}

/// One end of a TLS (or DTLS) session whose bytes travel in SDL frames: the handshake's
/// flights go out in security queries, and each protected frame is one record.
///
/// The app is the TLS server (sdl_core's SSLMode CLIENT is the default), so an app needs a
/// certificate and key; the head unit may verify them against its CA (core's VerifyPeer).
/// Calls are serialised by a lock: a session is used by one service's reader and writer.
public final class TLSSession: @unchecked Sendable {
    /// The app is the server, the head unit the client (sdl_core's SSLMode CLIENT).
    public enum Role: Sendable {
        /// Answers the handshake: the app.
        case server
        /// Starts the handshake: the head unit.
        case client
    }

    /// What a handshake step produced.
    public struct Step: Sendable, Equatable {
        /// Bytes for the peer (a flight, or an alert when it failed); empty when none.
        public var outgoing: [UInt8]
        /// The handshake finished: records can be protected now.
        public var finished: Bool
    }

    private let lock = NSLock()
    private let tls: OpaquePointer

    /// A session of this side's role, before its handshake.
    /// - Parameters:
    ///   - role: the app is the server, the head unit the client.
    ///   - identity: this side's certificate and key (a client may have none).
    ///   - caPEM: the CA certificates (PEM) the peer's certificate must chain to; nil
    ///     trusts any (core's VerifyPeer false).
    ///   - datagram: DTLS (1.0 or 1.2) instead of TLS 1.2.
    public init(role: Role, identity: TLSIdentity?, trusting caPEM: String? = nil, datagram: Bool = false) throws(SecurityError) {
        var error = [CChar](repeating: 0, count: 256)
        let made: OpaquePointer?
        if let identity {
            made = identity.certificatePEM.withCString { cert in
                identity.privateKeyPEM.withCString { key in Self.make(role, datagram, cert, key, caPEM, &error) }
            }
        } else {
            made = Self.make(role, datagram, nil, nil, caPEM, &error)
        }
        guard let made else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SecurityError("TLS could not be set up: \(reason) (the certificate and key must be PEM files that belong together)")
        }
        tls = made
    }

    private static func make(_ role: Role, _ datagram: Bool, _ cert: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?,
                             _ ca: String?, _ error: inout [CChar]) -> OpaquePointer? {
        let count = error.count
        return error.withUnsafeMutableBufferPointer { buffer in
            if let ca {
                return ca.withCString { sdl_tls_new(role == .server ? 1 : 0, datagram ? 1 : 0, cert, key, $0, buffer.baseAddress, count) }
            }
            return sdl_tls_new(role == .server ? 1 : 0, datagram ? 1 : 0, cert, key, nil, buffer.baseAddress, count)
        }
    }

    deinit { sdl_tls_free(tls) }

    /// Feeds the peer's handshake bytes (none to start, as the client) and returns what to send.
    public func handshake(_ incoming: [UInt8] = []) throws(SecurityError) -> Step {
        var failure: SecurityError?
        let step = locked { () -> Step in
            var out: UnsafeMutablePointer<UInt8>?
            var size = 0
            let result = incoming.withUnsafeBufferPointer { sdl_tls_handshake(tls, $0.baseAddress, $0.count, &out, &size) }
            let outgoing = Self.take(out, size)
            if result == SDL_TLS_ERROR { failure = SecurityError("the TLS handshake failed: \(String(cString: sdl_tls_error(tls)))") }
            return Step(outgoing: outgoing, finished: result == SDL_TLS_OK)
        }
        if let failure { throw failure }
        return step
    }

    /// One record carrying `plaintext` (at most ``maximumPlaintext`` bytes).
    public func protect(_ plaintext: [UInt8]) throws(SecurityError) -> [UInt8] {
        try transform(plaintext, sdl_tls_encrypt, "a frame could not be protected")
    }

    /// The plaintext of the records in `record`.
    public func unprotect(_ record: [UInt8]) throws(SecurityError) -> [UInt8] {
        try transform(record, sdl_tls_decrypt, "a protected frame could not be read")
    }

    /// The most plaintext one frame may carry: a TLS record's 16 KiB less its header, MAC
    /// and padding, as sdl_ios and sdl_java_suite count it.
    public static let maximumPlaintext = 16384 - 5 - 32 - 256

    /// What was wrong with the peer's certificate, after a failed handshake, in sdl_core's
    /// categories; nil when nothing was (the failure was elsewhere) or nothing was verified.
    public var certificateProblem: CertificateProblem? {
        CertificateProblem(rawValue: locked { sdl_tls_certificate_problem(tls) })
    }

    /// sdl_core's reasons for refusing a certificate (the NAK says "Invalid certificate: …").
    public enum CertificateProblem: Int32, Sendable {
        /// Past its end date; not yet valid; not signed by a trusted CA; another verification failure.
        case expired = 1, notYetValid, notSigned, other

        /// sdl_core's words for it (handshake_handler.cc).
        public var coreReason: String {
            switch self {
            case .expired: "Certificate already expired"
            case .notYetValid: "Certificate is not yet valid"
            case .notSigned: "Certificate is not signed"
            case .other: "Error occurred during handshake"
            }
        }
    }

    /// The negotiated protocol ("TLSv1.2", "DTLSv1.2"); empty before the handshake ends.
    public var version: String { locked { String(cString: sdl_tls_version(tls)) } }

    /// The peer certificate's subject serialNumber, where sdl_core expects the app's id.
    public var peerSerialNumber: String? {
        let text = locked { String(cString: sdl_tls_peer_serial_number(tls)) }
        return text.isEmpty ? nil : text
    }

    /// The peer certificate's validity, if it sent one.
    public var peerValidity: ClosedRange<Date>? {
        var notBefore: Int64 = 0, notAfter: Int64 = 0
        guard locked({ sdl_tls_peer_validity(tls, &notBefore, &notAfter) }) == 1, notBefore <= notAfter else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(notBefore))...Date(timeIntervalSince1970: TimeInterval(notAfter))
    }

    /// The peer certificate's common name, if it sent one.
    public var peerName: String? {
        let name = locked { String(cString: sdl_tls_peer_name(tls)) }
        return name.isEmpty ? nil : name
    }

    private typealias Transform = (OpaquePointer?, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                   UnsafeMutablePointer<Int>?) -> Int32

    private func transform(_ input: [UInt8], _ call: Transform, _ what: String) throws(SecurityError) -> [UInt8] {
        var failure: SecurityError?
        let output = locked { () -> [UInt8] in
            var out: UnsafeMutablePointer<UInt8>?
            var size = 0
            let result = input.withUnsafeBufferPointer { call(tls, $0.baseAddress, $0.count, &out, &size) }
            let bytes = Self.take(out, size)
            if result != SDL_TLS_OK { failure = SecurityError("\(what): \(String(cString: sdl_tls_error(tls)))") }
            return bytes
        }
        if let failure { throw failure }
        return output
    }

    private static func take(_ pointer: UnsafeMutablePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let pointer else { return [] }
        defer { free(pointer) }
        return Array(UnsafeBufferPointer(start: pointer, count: size))
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
