import Foundation

/// The head unit's side of protection, as sdl_core's security manager and handshake handler
/// run it: the TLS client, one handshake per session started by the first protected
/// StartService, the answer to every start waiting on it, and core's words when it fails.
extension HeadUnitProtocolMachine {
    /// A data frame of a session: decrypted if it came protected, reassembled, and handed on
    /// as a message, or read as a security query when it is the Control service's.
    mutating func received(_ frame: Frame, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        let sessionID = frame.header.sessionID
        var data = frame
        if frame.header.isEncrypted {
            guard let session = sessions[sessionID] else { return }
            do {
                data = try session.unprotected(frame)
            } catch {
                // core tells the app and drops the frame (ProtocolHandlerImpl::DecryptFrame).
                let code: SecurityErrorCode = session.protection.established ? .decryptionFailed : .serviceNotProtected
                sendSecurityQuery(.internalError(code, text: error.description, sequenceNumber: 0), sessionID: sessionID, now: now, into: &actions)
                actions.append(.securityFailed(sessionID: sessionID, SecurityFailure(code: code, text: error.description, fromPeer: false)))
                return
            }
        }
        if let query = input.reassembleData(data, now: now, into: &actions) {
            securityQueryReceived(query, sessionID: sessionID, now: now, into: &actions)
        }
    }

    /// Starts a service protected: at once when the session's handshake is done, otherwise
    /// when it is (a ClientHello goes out for the first such start).
    mutating func startProtected(_ request: StartServiceRequest, in sessionID: UInt8, appID: String?, now: ContinuousClock.Instant) -> [ProtocolAction] {
        guard let security = configuration.security, var session = sessions[sessionID] else { return [] }
        if session.protection.established {
            let actions = acknowledge(request, protected: true, in: &session, now: now)
            sessions[sessionID] = session
            return actions
        }
        session.protection.waiting.append(request)
        sessions[sessionID] = session
        guard session.protection.tls == nil else { return [] }  // a handshake is under way
        var actions: [ProtocolAction] = []
        do {
            let tls = try security.makeSession(role: .client)
            sessions.update(sessionID) {
                $0.protection.tls = tls
                $0.protection.expectedAppID = appID
            }
            let hello = try tls.handshake()
            sendHandshake(hello.outgoing, sessionID: sessionID, sequenceNumber: nil, now: now, into: &actions)
        } catch {
            handshakeFailed(sessionID, internalError: (.internalError, error.description), reason: "", now: now, into: &actions)
        }
        return actions
    }

    /// The app's handshake bytes or its internal error.
    private mutating func securityQueryReceived(_ payload: [UInt8], sessionID: UInt8, now: ContinuousClock.Instant,
                                                into actions: inout [ProtocolAction]) {
        guard let query = try? SecurityQuery(decoding: payload) else {
            sendSecurityQuery(.internalError(.invalidQueryID, text: "Unknown query identifier.", sequenceNumber: 0),
                              sessionID: sessionID, now: now, into: &actions)
            return
        }
        if let (code, text) = query.error {
            actions.append(.securityFailed(sessionID: sessionID, SecurityFailure(code: code, text: text, fromPeer: true)))
            // core gives up the handshake only for these two (SecurityManagerImpl::ProcessInternalError).
            if code == .sslInvalidData || code == .notSupported {
                handshakeFailed(sessionID, internalError: nil, reason: "", now: now, into: &actions)
            }
            return
        }
        guard let tls = sessions[sessionID]?.protection.tls, !query.binary.isEmpty else {
            let text = query.binary.isEmpty ? "SendHandshakeData: null arguments size." : "SendHandshakeData: No ssl context."
            sendSecurityQuery(.internalError(query.binary.isEmpty ? .invalidQuerySize : .serviceNotProtected, text: text,
                                             sequenceNumber: query.sequenceNumber),
                              sessionID: sessionID, now: now, into: &actions)
            return
        }
        do {
            let step = try tls.handshake(query.binary)
            if !step.outgoing.isEmpty {
                sendHandshake(step.outgoing, sessionID: sessionID, sequenceNumber: query.sequenceNumber, now: now, into: &actions)
            }
            guard step.finished else { return }
            if let (code, text, reason) = Self.certificateProblem(tls, appID: sessions[sessionID]?.protection.expectedAppID) {
                handshakeFailed(sessionID, internalError: (code, text), reason: reason, now: now, into: &actions)
            } else {
                handshakeSucceeded(sessionID, now: now, into: &actions)
            }
        } catch {
            // core's categories of a refused certificate (SecurityManagerImpl::ProcessHandshakeData).
            switch tls.certificateProblem {
            case .expired?:
                handshakeFailed(sessionID, internalError: (.expiredCertificate, "Certificate is expired"),
                                reason: TLSSession.CertificateProblem.expired.coreReason, now: now, into: &actions)
            case .notYetValid?:
                handshakeFailed(sessionID, internalError: (.invalidCertificate, "Certificate is not yet valid"),
                                reason: TLSSession.CertificateProblem.notYetValid.coreReason, now: now, into: &actions)
            case .notSigned?:
                handshakeFailed(sessionID, internalError: (.invalidCertificate, "Certificate is not signed"),
                                reason: TLSSession.CertificateProblem.notSigned.coreReason, now: now, into: &actions)
            case .other?:
                handshakeFailed(sessionID, internalError: (.handshakeFailed, "Handshake failed"), reason: "", now: now, into: &actions)
            case nil:
                handshakeFailed(sessionID, internalError: (.sslInvalidData, error.description), reason: "", now: now, into: &actions)
            }
        }
    }

