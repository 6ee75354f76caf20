# A CDC-ACM gadget on this VM's dummy_hcd: the board's end of the serial line is /dev/ttyGS0
# (configfs `acm` function, u_serial), the host's end /dev/ttyACM0 (cdc-acm). `acm_plug` binds
# it to the UDC (the cable in), `acm_unplug` unbinds it (the cable out).
acm=/sys/kernel/config/usb_gadget/sdl-acm

acm_make() {
    mkdir -p "$acm/strings/0x409" "$acm/configs/c.1/strings/0x409" || fail "no configfs (libcomposite)"
    mkdir -p "$acm/functions/acm.GS0" || fail "no acm gadget function (usb_f_acm)"
    echo 0x1d6b >"$acm/idVendor"
    echo 0x0104 >"$acm/idProduct"
    echo lab-acm >"$acm/strings/0x409/serialnumber"
    echo SmartDeviceLink >"$acm/strings/0x409/manufacturer"
    echo "SDL serial line" >"$acm/strings/0x409/product"
    echo "SDL serial line" >"$acm/configs/c.1/strings/0x409/configuration"
    ln -sf "$acm/functions/acm.GS0" "$acm/configs/c.1/"
}

acm_plug() {
    local udc
    udc=$(ls /sys/class/udc | head -1)
    [ -n "$udc" ] || fail "no USB device controller (dummy_hcd)"
    echo "$udc" >"$acm/UDC" || fail "cannot bind the ACM gadget to $udc (another gadget holds it?)"
    for _ in $(seq 100); do [ -e /dev/ttyACM0 ] && [ -e /dev/ttyGS0 ] && return 0; sleep 0.1; done
    fail "no /dev/ttyACM0 and /dev/ttyGS0 after plugging the ACM gadget in"
}

acm_unplug() { echo "" >"$acm/UDC"; }

acm_remove() {
    [ -d "$acm" ] || return 0
    echo "" >"$acm/UDC" 2>/dev/null
    rm -f "$acm/configs/c.1/acm.GS0"
    rmdir "$acm/configs/c.1/strings/0x409" "$acm/configs/c.1" "$acm/functions/acm.GS0" "$acm/strings/0x409" "$acm" 2>/dev/null
}

# The gadget goes with the test, whatever its end: the next test may need the UDC. What the
# test started goes first: removing the acm function waits while /dev/ttyGS0 is open.
trap 'status=$?; stop_children; acm_remove; (exit $status); finish' EXIT
