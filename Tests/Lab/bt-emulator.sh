# Both ends of Bluetooth real: the emulator is the head unit on hci0 (`sdl-run emulate --bt`,
# the RFCOMM client role sdl_core's Bluetooth transport plays: inquiry, the SDL record by SDP,
# connect), the app is the phone on hci1 (`sdl-run --bt`, its profile registered with the
# real bluetoothd). Examples pass over that link, a new link each (the others differ only in
# RPCs no link sees); reconnect.json's dropped link is connected again by the emulator, as
# core reconnects a phone.
source Tests/Lab/support/lib.sh
source Tests/Lab/support/bluetooth.sh
cp -r examples "$work/examples"
btmgmt --index 1 discov on >/dev/null || fail "cannot make hci1 discoverable"
start_emulator --bt --bt-adapter hci0 --control 127.0.0.1:12346
grep -q "bluetooth: from hci0 (00:AA:01:00:00:00), looking for phones" "$work/emulator.log" \
    || fail "the emulator did not say which adapter it looks from"
examples=(hello menu reconnect)
files=(); for name in "${examples[@]}"; do files+=("$work/examples/$name.json"); done
"$SDL_RUN" "${files[@]}" --bt --bt-adapter hci1 --wait 90 --control 127.0.0.1:12346 | tee "$work/run.out"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "not every example passed over RFCOMM (exit $status)"
[ "$(grep -c '^PASS ' "$work/run.out")" = ${#examples[@]} ] || fail "fewer PASS lines than examples"
# One link per example, and one more for reconnect.json's dropped link.
links=$(grep -c "primary connected: Bluetooth RFCOMM" "$work/run.out")
[ "$links" = $((${#examples[@]} + 1)) ] || fail "the head unit connected $links times, not $((${#examples[@]} + 1))"

# Three apps on the one RFCOMM link, a session each, as a router service carries a phone's apps.
"$SDL_RUN" "$work/examples/multi-app.json" --bt --bt-adapter hci1 --wait 90 --control 127.0.0.1:12346 | tee "$work/multi.out"
[ "${PIPESTATUS[0]}" = 0 ] || fail "multi-app.json did not pass over one RFCOMM link"
grep -q "\[nav\] ⇄ primary connected: Bluetooth.*, session of nav$" "$work/multi.out" || fail "the navigation app's session is not on the Bluetooth link"

# The head unit's radio switched off mid-run: the run says the link was lost and waits for the
# head unit again; the emulator connects again once its radio is back, and the app is resumed.
# (Switching the phone's radio off instead trips a kernel bug in Debian's 6.1: the head unit's
# next page of the powered-off controller ends in "kernel BUG at lib/list_debug.c:56" in
# l2cap_sock_release, which kills the connecting thread.)
cat >"$work/power-off.json" <<JSON
{"name": "power-off", "app": {"appName": "Radio Off", "appID": "radio-off-1"},
 "steps": [{"driver": "activateApp"},
           {"expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}}},
           {"menu": [{"title": "Kept"}]},
           {"expect": {"notification": "OnHashChange"}},
           {"name": "resumed after the radio came back",
            "expect": {"notification": "OnHMIStatus", "params": {"hmiLevel": "FULL"}, "within": 60000}},
           {"driver": {"selectCommand": {"cmdID": "\${menu.Kept}"}}},
           {"expect": {"notification": "OnCommand", "params": {"cmdID": "\${menu.Kept}"}}}]}
JSON
start app "$SDL_RUN" "$work/power-off.json" --bt --bt-adapter hci1 --wait 90 --control 127.0.0.1:12346
app=${children[-1]}
wait_for "$work/app.log" "expect OnHashChange" 60 || fail "the app never got its menu in"
btmgmt --index 0 power off >/dev/null || fail "cannot power hci0 off"
wait_for "$work/app.log" "primary lost" 30 || fail "the run did not say the link was lost"
sleep 2
btmgmt --index 0 power on >/dev/null || fail "cannot power hci0 on"
wait "$app" || fail "power-off.json did not pass after the radio came back"
[ "$(grep -c "primary connected: Bluetooth RFCOMM" "$work/app.log")" = 2 ] || fail "the head unit did not connect exactly twice"
grep "primary lost" "$work/app.log"
