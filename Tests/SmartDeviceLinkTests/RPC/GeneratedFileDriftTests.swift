import Foundation
import SDLTestSupport
import Testing

@Suite("Generated file drift")
struct GeneratedFileDriftTests {
    /// `scripts/generate-rpc --check` regenerates the Swift from the committed digest and
    /// fails when a generated file was edited by hand or the generator changed.
    @Test func generatedSwiftMatchesTheGenerator() async throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("scripts/generate-rpc")
        let (status, output) = try await offThePool { () throws -> (Int32, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, "--check"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
        #expect(status == 0, "\(output)")
    }
}
