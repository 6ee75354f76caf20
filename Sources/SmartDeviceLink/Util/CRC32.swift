import CSDLChecksum
import CZlib

/// CRC-32 (IEEE 802.3, the zlib/PNG polynomial), as PutFile's `crc` parameter uses.
package struct CRC32: Sendable {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    public private(set) var value: UInt32 = 0

    package init() {}

    /// Adds bytes; the running value covers everything given so far.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        // Contiguous storage (arrays, slices, Data) takes the fast path: generic code is not
        // specialised across modules, and a per-byte generic loop is ~20× slower.
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(contiguous: $0) }
        if done == nil { Array(bytes).withUnsafeBufferPointer { update(contiguous: $0) } }
    }

    private mutating func update(contiguous bytes: UnsafeBufferPointer<UInt8>) {
        guard var base = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        if count >= 64, Self.foldingAvailable {
            let folded = count & ~15
            value = sdl_crc32_folded(value, base, folded)
            base += folded
            count -= folded
        }
        guard count > 0 else { return }
        value = Self.zlib(continuing: value, base, count)
    }

    private static func zlib(continuing crc: UInt32, _ base: UnsafePointer<UInt8>, _ count: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_z(uLong(crc), base, z_size_t(count)))
    }

    /// Whether the CPU folds with carry-less multiplication (x86-64 with PCLMULQDQ); zlib
    /// alone elsewhere.
    package static let foldingAvailable = sdl_crc32_folding_available() != 0

    /// The checksum through zlib alone: the baseline the folded code is measured against.
    package static func zlib(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { zlib(continuing: 0, $0, buffer.count) } ?? 0
        }
    }

    /// The same checksum a table lookup per byte at a time: the reference the tests hold
    /// zlib to, and the baseline `sdl-benchmark` measures it against.
    package static func bytewise(_ bytes: [UInt8]) -> UInt32 {
        var crc = ~UInt32(0)
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    /// The CRC-32 of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
