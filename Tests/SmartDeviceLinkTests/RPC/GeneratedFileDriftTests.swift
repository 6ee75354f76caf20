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
        let finished = try await runChildProcess("/usr/bin/env", ["python3", script.path, "--check"], errorsIntoOutput: true)
        #expect(finished.status == 0, "\(String(decoding: finished.output, as: UTF8.self))")
    }
}
