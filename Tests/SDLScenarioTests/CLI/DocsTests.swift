import Foundation
import SDLEmulator
import SDLScenario
import SmartDeviceLink
import Testing

/// The guides' commands run, so the guides cannot rot: every fenced block right after a
/// `<!-- runnable -->` line in README.md and docs/*.md. A `sh` block's lines run one by one in
/// the package's folder with this build's `sdl-run` first on PATH (`swift run sdl-run` is read
/// as `sdl-run`), each must exit 0; a `json` block is a scenario run against the embedded
/// emulator.
@Suite("the documents' runnable blocks")
struct DocsTests {
    struct Block: Sendable, CustomStringConvertible {
        var file: String
        var line: Int
        var language: String
        var text: String
        var description: String { "\(file):\(line)" }
    }

    static let root = CommandRunner.packageRoot

    static let blocks: [Block] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        let files = ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        return files.flatMap { file -> [Block] in
            guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else { return [] }
            let lines = text.components(separatedBy: "\n")
            var found: [Block] = []
            var index = 0
            while index < lines.count - 1 {
                defer { index += 1 }
                guard lines[index].trimmingCharacters(in: .whitespaces) == "<!-- runnable -->", lines[index + 1].hasPrefix("```") else { continue }
                let language = String(lines[index + 1].dropFirst(3))
                guard let end = lines[(index + 2)...].firstIndex(where: { $0.hasPrefix("```") }) else { continue }
                found.append(Block(file: file, line: index + 2, language: language, text: lines[(index + 2)..<end].joined(separator: "\n")))
                index = end
            }
            return found
        }
    }()

    @Test("there are runnable blocks in the README and the guides")
    func found() {
        #expect(Self.blocks.count >= 8, "\(Self.blocks)")
        #expect(Self.blocks.contains { $0.file == "README.md" })
    }

    /// The Swift examples of the README, the guides and the DocC articles are compiled: each
    /// must be found, line for line, in the test file the compiler builds.
    @Test("every Swift example of the documents is in DocumentedSnippets.swift, which the build compiles")
    func swiftExamplesCompile() throws {
        let snippets = try String(contentsOf: Self.root.appendingPathComponent("Tests/SDLManagerTests/Documentation/DocumentedSnippets.swift"),
                                  encoding: .utf8)
        let compiled = Self.codeLines(snippets)
        let articles = Self.root.appendingPathComponent("Sources/SmartDeviceLink/SmartDeviceLink.docc")
        let docc = (try FileManager.default.contentsOfDirectory(atPath: articles.path)).filter { $0.hasSuffix(".md") }
            .map { "Sources/SmartDeviceLink/SmartDeviceLink.docc/\($0)" }
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        var examples = 0
        for file in ["README.md"] + docs + docc {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for block in Self.fencedBlocks(text, language: "swift") {
                examples += 1
                let lines = Self.codeLines(block).filter { !$0.hasPrefix("import ") }
                let found = compiled.indices.contains { start in
                    compiled[start...].starts(with: lines)
                }
                #expect(found, "\(file): a Swift example that DocumentedSnippets.swift does not hold:\n\(block)")
            }
        }
        #expect(examples >= 6, "the documents' Swift examples were not found")
    }

    /// A code text's lines, trimmed, blank ones left out: indentation differs between a
    /// document and a function body.
    static func codeLines(_ text: String) -> [String] {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func fencedBlocks(_ text: String, language: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            if current == nil, line.hasPrefix("```\(language)") {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The scenario guide is the language's reference beside the schema: a step, an
    /// expectation or a driver action added to the code and not to the guide fails here.
    @Test("the scenario guide names every step, expectation and driver action")
    func scenarioGuideIsComplete() throws {
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/scenarios.md"), encoding: .utf8)
        let schema = try JSONValue.parse(Array(ScenarioSchema.text.utf8))
        let definitions = schema["$defs"]
        var names: [String] = []
        for definition in ["step", "expectation", "transportExpectation", "mediaExpectation", "protectedExpectation", "response"] {
            names += definitions?[definition]?["properties"]?.objectValue?.keys.map { $0 } ?? []
        }
        names += schema["properties"]?.objectValue?.keys.filter { $0 != "$schema" } ?? []
        names += HeadUnitEmulator.driverActions.filter { !$0.controlOnly }.map(\.name)
        #expect(names.count > 60, "the schema's definitions were not found: \(names)")
        let missing = Set(names).filter { !guide.contains("`\($0)`") && !guide.contains("\"\($0)\"") }
        #expect(missing.isEmpty, "docs/scenarios.md does not mention \(missing.sorted())")
    }

    @Test("each runnable block passes", arguments: blocks)
    func runs(block: Block) async throws {
        switch block.language {
        case "json":
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("doc-\(UUID().uuidString).json")
            try Data(block.text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try await CommandRunner.sdlRun([file.path])
            #expect(result.exitCode == 0, "\(block): \(result.stdout)\(result.stderr)")
        case "sh":
            let bin = CommandRunner.sdlRun.deletingLastPathComponent().path
            for line in block.text.components(separatedBy: "\n") {
                let command = line.replacingOccurrences(of: "swift run sdl-run", with: "sdl-run")
                    .components(separatedBy: " #").first!.trimmingCharacters(in: .whitespaces)
                guard !command.isEmpty, !command.hasPrefix("#") else { continue }
                let result = try await CommandRunner.run(URL(fileURLWithPath: "/bin/sh"),
                                                         ["-c", "cd '\(Self.root.path)' && PATH='\(bin)':\"$PATH\" \(command)"])
                #expect(result.exitCode == 0, "\(block) `\(command)`: \(result.stdout)\(result.stderr)")
            }
        default:
            Issue.record("\(block): a runnable block is sh or json, not \(block.language)")
        }
    }
}
