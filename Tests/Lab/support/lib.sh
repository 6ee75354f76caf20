# What every lab test (Tests/Lab/NAME.sh, run inside the VM by scripts/lab.d/in-vm) shares:
# failing with one line, waiting for a line in a log, and stopping what it started.
set -uo pipefail
work=$(mktemp -d /tmp/lab.XXXXXX)
children=()

fail() { echo "FAIL: $*"; exit 1; }
# A test that cannot run here says why and exits 77; scripts/lab counts it as skipped.
skip() { echo "SKIP: $*"; exit 77; }

# Starts a command in the background with its output in $work/NAME.log.
start() {
    local name=$1; shift
    "$@" >"$work/$name.log" 2>&1 &
    children+=($!)
}

# Waits until FILE has a line matching PATTERN (extended regex), at most SECONDS.
wait_for() {
    local file=$1 pattern=$2 seconds=${3:-60}
    for _ in $(seq $((seconds * 10))); do
        grep -qE "$pattern" "$file" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "waited $seconds s for /$pattern/ in $(basename "$file"); it holds:"; sed 's/^/    /' "$file"
    return 1
}

# Waits until FILE holds more than BYTES, at most SECONDS; prints the size it got to.
wait_for_size() {
    local file=$1 bytes=$2 seconds=$3 size=0
    for _ in $(seq $((seconds * 10))); do
        size=$(stat -c %s "$file" 2>/dev/null || echo 0)
        [ "$size" -gt "$bytes" ] && break
        sleep 0.1
    done
    echo "$size"
    [ "$size" -gt "$bytes" ]
}

# Starts `sdl-run emulate` on 127.0.0.1:12345 with these further arguments and waits until it
# is up (it prints all its start lines at once, when everything listens).
start_emulator() {
    start emulator "$SDL_RUN" emulate --listen 127.0.0.1:12345 "$@"
    wait_for "$work/emulator.log" "listening on" 30 || fail "the emulator did not start"
}

# Prints each background log, for the record of a run.
show_logs() {
    for log in "$work"/*.log; do [ -f "$log" ] && { echo "--- $(basename "$log")"; cat "$log"; }; done
}

# Stops what the test started: SIGTERM, then SIGKILL for what is left.
stop_children() {
    for pid in "${children[@]}"; do kill "$pid" 2>/dev/null; done
    sleep 0.3
    for pid in "${children[@]}"; do kill -9 "$pid" 2>/dev/null; done
}

finish() {
    local status=$?
    stop_children
    show_logs
    rm -rf "$work"
    exit $status
}
trap finish EXIT
