# Every example that passes against `sdl-run emulate` over TCP passes over the USB gadget:
# each scenario plugs the board in again, and the emulator switches it again. (reconnect.json
# is the unplug test's subject instead: the emulator's dropTransport closes its libusb handle,
# which a USB device never sees.) The examples run from a copy: the checkout is read-only here.
source Tests/Lab/support/lib.sh
cp -r examples "$work/examples"
start_emulator --usb 18d1:4ee1 --control 127.0.0.1:12346
examples=(hello menu alert vehicle-data keyboard files audio-pass-thru navigation)
files=(); for name in "${examples[@]}"; do files+=("$work/examples/$name.json"); done
"$SDL_RUN" "${files[@]}" --usb-gadget --wait 60 --control 127.0.0.1:12346 | tee "$work/run.out"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "not every example passed over the USB gadget (exit $status)"
[ "$(grep -c '^PASS ' "$work/run.out")" = ${#examples[@]} ] || fail "fewer PASS lines than examples"
