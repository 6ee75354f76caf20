# The bench station on a serial line: a TDK-like CDC-ACM gadget (1d6b:0104, serial lab-acm)
# plays the head unit on its end (/dev/ttyGS0, `sdl-run emulate --serial`); on the host,
# udev/'s rules under a real udevd give its /dev/ttyACM0 mode 0660, group dialout and the
# bench's mark, and `sdl-run watch` finds the port by the USB device it belongs to, runs the
# bench's scenarios on it, and sees it go when the cable is pulled.
source Tests/Lab/support/lib.sh
source Tests/Lab/support/acm.sh
mkdir -p /run/udev/rules.d
cp udev/*.rules /run/udev/rules.d/
udevadm control --reload || fail "udevd did not reload the rules"
acm_make
[ -e /dev/ttyGS0 ] || fail "no /dev/ttyGS0 once the acm function exists"
start emulator "$SDL_RUN" emulate --listen 127.0.0.1:12345 --control 127.0.0.1:12346 --serial /dev/ttyGS0
wait_for "$work/emulator.log" "serial: serving serial /dev/ttyGS0" 30 || fail "the emulator did not serve /dev/ttyGS0"
mkdir -p "$work/scenarios"
cp examples/hello.json examples/menu.json "$work/scenarios/"
cat >"$work/bench.json" <<JSON
{"serialPorts": ["serial=lab-acm"], "scenarios": ["scenarios/"], "reports": "$work/reports", "control": "127.0.0.1:12346"}
JSON
start watch "$SDL_RUN" watch "$work/bench.json"
wait_for "$work/watch.log" '"event":"watching".*"serialPorts":\["serial=lab-acm"\]' 30 || fail "the bench station did not start watching"
acm_plug
wait_for "$work/watch.log" '"device":"/dev/ttyACM0.*"event":"attached"' 30 || fail "the station did not find /dev/ttyACM0 by its USB device"
wait_for "$work/watch.log" '"event":"runFinished"' 120 || fail "no run finished on the serial port"
grep '"event":"runFinished"' "$work/watch.log" | grep -q '"outcome":"passed"' || fail "the bench run did not pass"
report=$(ls -d "$work"/reports/*-ttyACM0/ | head -1)
grep -q "^PASS hello" "$report/console.log" && grep -q "^PASS menu" "$report/console.log" || fail "the report's console.log lacks the two PASS lines"

properties=$(udevadm info --query=property --name=/dev/ttyACM0)
echo "$properties" | grep -qx "SMARTDEVICELINK_DEVICE=1" || fail "60-smartdevicelink.rules did not mark /dev/ttyACM0"
echo "$properties" | grep -q "^SYSTEMD_WANTS=.*sdl-bench.service" || fail "61-sdl-bench.rules did not ask for sdl-bench.service"
echo "$properties" | grep -q "^TAGS=.*:uaccess:" || fail "60-smartdevicelink.rules did not tag /dev/ttyACM0 uaccess"
# (Debian's own rules give every ttyACM 0660 dialout too; the mark and the tag are ours.)
[ "$(stat -c '%a %G' /dev/ttyACM0)" = "660 dialout" ] || fail "/dev/ttyACM0 is $(stat -c '%a %G' /dev/ttyACM0), not 660 dialout"
echo "/dev/ttyACM0: 660 dialout, uaccess, marked, wants sdl-bench.service"

acm_unplug
wait_for "$work/watch.log" '"device":"/dev/ttyACM0.*"event":"detached"' 30 || fail "the bench station did not see the port go"
