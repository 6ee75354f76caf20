import ArgumentParser
import Foundation
import SDLScenario

/// `sdl-run index REPORTS`: the index page of a reports folder that something other than
/// `sdl-run watch` fills, such as the farm's runs (`scripts/sdl-farm`), one folder a run.
struct Index: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make index.html of a reports folder: its runs (folders with run.json) newest first, with place and exporter on a farm.")

    @Argument(help: ArgumentHelp("The folder that holds one folder a run.", valueName: "reports"))
    var reports: String

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: reports, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure.invalid("no reports folder \(reports): give the folder that holds the run folders")
        }
        do { try BenchIndex.write(reports: reports) } catch {
            throw CommandFailure.invalid("cannot write \(reports)/index.html: \(error.localizedDescription)")
        }
        print((reports as NSString).appendingPathComponent("index.html"))
    }
}
