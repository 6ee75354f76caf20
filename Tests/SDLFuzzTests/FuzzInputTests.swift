import Foundation
import SDLFuzz
import SmartDeviceLink
import Testing

/// Every input kept under Inputs/<target>/ (seeds, and each crash the fuzzers found) runs
/// through its target's properties on every test run.
@Suite("Fuzz inputs: seeds and past findings keep passing")
struct FuzzInputTests {
    static let inputs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Inputs")

    static func files(_ target: FuzzTarget) -> [URL] {
        let folder = inputs.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test("every kept input keeps its target's properties", arguments: FuzzTarget.allCases)
    func keptInputs(target: FuzzTarget) throws {
        let files = Self.files(target)
        #expect(!files.isEmpty, "Inputs/\(target.rawValue) holds no input: scripts/fuzz writes seeds there")
        for file in files {
            let input = try [UInt8](Data(contentsOf: file))
            #expect(throws: Never.self, "\(file.lastPathComponent)") { try target.run(input) }
        }
    }

    @Test("seeds from a trace: each direction's stream for frames, control payloads for bson, whole RPC messages for rpc")
    func seedsFromTrace() throws {
        let json = Array(#"{"appName":"Fuzz"}"#.utf8)
        let rpc = RPCPacket(messageType: .request, functionID: 1, correlationID: 7, json: json).encoded
        let single = Frame(header: FrameHeader(version: 5, frameType: .single, serviceType: .rpc, frameInfo: 0, sessionID: 1,
                                               dataSize: UInt32(rpc.count), messageID: 1), payload: rpc)
        let bson = ControlPayload(protocolVersion: "5.4.1").encoded
        let control = Frame(header: FrameHeader(version: 1, frameType: .control, serviceType: .rpc, frameInfo: 1, sessionID: 0,
                                                dataSize: UInt32(bson.count), messageID: 0), payload: bson)
        let multi = FrameFragmenter.frames(for: rpc, version: 5, serviceType: .rpc, sessionID: 1, messageID: 2, maximumPayloadPerFrame: 8)
        func line(_ direction: String, _ frame: Frame) -> String {
            let hex = frame.encoded.map { String(format: "%02x", $0) }.joined()
            return #"{"direction":"\#(direction)","bytes":"\#(hex)"}"#
        }
        let lines: [String] = [line("sent", control), line("received", single)] + multi.map { line("sent", $0) }
        let trace = lines.joined(separator: "\n")

        let streams = try FuzzSeeds.fromTrace(Array(trace.utf8), for: .frames)
        #expect(streams == [[0] + control.encoded + multi.flatMap(\.encoded), [1] + single.encoded])
        #expect(try FuzzSeeds.fromTrace(Array(trace.utf8), for: .bson) == [bson])
        #expect(try FuzzSeeds.fromTrace(Array(trace.utf8), for: .rpc) == [rpc, rpc])
        #expect(throws: FuzzSeeds.TraceError.self) { try FuzzSeeds.fromTrace(Array("not json\n".utf8), for: .rpc) }
    }
}
