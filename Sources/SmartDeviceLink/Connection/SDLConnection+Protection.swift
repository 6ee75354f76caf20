/// What the connection knows of protection: the head unit's policy on encryption (from
/// OnPermissionsChange), the app's level, and what the security managers said last.
package struct ConnectionProtection {
    /// RPCs whose permission item says `requireEncryption` (SDL evolution proposal 0207).
    var encryptedFunctions: Set<String> = []
    /// OnPermissionsChange's app-wide `requireEncryption`; nil when the head unit left it out.
    var appRequiresEncryption: Bool?
    var hmiLevel = "NONE"
    /// The protected RPC start under way: a second caller waits for its outcome.
    var rpcStart: Task<Void, any Error>?
    /// The last failure reported in the session, to explain a refusal that follows it.
    var lastFailure: SecurityFailure?

    /// RPCs the head unit may take unencrypted whatever its policy (sdl_core's rpc_encryption_exceptions).
    package static let exceptions: Set<String> = ["RegisterAppInterface", "SystemRequest", "OnPermissionsChange", "OnSystemRequest", "PutFile", "OnHMIStatus"]

    /// Whether the policy says `function` goes encrypted (the app-wide flag, when present, must allow it).
    func requiresEncryption(_ function: String) -> Bool {
        appRequiresEncryption != false && encryptedFunctions.contains(function)
    }
}

extension SDLConnection {
    // MARK: - Protected services

    /// Starts the RPC service again protected: the head unit runs its TLS handshake with this
    /// app (the app is the server, with ``SecurityConfiguration/identity``), then encrypted
    /// RPCs may be sent. ``SDLManager`` does this by itself once the head unit's policy
    /// requires encryption of an RPC and the app leaves HMI level NONE, as sdl_ios does.
    public func startProtectedRPC() async throws(SDLError) {
        guard case .started = state else { throw SDLError.notConnected }
        try requireSecurity(for: .rpc)
        if isProtected(.rpc) { return }
        let start = protection.rpcStart ?? Task { () async throws in
            defer { self.protection.rpcStart = nil }
            _ = try await self.startProtected(.rpc, payload: nil, on: .primary)
            guard self.isProtected(.rpc) else {
                throw SDLError.protectionFailed(service: "RPC", reason: "the head unit acknowledged it unprotected")
            }
            self.configuration.logger.info("RPC service protected (\(self.driver.machine.tlsVersion ?? "TLS"))")
        }
        protection.rpcStart = start
        do {
            try await start.value
        } catch let error as SDLError {
            throw error
        } catch {
            throw SDLError.connectionLost("\(error)")
        }
    }

    /// Whether `service` runs protected (its StartServiceACK carried E=1).
    public func isProtected(_ service: ServiceType) -> Bool {
        // Protected services run on the primary: its session holds the TLS session.
        driver.machine.protectedServices.contains(service == .hybrid ? .rpc : service)
    }

    func requireSecurity(for service: ServiceType) throws(SDLError) {
        guard let security = configuration.protocolConfiguration.security, security.canServe else {
            throw SDLError.invalidRequest("\(service) cannot be started protected: this app has no certificate and key "
                                          + "(SDLConfiguration.security, or sdl-run --certificate and --key)")
        }
        if let makes = security.vehicleMakes, let make = session?.ackPayload?.make, !makes.contains(make) {
            throw SDLError.invalidRequest("\(service) cannot be started protected: this app's security serves "
                                          + makes.sorted().joined(separator: ", ") + ", and the head unit is a \(make)")
        }
    }

    /// Sends StartService with E=1 and waits for the head unit's answer, which comes after
    /// its handshake with this app: at most ``Configuration/startTimeout``.
    func startProtected(_ service: ServiceType, payload: ControlPayload?, on role: TransportRole) async throws(SDLError) -> ControlPayload? {
        let actions = try perform(on: role) { machine, now throws(ProtocolStateError) in
            try machine.startService(service, payload: payload, encrypted: true, now: now)
        }
        protection.lastFailure = nil
        let timeout = configuration.startTimeout
        let clock = configuration.clock
        let timer = Task { [weak self] in
            try? await clock.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            await self?.protectedStartTimedOut(service, after: timeout)
        }
        defer { timer.cancel() }
        do {
            return try await withCheckedThrowingContinuation { continuation in
                streams.startWaiters[service] = continuation
                handle(actions, from: role)
            }
        } catch let error as SDLError {
            let name = service == .rpc ? "RPC" : "\(service)"
            if case .sessionRejected(let reason, _) = error { throw SDLError.protectionFailed(service: name, reason: explained(reason)) }
            // sdl_core ends an app's RPC service when it refuses to protect it, before its NAK.
            if protection.lastFailure != nil { throw SDLError.protectionFailed(service: name, reason: explained(nil)) }
            throw error
        } catch {
            throw SDLError.connectionLost("\(error)")
        }
    }

