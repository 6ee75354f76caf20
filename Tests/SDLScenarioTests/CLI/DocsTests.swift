import Foundation
import SDLEmulator
import SDLScenario
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The guides' commands run, so the guides cannot rot: every fenced block right after a
/// `<!-- runnable -->` line in README.md and docs/*.md. A `sh` block's lines run one by one in
/// the package's folder with this build's `sdl-run` first on PATH (`swift run sdl-run` is read
/// as `sdl-run`), each must exit 0; a `json` block is a scenario run against the embedded
/// emulator.
@Suite("the documents' runnable blocks")
struct DocsTests {
    /// A fenced block of a document: where it starts, its language, and whether the line
    /// before it marks it `<!-- runnable -->`.
    struct Block: Sendable, CustomStringConvertible {
        var file: String
        var line: Int
        var language: String
        var text: String
        var runnable: Bool
        var description: String { "\(file):\(line)" }
    }

    static let root = CommandRunner.packageRoot

    /// The documents whose blocks are checked: the README, the guides and the DocC articles.
    static let documents: [String] = {
        func markdown(in folder: String) -> [String] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
            return names.filter { $0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
        }
        return ["README.md"] + markdown(in: "docs") + markdown(in: "Sources/SmartDeviceLink/SmartDeviceLink.docc")
    }()

    /// Every fenced block of every document.
    static let allBlocks: [Block] = documents.flatMap { file -> [Block] in
        guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else { return [] }
        let lines = text.components(separatedBy: "\n")
        var found: [Block] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            guard lines[index].hasPrefix("```") else { continue }
            guard let end = lines[(index + 1)...].firstIndex(where: { $0.hasPrefix("```") }) else { break }
            let runnable = index > 0 && lines[index - 1].trimmingCharacters(in: .whitespaces) == "<!-- runnable -->"
            found.append(Block(file: file, line: index + 1, language: String(lines[index].dropFirst(3)),
                               text: lines[(index + 1)..<end].joined(separator: "\n"), runnable: runnable))
            index = end
        }
        return found
    }

    static let blocks = allBlocks.filter(\.runnable)

    @Test("there are runnable blocks in the README and the guides")
    func found() {
        #expect(Self.blocks.count >= 8, "\(Self.blocks)")
        #expect(Self.blocks.contains { $0.file == "README.md" })
    }

    /// The Swift examples of the README, the guides and the DocC articles are compiled: each
    /// must be found, line for line, in the test file the compiler builds, or in the example
    /// apps' code (the guide walks through the media app; scripts/test-examples builds it).
    @Test("every Swift example of the documents is in DocumentedSnippets.swift or an example app, which the tests compile")
    func swiftExamplesCompile() throws {
        var sources = [Self.root.appendingPathComponent("Tests/SDLManagerTests/Documentation/DocumentedSnippets.swift")]
        let apps = Self.root.appendingPathComponent("Examples")
        for case let file as URL in FileManager.default.enumerator(at: apps, includingPropertiesForKeys: nil) ?? .init()
        where file.pathExtension == "swift" && file.path.contains("/Sources/") {
            sources.append(file)
        }
        #expect(sources.count >= 5, "the example apps' sources were not found under \(apps.path)")
        let compiled = try sources.map { Self.codeLines(try String(contentsOf: $0, encoding: .utf8)) }
        let examples = Self.allBlocks.filter { $0.language == "swift" }
        for example in examples {
            let lines = Self.codeLines(example.text).filter { !$0.hasPrefix("import ") }
            let found = compiled.contains { code in code.indices.contains { code[$0...].starts(with: lines) } }
            #expect(found, "\(example): a Swift example that neither DocumentedSnippets.swift nor an example app holds:\n\(example.text)")
        }
        #expect(examples.count >= 6, "the documents' Swift examples were not found")
    }

    /// A code text's lines, trimmed, blank ones left out: indentation differs between a
    /// document and a function body.
    static func codeLines(_ text: String) -> [String] {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
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
            let scratch = try TestFolder("doc-block")
            let file = scratch.url.appendingPathComponent("scenario.json")
            try Data(block.text.utf8).write(to: file)
            let result = try await CommandRunner.sdlRun([file.path])
            #expect(result.exitCode == 0, "\(block): \(result.stdout)\(result.stderr)")
        case "sh":
            // A reader runs these in the checkout; here they run in a folder of the test's own
            // with a copy of the examples, so what a block writes (reports, traces, what a
            // scenario records beside itself) stays in it.
            let scratch = try TestFolder("doc-block")
            try FileManager.default.copyItem(atPath: Self.root.appendingPathComponent("examples").path, toPath: scratch.path("examples"))
            let bin = CommandRunner.sdlRun.deletingLastPathComponent().path
            for line in block.text.components(separatedBy: "\n") {
                let command = line.replacingOccurrences(of: "swift run sdl-run", with: "sdl-run")
                    .components(separatedBy: " #").first!.trimmingCharacters(in: .whitespaces)
                guard !command.isEmpty, !command.hasPrefix("#") else { continue }
                let result = try await CommandRunner.run(URL(fileURLWithPath: "/bin/sh"),
                                                         ["-c", "cd '\(scratch.path)' && PATH='\(bin)':\"$PATH\" \(command)"])
                #expect(result.exitCode == 0, "\(block) `\(command)`: \(result.stdout)\(result.stderr)")
            }
        default:
            Issue.record("\(block): a runnable block is sh or json, not \(block.language)")
        }
    }
}
