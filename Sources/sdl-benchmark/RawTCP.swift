import Foundation
import SmartDeviceLink

/// The raw TCP baselines: the same bytes over the same transport, without the protocol.
extension Bench {
    /// Request/response pairs of the given sizes over a raw loopback TCP connection, up to
    /// `window` requests written before their responses are read (one: sequential round trips).
    /// With `onReaderThread`, the client runs on its socket's reader thread, as a caller on
    /// ``SDLConnection/linkExecutor`` does. With `storingIn`, the server appends what it
    /// receives before it answers, as a head unit stores a PutFile's chunks, to a new file
    /// named from that prefix, removed afterwards.
    static func rawTCPRoundTrips(count: Int, requestSize: Int, responseSize: Int, window: Int = 1,
                                 onReaderThread: Bool = false, storingIn prefix: String? = nil) async throws -> Duration {
        let path = prefix.map { "\($0)-\(UUID().uuidString).bin" }
        defer { if let path { unlink(path) } }
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let server = Task {
            var connections = listener.connections.makeAsyncIterator()
            guard let peer = await connections.next() else { return }
            try await peer.open()
            let file = path.map { open($0, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o644) }
            defer { if let file { close(file) } }
            var pending = 0
            for try await chunk in peer.incoming {
                if let file { precondition(chunk.withUnsafeBytes { write(file, $0.baseAddress, $0.count) } == chunk.count) }
                pending += chunk.count
                while pending >= requestSize {
                    pending -= requestSize
                    try await peer.send([UInt8](repeating: 1, count: responseSize))
                }
            }
        }
        let client = TCPTransport(host: "127.0.0.1", port: listener.port)
        try await client.open()
        let request = [UInt8](repeating: 2, count: requestSize)
        let elapsed = try await withTaskExecutorPreference(onReaderThread ? StreamSocketTransport.under(client)?.readerExecutor : nil) {
            var incoming = client.incoming.makeAsyncIterator()
            return try await ContinuousClock().measure {
                var sent = 0
                var received = 0
                while received < count * responseSize {
                    while sent < count, sent - received / responseSize < window {
                        try await client.send(request)
                        sent += 1
                    }
                    guard let chunk = try await incoming.next() else { break }
                    received += chunk.count
                }
            }
        }
        await client.close()
        server.cancel()
        listener.close()
        return elapsed
    }

    /// Sends `bytes` in `chunk`-sized writes over raw loopback TCP, each acknowledged with 16
    /// bytes, with up to `window` chunks unacknowledged (as the file manager's window).
    static func rawTCPBulk(bytes: Int, chunk: Int, window: Int = 1, storingIn prefix: String? = nil) async throws -> Duration {
        try await rawTCPRoundTrips(count: bytes / chunk, requestSize: chunk, responseSize: 16, window: window, storingIn: prefix)
    }
}