    private func protectedStartTimedOut(_ service: ServiceType, after timeout: Duration) {
        let why = protection.lastFailure.map { "; last from the handshake: \($0)" }
            ?? " (sdl_core asks its HMI for the time before its handshake: BasicCommunication.GetSystemTime, after OnSystemTimeReady)"
        streams.startWaiters.removeValue(forKey: service)?.resume(throwing: SDLError.protectionFailed(
            service: service == .rpc ? "RPC" : "\(service)", reason: "no answer within \(timeout.seconds.formatted2) s\(why)"))
    }

    /// A refusal's reason (the NAK's, or nil when the head unit ended the session instead)
    /// with what the handshake said before it, each said once.
    private func explained(_ nak: String?) -> String {
        let said = nak ?? "the head unit ended the session"
        guard let failure = protection.lastFailure else { return said }
        // sdl_core looks for the app's policy app id in the certificate's subject (serialNumber).
        if failure.text == "App ID does not match certificate" {
            return "\(nak ?? "\(said): \(failure.text)"): the certificate's subject serialNumber must be this app's appID; use one issued for it"
        }
        if failure.fromPeer {
            let advice = failure.code.map { ": \($0.advice)" } ?? ""
            return nak.map { "\($0)\(advice)" } ?? "\(said): \(failure.text)\(advice)"
        }
        return "\(said); this app's TLS: \(failure.text) (both ends must speak the same protocol, DTLS or TLS 1.2: "
            + "SecurityConfiguration.flavour, sdl-run --tls-protocol)"
    }

    /// A security manager's error in the session: kept to explain what follows, and logged.
    func securityFailed(_ failure: SecurityFailure) {
        protection.lastFailure = failure
        configuration.logger.warning("protection: \(failure)")
    }

    // MARK: - RPC encryption

    /// Whether an RPC goes encrypted, or is refused before it leaves: the head unit's policy
    /// requires it and the RPC service is not protected.
    func encrypts(_ functionName: String) throws(SDLError) -> Bool {
        guard protection.requiresEncryption(functionName) else { return false }
        if isProtected(.rpc) { return true }
        if ConnectionProtection.exceptions.contains(functionName) { return false }
        let how = configuration.protocolConfiguration.security?.canServe != true
            ? "give the app a certificate and key (SDLConfiguration.security, or sdl-run --certificate and --key)"
            : "start the protected RPC service first (startProtectedRPC(); SDLManager does it once the app leaves HMI level NONE)"
        throw SDLError.invalidRequest("\(functionName) must be encrypted: the head unit's policy requires encryption for it; \(how)")
    }

    /// Reads what the head unit says of encryption and levels; starts protection when the
    /// policy requires it, this app can, and it left NONE.
    func followEncryptionPolicy(_ envelope: RPCEnvelope) {
        switch envelope.functionName {
        case "OnPermissionsChange":
            let items = envelope.parameters["permissionItem"]?.arrayValue ?? []
            protection.encryptedFunctions = Set(items.compactMap { item in
                item.objectValue?["requireEncryption"]?.boolValue == true ? item.objectValue?["rpcName"]?.stringValue : nil
            })
            protection.appRequiresEncryption = envelope.parameters["requireEncryption"]?.boolValue
        case "OnHMIStatus":
            protection.hmiLevel = envelope.parameters["hmiLevel"]?.stringValue ?? protection.hmiLevel
        default:
            return
        }
        guard configuration.protectsWhenRequired, configuration.protocolConfiguration.security?.canServe == true,
              protection.appRequiresEncryption != false, !protection.encryptedFunctions.isEmpty,
              protection.hmiLevel != "NONE", protection.rpcStart == nil, !isProtected(.rpc) else { return }
        Task {
            do {
                try await self.startProtectedRPC()
            } catch {
                self.configuration.logger.warning("\(error)")
            }
        }
    }
}
