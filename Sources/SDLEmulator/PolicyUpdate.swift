import Foundation
import SmartDeviceLink

/// Where the emulator's policy table updates go: core's `module_config.endpoints` "0x07".
public struct PolicyUpdateSettings: Sendable {
    /// The policy server's URL, sent in OnSystemRequest PROPRIETARY. Core's preloaded table
    /// names a placeholder that no server answers; `sdl-run policy-server` serves one.
    public var url = "http://x.x.x.x:3000/api/1/policies/proprietary"
    /// Whether an app the policy table does not list starts an update 2 s after it registers,
    /// as core does; off by default, since an app of a scenario without a policy server has
    /// nowhere to carry it (sdl-run turns it on for a scenario with one).
    public var startsForNewApps = false

    /// Core's placeholder URL.
    public init() {}

    /// Reads `"policyUpdate": {...}` of an emulator configuration.
    static func read(_ value: JSONValue, over current: PolicyUpdateSettings, reader: ConfigReader) throws(EmulatorConfigurationError) -> PolicyUpdateSettings {
        let object = try reader.object(value, path: "$.policyUpdate")
        try reader.checkKeys(object, allowed: ["url", "startsForNewApps"], path: "$.policyUpdate")
        var settings = current
        if let v = object["url"] { settings.url = try reader.string(v, path: "$.policyUpdate.url") }
        if let v = object["startsForNewApps"] { settings.startsForNewApps = try reader.bool(v, path: "$.policyUpdate.startsForNewApps") }
        return settings
    }
}

/// A policy table update under way: the app core chose to carry it, the try, its timer.
struct PolicyUpdateState {
    var carrier: SessionKey?
    /// 0 for the first try, then each retry's number.
    var iteration = 0
    var retryTimer: Int?
}

/// The policy table update as sdl_core 8.2 (EXTENDED_POLICY=PROPRIETARY) runs it with the
/// official sdl_hmi: the HMI asks (SDL.UpdateSDL), core sends one app the snapshot and the
/// server's URL (OnSystemRequest PROPRIETARY), the app brings the server's answer back
/// (SystemRequest PROPRIETARY), the HMI hands it to core (SDL.OnReceivedPolicyUpdate), and
/// core applies it: OnPermissionsChange to each app whose permissions changed.
extension HeadUnitEmulator {
    /// Starts an update carried by the app core picks: the one in the highest HMI level, the
    /// first registered among equals; retried as core does (PolicyUpdateCycle.swift).
    func startPolicyUpdate() throws(EmulatorError) {
        policyUpdate.iteration = 0
        try sendPolicyUpdate()
    }

    /// OnSystemRequest PROPRIETARY with the snapshot, wrapped as core wraps it.
    func sendPolicySnapshot(to key: SessionKey) {
        let body = policySnapshot().serialized()
        // Core's wrapping of the snapshot (on_system_request_notification.cc), its headers as measured.
        let headers: JSONObject = [
            "ContentType": "application/json", "ConnectTimeout": 60, "DoOutput": true, "DoInput": true, "UseCaches": false,
            "RequestMethod": "POST", "ReadTimeout": 60, "InstanceFollowRedirects": false, "charset": "utf-8",
            "Content-Length": .int(Int64(body.utf8.count)),
        ]
        let wrapper: JSONValue = ["HTTPRequest": ["headers": .object(headers), "body": .string(body)]]
        // The file type and "timeout": 1000 are sdl_hmi's (its BasicCommunication.OnSystemRequest), which core passes on.
        notify(key, "OnSystemRequest", ["requestType": "PROPRIETARY", "url": .string(configuration.policyUpdate.url),
                                        "timeout": 1000, "fileType": "JSON"], bulkData: wrapper.serializedBytes())
    }

    /// The app core sends policy matters to (GetAppIdForSending): the highest HMI level, the
    /// first registered among equals.
    func policyUpdateCarrier() -> SessionKey? {
        let rank: [HMILevel: Int] = [.full: 0, .limited: 1, .background: 2, .none: 3]
        return appsInOrder.min(by: { rank[$0.hmiLevel, default: 4] < rank[$1.hmiLevel, default: 4] })?.key
    }

    /// What the snapshot tells a policy server: the apps and their policies, the module
    /// config. Core's carries its whole table (functional groupings, consumer messages, usage
    /// counts); the emulator keeps permissions per RPC, not by group, so it names the apps.
    func policySnapshot() -> JSONValue {
        var appPolicies: JSONObject = ["default": ["groups": .array(policy.groupNames.map(JSONValue.string))]]
        for app in appsInOrder { appPolicies[app.appID] = policy.apps[app.appID] == nil ? "default" : ["groups": .array(policy.groupNames(for: app.appID).map(JSONValue.string))] }
        return ["policy_table": [
            "module_config": [
                "endpoints": ["0x07": ["default": [.string(configuration.policyUpdate.url)]]],
                "exchange_after_x_ignition_cycles": 100, "exchange_after_x_kilometers": 1800, "exchange_after_x_days": 30,
                "timeout_after_x_seconds": 60, "seconds_between_retries": [1, 5, 25, 125, 625], "preloaded_pt": false,
            ],
            "app_policies": .object(appPolicies),
            "functional_groupings": [:],
            "module_meta": [:],
        ]]
    }

