# SDL over a real serial line: this VM's CDC-ACM gadget, the app on the board's end
# (/dev/ttyGS0), `sdl-run emulate --serial` on the host's (/dev/ttyACM0): the examples that
# load a byte stream most (an upload, video and audio streams, several apps on the one line,
# a session each) and two plain ones, one after another on the same open port of the head
# unit. The rest pass over the USB gadget's link (usb-gadget-examples); twelve passed here
# too when the serial line was new, in 43 s of CI's time.
source Tests/Lab/support/lib.sh
source Tests/Lab/support/acm.sh
acm_make
acm_plug
cp -r examples "$work/examples"
start_emulator --serial /dev/ttyACM0 --control 127.0.0.1:12346
grep -q "serial: serving serial /dev/ttyACM0" "$work/emulator.log" || fail "the emulator did not say it serves the port"
examples=(hello menu files navigation multi-app)
files=(); for name in "${examples[@]}"; do files+=("$work/examples/$name.json"); done
"$SDL_RUN" "${files[@]}" --serial /dev/ttyGS0 --control 127.0.0.1:12346 | tee "$work/run.out"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "not every example passed over the serial line (exit $status)"
[ "$(grep -c '^PASS ' "$work/run.out")" = ${#examples[@]} ] || fail "fewer PASS lines than examples"
