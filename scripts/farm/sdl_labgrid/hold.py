"""Holding a labgrid place for one run: reserve (queueing with --wait), acquire, release.

Everything goes through the coordinator's own requests (the ones labgrid-client sends), so
a place held here shows in `labgrid-client who` like any other, and what is held is data,
not text parsed from labgrid-client's output.

A run must never leave its place taken. A normal end, an error and Ctrl-C release it in
`Hold.release`; for a client that is killed outright, `Hold.acquire` starts a guard: a process
of its own session that waits for this one to end and releases the place and cancels the
reservation if it is still ours, retrying while the coordinator does not answer.
"""

import os
import subprocess
import sys
import time

from labgrid.remote.client import start_session
from labgrid.remote.common import Place, Reservation, ReservationState
from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

from .driver import FarmError


def connect(coordinator):
    """A session with the coordinator at HOST[:PORT], or a FarmError that says what to check."""
    try:
        return start_session(coordinator)
    except Exception:  # grpc reports an unreachable coordinator in several ways
        raise FarmError(f"no labgrid coordinator answers at {coordinator}: "
                        f"start labgrid-coordinator there, or give --coordinator / LG_COORDINATOR") from None


def call(session, request):
    """Sends one coordinator request; a refusal becomes a FarmError with the coordinator's reason."""
    import grpc

    try:
        return session.loop.run_until_complete(request)
    except grpc.aio.AioRpcError as error:
        raise FarmError(f"the coordinator refused: {error.details()}") from None


class Hold:
    """One place, reserved and acquired for the length of a run."""

    def __init__(self, session, coordinator, *, place=None, tags=None):
        self.session = session
        self.coordinator = coordinator
        self.filters = {"name": place} if place else dict(tags or {})
        self.token = None
        self.place = place
        self.guard = None

    def find(self, name):
        """The place NAME as the coordinator has it now."""
        places = call(self.session, self.session.stub.GetPlaces(pb2.GetPlacesRequest())).places
        place = next((Place.from_pb2(p) for p in places if p.name == name), None)
        if place is None:
            raise FarmError(f"no place {name} on the coordinator at {self.coordinator}: "
                            f"`labgrid-client places` lists them")
        return place

    def holder(self, name):
        """Who has the place NAME now ("host/user", acquired or reserved), or None when it is free."""
        place = self.find(name)
        if place.acquired:
            return f"{place.acquired} (acquired)"
        if place.reservation:
            reservations = call(self.session, self.session.stub.GetReservations(pb2.GetReservationsRequest())).reservations
            owner = next((r.owner for r in reservations if r.token == place.reservation), "someone")
            return f"{owner} (reserved)"
        return None

    def reserve(self, wait, say):
        """Reserves a place that fits; with WAIT (seconds, None: for ever) queues until one is free."""
        holder = self.holder(self.place) if self.place else None
        if holder and wait == 0:
            raise FarmError(f"place {self.place} is held by {holder}: run with --wait to queue for it")
        request = pb2.CreateReservationRequest(filters={"main": pb2.Reservation.Filter(filter=self.filters)}, prio=0.0)
        self.token = call(self.session, self.session.stub.CreateReservation(request)).reservation.token
        started, told = time.monotonic(), False
        while True:
            # Polling also keeps the reservation alive: the coordinator drops one not asked about for a minute.
            answer = call(self.session, self.session.stub.PollReservation(pb2.PollReservationRequest(token=self.token)))
            reservation = Reservation.from_pb2(answer.reservation)
            if reservation.state is ReservationState.allocated:
                self.place = reservation.allocations["main"][0]
                return self.place
            if reservation.state is not ReservationState.waiting:
                raise FarmError(f"the reservation for {self._filters_text()} ended as {reservation.state.name}")
            if wait == 0 or (wait is not None and time.monotonic() - started >= wait):
                self.cancel()
                raise FarmError(f"no place for {self._filters_text()} came free" + (f" in {wait:g} s" if wait else
                                ": run with --wait to queue for one"))
            if not told:
                say(f"place {self.place} is held by {holder}; waiting for it" if holder
                    else f"no place for {self._filters_text()} is free; waiting for one")
                told = True
            time.sleep(1)

    def acquire(self):
        """Acquires the reserved place and starts the guard that frees it if this process is killed."""
        call(self.session, self.session.stub.AcquirePlace(pb2.AcquirePlaceRequest(placename=self.place)))
        call(self.session, self.session.sync_with_coordinator())  # this session's view of the place: acquired
        self.guard = subprocess.Popen(
            [sys.executable, "-m", "sdl_labgrid", "_guard", "--pid", str(os.getpid()), "--place", self.place,
             "--token", self.token, "--coordinator", self.coordinator],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)

    def release(self, say):
        """Releases the place and cancels the reservation. When the coordinator does not answer,
        the guard is left to do it as soon as it does, after this process has ended."""
        try:
            if self.place and self.guard:
                call(self.session, self.session.stub.ReleasePlace(pb2.ReleasePlaceRequest(placename=self.place)))
            self.cancel()
        except FarmError as error:
            if not self.guard:
                raise
            say(f"place {self.place} not released yet ({error}); a helper (pid {self.guard.pid}) releases it "
                f"when the coordinator at {self.coordinator} answers")
            self.guard = None
            return
        if self.guard:
            self.guard.terminate()
            self.guard.wait()
            self.guard = None

    def cancel(self):
        if self.token:
            call(self.session, self.session.stub.CancelReservation(pb2.CancelReservationRequest(token=self.token)))
            self.token = None

    def _filters_text(self):
        return " ".join(f"{k}={v}" for k, v in self.filters.items())


def guard(pid, place, token, coordinator, patience=600):
    """Waits for PID to end, then frees PLACE and cancels TOKEN if they are still held for it."""
    import select
    import signal

    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))  # the client released the place itself
    try:
        watched = os.pidfd_open(pid)
        select.select([watched], [], [])
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + patience
    while True:
        try:
            session = start_session(coordinator)
            hold = Hold(session, coordinator, place=place)
            hold.token = token
            if hold.find(place).acquired == f"{session.gethostname()}/{session.getuser()}":
                call(session, session.stub.ReleasePlace(pb2.ReleasePlaceRequest(placename=place)))
                note(f"sdl-farm: the client {pid} ended without releasing place {place}; released it")
            try:
                hold.cancel()
            except FarmError:
                pass  # expired or cancelled already
            return 0
        except Exception:  # FarmError, or a coordinator that is not back yet
            if time.monotonic() > deadline:
                note(f"sdl-farm: could not release place {place} for {patience} s: `labgrid-client -p {place} release`")
                return 1
            time.sleep(5)


def note(line):
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        pass  # the client's terminal or log has gone with it
