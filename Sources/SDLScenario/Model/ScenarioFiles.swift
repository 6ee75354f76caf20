import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SmartDeviceLink

/// What `sdl-run` was asked to run, as scenario files: files as given, directories searched
/// recursively for scenario files, and shell-style globs (`bench/*-usb.json`).
public enum ScenarioFiles {
    /// An input that names no scenario.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The scenario files `inputs` name, in order, each once. Directories and globs take the
    /// `.json` files that may be scenarios: a JSON object with neither `steps` nor `app` (a
    /// schema, an emulator configuration beside the scenarios in `examples/`) is left out,
    /// while a file that does not parse is kept so the parser says what is wrong with it. A
    /// file named on its own is always taken.
    public static func expand(_ inputs: [String]) throws(Failure) -> [String] {
        var files: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) {
                if isDirectory.boolValue {
                    let found = scenarios(in: input)
                    guard !found.isEmpty else { throw Failure(description: "\(input) holds no scenario files (.json with \"app\" and \"steps\")") }
                    files += found
                } else {
                    files.append(input)
                }
            } else if input.contains(where: { "*?[".contains($0) }) {
                let matched = glob(input).filter(mayBeScenario)
                guard !matched.isEmpty else { throw Failure(description: "\(input) matches no file") }
                files += matched
            } else {
                throw Failure(description: "\(input) does not exist; give a scenario file, a directory or a glob")
            }
        }
        var seen: Set<String> = []
        return files.filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.path).inserted }
    }

    /// Scenario files under a directory, sorted by path.
    static func scenarios(in directory: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".json") else { continue }
            let path = (directory as NSString).appendingPathComponent(relative)
            if mayBeScenario(path) { found.append(path) }
        }
        return found.sorted()
    }

    static func mayBeScenario(_ path: String) -> Bool {
        guard path.hasSuffix(".json") else { return false }
        guard let data = FileManager.default.contents(atPath: path),
              case .object(let root)? = try? JSONValue.parse(Array(data)) else { return true }
        return root["steps"] != nil || root["app"] != nil
    }

    static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
    }
}

extension ScenarioParser {
    /// The line and column of byte `offset` in a file, both from 1.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (Int, Int) {
        var line = 1, column = 1
        for byte in bytes.prefix(offset) {
            if byte == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        return (line, column)
    }
}
