# A 10 MB upload over the CDC-ACM serial line through bursts of line noise and then with the
# cable pulled (the gadget unbound under it, then bound again). The noise, random bytes
# written into both ends of the line beside the two programs, lands between and inside
# frames: both decoders skip it, and a chunk or an answer it destroyed is sent again on the
# same link. On the unplug the app's port hangs up, the run says the link was
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
start app "$SDL_RUN" "$work/upload.json" --serial /dev/ttyGS0 --trace "$work/trace.jsonl"
app=${children[-1]}
stored="$work/hu/unplug-serial-1/big.bin"
size=$(wait_for_size "$stored" 1000000 120) || fail "the upload never got to 1 MB (at $size bytes)"
echo "line noise from $size bytes stored: bursts into each end while the upload goes on"
# In the background: a write into the board's end waits behind the app's frames for room in
# the line's buffer, a second or more each under qemu, and the upload must not end first.
(
    exec 3>/dev/ttyACM0 4>/dev/ttyGS0
    for _ in 1 2 3; do
        head -c 512 /dev/urandom >&3
        head -c 512 /dev/urandom >&4
        sleep 0.3
    done
) 2>/dev/null &
noise=$!
size=$(wait_for_size "$stored" 5000000 120) || fail "the upload never got to 5 MB (at $size bytes)"
[ "$size" -lt 10000000 ] || fail "the upload was done before the cable was pulled"
pkill -9 -P "$noise" 2>/dev/null; kill -9 "$noise" 2>/dev/null; wait "$noise" 2>/dev/null
echo "pulling the cable at $size bytes stored"
acm_unplug
sleep 2
echo "plugging it in again"
acm_plug
wait "$app" || fail "the upload did not survive the unplug"
grep -q "primary lost" "$work/app.log" || fail "the run did not say the link was lost"
grep -q '"skippedBefore"' "$work/trace.jsonl" || fail "the app's trace shows no noise skipped"
grep '"skippedBefore"' "$work/trace.jsonl" | head -3
cmp "$work/big.bin" "$stored" || fail "the head unit's file differs from the app's"
echo "the head unit's 10 MB file is the app's, byte for byte, after the noise and the unplug"
