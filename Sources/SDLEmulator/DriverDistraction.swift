import SmartDeviceLink

/// What core's policy table says about the lock screen (module_config and
/// consumer_friendly_messages of sdl_preloaded_pt.json): the icon's URL, whether a driver
/// may dismiss it, and the warning shown when they may.
public struct LockScreenPolicy: Sendable, Hashable {
    /// Sent in OnSystemRequest LOCK_SCREEN_ICON_URL after each registration; nil: none.
    public var iconURL: String? = "http://i.imgur.com/TgkvOIZ.png"
    /// OnDriverDistraction's lockScreenDismissalEnabled; nil: left out, as a table without it.
    public var dismissalEnabled: Bool? = true
    /// The warning sent with a dismissal that is enabled; core allows no dismissal without one.
    public var dismissalWarning: String? = "Swipe down to dismiss, acknowledging that you are not the driver"

    /// Core's preloaded policy: its icon URL, dismissal enabled, and its warning.
    public init() {}

    static let keys = ["iconURL", "dismissalEnabled", "dismissalWarning"]

    /// Reads `"lockScreen": {...}` of an emulator configuration; `null` values remove a default.
    static func read(_ value: JSONValue, over current: LockScreenPolicy, reader: ConfigReader) throws(EmulatorConfigurationError) -> LockScreenPolicy {
        let object = try reader.object(value, path: "$.lockScreen")
        try reader.checkKeys(object, allowed: keys, path: "$.lockScreen")
        var policy = current
        if let v = object["iconURL"] { policy.iconURL = v == .null ? nil : try reader.string(v, path: "$.lockScreen.iconURL") }
        if let v = object["dismissalWarning"] { policy.dismissalWarning = v == .null ? nil : try reader.string(v, path: "$.lockScreen.dismissalWarning") }
        if let v = object["dismissalEnabled"] {
            guard v == .null || v.boolValue != nil else {
                throw EmulatorConfigurationError(path: "$.lockScreen.dismissalEnabled", reason: "expected a boolean, found \(v.kindName)")
            }
            policy.dismissalEnabled = v.boolValue
        }
        return policy
    }
}

extension HeadUnitEmulator {
    /// The car starts or stops needing the driver's attention (the HMI's
    /// UI.OnDriverDistraction): every app hears it as core tells it.
    public func setDriverDistraction(_ on: Bool) {
        driverDistracted = on
        for key in apps.keys.sorted(by: { $0.session < $1.session }) { sendDriverDistraction(to: key) }
    }

    /// OnDriverDistraction as core builds it (on_driver_distraction_notification.cc): the
    /// state, the policy's lockScreenDismissalEnabled, and its warning when enabled (no
    /// warning: not enabled). An app whose policy does not allow the notification at its
    /// HMI level gets the last one when it reaches a level that does.
    func sendDriverDistraction(to key: SessionKey) {
        guard let app = apps[key] else { return }
        var parameters: JSONObject = ["state": driverDistracted ? "DD_ON" : "DD_OFF"]
        let lockScreen = configuration.lockScreen
        if let enabled = lockScreen.dismissalEnabled {
            let warning = lockScreen.dismissalWarning ?? ""
            parameters["lockScreenDismissalEnabled"] = .bool(enabled && !warning.isEmpty)
            if enabled && !warning.isEmpty { parameters["lockScreenDismissalWarning"] = .string(warning) }
        }
        if policy.allows("OnDriverDistraction", appID: app.appID, hmiLevel: app.hmiLevel) {
            apps[key]?.postponedDriverDistraction = nil
            notify(key, "OnDriverDistraction", parameters)
        } else {
            apps[key]?.postponedDriverDistraction = parameters
        }
    }

    /// After an HMI level change: the OnDriverDistraction core postponed, if now allowed.
    func sendPostponedDriverDistraction(to key: SessionKey) {
        guard let app = apps[key], let parameters = app.postponedDriverDistraction,
              policy.allows("OnDriverDistraction", appID: app.appID, hmiLevel: app.hmiLevel) else { return }
        apps[key]?.postponedDriverDistraction = nil
        notify(key, "OnDriverDistraction", parameters)
    }

    /// What core sends right after a registration's OnHMIStatus and permissions
    /// (register_app_interface_request.cc, SendDriverDistractionAndIconUrlNotifications).
    func sendLockScreenNotifications(to key: SessionKey) {
        if let url = configuration.lockScreen.iconURL {
            notify(key, "OnSystemRequest", ["requestType": "LOCK_SCREEN_ICON_URL", "url": .string(url)])
        }
        sendDriverDistraction(to: key)
    }
}
