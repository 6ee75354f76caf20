import Foundation
import SDLScenario
import SmartDeviceLink
import Testing

/// A suite on the bench: directories, globs, tags and variables.
@Suite("Suites: directories, globs, tags, --var and ${env.NAME}")
struct SuiteInputTests {
    /// A folder with two scenarios (one nested, tagged), a schema, an emulator configuration
    /// and a file that does not parse.
    static func bench() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sdl-suite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("usb"), withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) throws {
            try text.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try write("hello.json", #"{"tags": ["smoke"], "app": {"appName": "Hello", "appID": "hello-1"}, "steps": [{"driver": "activateApp"}, {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}}]}"#)
        try write("usb/show.json", #"{"tags": ["slow"], "app": {"appName": "Shows", "appID": "show-1"}, "steps": [{"driver": "activateApp"}, {"send": "Show", "params": {"mainField1": "${greeting}"}}]}"#)
        try write("scenario.schema.json", #"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}"#)
        try write("hu.json", #"{"timeScale": 0.1}"#)
        return root
    }

    @Test("a directory gives its scenarios, nested ones too, without the schema and the emulator configuration; a glob filters the same way")
    func directoriesAndGlobs() throws {
        let root = try Self.bench()
        defer { try? FileManager.default.removeItem(at: root) }
        let found = try ScenarioFiles.expand([root.path]).map { String($0.dropFirst(root.path.count + 1)) }
        #expect(found == ["hello.json", "usb/show.json"])
        #expect(try ScenarioFiles.expand([root.path + "/*.json"]).map { URL(fileURLWithPath: $0).lastPathComponent } == ["hello.json"])
        #expect(try ScenarioFiles.expand([root.path, root.path + "/hello.json"]).count == 2, "each file once")
        try "{ not json".write(to: root.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
        #expect(try ScenarioFiles.expand([root.path]).contains { $0.hasSuffix("broken.json") }, "a file that does not parse is kept, so it is reported")
        #expect(throws: ScenarioFiles.Failure.self) { try ScenarioFiles.expand([root.path + "/nothing-*.json"]) }
        #expect(throws: ScenarioFiles.Failure.self) { try ScenarioFiles.expand([root.path + "/missing.json"]) }
    }

    @Test("${env.NAME} reads the environment when the scenario loads; an unset one is an error that says how to set it")
    func environment() throws {
        let text = #"{"app": {"appName": "E", "appID": "e"}, "steps": [{"send": "Show", "params": {"mainField1": "${env.SDL_SUITE_TEST_GREETING}"}}]}"#
        unsetenv("SDL_SUITE_TEST_GREETING")
        #expect {
            try ScenarioParser.parse(Array(text.utf8), source: "inline")
        } throws: { error in
            "\(error)".contains("environment variable SDL_SUITE_TEST_GREETING, which is not set; set it, or pass --var env.SDL_SUITE_TEST_GREETING=VALUE")
        }
        setenv("SDL_SUITE_TEST_GREETING", "Hallo", 1)
        defer { unsetenv("SDL_SUITE_TEST_GREETING") }
        let scenario = try ScenarioParser.parse(Array(text.utf8), source: "inline")
        #expect(scenario.variables["env.SDL_SUITE_TEST_GREETING"] == "Hallo")
    }

    @Test("sdl-run on a directory with --include/--exclude and --var: the chosen scenarios run with the value sent")
    func tagsAndVariables() async throws {
        let root = try Self.bench()
        defer { try? FileManager.default.removeItem(at: root) }
        let undefined = try await CommandRunner.sdlRun(["validate", root.path])
        #expect(undefined.exitCode == 2 && undefined.stderr.contains("${greeting} is never defined"), "\(undefined.stderr)")

        let smoke = try await CommandRunner.sdlRun([root.path, "--include", "smoke", "--var", "greeting=Hi", "--no-color"])
        #expect(smoke.exitCode == 0, "\(smoke.stderr)")
        #expect(smoke.stdout.contains("1 of 2 scenarios left out by --include/--exclude"))
        #expect(smoke.stdout.contains("PASS hello") && !smoke.stdout.contains("show-1"))

        let json = root.appendingPathComponent("result.json").path
        let all = try await CommandRunner.sdlRun([root.path, "--exclude", "smoke", "--var", "greeting=\"Guten Tag\"", "--json", json, "--verbose", "--no-color"])
        #expect(all.exitCode == 0, "\(all.stdout)\n\(all.stderr)")
        #expect(all.stdout.contains("Guten Tag"), "the variable's value went out in the Show")
        let nothing = try await CommandRunner.sdlRun([root.path, "--include", "nightly", "--var", "greeting=x"])
        #expect(nothing.exitCode == 2 && nothing.stderr.contains("no scenario has the tags asked for"))
    }
}
