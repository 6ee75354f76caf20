# The phone's side of USB on the real stack: `sdl-run --usb-gadget` makes a configfs +
# FunctionFS gadget on dummy_hcd's device controller; the emulator's host role (libusb,
# as sdl_core's USB transport) switches it into accessory mode, and hello.json passes over
# the accessory's bulk endpoints. The run says which head unit switched it.
source Tests/Lab/support/lib.sh
start_emulator --usb 18d1:4ee1 --control 127.0.0.1:12346
"$SDL_RUN" examples/hello.json --usb-gadget --wait 60 --control 127.0.0.1:12346 --log-module transport.usb=info \
    | tee "$work/run.out" || fail "hello.json did not pass over the USB gadget"
grep -q "switched into accessory mode by SDL Core 1.0 (SmartDeviceLink Core Component USB)" "$work/run.out" \
    || fail "the run did not say which head unit switched the gadget"

# register and console take the same transport: each one offers the gadget again.
"$SDL_RUN" register --usb-gadget --wait 60 --app-id gadget-register | tee "$work/register.out" \
    || fail "sdl-run register --usb-gadget failed"
grep -q '"resultCode":"SUCCESS"' "$work/register.out" || fail "register printed no SUCCESS"
printf 'ListFiles\nquit\n' | "$SDL_RUN" console --usb-gadget --wait 60 --app-id gadget-console | tee "$work/console.out" \
    || fail "sdl-run console --usb-gadget failed"
grep -q "ListFiles" "$work/console.out" && grep -q "SUCCESS" "$work/console.out" || fail "the console's ListFiles got no SUCCESS"
