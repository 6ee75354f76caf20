# Bluetooth for a lab test: two BR/EDR controllers from btvirt (hci0, the head unit's;
# hci1, the phone's), a system bus and Debian's bluetoothd on it, SSP off so that the two
# connect without an agent. Sourced after lib.sh.
btvirt -B -l2 >"$work/btvirt.log" 2>&1 &
children+=($!)
for _ in $(seq 100); do [ -e /sys/class/bluetooth/hci1 ] && break; sleep 0.1; done
[ -e /sys/class/bluetooth/hci1 ] || fail "btvirt made no second controller: $(cat "$work/btvirt.log")"
mkdir -p /run/dbus
dbus-daemon --system --fork --nopidfile || fail "no system bus"
/usr/libexec/bluetooth/bluetoothd -n ${BLUETOOTHD_DEBUG:+-d} >"$work/bluetoothd.log" 2>&1 &
children+=($!)
# bluetoothd turns SSP on as it takes each adapter, so wait for it to have both first;
# with SSP on, the head unit's RFCOMM connect starts a pairing no agent answers.
for _ in $(seq 100); do [ "$(bluetoothctl list 2>/dev/null | grep -c '^Controller')" = 2 ] && break; sleep 0.1; done
for index in 0 1; do
    for setting in "power off" "ssp off" "power on" "connectable on" "bondable on"; do
        btmgmt --index $index $setting >/dev/null || fail "btmgmt --index $index $setting failed"
    done
    btmgmt --index $index info | grep -q "current settings:.*ssp" && fail "hci$index still has SSP on"
done
PHONE_ADDRESS=$(cat /sys/kernel/debug/bluetooth/hci1/identity 2>/dev/null | cut -d' ' -f1)
PHONE_ADDRESS=${PHONE_ADDRESS:-$(hciconfig hci1 | awk '/BD Address/ {print $3}')}
echo "bluetooth: hci0 (head unit) and hci1 (phone, $PHONE_ADDRESS) up under bluetoothd"
