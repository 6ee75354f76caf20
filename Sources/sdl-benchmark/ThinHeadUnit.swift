import SmartDeviceLink

/// A head unit that does the protocol and nothing else: it accepts the RPC session and
/// answers every request at once with SUCCESS, from bytes written beforehand (a PutFile's
/// data is neither checked nor stored).
///
/// Against the raw TCP echo (same transport, same sizes) it shows what the library costs per
/// round trip; the emulator's own row adds what a head unit that validates, keeps an HMI
/// and runs policies costs on top.
enum ThinHeadUnit {
    static let success = Array(#"{"resultCode":"SUCCESS","success":true}"#.utf8)

    /// Serves the first connection on `listener` until it closes.
    static func serve(_ listener: TCPListener) -> Task<Void, any Error> {
        Task {
            var connections = listener.connections.makeAsyncIterator()
            guard let peer = await connections.next() else { return }
            try await serve(peer)
        }
    }

    /// Opens `peer` and serves it until it closes; the length of each video message it
    /// receives goes to `video`.
    static func serve(_ peer: any SDLTransport, video: AsyncStream<Int>.Continuation? = nil) async throws {
        try await peer.open()
        var machine = HeadUnitProtocolMachine(configuration: ProtocolConfiguration())
        for try await chunk in peer.incoming {
            var out: [UInt8] = []
            for action in machine.receive(chunk, now: .now) {
                switch action {
                case .send(let bytes): out += bytes
                case .startServiceRequested(let request):
                    for case .send(let bytes) in try machine.acceptStartService(request, now: .now) { out += bytes }
                case .message(_, .video, let payload, _):
                    video?.yield(payload.count)
                case .message(let session, let service, let payload, _) where service == .rpc || service == .hybrid:
                    let request = try RPCPacket(decoding: payload)
                    guard request.messageType == .request else { continue }
                    let answer = RPCPacket(messageType: .response, functionID: request.functionID,
                                           correlationID: request.correlationID, json: success)
                    for case .send(let bytes) in try machine.send(answer, sessionID: session, now: .now) { out += bytes }
                default: continue
                }
            }
            if !out.isEmpty { try await peer.send(out) }
        }
    }
}
