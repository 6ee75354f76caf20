public import SmartDeviceLink

/// The head unit's security manager, as sdl_core built with ENABLE_SECURITY sets it up from
/// its `[Security Manager]` settings and policy table:
///
/// ```json
/// "security": {"certificate": "hu.pem", "key": "hu.key", "ca": "ca.pem", "protocol": "DTLS",
///              "forceProtected": ["video"], "encryptionRequired": ["Show", "GetVehicleData"]}
/// ```
///
/// - `ca`: verify the app's certificate by it (core's VerifyPeer with CACertificatePath);
///   left out, any certificate is taken (VerifyPeer false).
/// - `protocol`: `DTLS` (core 8.2's default, DTLSv1.0) or `TLS` (TLSv1.2).
/// - `forceProtected`: services that may not start unprotected when the handshake fails
///   (ForceProtectedService): `rpc`, `audio`, `video`.
/// - `encryptionRequired`: RPCs in a functional group with `encryption_required` (SDL
///   evolution proposal 0207): OnPermissionsChange says so, an unencrypted request gets
///   ENCRYPTION_NEEDED, and such notifications go only to a protected RPC service.
///
/// Paths are read as given (relative to the working folder).
public struct EmulatorSecurity: Sendable {
    /// The certificate, key, CA, protocol and forced services of the head unit's side.
    public var protocolSecurity: SecurityConfiguration
    /// RPCs whose functional group requires encryption.
    public var encryptionRequired: Set<String>

    /// A security manager; no RPC requires encryption unless listed.
    public init(protocolSecurity: SecurityConfiguration, encryptionRequired: Set<String> = []) {
        self.protocolSecurity = protocolSecurity
        self.encryptionRequired = encryptionRequired
    }

    static let keys = ["certificate", "key", "ca", "protocol", "forceProtected", "encryptionRequired"]
    static let services: [String: ServiceType] = ["rpc": .rpc, "audio": .audio, "video": .video]

    static func read(_ value: JSONValue, reader: ConfigReader) throws(EmulatorConfigurationError) -> EmulatorSecurity {
        let object = try reader.object(value, path: "$.security")
        try reader.checkKeys(object, allowed: keys, path: "$.security")
        func path(_ key: String) throws(EmulatorConfigurationError) -> String? {
            try object[key].map { v throws(EmulatorConfigurationError) in try reader.string(v, path: "$.security.\(key)") }
        }
        var identity: TLSIdentity?
        switch (try path("certificate"), try path("key")) {
        case (let certificate?, let key?):
            do { identity = try TLSIdentity(certificateFile: certificate, privateKeyFile: key) } catch {
                throw EmulatorConfigurationError(path: "$.security", reason: error.description)
            }
        case (nil, nil):
            break
        default:
            throw EmulatorConfigurationError(path: "$.security", reason: "certificate and key go together")
        }
        var trusted: String?
        if let ca = try path("ca") {
            do { trusted = try TLSIdentity.read(ca, "CA certificate") } catch {
                throw EmulatorConfigurationError(path: "$.security.ca", reason: error.description)
            }
        }
        var flavour = SecurityConfiguration.Flavour.dtls
        if let text = try path("protocol") {
            switch text.uppercased() {
            case "DTLS", "DTLSV1.0", "DTLSV1.2": flavour = .dtls
            case "TLS", "TLSV1.2": flavour = .tls
            default: throw EmulatorConfigurationError(path: "$.security.protocol", reason: "\"\(text)\" is not DTLS or TLS")
            }
        }
        var forced: Set<ServiceType> = []
        if let list = object["forceProtected"] {
            for (i, name) in try reader.strings(list, path: "$.security.forceProtected").enumerated() {
                guard let service = services[name] else {
                    throw reader.unknown(name, allowed: services.keys.sorted(), path: "$.security.forceProtected[\(i)]")
                }
                forced.insert(service)
            }
        }
        var required: Set<String> = []
        if let list = object["encryptionRequired"] {
            let functions = RPCSpec.shared.functionNames(.request) + RPCSpec.shared.functionNames(.notification)
            for (i, name) in try reader.strings(list, path: "$.security.encryptionRequired").enumerated() {
                guard functions.contains(name) else { throw reader.unknown(name, allowed: functions, path: "$.security.encryptionRequired[\(i)]") }
                required.insert(name)
            }
        }
        return EmulatorSecurity(protocolSecurity: SecurityConfiguration(identity: identity, trustedCertificates: trusted, flavour: flavour,
                                                                         forceProtected: forced),
                                encryptionRequired: required)
    }
}
