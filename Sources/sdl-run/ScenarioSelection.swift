import ArgumentParser
import SDLScenario

/// Which scenarios a command runs, and the variables they read: the options `run` and
/// `compare` share, so a suite chosen by tags on the emulator is the same suite on core.
struct ScenarioSelection: ParsableArguments {
    @Option(name: .customLong("var"), help: ArgumentHelp("A variable for ${NAME} in the scenarios; VALUE is JSON when it parses as JSON, else text.", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @Option(help: ArgumentHelp("Run only scenarios with one of these tags.", valueName: "tag"))
    var include: [String] = []

    @Option(help: ArgumentHelp("Leave out scenarios with any of these tags.", valueName: "tag"))
    var exclude: [String] = []

    func validate() throws {
        _ = try ScenarioInputs.variables(variables)
    }

    /// Every input read and checked (a typo must not cost a bench run), then the ones the
    /// tags choose; says how many the tags left out.
    func load(_ inputs: [String]) throws -> [Scenario] {
        let loaded = try ScenarioInputs.load(inputs, variables: try ScenarioInputs.variables(variables))
        let chosen = loaded.filter { scenario in
            (include.isEmpty || scenario.tags.contains(where: include.contains)) && !scenario.tags.contains(where: exclude.contains)
        }
        if chosen.count < loaded.count {
            print("\(loaded.count - chosen.count) of \(loaded.count) scenarios left out by --include/--exclude")
        }
        guard !chosen.isEmpty else { throw CommandFailure.invalid("no scenario has the tags asked for (--include \(include), --exclude \(exclude))") }
        return chosen
    }
}
