@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// Every request type of the spec, sent as a valid request of its smallest form to an app
/// the policy lets do anything: each gets an answer of its own function that keeps the spec,
/// and none is refused as a request the emulator does not model.
@Suite("The emulator's request surface")
struct RequestSurfaceTests {
    static let spec = RPCSpec.shared
    static let levels: Set<String> = ["NONE", "BACKGROUND", "FULL", "LIMITED"]
    /// Ends the registration: sent last.
    static let last = ["CloseApplication", "UnregisterAppInterface"]

    static var requests: [String] {
        let names = spec.functions.filter { $0.messageType == .request && $0.until == nil && $0.name != "RegisterAppInterface" }.map(\.name)
        return names.filter { !last.contains($0) } + last
    }

    @Test("each request type of the spec is answered, as its own function and within the spec")
    func everyRequestIsModelled() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration { configuration in
            for name in Self.requests { configuration.policy.defaultPermissions[name] = Self.levels }
        })
        let app = try await TestApp.connect(headUnit)
        try await app.register(media: true, extra: ["appHMIType": ["MEDIA", "NAVIGATION", "REMOTE_CONTROL"]])
        try await headUnit.activateApp()
        var answered: [String: String] = [:]
        for name in Self.requests {
            let parameters = try #require(Self.smallest(function: name), "\(name) is in the spec")
            let response = try await app.request(name, parameters, timeout: .seconds(20))
            #expect(response.functionName == name, "\(name) answered as \(response.functionName)")
            let code = response["resultCode"]?.stringValue ?? "none"
            let info = response["info"]?.stringValue ?? ""
            #expect(!info.contains("does not model"), "\(name): \(code) \(info)")
            let problems = Self.spec.violations(function: name, messageType: .response, parameters: response.parameters, direction: .incoming)
            #expect(problems.isEmpty, "\(name)'s response: \(problems.map(\.description))")
            answered[name] = code
        }
        #expect(answered.count == Self.requests.count)
        #expect(answered.count > 60, "the spec has more request types than \(answered.count)")
        await headUnit.stop()
    }

    /// A function's mandatory parameters with the smallest values the spec allows.
    static func smallest(function name: String) -> JSONObject? {
        spec.function(named: name, messageType: .request).map { smallest($0.params) }
    }

    static func smallest(_ params: [RPCSpec.Param]) -> JSONObject {
        var object: JSONObject = [:]
        for param in params where param.isMandatory && param.until == nil {
            let value = smallestValue(param)
            object[param.name] = param.isArray ? .array(Array(repeating: value, count: max(param.minSize ?? 1, 1))) : value
        }
        return object
    }

    static func smallestValue(_ param: RPCSpec.Param) -> JSONValue {
        switch param.kind {
        case .string: return .string(String(repeating: "a", count: max(param.minLength ?? 1, 1)))
        case .integer: return .int(Int64(param.minValue ?? 0))
        case .float: return .double(param.minValue ?? 0)
        case .boolean: return false
        case .enumeration(let name):
            return .string(param.allowedValues?.first ?? spec.enumeration(named: name)?.elements.first { $0.until == nil }?.name ?? "")
        case .structure(let name):
            return .object(spec.structure(named: name).map { smallest($0.params) } ?? [:])
        }
    }
}
