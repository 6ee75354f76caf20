import SmartDeviceLink

/// What sdl-run's HMI tells core about the head unit: its own, not the emulator's (the
/// emulator is core with the official sdl_hmi). It gives core no display capabilities, so
/// core answers apps with those of its own hmi_capabilities.json.
enum CoreHMIIdentity {
    /// The vehicle of core's hmi_capabilities.json.
    static let vehicleType: JSONObject = ["make": "SDL", "model": "Generic", "modelYear": "2019", "trim": "SE"]
    /// `ccpu_version` of GetSystemInfo: core passes it to apps as systemSoftwareVersion.
    static let softwareVersion = "sdl-run-hmi"
    /// The templates core knows for the display (its hmi_capabilities.json), since this HMI sends none.
    static let templates = [
        "DEFAULT", "MEDIA", "NON-MEDIA", "ONSCREEN_PRESETS", "NAV_FULLSCREEN_MAP", "NAV_KEYBOARD", "GRAPHIC_WITH_TEXT",
        "TEXT_WITH_GRAPHIC", "TILES_ONLY", "TEXTBUTTONS_ONLY", "GRAPHIC_WITH_TILES", "TILES_WITH_GRAPHIC",
        "GRAPHIC_WITH_TEXT_AND_SOFTBUTTONS", "TEXT_AND_SOFTBUTTONS_WITH_GRAPHIC", "GRAPHIC_WITH_TEXTBUTTONS",
        "TEXTBUTTONS_WITH_GRAPHIC", "LARGE_GRAPHIC_WITH_SOFTBUTTONS", "DOUBLE_GRAPHIC_WITH_SOFTBUTTONS", "LARGE_GRAPHIC_ONLY",
    ]
}
