import SmartDeviceLink

/// The HMI's side of a policy table update, as the official sdl_hmi plays it with core built
/// for EXTENDED_POLICY=PROPRIETARY: core asks for an update (BasicCommunication.PolicyUpdate,
/// with the snapshot's file), the HMI tells core to hand that file to an app
/// (BasicCommunication.OnSystemRequest PROPRIETARY, no URL: core takes its policy table's);
/// when the app brings the answer back core passes its file on (BasicCommunication.SystemRequest)
/// and the HMI gives it to core's policy manager (SDL.OnReceivedPolicyUpdate).
///
/// sdl_hmi does so for every update core starts, which core does by itself 2 s after a new app
/// registers; this HMI only in a scenario with a policy server or after an `updatePolicy`
/// step, so that other scenarios are not sent core's 21 KB snapshot (core 8.2 loses messages
/// that large over Bluetooth: docs/sdl-core.md).
extension CoreHMI {
    public func playPolicyUpdates(_ on: Bool) async { playsPolicyUpdates = on }

    /// Answers core's PTU requests; false for any other method.
    func answerPolicyUpdate(_ id: Int64, _ method: String, _ params: JSONObject) async throws -> Bool {
        switch method {
        case "BasicCommunication.PolicyUpdate":
            try await answer(id, method)
            guard playsPolicyUpdates, let file = params["file"]?.stringValue else { return true }
            // sdl_hmi's parameters: core passes the file type and timeout on to the app.
            try await notify("BasicCommunication.OnSystemRequest", ["requestType": "PROPRIETARY", "fileType": "JSON", "timeout": 1000,
                                                                    "fileName": .string(file)])
        case "BasicCommunication.SystemRequest":
            try await answer(id, method)
            if params["requestType"]?.stringValue == "PROPRIETARY", let file = params["fileName"]?.stringValue {
                try await notify("SDL.OnReceivedPolicyUpdate", ["policyfile": .string(file)])
            }
        default:
            return false
        }
        return true
    }

    /// The driver's "Update SDL" in sdl_hmi's settings: core starts an update (SDL.UpdateSDL).
    func requestPolicyUpdate() async throws {
        playsPolicyUpdates = true
        _ = try await call("SDL.UpdateSDL", [:])
    }
}
