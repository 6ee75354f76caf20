#!/usr/bin/env bash
# Checks udev/60-smartdevicelink.rules with the real udevadm against umockdev-provided
# devices: the SDL devices get MODE 0660, group plugdev and TAG uaccess; other devices get
# nothing from it; no "Invalid key/value pair" nor "Invalid key" (udevadm's only signs of a
# syntax error: it exits 0). Also checks scripts/install-udev-rules is idempotent.
# udevadm test writes to /run/udev even in test mode: each run is in a private mount
# namespace with a tmpfs on /run (needs root, as in CI).
set -euo pipefail
cd "$(dirname "$0")/../.."
rules=udev/60-smartdevicelink.rules
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok()   { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

# udevadm test on a fake device VID:PID with the given rules file (and, when given, a
# second one installed beside it); prints udevadm's output.
udev_test() {  # rules-file vid pid [second-rules-file]
  cat > "$work/dev.umockdev" <<EOT
P: /devices/pci0000:00/0000:00:14.0/usb1/1-6
N: bus/usb/001/006
E: DEVNAME=/dev/bus/usb/001/006
E: DEVTYPE=usb_device
E: SUBSYSTEM=usb
E: BUSNUM=001
E: DEVNUM=006
E: MAJOR=189
E: MINOR=5
A: idVendor=$2
A: idProduct=$3
A: busnum=1
A: devnum=6
A: dev=189:5
EOT
  unshare -m sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/udev/rules.d &&
    cp "$1" /run/udev/rules.d/60-smartdevicelink.rules &&
    { [ -z "$3" ] || cp "$3" /run/udev/rules.d/61-sdl-bench.rules; } &&
    umockdev-run --device "$2" -- udevadm test --action=add /sys/devices/pci0000:00/0000:00:14.0/usb1/1-6' \
    sh "$1" "$work/dev.umockdev" "${4:-}" 2>&1
}

plugdev_gid=$(getent group plugdev | cut -d: -f3)
for id in 18d1:2d00 18d1:2d01 1d6b:0104; do
  out=$(udev_test "$rules" "${id%:*}" "${id#*:}")
  if grep -q "60-smartdevicelink.rules:[0-9]* Invalid key" <<<"$out"; then fail "$id: udevadm: $(grep 'Invalid key' <<<"$out" | head -1)"; continue; fi
  grep -Eq "60-smartdevicelink.rules:[0-9]+ MODE 0660" <<<"$out" && ok "$id: MODE 0660" || fail "$id: no MODE 0660 from our rule"
  grep -Eq "60-smartdevicelink.rules:[0-9]+ GROUP ${plugdev_gid:-plugdev}\$" <<<"$out" && ok "$id: GROUP plugdev" || fail "$id: no GROUP plugdev"
  grep -Eq "^TAGS=.*:uaccess:" <<<"$out" && ok "$id: TAG uaccess" || fail "$id: not tagged uaccess"
  # The last MODE assignment wins: it must be ours.
  last=$(grep -E "MODE 0[0-7]{3}" <<<"$out" | tail -1)
  [[ "$last" == *"60-smartdevicelink.rules"*"MODE 0660"* ]] && ok "$id: final mode is 0660" || fail "$id: final mode is '$last'"
done

for id in 18d1:4ee1 046d:c077; do
  out=$(udev_test "$rules" "${id%:*}" "${id#*:}")
  if grep -q "60-smartdevicelink.rules:[0-9]* \(MODE\|GROUP\)" <<<"$out" || grep -Eq "^TAGS=.*:uaccess:" <<<"$out"; then
    fail "$id: got access from the SDL rules"
  else
    ok "$id: untouched by the SDL rules"
  fi
done

# The bench station's rule: a marked SDL device is tagged for systemd and pulls in
# sdl-bench.service; anything else is left alone; without the bench rule nothing is pulled in.
bench=udev/61-sdl-bench.rules
out=$(udev_test "$rules" 1d6b 0104 "$bench")
if grep -q "61-sdl-bench.rules:[0-9]* Invalid key" <<<"$out"; then fail "bench rule: $(grep 'Invalid key' <<<"$out" | head -1)"; fi
grep -Eq "^SYSTEMD_WANTS=sdl-bench.service\$" <<<"$out" && ok "1d6b:0104: wants sdl-bench.service" || fail "1d6b:0104: no SYSTEMD_WANTS=sdl-bench.service"
grep -Eq "^TAGS=.*:systemd:" <<<"$out" && ok "1d6b:0104: tagged systemd" || fail "1d6b:0104: not tagged systemd"
out=$(udev_test "$rules" 046d c077 "$bench")
grep -Eq "^SYSTEMD_WANTS=|^TAGS=.*:systemd:" <<<"$out" && fail "046d:c077: the bench rule took a mouse" || ok "046d:c077: untouched by the bench rule"
out=$(udev_test "$rules" 1d6b 0104)
grep -Eq "^SYSTEMD_WANTS=sdl-bench" <<<"$out" && fail "without 61-sdl-bench.rules the service is still wanted" || ok "the access rule alone starts nothing"

# Serial lines: the CDC-ACM TTY of a 1d6b:0104 TDK (or a bridge added to the rules) gets
# MODE 0660, group dialout, uaccess and the bench's mark; another make's TTY gets nothing.
udev_tty_test() {  # vid pid
  cat > "$work/tty.umockdev" <<EOT
P: /devices/pci0000:00/0000:00:14.0/usb1/1-6/1-6:1.0/tty/ttyACM0
N: ttyACM0
E: DEVNAME=/dev/ttyACM0
E: SUBSYSTEM=tty
E: MAJOR=166
E: MINOR=0
A: dev=166:0

P: /devices/pci0000:00/0000:00:14.0/usb1/1-6/1-6:1.0
E: DEVTYPE=usb_interface
E: DRIVER=cdc_acm
E: SUBSYSTEM=usb
A: bInterfaceClass=02

P: /devices/pci0000:00/0000:00:14.0/usb1/1-6
N: bus/usb/001/006
E: DEVNAME=/dev/bus/usb/001/006
E: DEVTYPE=usb_device
E: SUBSYSTEM=usb
A: idVendor=$1
A: idProduct=$2
A: serial=TDK-7
A: busnum=1
A: devnum=6
A: dev=189:5
EOT
  unshare -m sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/udev/rules.d &&
    cp "$1" /run/udev/rules.d/60-smartdevicelink.rules && cp "$2" /run/udev/rules.d/61-sdl-bench.rules &&
    umockdev-run --device "$3" -- udevadm test --action=add /sys/devices/pci0000:00/0000:00:14.0/usb1/1-6/1-6:1.0/tty/ttyACM0' \
    sh "$rules" "$bench" "$work/tty.umockdev" 2>&1
}
dialout_gid=$(getent group dialout | cut -d: -f3)
out=$(udev_tty_test 1d6b 0104)
if grep -q "60-smartdevicelink.rules:[0-9]* Invalid key" <<<"$out"; then fail "tty: udevadm: $(grep 'Invalid key' <<<"$out" | head -1)"; fi
grep -Eq "60-smartdevicelink.rules:[0-9]+ MODE 0660" <<<"$out" && ok "ttyACM0 of 1d6b:0104: MODE 0660" || fail "ttyACM0 of 1d6b:0104: no MODE 0660"
grep -Eq "60-smartdevicelink.rules:[0-9]+ GROUP ${dialout_gid:-dialout}\$" <<<"$out" && ok "ttyACM0 of 1d6b:0104: GROUP dialout" \
  || fail "ttyACM0 of 1d6b:0104: no GROUP dialout"
grep -Eq "^TAGS=.*:uaccess:" <<<"$out" && ok "ttyACM0 of 1d6b:0104: TAG uaccess" || fail "ttyACM0 of 1d6b:0104: not tagged uaccess"
grep -Eq "^SYSTEMD_WANTS=sdl-bench.service\$" <<<"$out" && ok "ttyACM0 of 1d6b:0104: wants sdl-bench.service" \
  || fail "ttyACM0 of 1d6b:0104: no SYSTEMD_WANTS=sdl-bench.service"
out=$(udev_tty_test 0403 6001)
if grep -q "60-smartdevicelink.rules:[0-9]* \(MODE\|GROUP\)" <<<"$out" || grep -Eq "^SYSTEMD_WANTS=" <<<"$out"; then
  fail "ttyACM0 of 0403:6001: taken by the SDL rules"
else
  ok "ttyACM0 of 0403:6001: untouched by the SDL rules"
fi

# Never world-writable (nor readable): every MODE in the file ends in 0.
if grep -Eo 'MODE="?[0-7]+' "$rules" | grep -Evq '0$'; then fail "a MODE in $rules grants others access"; else ok "no MODE grants others access"; fi

# The syntax check above can see an error: a broken copy must be reported.
sed 's/^MODE="0660"/MODE=0660/' "$rules" > "$work/broken.rules"
out=$(udev_test "$work/broken.rules" 18d1 2d01)
grep -q "60-smartdevicelink.rules:[0-9]* Invalid key/value pair" <<<"$out" \
  && ok "a broken rules file is detected" || fail "a broken rules file went unnoticed"

# install-udev-rules: installs, then is a no-op the second time.
dest="$work/rules.d"
first=$(UDEV_RULES_DIR="$dest" scripts/install-udev-rules)
second=$(UDEV_RULES_DIR="$dest" scripts/install-udev-rules)
if cmp -s "$rules" "$dest/60-smartdevicelink.rules" && [[ "$first" == *installed* && "$second" == *"already up to date"* ]] \
   && [ "$(stat -c %a "$dest/60-smartdevicelink.rules")" = 644 ]; then
  ok "install-udev-rules installs once, then leaves it alone"
else
  fail "install-udev-rules: '$first' / '$second'"
fi

echo "udev: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
