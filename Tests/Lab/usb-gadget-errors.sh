# What a bench board lacks, on the real kernel: each gives `sdl-run --usb-gadget` one line
# that names the cause and what to do, and exit code 3. The controller taken by another
# gadget, a user who may not make gadgets, no FunctionFS in the kernel, configfs unmounted.
source Tests/Lab/support/lib.sh
expect_refusal() {  # NAME PATTERN COMMAND...
    local name=$1 pattern=$2; shift 2
    "$@" examples/hello.json --usb-gadget --wait 5 >"$work/$name.out" 2>&1
    local status=$?
    echo "$name (exit $status): $(grep -E 'ERROR|error' "$work/$name.out" | head -1)"
    [ $status = 3 ] || fail "$name: exit $status, not 3"
    grep -qE "$pattern" "$work/$name.out" || fail "$name: no line matching /$pattern/"
}
gadget=/sys/kernel/config/usb_gadget/sdl

# Another gadget holds the only controller.
start_emulator
start tdk python3 Tests/Peers/ffs_gadget.py tdk --connect 12345
wait_for "$work/tdk.log" "ready: relaying" 30 || fail "the other gadget did not come up"
expect_refusal busy "USB device controller dummy_udc.0 \(the gadget sdltdk is bound to it\) is busy" "$SDL_RUN"
kill "${children[-1]}"; wait "${children[-1]}" 2>/dev/null

# Not root.
expect_refusal not-root "permission denied on /sys/kernel/config/usb_gadget.*needs root" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$SDL_RUN"

# No FunctionFS: our gadget and its mount gone, usb_f_fs unloaded (and loaded again after).
awk '$3 == "functionfs" {print $2}' /proc/mounts | xargs -r umount
rm -f $gadget/configs/c.1/ffs.sdl
rmdir $gadget/functions/ffs.sdl $gadget/configs/c.1/strings/0x409 $gadget/configs/c.1 $gadget/strings/0x409 $gadget 2>/dev/null
for other in /sys/kernel/config/usb_gadget/*/; do
    [ -d "$other" ] || continue
    rm -f "$other"configs/c.1/ffs.*; rmdir "$other"functions/ffs.* "$other"configs/c.1/strings/0x409 "$other"configs/c.1 "$other"strings/0x409 "$other" 2>/dev/null
done
rmmod usb_f_fs || fail "usb_f_fs could not be unloaded: $(ls /sys/kernel/config/usb_gadget)"
expect_refusal no-functionfs "modprobe usb_f_fs" "$SDL_RUN"
insmod "$LAB_MODULES/usb_f_fs.ko" || fail "usb_f_fs did not load again"

# configfs unmounted.
umount /sys/kernel/config || fail "configfs did not unmount"
expect_refusal no-configfs "configfs is not mounted at /sys/kernel/config: mount -t configfs" "$SDL_RUN"
mount -t configfs none /sys/kernel/config