    /// sdl_core's check when its side of the handshake is done (SSLContextImpl::CheckCertContext),
    /// whether or not it verifies the chain: the app's certificate valid now, and issued for
    /// this app (its subject serialNumber is the policy app id). The internal error's code and
    /// text, and the NAK's reason.
    static func certificateProblem(_ tls: any SecuritySession, appID: String?) -> (SecurityErrorCode, String, String)? {
        if let validity = tls.peerValidity {
            // core reads its HMI's GetSystemTime an hour early (SystemTimeHandlerImpl sets
            // tm_hour = hour - 1): a certificate issued within the last hour is not yet valid to it.
            let now = Date() - 3600
            if now < validity.lowerBound {
                return (.invalidCertificate, "Certificate is not yet valid", TLSSession.CertificateProblem.notYetValid.coreReason)
            }
            if now > validity.upperBound { return (.expiredCertificate, "Certificate is expired", TLSSession.CertificateProblem.expired.coreReason) }
        }
        if let appID, (tls.peerSerialNumber ?? "").lowercased() != appID.lowercased() {
            return (.invalidCertificate, "App ID does not match certificate", "Trying to run handshake with wrong app id")
        }
        return nil
    }

    private mutating func handshakeSucceeded(_ sessionID: UInt8, now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        guard var session = sessions[sessionID] else { return }
        session.protection.established = true
        let waiting = session.protection.waiting
        session.protection.waiting = []
        for request in waiting { actions += acknowledge(request, protected: true, in: &session, now: now) }
        sessions[sessionID] = session
    }

    /// What core's handshake handler does with each start waiting on a failed handshake: a
    /// new service that may run unprotected starts so (E=0); the RPC service (not new) and
    /// services in ForceProtectedService are refused, "Invalid certificate[: reason]".
    private mutating func handshakeFailed(_ sessionID: UInt8, internalError: (SecurityErrorCode, String)?, reason: String,
                                          now: ContinuousClock.Instant, into actions: inout [ProtocolAction]) {
        if let (code, text) = internalError {
            sendSecurityQuery(.internalError(code, text: text, sequenceNumber: 0), sessionID: sessionID, now: now, into: &actions)
            actions.append(.securityFailed(sessionID: sessionID, SecurityFailure(code: code, text: text, fromPeer: false)))
        }
        guard var session = sessions[sessionID] else { return }
        let waiting = session.protection.waiting
        session.protection = SessionProtection(services: session.protection.services, sequence: session.protection.sequence)
        let forced = configuration.security?.forceProtected ?? []
        var refused: [StartServiceRequest] = []
        for request in waiting {
            if !forced.contains(request.serviceType) && !session.services.contains(request.serviceType) {
                actions += acknowledge(request, protected: false, in: &session, now: now)
            } else {
                refused.append(request)
            }
        }
        // core's application manager ends the RPC service of an app whose protection it
        // refused, before the protocol handler's NAK goes out (HandleRejectedServiceStatus).
        if refused.contains(where: { $0.serviceType == .rpc }) {
            session.ending.insert(.rpc)
            actions.append(.send(session.controlFrame(.endService, service: .rpc, now: now)))
        }
        sessions[sessionID] = session
        let said = "Invalid certificate" + (reason.isEmpty ? "" : ": " + reason)
        for request in refused {
            actions += rejectStartService(request, reason: said, rejectedParams: [])
            actions.append(.serviceStartFailed(sessionID: sessionID, serviceType: request.serviceType, reason: said, rejectedParams: []))
        }
    }

    /// Handshake bytes for the app: a request, with the sequence number of the query it
    /// answers or the next one (sdl_core's SendHandshakeBinData).
    private mutating func sendHandshake(_ bytes: [UInt8], sessionID: UInt8, sequenceNumber: UInt32?, now: ContinuousClock.Instant,
                                        into actions: inout [ProtocolAction]) {
        let sequence = sequenceNumber ?? sessions.update(sessionID) { session -> UInt32 in
            session.protection.sequence &+= 1
            return session.protection.sequence
        } ?? 1
        sendSecurityQuery(.handshake(bytes, kind: .request, sequenceNumber: sequence), sessionID: sessionID, now: now, into: &actions)
    }

    private mutating func sendSecurityQuery(_ query: SecurityQuery, sessionID: UInt8, now: ContinuousClock.Instant,
                                            into actions: inout [ProtocolAction]) {
        guard let bytes = sessions.update(sessionID, { $0.securityQueryFrames(query, now: now) }) else { return }
        actions.append(.send(bytes))
    }
}
