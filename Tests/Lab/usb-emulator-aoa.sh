# The emulator's USB host role on the real stack: `sdl-run emulate --usb 18d1:4ee1` finds a
# FunctionFS phone through libusb and udev, switches it into accessory mode with the AOA
# requests as sdl_core does, and serves hello.json over the accessory's bulk endpoints.
source Tests/Lab/support/lib.sh
start gadget python3 Tests/Peers/ffs_gadget.py phone --listen 12350
start_emulator --usb 18d1:4ee1 --control 127.0.0.1:12346
wait_for "$work/gadget.log" "ready: the app may connect" 60 || fail "the emulator never switched the phone into accessory mode"
grep -q "SEND_STRING 0 SDL" "$work/gadget.log" || fail "the emulator sent no manufacturer string \"SDL\""
"$SDL_RUN" examples/hello.json --tcp 127.0.0.1:12350 --control 127.0.0.1:12346 || fail "hello.json did not pass over the emulator's USB link"
