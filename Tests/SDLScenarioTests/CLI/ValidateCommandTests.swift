import Foundation
import Testing

/// Broken scenario files: each exits 2 and names the exact place of the problem.
@Suite("sdl-run validate: broken scenarios exit 2 and point at the problem")
struct ValidateCommandTests {
    static let fixtures = CommandRunner.packageRoot.appendingPathComponent("Tests/SDLScenarioTests/Fixtures/broken")

    /// (file, location in the message, what the message must also say)
    static let cases: [(String, String, String)] = [
        ("syntax-error.json", "line 4, column 21", "expected ',' or '}'"),
        ("misspelt-rpc.json", "$.steps[1].send", "did you mean \"Show\"?"),
        ("misspelt-parameter.json", "$.steps[0].params.mainFeild1", "did you mean \"mainField1\""),
        ("misspelt-enum.json", "$.steps[0].params.alignment", "CENTERED"),
        ("out-of-range.json", "$.steps[0].params.cmdID", "-5"),
        ("missing-mandatory.json", "$.steps[0].params.menuID", "mandatory"),
        ("unknown-step.json", "$.steps[0].wiat", "did you mean \"wait\"?"),
        ("two-kinds.json", "$.steps[0]", "found send and wait"),
        ("missing-app.json", "$.app", "is required"),
        ("bad-matcher.json", "$.steps[0].expect.params.hmiLevel.$regexp", "did you mean \"$regex\"?"),
        ("notification-typo.json", "$.steps[0].expect.notification", "did you mean \"OnHMIStatus\"?"),
        ("wrong-param-in-expect.json", "$.steps[0].expect.params.hmilevel", "did you mean \"hmiLevel\"?"),
        ("bad-driver.json", "$.steps[0].driver.pressSoftbutton", "did you mean \"pressSoftButton\"?"),
        ("bad-vehicle-data.json", "$.steps[0].subscribe[0]", "did you mean \"speed\"?"),
        ("bad-language.json", "$.app.language", "did you mean \"EN-US\"?"),
        ("enum-in-expect.json", "$.steps[0].expect.params.hmiLevel", "did you mean \"FULL\"?"),
        ("enum-in-nested-expect.json", "$.steps[0].expect.params.buttonName", "did you mean \"SEEKLEFT\"?"),
        ("undefined-variable.json", "$.steps[1].params.cmdID", "${pickd} is never defined; did you mean \"picked\"?"),
        ("transport-typo.json", "$.steps[0].expect.transport", "did you mean \"secondaryRegistered\"?"),
        ("stream-service.json", "$.steps[0].stream.service", "did you mean \"video\"?"),
        ("timeout-on-expect.json", "$.steps[0].timeout", "an expectation waits \"within\" ms"),
        ("timeout-on-background.json", "$.steps[0].background", "not by response/capture/timeout here"),
        ("unchecked-on-expect.json", "$.steps[0].unchecked", "only a send or notify step"),
        ("lock-screen-status.json", "$.steps[0].expect.lockScreen", "did you mean \"REQUIRED\"?"),
        ("answer-typo.json", "$.steps[0].answer", "did you mean \"GetAppServiceData\"?"),
        ("answer-result-code.json", "$.steps[0].resultCode", "did you mean \"SUCCESS\"?"),
        ("answer-request-key.json", "$.steps[0].request.serviceTipe", "did you mean \"serviceType\"?"),
    ]

    @Test("validate names the location and the fix", arguments: cases)
    func validateReports(file: String, location: String, hint: String) async throws {
        let path = Self.fixtures.appendingPathComponent(file).path
        let result = try await CommandRunner.sdlRun(["validate", path])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("\(path): \(location)"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(hint), "stderr: \(result.stderr)")
    }

    @Test("running a broken scenario exits 2 before connecting anywhere")
    func runRefusesBrokenScenario() async throws {
        let path = Self.fixtures.appendingPathComponent("misspelt-rpc.json").path
        // The TCP port is closed: had it tried to connect, the exit code would be 3.
        let result = try await CommandRunner.sdlRun([path, "--tcp", "127.0.0.1:1"])
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains("$.steps[1].send"))
    }

    @Test("every example validates")
    func examplesValidate() async throws {
        let examples = CommandRunner.packageRoot.appendingPathComponent("examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.path)
            .filter { $0.hasSuffix(".json") && $0 != "scenario.schema.json" }.sorted()
        #expect(files.count >= 7)
        let result = try await CommandRunner.sdlRun(["validate"] + files.map { examples.appendingPathComponent($0).path })
        #expect(result.exitCode == 0, "\(result.stderr)")
    }

    @Test("the published schema file is what `sdl-run schema` prints, python's jsonschema accepts every example with it and refuses mistakes")
    func schemaIsPublished() async throws {
        let result = try await CommandRunner.sdlRun(["schema"])
        #expect(result.exitCode == 0)
        let file = CommandRunner.packageRoot.appendingPathComponent("examples/scenario.schema.json")
        let published = try String(contentsOf: file, encoding: .utf8)
        #expect(published == result.stdout, "regenerate with: swift run sdl-run schema > examples/scenario.schema.json")
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(parsed?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        // What an editor does with it: every example keeps it, and a misspelt key or both app and apps do not.
        let check = """
            import glob, json, os, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            folder = os.path.dirname(sys.argv[1])
            for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
                if not path.endswith("schema.json"):
                    jsonschema.validate(json.load(open(path)), schema)
            app = {"appName": "A", "appID": "a"}
            for wrong in [{"app": dict(app, isMeda=True), "steps": []}, {"app": app, "apps": [dict(app, **{"as": "a"})], "steps": []},
                          {"apps": [app], "steps": []}]:
                try:
                    jsonschema.validate(wrong, schema)
                    sys.exit("passed: %s" % wrong)
                except jsonschema.ValidationError:
                    pass
            print("ok")
            """
        let python = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", check, file.path])
        #expect(python.exitCode == 0 && python.stdout.contains("ok"), "\(python.stderr)")
    }

    @Test("the emulator's configuration schema is published, and python's jsonschema accepts the example config with it and refuses a typo")
    func emulatorConfigSchema() async throws {
        let result = try await CommandRunner.sdlRun(["schema", "--emulator-config"])
        #expect(result.exitCode == 0)
        let folder = CommandRunner.packageRoot.appendingPathComponent("examples/emulator")
        let published = try String(contentsOf: folder.appendingPathComponent("config.schema.json"), encoding: .utf8)
        #expect(published == result.stdout, "regenerate with: swift run sdl-run schema --emulator-config > examples/emulator/config.schema.json")
        let check = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.validate(json.load(open(sys.argv[2])), schema)
            try:
                jsonschema.validate({"storage": {"quotta": 1}}, schema)
                sys.exit("a misspelt key passed")
            except jsonschema.ValidationError:
                print("ok")
            """
        // Debian's python3 with Debian's python3-jsonschema (scripts/setup).
        let python = try await CommandRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), [
            "-c", check, folder.appendingPathComponent("config.schema.json").path, folder.appendingPathComponent("hu.json").path,
        ])
        #expect(python.exitCode == 0 && python.stdout.contains("ok"), "\(python.stderr)")
    }

    @Test("sdl-run --version names the tool, the protocol and the RPC spec it speaks")
    func version() async throws {
        let result = try await CommandRunner.sdlRun(["--version"])
        #expect(result.exitCode == 0)
        #expect(result.stdout == "sdl-run 0.2.0 (SDL protocol 5.4.1, RPC spec 8.0.0)\n")
    }
}
