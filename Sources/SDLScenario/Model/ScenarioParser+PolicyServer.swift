import Foundation
import SmartDeviceLink

/// A scenario's `policyServer`: a policy server the run starts for its policy table update,
/// answering with a policy table file beside the scenario.
public struct PolicyServerSpec: Sendable, Hashable {
    /// The policy table update file, as a path the run can open.
    public var update: String
    /// Where it listens: sdl_server's 127.0.0.1:3000 unless the scenario says; port 0 (a free
    /// port) is for the embedded emulator only, which learns the URL from the server.
    public var host: String
    /// See ``host``.
    public var port: UInt16
    /// What it hands out to a GET, by path: files beside the scenario (a cloud app's icon).
    public var files: [String: String] = [:]

    /// Its URL, as a head unit's policy table names it (`scripts/run-core --policy-url`).
    public var url: String { "http://\(host):\(port)/api/1/policies/proprietary" }
}

extension ScenarioReader {
    mutating func policyServer(_ value: JSONValue?, _ path: String) -> PolicyServerSpec? {
        guard let object = objectValue(value, path) else { return nil }
        unknownKeys(object, allowed: ["update", "listen", "files"], path)
        guard let file = string(object["update"], "\(path).update", required: true) else { return nil }
        let update = resolve(file)
        do { _ = try PolicyServer.readUpdate(at: update) } catch {
            issue("\(path).update", error.description.replacingOccurrences(of: "policy server: ", with: ""))
            return nil
        }
        let listen = string(object["listen"], "\(path).listen") ?? "127.0.0.1:3000"
        let parts = listen.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else {
            issue("\(path).listen", "expected host:port, e.g. 127.0.0.1:3000, found \(listen)")
            return nil
        }
        var files: [String: String] = [:]
        for (served, file) in objectValue(object["files"], "\(path).files") ?? [:] {
            guard served.hasPrefix("/") else { issue("\(path).files.\(served)", "a path the server answers starts with /"); continue }
            guard let name = string(file, "\(path).files.\(served)") else { continue }
            let resolved = resolve(name)
            let type = (try? FileManager.default.attributesOfItem(atPath: resolved))?[.type] as? FileAttributeType
            if type != .typeRegular || !FileManager.default.isReadableFile(atPath: resolved) {
                issue("\(path).files.\(served)", "cannot read \(resolved) (a file beside the scenario)")
            }
            files[served] = resolved
        }
        return PolicyServerSpec(update: update, host: String(parts[0]), port: port, files: files)
    }
}

extension PolicyServer {
    /// The server a scenario's `policyServer` describes, started.
    /// The server of a scenario; with `namedAs`, the address the update's URLs were written for.
    public convenience init(_ spec: PolicyServerSpec, namedAs origin: String? = nil) throws(PolicyServerError) {
        var files: [String: [UInt8]] = [:]
        for (served, path) in spec.files {
            guard let bytes = FileManager.default.contents(atPath: path) else { throw PolicyServerError(description: "policy server: cannot read \(path)") }
            files[served] = Array(bytes)
        }
        try self.init(update: try PolicyServer.readUpdate(at: spec.update), files: files, host: spec.host, port: spec.port, namedAs: origin)
    }
}
