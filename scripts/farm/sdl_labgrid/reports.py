"""A farm run's report folder: what sdl-run wrote, plus run.json saying where and when it ran.

run.json has the fields `sdl-run watch` writes on a bench station (device, startedAt,
finishedAt, exitCode, outcome) and the farm's own (place, exporter), so that one index,
`sdl-run index`, lists a station's runs and a farm's alike.
"""

import datetime
import json
import os
import shutil
import subprocess

# sdl-run's exit codes, as the bench station names them; ssh's 255 is an exporter not reached.
OUTCOMES = {0: "passed", 1: "failed", 2: "invalid", 3: "connectionFailed", 130: "stopped", 255: "exporterUnreachable"}


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def timestamp(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def run_folder(reports, place, started):
    """A new folder for one run: REPORTS/<UTC time>-<place>, made unique if two start in one second."""
    base = os.path.join(reports, f"{started.strftime('%Y%m%dT%H%M%S')}-{place}")
    folder, n = base, 1
    while os.path.exists(folder):
        n += 1
        folder = f"{base}-{n}"
    return folder


def record(folder, *, device, place, exporter, started, finished, exit_code):
    """Writes FOLDER/run.json; returns the outcome it recorded."""
    outcome = OUTCOMES.get(exit_code, "stopped")
    run = {"device": device, "place": place, "exporter": exporter, "startedAt": timestamp(started),
           "finishedAt": timestamp(finished), "exitCode": exit_code, "outcome": outcome}
    with open(os.path.join(folder, "run.json"), "w") as file:
        json.dump(run, file, indent=2)
        file.write("\n")
    return outcome


def exporters(place):
    """The exporters a labgrid place's acquired resources are on, as the index shows them."""
    return ", ".join(sorted({path[0] for path in place.acquired_resources})) or "?"


def run(driver, scenarios, reports, *, place, exporter, args=()):
    """One run on the place into a new folder under REPORTS, recorded and indexed.

    Returns (result, outcome, problem): the driver's RunResult, the outcome run.json records,
    and a line saying why index.html was not made (None when it was).
    """
    started = now()
    folder = run_folder(reports, place, started)
    result = driver.run(list(scenarios), folder, list(args))
    outcome = record(folder, device=result.device, place=place, exporter=exporter, started=started,
                     finished=now(), exit_code=result.exit_code)
    return result, outcome, index(reports)


def index(reports, sdl_run=None):
    """Makes REPORTS/index.html with this machine's sdl-run; returns a line saying why not, or None."""
    sdl_run = sdl_run or os.environ.get("SDL_RUN") or shutil.which("sdl-run")
    if not sdl_run:
        return "index.html not made: no sdl-run on this machine (put it on PATH or set SDL_RUN)"
    made = subprocess.run([sdl_run, "index", reports], capture_output=True, text=True)
    if made.returncode != 0:
        return f"index.html not made: {made.stderr.strip()}"
    return None
