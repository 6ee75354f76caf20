public import SmartDeviceLink

/// The policy table: which RPCs an app may use in which HMI level (sdl_core's
/// `functional_groupings` folded to one map per app).
public struct PolicyTable: Sendable, Hashable {
    /// RPC name → allowed HMI levels, for apps without their own entry (core's "default").
    public var defaultPermissions: [String: Set<String>]
    /// App id → its own RPC map, replacing the default one.
    public var apps: [String: [String: Set<String>]]
    /// The functional group names behind the maps, by app id and "default", as a policy
    /// table update gave them (a snapshot names them); the bench's groups at first.
    public var groups: [String: [String]] = ["default": PolicyTable.coreGroups]
    /// The remote-control modules (ModuleType) each app may control, by app id, "default" for
    /// the others; an app with none may control no module ("disallowed by vehicle settings").
    /// By default every app may control all six, as `scripts/run-core` sets core's default entry.
    public var moduleTypes: [String: [String]] = ["default": ["CLIMATE", "RADIO", "SEAT", "AUDIO", "LIGHT", "HMI_SETTINGS"]]

    /// A table; by default every app gets core's default permissions.
    public init(defaultPermissions: [String: Set<String>] = PolicyTable.base, apps: [String: [String: Set<String>]] = [:]) {
        self.defaultPermissions = defaultPermissions
        self.apps = apps
    }

    /// The group names of the default policy.
    var groupNames: [String] { groups["default"] ?? [] }

    /// The group names of `appID`'s own policy (none known: empty).
    func groupNames(for appID: String) -> [String] { groups[appID] ?? [] }

    /// The permissions of `appID`.
    public func permissions(for appID: String) -> [String: Set<String>] { apps[appID] ?? defaultPermissions }

    /// The app service types each app may publish, by app id, "default" for the others (core's
    /// `app_services` of the app's policy; `scripts/run-core` gives every app these three).
    public var appServices: [String: [String]] = ["default": ["MEDIA", "NAVIGATION", "WEATHER"]]

    /// The service types `appID` may publish.
    public func appServiceTypes(for appID: String) -> [String] { appServices[appID] ?? appServices["default"] ?? [] }

    /// The module types `appID` may control; nil: none (core: no moduleType in the app's policy).
    /// An empty list means every type, as in core.
    public func moduleTypes(for appID: String) -> [String]? {
        guard let types = moduleTypes[appID] ?? moduleTypes["default"] else { return nil }
        return types.isEmpty ? RCModel.types.map(\.type) : types
    }

    /// Whether `rpc` is allowed for `appID` in `hmiLevel`.
    public func allows(_ rpc: String, appID: String, hmiLevel: HMILevel) -> Bool {
        permissions(for: appID)[rpc]?.contains(hmiLevel.rawValue) ?? false
    }

    /// What sdl_core 8.2's preloaded policy table grants an app with the bench's groups
    /// (`scripts/core-policy-groups`, which `scripts/run-core` gives core's default app):
    /// generated from core's table, so the emulator's OnPermissionsChange is core's.
    public static var base: [String: Set<String>] { coreLevels }
}
