import SmartDeviceLink

extension HeadUnitEmulator {
    /// Sends OnHMIStatus when (and only when) the app's status really changed, as core does.
    func refreshStatus(_ key: SessionKey) {
        guard var app = apps[key] else { return }
        let status = app.status
        guard status != app.lastStatus else { return }
        app.lastStatus = status
        apps[key] = app
        notify(key, "OnHMIStatus", status)
        sendPostponedDriverDistraction(to: key)
        streamsFollowHMI(key)
    }

    /// OnPermissionsChange from the policy table: each RPC with its allowed HMI levels and
    /// the parameters core's table names for it (the vehicle data items), sorted as core sends them.
    func sendPermissions(_ key: SessionKey) {
        guard let app = apps[key] else { return }
        let permissions = policy.permissions(for: app.appID)
        let encrypted = configuration.security?.encryptionRequired ?? []
        let items = permissions.sorted { $0.key < $1.key }.map { rpc, allowed -> JSONValue in
            let levels = ["BACKGROUND", "FULL", "LIMITED", "NONE"].filter(allowed.contains)
            var item: JSONObject = [
                "rpcName": .string(rpc),
                "hmiPermissions": ["allowed": .array(levels.map(JSONValue.string)), "userDisallowed": []],
                "parameterPermissions": ["allowed": .array((PolicyTable.coreParameters[rpc] ?? []).map(JSONValue.string)),
                                         "userDisallowed": []],
            ]
            // core marks an item only when its group requires encryption (the app's own flag is not set).
            if encrypted.contains(rpc) { item["requireEncryption"] = true }
            return .object(item)
        }
        notify(key, "OnPermissionsChange", ["permissionItem": .array(items)])
    }

    /// Brings an app to FULL, as the user picking it on the HMI. The app that was FULL goes
    /// to LIMITED when it is an audio source of another kind (core keeps it audible), else
    /// to BACKGROUND: only one app is ever FULL.
    func activate(_ key: SessionKey) {
        guard let app = apps[key] else { return }
        for (otherKey, other) in apps where otherKey != key && other.isForeground {
            let sameKind = (other.isMedia && app.isMedia)
                || (other.appHMITypes.contains("NAVIGATION") && app.appHMITypes.contains("NAVIGATION"))
                || (other.appHMITypes.contains("COMMUNICATION") && app.appHMITypes.contains("COMMUNICATION"))
            let next: HMILevel = other.isAudible && !sameKind ? .limited : .background
            if other.hmiLevel == .limited && next == .limited { continue }
            apps[otherKey]?.hmiLevel = next
            refreshStatus(otherKey)
        }
        apps[key]?.hmiLevel = .full
        refreshStatus(key)
        activateServices(of: key)
    }

    /// OnHashChange with a new hash of the app's resumption data, after each successful change.
    func hashChanged(_ key: SessionKey) {
        guard let app = apps[key] else { return }
        let data = app.resumptionData.serializedBytes(sortedKeys: true) + Array(app.appID.utf8)
        let hash = String(CRC32.checksum(data) ^ UInt32(truncatingIfNeeded: app.registrationOrder), radix: 16)
        apps[key]?.hashID = hash
        notify(key, "OnHashChange", ["hashID": .string(hash)])
    }

    /// The app a driver action means: the given id, or the most recently registered app.
    func resolve(_ appID: String?) throws(EmulatorError) -> SessionKey {
        if let appID {
            guard let app = apps.values.first(where: { $0.appID == appID }) else { throw .unknownApp(appID) }
            return app.key
        }
        guard let app = appsInOrder.last else { throw .noAppRegistered }
        return app.key
    }

    /// The registered apps in the order they registered, the order core walks them in.
    var appsInOrder: [AppState] { apps.values.sorted { $0.registrationOrder < $1.registrationOrder } }

    /// Sends `name` to every app `subscribed` picks whose policy lets it receive the
    /// notification in its HMI level, in registration order.
    func notifySubscribers(_ name: String, _ parameters: JSONObject, _ subscribed: (AppState) -> Bool) {
        for app in appsInOrder where subscribed(app) && mayReceive(app.key, name) { notify(app.key, name, parameters) }
    }

    /// Whether the policy lets `key`'s app receive the notification `name` in its level.
    func mayReceive(_ key: SessionKey, _ name: String) -> Bool {
        guard let app = apps[key] else { return false }
        return policy.allows(name, appID: app.appID, hmiLevel: app.hmiLevel)
    }
}
