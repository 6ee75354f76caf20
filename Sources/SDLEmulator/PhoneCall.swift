import SmartDeviceLink

/// The phone call a DialNumber starts, as sdl_core 8.2 with the official sdl_hmi 5.8.0 does it
/// (measured): once the driver agrees to the call, the HMI leaves the app for its phone screen
/// (BasicCommunication.OnAppDeactivated: an audible app goes to LIMITED, any other to
/// BACKGROUND), then tells core a call is on (OnEventChanged PHONE_CALL), and core makes every
/// app NOT_AUDIBLE until the call ends. A media app in FULL sees LIMITED AUDIBLE, then LIMITED
/// NOT_AUDIBLE; a non-media one BACKGROUND.
extension HeadUnitEmulator {
    func startPhoneCall(from key: SessionKey) {
        if let app = apps[key], app.hmiLevel == .full {
            apps[key]?.hmiLevel = app.isAudible ? .limited : .background
            refreshStatus(key)
        }
        for other in apps.keys {
            apps[other]?.phoneCall = true
            refreshStatus(other)
        }
    }

    /// The driver hangs up: apps are audible again where they are; false when no call was on.
    func endPhoneCall() -> Bool {
        guard apps.values.contains(where: \.phoneCall) else { return false }
        for key in apps.keys {
            apps[key]?.phoneCall = false
            refreshStatus(key)
        }
        return true
    }
}
