# A bench whose TDK hangs off another machine: the kernel's USB/IP exports the TDK-like
# gadget (usbip-host, usbipd) and imports it again over TCP (vhci-hcd, usbip attach), here
# over loopback; `sdl-run --usb` opens the imported device through libusb as if it were
# plugged in, and hello.json passes over it.
source Tests/Lab/support/lib.sh
start_emulator --control 127.0.0.1:12346
start gadget python3 Tests/Peers/ffs_gadget.py tdk --connect 12345
wait_for "$work/gadget.log" "ready: relaying" 60 || fail "the TDK gadget was never enabled by the host"
busid=$(for d in /sys/bus/usb/devices/*; do
    [ "$(cat "$d/idVendor" 2>/dev/null):$(cat "$d/idProduct" 2>/dev/null)" = 1d6b:0104 ] && basename "$d"; done | head -1)
[ -n "$busid" ] || fail "the gadget is not on dummy_hcd's bus"
usbipd -D || fail "usbipd did not start"
usbip bind -b "$busid" || fail "usbip could not export $busid"
usbip attach -r 127.0.0.1 -b "$busid" || fail "usbip could not import $busid"
imported=""
for _ in $(seq 100); do
    for d in /sys/bus/usb/devices/*; do
        [ "$(cat "$d/idVendor" 2>/dev/null):$(cat "$d/idProduct" 2>/dev/null)" = 1d6b:0104 ] || continue
        readlink -f "$d" | grep -q vhci_hcd && imported=$d
    done
    [ -n "$imported" ] && break
    sleep 0.1
done
[ -n "$imported" ] || fail "no 1d6b:0104 appeared under vhci_hcd: $(usbip port 2>&1)"
bus=$(cat "$imported/busnum") address=$(cat "$imported/devnum")
echo "exported $busid, imported as bus $bus address $address under vhci_hcd"
"$SDL_RUN" examples/hello.json --usb "$bus:$address" --wait 30 --control 127.0.0.1:12346 | tee "$work/run.out"
[ "${PIPESTATUS[0]}" = 0 ] || fail "hello.json did not pass over the imported device"
usbip detach -p 0 || fail "usbip could not detach port 0"
