# A farm on labgrid (support/farm.sh: a coordinator, the stock exporter with the TDK-like
# gadget and a phone board, clients of `sdl-farm run`). alice holds the TDK's place and passes
# hello.json and menu.json while bob queues on the reservation and runs when she releases it;
# carol is killed mid-run and the place is free again, her run stopped on the exporter and her
# app unregistered, and dave passes on the same TDK with her app; the farm's index lists the runs with place and exporter.
# lab-limit: 480 (several Python clients of labgrid, each slow to start under emulation)
source Tests/Lab/support/lib.sh
source Tests/Lab/support/farm.sh


# alice holds the place (hello.json, menu.json and a scenario that lingers, so that her run
# outlasts the clients' start under emulation); bob, asking while she does, is told who holds it
# and is refused, then queues on a reservation and runs when she releases it.
linger() {  # NAME MS FILE: hello.json as an app of its own that waits MS at the end
    python3 -c 'import json, sys; s = json.load(open("examples/hello.json")); s["name"] = sys.argv[1]; s["app"]["appID"] = sys.argv[1] + "-0001"; s["app"]["appName"] = sys.argv[1].title()
s["steps"].append({"wait": int(sys.argv[2])}); json.dump(s, open(sys.argv[3], "w"))' "$@"
}
linger linger 15000 "$work/linger.json"
LG_USERNAME=alice start alice farm --place tdk examples/hello.json examples/menu.json "$work/linger.json" -- --control 127.0.0.1:12346
alice=${children[-1]}
wait_for "$work/alice.log" "place tdk acquired" 60 || fail "alice did not acquire the place"
LG_USERNAME=bob farm --place tdk examples/hello.json >"$work/bob-refused.log" 2>&1
[ $? = 4 ] && grep -q "place tdk is held by .*/alice (acquired): run with --wait" "$work/bob-refused.log" || fail "bob without --wait was not refused in one line: $(cat "$work/bob-refused.log")"
LG_USERNAME=bob start bob farm --tag role=tdk --wait 200 examples/hello.json -- --control 127.0.0.1:12346
bob=${children[-1]}
wait "$alice" || fail "alice's run did not pass (exit $?)"
wait "$bob" || fail "bob's run did not pass (exit $?)"
grep -q "no place for role=tdk is free; waiting for one" "$work/bob.log" || fail "bob did not say that he waited"
runs=("$work"/reports/*-tdk*)
[ ${#runs[@]} = 2 ] || fail "expected two run folders, found: ${runs[*]}"
python3 - "${runs[@]}" <<'EOF' || fail "the runs' records are wrong"
import json, sys
first, second = (json.load(open(f"{folder}/run.json")) for folder in sys.argv[1:3])
for run in (first, second):
    assert run["place"] == "tdk" and run["exporter"] == "bench1" and run["outcome"] == "passed", run
    assert run["device"].startswith("USB 1d6b:0104 at "), run
assert first["finishedAt"] <= second["startedAt"], ("bob ran while alice held the place", first, second)
EOF
grep -q "^PASS menu" "${runs[0]}/console.log" && grep -q "^PASS linger" "${runs[0]}/console.log" && grep -q "^PASS hello" "${runs[1]}/console.log" || fail "the report folders lack the PASS lines"
[ -s "${runs[0]}/junit.xml" ] && [ -s "${runs[0]}/report.html" ] || fail "alice's report has no junit.xml or report.html"
[ -z "$(holder | grep -v None)" ] || fail "the place is still held after both runs: $(holder)"

# carol is killed mid-run: her guard releases the place, the exporter's sdl-run stops and
# unregisters her app, so dave registers the same app again (a head unit that kept it would
# refuse him with APPLICATION_REGISTERED_ALREADY: the TDK's link outlives her process).
linger long 120000 "$work/long.json"
LG_USERNAME=carol start carol farm --place tdk "$work/long.json" -- --control 127.0.0.1:12346
wait_for "$work/carol.log" "place tdk acquired" 60 || fail "carol did not acquire the place"
for _ in $(seq 300); do pgrep -f "long.json --usb" >/dev/null && break; sleep 0.2; done
pgrep -f "long.json --usb" >/dev/null || fail "carol's sdl-run never started on the exporter"
sleep 3
pkill -9 -f "sdl_labgrid run .*long.json" || fail "no client of carol's to kill"
for _ in $(seq 150); do [ "$(holder)" = None ] && break; sleep 0.2; done
[ "$(holder)" = None ] || fail "the place is still held after carol was killed: $(holder)"
for _ in $(seq 50); do pgrep -f "long.json --usb" >/dev/null || break; sleep 0.2; done
! pgrep -f "long.json --usb" >/dev/null || fail "carol's sdl-run still runs on the exporter"
linger long 0 "$work/long-again.json"
LG_USERNAME=dave farm --place tdk examples/hello.json "$work/long-again.json" -- --control 127.0.0.1:12346 >"$work/dave.log" 2>&1 \
    || fail "the TDK did not pass hello.json and carol's app after her kill: $(cat "$work/dave.log")"

# The farm's index, made again after each run: every run that ended, with its place and exporter.
for run in "$work"/reports/*/; do
    [ -f "$run/run.json" ] || continue
    grep -q "$(basename "$run")/report.html" "$work/reports/index.html" || fail "index.html does not list $(basename "$run")"
done
grep -q "<td>tdk</td><td>bench1</td>" "$work/reports/index.html" \
    || fail "index.html does not show the places and exporter"
grep -q "3 runs on 1 place" "$work/reports/index.html" || fail "index.html does not count 3 runs on 1 place: $(grep summary "$work/reports/index.html")"
