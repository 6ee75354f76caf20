/// The JSON Schema of the emulator's `--config` files (`sdl-run schema --emulator-config`),
/// for editors. It describes the structure; loading checks more (capability and vehicle
/// data names against the spec, versions, files) and says where a mistake is.
public enum EmulatorConfigurationSchema {
    private static func jsonList(_ names: [String]) -> String {
        "[" + names.sorted().map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }

    private static let limit = #"{"type": "object", "additionalProperties": false, "properties": {"count": {"type": "integer", "minimum": 1}, "ms": {"type": "integer", "minimum": 1}}}"#

    /// The JSON Schema of `--config` files (`sdl-run schema --emulator-config`).
    public static let text = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "SmartDeviceLink emulator configuration",
  "description": "Every key is optional; what is left out is sdl_core 8.2 with the official sdl_hmi 5.8.0 as its HMI.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "$schema": {"type": "string", "description": "Where editors find this schema."},
    "timeScale": {"type": "number", "exclusiveMinimum": 0, "description": "Multiplies every HMI delay (alert durations, speech, recording chunks); 0.01 for fast tests."},
    "language": {"type": "string", "description": "The head unit's VR/TTS language, e.g. EN-US; an app asking for another gets WRONG_LANGUAGE."},
    "hmiDisplayLanguage": {"type": "string", "description": "The display language, e.g. EN-US."},
    "supportedLanguages": {"type": "array", "items": {"type": "string"}, "description": "The languages the HMI supports; a ChangeRegistration to another is UNSUPPORTED_RESOURCE (default: sdl_hmi's 37)."},
    "capabilities": {"type": "object", "description": "RegisterAppInterface capabilities replacing the defaults.", "propertyNames": {"enum": \#(jsonList(Capabilities.keys))}},
    "policy": {
      "type": "object", "additionalProperties": false,
      "description": "RPCs and the HMI levels they are allowed in, for every app and per appID.",
      "properties": {
        "default": {"$ref": "#/$defs/permissions"},
        "apps": {"type": "object", "additionalProperties": {"$ref": "#/$defs/permissions"}},
        "moduleTypes": {
          "type": "object", "description": "The remote-control modules each app may control, by appID, \"default\" for the others (default: all six); [] means all, null none.",
          "additionalProperties": {"type": ["array", "null"], "items": {"enum": ["CLIMATE", "RADIO", "SEAT", "AUDIO", "LIGHT", "HMI_SETTINGS"]}}
        },
        "appServices": {
          "type": "object", "description": "The app service types each app may publish, by appID, \"default\" for the others (default: MEDIA, NAVIGATION, WEATHER); a manifest naming handledRPCs is refused.",
          "additionalProperties": {"type": "array", "items": {"type": "string"}}
        }
      }
    },
    "storage": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "quota": {"type": "integer", "minimum": 0, "description": "Bytes each app may store (core's AppDirectoryQuota)."},
        "directory": {"type": "string", "description": "Where files go; kept after the run. Default: a temporary folder removed on exit."},
        "inNone": {
          "type": "object", "additionalProperties": false,
          "description": "core's [FILESYSTEM RESTRICTIONS]: requests allowed in HMI level NONE, counted over a registration.",
          "properties": {"putFile": {"type": "integer", "minimum": 0}, "deleteFile": {"type": "integer", "minimum": 0}, "listFiles": {"type": "integer", "minimum": 0}}
        }
      }
    },
    "vehicleData": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "values": {"$ref": "#/$defs/vehicleValues"},
        "unavailable": {"type": "array", "items": {"enum": \#(jsonList(Array(VehicleDataNames.dataTypes.keys)))}},
        "timeline": {
          "type": "array",
          "items": {"type": "object", "additionalProperties": false, "required": ["atMs", "values"],
                    "properties": {"atMs": {"type": "integer", "minimum": 0}, "values": {"$ref": "#/$defs/vehicleValues"}}}
        }
      }
    },
    "microphone": {
      "type": "object", "additionalProperties": false, "maxProperties": 1,
      "properties": {"wav": {"type": "string", "description": "A WAV file the microphone plays."}, "toneHz": {"type": "number", "exclusiveMinimum": 0}}
    },
    "audioPassThruChunkMs": {"type": "integer", "minimum": 1},
    "speakDurationMs": {"type": "integer", "minimum": 0},
    "secondaryTransport": {
      "type": "object", "additionalProperties": false,
      "description": "core's [MultipleTransports] and [ServicesMap]; present, secondaries are on.",
      "properties": {
        "enabled": {"type": "boolean", "description": "MultipleTransportsEnabled (default true when this object is given)."},
        "forBluetooth": {"$ref": "#/$defs/categories"}, "forUSB": {"$ref": "#/$defs/categories"},
        "forWiFi": {"$ref": "#/$defs/categories"},
        "audioServiceTransports": {"$ref": "#/$defs/transportNames"}, "videoServiceTransports": {"$ref": "#/$defs/transportNames"},
        "host": {"type": "string", "description": "Announced in TransportEventUpdate; default: the emulator's TCP listener."},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535}
      }
    },
    "heartbeatTimeoutMs": {"type": ["integer", "null"], "minimum": 0, "description": "core's HeartBeatTimeout; 0 or null: no supervision."},
    "protocol": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "maximumVersion": {"type": "string", "pattern": "^[1-5](\\.[0-9]+){0,2}$"},
        "maximumPayloadSize": {"type": "integer", "minimum": 1488}
      }
    },
    "malformedLimit": \#(limit),
    "floodLimit": \#(limit),
    "resumption": {"type": "boolean"},
    "phoneCapability": {"type": ["object", "null"], "description": "GetSystemCapability PHONE_CALL's phoneCapability (default core's: dialNumberEnabled true); null: the head unit has no phone (DATA_NOT_AVAILABLE)."},
    "navigationCapability": {"type": ["object", "null"], "description": "GetSystemCapability NAVIGATION's navigationCapability (default core's: sendLocationEnabled and getWayPointsEnabled true); null: no navigation (DATA_NOT_AVAILABLE)."},
    "videoStreaming": {"type": "object", "description": "The VideoStreamingCapability (preferredResolution, maxBitrate, supportedFormats, hapticSpatialDataSupported, ...). StartService(video) for a codec or protocol not in supportedFormats is refused with rejectedParams, as core does after the HMI's SetVideoConfig refuses it."},
    "stopStreamingTimeoutMs": {"type": "integer", "minimum": 0, "description": "core's StopStreamingTimeout: how long a stream of an app sent to BACKGROUND runs on before the head unit ends it (default 1000)."},
    "recordings": {"type": "string", "description": "Folder for the received streams, one file per app and service (APPID-video.h264, APPID-audio.wav); default: a new folder in the temporary directory, kept."},
    "softButtonsPerFunction": {"type": "boolean", "description": "As core 8.2: any Alert/ScrollableMessage/AlertManeuver response ends the soft buttons of every request of that function (a rejected second alert's too). false: each request's buttons last until its own response."},
    "vehicleType": {
      "type": "object", "additionalProperties": false,
      "properties": {"make": {"type": "string"}, "model": {"type": "string"}, "modelYear": {"type": "string"}, "trim": {"type": "string"}}
    },
    "systemSoftwareVersion": {"type": "string"},
    "lockScreen": {
      "type": "object", "additionalProperties": false,
      "description": "What core's policy table says about the lock screen (defaults: sdl_preloaded_pt.json's).",
      "properties": {
        "iconURL": {"type": ["string", "null"], "description": "Sent in OnSystemRequest LOCK_SCREEN_ICON_URL after each registration; null: none."},
        "dismissalEnabled": {"type": ["boolean", "null"], "description": "OnDriverDistraction's lockScreenDismissalEnabled (default true); null: left out."},
        "dismissalWarning": {"type": ["string", "null"], "description": "The warning sent with an enabled dismissal; without one core enables none."}
      }
    },
    "systemHardwareVersion": {"type": "string", "description": "What core takes from the HMI's GetSystemInfo for the StartServiceACK."},
    "policyUpdate": {
      "type": "object", "additionalProperties": false,
      "description": "Policy table updates (OnSystemRequest PROPRIETARY): where the app is told to take the snapshot.",
      "properties": {
        "url": {"type": "string", "description": "The policy server's URL (core's endpoint 0x07; default core's placeholder http://x.x.x.x:3000/api/1/policies/proprietary)."},
        "startsForNewApps": {"type": "boolean", "default": false, "description": "An app the policy table does not list starts an update 2 s after it registers, as core does (on for a scenario with a policyServer, unless its emulator sets it false)."}
      }
    },
    "remoteControl": {
      "type": "object", "additionalProperties": false,
      "description": "Remote control as the HMI sets it (RC.OnRemoteControlSettings, RC.GetCapabilities).",
      "properties": {
        "allowed": {"type": "boolean", "description": "The driver allows remote control (default true); false: every RC request is USER_DISALLOWED."},
        "accessMode": {"enum": ["AUTO_ALLOW", "AUTO_DENY", "ASK_DRIVER"], "description": "What happens when an app asks for a module another app holds (default AUTO_ALLOW, as core)."},
        "capability": {"type": ["object", "null"], "description": "The RemoteControlCapabilities (default sdl_hmi 5.8.0's); null: the HMI has no RC (UNSUPPORTED_RESOURCE)."}
      }
    },
    "security": {
      "type": "object", "additionalProperties": false,
      "description": "A security manager, as sdl_core built with ENABLE_SECURITY: the TLS client of protected services. Left out: none, as the default core.",
      "properties": {
        "certificate": {"type": "string", "description": "The head unit's certificate (PEM file); goes with key."},
        "key": {"type": "string", "description": "Its private key (PEM file)."},
        "ca": {"type": "string", "description": "Verify the app's certificate by this CA (core's VerifyPeer and CACertificatePath); left out: any is taken."},
        "protocol": {"enum": ["DTLS", "TLS"], "description": "core's Protocol: DTLS (8.2's default) or TLS 1.2; the app must speak the same."},
        "forceProtected": {"type": "array", "items": {"enum": ["rpc", "audio", "video"]}, "description": "core's ForceProtectedService: refused, not started unprotected, when the handshake fails."},
        "encryptionRequired": {"type": "array", "items": {"type": "string"}, "description": "RPCs of functional groups with encryption_required: unencrypted requests get ENCRYPTION_NEEDED."}
      }
    }
  },
  "$defs": {
    "permissions": {
      "type": "object",
      "additionalProperties": {"type": "array", "items": {"enum": ["BACKGROUND", "FULL", "LIMITED", "NONE"]}}
    },
    "vehicleValues": {"type": "object", "propertyNames": {"enum": \#(jsonList(Array(VehicleDataNames.dataTypes.keys)))}},
    "categories": {"type": "array", "items": {"enum": ["WiFi", "USB", "Bluetooth"]}},
    "transportNames": {
      "type": "array",
      "items": {"enum": ["TCP_WIFI", "AOA_USB", "SPP_BLUETOOTH", "IAP_USB", "IAP_BLUETOOTH", "IAP_USB_HOST_MODE", "IAP_USB_DEVICE_MODE", "IAP_CARPLAY"]}
    }
  }
}
"""#
}
