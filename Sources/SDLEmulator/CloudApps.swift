import SmartDeviceLink

/// A cloud app's icon: its URL, whether an app was asked to fetch it, whether it came.
struct CloudIcon: Sendable {
    var url: String
    var requested: Bool
    var received: Bool
}

/// Cloud app properties (Get/SetCloudAppProperties), as core 8.2 keeps them in its policy
/// table: an app store app (the policy's CloudAppStore group) reads and sets another app's
/// entry, a policy table update brings them (and the icon's URL); measured on core.
extension HeadUnitEmulator {
    /// The policy table's names of the cloud properties, and the RPC's.
    private static let cloudKeys = ["enabled": "enabled", "auth_token": "authToken", "cloud_transport_type": "cloudTransportType",
                                    "hybrid_app_preference": "hybridAppPreference", "endpoint": "endpoint", "nicknames": "nicknames"]

    /// Takes an update's app entries' cloud properties and icon URLs (RefreshCloudAppInformation).
    func updateCloudApps(_ appPolicies: JSONObject) {
        for (appID, entry) in appPolicies where !["default", "device", "pre_DataConsent"].contains(appID) {
            guard case .object(let fields) = entry else { continue }
            var properties = Self.newCloudEntry(appID)
            for (policyKey, rpcKey) in Self.cloudKeys { if let value = fields[policyKey] { properties[rpcKey] = value } }
            cloudApps[appID] = properties
            // Only an enabled cloud app with an endpoint is one core connects to, and asks an icon for.
            if properties["enabled"]?.boolValue == true, properties["endpoint"]?.stringValue != nil,
               let url = fields["icon_url"]?.stringValue, cloudIcons[appID]?.received != true {
                cloudIcons[appID] = CloudIcon(url: url, requested: cloudIcons[appID]?.requested ?? false, received: false)
            }
        }
    }

    /// Asks `key`'s app for each cloud app icon not yet asked for (OnSystemRequest ICON_URL).
    func requestCloudIcons(from key: SessionKey) {
        for (appID, icon) in cloudIcons.sorted(by: { $0.key < $1.key }) where !icon.requested && !icon.received {
            cloudIcons[appID]?.requested = true
            notify(key, "OnSystemRequest", ["requestType": "ICON_URL", "url": .string(icon.url)])
        }
    }

    /// An entry's properties: set ones merge into what is there; a new app starts disabled
    /// with no nicknames.
    func getCloudAppProperties(_ request: IncomingRequest, _ get: GetCloudAppProperties) {
        guard let properties = cloudAppProperties(get.appID) else {
            return respond(request, "DATA_NOT_AVAILABLE", info: "Cloud app does not exist on module")
        }
        respond(request, "SUCCESS", ["properties": .object(properties)])
    }

    /// Any app id gets an entry, as core adds one to its policy table.
    func setCloudAppProperties(_ request: IncomingRequest, _ set: SetCloudAppProperties) {
        let given = set.properties.json.objectValue ?? [:]
        var properties = cloudAppProperties(set.properties.appID) ?? Self.newCloudEntry(set.properties.appID)
        for (key, value) in given { properties[key] = value }
        cloudApps[set.properties.appID] = properties
        respond(request, "SUCCESS")
    }

    /// The entry of `appID`: set before, or an app the policy table lists (by a policy table
    /// update, or by registering: core adds each app it sees); nil: none.
    private func cloudAppProperties(_ appID: String) -> JSONObject? {
        if let known = cloudApps[appID] { return known }
        guard policy.apps[appID] != nil || apps.values.contains(where: { $0.appID == appID }) else { return nil }
        return Self.newCloudEntry(appID)
    }

    /// An entry core has no cloud properties for: disabled, no nicknames.
    private static func newCloudEntry(_ appID: String) -> JSONObject {
        ["appID": .string(appID), "enabled": false, "nicknames": []]
    }
}
