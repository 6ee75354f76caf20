# sdl_core's own USB transport against the phone role: core (built by scripts/build-core,
# run by scripts/run-core) sees the board's gadget through libusb and udev, switches it into
# accessory mode with its AOA sequence, and hello.json passes over the bulk endpoints with
# sdl-run as core's HMI. Skipped where no core was built (never in CI).
source Tests/Lab/support/lib.sh
[ -n "${SDL_CORE_BIN:-}" ] || skip "no sdl_core built on this machine (scripts/build-core builds one in about 40 minutes)"
start core scripts/run-core --dir "$work/core"
for _ in $(seq 1200); do (exec 3<>/dev/tcp/127.0.0.1/8087) 2>/dev/null && break; sleep 0.1; done
(exec 3<>/dev/tcp/127.0.0.1/8087) 2>/dev/null || fail "core did not open its HMI WebSocket within 120 s"
examples=(hello menu vehicle-data)
files=(); for name in "${examples[@]}"; do files+=("examples/$name.json"); done
"$SDL_RUN" "${files[@]}" --usb-gadget --wait 120 --hmi ws://127.0.0.1:8087 --output-dir "$work/out" | tee "$work/run.out"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "not every example passed on sdl_core over the USB gadget (exit $status)"
grep -m1 "primary connected" "$work/run.out"
grep -q "primary connected: USB gadget.*SDL Core" "$work/run.out" || fail "the link does not say sdl_core switched it"
