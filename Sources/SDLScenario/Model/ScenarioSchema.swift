import SmartDeviceLink

/// The JSON Schema of scenario files (`sdl-run schema`), for editors.
///
/// It describes the structure; `sdl-run validate` checks more (RPC names, parameters and
/// enum values against the RPC spec, regular expressions, files).
public enum ScenarioSchema {
    /// The driver actions come from the emulator's one table of them.
    private static func jsonList(_ names: [String]) -> String {
        "[" + names.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }

    /// The scenario language's JSON Schema (`sdl-run schema`, `examples/scenario.schema.json`).
    public static let text = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://smartdevicelink.example/sdl-run/scenario.schema.json",
  "title": "sdl-run scenario",
  "type": "object",
  "required": ["steps"],
  "oneOf": [{"required": ["app"]}, {"required": ["apps"]}],
  "additionalProperties": false,
  "properties": {
    "$schema": {"type": "string"},
    "name": {"type": "string", "description": "Shown in reports; defaults to the file name."},
    "description": {"type": "string"},
    "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels for sdl-run --include / --exclude."},
    "app": {"$ref": "#/$defs/appFields", "required": ["appName", "appID"], "unevaluatedProperties": false},
    "apps": {
      "type": "array", "minItems": 1,
      "description": "Instead of app: several apps, each registering on a session of its own, in this order; steps pick one with \"as\" (the first when they name none).",
      "items": {"$ref": "#/$defs/appFields", "required": ["as", "appName", "appID"], "unevaluatedProperties": false,
                "properties": {"as": {"type": "string", "description": "The name steps use for this app."}}}
    },
    "emulator": {"type": "object", "description": "Emulator configuration; used only against the embedded emulator."},
    "policyServer": {
      "type": "object", "additionalProperties": false, "required": ["update"],
      "description": "A policy server the run starts for a policy table update; the app carries the head unit's snapshot there and the answer back.",
      "properties": {
        "update": {"type": "string", "description": "The policy table update it answers with: a JSON file beside the scenario, a policy_table object, bare or in sdl_server's data array."},
        "listen": {"type": "string", "description": "host:port (default 127.0.0.1:3000, sdl_server's); on sdl_core, the URL its policy table names (scripts/run-core --policy-url)."},
        "files": {"type": "object", "additionalProperties": {"type": "string"}, "description": "What a GET of each path answers: a file beside the scenario, e.g. a cloud app's icon the update names."}
      }
    },
    "defaults": {
      "type": "object",
      "additionalProperties": false,
      "properties": {"timeout": {"type": "integer", "minimum": 1, "description": "Milliseconds an expectation waits (default 10000)."}}
    },
    "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}}
  },
  "$defs": {
    "appFields": {
      "type": "object",
      "properties": {
        "appName": {"type": "string", "maxLength": 100},
        "appID": {"type": "string", "maxLength": 100},
        "isMedia": {"type": "boolean", "default": false},
        "appTypes": {"type": "array", "items": {"type": "string"}, "default": ["DEFAULT"]},
        "language": {"type": "string", "default": "EN-US"},
        "hmiLanguage": {"type": "string"},
        "ttsName": {"type": "string"},
        "vrSynonyms": {"type": "array", "items": {"type": "string"}},
        "shortName": {"type": "string"},
        "security": {
          "description": "The app's certificate and key (PEM files beside the scenario) for protected services, or \"generated\" for one made for the run; sdl-run --certificate and --key override it.",
          "oneOf": [
            {"const": "generated"},
            {"type": "object", "required": ["certificate", "key"], "additionalProperties": false,
             "properties": {
               "certificate": {"type": "string"}, "key": {"type": "string"},
               "ca": {"type": "string", "description": "Verify the head unit's certificate by this CA, when it sends one."},
               "protocol": {"enum": ["DTLS", "TLS", "dtls", "tls"], "description": "What the head unit's security manager speaks (sdl_core 8.2: DTLS)."}
             }}
          ]
        }
      }
    },
    "step": {
      "type": "object",
      "minProperties": 1,
      "properties": {
        "name": {"type": "string"},
        "as": {"type": "string", "description": "In a scenario with several apps: the app this step acts as or expects for."},
        "send": {"type": "string", "description": "A request of the RPC spec, e.g. Show."},
        "notify": {"type": "string", "description": "A notification the app sends."},
        "answer": {"type": "string", "description": "A request the head unit sends the app (an app-service provider's GetAppServiceData, PerformAppServiceInteraction): wait for it, then answer with resultCode and params."},
        "resultCode": {"type": "string", "description": "The answer's result code (default SUCCESS)."},
        "request": {"description": "On an answer step: what the head unit's request must hold (a matcher, as an expectation's params)."},
        "params": {"type": "object"},
        "bulkFile": {"type": "string"},
        "unchecked": {"type": "boolean", "description": "Send the params as written, even where the RPC spec forbids them: how does the head unit refuse them?"},
        "timeout": {"type": "integer", "minimum": 1, "description": "Milliseconds each request of a send or action step waits for its response (default: the library's 10 s)."},
        "background": {"type": "boolean", "description": "Send without waiting for the response; check it with a later expect."},
        "response": {"$ref": "#/$defs/response"},
        "capture": {"$ref": "#/$defs/capture"},
        "expect": {"oneOf": [{"$ref": "#/$defs/expectation"}, {"$ref": "#/$defs/transportExpectation"}, {"$ref": "#/$defs/mediaExpectation"},
                             {"$ref": "#/$defs/protectedExpectation"}]},
        "protect": {
          "description": "Start a service protected (the head unit's TLS handshake with the app first): rpc (started again), audio or video. With refused: the head unit must refuse it (a part of its reason), or start audio/video unprotected.",
          "oneOf": [
            {"enum": ["rpc", "audio", "video"]},
            {"type": "object", "required": ["service"], "additionalProperties": false,
             "properties": {"service": {"enum": ["rpc", "audio", "video"]}, "refused": {"type": "string"}}}
          ]
        },
        "expectInOrder": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/expectation"}},
        "expectAnyOrder": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/expectation"}},
        "show": {
          "type": "object", "additionalProperties": false,
          "properties": {
            "text": {"oneOf": [{"type": "string"}, {"type": "array", "minItems": 1, "maxItems": 4, "items": {"type": "string"}}]},
            "mediaTrack": {"type": "string"}, "title": {"type": "string"}, "alignment": {"type": "string"},
            "graphic": {"type": "string"}, "secondaryGraphic": {"type": "string"}, "template": {"type": "string"},
            "softButtons": {"type": "array", "items": {"$ref": "#/$defs/softButton"}}
          }
        },
        "menu": {"type": "array", "items": {"$ref": "#/$defs/menuItem"}},
        "alert": {
          "type": "object", "additionalProperties": false,
          "properties": {
            "text": {"oneOf": [{"type": "string"}, {"type": "array", "maxItems": 3, "items": {"type": "string"}}]},
            "tts": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "softButtons": {"type": "array", "items": {"$ref": "#/$defs/softButton"}},
            "duration": {"type": "integer", "minimum": 3000, "maximum": 10000},
            "playTone": {"type": "boolean"}, "icon": {"type": "string"}
          }
        },
        "subscribe": {"$ref": "#/$defs/names"},
        "unsubscribe": {"$ref": "#/$defs/names"},
        "getVehicleData": {"$ref": "#/$defs/names"},
        "audioPassThru": {
          "type": "object", "required": ["file"], "additionalProperties": false,
          "properties": {
            "file": {"type": "string", "description": "WAV file to write."},
            "maxDuration": {"type": "integer", "minimum": 1, "maximum": 1000000},
            "samplingRate": {"enum": ["8KHZ", "16KHZ", "22KHZ", "44KHZ"]},
            "bitsPerSample": {"enum": ["8_BIT", "16_BIT"]},
            "text": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "prompt": {"type": "string"}
          }
        },
        "putFile": {
          "type": "object", "required": ["path"], "additionalProperties": false,
          "properties": {
            "path": {"type": "string"}, "name": {"type": "string"}, "fileType": {"type": "string"},
            "persistent": {"type": "boolean"}, "chunkSize": {"type": "integer", "minimum": 1}
          }
        },
        "setAppIcon": {"type": "string"},
        "wait": {"type": "integer", "minimum": 0, "description": "Milliseconds."},
        "repeat": {
          "type": "object", "required": ["times", "steps"], "additionalProperties": false,
          "properties": {"times": {"type": "integer", "minimum": 1}, "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}}}
        },
        "prompt": {"type": "string", "description": "Ask the operator to act on a real head unit."},
        "stream": {
          "type": "object", "required": ["service"], "additionalProperties": false,
          "description": "Synthetic audio or video data, on the link the head unit prefers; starts the service if needed.",
          "properties": {
            "service": {"enum": ["audio", "video"]}, "bytes": {"type": "integer", "minimum": 1},
            "chunkSize": {"type": "integer", "minimum": 1}, "end": {"type": "boolean"},
            "protected": {"type": "boolean", "description": "Start the service protected when it is not running yet."}
          }
        },
        "streamVideo": {
          "description": "An H.264 Annex-B file streamed through the streaming media manager once the HMI state allows video; frames at fps (or timestamps), for duration (looping) or once.",
          "oneOf": [
            {"type": "string"},
            {"type": "object", "required": ["file"], "additionalProperties": false, "properties": {
              "file": {"type": "string"}, "fps": {"type": "number", "exclusiveMinimum": 0},
              "timestamps": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 0}, "description": "Milliseconds, one per frame."},
              "duration": {"type": "integer", "minimum": 1, "description": "Milliseconds; the clip loops."},
              "protocol": {"enum": ["RAW", "RTP"]}
            }}
          ]
        },
        "streamAudio": {
          "description": "A WAV file in the head unit's PCM format (pcmStreamCapabilities), streamed in real time.",
          "oneOf": [{"type": "string"}, {"type": "object", "required": ["file"], "additionalProperties": false, "properties": {"file": {"type": "string"}}}]
        },
        "showManeuver": {
          "type": "object", "required": ["text"], "additionalProperties": false,
          "description": "The next maneuver on the head unit's navigation screen (ShowConstantTBT).",
          "properties": {
            "text": {"type": "string"}, "secondaryText": {"type": "string"}, "distance": {"type": "string"}, "eta": {"type": "string"},
            "totalDistance": {"type": "string"}, "timeToDestination": {"type": "string"}
          }
        },
        "exec": {
          "description": "A command run on this machine (port power, a relay, bluetoothctl); its output goes into the report.",
          "oneOf": [
            {"type": "string", "minLength": 1, "description": "A command line, run by /bin/sh -c."},
            {"type": "object", "required": ["command"], "additionalProperties": false, "properties": {
              "command": {"oneOf": [{"type": "string", "minLength": 1}, {"type": "array", "minItems": 1, "items": {"type": "string"}}]},
              "timeout": {"type": "integer", "minimum": 1, "description": "Milliseconds (default 30000)."},
              "exitCode": {"type": "integer", "minimum": 0, "maximum": 255, "description": "Expected (default 0)."}
            }}
          ]
        },
        "driver": {
          "oneOf": [
            {"enum": \#(jsonList(DriverAction.bareNames))},
            {"type": "object", "minProperties": 1, "maxProperties": 1,
             "propertyNames": {"enum": \#(jsonList(DriverAction.names))}}
          ]
        }
      },
      "additionalProperties": false,
      "oneOf": [
        {"required": ["send"]}, {"required": ["notify"]}, {"required": ["expect"]}, {"required": ["expectInOrder"]},
        {"required": ["expectAnyOrder"]}, {"required": ["show"]}, {"required": ["menu"]}, {"required": ["alert"]},
        {"required": ["subscribe"]}, {"required": ["unsubscribe"]}, {"required": ["getVehicleData"]},
        {"required": ["audioPassThru"]}, {"required": ["putFile"]}, {"required": ["setAppIcon"]}, {"required": ["wait"]},
        {"required": ["repeat"]}, {"required": ["prompt"]}, {"required": ["driver"]}, {"required": ["stream"]}, {"required": ["exec"]},
        {"required": ["streamVideo"]}, {"required": ["streamAudio"]}, {"required": ["showManeuver"]}, {"required": ["protect"]},
        {"required": ["answer"]}
      ]
    },
    "response": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "resultCode": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
        "success": {"type": "boolean"},
        "params": {"$ref": "#/$defs/matcher"}
      }
    },
    "expectation": {
      "type": "object", "additionalProperties": false,
      "oneOf": [{"required": ["notification"]}, {"required": ["response"]}, {"required": ["hmi"]}],
      "properties": {
        "notification": {"type": "string"}, "response": {"type": "string"},
        "hmi": {"type": "string", "pattern": "^[A-Za-z]+\\.[A-Z][A-Za-z]*$",
                "description": "A message the head unit's HMI was sent, Interface.Function (UI.Show): on sdl_core with --hmi, and as the embedded emulator says core would send it."},
        "params": {"$ref": "#/$defs/matcher"},
        "count": {"type": "integer", "minimum": 0, "description": "Exactly this many (0: never)."},
        "atLeast": {"type": "integer", "minimum": 1},
        "never": {"type": "boolean"},
        "within": {"type": "integer", "minimum": 1, "description": "Milliseconds."},
        "capture": {"$ref": "#/$defs/capture"}
      }
    },
    "transportExpectation": {
      "type": "object", "required": ["transport"], "additionalProperties": false,
      "properties": {
        "transport": {"enum": \#(jsonList(TransportEvent.names))},
        "service": {"enum": ["audio", "video"]}, "to": {"enum": ["primary", "secondary"]},
        "within": {"type": "integer", "minimum": 1, "description": "Milliseconds."}
      }
    },
    "mediaExpectation": {
      "type": "object", "additionalProperties": false,
      "oneOf": [{"required": ["stream", "state"]}, {"required": ["gesture"]}, {"required": ["lockScreen"]}],
      "properties": {
        "lockScreen": {"enum": ["OFF", "OPTIONAL", "REQUIRED"], "description": "The app's lock screen status, as sdl_ios computes it from the HMI level and OnDriverDistraction."},
        "dismissible": {"type": "boolean", "description": "With lockScreen: whether the head unit lets the driver dismiss it."},
        "stream": {"enum": ["audio", "video"]}, "state": {"enum": \#(jsonList(MediaExpectation.states))},
        "gesture": {"enum": \#(jsonList(MediaExpectation.gestures)), "description": "A gesture the app recognised; pan and pinch match any of their events."},
        "within": {"type": "integer", "minimum": 1, "description": "Milliseconds."}
      }
    },
    "protectedExpectation": {
      "type": "object", "required": ["protected"], "additionalProperties": false,
      "properties": {
        "protected": {"oneOf": [{"enum": ["rpc", "audio", "video"]}, {"type": "boolean"}],
                      "description": "The service that must run protected (waits for it), or a boolean with service."},
        "service": {"enum": ["rpc", "audio", "video"]},
        "within": {"type": "integer", "minimum": 1, "description": "Milliseconds."}
      }
    },
    "capture": {"type": "object", "additionalProperties": {"type": "string", "description": "Parameter path, e.g. cmdID or vehicleData.speed."}},
    "matcher": {
      "description": "A value (equal), an object (each key matches), an array (each element), an operator object, or \"${variable}\".",
      "oneOf": [
        {"type": ["string", "number", "boolean", "null", "array"]},
        {"type": "object", "properties": {
          "$eq": {}, "$regex": {"type": "string"}, "$range": {"type": "array", "minItems": 2, "maxItems": 2},
          "$oneOf": {"type": "array", "minItems": 1}, "$absent": {"const": true}, "$any": {"const": true},
          "$contains": {"$ref": "#/$defs/matcher"}
        }}
      ]
    },
    "menuItem": {
      "type": "object", "required": ["title"], "additionalProperties": false,
      "properties": {
        "title": {"type": "string"},
        "voice": {"type": "array", "items": {"type": "string"}},
        "items": {"type": "array", "items": {"$ref": "#/$defs/menuItem"}}
      }
    },
    "softButton": {
      "oneOf": [
        {"type": "string"},
        {"type": "object", "properties": {"id": {"type": "integer"}, "text": {"type": "string"}, "image": {"type": "string"}}}
      ]
    },
    "names": {"oneOf": [{"type": "string"}, {"type": "array", "minItems": 1, "items": {"type": "string"}}]}
  }
}
"""#
}
