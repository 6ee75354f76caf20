#if canImport(Glibc)
import Glibc
#endif
@testable import SmartDeviceLink
import Testing

/// The reads of a socket handed straight to the link's reader: every read, in order, then
/// the end the socket reported.
@Suite("SocketReads: a socket's reads for its link")
struct SocketReadsTests {
    @Test("reads that come before anyone waits are kept, in order, and then the end in order")
    func bufferedInOrder() async throws {
        let reads = SocketReads()
        reads.deliver([1])
        reads.deliver([2, 3])
        reads.finish(nil)
        #expect(try await reads.next() == [1])
        #expect(try await reads.next() == [2, 3])
        #expect(try await reads.next() == nil)
        #expect(try await reads.next() == nil)
    }

    @Test("a waiting reader gets the read delivered after it began to wait", .timeLimit(.minutes(1)))
    func waiterGetsRead() async throws {
        let reads = SocketReads()
        let waiting = Task { try await reads.next() }
        while !reads.isAwaited { await Task.yield() }
        reads.deliver([7, 7])
        #expect(try await waiting.value == [7, 7])
    }

    @Test("a failed link ends the reads with its error, after the reads that came before it")
    func failureAfterReads() async throws {
        let reads = SocketReads()
        reads.deliver([9])
        reads.finish(.closed("TCP 127.0.0.1:1: read failed: Connection reset by peer"))
        #expect(try await reads.next() == [9])
        await #expect(throws: TransportError.closed("TCP 127.0.0.1:1: read failed: Connection reset by peer")) {
            _ = try await reads.next()
        }
    }

    @Test("a socket that already reads gives its reads to `incoming`, not to a late taker")
    func lateTakerGetsNothing() async throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let app = TCPTransport(host: "127.0.0.1", port: listener.port)
        try await app.open()
        #expect(app.socket.takeReads() == nil)
        let fresh = StreamSocketTransport(description: "not yet connected", kind: .tcp)
        #expect(fresh.takeReads() != nil)
        #expect(fresh.takeReads() == nil, "reads have one taker")
        await app.close()
        listener.close()
    }

    @Test("reads arrive whole and in order, and none holds much more memory than its bytes", .timeLimit(.minutes(1)))
    func readsKeepTheirBytesAndNoMore() async throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        let readSize = 4096
        let transport = StreamSocketTransport(connectedDescriptor: pair[1], description: "socketpair", kind: .tcp, readSize: readSize)
        try await transport.open()
        // Writes that fill the read buffer and writes that leave most of it empty, each read
        // in full before the next is written: a read handed on must not share the buffer the
        // next read goes into, nor keep all of it.
        let sizes = [readSize, 1, 2500, readSize, 10, 9000, 3, readSize * 3, 700]
        var sent: [UInt8] = []
        var received: [UInt8] = []
        var reads = transport.incoming.makeAsyncIterator()
        for (index, size) in sizes.enumerated() {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
            sent += bytes
            #expect(bytes.withUnsafeBytes { write(pair[0], $0.baseAddress, $0.count) } == size)
            while received.count < sent.count, let read = try await reads.next() {
                #expect(read.capacity <= max(2 * read.count, read.count + 64), "a read of \(read.count) bytes holds \(read.capacity)")
                received += read
            }
        }
        #expect(received == sent)
        await transport.close()
    }
}
