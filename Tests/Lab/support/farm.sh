# What the farm-* lab tests share: labgrid from scripts/setup-farm, this VM as an exporter
# host over SSH (as labgrid reaches every exporter host), the emulator behind the TDK-like
# gadget, a coordinator and the stock exporter with the TDK and a phone board (this VM), and a
# place for each. Sourced after lib.sh.
venv=${SDL_FARM_VENV:-}
[ -n "$venv" ] && [ -x "$venv/bin/labgrid-client" ] || skip "no labgrid environment (scripts/lab makes one with scripts/setup-farm; see its output)"
lg=$venv/bin
export LG_COORDINATOR=127.0.0.1:20408

# SSH into this VM as into an exporter host: a host key, root's key, known_hosts (labgrid checks it).
# ssh reads root's own ~/.ssh, so the test takes it away again when it ends, whatever the end.
[ -e /root/.ssh ] && fail "/root/.ssh is there already: a test before this one left it"
# labgrid's SSH master connections outlive their clients (ControlPersist): they go too.
trap 'status=$?; pkill -f "ControlMaster=yes" 2>/dev/null; rm -rf /root/.ssh; (exit $status); finish' EXIT
mkdir -p /run/sshd /root/.ssh && chmod 700 /root/.ssh
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key" && ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519 || fail "ssh-keygen failed"
cp /root/.ssh/id_ed25519.pub "$work/authorized_keys"
cat >"$work/sshd_config" <<EOF
ListenAddress 127.0.0.1
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
PidFile $work/sshd.pid
EOF
start sshd /usr/sbin/sshd -D -f "$work/sshd_config" -E "$work/sshd-events.log"
wait_for "$work/sshd-events.log" "Server listening" 20 || fail "sshd did not start"
echo "localhost $(cat "$work/host_key.pub")" >/root/.ssh/known_hosts
ssh -o BatchMode=yes localhost true || fail "ssh to this VM failed: $(cat "$work/sshd-events.log")"

start_emulator --control 127.0.0.1:12346
start gadget python3 Tests/Peers/ffs_gadget.py tdk --connect 12345
gadget_pid=${children[-1]}
wait_for "$work/gadget.log" "ready: relaying" 60 || fail "the TDK gadget was never enabled by the host"

cat >"$work/exporter.yaml" <<'EOF'
tdk:
  USBFlashableDevice:
    match:
      ID_VENDOR_ID: "1d6b"
      ID_MODEL_ID: "0104"
phone:
  NetworkService:
    address: localhost
    username: root
EOF
start coordinator bash -c "cd '$work' && exec '$lg/labgrid-coordinator' --listen $LG_COORDINATOR"
for _ in $(seq 150); do "$lg/labgrid-client" places >/dev/null 2>&1 && break; sleep 0.2; done
start exporter "$lg/labgrid-exporter" --name bench1 --hostname localhost "$work/exporter.yaml"
for _ in $(seq 300); do "$lg/labgrid-client" resources 2>/dev/null | grep -q "bench1/tdk/NetworkUSBFlashableDevice" && break; sleep 0.2; done
"$lg/labgrid-client" resources | grep -q "bench1/tdk/NetworkUSBFlashableDevice" || fail "the exporter did not export the TDK: $("$lg/labgrid-client" resources 2>&1)"
for place in tdk phone; do
    "$lg/labgrid-client" -p $place create && "$lg/labgrid-client" -p $place add-match "bench1/$place/*" || fail "could not make place $place"
done
"$lg/labgrid-client" -p tdk set-tags role=tdk

farm() { scripts/sdl-farm run --reports "$work/reports" --sdl-run "$SDL_RUN" "$@"; }
holder() { "$lg/labgrid-client" -p tdk show | sed -n 's/^ *acquired: //p'; }
