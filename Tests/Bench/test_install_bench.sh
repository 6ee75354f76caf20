#!/usr/bin/env bash
# Checks scripts/install-bench into a staging root: what it installs, with which modes,
# that a second run changes nothing, that systemd-analyze verify accepts the unit (and
# would see a broken one), that the service never runs as root, and that --remove takes
# the station away but keeps the bench's scenarios and reports.
#   Tests/Bench/test_install_bench.sh SDL_RUN_BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:?usage: test_install_bench.sh SDL_RUN_BINARY}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok()   { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
root="$work/root"
install_bench() { ROOT="$root" SDL_RUN_BINARY="$binary" scripts/install-bench "$@"; }

first=$(install_bench)
for entry in usr/local/bin/sdl-run:755 etc/udev/rules.d/60-smartdevicelink.rules:644 etc/udev/rules.d/61-sdl-bench.rules:644 \
             etc/systemd/system/sdl-bench.service:644 etc/sdl-bench/bench.json:644 etc/sdl-bench/scenarios/smoke.json:644 \
             usr/local/lib/sdl/setup-gadget-board:755 etc/systemd/system/sdl-gadget-board.service:644 \
             usr/share/bash-completion/completions/sdl-run:644 usr/share/zsh/vendor-completions/_sdl-run:644 \
             usr/share/fish/vendor_completions.d/sdl-run.fish:644 usr/local/share/man/man1/sdl-run.1:644; do
  path=${entry%:*} mode=${entry#*:}
  if [ -f "$root/$path" ] && [ "$(stat -c %a "$root/$path")" = "$mode" ]; then ok "installs $path ($mode)"; else fail "$path missing or not $mode"; fi
done
# The bash completion is the argument parser's and knows the subcommands and their options.
completion="$root/usr/share/bash-completion/completions/sdl-run"
if out=$(bash -c "source '$completion' && complete -p sdl-run" 2>&1) && grep -q "sdl-run" <<<"$out" \
   && grep -q "emulate" "$completion" && grep -q -- "--usb-gadget" "$completion"; then
  ok "the bash completion loads and knows emulate and --usb-gadget"
else
  fail "the bash completion: $out"
fi
# The manual page is the parser's, with every subcommand.
page="$root/usr/local/share/man/man1/sdl-run.1"
if grep -q '^\.Nm sdl-run' "$page" && grep -q 'emulate' "$page" && grep -q 'usb-gadget' "$page"; then
  ok "the manual page names sdl-run, emulate and --usb-gadget"
else
  fail "the manual page is missing or incomplete"
fi
second=$(install_bench)
grep -q "installed" <<<"$second" && fail "a second run changed something: $second" || ok "a second run changes nothing"

# A bench's own configuration is never overwritten.
echo '{"devices": [], "scenarios": ["mine/"], "reports": "r"}' > "$root/etc/sdl-bench/bench.json"
install_bench >/dev/null
grep -q mine "$root/etc/sdl-bench/bench.json" && ok "keeps the bench's own bench.json" || fail "overwrote the bench's bench.json"

# systemd-analyze verify on each installed unit, its ExecStart pointed at what was staged.
verify_unit() {  # NAME: the unit, with /usr/local/ read under the staging root
  sed "s#/usr/local/#$root/usr/local/#" "$root/etc/systemd/system/$1" > "$work/$1"
  if out=$(systemd-analyze verify --man=no "$work/$1" 2>&1) && [ -z "$out" ]; then
    ok "systemd-analyze verify accepts $1"
  else
    fail "systemd-analyze verify: $out"
  fi
}
verify_unit sdl-bench.service
verify_unit sdl-gadget-board.service
unit="$root/etc/systemd/system/sdl-bench.service"
sed 's/^KillMode=mixed/KilMode=mixed/' "$work/sdl-bench.service" > "$work/broken.service"
out=$(systemd-analyze verify --man=no "$work/broken.service" 2>&1 || true)
grep -q "Unknown key" <<<"$out" && ok "a broken unit is seen by the check" || fail "a broken unit went unnoticed: $out"
grep -q "^DynamicUser=yes" "$unit" && grep -q "^SupplementaryGroups=plugdev" "$unit" && ! grep -Eq "^User=(root|0)$" "$unit" \
  && ok "the service runs as a user of its own in plugdev, not root" || fail "the service may run as root"
grep -q "^ExecStart=/usr/local/bin/sdl-run watch /etc/sdl-bench/bench.json$" "$unit" && ok "the service runs sdl-run watch on the installed configuration" \
  || fail "ExecStart is not sdl-run watch /etc/sdl-bench/bench.json"

# The example configuration the installer ships is one sdl-run reads.
if "$binary" validate examples/bench/scenarios/ >/dev/null; then ok "the example bench scenarios validate"; else fail "the example bench scenarios do not validate"; fi

# --remove: the station goes, the bench's scenarios, reports and the access rule stay.
mkdir -p "$root/var/lib/sdl-bench/reports"
install_bench --remove >/dev/null
for path in etc/systemd/system/sdl-bench.service etc/udev/rules.d/61-sdl-bench.rules usr/local/bin/sdl-run \
            etc/systemd/system/sdl-gadget-board.service usr/local/lib/sdl/setup-gadget-board \
            usr/share/bash-completion/completions/sdl-run usr/share/fish/vendor_completions.d/sdl-run.fish \
            usr/local/share/man/man1/sdl-run.1; do
  [ -e "$root/$path" ] && fail "--remove left $path" || ok "--remove removes $path"
done
for path in etc/sdl-bench/bench.json var/lib/sdl-bench/reports etc/udev/rules.d/60-smartdevicelink.rules; do
  [ -e "$root/$path" ] && ok "--remove keeps $path" || fail "--remove took $path"
done
again=$(install_bench --remove)
grep -q "removed" <<<"$again" && fail "a second --remove removed something: $again" || ok "a second --remove changes nothing"

# --exporter: a farm's exporter host gets the tool and the access rule, never the station.
root="$work/exporter"
install_bench --exporter >/dev/null
for path in usr/local/bin/sdl-run etc/udev/rules.d/60-smartdevicelink.rules etc/systemd/system/sdl-gadget-board.service; do
  [ -e "$root/$path" ] && ok "--exporter installs $path" || fail "--exporter did not install $path"
done
for path in etc/udev/rules.d/61-sdl-bench.rules etc/systemd/system/sdl-bench.service etc/sdl-bench/bench.json; do
  [ -e "$root/$path" ] && fail "--exporter installed the station's $path" || ok "--exporter leaves out $path"
done

echo "bench: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
