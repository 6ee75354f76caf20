# A 20 MB upload over the USB gadget, with the cable pulled in the middle (the gadget's UDC
# unbound under it): the run says the link was lost, plugs in again, the emulator switches
# it again, the upload goes on from the last acknowledged byte, and the head unit's file is
# the app's, byte for byte.
source Tests/Lab/support/lib.sh
mkdir -p "$work/hu"
head -c 20000000 /dev/urandom >"$work/big.bin"
cat >"$work/upload.json" <<JSON
{"name": "upload", "app": {"appName": "Unplugged", "appID": "unplug-1"},
 "steps": [{"putFile": {"path": "big.bin", "name": "big.bin", "persistent": true}},
           {"send": "ListFiles", "response": {"params": {"filenames": ["big.bin"]}}}]}
JSON
echo "{\"storage\": {\"directory\": \"$work/hu\"}}" >"$work/hu.json"
start_emulator --usb 18d1:4ee1 --config "$work/hu.json"
start app "$SDL_RUN" "$work/upload.json" --usb-gadget --wait 60
app=${children[-1]}
stored="$work/hu/unplug-1/big.bin"
size=$(wait_for_size "$stored" 6000000 60) || fail "the upload never got to 6 MB (at $size bytes)"
echo "pulling the cable at $size bytes stored"
echo "" >/sys/kernel/config/usb_gadget/sdl/UDC
wait "$app" || fail "the upload did not survive the unplug"
grep -q "primary lost" "$work/app.log" || fail "the run did not say the link was lost"
cmp "$work/big.bin" "$stored" || fail "the head unit's file differs from the app's"
echo "the head unit's 20 MB file is the app's, byte for byte"
