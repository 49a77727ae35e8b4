"""Stopping inside one long step.

The explorers look at the limits (`--time-limit`, `--memory-limit`, Ctrl-C) between states,
so one successor computation that runs for minutes (an action over ten million parameter
values, a quantifier nested three deep over a large set) would outrun them. A Watchdog is a
timer that asks "should the search stop?" ten times a second (SIGALRM). Once the answer is
yes it keeps it in `hit` (the explorers test it after every state) and, when the signal
arrives while the spec's generated code is running, raises StepInterrupted there: the
generated code is pure, so abandoning it leaves nothing half done, and the explorer ends
with verdict incomplete and the statistics so far.

It never raises while the explorer rebuilds a trace or reports a violation (`protected`
code objects on the stack), so a counterexample already found is not lost to the clock.
Signals are delivered to the main thread only: elsewhere (a test runner's thread, a
platform without setitimer) the watchdog does nothing and the checks between states remain.
"""

from __future__ import annotations

import signal
import threading
from typing import Callable, Iterable


TICK = 0.1  # seconds between two looks at the limits


class StepInterrupted(Exception):
    """A limit was reached while the spec's code computed one step (`reason` as limit_reached)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Watchdog:
    """Context manager: while inside, `should_stop()` (a reason or None) is asked every TICK
    seconds; `hit[0]` holds the first reason it gave."""

    def __init__(self, should_stop: Callable[[], str | None], code_name: str, protected: Iterable = ()):
        self.should_stop = should_stop
        self.code_name = code_name
        self.protected = frozenset(protected)
        self.hit: list[str | None] = [None]
        self._previous = None
        self._armed = False

    def __enter__(self) -> "Watchdog":
        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return self
        if signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
            return self  # someone else's timer is running: leave it alone
        self._previous = signal.signal(signal.SIGALRM, self._tick)
        signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
        self._armed = True
        return self

    def __exit__(self, *exc) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            signal.signal(signal.SIGALRM, self._previous)
            self._armed = False

    def _tick(self, signum, frame) -> None:
        if self.hit[0] is None:
            self.hit[0] = self.should_stop()
        if self.hit[0] is not None and self._in_step(frame):
            raise StepInterrupted(self.hit[0])

    def _in_step(self, frame) -> bool:
        """Whether the spec's generated code is on the stack, and no protected code is."""
        inside = False
        while frame is not None:
            code = frame.f_code
            if code in self.protected:
                return False
            if code.co_filename == self.code_name:
                inside = True
            frame = frame.f_back
        return inside
