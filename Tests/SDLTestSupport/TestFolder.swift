package import Foundation

/// A folder of one test's own under the temporary directory, made empty and removed with
/// everything in it when the value goes: tests write only here, so none depends on what
/// another left, and `scripts/test` can tell a test that writes elsewhere by what is left.
package final class TestFolder: Sendable {
    /// Where the folder is.
    package let url: URL

    /// Makes an empty folder whose name starts with `label`.
    package init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The folder's path.
    package var path: String { url.path }

    /// The path of `name` inside the folder (not created).
    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
