# The library against sdl_core 8.2 itself (docs/benchmarks.md, "Through sdl_core"):
# `sdl-benchmark core` registers a navigation app through SDLManager over core's TCP transport
# and over core's own USB transport (the app the gadget, which core switches into accessory
# mode), in turns, round after round, with the benchmark as core's HMI; the same three pieces
# of work as the bench-links rows. Where scripts/fetch-js-suite fetched the official
# JavaScript suite, each round also runs its round trips and upload over TCP to the same
# core. It prints the rows; nothing is judged on time. Core runs with its flood limit off: a
# thousand Shows back to back are a flood to it. Skipped where no core was built (never in CI).
source Tests/Lab/support/lib.sh
[ -n "${SDL_CORE_BIN:-}" ] || skip "no sdl_core built on this machine (scripts/build-core builds one in about 40 minutes)"
source Tests/Lab/support/bench.sh
suite=(); js=$(scripts/fetch-js-suite --print 2>/dev/null) && suite=(--js-suite "$js")
start core scripts/run-core --dir "$work/core" --ini FrequencyCount=0
for _ in $(seq 1200); do (exec 3<>/dev/tcp/127.0.0.1/8087) 2>/dev/null && break; sleep 0.1; done
(exec 3<>/dev/tcp/127.0.0.1/8087) 2>/dev/null || fail "core did not open its HMI WebSocket within 120 s"
for bench in "${benches[@]}"; do
    out="$work/core.$(basename "$bench").out"
    "$bench" core "${args[@]}" "${suite[@]}" | tee "$out" || fail "sdl-benchmark core failed ($bench)"
    rows=$(grep -c ' ratio usb-gadget ÷ tcp ' "$out")
    [ "$rows" = 3 ] || fail "sdl-benchmark core printed $rows ratios of the USB link to TCP, not three"
    if ((${#suite[@]})); then
        rows=$(grep -c ' ratio tcp ÷ js-suite ' "$out")
        [ "$rows" = 2 ] || fail "sdl-benchmark core printed $rows ratios of ours to the JavaScript suite, not two"
    fi
done