    /// SystemRequest, in the order of core's checks (system_request.cc): the file name, the
    /// data (bulk, or a file the app stored), the PTU's own app; then what the HMI says.
    func systemRequest(_ request: IncomingRequest, _ system: SystemRequest) {
        let fileName = system.fileName ?? "SYNC"
        // core's CheckSyntax: tabs and newlines, written or escaped (a space passes).
        if fileName.contains(where: { $0 == "\t" || $0 == "\n" }) || fileName.contains("\\t") || fileName.contains("\\n") {
            return respond(request, "INVALID_DATA")
        }
        if system.requestType != .iconUrl, !Self.isSafeFileName(fileName) {
            return respond(request, "INVALID_DATA", info: "Sync file name contains forbidden symbols.")
        }
        var data = Array(request.bulkData)
        if data.isEmpty {
            // Without bulk data core takes the app's own stored file of that name (and moves it away).
            guard let appID = apps[request.key]?.appID, files[appID]?[fileName] != nil else { return respond(request, "REJECTED") }
            let stored = StoredFileKey(appID: appID, name: fileName)
            storage.close(ifWriting: stored)
            guard let contents = FileManager.default.contents(atPath: path(of: stored)) else { return respond(request, "REJECTED") }
            removeStoredFile(stored)
            data = Array(contents)
        }
        switch system.requestType {
        case .proprietary, .http:
            guard policyUpdate.carrier == request.key else { return respond(request, "REJECTED") }
            // sdl_hmi answers BasicCommunication.SystemRequest at once, then hands the file to core.
            respond(request, "SUCCESS")
            policyUpdateEnded(applied: applyPolicyUpdate(data))
        case .iconUrl:
            // core finds the cloud app by its icon URL (PolicyIDByIconUrl) and keeps the icon.
            guard let appID = cloudIcons.first(where: { $0.value.url == fileName })?.key else {
                return respond(request, "INVALID_DATA", info: "Invalid file name")
            }
            cloudIcons[appID] = CloudIcon(url: fileName, requested: false, received: true)
            respond(request, "SUCCESS")
        default:
            respond(request, "SUCCESS")  // forwarded to the HMI, which takes any file (sdl_hmi)
        }
    }

    /// Applies an update the way core's LoadPT does: sdl_server's `{"data": [table]}` or the
    /// table itself, a policy_table with app_policies, functional_groupings and module_config
    /// and no device data; anything else leaves the table as it was. Each app whose
    /// permissions changed gets OnPermissionsChange.
    @discardableResult
    func applyPolicyUpdate(_ bytes: [UInt8]) -> Bool {
        guard var update = try? JSONValue.parse(bytes) else {
            emit(.policyUpdate(applied: false))
            return false
        }
        if case .array(let data)? = update["data"], let first = data.first { update = first }
        guard case .object(let table)? = update["policy_table"], case .object(let appPolicies)? = table["app_policies"],
              case .object(let groupings)? = table["functional_groupings"], table["module_config"]?.objectValue != nil,
              table["device_data"] == nil, table["usage_and_error_counts"] == nil else {
            emit(.policyUpdate(applied: false))
            return false
        }
        let before = Dictionary(appsInOrder.map { ($0.key, policy.permissions(for: $0.appID)) }, uniquingKeysWith: { first, _ in first })
        func permissions(_ entry: JSONValue) -> (groups: [String], rpcs: [String: Set<String>])? {
            guard let names = entry["groups"]?.arrayValue?.compactMap(\.stringValue) else { return nil }
            var rpcs: [String: Set<String>] = [:]
            for name in names {
                for (rpc, rule) in groupings[name]?["rpcs"]?.objectValue ?? [:] {
                    rpcs[rpc, default: []].formUnion(rule["hmi_levels"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                }
            }
            return (names, rpcs)
        }
        if let entry = appPolicies["default"], let granted = permissions(entry) {
            policy.defaultPermissions = granted.rpcs
            policy.groups["default"] = granted.groups
        }
        for (appID, entry) in appPolicies where appID != "default" {
            if entry.stringValue == "default" {
                policy.apps[appID] = nil
                policy.groups[appID] = nil
            } else if let granted = permissions(entry) {
                policy.apps[appID] = granted.rpcs
                policy.groups[appID] = granted.groups
            }
        }
        updateCloudApps(appPolicies)
        emit(.policyUpdate(applied: true))
        // Core compares the update's lock screen dismissal with its table's and, finding them
        // differ, tells every app again; it did so on 8.2 for an update that set it as before.
        if table["module_config"]?["lock_screen_dismissal_enabled"] != nil {
            for app in appsInOrder { sendDriverDistraction(to: app.key) }
        }
        // The icons of enabled cloud apps core does not have yet (OnPTUFinished →
        // SendGetIconUrlNotifications), before the permissions, which core sends last.
        if let key = policyUpdateCarrier() { requestCloudIcons(from: key) }
        for app in appsInOrder where before[app.key] != policy.permissions(for: app.appID) { sendPermissions(app.key) }
        return true
    }
}
