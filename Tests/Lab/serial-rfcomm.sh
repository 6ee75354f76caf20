# SDL over a Bluetooth serial port, the SPP way Android's SDL transport goes: RFCOMM TTYs
# from BlueZ's `rfcomm` tool between the lab's two btvirt controllers. The head unit (hci0)
# binds /dev/rfcomm0 to the phone's channel and `sdl-run emulate --serial /dev/rfcomm0`
# opens it, which connects; the phone (hci1) listens with `rfcomm watch`, which makes
# /dev/rfcomm1 for the connection and starts the app on it (`sdl-run --serial`). hello.json
# passes; the app's end closing is the head unit's port hanging up, and the emulator opens it
# again, which connects again.
source Tests/Lab/support/lib.sh
source Tests/Lab/support/bluetooth.sh
command -v rfcomm >/dev/null || skip "no rfcomm tool (BlueZ)"
cp -r examples "$work/examples"
channel=7
# rfcomm printf()s to a file fully buffered: line-buffered, its lines show as they come.
start phone stdbuf -oL rfcomm -i hci1 watch 1 $channel "$SDL_RUN" "$work/examples/hello.json" --serial "{}" --control 127.0.0.1:12346
wait_for "$work/phone.log" "Waiting for connection on channel $channel" 20 || fail "rfcomm watch did not listen on hci1"
rfcomm -i hci0 bind 0 "$PHONE_ADDRESS" $channel || fail "rfcomm bind on hci0 failed"
[ -e /dev/rfcomm0 ] || fail "no /dev/rfcomm0 after rfcomm bind"
start_emulator --serial /dev/rfcomm0 --control 127.0.0.1:12346 --events
wait_for "$work/phone.log" "^PASS hello" 90 || fail "hello.json did not pass over the RFCOMM serial port"
grep -q "on serial /dev/rfcomm1" "$work/phone.log" || fail "the app was not on /dev/rfcomm1"
# The app's run ended and closed its port: the head unit's hangs up and is opened again.
wait_for "$work/emulator.log" '"connection":2' 30 || fail "the emulator did not open /dev/rfcomm0 again after the app's end closed"
rfcomm -i hci0 release 0
