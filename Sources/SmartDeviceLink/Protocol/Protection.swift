/// Protected services: what a session protects, the TLS session that does
/// it, and the framing both roles share. One TLS session per SDL session, as sdl_core keeps
/// one SSL context per connection key; its services are protected one by one, each when its
/// StartServiceACK carries E=1.
struct SessionProtection: Sendable {
    var tls: (any SecuritySession)?
    /// The handshake finished: records can be written and read.
    var established = false
    /// The services whose StartServiceACK carried E=1.
    var services: Set<ServiceType> = []
    /// Head unit: protected starts waiting for the handshake to end.
    var waiting: [StartServiceRequest] = []
    /// Head unit: the last security query's sequence number (core counts from 1).
    var sequence: UInt32 = 0
    /// Head unit: the app id the app's certificate must carry (its subject serialNumber).
    var expectedAppID: String?
}

extension Session {
    /// A service payload framed with each frame's payload one TLS record (E=1), the First
    /// Frame plain: the limit per frame is what one record carries.
    mutating func protectedFrames(_ payload: [UInt8], service: ServiceType, limit: Int, messageID: UInt32) throws(ProtocolStateError) -> [UInt8] {
        guard protection.established, let tls = protection.tls else {
            throw ProtocolStateError("\(service) cannot be sent protected: no protection is established in session \(info.sessionID)")
        }
        let frames = FrameFragmenter.frames(for: payload, version: info.headerVersion, serviceType: service, sessionID: info.sessionID,
                                            messageID: messageID, maximumPayloadPerFrame: min(limit, TLSSession.maximumPlaintext),
                                            encrypted: true)
        var bytes: [UInt8] = []
        for frame in frames {
            guard frame.header.isEncrypted else {
                bytes += frame.encoded
                continue
            }
            do {
                bytes += Frame(header: frame.header, payload: try tls.protect(frame.payload)).encoded
            } catch {
                throw ProtocolStateError(error.description)
            }
        }
        return bytes
    }

    /// A security query for the peer, on the Control service (a Single frame, or more when
    /// a certificate chain outgrows one).
    mutating func securityQueryFrames(_ query: SecurityQuery, now: ContinuousClock.Instant) -> [UInt8] {
        var bytes: [UInt8] = []
        FrameFragmenter.encode(query.encoded, version: info.headerVersion, serviceType: .control, sessionID: info.sessionID,
                               messageID: nextMessageID(), maximumPayloadPerFrame: info.maximumSendPayload, into: &bytes)
        lastSent = now
        return bytes
    }

    /// The frame with its payload decrypted when it came protected. A First Frame of 8 bytes
    /// stays as it is: a record is never that short, so its E bit was set on a plain one.
    func unprotected(_ frame: Frame) throws(SecurityError) -> Frame {
        let header = frame.header
        guard header.isEncrypted, !frame.payload.isEmpty, !(header.frameType == .first && frame.payload.count == 8) else { return frame }
        guard protection.established, let tls = protection.tls else {
            throw SecurityError("a protected frame arrived on \(header.serviceType), which is not protected in session \(header.sessionID)")
        }
        var plain = Frame(header: header, payload: try tls.unprotect(frame.payload))
        plain.header.dataSize = UInt32(plain.payload.count)
        return plain
    }
}

