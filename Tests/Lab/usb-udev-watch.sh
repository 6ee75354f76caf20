# The bench station on the real stack: udev/'s rules applied by a real udevd give a
# TDK-like device (a FunctionFS gadget on dummy_hcd) group plugdev, mode 0660 and the mark
# that starts sdl-bench.service; `sdl-run watch` sees it arrive through libusb's hotplug,
# runs the bench's scenarios on it with a report folder, and sees it leave.
source Tests/Lab/support/lib.sh
mkdir -p /run/udev/rules.d
cp udev/*.rules /run/udev/rules.d/
udevadm control --reload || fail "udevd did not reload the rules"
mkdir -p "$work/scenarios"
cp examples/hello.json examples/menu.json "$work/scenarios/"
cat >"$work/bench.json" <<JSON
{"devices": ["1d6b:0104"], "scenarios": ["scenarios/"], "reports": "$work/reports", "control": "127.0.0.1:12346"}
JSON
start_emulator --control 127.0.0.1:12346
start watch "$SDL_RUN" watch "$work/bench.json"
wait_for "$work/watch.log" '"event":"watching"' 30 || fail "the bench station did not start watching"
start gadget python3 Tests/Peers/ffs_gadget.py tdk --connect 12345
wait_for "$work/watch.log" '"event":"runFinished"' 120 || fail "no run finished after the TDK was plugged in"
grep '"event":"runFinished"' "$work/watch.log" | grep -q '"outcome":"passed"' || fail "the bench run did not pass"
report=$(ls -d "$work"/reports/*/ | head -1)
grep -q "^PASS hello" "$report/console.log" && grep -q "^PASS menu" "$report/console.log" || fail "the report's console.log lacks the two PASS lines"

for device in /sys/bus/usb/devices/*; do
    [ "$(cat "$device/idVendor" 2>/dev/null)" = 1d6b ] && [ "$(cat "$device/idProduct" 2>/dev/null)" = 0104 ] && break
done
node=/dev/bus/usb/$(printf %03d "$(cat "$device/busnum")")/$(printf %03d "$(cat "$device/devnum")")
properties=$(udevadm info --query=property --name="$node")
echo "$properties" | grep -qx "SMARTDEVICELINK_DEVICE=1" || fail "60-smartdevicelink.rules did not mark $node"
echo "$properties" | grep -q "^SYSTEMD_WANTS=.*sdl-bench.service" || fail "61-sdl-bench.rules did not ask for sdl-bench.service"
[ "$(stat -c '%a %G' "$node")" = "660 plugdev" ] || fail "$node is $(stat -c '%a %G' "$node"), not 660 plugdev"
echo "$node: 660 plugdev, marked, wants sdl-bench.service"

echo "" >/sys/kernel/config/usb_gadget/sdltdk/UDC  # the cable pulled
wait_for "$work/watch.log" '"event":"detached"' 30 || fail "the bench station did not see the TDK leave"
