import Foundation
@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// The emulator as a head unit with a security manager (sdl_core built with
/// ENABLE_SECURITY): RPC encryption from its policy, and its configuration's words.
@Suite("Emulator security: RPC encryption from the policy, protected services, configuration")
struct SecurityTests {
    /// A CA the head unit trusts, and an app certificate it signed (made in memory).
    static func identities() throws -> (ca: TLSIdentity, app: TLSIdentity) {
        let ca = try TLSIdentity.make(commonName: "Bench CA")
        return (ca, try TLSIdentity.make(commonName: "Secure App", appID: "secure-1", issuer: ca))
    }

    static func headUnit(trusting ca: TLSIdentity?, encrypted: Set<String>) -> HeadUnitEmulator {
        HeadUnitEmulator(configuration: fastConfiguration {
            $0.security = EmulatorSecurity(protocolSecurity: SecurityConfiguration(identity: nil, trustedCertificates: ca?.certificatePEM),
                                           encryptionRequired: encrypted)
        })
    }

    /// An app whose connection has `identity` and does not protect by itself.
    static func app(_ headUnit: HeadUnitEmulator, identity: TLSIdentity?) async throws -> TestApp {
        var configuration = SDLConnection.Configuration()
        configuration.protocolConfiguration.security = identity.map { SecurityConfiguration(identity: $0) }
        configuration.protectsWhenRequired = false
        let app = try await TestApp.connect(over: await headUnit.connectInMemory(), configuration: configuration)
        try await app.register(appID: "secure-1")
        try await headUnit.activateApp("secure-1")
        _ = try await app.next("OnHMIStatus")
        return app
    }

    @Test("the policy's encryption_required RPCs: marked in OnPermissionsChange; unencrypted they get ENCRYPTION_NEEDED, and the library refuses to send them")
    func encryptionNeeded() async throws {
        let headUnit = Self.headUnit(trusting: nil, encrypted: ["Show", "PutFile"])
        let app = try await TestApp.connect(headUnit)
        let response = try await app.request("RegisterAppInterface", TestApp.registration(name: "Test App", appID: "secure-1"))
        #expect(response.success == true)
        _ = try await app.next("OnHMIStatus")
        let permissions = try await app.next("OnPermissionsChange")
        let items = permissions["permissionItem"]?.arrayValue ?? []
        #expect(items.first { $0["rpcName"] == "Show" }?["requireEncryption"] == true)
        #expect(items.first { $0["rpcName"] == "Alert" }?["requireEncryption"] == nil, "only the groups that require it are marked")
        #expect(permissions["requireEncryption"] == nil, "the app's own flag is left out, as core does when the policy has none")
        try await headUnit.activateApp("secure-1")
        _ = try await app.next("OnHMIStatus")

        // Sent past the library's check (post does not look): the head unit's answer.
        try await app.connection.post(functionID: Show.functionID, parameters: ["mainField1": "plain"])
        let answer = try await app.next("ShowResponse")
        #expect(answer.resultCode == "ENCRYPTION_NEEDED" && answer.success == false)
        // PutFile is one of core's exceptions while RPC is not protected.
        #expect(try await app.request("PutFile", ["syncFileName": "a.txt", "fileType": "BINARY"], bulkData: [1, 2, 3]).resultCode == "SUCCESS")
        // Through the library: refused before it leaves, with what to do.
        do {
            _ = try await app.request("Show", ["mainField1": "plain"])
            Issue.record("an unencrypted Show was sent")
        } catch {
            #expect("\(error)".contains("Show must be encrypted") && "\(error)".contains("certificate and key"), "\(error)")
        }
        await app.connection.stop()
    }

    @Test("protected RPC: the Show goes encrypted and its answer comes encrypted; a notification the policy wants encrypted waits for protection")
    func protectedRPC() async throws {
        let (ca, identity) = try Self.identities()
        let headUnit = Self.headUnit(trusting: ca, encrypted: ["Show", "OnDriverDistraction"])
        let events = await headUnit.events()
        let app = try await Self.app(headUnit, identity: identity)
        // Before protection core drops a notification its policy wants encrypted.
        await headUnit.setDriverDistraction(true)
        try await app.sync()
        #expect(await app.inbox.take("OnDriverDistraction").isEmpty)

        try await app.connection.startProtectedRPC()
        #expect(await app.connection.isProtected(.rpc))
        let show = try await app.request("Show", ["mainField1": "secret"])
        #expect(show.resultCode == "SUCCESS")
        await headUnit.setDriverDistraction(false)
        #expect(try await app.next("OnDriverDistraction")["state"] == "DD_OFF")
        await app.connection.stop()
        var protected: [String] = []
        for await event in events {
            if case .serviceProtected(_, _, let service) = event { protected.append(service) }
            if case .appUnregistered = event { break }
        }
        #expect(protected == ["rpc"])
    }

