import SmartDeviceLink

/// The retries of a policy table update, as core's policy manager runs them
/// (policy_manager_impl.cc, the preloaded table's module_config): the first answer awaited for
/// `timeout_after_x_seconds`, then each retry after a wait growing by `seconds_between_retries`.
extension HeadUnitEmulator {
    /// module_config's `timeout_after_x_seconds`, in milliseconds.
    static let policyUpdateTimeoutMs = 60_000
    /// module_config's `seconds_between_retries`.
    static let policyUpdateRetrySeconds = [1, 5, 25, 125, 625]

    /// How long core waits before retry `iteration` (1 for the first retry): the timeout for the
    /// first answer, then the sum of the waits and timeouts so far (NextRetryTimeout).
    static func policyUpdateWaitMs(before iteration: Int) -> Int {
        guard iteration > 0 else { return policyUpdateTimeoutMs }
        return policyUpdateRetrySeconds.prefix(iteration).reduce(0) { $0 + $1 * 1000 + policyUpdateTimeoutMs }
    }

    /// One try: core asks the HMI for the update (BasicCommunication.PolicyUpdate, its status
    /// UPDATING), the app core picks gets the snapshot, and the next try is scheduled.
    func sendPolicyUpdate() throws(EmulatorError) {
        guard let key = policyUpdateCarrier() else { throw .noAppRegistered }
        if let timer = policyUpdate.retryTimer { cancelTimer(timer) }
        policyUpdate.carrier = key
        let appID = apps[key]?.appID ?? "-"
        tellHMI("BasicCommunication.PolicyUpdate", ["file": "/tmp/fs/mp/images/ivsu_cache/sdl_snapshot.json",
                                                     "timeout": .int(Int64(Self.policyUpdateTimeoutMs / 1000)),
                                                     "retry": .array(Self.policyUpdateRetrySeconds.map { .int(Int64($0)) })], appID: appID)
        tellHMI("SDL.OnStatusUpdate", ["status": "UPDATING"], appID: appID)
        sendPolicySnapshot(to: key)
        let wait = Self.policyUpdateWaitMs(before: policyUpdate.iteration)
        policyUpdate.retryTimer = after(wait) { hu in hu.policyUpdateTimedOut() }
    }

    /// No update came back in time: UPDATE_NEEDED, then the next try, until the retries run out.
    func policyUpdateTimedOut() {
        guard policyUpdate.carrier != nil else { return }
        policyUpdate.retryTimer = nil
        policyUpdate.iteration += 1
        tellHMI("SDL.OnStatusUpdate", ["status": "UPDATE_NEEDED"], appID: "-")
        guard policyUpdate.iteration <= Self.policyUpdateRetrySeconds.count else {
            policyUpdate = PolicyUpdateState()
            return
        }
        do { try sendPolicyUpdate() } catch { policyUpdate = PolicyUpdateState() }  // every app left meanwhile
    }

    /// The update came back and was applied (UP_TO_DATE), or was not (UPDATE_NEEDED, the
    /// retries go on).
    func policyUpdateEnded(applied: Bool) {
        tellHMI("SDL.OnStatusUpdate", ["status": applied ? "UP_TO_DATE" : "UPDATE_NEEDED"], appID: "-")
        guard applied else { return }
        if let timer = policyUpdate.retryTimer { cancelTimer(timer) }
        policyUpdate = PolicyUpdateState()
    }

    /// Core starts an update by itself for an app its table does not list yet, once its HMI
    /// has the app list (2 s after the registration, measured with sdl_hmi).
    func startPolicyUpdateForNewApp(_ key: SessionKey) {
        guard configuration.policyUpdate.startsForNewApps, let appID = apps[key]?.appID, policy.apps[appID] == nil else { return }
        after(2000) { hu in
            guard hu.apps[key] != nil, hu.policy.apps[appID] == nil, hu.policyUpdate.carrier == nil else { return }
            try? hu.startPolicyUpdate()
        }
    }
}
