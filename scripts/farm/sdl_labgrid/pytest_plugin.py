"""pytest: SDL scenarios in a labgrid suite, beside its other bench tests.

    pytest -p sdl_labgrid.pytest_plugin --lg-env bench.yaml --sdl-reports reports/

with an environment whose target has the place (RemotePlace) and an SDLRunDriver. The place
is held the labgrid way, `labgrid-client reserve --wait` and `acquire` around the suite;
`sdl-farm run` is the same run for a job that has nothing but SDL scenarios.

    def test_hello(sdl_run):
        assert sdl_run("examples/hello.json").passed
"""

import pytest

from . import reports
from .driver import SDLRunDriver  # noqa: F401  (registers the driver with labgrid)


def pytest_addoption(parser):
    parser.addoption("--sdl-reports", default="farm-reports", help="where SDL runs put their report folders and index.html")


@pytest.fixture
def sdl_run(target, request):
    """Runs scenarios on the target's device; returns a RunResult (its .passed, .exit_code, .folder)."""
    driver = target.get_driver("SDLRunDriver")
    place = next((r.name for r in target.resources if type(r).__name__ == "RemotePlace"), target.name)
    from labgrid.resource.remote import RemotePlaceManager
    session = RemotePlaceManager.get().session  # the exporter's name is in the place's resource paths
    exporter = reports.exporters(session.get_place(place)) if session else "local"
    where = request.config.getoption("--sdl-reports")

    def run(*scenarios, args=()):
        result, _, problem = reports.run(driver, scenarios, where, place=place, exporter=exporter, args=args)
        if problem:
            print(problem)
        return result

    return run
