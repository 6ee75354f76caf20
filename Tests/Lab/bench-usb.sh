# The library on real USB links against the raw link (docs/benchmarks.md, "Real links"):
# `sdl-benchmark link` with the app as the gadget (FunctionFS) and the head unit as the host
# (libusb), then the other way round; each against raw bulk reads and writes on the same
# endpoints in the same run. It prints the rows; nothing is judged on time. Run by CI on the
# debug build with --quick, as a check that every row runs; the table's numbers are a release
# build's: SDL_LAB_BENCH=.build/release/sdl-benchmark scripts/lab bench-usb.
source Tests/Lab/support/lib.sh
bench=${SDL_BENCH:-$LAB_REPO/.build/debug/sdl-benchmark}
[ -x "$bench" ] || fail "no $bench: build it (swift build --product sdl-benchmark)"
args=(--quick)
[ -n "${SDL_BENCH:-}" ] && args=(--rounds "${SDL_BENCH_ROUNDS:-5}")
for link in usb-gadget usb-host; do
    "$bench" link "$link" "${args[@]}" | tee "$work/$link.out" || fail "sdl-benchmark link $link failed"
    rows=$(grep -c ' ratio ' "$work/$link.out")
    [ "$rows" -ge 3 ] && [ $((rows % 3)) = 0 ] || fail "sdl-benchmark link $link printed $rows rows, not three for each variant"
done
