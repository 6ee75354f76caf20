@testable import SmartDeviceLink
import Testing

/// Both ends of one loopback TCP connection: the app's transport, opened, and the head
/// unit's accepted socket, not yet reading (so a driver made for it takes its reads).
struct LoopbackLink {
    let listener: TCPListener
    let app: TCPTransport
    let headUnit: StreamSocketTransport

    static func make() async throws -> LoopbackLink {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let accepted = firstAccepted(on: listener)
        let app = TCPTransport(host: "127.0.0.1", port: listener.port)
        async let opened: Void = app.open()
        let headUnit = try #require(await accepted.value)
        try await opened
        return LoopbackLink(listener: listener, app: app, headUnit: headUnit)
    }

    /// The first link `listener` accepts, nil if it closes first.
    static func firstAccepted(on listener: TCPListener) -> Task<StreamSocketTransport?, Never> {
        Task {
            for await link in listener.connections { return link }
            return nil
        }
    }
}
