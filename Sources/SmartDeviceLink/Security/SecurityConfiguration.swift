import CSDLTLS
import Foundation

/// How one side protects services: TLS (or DTLS) run inside the SDL protocol, each
/// protected frame one record. The head unit is the TLS client and the
/// app the server (sdl_core's default SSLMode CLIENT), so an app needs a certificate and key;
/// sdl_core verifies it against its CA when its VerifyPeer is on (the default).
public struct SecurityConfiguration: Sendable {
    /// Which flavour of TLS both ends speak; they must agree (sdl_core's `Protocol` setting).
    public enum Flavour: String, Sendable, CaseIterable {
        /// DTLS 1.0 or 1.2: sdl_core 8.2's default (`Protocol = DTLSv1.0`).
        case dtls
        /// TLS 1.2 (`Protocol = TLSv1.2`).
        case tls
    }

    /// This side's certificate and key. Required for the app; a head unit may have one.
    public var identity: TLSIdentity?
    /// CA certificates (PEM) the peer's certificate must chain to; nil accepts any (sdl_core's
    /// VerifyPeer false).
    public var trustedCertificates: String?
    /// DTLS or TLS.
    public var flavour: Flavour
    /// Head unit: services that may not start unprotected when their handshake fails
    /// (sdl_core's ForceProtectedService). Others start unprotected instead, as core does.
    public var forceProtected: Set<ServiceType>
    /// App: the vehicle makes this security serves (sdl_ios's `availableMakes`), nil for any.
    /// A head unit of another make (its StartServiceACK's `make`) gets no protected start.
    public var vehicleMakes: Set<String>?
    /// Makes the session that protects one SDL session; nil for a ``TLSSession`` of this
    /// configuration over the system's OpenSSL. An OEM's security library goes here.
    public var makeSession: (@Sendable (TLSSession.Role, SecurityConfiguration) throws(SecurityError) -> any SecuritySession)?

    /// A configuration; `identity` is required on the app's side.
    public init(identity: TLSIdentity?, trustedCertificates: String? = nil, flavour: Flavour = .dtls,
                forceProtected: Set<ServiceType> = []) {
        self.identity = identity
        self.trustedCertificates = trustedCertificates
        self.flavour = flavour
        self.forceProtected = forceProtected
    }

    /// Whether it can be the app's side of a handshake: a certificate, or an OEM's library.
    var canServe: Bool { identity != nil || makeSession != nil }

    /// The session that protects one SDL session.
    func makeSession(role: TLSSession.Role) throws(SecurityError) -> any SecuritySession {
        if let makeSession { return try makeSession(role, self) }
        return try TLSSession(role: role, identity: identity, trusting: trustedCertificates, datagram: flavour == .dtls)
    }
}

/// Why protection failed in a session: what the peer's security manager said in a security
/// query (its error code and text), or what this side's TLS found.
public struct SecurityFailure: Sendable, Hashable, CustomStringConvertible {
    /// sdl_core's error code, when the peer sent one.
    public var code: SecurityErrorCode?
    /// What was said (sdl_core's words, or OpenSSL's).
    public var text: String
    /// Whether the peer reported it (an internal error query) rather than this side's TLS.
    public var fromPeer: Bool

    /// A failure of these parts.
    public init(code: SecurityErrorCode?, text: String, fromPeer: Bool) {
        self.code = code
        self.text = text
        self.fromPeer = fromPeer
    }

    /// The failure in one line; the head unit's with the advice for its code.
    public var description: String {
        let said = text.isEmpty ? (code.map { "error \($0.rawValue)" } ?? "an error") : text
        guard fromPeer else { return said }
        return "the head unit's security manager: \(said)" + (code.map { " (\($0.advice))" } ?? "")
    }
}

extension TLSIdentity {
    /// A new P-256 key and a certificate for `commonName`, made in memory: signed by `issuer`,
    /// or, with none, a CA of its own. Valid from two days ago for `validFor` (or, with
    /// `expired`, until four days ago): for tests, examples and a bench's first try, never a
    /// production identity.
    ///
    /// `appID` goes into the subject's serialNumber, where sdl_core looks for the app's policy
    /// app id (it refuses a certificate of another app).
    public static func make(commonName: String, appID: String? = nil, issuer: TLSIdentity? = nil, validFor: Duration = .seconds(86_400),
                            expired: Bool = false) throws(SecurityError) -> TLSIdentity {
        var certificate: UnsafeMutablePointer<CChar>?, key: UnsafeMutablePointer<CChar>?
        var error = [CChar](repeating: 0, count: 256)
        // Two days back: sdl_core 8.2 takes its HMI's time an hour early, so a certificate made
        // just now is "not yet valid" to it.
        let from = expired ? -5 * 86_400 : -2 * 86_400, until = expired ? -4 * 86_400 : Int(validFor.components.seconds)
        let status = error.withUnsafeMutableBufferPointer { buffer in
            sdl_tls_make_certificate(commonName, appID, issuer?.certificatePEM, issuer?.privateKeyPEM, from, until,
                                     &certificate, &key, buffer.baseAddress, buffer.count)
        }
        defer { free(certificate); free(key) }
        guard status == 0, let certificate, let key else {
            throw SecurityError("a certificate for \(commonName) could not be made: "
                                + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return TLSIdentity(certificatePEM: String(cString: certificate), privateKeyPEM: String(cString: key))
    }
}
