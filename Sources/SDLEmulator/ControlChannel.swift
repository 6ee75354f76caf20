public import SmartDeviceLink
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The control channel: the driver API as JSON lines, one command per line
/// (`{"action":"activateApp","appID":"x"}`) and one JSON answer per line
/// (`{"ok":true}` or `{"ok":false,"error":"..."}`; an `id` in the command is echoed).
extension HeadUnitEmulator {
    /// The actions ``control(_:)`` understands (`{"action":"help"}` lists them with their parameters).
    public static var controlActions: [String] { driverActions.map(\.name) }

    /// Runs one control command and returns its answer.
    public func control(_ command: JSONObject) async -> JSONObject {
        var answer: JSONObject
        do throws(EmulatorError) {
            answer = try await runControl(command)
        } catch {
            answer = ["ok": false, "error": .string(error.description)]
        }
        if let id = command["id"] { answer["id"] = id }
        return answer
    }

    private func runControl(_ command: JSONObject) async throws(EmulatorError) -> JSONObject {
        guard let name = command["action"]?.stringValue else { throw .invalidAction("a command needs \"action\"") }
        guard let spec = Self.driverAction(named: name) else {
            let hint = closest(to: name, in: Self.controlActions).map { "; did you mean \"\($0)\"?" } ?? ""
            throw .invalidAction("unknown action \"\(name)\"\(hint)")
        }
        var answer: JSONObject = ["ok": true]
        for (key, value) in try await spec.run(self, DriverArguments(action: name, values: command)) ?? [:] { answer[key] = value }
        return answer
    }

    /// Serves the control channel on one link: reads JSON lines, answers each with a line.
    public func serveControl(_ transport: any SDLTransport) async {
        do { try await transport.open() } catch { return }
        let incoming = transport.incoming
        backgroundTasks.append(Task { [weak self] in
            var buffer: [UInt8] = []
            do {
                for try await chunk in incoming {
                    buffer.append(contentsOf: chunk)
                    while let newline = buffer.firstIndex(of: 0x0A) {
                        let line = Array(buffer[..<newline])
                        buffer.removeSubrange(...newline)
                        guard let self else { return }
                        let answer = await self.controlLine(line)
                        try await transport.send(JSONValue.object(answer).serializedBytes() + [0x0A])
                    }
                }
            } catch {}
            await transport.close()
        })
    }

    private func controlLine(_ line: [UInt8]) async -> JSONObject {
        let trimmed = line.filter { $0 != 0x0D }
        guard !trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { return ["ok": false, "error": "empty line"] }
        do {
            guard case .object(let command) = try JSONValue.parse(trimmed) else {
                return ["ok": false, "error": "a command is a JSON object"]
            }
            return await control(command)
        } catch {
            return ["ok": false, "error": .string(error.description)]
        }
    }

    /// Listens for control connections on TCP (loopback by default); returns the bound port.
    public func listenControl(host: String = "127.0.0.1", port: UInt16 = 0) async throws -> UInt16 {
        let listener: TCPListener
        do {
            listener = try TCPListener(host: host, port: port)
        } catch {
            throw EmulatorError.listenFailed("control \(host):\(port): \(error)")
        }
        listeners.append(listener)
        let accepted = listener.connections
        backgroundTasks.append(Task { [weak self] in
            for await link in accepted { await self?.serveControl(link) }
        })
        return listener.port
    }

    /// Listens for control connections on a Unix domain socket at `path` (replacing a stale socket file).
    public func listenControl(socketPath path: String) async throws {
        let listener = try UnixSocketListener(path: path)
        let accepted = listener.connections
        backgroundTasks.append(Task { [weak self] in
            for await link in accepted { await self?.serveControl(link) }
            _ = listener
        })
        unixListeners.append(listener)
    }
}

/// Accepts connections on a Unix domain socket, on a thread of its own (blocking accept).
final class UnixSocketListener: Sendable {
    let path: String
    let connections: AsyncStream<StreamSocketTransport>
    private let accepting: AcceptLoop

    init(path: String) throws(EmulatorError) {
        self.path = path
        #if canImport(Glibc) || canImport(Musl)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .listenFailed("socket(AF_UNIX): \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            closeDescriptor(fd)
            throw .listenFailed("the socket path \(path) is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            closeDescriptor(fd)
            throw .listenFailed("\(path): \(reason)")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: StreamSocketTransport.self)
        connections = stream
        accepting = AcceptLoop(listening: fd, name: "sdl-control", accepted: { client, _ in
            continuation.yield(StreamSocketTransport(connectedDescriptor: client, description: "control \(path)", kind: .tcp))
        }, ended: { continuation.finish() })
    }

    func close() {
        accepting.stop()
        unlink(path)
    }
}

/// `close(2)`, outside any type that has a `close()` of its own.
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
