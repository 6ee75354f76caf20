"""SDLRunDriver: sdl-run's scenarios against a place's TDK, run on the machine it is plugged into.

The TDK (or head unit) is a USB device on an exporter host. Rather than carry its bulk
endpoints across the network, the driver runs `sdl-run --usb BUS:ADDR` on that host over
labgrid's own SSH connection to it (the one every remote resource uses), with the scenarios
shipped over first and the run's report folder fetched back after. A phone board (a
NetworkService, the board's SSH address) runs `sdl-run --usb-gadget` on the board instead.

When this side goes away mid-run (Ctrl-C, a kill, a lost network), the SSH channel's input
ends and the remote side stops sdl-run, so a TDK is never left held by an orphaned run.
"""

import io
import os
import shlex
import subprocess
import sys
import tarfile

import attr

from labgrid.driver.common import Driver
from labgrid.factory import target_factory
from labgrid.step import step
from labgrid.util.ssh import sshmanager

# Runs on the exporter host as `sh -c REMOTE_RUN sdl-farm FOLDER SDL-RUN ARGS...`. sdl-run
# gets no input; a reader on the channel's input (fd 3) stops it when that input ends, which
# is when the client, or its connection, is gone. The reader keeps no output open, so the
# channel closes as soon as sdl-run has ended.
REMOTE_RUN = r"""
folder=$1; shift
exec 3<&0
"$@" --output-dir "$folder/out" </dev/null 3<&- &
run=$!
{ cat <&3 >/dev/null; kill -TERM "$run"; } >/dev/null 2>&1 &
wait "$run"
"""


class FarmError(Exception):
    """A farm run that could not start or finish, with what to do; one line."""


@attr.s(frozen=True)
class RunResult:
    """What one sdl-run invocation on a place left: its exit code and its report folder here."""

    exit_code: int = attr.ib()
    folder: str = attr.ib()
    device: str = attr.ib()

    @property
    def passed(self):
        return self.exit_code == 0


@target_factory.reg_driver
@attr.s(eq=False)
class SDLRunDriver(Driver):
    """Runs SDL scenarios with `sdl-run` against the place's TDK or through its phone board.

    Args:
        sdl_run (str): sdl-run's path on the exporter host or board (default: on its PATH).
        gadget (str): with a phone board, the UDC to offer the gadget on (default: the
            board's only one).
    """

    bindings = {"device": {"USBFlashableDevice", "NetworkUSBFlashableDevice", "NetworkService"}}
    sdl_run = attr.ib(default="sdl-run", validator=attr.validators.instance_of(str))
    gadget = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))

    def on_activate(self):
        pass

    def on_deactivate(self):
        pass

    @property
    def _board(self):
        """Whether the device is a phone board (reached by its SSH address) rather than a USB device."""
        return type(self.device).__name__ == "NetworkService"

    @property
    def device_description(self):
        """The device as a report names it: the TDK's ids and bus address, or the board."""
        if self._board:
            return f"phone board {self.device.address}" + (f" ({self.gadget})" if self.gadget else "")
        return f"USB {self.device.vendor_id:04x}:{self.device.model_id:04x} at {self.device.busnum}:{self.device.devnum}"

    def _transport(self):
        if self._board:
            return ["--usb-gadget"] + ([self.gadget] if self.gadget else [])
        if self.device.busnum is None or self.device.devnum is None:
            raise FarmError(f"the place's USB device ({self.device.path or 'unplugged'}) is not on a bus now: plug it in, "
                            f"or check the exporter's udev match")
        return ["--usb", f"{self.device.busnum}:{self.device.devnum}"]

    def _command(self, command):
        """The command as it runs where the device is: over labgrid's SSH, or here."""
        if self._board:
            host = f"{self.device.username}@{self.device.address}" if self.device.username else self.device.address
            return sshmanager.get(host).get_prefix() + ["--"] + [shlex.quote(a) for a in command]
        return self.device.wrap_command(command)

    def _check(self, command, what, **kwargs):
        result = subprocess.run(self._command(command), capture_output=True, **kwargs)
        if result.returncode != 0:
            detail = result.stderr.decode(errors="replace").strip().splitlines()
            raise FarmError(f"{what} failed on {self._where()}: {detail[-1] if detail else f'exit {result.returncode}'}")
        return result.stdout

    def _where(self):
        return getattr(self.device, "host", None) or getattr(self.device, "address", "this machine")

    @Driver.check_active
    @step(args=["scenarios"])
    def run(self, scenarios, folder, args=()):
        """Runs SCENARIOS (files and folders here) and puts the run's report folder in FOLDER.

        ARGS go to sdl-run as they are (`--include smoke`, `--var NAME=VALUE`). Returns a
        RunResult; a run that did not pass is a result, not an exception. Raises FarmError
        when the run could not be made (no device, no sdl-run there).
        """
        transport = self._transport()
        staging = self._check(["mktemp", "-d", "/tmp/sdl-farm.XXXXXX"], "making a folder").decode().strip()
        try:
            shipped = self._ship(scenarios, staging)
            command = ["sh", "-c", REMOTE_RUN, "sdl-farm", staging, self.sdl_run, *shipped, *transport, *args]
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "console.log"), "wb") as console:
                runner = subprocess.Popen(self._command(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT)
                try:
                    # The run's lines as they come, here and in the report, as the bench station keeps them.
                    for chunk in iter(lambda: runner.stdout.read1(65536), b""):
                        sys.stdout.buffer.write(chunk)
                        sys.stdout.flush()
                        console.write(chunk)
                    exit_code = runner.wait()
                finally:
                    runner.stdin.close()  # the remote side's cue to stop a run still going
                    runner.wait()
            self._fetch(staging, folder)
        finally:
            subprocess.run(self._command(["rm", "-rf", staging]), capture_output=True)
        return RunResult(exit_code=exit_code, folder=folder, device=self.device_description)

    def _ship(self, scenarios, staging):
        """Copies the scenario files and folders across; returns their paths there."""
        archive = io.BytesIO()
        shipped = []
        with tarfile.open(fileobj=archive, mode="w") as tar:
            for path in scenarios:
                if not os.path.exists(path):
                    raise FarmError(f"no scenario {path}: check the path")
                # Relative paths keep their folders, so a scenario's neighbours travel with it.
                name = os.path.normpath(path if not os.path.isabs(path) else os.path.basename(path))
                if name.startswith(".."):
                    name = os.path.basename(os.path.abspath(path))
                tar.add(path, arcname=name)
                shipped.append(f"{staging}/in/{name}")
        self._check(["sh", "-c", 'mkdir "$1" && tar x -C "$1"', "sdl-farm", f"{staging}/in"], "copying the scenarios",
                    input=archive.getvalue())
        return shipped

    def _fetch(self, staging, folder):
        """Brings the run's report folder back (nothing when sdl-run wrote none)."""
        data = self._check(["sh", "-c", '[ -d "$1" ] || exit 0; tar c -C "$1" .', "sdl-farm", f"{staging}/out"],
                           "fetching the report")
        if data:
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                # Python 3.11.4 and later check each member stays inside FOLDER; Debian 12's 3.11.2
                # cannot, and trusts the archive: it is what our own command made on the exporter.
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                tar.extractall(folder, **safe)
