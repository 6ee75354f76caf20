# sdl_core's own Bluetooth transport against the phone role. Core 8.2 makes no inquiry of
# its own: every 15 s it asks `bt-device -l` (bluez-tools) for the devices bluetoothd knows
# on the default adapter (hci0), looks each up by SDP and connects to those with the SDL
# record. So bluetoothd on hci0 learns of the phone (hci1) by a scan first, as a user's
# pairing would; then hello.json passes with sdl-run as core's HMI. Skipped where no core
# was built (never in CI).
source Tests/Lab/support/lib.sh
[ -n "${SDL_CORE_BIN:-}" ] || skip "no sdl_core built on this machine (scripts/build-core builds one in about 40 minutes)"
source Tests/Lab/support/bluetooth.sh
btmgmt --index 1 discov on >/dev/null || fail "cannot make hci1 discoverable"
# Without the two vehicle-data groups: core 8.2 over RFCOMM here loses a message above about
# 16 KiB, and the OnPermissionsChange of every group is 16.6 KB (docs/sdl-core.md).
start core scripts/run-core --dir "$work/core" --without VehicleInfo-3 --without DrivingCharacteristics-3
for _ in $(seq 1200); do (exec 3<>/dev/tcp/127.0.0.1/8087) 2>/dev/null && break; sleep 0.1; done
(exec 3<>/dev/tcp/127.0.0.1/8087) 2>/dev/null || fail "core did not open its HMI WebSocket within 120 s"
bluetoothctl --timeout 15 scan on >"$work/scan.log" 2>&1
grep -q "$PHONE_ADDRESS" "$work/scan.log" || fail "bluetoothd on hci0 did not find the phone: $(cat "$work/scan.log")"
"$SDL_RUN" examples/hello.json --bt --bt-adapter hci1 --wait 150 --hmi ws://127.0.0.1:8087 | tee "$work/run.out"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "hello.json did not pass on sdl_core over RFCOMM (exit $status)"
