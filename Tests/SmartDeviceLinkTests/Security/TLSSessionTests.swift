import Foundation
import SDLTestSupport
import SmartDeviceLink
import Testing

@Suite("TLS inside SDL frames: OpenSSL over memory, the app as server, the head unit as client")
struct TLSSessionTests {
    /// Runs the handshake between two sessions, passing each flight across; the steps taken.
    static func handshake(server: TLSSession, client: TLSSession) throws -> Int {
        var toServer = try client.handshake().outgoing
        var steps = 1
        while true {
            let serverStep = try server.handshake(toServer)
            let clientStep = try client.handshake(serverStep.outgoing)
            steps += 1
            if serverStep.finished && clientStep.finished { return steps }
            toServer = clientStep.outgoing
            if steps > 10 { throw SecurityError("no end to the handshake") }
        }
    }

    @Test("TLS 1.2 and DTLS: the handshake ends in a few flights, and records go both ways, a full frame's worth too",
          arguments: [false, true])
    func roundTrip(datagram: Bool) async throws {
        let certificates = try await TestCertificates()
        let app = try TLSSession(role: .server, identity: try certificates.identity("app"), datagram: datagram)
        let headUnit = try TLSSession(role: .client, identity: nil, trusting: try certificates.pem("ca.pem"), datagram: datagram)
        #expect(try Self.handshake(server: app, client: headUnit) <= 4)
        #expect(app.version == (datagram ? "DTLSv1.2" : "TLSv1.2") && headUnit.version == app.version)
        #expect(headUnit.peerName == "SDL App")
        let show = Array(#"{"mainField1":"Hello"}"#.utf8)
        let record = try headUnit.protect(show)
        #expect(record != show && record.count > show.count)
        #expect(try app.unprotect(record) == show)
        let big = (0..<TLSSession.maximumPlaintext).map { UInt8(truncatingIfNeeded: $0) }
        let bigRecord = try app.protect(big)
        #expect(bigRecord.count <= 16384 + 5 + 256, "one record: \(bigRecord.count) bytes")
        #expect(try headUnit.unprotect(bigRecord) == big)
    }

    @Test("an independent TLS client (Python's ssl over memory BIOs) completes the handshake and exchanges records with ours")
    func independentPeer() async throws {
        let certificates = try await TestCertificates()
        let app = try TLSSession(role: .server, identity: try certificates.identity("app"))
        // Tests/SmartDeviceLinkTests/Security/ → Tests/Peers/
        let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/tls_peer.py").path
        let outcome = try await offThePool { () throws -> (Int32, String, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [peer, certificates.path("ca.pem")]
            let input = Pipe(), output = Pipe(), errors = Pipe()
            (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
            try process.runWithSignalsUnblocked()
            func receive() -> [UInt8]? {
                let header = output.fileHandleForReading.readData(ofLength: 4)
                guard header.count == 4 else { return nil }
                let size = header.reduce(0) { $0 << 8 | Int($1) }
                return size == 0 ? [] : [UInt8](output.fileHandleForReading.readData(ofLength: size))
            }
            func send(_ bytes: [UInt8]) {
                let size = UInt32(bytes.count)
                input.fileHandleForWriting.write(Data([UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + bytes))
            }
            var heard = ""
            while app.version.isEmpty, let flight = receive() {
                send(try app.handshake(flight).outgoing)
            }
            if let rest = receive(), !rest.isEmpty { _ = try app.handshake(rest) }  // the client's drained last flight
            if let ping = receive() { heard = String(decoding: try app.unprotect(ping), as: UTF8.self) }
            send(try app.protect(Array("pong from swift".utf8)))
            process.waitUntilExit()
            return (process.terminationStatus, heard, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        #expect(outcome.1 == "ping from python")
        #expect(outcome.0 == 0, "\(outcome.2)")
        #expect(outcome.2.contains("TLSv1.2"), "\(outcome.2)")
    }

    @Test("the head unit refuses an app certificate from another CA, and one that expired, in one line that says why",
          arguments: [("stranger", "unable to get local issuer certificate"), ("expired", "certificate has expired")])
    func refusedCertificates(name: String, reason: String) async throws {
        let certificates = try await TestCertificates()
        let app = try TLSSession(role: .server, identity: try certificates.identity(name))
        let headUnit = try TLSSession(role: .client, identity: nil, trusting: try certificates.pem("ca.pem"))
        #expect {
            _ = try Self.handshake(server: app, client: headUnit)
        } throws: { error in
            let text = "\(error)"
            return text.contains("the TLS handshake failed") && text.contains(reason) && !text.contains("\n")
        }
        #expect(app.version.isEmpty && headUnit.version.isEmpty)
    }

    @Test("a key that does not belong to the certificate, and a file that is not there, are refused before any handshake")
    func badIdentity() async throws {
        let certificates = try await TestCertificates()
        let mismatched = TLSIdentity(certificatePEM: try certificates.pem("app.pem"), privateKeyPEM: try certificates.pem("stranger.key"))
        #expect(throws: SecurityError.self) { _ = try TLSSession(role: .server, identity: mismatched) }
        #expect(throws: SecurityError("cannot read the certificate file /nonexistent/app.pem: check the path and its permissions")) {
            _ = try TLSIdentity(certificateFile: "/nonexistent/app.pem", privateKeyFile: "/nonexistent/app.key")
        }
        let app = try TLSSession(role: .server, identity: try certificates.identity("app"))
        #expect(throws: SecurityError.self, "no record before the handshake") { _ = try app.protect([1, 2, 3]) }
    }
}
