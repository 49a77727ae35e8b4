"""Conformance from Python: the front doors to `tlacheck conform` for code and tests.

- `Recorder` (and `RecorderHandler`, for `logging`): write a run's events from real code as the
  NDJSON lines `tlacheck conform` reads (conform/recorder.py: the standard library only, so that
  importing it costs an application nothing of tlacheck's).
- `Monitor`: check events as they arrive, against a spec; the first that no behaviour of the
  spec explains is reported at once (conform/monitor.py).
- `check(spec, logs, ...)`: `tlacheck conform` as a function, returning the Report.
- `step(name, args)` and `@atomic(name)`: marks where asyncio code takes one atomic step, for a
  schedule to order (conform/marks.py: the standard library only; tlacheck.testing steers them).

The pytest fixture `tlacheck_recorder` (app/pytest_plugin.py) records a test's events and checks
them when the test ends. docs/conform.md describes the format, the mapping and the semantics.
"""

from tlacheck.conform.marks import atomic, step
from tlacheck.conform.recorder import Recorder, RecorderHandler

__all__ = ["Recorder", "RecorderHandler", "Monitor", "check", "step", "atomic"]


def __getattr__(name: str):
    # The monitor and `check` load the compiler and the matcher: only when they are asked for.
    if name == "Monitor":
        from tlacheck.conform.monitor import Monitor

        return Monitor
    if name == "check":
        from tlacheck.conform.monitor import check

        return check
    raise AttributeError(f"module 'tlacheck.conform' has no attribute {name!r}")
