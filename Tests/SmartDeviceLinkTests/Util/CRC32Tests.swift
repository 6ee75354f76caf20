import Foundation
import SmartDeviceLink
import Testing

@Suite("CRC-32 folded and through zlib, held to a bytewise table")
struct CRC32Tests {
    @Test("the check value of \"123456789\" is CBF43926, the empty input 0")
    func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test("ours, zlib's and the bytewise table agree on every length up to 1,100 and on 1 MiB; updates in pieces equal one pass")
    func agreesWithBytewise() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...1100) + [1 << 20, (1 << 20) + 63] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = CRC32.bytewise(bytes)
            #expect(CRC32.checksum(bytes) == expected, "length \(length)")
            #expect(CRC32.zlib(bytes) == expected, "length \(length)")
            var pieces = CRC32()
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 1 + offset % 977, bytes.count)
                pieces.update(bytes[offset..<end])
                offset = end
            }
            #expect(pieces.value == expected)
        }
    }

    @Test("the folding path runs on x86-64 machines with PCLMULQDQ, so the test above covers it")
    func foldingRunsHere() throws {
        #if arch(x86_64)
        let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let cpuFolds = flags.contains(" pclmulqdq") && flags.contains(" sse4_1")
        #expect(CRC32.foldingAvailable == cpuFolds)
        #else
        #expect(!CRC32.foldingAvailable)
        #endif
    }
}
