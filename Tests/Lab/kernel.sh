# The VM has what the other lab tests stand on: this checkout's sdl-run runs, dummy_hcd's
# device controller and root hub are there, configfs takes a gadget, and btvirt's
# controllers come up.
source Tests/Lab/support/lib.sh
"$SDL_RUN" --version || fail "this checkout's sdl-run does not run in the VM"
[ -e /sys/class/udc/dummy_udc.0 ] || fail "no dummy_udc.0 in /sys/class/udc: $(ls /sys/class/udc)"
[ -d /dev/bus/usb/001 ] || fail "no /dev/bus/usb/001 (dummy_hcd's root hub)"
[ -d /sys/kernel/config/usb_gadget ] || fail "configfs has no usb_gadget (libcomposite)"
[ -e /dev/vhci ] || fail "no /dev/vhci (hci_vhci)"
echo "kernel $(uname -r): dummy_udc.0, usbfs, configfs and /dev/vhci are there"
