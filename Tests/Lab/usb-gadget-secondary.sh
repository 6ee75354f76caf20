# The board's USB as a secondary transport: the app registers over TCP (a phone's Wi-Fi),
# the head unit offers AOA_USB beside it (core's SecondaryTransportForWiFi = USB), and
# `--secondary usb-gadget` opens the gadget, which the emulator's host role switches into
# accessory mode; RegisterSecondaryTransport goes over the bulk endpoints and video streams
# there. The head unit's side of the cable then drops (a port reset): the app says the
# secondary was lost and video goes on over TCP.
source Tests/Lab/support/lib.sh
cat >"$work/hu.json" <<'JSON'
{"secondaryTransport": {"forWiFi": ["USB"],
                        "videoServiceTransports": ["AOA_USB", "TCP_WIFI"],
                        "audioServiceTransports": ["AOA_USB", "TCP_WIFI"]}}
JSON
cat >"$work/gadget-secondary.json" <<'JSON'
{"name": "gadget-secondary",
 "app": {"appName": "Navigator", "appID": "navigator-gadget", "appTypes": ["NAVIGATION"]},
 "steps": [{"name": "the board's USB registered beside TCP", "expect": {"transport": "secondaryRegistered", "within": 90000}},
           {"driver": "activateApp"},
           {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}},
           {"name": "video on the USB secondary, the head unit's first choice", "stream": {"service": "video", "bytes": 262144}},
           {"name": "the head unit drops the USB link", "driver": "cutSecondary"},
           {"expect": {"transport": "secondaryLost"}},
           {"expect": {"transport": "serviceMoved", "service": "video", "to": "primary"}},
           {"name": "video goes on over TCP", "stream": {"service": "video", "bytes": 65536, "end": true}}]}
JSON
start_emulator --usb 18d1:4ee1 --config "$work/hu.json" --control 127.0.0.1:12346 --events
"$SDL_RUN" "$work/gadget-secondary.json" --tcp 127.0.0.1:12345 --secondary usb-gadget --control 127.0.0.1:12346 \
    | tee "$work/run.out" || fail "gadget-secondary.json did not pass"

# The emulator's own record: the secondary it registered is the USB link, and video started there.
/usr/bin/python3 - "$work/emulator.log" <<'PY' || fail "the video did not start on the USB secondary"
import json, sys
events = []
for line in open(sys.argv[1]):
    try: events.append(json.loads(line))
    except ValueError: pass
usb = {e["connection"] for e in events if e.get("event") == "connectionOpened" and "USB" in e["description"]}
secondary = {e["connection"] for e in events if e.get("event") == "secondaryRegistered"}
video = {e["connection"] for e in events if e.get("event") == "streamStarted" and e["service"] == "video"}
print("USB connections", sorted(usb), "secondary", sorted(secondary), "video on", sorted(video))
sys.exit(0 if usb & secondary & video else 1)
PY
