# The farm's other clients (support/farm.sh): a pytest suite holds the TDK's place the labgrid
# way and runs a scenario through the plugin's fixture; the phone board's place runs
# hello.json with sdl-run --usb-gadget on the board, the emulator its USB host; the index
# lists both with place and exporter.
# lab-limit: 480 (several Python clients of labgrid, each slow to start under emulation)
source Tests/Lab/support/lib.sh
source Tests/Lab/support/farm.sh

# A pytest suite holds the place the labgrid way (acquire, run, release) and runs a scenario
# through the plugin's fixture, with the environment file a suite would have.
cat >"$work/env.yaml" <<EOF
targets:
  main:
    resources:
      RemotePlace:
        name: tdk
    drivers:
      SDLRunDriver:
        sdl_run: $SDL_RUN
imports:
  - sdl_labgrid
EOF
cat >"$work/test_farm.py" <<'EOF'
def test_hello(sdl_run):
    assert sdl_run("examples/hello.json", args=["--control", "127.0.0.1:12346"]).passed
EOF
export LG_USERNAME=frank
"$lg/labgrid-client" -p tdk acquire >/dev/null || fail "frank could not acquire the place"
"$lg/pytest" -q -p sdl_labgrid.pytest_plugin --lg-env "$work/env.yaml" --sdl-reports "$work/reports" "$work/test_farm.py" \
    >"$work/pytest.log" 2>&1 || fail "the pytest suite did not pass: $(tail -20 "$work/pytest.log")"
"$lg/labgrid-client" -p tdk release >/dev/null || fail "frank could not release the place"
unset LG_USERNAME
grep -q "1 passed" "$work/pytest.log" || fail "pytest did not report the test passed: $(cat "$work/pytest.log")"

# The phone board: its place runs sdl-run --usb-gadget on the board, the emulator its USB host.
kill "$gadget_pid" 2>/dev/null  # the TDK gadget: the board's one USB device controller is needed
for _ in $(seq 100); do [ -z "$(cat /sys/kernel/config/usb_gadget/*/UDC 2>/dev/null)" ] && break; sleep 0.1; done
start headunit "$SDL_RUN" emulate --listen 127.0.0.1:12355 --usb 18d1:4ee1 --control 127.0.0.1:12347
wait_for "$work/headunit.log" "listening on" 30 || fail "the board's head unit did not start"
LG_USERNAME=erin farm --place phone examples/hello.json -- --control 127.0.0.1:12347 --wait 60 >"$work/erin.log" 2>&1 || fail "the phone board did not pass hello.json: $(cat "$work/erin.log")"

# The farm's index, made again after each run: every run that ended, with its place and exporter.
for run in "$work"/reports/*/; do
    [ -f "$run/run.json" ] || continue
    grep -q "$(basename "$run")/report.html" "$work/reports/index.html" || fail "index.html does not list $(basename "$run")"
done
grep -q "<td>phone</td><td>bench1</td>" "$work/reports/index.html" && grep -q "<td>tdk</td><td>bench1</td>" "$work/reports/index.html" \
    || fail "index.html does not show the places and exporter"
grep -q "2 runs on 2 places" "$work/reports/index.html" || fail "index.html does not count 2 runs on 2 places: $(grep summary "$work/reports/index.html")"
