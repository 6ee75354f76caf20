import Foundation
import SmartDeviceLink

/// The scenario's app, its certificate for protected services, and the steps about protection.
extension ScenarioReader {
    /// `"apps": [{"as": "player", "appName": ..., "appID": ...}, ...]`: several apps, each
    /// registering on a session of its own, in this order; steps pick one with `"as"`.
    mutating func apps(_ value: JSONValue, _ path: String, alsoApp: Bool) -> [ScenarioApp] {
        if alsoApp { issue("$.app", "a scenario has one \"app\" or several \"apps\", not both: move it into \"apps\" with an \"as\" name") }
        guard case .array(let items) = value, !items.isEmpty else {
            issue(path, "expected a list of apps: [{\"as\": \"player\", \"appName\": ..., \"appID\": ...}, ...]")
            return []
        }
        var found: [ScenarioApp] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard var object = objectValue(item, itemPath) else { continue }
            let name = string(object.removeValue(forKey: "as"), "\(itemPath).as", required: true)
            guard let app = appDescription(.object(object), itemPath), let name else { continue }
            if found.contains(where: { $0.name == name }) { issue("\(itemPath).as", "\"\(name)\" names another app already; each app needs a name of its own") }
            if found.contains(where: { $0.app.appID == app.appID }) {
                issue("\(itemPath).appID", "\"\(app.appID)\" is another app's id already; a head unit tells apps apart by it")
            }
            found.append(ScenarioApp(name: name, app: app))
        }
        return found
    }

    /// A step's `"as"`: one of the apps' names; nil without it (the first app).
    mutating func appName(_ value: JSONValue?, _ path: String, kind: String) -> String? {
        guard let value else { return nil }
        guard let name = string(value, path) else { return nil }
        guard !appNames.isEmpty else {
            issue(path, "this scenario has one app; \"as\" picks one of several, listed in \"apps\"")
            return nil
        }
        guard appNames.contains(name) else {
            issue(path, "no app is called \"\(name)\"" + suggestion(name, appNames))
            return nil
        }
        if ["wait", "prompt", "exec", "repeat"].contains(kind) { issue(path, "a \(kind) step is no app's; \"as\" goes on the steps inside it or around it") }
        return name
    }

    mutating func appDescription(_ value: JSONValue?, _ path: String) -> AppDescription? {
        guard let value else {
            issue(path, "is required: {\"appName\": ..., \"appID\": ...}")
            return nil
        }
        guard let app = objectValue(value, path) else { return nil }
        let keys = ["appName", "appID", "isMedia", "appTypes", "language", "hmiLanguage", "ttsName", "vrSynonyms", "shortName", "security"]
        unknownKeys(app, allowed: keys, path)
        let name = string(app["appName"], "\(path).appName", required: true)
        let id = string(app["appID"], "\(path).appID", required: true)
        let language = string(app["language"], "\(path).language") ?? "EN-US"
        let hmiLanguage = string(app["hmiLanguage"], "\(path).hmiLanguage") ?? language
        for (key, value) in [("language", language), ("hmiLanguage", hmiLanguage)] {
            if let problem = spec.enumProblem(enumName: "Language", value: value) { issue("\(path).\(key)", problem) }
        }
        let types = strings(app["appTypes"], "\(path).appTypes") ?? ["DEFAULT"]
        for (index, type) in types.enumerated() {
            if let problem = spec.enumProblem(enumName: "AppHMIType", value: type) { issue("\(path).appTypes[\(index)]", problem) }
        }
        guard let name, let id else { return nil }
        return AppDescription(
            appName: name, appID: id, isMedia: bool(app["isMedia"], "\(path).isMedia") ?? false, appTypes: types,
            language: language, hmiLanguage: hmiLanguage, ttsName: string(app["ttsName"], "\(path).ttsName"),
            vrSynonyms: strings(app["vrSynonyms"], "\(path).vrSynonyms"), shortName: string(app["shortName"], "\(path).shortName"),
            security: app["security"].flatMap { appSecurity($0, "\(path).security", appID: id) })
    }

    /// `"security": {"certificate": "app.pem", "key": "app.key", "protocol": "DTLS"}`: files beside
    /// the scenario, read now so that a missing one is a typo with its path, not a failed run.
    ///
    /// `"security": "generated"`: a certificate made for this run (self-signed, for the app's
    /// id), which a head unit that verifies apps refuses, and the emulator without a `ca` takes.
    mutating func appSecurity(_ value: JSONValue, _ path: String, appID: String) -> SecurityConfiguration? {
        if case .string(let text) = value {
            guard text == "generated" else {
                issue(path, "expected {\"certificate\": ..., \"key\": ...} or \"generated\"")
                return nil
            }
            do {
                return SecurityConfiguration(identity: try TLSIdentity.make(commonName: "sdl-run app", appID: appID))
            } catch {
                issue(path, error.description)
                return nil
            }
        }
        guard let object = objectValue(value, path) else { return nil }
        unknownKeys(object, allowed: ["certificate", "key", "ca", "protocol"], path)
        func pem(_ key: String, _ what: String, required: Bool) -> String? {
            guard let file = string(object[key], "\(path).\(key)", required: required) else { return nil }
            do {
                return try TLSIdentity.read(resolve(file), what)
            } catch {
                issue("\(path).\(key)", error.description)
                return nil
            }
        }
        let certificate = pem("certificate", "certificate", required: true), key = pem("key", "private key", required: true)
        let ca = pem("ca", "CA certificate", required: false)
        var flavour = SecurityConfiguration.Flavour.dtls
        if let text = string(object["protocol"], "\(path).protocol") {
            guard let chosen = SecurityConfiguration.Flavour(rawValue: text.lowercased()) else {
                issue("\(path).protocol", "'\(text)' is not DTLS or TLS (what the head unit's security manager speaks; sdl_core 8.2: DTLS)")
                return nil
            }
            flavour = chosen
        }
        guard let certificate, let key else { return nil }
        return SecurityConfiguration(identity: TLSIdentity(certificatePEM: certificate, privateKeyPEM: key), trustedCertificates: ca, flavour: flavour)
    }

    static let protectableServices: [String: ServiceType] = ["rpc": .rpc, "audio": .audio, "video": .video]

    /// `{"protect": "rpc"}`, or `{"protect": {"service": "video", "refused": "Invalid certificate"}}`
    /// for a start the head unit must refuse (or, for audio and video, start unprotected).
    mutating func protectStep(_ value: JSONValue, _ path: String) -> ProtectStep? {
        if case .string = value {
            return service(value, path).map { ProtectStep(service: $0, refusal: nil) }
        }
        guard let object = objectValue(value, path) else { return nil }
        unknownKeys(object, allowed: ["service", "refused"], path)
        guard let service = service(object["service"] ?? .null, "\(path).service") else { return nil }
        return ProtectStep(service: service, refusal: string(object["refused"], "\(path).refused"))
    }

    /// `{"expect": {"protected": "rpc", "within": 5000}}`; `"protected": false` with `"service"`
    /// for a service that must run unprotected.
    mutating func protectedExpectation(_ object: JSONObject, _ path: String) -> ProtectedExpectation? {
        unknownKeys(object, allowed: ["protected", "service", "within"], path)
        let within = int(object["within"], "\(path).within", minimum: 1)
        if case .bool(let protected)? = object["protected"] {
            guard let service = service(object["service"] ?? .null, "\(path).service") else { return nil }
            return ProtectedExpectation(service: service, protected: protected, withinMS: within)
        }
        guard let service = service(object["protected"] ?? .null, "\(path).protected") else { return nil }
        return ProtectedExpectation(service: service, protected: true, withinMS: within)
    }

    private mutating func service(_ value: JSONValue, _ path: String) -> ServiceType? {
        let names = Self.protectableServices.keys.sorted()
        guard let name = string(value, path, required: true) else { return nil }
        guard let service = Self.protectableServices[name] else {
            issue(path, "'\(name)' is not a service that can be protected; use \(names.joined(separator: ", "))" + suggestion(name, names))
            return nil
        }
        return service
    }
}
