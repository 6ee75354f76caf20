# The app's Bluetooth phone role on the real stack: `sdl-run --bt` registers the SDL profile
# with a real bluetoothd on a real system bus; from the other btvirt controller a head unit
# finds the SDL record by SDP, connects over RFCOMM to the channel it names, and hello.json
# passes over that link (relayed to the emulator).
source Tests/Lab/support/lib.sh
source Tests/Lab/support/bluetooth.sh
start_emulator --control 127.0.0.1:12346
start app "$SDL_RUN" examples/hello.json --bt --wait 90 --control 127.0.0.1:12346 --log-module transport.bluetooth=debug
app=${children[-1]}
start headunit python3 Tests/Peers/rfcomm_head_unit.py --adapter hci0 --device "$PHONE_ADDRESS" --relay 12345 --wait 60
wait "$app" || fail "hello.json did not pass over RFCOMM"
grep -q "Channel: " "$work/headunit.log" || fail "the SDL record named no RFCOMM channel"
