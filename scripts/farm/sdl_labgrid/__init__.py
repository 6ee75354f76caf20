"""SDL scenarios on a labgrid farm: a driver that runs sdl-run against a place's TDK or phone
board, a pytest fixture for suites, and `sdl-farm run`, which holds a place for one run."""

from .driver import FarmError, RunResult, SDLRunDriver

__all__ = ["FarmError", "RunResult", "SDLRunDriver"]
