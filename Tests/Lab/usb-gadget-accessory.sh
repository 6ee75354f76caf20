# For a kernel or UDC that keeps device-level requests from FunctionFS: `--usb-gadget-accessory`
# starts as the accessory (18d1:2d00), which a head unit takes at once without the switch
# (sdl_core's IsGoogleAccessory); the emulator serving only phones already in accessory mode
# (`emulate --usb` bare) takes it, and hello.json passes. The run says which path it took.
source Tests/Lab/support/lib.sh
start_emulator --usb --control 127.0.0.1:12346
grep -q "usb: serving phones in accessory mode" "$work/emulator.log" || fail "the emulator does not serve accessories only"
"$SDL_RUN" examples/hello.json --usb-gadget --usb-gadget-accessory --wait 60 --control 127.0.0.1:12346 \
    | tee "$work/run.out" || fail "hello.json did not pass with the gadget started as the accessory"
grep -q "primary connected: USB gadget on dummy_udc.0, started as the accessory 18d1:2d00" "$work/run.out" \
    || fail "the run did not say it started as the accessory"
