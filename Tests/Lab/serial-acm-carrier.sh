# The carrier as the link (`--serial-carrier`) on the host's end of the CDC-ACM line: the
# board's acm function raises DCD while a program there holds /dev/ttyGS0 open and drops it
# when it closes, and cdc-acm hangs /dev/ttyACM0 up on the drop once CLOCAL is off. So the
# head unit knows when an app is on the line: no carrier while none is, the app's session
# when it opens its end, the link down when it closes, and the next app served again.
source Tests/Lab/support/lib.sh
source Tests/Lab/support/acm.sh
acm_make
acm_plug
cp -r examples "$work/examples"
start_emulator --serial /dev/ttyACM0 --serial-carrier --control 127.0.0.1:12346 --events
wait_for "$work/emulator.log" "no carrier on /dev/ttyACM0" 30 \
    || fail "the emulator did not say the line has no carrier while nothing holds the board's end"
for round in 1 2; do
    "$SDL_RUN" "$work/examples/hello.json" --serial /dev/ttyGS0 --control 127.0.0.1:12346 | tee "$work/run$round.out"
    [ "${PIPESTATUS[0]}" = 0 ] || fail "hello.json did not pass on the carrier's line (round $round)"
    # The app closed its end: the carrier dropped, the port hung up, and no carrier again.
    said=0
    for _ in $(seq 100); do
        said=$(grep -c "no carrier on /dev/ttyACM0" "$work/emulator.log")
        [ "$said" -gt "$round" ] && break
        sleep 0.1
    done
    [ "$said" -gt "$round" ] || fail "the emulator did not see the carrier drop after round $round"
done
grep -q "went away" "$work/emulator.log" || fail "the emulator did not say its port hung up"
grep -E "no carrier|went away" "$work/emulator.log"
