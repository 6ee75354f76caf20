import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The WebSocket to sdl_core's HMI interface, through SwiftNIO: the HTTP upgrade, masked
/// text frames out, whole text messages in (fragments joined), pings answered.
///
/// sdl_core speaks JSON-RPC 2.0 on it, one message per text frame.
final class HMIWebSocket: Sendable {
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Text messages as they arrive; the stream ends when either side closes, and fails
    /// with a `Failure` that says why when the link breaks.
    let messages: AsyncThrowingStream<String, any Error>
    private let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>

    private init(messages: AsyncThrowingStream<String, any Error>, outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>) {
        self.messages = messages
        self.outbound = outbound
    }

    /// Connects to `ws://host:port/path` and completes the upgrade.
    static func connect(host: String, port: Int, path: String, timeout: TimeAmount = .seconds(5)) async throws(Failure) -> HMIWebSocket {
        enum Upgrade: Sendable {
            case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
            case refused
        }
        let upgrade: EventLoopFuture<Upgrade>
        do {
            upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                            // core's replies carry whole capability sets and app lists.
                            maxFrameSize: 1 << 24,
                            upgradePipelineHandler: { channel, _ in
                                channel.eventLoop.makeCompletedFuture {
                                    try channel.pipeline.syncOperations.addHandler(NIOWebSocketFrameAggregator(
                                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: 1 << 24))
                                    return .websocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                                }
                            })
                        var headers = HTTPHeaders()
                        headers.add(name: "Host", value: "\(host):\(port)")
                        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                            configuration: .init(upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
                                upgradeRequestHead: head, upgraders: [upgrader],
                                notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .refused } })))
                    }
                }
        } catch {
            throw Failure(description: "cannot reach core's HMI WebSocket at \(host):\(port): \(error)")
        }
        let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
        do {
            guard case .websocket(let upgraded) = try await upgrade.get() else {
                throw Failure(description: "\(host):\(port) answered the WebSocket upgrade without accepting it: is it core's HMI port (8087)?")
            }
            channel = upgraded
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "the WebSocket upgrade at \(host):\(port) failed: \(error)")
        }
        return await open(channel)
    }

    /// Runs the channel for as long as it lives and hands back the socket once its writer is there.
    private static func open(_ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) async -> HMIWebSocket {
        let (messages, delivery) = AsyncThrowingStream<String, any Error>.makeStream()
        return await withCheckedContinuation { (ready: CheckedContinuation<HMIWebSocket, Never>) in
            Task {
                do {
                    try await channel.executeThenClose { inbound, outbound in
                        ready.resume(returning: HMIWebSocket(messages: messages, outbound: outbound))
                        for try await frame in inbound {
                            switch frame.opcode {
                            case .text:
                                delivery.yield(String(buffer: frame.unmaskedData))
                            case .ping:
                                try await outbound.write(Self.frame(.pong, frame.unmaskedData))
                            case .connectionClose:
                                var data = frame.unmaskedData
                                let code = data.readInteger(as: UInt16.self).map(String.init) ?? "none"
                                delivery.finish(throwing: Failure(description: "core closed the HMI link (code \(code))"))
                                return
                            default:
                                break
                            }
                        }
                        delivery.finish(throwing: Failure(description: "core closed the HMI link"))
                    }
                } catch {
                    delivery.finish(throwing: Failure(description: "the HMI link failed: \(error)"))
                }
            }
        }
    }

    /// Sends one text message.
    func send(_ text: String) async throws(Failure) {
        do {
            try await outbound.write(Self.frame(.text, ByteBuffer(string: text)))
        } catch {
            throw Failure(description: "cannot write to core's HMI WebSocket: \(error)")
        }
    }

    /// Says goodbye (close code 1000) and ends the connection.
    func close() async {
        var goodbye = ByteBuffer()
        goodbye.writeInteger(UInt16(1000))
        try? await outbound.write(Self.frame(.connectionClose, goodbye))
        outbound.finish()
    }

    /// A client's frames are masked (RFC 6455 §5.3); the encoder masks with the key it is given.
    private static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
    }
}