    @Test("an app the CA did not sign: its session ended, as core ends it, and the refusal says why")
    func untrustedApp() async throws {
        let (ca, _) = try Self.identities()
        let stranger = try TLSIdentity.make(commonName: "Stranger", appID: "secure-1")
        let headUnit = Self.headUnit(trusting: ca, encrypted: [])
        let app = try await Self.app(headUnit, identity: stranger)
        do {
            try await app.connection.startProtectedRPC()
            Issue.record("an untrusted app was protected")
        } catch {
            #expect(error.description == "RPC could not be protected: the head unit ended the session: Certificate is not signed: "
                    + SecurityErrorCode.invalidCertificate.advice, "\(error)")
        }
        #expect(await !app.connection.isProtected(.rpc))
        await app.connection.stop()
    }

    @Test("what sdl_core checks after its handshake, with or without a CA: the app's id in the certificate, and its dates",
          arguments: [("another-app", false, "the head unit ended the session: App ID does not match certificate: the certificate's subject serialNumber"),
                      ("secure-1", true, "the head unit ended the session: Certificate is expired: the app's certificate has expired")])
    func certificateContext(appID: String, expired: Bool, reason: String) async throws {
        let identity = try TLSIdentity.make(commonName: "App", appID: appID, expired: expired)
        let headUnit = Self.headUnit(trusting: nil, encrypted: [])
        let app = try await Self.app(headUnit, identity: identity)
        do {
            try await app.connection.startProtectedRPC()
            Issue.record("the head unit took the certificate")
        } catch {
            #expect("\(error)".hasPrefix("RPC could not be protected: \(reason)"), "\(error)")
        }
        await app.connection.stop()
    }

    @Test("no common protocol (the head unit speaks TLS, the app DTLS): the app's own TLS error, and what to change")
    func noCommonProtocol() async throws {
        let (ca, identity) = try Self.identities()
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration {
            $0.security = EmulatorSecurity(protocolSecurity: SecurityConfiguration(identity: nil, trustedCertificates: ca.certificatePEM, flavour: .tls))
        })
        let app = try await Self.app(headUnit, identity: identity)
        do {
            try await app.connection.startProtectedRPC()
            Issue.record("protected over mismatched protocols")
        } catch {
            #expect("\(error)".hasPrefix("RPC could not be protected: the head unit ended the session; this app's TLS: ")
                    && "\(error)".contains("--tls-protocol"), "\(error)")
        }
        await app.connection.stop()
    }

    /// An OEM's security library, as the seam takes it: here a TLSSession that counts what it is handed.
    final class CountingSession: SecuritySession, @unchecked Sendable {
        let inner: TLSSession
        let lock = NSLock()
        private(set) var records = 0
        init(_ inner: TLSSession) { self.inner = inner }
        func handshake(_ incoming: [UInt8]) throws(SecurityError) -> TLSSession.Step { try inner.handshake(incoming) }
        func protect(_ plaintext: [UInt8]) throws(SecurityError) -> [UInt8] {
            lock.withLock { records += 1 }
            return try inner.protect(plaintext)
        }
        func unprotect(_ record: [UInt8]) throws(SecurityError) -> [UInt8] {
            lock.withLock { records += 1 }
            return try inner.unprotect(record)
        }
        var version: String { inner.version }
        var certificateProblem: TLSSession.CertificateProblem? { inner.certificateProblem }
        var peerSerialNumber: String? { inner.peerSerialNumber }
        var peerValidity: ClosedRange<Date>? { inner.peerValidity }
    }

    @Test("an OEM's security library in place of OpenSSL's: SecurityConfiguration.makeSession protects the session")
    func ownSecurityLibrary() async throws {
        let (ca, identity) = try Self.identities()
        let headUnit = Self.headUnit(trusting: ca, encrypted: ["Show"])
        let made = Locked<[CountingSession]>([])
        var security = SecurityConfiguration(identity: nil)
        security.makeSession = { role, _ throws(SecurityError) in
            let session = CountingSession(try TLSSession(role: role, identity: identity, datagram: true))
            made.withLock { $0.append(session) }
            return session
        }
        var configuration = SDLConnection.Configuration()
        configuration.protocolConfiguration.security = security
        configuration.protectsWhenRequired = false
        let app = try await TestApp.connect(over: await headUnit.connectInMemory(), configuration: configuration)
        try await app.register(appID: "secure-1")
        try await headUnit.activateApp("secure-1")
        _ = try await app.next("OnHMIStatus")
        try await app.connection.startProtectedRPC()
        #expect(try await app.request("Show", ["mainField1": "through the OEM's library"]).resultCode == "SUCCESS")
        #expect(made.withLock { $0.count } == 1 && made.withLock { $0[0].records } >= 3, "the ACK, the Show and its answer went through it")
        await app.connection.stop()
    }

    @Test("security for other vehicle makes: no protected start, and the line says which makes and which head unit")
    func otherMake() async throws {
        let (ca, identity) = try Self.identities()
        let headUnit = Self.headUnit(trusting: ca, encrypted: [])
        var security = SecurityConfiguration(identity: identity)
        security.vehicleMakes = ["Ford", "Lincoln"]
        var configuration = SDLConnection.Configuration()
        configuration.protocolConfiguration.security = security
        let app = try await TestApp.connect(over: await headUnit.connectInMemory(), configuration: configuration)
        try await app.register(appID: "secure-1")
        do {
            try await app.connection.startProtectedRPC()
            Issue.record("protected for another make")
        } catch {
            #expect("\(error)".contains("serves Ford, Lincoln, and the head unit is a SDL"), "\(error)")
        }
        await app.connection.stop()
    }

    @Test("configuration: a protocol, a service or a file that is not there is refused with its path", arguments: [
        (#"{"security": {"protocol": "SSLv3"}}"#, "$.security.protocol"),
        (#"{"security": {"forceProtected": ["vidoe"]}}"#, "$.security.forceProtected[0]"),
        (#"{"security": {"certificate": "/nonexistent/hu.pem"}}"#, "$.security"),
        (#"{"security": {"ca": "/nonexistent/ca.pem"}}"#, "$.security.ca"),
        (#"{"security": {"encryptionRequired": ["Shwo"]}}"#, "$.security.encryptionRequired[0]"),
    ])
    func configurationErrors(json: String, path: String) throws {
        let object = try #require(try JSONValue.parse(Array(json.utf8)).objectValue)
        #expect(throws: EmulatorConfigurationError.self) { try EmulatorConfiguration(json: object) }
        do {
            _ = try EmulatorConfiguration(json: object)
        } catch {
            #expect(error.path == path, "\(error)")
        }
    }
}
