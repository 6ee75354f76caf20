import ArgumentParser
import SmartDeviceLink

/// `--certificate FILE --key FILE [--ca FILE] [--tls-protocol dtls|tls]`: the app's identity for
/// protected services (the head unit is the TLS client, the app the server).
struct SecurityOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The app's certificate for protected services (PEM; the chain to its CA may follow).", valueName: "file"))
    var certificate: String?

    @Option(help: ArgumentHelp("The certificate's private key (PEM).", valueName: "file"))
    var key: String?

    @Option(help: ArgumentHelp("With --certificate: verify the head unit's certificate by this CA when it sends one (PEM).", valueName: "file"))
    var ca: String?

    @Option(name: .customLong("tls-protocol"), help: ArgumentHelp(
        "With --certificate: what the head unit's security manager speaks, dtls (sdl_core 8.2's default) or tls.", valueName: "kind"))
    var flavour: FlavourChoice?

    enum FlavourChoice: String, ExpressibleByArgument, CaseIterable { case dtls, tls }

    func validate() throws {
        if (certificate == nil) != (key == nil) { throw ValidationError("--certificate and --key go together") }
        if certificate == nil && (ca != nil || flavour != nil) { throw ValidationError("--ca and --tls-protocol go with --certificate and --key") }
    }

    /// The configuration, or nil when none was given; unreadable files are a usage error.
    func configuration() throws -> SecurityConfiguration? {
        guard let certificate, let key else { return nil }
        do {
            let identity = try TLSIdentity(certificateFile: certificate, privateKeyFile: key)
            let trusted = try ca.map { try TLSIdentity.read($0, "CA certificate") }
            return SecurityConfiguration(identity: identity, trustedCertificates: trusted, flavour: flavour == .tls ? .tls : .dtls)
        } catch {
            throw CommandFailure.invalid("\(error)")
        }
    }
}
