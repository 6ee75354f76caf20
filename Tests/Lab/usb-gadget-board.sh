# A bench board set up once by root (scripts/setup-gadget-board, for group plugdev): sdl-run
# --usb-gadget then runs as a user in plugdev and hello.json passes against the emulator's AOA host
# role. Removing the set-up leaves no gadget behind.
source Tests/Lab/support/lib.sh
scripts/setup-gadget-board || fail "the board set-up failed"
scripts/setup-gadget-board >/dev/null || fail "a second set-up is not idempotent"
start_emulator --usb 18d1:4ee1 --control 127.0.0.1:12346
setpriv --reuid=nobody --regid=nogroup --groups=plugdev "$SDL_RUN" examples/hello.json --usb-gadget --wait 60 \
    --control 127.0.0.1:12346 || fail "hello.json did not pass as the bench user"
scripts/setup-gadget-board --remove || fail "the set-up was not removed"
[ ! -e /sys/kernel/config/usb_gadget/sdl ] || fail "the gadget is still there"
