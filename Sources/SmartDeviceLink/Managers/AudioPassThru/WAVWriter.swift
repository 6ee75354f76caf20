import Foundation

/// Writes mono PCM to a WAV file as it arrives, chunk by chunk, so a long recording is
/// never held in memory. The RIFF and data sizes are patched in by ``finish()``.
public final class WAVWriter {
    /// The file being written.
    public let path: String
    /// Samples per second.
    public let sampleRate: Int
    /// 8 or 16.
    public let bitsPerSample: Int
    /// PCM bytes written so far.
    public private(set) var dataBytes = 0
    private let handle: FileHandle

    /// Creates (or truncates) the file and writes a header with placeholder sizes.
    public init(path: String, sampleRate: Int, bitsPerSample: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ManagerError.invalid("cannot create \(path): check that its folder exists and is writable")
        }
        self.path = path
        self.sampleRate = sampleRate
        self.bitsPerSample = bitsPerSample
        self.handle = handle
        try handle.write(contentsOf: Self.header(sampleRate: sampleRate, bitsPerSample: bitsPerSample, dataBytes: 0))
    }

    /// A writer for the format of an audio pass-thru.
    public convenience init(path: String, samplingRate: SamplingRate, bitsPerSample: BitsPerSample) throws {
        try self.init(path: path, sampleRate: samplingRate.hertz, bitsPerSample: bitsPerSample == ._8Bit ? 8 : 16)
    }

    /// Appends PCM.
    public func write(_ pcm: [UInt8]) throws {
        try handle.write(contentsOf: pcm)
        dataBytes += pcm.count
    }

    /// Writes the final sizes and closes the file.
    public func finish() throws {
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: Self.header(sampleRate: sampleRate, bitsPerSample: bitsPerSample, dataBytes: dataBytes))
        try handle.close()
    }

    /// The 44-byte header of a mono PCM WAV file.
    package static func header(sampleRate: Int, bitsPerSample: Int, dataBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        func put32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { out.append(contentsOf: $0) } }
        func put16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { out.append(contentsOf: $0) } }
        let blockAlign = bitsPerSample / 8
        out += Array("RIFF".utf8)
        put32(36 + dataBytes)
        out += Array("WAVE".utf8) + Array("fmt ".utf8)
        put32(16)
        put16(1)  // PCM
        put16(1)  // mono
        put32(sampleRate)
        put32(sampleRate * blockAlign)
        put16(blockAlign)
        put16(bitsPerSample)
        out += Array("data".utf8)
        put32(dataBytes)
        return out
    }
}

extension SamplingRate {
    /// Samples per second.
    public var hertz: Int {
        switch self {
        case ._8khz: return 8000
        case ._22khz: return 22050
        case ._44khz: return 44100
        default: return 16000
        }
    }
}
