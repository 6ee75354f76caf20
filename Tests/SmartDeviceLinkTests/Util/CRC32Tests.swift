import SmartDeviceLink
import Testing

@Suite("CRC-32 through zlib, held to a bytewise table")
struct CRC32Tests {
    @Test("the check value of \"123456789\" is CBF43926, the empty input 0")
    func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test("zlib and the bytewise table agree on every length up to 300 and on 1 MiB; updates in pieces equal one pass")
    func agreesWithBytewise() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...300) + [1 << 20] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(CRC32.checksum(bytes) == CRC32.bytewise(bytes), "length \(length)")
            var pieces = CRC32()
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 1 + offset % 977, bytes.count)
                pieces.update(bytes[offset..<end])
                offset = end
            }
            #expect(pieces.value == CRC32.bytewise(bytes))
        }
    }
}
