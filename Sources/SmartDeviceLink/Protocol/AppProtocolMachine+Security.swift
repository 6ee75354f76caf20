/// The app's side of protection: the TLS server of the head unit's handshake, protected
/// frames read on the way in.
extension AppProtocolMachine {
    /// A data frame of the session: decrypted if it came protected, reassembled, and handed
    /// on as a message, or read as a security query when it is the Control service's.
    mutating func received(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let sessionID = frame.header.sessionID
        var data = frame
        if frame.header.isEncrypted {
            do {
                data = try session!.unprotected(frame)
            } catch {
                actions.append(.securityFailed(sessionID: sessionID, SecurityFailure(code: nil, text: error.description, fromPeer: false)))
                return
            }
        }
        if let query = input.reassembleData(data, now: now, into: &actions) {
            securityQueryReceived(query, sessionID: sessionID, now: now, into: &actions)
        }
    }

    /// The head unit's handshake bytes are answered (the TLS server made at the first of
    /// them); its internal errors are reported.
    private mutating func securityQueryReceived(_ payload: [UInt8], sessionID: UInt8, now: ContinuousClock.Instant,
                                                into actions: inout [ProtocolAction]) {
        let query: SecurityQuery
        do {
            query = try SecurityQuery(decoding: payload)
        } catch {
            actions.append(.securityFailed(sessionID: sessionID, SecurityFailure(code: nil, text: error.description, fromPeer: false)))
            return
        }
        if let (code, text) = query.error {
            // The handshake is over for the head unit (it may have refused after its Finished):
            // while nothing runs protected, the next one starts afresh.
            if session!.protection.services.isEmpty {
                session!.protection.tls = nil
                session!.protection.established = false
            }
            actions.append(.securityFailed(sessionID: sessionID, SecurityFailure(code: code, text: text, fromPeer: true)))
            return
        }
        // Requests, or notifications from cores before 8.0 (protocol spec §5.1.1.3.1); the
        // app asks nothing, so a response is not for it.
        guard query.kind != .response else { return }
        do throws(SecurityError) {
            if session!.protection.tls == nil {
                guard let security = configuration.security, security.canServe else {
                    throw SecurityError("the head unit started a TLS handshake, but this app has no certificate and key to protect services with (SDLConfiguration.security)")
                }
                try Self.requireSameFlavour(query.binary, security.flavour)
                session!.protection.tls = try security.makeSession(role: .server)
            }
            let step = try session!.protection.tls!.handshake(query.binary)
            if !step.outgoing.isEmpty {
                let answer = SecurityQuery.handshake(step.outgoing, kind: .response, sequenceNumber: query.sequenceNumber)
                actions.append(.send(session!.securityQueryFrames(answer, now: now)))
            }
            if step.finished { session!.protection.established = true }
        } catch {
            // The head unit hears why (as sdl_ios tells core), and the next protected start
            // begins a new handshake.
            session!.protection.tls = nil
            let code: SecurityErrorCode = configuration.security?.canServe != true ? .notSupported : .sslInvalidData
            let notice = SecurityQuery.internalError(code, text: error.description, sequenceNumber: query.sequenceNumber)
            actions.append(.send(session!.securityQueryFrames(notice, now: now)))
            actions.append(.securityFailed(sessionID: sessionID, SecurityFailure(code: code, text: error.description, fromPeer: false)))
        }
    }

    /// A DTLS server drops a TLS record without a word (and the other way round the
    /// handshake fails obscurely): the first record's version says which the head unit speaks.
    private static func requireSameFlavour(_ hello: [UInt8], _ flavour: SecurityConfiguration.Flavour) throws(SecurityError) {
        guard hello.count >= 3, hello[0] == 0x16 else { return }
        let spoken: SecurityConfiguration.Flavour? = hello[1] == 0xFE ? .dtls : hello[1] == 0x03 ? .tls : nil
        guard let spoken, spoken != flavour else { return }
        let name = { (flavour: SecurityConfiguration.Flavour) in flavour == .dtls ? "DTLS" : "TLS 1.2" }
        throw SecurityError("the head unit speaks \(name(spoken)) and this app \(name(flavour))")
    }
}
