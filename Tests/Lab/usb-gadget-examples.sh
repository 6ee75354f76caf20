# Every example that passes against `sdl-run emulate` over TCP passes over the USB gadget, those of
# several apps too (one link, a session per app):
# each scenario plugs the board in again, and the emulator switches it again. reconnect.json's
# dropTransport resets the board's port (closing the host's end alone is something a USB
# device never sees), so the run loses its link, offers the gadget again, is switched again
# and resumed. The examples run from a copy: the checkout is read-only here.
source Tests/Lab/support/lib.sh
cp -r examples "$work/examples"
start_emulator --usb 18d1:4ee1 --control 127.0.0.1:12346
# multi-app, remote-control and app-services carry several apps on the one gadget link, a session each.
examples=(hello menu alert vehicle-data keyboard files audio-pass-thru navigation reconnect lock-screen multi-app remote-control app-services)
files=(); for name in "${examples[@]}"; do files+=("$work/examples/$name.json"); done
"$SDL_RUN" "${files[@]}" --usb-gadget --wait 60 --control 127.0.0.1:12346 | tee "$work/run.out"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "not every example passed over the USB gadget (exit $status)"
[ "$(grep -c '^PASS ' "$work/run.out")" = ${#examples[@]} ] || fail "fewer PASS lines than examples"
