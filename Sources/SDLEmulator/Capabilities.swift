import SmartDeviceLink

/// The capabilities a generic head unit reports in the RegisterAppInterface response.
enum Capabilities {
    /// Capability parameters of the RegisterAppInterface response a configuration may override.
    static let keys: [String] = [
        "displayCapabilities", "buttonCapabilities", "softButtonCapabilities", "presetBankCapabilities",
        "hmiZoneCapabilities", "speechCapabilities", "prerecordedSpeech", "vrCapabilities",
        "audioPassThruCapabilities", "pcmStreamCapabilities", "supportedDiagModes", "hmiCapabilities",
    ]

    static let textFieldNames = [
        "mainField1", "mainField2", "mainField3", "mainField4", "statusBar", "mediaClock", "mediaTrack", "templateTitle",
        "alertText1", "alertText2", "alertText3", "scrollableMessageBody", "initialInteractionText",
        "audioPassThruDisplayText1", "audioPassThruDisplayText2", "sliderHeader", "sliderFooter", "menuName",
        "secondaryText", "tertiaryText", "menuTitle",
    ]

    static let imageFieldNames = [
        "softButtonImage", "choiceImage", "choiceSecondaryImage", "vrHelpItem", "menuIcon", "cmdIcon", "appIcon",
        "graphic", "secondaryGraphic", "alertIcon", "subMenuIcon",
    ]

    static let buttonNames = [
        "OK", "PLAY_PAUSE", "SEEKLEFT", "SEEKRIGHT", "TUNEUP", "TUNEDOWN", "PRESET_0", "PRESET_1", "PRESET_2",
        "PRESET_3", "PRESET_4", "PRESET_5", "PRESET_6", "PRESET_7", "PRESET_8", "PRESET_9", "SEARCH",
    ]

    static var standard: JSONObject {
        let imageTypes: JSONValue = ["GRAPHIC_BMP", "GRAPHIC_JPEG", "GRAPHIC_PNG"]
        let textFields = textFieldNames.map { name -> JSONValue in
            ["name": .string(name), "characterSet": "UTF_8", "width": 500, "rows": 1]
        }
        let imageFields = imageFieldNames.map { name -> JSONValue in
            ["name": .string(name), "imageTypeSupported": imageTypes,
             "imageResolution": ["resolutionWidth": 64, "resolutionHeight": 64]]
        }
        let buttons = buttonNames.map { name -> JSONValue in
            ["name": .string(name), "shortPressAvailable": true, "longPressAvailable": true, "upDownAvailable": true]
        }
        let audio: JSONValue = ["samplingRate": "16KHZ", "bitsPerSample": "16_BIT", "audioType": "PCM"]
        return [
            "displayCapabilities": [
                "displayType": "SDL_GENERIC", "displayName": "GENERIC_DISPLAY",
                "textFields": .array(textFields), "imageFields": .array(imageFields),
                "mediaClockFormats": ["CLOCK1", "CLOCK2", "CLOCK3", "CLOCKTEXT1", "CLOCKTEXT2", "CLOCKTEXT3", "CLOCKTEXT4"],
                "graphicSupported": true,
                "templatesAvailable": ["DEFAULT", "MEDIA", "NON-MEDIA", "ONSCREEN_PRESETS", "NAV_FULLSCREEN_MAP",
                                       "NAV_LIST", "NAV_KEYBOARD", "GRAPHIC_WITH_TEXT", "TEXT_WITH_GRAPHIC",
                                       "TILES_ONLY", "TEXTBUTTONS_ONLY", "GRAPHIC_WITH_TILES", "TILES_WITH_GRAPHIC",
                                       "GRAPHIC_WITH_TEXT_AND_SOFTBUTTONS", "TEXT_AND_SOFTBUTTONS_WITH_GRAPHIC",
                                       "GRAPHIC_WITH_TEXTBUTTONS", "TEXTBUTTONS_WITH_GRAPHIC", "LARGE_GRAPHIC_WITH_SOFTBUTTONS",
                                       "DOUBLE_GRAPHIC_WITH_SOFTBUTTONS", "LARGE_GRAPHIC_ONLY"],
                "screenParams": [
                    "resolution": ["resolutionWidth": 800, "resolutionHeight": 480],
                    "touchEventAvailable": ["pressAvailable": true, "multiTouchAvailable": true, "doublePressAvailable": false],
                ],
                "numCustomPresetsAvailable": 10,
            ],
            "buttonCapabilities": .array(buttons),
            // One entry per soft button the screen shows (spec); eight, as Show allows.
            "softButtonCapabilities": .array(Array(repeating: [
                "shortPressAvailable": true, "longPressAvailable": true, "upDownAvailable": true,
                "imageSupported": true, "textSupported": true,
            ], count: 8)),
            "presetBankCapabilities": ["onScreenPresetsAvailable": true],
            "hmiZoneCapabilities": ["FRONT", "BACK"],
            "speechCapabilities": ["TEXT", "PRE_RECORDED", "SILENCE", "FILE"],
            "prerecordedSpeech": ["HELP_JINGLE", "INITIAL_JINGLE", "LISTEN_JINGLE", "POSITIVE_JINGLE", "NEGATIVE_JINGLE"],
            "vrCapabilities": ["TEXT"],
            "audioPassThruCapabilities": [audio, ["samplingRate": "8KHZ", "bitsPerSample": "8_BIT", "audioType": "PCM"],
                                          ["samplingRate": "22KHZ", "bitsPerSample": "16_BIT", "audioType": "PCM"],
                                          ["samplingRate": "44KHZ", "bitsPerSample": "16_BIT", "audioType": "PCM"]],
            "pcmStreamCapabilities": audio,
            "supportedDiagModes": [0x01, 0x02, 0x03, 0x05, 0x06, 0x07, 0x09, 0x0A, 0x18, 0x19, 0x22, 0x3E],
            "hmiCapabilities": ["navigation": true, "phoneCall": true, "videoStreaming": true, "remoteControl": false,
                                "appServices": true, "displays": true, "seatLocation": false, "driverDistraction": true],
        ]
    }

    /// A parked car with the engine idling.
    static var standardVehicleData: JSONObject {
        [
            "speed": 0.0, "rpm": 800, "fuelLevel": 60.0, "fuelLevel_State": "NORMAL", "instantFuelConsumption": 0.5,
            "externalTemperature": 20.0, "vin": "1SDLEMU0000000001", "prndl": "PARK", "odometer": 12345,
            "gps": ["longitudeDegrees": 13.4050, "latitudeDegrees": 52.5200, "compassDirection": "NORTH",
                    "actual": true, "satellites": 8, "dimension": "3D", "altitude": 34.0, "heading": 0.0, "speed": 0.0],
            "driverBraking": "NO", "headLampStatus": ["lowBeamsOn": false, "highBeamsOn": false, "ambientLightSensorStatus": "DAY"],
            "engineTorque": 20.0, "accPedalPosition": 0.0, "steeringWheelAngle": 0.0, "turnSignal": "OFF",
            "electronicParkBrakeStatus": "CLOSED", "engineOilLife": 80.0, "wiperStatus": "OFF",
            "gearStatus": ["userSelectedGear": "PARK", "actualGear": "PARK", "transmissionType": "AUTOMATIC"],
        ]
    }
}
