import SmartDeviceLink

/// What the official sdl_hmi 5.8.0 answers where sdl_core 8.2 leaves the answer to its HMI, and
/// passes the HMI's result code and message on to the app (recorded in
/// `Tests/SDLScenarioTests/Fixtures/core-app/answers.jsonl`, each answer marked "hmi", and read
/// from sdl_hmi's sources where a recording cannot reach).
enum HMIAnswers {
    /// sdl_hmi's answer to Navigation.GetWayPoints: four copies of one placeholder point.
    static let wayPoints: [JSONObject] = Array(repeating: [
        "coordinate": ["latitudeDegrees": 0, "longitudeDegrees": 0], "locationName": "locationName", "addressLines": ["addressLines"],
        "locationDescription": "locationDescription", "phoneNumber": "phoneNumber",
        "locationImage": ["value": "images/common/defaultButtonImage.png", "imageType": "DYNAMIC"],
        "searchAddress": ["countryName": "countryName", "countryCode": "countryCode", "postalCode": "postalCode",
                          "administrativeArea": "administrativeArea", "subAdministrativeArea": "subAdministrativeArea",
                          "locality": "locality", "subLocality": "subLocality", "thoroughfare": "thoroughfare",
                          "subThoroughfare": "subThoroughfare"],
    ], count: 4)

    /// The languages sdl_hmi offers for UI, VR and TTS (its `sdlLanguagesList`, which it
    /// answers GetSupportedLanguages with): a ChangeRegistration to another is
    /// UNSUPPORTED_RESOURCE from core.
    static let supportedLanguages = [
        "EN-US", "ES-MX", "FR-CA", "DE-DE", "ES-ES", "EN-GB", "RU-RU", "TR-TR", "PL-PL", "FR-FR", "IT-IT", "SV-SE", "PT-PT",
        "NL-NL", "ZH-TW", "JA-JP", "AR-SA", "KO-KR", "PT-BR", "CS-CZ", "DA-DK", "NO-NO", "NL-BE", "EL-GR", "HU-HU", "FI-FI",
        "SK-SK", "EN-IN", "TH-TH", "EN-SA", "HE-IL", "RO-RO", "UK-UA", "ID-ID", "VI-VN", "MS-MY", "HI-IN",
    ]

    /// The message of a request refused because the app's own modal UI of the same kind is up:
    /// sdl_hmi's texts for the kinds it refuses (UI.Alert, UI.ScrollableMessage,
    /// UI.PerformAudioPassThru; UI.Slider says nothing), the emulator's own for the rest.
    static func refusedBehindModal(_ incoming: String, shown: String) -> String? {
        switch incoming {
        case "Alert": "Another Alert is active."
        case "ScrollableMessage": "Higher priority request is being processed on HMI!"
        case "PerformAudioPassThru": "PerformAudioPassThru request aborted!"
        case "Slider": nil
        default: "another \(shown) is shown"
        }
    }

    /// UI.EndAudioPassThru with no recording up: REJECTED with this message.
    static let noAudioPassThru = "UI.PerformAudioPassThru are not processed at the moment!"

    /// UI.PerformInteraction left unanswered until its timeout: TIMED_OUT with this message.
    static let interactionTimedOut = "UI.PerformInteraction has been timed out"

    /// UI.CancelInteraction that finds nothing to cancel: IGNORED with this message.
    static let cancelIgnored = "Request is ignored, because the intended result is already in effect."

    /// The message of a template refused for the app (SetDisplayLayout, Show.templateConfiguration): REJECTED.
    static let templateRefused = "The requested layout is not supported for this app type"

    /// Whether sdl_hmi lets this app use `template` (its `isTemplateSupported`): MEDIA and
    /// ONSCREEN_PRESETS only for media apps, NAV_FULLSCREEN_MAP for navigation and projection
    /// apps, WEB_VIEW for web apps; any other template the display lists (a configured head
    /// unit's own) for every app; one it does not list, for none.
    static func allowsTemplate(_ template: String, templates: [String], isMedia: Bool, appHMITypes: [String]) -> Bool {
        guard templates.contains(template) else { return false }
        switch template {
        case "MEDIA", "ONSCREEN_PRESETS": return isMedia
        case "NAV_FULLSCREEN_MAP": return appHMITypes.contains("NAVIGATION") || appHMITypes.contains("PROJECTION")
        case "WEB_VIEW": return appHMITypes.contains("WEB_VIEW")
        default: return true
        }
    }
}
