# The library on real USB links against the raw link (docs/benchmarks.md, "Real links"):
# `sdl-benchmark link` with the app as the gadget (FunctionFS) and the head unit as the host
# (libusb), then the other way round, each against raw bulk reads and writes on the same
# endpoints in the same rounds; first TCP loopback in the same VM, the control that shows what
# the emulated machine itself costs. It prints the rows; nothing is judged on time. CI runs
# the debug build with --quick, as a check that every row runs; the table's numbers are a
# release build's: SDL_LAB_BENCH=.build/release/sdl-benchmark scripts/lab bench-links. Given
# two builds (SDL_LAB_BENCH=A,B: a change's before and after), each runs in turn.
source Tests/Lab/support/lib.sh
source Tests/Lab/support/bench.sh
for link in tcp usb-gadget usb-host; do run_bench "$link"; done
