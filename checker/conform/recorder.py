"""The recorder: a run's events written by real code, one NDJSON line each (docs/conform.md).

    with Recorder("run.ndjson") as rec:
        rec.initial(state={"runner": "running"})
        rec.event("task.stop", args={"task": "t1"}, state={"runner": "stopped"})

Each call writes one line `{"action": ..., "args": ..., "state": ...}` (and `clock`, `time` when
asked for) in the encoding `tlacheck conform` reads: Python's bools, ints, strings, None, lists,
tuples (as lists), dicts, sets and frozensets (as lists, in a fixed order) and `enum.Enum` members
(by name). Thread-safe and asyncio-safe: a line is encoded outside the lock and written whole
under it, so lines from several threads never mix; an asyncio program calls it from its one
thread. Cost: a few microseconds per event (benchmarks/conform.py measures it: docs/performance.md).

Standard library only: importing this module loads nothing else of tlacheck's.
"""

from __future__ import annotations

import enum
import json
import logging
import os
import threading
import time as _time


def _encode(x):
    """json.dumps's fallback: sets in a fixed order, enum members by name."""
    if isinstance(x, (set, frozenset)):
        return sorted(x, key=_order)
    if isinstance(x, enum.Enum):
        return x.name
    raise TypeError(f"cannot record a {type(x).__name__} (record bools, ints, strings, None, lists, tuples, "
                    "dicts, sets or enum members)")


def _order(x) -> str:
    return json.dumps(x, sort_keys=True, default=_encode)


_dumps = json.JSONEncoder(default=_encode, separators=(", ", ": ")).encode


def line(action, args=None, state=None, clock=None, time=None, initial: bool = False) -> str:
    """One event as an NDJSON line (without the newline); no `action` key when `action` is None
    (the event does not say which), `"action": null` for the initial state."""
    data: dict = {"action": None} if initial else {"action": action} if action is not None else {}
    if args:
        data["args"] = args
    if state:
        data["state"] = state
    if clock is not None:
        data["clock"] = clock
    if time is not None:
        data["time"] = time
    return _dumps(data)


class Recorder:
    """Writes events to `target`: a path (the file is created or emptied) or a text stream.

    `lamport=True` stamps each event with a Lamport clock (`clock`): one more than the last, or
    than a clock received with `receive(clock)`; `timestamps=True` stamps the wall-clock time
    (`time`, seconds). Either lets `tlacheck conform` merge the logs of several processes."""

    def __init__(self, target, *, lamport: bool = False, timestamps: bool = False):
        if isinstance(target, (str, os.PathLike)):
            self.stream = open(target, "w", encoding="utf-8")
            self.owned = True
        else:
            self.stream = target
            self.owned = False
        self.lamport = lamport
        self.timestamps = timestamps
        self.clock = 0
        self.events = 0
        self.sinks: list = []  # also called with each line (a Monitor's `line`)
        self._lock = threading.Lock()

    def initial(self, state=None) -> None:
        """The initial state (or part of it): the first line of the log, if any."""
        self._write(line(None, None, state, initial=True))

    def event(self, action: str | None, args=None, state=None, *, clock=None, time=None) -> None:
        """One event: its name (an action of the spec or an `event` of its `conform:` section; None:
        not said), the arguments it has, and the variables it shows after it (any subset)."""
        if self.lamport and clock is None:
            with self._lock:
                self.clock += 1
                clock = self.clock
        if self.timestamps and time is None:
            time = _time.time()
        self._write(line(action, args, state, clock, time))

    def receive(self, clock: int) -> None:
        """A Lamport clock received from another process: this one's next event comes after it."""
        with self._lock:
            self.clock = max(self.clock, clock)

    def _write(self, text: str) -> None:
        with self._lock:
            self.stream.write(text + "\n")
            self.events += 1
            for sink in self.sinks:
                sink(text)

    def flush(self) -> None:
        with self._lock:
            self.stream.flush()

    def close(self) -> None:
        with self._lock:
            if self.owned:
                self.stream.close()
            else:
                self.stream.flush()

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class RecorderHandler(logging.Handler):
    """A `logging` handler that records the log records carrying an event, given as
    `extra={"conform": {"action": ..., "args": {...}, "state": {...}}}`; other records pass by:

        log.info("task stopped", extra={"conform": {"action": "task.stop", "state": {"runner": "stopped"}}})
    """

    def __init__(self, recorder: Recorder, level: int = logging.NOTSET):
        super().__init__(level)
        self.recorder = recorder

    def emit(self, record: logging.LogRecord) -> None:
        event = getattr(record, "conform", None)
        if not isinstance(event, dict):
            return
        try:
            if event.get("initial"):
                self.recorder.initial(event.get("state"))
            else:
                self.recorder.event(event.get("action"), event.get("args"), event.get("state"),
                                    clock=event.get("clock"), time=event.get("time"))
        except Exception:  # a handler must not raise into the application (logging's contract)
            self.handleError(record)
