# The bench station on a board: `sdl-run watch` with "gadget" offers the board's gadget to the
# head unit, runs the bench's scenarios when the head unit (the emulator's AOA host role)
# takes it, and offers it again after the pause: two runs pass, each with its report.
source Tests/Lab/support/lib.sh
mkdir -p "$work/scenarios"
cp examples/hello.json examples/menu.json "$work/scenarios/"
cat >"$work/bench.json" <<JSON
{"gadget": "default", "scenarios": ["scenarios/"], "reports": "$work/reports", "control": "127.0.0.1:12346", "pause": 1}
JSON
start_emulator --usb 18d1:4ee1 --control 127.0.0.1:12346
start watch "$SDL_RUN" watch "$work/bench.json"
station=${children[-1]}
wait_for "$work/watch.log" '"event":"watching".*"gadget":"dummy_udc.0"' 30 || fail "the station did not start on dummy_udc.0"
for _ in $(seq 1200); do [ "$(grep -c '"event":"runFinished"' "$work/watch.log")" -ge 2 ] && break; sleep 0.1; done
if [ "$(grep '"event":"runFinished"' "$work/watch.log" | grep -c '"outcome":"passed"')" -lt 2 ]; then
    for report in "$work"/reports/*-gadget/; do echo "--- $report"; cat "$report/console.log" 2>/dev/null; done
    fail "two runs did not pass"
fi
grep -q '"event":"attached"' "$work/watch.log" || fail "the station did not say the head unit took the board"
for report in $(ls -d "$work"/reports/*-gadget/ | head -2); do
    grep -q "^PASS hello" "$report/console.log" && grep -q "^PASS menu" "$report/console.log" || fail "$report lacks the PASS lines"
    [ -s "$report/report.html" ] || fail "$report has no report.html"
    grep -q "$(basename "$report")/report.html" "$work/reports/index.html" || fail "index.html does not link $report"
done
kill "$station"
wait "$station"
bound=$(cat /sys/kernel/config/usb_gadget/sdl/UDC 2>/dev/null)
[ -z "$bound" ] || fail "the station left its gadget bound to $bound"
