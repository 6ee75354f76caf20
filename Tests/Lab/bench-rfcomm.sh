# The library over RFCOMM against the raw RFCOMM sockets (docs/benchmarks.md, "Real links"):
# `sdl-benchmark link rfcomm` between the lab's two btvirt controllers, the head unit (hci0)
# connecting to the app's channel on hci1 as sdl_core connects to a phone. It prints the rows;
# nothing is judged on time. --quick on the debug build in CI; a release build's full rounds
# with SDL_LAB_BENCH=.build/release/sdl-benchmark scripts/lab bench-rfcomm.
source Tests/Lab/support/lib.sh
source Tests/Lab/support/bluetooth.sh
source Tests/Lab/support/bench.sh
run_bench rfcomm
