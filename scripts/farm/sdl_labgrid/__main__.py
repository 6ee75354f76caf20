"""sdl-farm: run SDL scenarios on a labgrid place, holding it only for the run.

    sdl-farm run --place tdk-1 [--wait [SECONDS]] scenario.json... [-- SDL-RUN-ARGS]
    sdl-farm run --tag role=tdk --wait examples/hello.json      any free place tagged role=tdk

Exit codes: sdl-run's (0 passed, 1 a step failed, 2 invalid scenario, 3 no connection),
4 the farm could not give a place or reach its device, 130 stopped by a signal.
"""

import argparse
import logging
import os
import signal
import sys

from .driver import FarmError, SDLRunDriver
from .hold import Hold, connect, guard
from . import reports

FARM_FAILED = 4


def say(line):
    print(f"sdl-farm: {line}", file=sys.stderr, flush=True)


def parse(argv):
    parser = argparse.ArgumentParser(prog="sdl-farm", description="SDL scenarios on a labgrid farm.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{run}")
    run = commands.add_parser("run", help="hold a place, run scenarios on its TDK or phone board, release it",
                              description="Reserve a place (queueing with --wait), acquire it, run the scenarios with "
                                          "sdl-run where its device is, bring the report back, release the place.")
    which = run.add_mutually_exclusive_group(required=True)
    which.add_argument("--place", help="the place's name")
    which.add_argument("--tag", action="append", metavar="KEY=VALUE", help="any place with these tags (repeatable)")
    run.add_argument("--wait", nargs="?", type=float, const=-1, default=0, metavar="SECONDS",
                     help="queue for the place when it is held (for ever, or at most SECONDS)")
    run.add_argument("--coordinator", default=os.environ.get("LG_COORDINATOR", "127.0.0.1:20408"),
                     help="the coordinator, HOST[:PORT] (default: LG_COORDINATOR or 127.0.0.1:20408)")
    run.add_argument("--reports", default="farm-reports", help="where run folders and index.html go (default: farm-reports)")
    run.add_argument("--sdl-run", default="sdl-run", dest="remote_sdl_run",
                     help="sdl-run's path on the exporter host or board (default: on its PATH)")
    run.add_argument("--gadget", help="with a phone board: the UDC to use (default: its only one)")
    run.add_argument("scenarios", nargs="+", help="scenario files and folders here")
    keeper = commands.add_parser("_guard")  # started by `run`, never by hand
    keeper.add_argument("--pid", type=int, required=True)
    keeper.add_argument("--place", required=True)
    keeper.add_argument("--token", required=True)
    keeper.add_argument("--coordinator", required=True)
    # Everything after `--` belongs to sdl-run.
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    if args.command == "run":
        args.sdl_run_args = extra
        args.tags = {}
        for pair in args.tag or []:
            key, sep, value = pair.partition("=")
            if not sep or not key or not value:
                run.error(f"--tag {pair}: give KEY=VALUE, as the place's tags are set (labgrid-client set-tags)")
            args.tags[key] = value
    return args


def stop_on_signals():
    """SIGTERM and SIGHUP end a run as Ctrl-C does: its remote side stopped, its place released."""
    def interrupt(number, _frame):
        raise KeyboardInterrupt(signal.Signals(number).name)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, interrupt)


def run(args):
    session = connect(args.coordinator)
    hold = Hold(session, args.coordinator, place=args.place, tags=args.tags)
    try:
        place = hold.reserve(None if args.wait < 0 else args.wait, say)
        hold.acquire()
        say(f"place {place} acquired")
        driver = device_of(place, hold, args)
        exporter = reports.exporters(hold.find(place))
        result, outcome, problem = reports.run(driver, args.scenarios, args.reports, place=place, exporter=exporter,
                                               args=args.sdl_run_args)
        say(f"{outcome} on place {place} ({exporter}); report in {result.folder}")
        if problem:
            say(problem)
        return result.exit_code
    finally:
        hold.release(say)


def device_of(place, hold, args):
    """The driver for the place's device, through labgrid's RemotePlace."""
    from labgrid import Target
    from labgrid.resource.remote import RemotePlace, RemotePlaceManager
    from labgrid.exceptions import NoSupplierFoundError, NoResourceFoundError
    from labgrid.remote.client import Error as ClientError

    # RemotePlace finds the place's resources through this process's one coordinator session.
    manager = RemotePlaceManager.get()
    manager.session, manager.loop = hold.session, hold.session.loop
    target = Target(place)
    try:
        RemotePlace(target, name=place)
        driver = SDLRunDriver(target, name=None, sdl_run=args.remote_sdl_run, gadget=args.gadget)
        target.activate(driver)
    except NoSupplierFoundError:
        raise FarmError(f"place {place} has no TDK (USBFlashableDevice) or phone board (NetworkService): "
                        f"add one with labgrid-client -p {place} add-match") from None
    except NoResourceFoundError as error:
        raise FarmError(f"place {place}'s device is not available on its exporter ({error}): is it plugged in?") from None
    except ClientError as error:
        raise FarmError(f"labgrid could not give place {place}'s resources: {error}") from None
    return driver


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    logging.getLogger().setLevel(logging.CRITICAL)  # labgrid's own log lines would say each failure twice
    if args.command == "_guard":
        return guard(args.pid, args.place, args.token, args.coordinator)
    stop_on_signals()
    try:
        return run(args)
    except FarmError as error:
        say(str(error))
        return FARM_FAILED
    except KeyboardInterrupt as why:
        say(f"stopped ({why or 'SIGINT'}); the place is released")
        return 130


if __name__ == "__main__":
    sys.exit(main())
