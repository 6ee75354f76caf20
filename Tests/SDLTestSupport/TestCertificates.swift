package import Foundation
package import SmartDeviceLink

/// Certificates for the tests, made with the openssl command line in a temporary folder
/// (never committed): a CA, an app certificate it signed, one another CA signed, one that
/// expired in 2020, and one the CA signed for another app id.
package final class TestCertificates: @unchecked Sendable {
    package let folder: URL

    package init() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdl-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await makeCA("ca")
        try await makeCA("other-ca")
        try await sign("app", by: "ca", name: "SDL App")
        try await sign("stranger", by: "other-ca", name: "Stranger")
        try await sign("expired", by: "ca", name: "Old App", dates: ("20200101000000Z", "20200102000000Z"))
        try await sign("other-app", by: "ca", name: "Other App", appID: "another-app")
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The app id the app certificates are issued for (their subject serialNumber).
    package static let appID = "secure-nav-1"

    /// `openssl ca`'s form of a time this many seconds from now (UTC).
    static func stamp(_ offset: TimeInterval) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: Date(timeIntervalSinceNow: offset))
    }

    package func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    package func pem(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }
    package func identity(_ name: String) throws -> TLSIdentity {
        try TLSIdentity(certificateFile: path("\(name).pem"), privateKeyFile: path("\(name).key"))
    }

    private func openssl(_ arguments: [String]) async throws {
        let result = try await runChildProcess("/usr/bin/openssl", arguments, errorsIntoOutput: true)
        guard result.status == 0 else {
            throw SecurityError("openssl \(arguments.first ?? ""): \(String(decoding: result.output, as: UTF8.self))")
        }
    }

    private func makeCA(_ name: String) async throws {
        try await openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("\(name).key"), "-out", path("\(name).pem"),
                           "-days", "30", "-subj", "/CN=\(name)"])
    }

    /// A key and a certificate for it signed by `ca`, valid now or between `dates` (openssl ca).
    ///
    /// The subject's serialNumber is `appID`: sdl_core takes a certificate only for the app whose
    /// policy app id it names.
    private func sign(_ name: String, by ca: String, name common: String, appID: String = TestCertificates.appID,
                      dates: (String, String)? = nil) async throws {
        try await openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("\(name).key"), "-out", path("\(name).csr"),
                           "-subj", "/CN=\(common)/serialNumber=\(appID)"])
        let config = """
        [ca]
        default_ca = here
        [here]
        database = \(path("\(ca).index"))
        new_certs_dir = \(folder.path)
        serial = \(path("\(ca).serial"))
        default_md = sha256
        default_days = 30
        policy = any
        [any]
        commonName = supplied
        serialNumber = optional
        """
        try config.write(toFile: path("\(ca).cnf"), atomically: true, encoding: .utf8)
        if !FileManager.default.fileExists(atPath: path("\(ca).index")) {
            try "".write(toFile: path("\(ca).index"), atomically: true, encoding: .utf8)
            try "01\n".write(toFile: path("\(ca).serial"), atomically: true, encoding: .utf8)
        }
        var arguments = ["ca", "-batch", "-notext", "-config", path("\(ca).cnf"), "-cert", path("\(ca).pem"), "-keyfile", path("\(ca).key"),
                         "-in", path("\(name).csr"), "-out", path("\(name).pem")]
        // Issued two days ago unless told: sdl_core (and the emulator) take the HMI's time an hour early.
        let (start, end) = dates ?? (Self.stamp(-2 * 86_400), Self.stamp(30 * 86_400))
        arguments += ["-startdate", start, "-enddate", end]
        try await openssl(arguments)
    }
}
