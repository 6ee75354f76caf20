# A 10 MB upload over the CDC-ACM serial line with the cable pulled in the middle (the gadget
# unbound under it, then bound again): the app's port hangs up, the run says the link was
# lost and opens the port again, the emulator opens /dev/ttyACM0 again when it is back, the
# app registers again and the upload goes on from the last acknowledged byte; the head
# unit's file is the app's, byte for byte.
source Tests/Lab/support/lib.sh
source Tests/Lab/support/acm.sh
acm_make
acm_plug
mkdir -p "$work/hu"
head -c 10000000 /dev/urandom >"$work/big.bin"
cat >"$work/upload.json" <<JSON
{"name": "upload", "app": {"appName": "Unplugged", "appID": "unplug-serial-1"},
 "steps": [{"putFile": {"path": "big.bin", "name": "big.bin", "persistent": true}},
           {"send": "ListFiles", "response": {"params": {"filenames": ["big.bin"]}}}]}
JSON
echo "{\"storage\": {\"directory\": \"$work/hu\"}}" >"$work/hu.json"
start_emulator --serial /dev/ttyACM0 --config "$work/hu.json" --events
start app "$SDL_RUN" "$work/upload.json" --serial /dev/ttyGS0
app=${children[-1]}
stored="$work/hu/unplug-serial-1/big.bin"
size=$(wait_for_size "$stored" 3000000 120) || fail "the upload never got to 3 MB (at $size bytes)"
echo "pulling the cable at $size bytes stored"
acm_unplug
sleep 2
echo "plugging it in again"
acm_plug
wait "$app" || fail "the upload did not survive the unplug"
grep -q "primary lost" "$work/app.log" || fail "the run did not say the link was lost"
cmp "$work/big.bin" "$stored" || fail "the head unit's file differs from the app's"
echo "the head unit's 10 MB file is the app's, byte for byte"
