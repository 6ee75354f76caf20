# The app's own USB host role on the real stack: `sdl-run --usb 1d6b:0104` opens a TDK-like
# vendor bulk device (a FunctionFS gadget on dummy_hcd, relayed to the emulator) through
# libusb on real usbfs, and hello.json passes over its bulk endpoints.
source Tests/Lab/support/lib.sh
start_emulator --control 127.0.0.1:12346
start gadget python3 Tests/Peers/ffs_gadget.py tdk --connect 12345
wait_for "$work/gadget.log" "ready: relaying" 60 || fail "the TDK gadget was never enabled by the host"
"$SDL_RUN" examples/hello.json --usb 1d6b:0104 --wait 30 --control 127.0.0.1:12346 || fail "hello.json did not pass over the app's USB link"
