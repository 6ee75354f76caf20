import Foundation
import SDLFuzz

// Built two ways. `scripts/fuzz` builds it with -sanitize=fuzzer and -DSDL_LIBFUZZER:
// libFuzzer's own main then drives LLVMFuzzerTestOneInput, the target named by the
// SDL_FUZZ_TARGET environment variable. Built plainly, it replays inputs and makes seeds.

/// The target of this fuzzing process, read once from SDL_FUZZ_TARGET.
private let fuzzTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["SDL_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("sdl-fuzz: set SDL_FUZZ_TARGET to one of \(names) (got '\(name)')\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try fuzzTarget.run(input)
    } catch {
        fatalError("property broken: \(error)")
    }
    return 0
}

#if !SDL_LIBFUZZER
@main
struct SDLFuzzTool {
    static let usage = """
        usage: sdl-fuzz run TARGET PATH...           replay inputs (files, or folders of them); exit 1 on a finding
               sdl-fuzz seed TARGET DIR TRACE.jsonl...  write seeds for TARGET taken from sdl-run --trace files
        targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))
        fuzzing itself: scripts/fuzz TARGET [SECONDS]
        """

    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 3, let target = FuzzTarget(rawValue: arguments[1]) else { fail(usage) }
        let command = arguments.removeFirst()
        arguments.removeFirst()
        switch command {
        case "run": replay(target, paths: arguments)
        case "seed": seed(target, into: arguments[0], traces: Array(arguments.dropFirst()))
        default: fail(usage)
        }
    }

    static func replay(_ target: FuzzTarget, paths: [String]) {
        var findings = 0
        var count = 0
        for file in paths.flatMap(files) {
            guard let input = FileManager.default.contents(atPath: file) else { fail("sdl-fuzz: cannot read \(file)") }
            count += 1
            do {
                try target.run(Array(input))
            } catch {
                findings += 1
                print("\(file): \(error)")
            }
        }
        print("sdl-fuzz: \(count) inputs, \(findings) findings")
        exit(findings == 0 ? 0 : 1)
    }

    static func seed(_ target: FuzzTarget, into directory: String, traces: [String]) {
        var written = 0
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for trace in traces {
                guard let jsonl = FileManager.default.contents(atPath: trace) else { fail("sdl-fuzz: cannot read \(trace)") }
                for seed in try FuzzSeeds.fromTrace(Array(jsonl), for: target) {
                    let name = (trace as NSString).lastPathComponent + ".\(written)"
                    try Data(seed).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
                    written += 1
                }
            }
        } catch {
            fail("sdl-fuzz: \(error)")
        }
        print("sdl-fuzz: \(written) seeds for \(target.rawValue) in \(directory)")
    }

    /// A file as itself; a folder as the files in it.
    static func files(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { fail("sdl-fuzz: \(path) does not exist") }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { "\(path)/\($0)" }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(2)
    }
}
#endif
