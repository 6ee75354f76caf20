public import Foundation

/// What protects one SDL session: the TLS (or DTLS) endpoint the protocol hands the
/// handshake's bytes and each protected frame to. ``TLSSession`` is the library's, over the
/// system's OpenSSL; an OEM's own security library stands in through
/// ``SecurityConfiguration/makeSession``, as sdl_ios takes an `SDLSecurityType` and
/// sdl_java_suite an `SdlSecurityBase`.
public protocol SecuritySession: AnyObject, Sendable {
    /// Feeds the peer's handshake bytes (none to start, as the client) and returns what to send.
    func handshake(_ incoming: [UInt8]) throws(SecurityError) -> TLSSession.Step
    /// One record carrying `plaintext` (at most ``TLSSession/maximumPlaintext`` bytes).
    func protect(_ plaintext: [UInt8]) throws(SecurityError) -> [UInt8]
    /// The plaintext of the records in `record`.
    func unprotect(_ record: [UInt8]) throws(SecurityError) -> [UInt8]
    /// The negotiated protocol ("DTLSv1.2"), once the handshake ended.
    var version: String { get }
    /// Head unit: what was wrong with the app's certificate after a failed handshake.
    var certificateProblem: TLSSession.CertificateProblem? { get }
    /// Head unit: the app certificate's subject serialNumber, where sdl_core expects the app id.
    var peerSerialNumber: String? { get }
    /// Head unit: the app certificate's validity.
    var peerValidity: ClosedRange<Date>? { get }
}

extension TLSSession: SecuritySession {}

extension SecuritySession {
    /// The client's first flight.
    func handshake() throws(SecurityError) -> TLSSession.Step { try handshake([]) }
}
