import Foundation
import Testing

@Suite("Generated file drift")
struct GeneratedFileDriftTests {
    /// `scripts/generate-rpc --check` regenerates the Swift from the committed digest and
    /// fails when a generated file was edited by hand or the generator changed.
    @Test func generatedSwiftMatchesTheGenerator() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("scripts/generate-rpc")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--check"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
    }
}
