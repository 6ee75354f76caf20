# The examples that load the link most pass over the USB gadget (an upload, the video and
# audio streams, audio pass-thru, several apps on one link, a session each), with hello and
# menu and a reconnect; the others differ only in their RPCs, which no link sees (all
# thirteen passed here when the gadget was new, in 59 s of CI's time). Each scenario plugs the
# board in again, and the emulator switches it again. reconnect.json's
# dropTransport resets the board's port (closing the host's end alone is something a USB
# device never sees), so the run loses its link, offers the gadget again, is switched again
# and resumed. The examples run from a copy: the checkout is read-only here.
source Tests/Lab/support/lib.sh
cp -r examples "$work/examples"
start_emulator --usb 18d1:4ee1 --control 127.0.0.1:12346
examples=(hello menu files audio-pass-thru navigation reconnect multi-app)
files=(); for name in "${examples[@]}"; do files+=("$work/examples/$name.json"); done
"$SDL_RUN" "${files[@]}" --usb-gadget --wait 60 --control 127.0.0.1:12346 | tee "$work/run.out"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "not every example passed over the USB gadget (exit $status)"
[ "$(grep -c '^PASS ' "$work/run.out")" = ${#examples[@]} ] || fail "fewer PASS lines than examples"
