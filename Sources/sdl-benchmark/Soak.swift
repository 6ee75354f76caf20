import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SDLScenario

/// `sdl-benchmark soak [RUNS]`: runs the examples one after another against the embedded
/// emulator in this one process, as a bench's watch mode does for days, and prints the
/// resident memory after a warm-up and at the end. Flat memory is the goal; the numbers
/// are for people, as everywhere in sdl-bench.
enum Soak {
    static func run(runs: Int, examples folder: String = "examples") async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".json") && $0 != "scenario.schema.json" }.sorted()
        let scenarios = try files.map { try ScenarioParser.load(path: "\(folder)/\($0)") }
        guard !scenarios.isEmpty else { throw SoakError(description: "no scenarios in \(folder)") }
        let runner = ScenarioRunner(promptPolicy: .skip)
        // At least one run before the first reading, or the end has nothing to compare with.
        let warmUp = max(1, min(scenarios.count * 5, runs / 5))
        var outcomes: [ScenarioResult.Status: Int] = [:]
        var afterWarmUp = 0
        let started = ContinuousClock.now
        print("soak: \(runs) runs of \(scenarios.count) examples against the embedded emulator; resident memory at start \(megabytes(residentBytes()))")
        for index in 0..<runs {
            let scenario = scenarios[index % scenarios.count]
            let result = await runner.run(scenario, on: try EmbeddedEmulator.target(for: scenario))
            outcomes[result.status, default: 0] += 1
            if index + 1 == warmUp {
                afterWarmUp = residentBytes()
                print("soak: after \(warmUp) warm-up runs \(megabytes(afterWarmUp))")
            } else if (index + 1) % max(runs / 5, 1) == 0 {
                print("soak: after \(index + 1) runs \(megabytes(residentBytes()))")
            }
            fflush(nil)  // progress shows as it happens, also when written to a file (nil: every stream)
        }
        let end = residentBytes()
        let seconds = (ContinuousClock.now - started).seconds
        let counts = outcomes.map { "\($0.value) \($0.key.rawValue)" }.sorted().joined(separator: ", ")
        print(String(format: "soak: %d runs in %.0f s (%@); resident memory %@ after warm-up, %@ at the end: ratio %.2f, %+.1f KB per 100 runs",
                     runs, seconds, counts as NSString, megabytes(afterWarmUp) as NSString, megabytes(end) as NSString,
                     Double(end) / Double(max(afterWarmUp, 1)),
                     Double(end - afterWarmUp) / 1024 / Double(max(runs - warmUp, 1)) * 100))
    }

    struct SoakError: Error, CustomStringConvertible {
        var description: String
    }

    /// VmRSS of this process, from /proc.
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
}
