import SmartDeviceLink

/// core's two guards against a misbehaving app: malformed data and message floods.
extension HeadUnitEmulator {
    /// core's malformed-message filter: more than N runs within T ms close the connection.
    func countMalformed(on id: Int) {
        let window = Duration.milliseconds(configuration.malformedLimit.ms)
        if let count = connections[id]?.malformed.record(clock.now, within: window),
           count > configuration.malformedLimit.count {
            closeConnection(id, reason: "more than \(configuration.malformedLimit.count) malformed messages within \(configuration.malformedLimit.ms) ms")
        }
    }

    /// core's flood filter: more than N messages within T ms in one session unregister the
    /// app with TOO_MANY_REQUESTS and close the session.
    func flooded(_ key: SessionKey) -> Bool {
        let now = clock.now
        let window = Duration.milliseconds(configuration.floodLimit.ms)
        guard let count = connections.update(key.connection, { $0.traffic[key.session, default: SlidingWindow()].record(now, within: window) }),
              count > configuration.floodLimit.count else { return false }
        connections[key.connection]?.traffic[key.session] = nil
        if apps[key] != nil {
            notify(key, "OnAppInterfaceUnregistered", ["reason": "TOO_MANY_REQUESTS"])
        }
        sessionGone(key, reason: "TOO_MANY_REQUESTS", keepResumption: false)
        if let end = try? connections[key.connection]?.machine.endService(.rpc, sessionID: key.session, now: now) {
            perform(end, on: key.connection)
        }
        connections[key.connection]?.machine.dropSession(key.session)
        return true
    }
}
