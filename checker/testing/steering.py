"""Steering real asyncio code through its marks: one atomic step at a time, in an order chosen here.

A `Steering` is the controller of the marks (conform/marks.py) of the tasks it starts: every task
that reaches `await step(name)` is held there until the steering lets it pass. `let_pass(held)`
releases one task and waits until its step has ended: the code recorded the step's event (the
steering is a sink of the recorder), reached its next mark, or returned. Then it waits until the
program is *settled*: every task is held at a mark or waits for something only another step can
give. So after each step the implementation's state is the step's work and nothing else, and the
next step starts from there. Schedules (testing/schedule.py) and step drivers (testing/bridge.py)
are built on it.

How "nothing else can run" is known: after yielding to the event loop, the loop's queue of ready
callbacks is empty (CPython's event loop; on another loop, 100 rounds without a task reaching a
mark or recording a line count as settled), and no task reached a mark or recorded a line. Then
only a timer or I/O can wake a task: if the loop has timers or watches I/O, the steering waits up
to `patience` seconds of wall-clock time for what it is waiting for; pure asyncio code (locks,
events, queues, `sleep(0)`) never waits on the clock, and the same program takes the same steps
every time. What a steering cannot order: code that runs in other threads, and what tasks do
between two marks (that is part of the step before it, or of no step).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
from dataclasses import dataclass, field
from enum import Enum

from tlacheck.conform import marks

_SETTLED_ROUNDS = 2  # rounds without a ready callback or progress: settled (CPython's loop)
_BLIND_ROUNDS = 100  # the same on a loop whose ready queue cannot be seen
_BUSY_ROUNDS = 200_000  # rounds with callbacks always ready and no mark reached: the program never settles
_POLL = 0.005  # seconds between looks while a timer or I/O may wake a task


@dataclass(eq=False)
class Held:
    """A task held at a mark: the mark's name and arguments (in the code's words), the task, the
    order of arrival (from 1)."""

    name: str
    args: dict
    task: asyncio.Task | None
    future: asyncio.Future
    number: int

    def mark(self) -> str:
        """The mark as the code wrote it: `name`(arguments)."""
        args = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in self.args.items())
        return f"`{self.name}`" + (f"({args})" if args else "")


class Ended(Enum):
    """How a step that was let pass ended."""

    RECORDED = "recorded"  # the code recorded the step's event
    NEXT_MARK = "next_mark"  # the task reached its next mark without recording the event
    RETURNED = "returned"  # the task returned
    RAISED = "raised"  # the task raised an exception
    BLOCKED = "blocked"  # the task waits for something no other step gives: the step never ends


@dataclass(frozen=True)
class Passage:
    """One step let pass: the mark, how it ended, the lines recorded while it ran (in order), the
    exception of a task that raised."""

    held: Held
    ended: Ended
    lines: tuple[str, ...]
    error: BaseException | None = None


class Unsettled(Exception):
    """The program keeps running without reaching a mark (a busy loop between two marks)."""


@dataclass
class Steering:
    """The controller of the marks of the tasks it starts (`start`), and a recorder's sink (`line`).

    `patience`: the most seconds it waits, once no task can run, for a timer or I/O to wake one."""

    patience: float = 1.0
    held: list[Held] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # recorded and not yet taken (`take_lines`)
    free: bool = False
    progress: int = 0  # arrivals and recorded lines so far: what changes when a task moves
    arrivals: int = 0
    started: list[asyncio.Task] = field(default_factory=list)

    # ---------------------------------------------------------------- the marks' side
    async def arrive(self, name: str, args: dict) -> None:
        """A task reached `await step(name, args)`: hold it until it is let pass."""
        if self.free:
            return
        future = asyncio.get_running_loop().create_future()
        self.arrivals += 1
        self.progress += 1
        self.held.append(Held(name, args, asyncio.current_task(), future, self.arrivals))
        await future

    def line(self, text: str) -> None:
        """A line the recorder wrote (a Recorder's sink)."""
        self.lines.append(text)
        self.progress += 1

    # ---------------------------------------------------------------- the steering's side
    def start(self, coro) -> asyncio.Task:
        """Run `coro` as a task whose marks (and those of the tasks it creates) this steering holds."""
        context = contextvars.copy_context()
        context.run(marks.govern, self)
        task = asyncio.get_running_loop().create_task(coro, context=context)
        self.started.append(task)
        return task

    def waiting(self) -> list[Held]:
        """The tasks held now, in the order they arrived."""
        self.held = [h for h in self.held if not h.future.done()]
        return list(self.held)

    def take_lines(self) -> list[str]:
        out, self.lines = self.lines, []
        return out

    async def wait_for(self, wanted) -> Held | None:
        """The first task held at a mark for which `wanted(held)` is true, waiting until one arrives;
        None once the program is settled without one (it will never arrive)."""
        def found():
            return next((h for h in self.waiting() if wanted(h)), None)

        if await self._until(lambda: found() is not None, patient=True):
            return found()
        return None

    async def let_pass(self, held: Held) -> Passage:
        """Let `held`'s task take its step; returns once the step has ended and the program settled."""
        self.take_lines()
        before = self.arrivals
        task = held.task
        held.future.set_result(None)
        recorded = []

        def ended() -> Ended | None:
            for text in self.lines[len(recorded):]:
                recorded.append(text)
            if any(_action_of(text) == held.name for text in recorded):
                return Ended.RECORDED
            if any(h.task is task and h.number > before for h in self.waiting()):
                return Ended.NEXT_MARK
            if task is not None and task.done():
                return Ended.RAISED if not task.cancelled() and task.exception() is not None else Ended.RETURNED
            return None

        done = await self._until(lambda: ended() is not None, patient=True)
        how = ended() if done else Ended.BLOCKED
        await self.settle()
        if task is not None and task.done() and not task.cancelled() and task.exception() is not None:
            how = Ended.RAISED  # also after recording its event: the step did not end well
        error = task.exception() if how is Ended.RAISED else None
        return Passage(held, how, tuple(self.take_lines()), error)

    async def settle(self) -> None:
        """Wait until no task can run (timers and I/O are not waited for)."""
        await self._until(lambda: False, patient=False)

    def go_free(self) -> None:
        """From now on marks do not hold: every held task goes on, and later marks pass at once."""
        self.free = True
        for h in self.waiting():
            h.future.set_result(None)
        self.held = []

    def stop(self) -> None:
        """Cancel every held task (at its mark) and the tasks started here."""
        for h in self.waiting():
            h.future.cancel()
        for task in self.started:
            task.cancel()
        self.held = []

    def whereabouts(self) -> list[str]:
        """Where each task of the loop is, one line each: held at a mark, or waiting at a line of
        the code (the innermost frame outside asyncio), in a fixed order (held ones by arrival,
        then the others by name)."""
        held = self.waiting()
        held_tasks = {id(h.task) for h in held}
        out = [f"{task_name(h.task)}: held at mark {h.mark()}" for h in held]
        others = []
        for task in asyncio.all_tasks():
            if task is asyncio.current_task() or id(task) in held_tasks or task.done():
                continue
            others.append(f"{task_name(task)}: waits at {_where(task)}")
        return out + sorted(others)

    # ---------------------------------------------------------------- waiting
    async def _until(self, condition, patient: bool) -> bool:
        """Yield to the event loop until `condition()` holds (True) or nothing can run (False)."""
        loop = asyncio.get_running_loop()
        quiet = busy = 0
        deadline = None
        while not condition():
            before = self.progress
            await asyncio.sleep(0)
            if condition():
                return True
            ready = _ready(loop)
            if self.progress != before:
                quiet = busy = 0
                deadline = None
                continue
            if ready:
                quiet, busy = 0, busy + 1
                if busy > _BUSY_ROUNDS:
                    raise Unsettled(f"the program ran {busy:,} rounds of the event loop without a task "
                                    "reaching a mark or recording a step")
                continue
            busy = 0
            quiet += 1
            if quiet < (_SETTLED_ROUNDS if ready is not None else _BLIND_ROUNDS):
                continue
            if patient and self.patience > 0 and _woken_from_outside(loop):
                deadline = deadline if deadline is not None else loop.time() + self.patience
                if loop.time() < deadline:
                    await asyncio.sleep(_POLL)
                    continue
            return False
        return True


def _action_of(text: str):
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data.get("action") if isinstance(data, dict) else None


def _ready(loop) -> bool | None:
    """Whether the loop has callbacks ready to run (None: it does not say)."""
    queue = getattr(loop, "_ready", None)
    return None if queue is None else len(queue) > 0


def _woken_from_outside(loop) -> bool:
    """Whether a timer or I/O may still wake a task (True when the loop does not say)."""
    timers = getattr(loop, "_scheduled", None)
    selector = getattr(loop, "_selector", None)
    if timers is None or selector is None:
        return True
    if any(not t.cancelled() for t in timers):
        return True
    own = 1 if getattr(loop, "_ssock", None) is not None else 0  # the loop's own wake-up pipe
    return len(selector.get_map()) > own


def task_name(task) -> str:
    """A task by its coroutine's name (`NotifyRaceSystem.follow_on`), which says more than `Task-3`."""
    if task is None:
        return "(no task)"
    coro = task.get_coro()
    return getattr(coro, "__qualname__", None) or task.get_name()


_ASYNCIO = os.path.dirname(asyncio.__file__)


def _where(task) -> str:
    """The innermost line of `task`'s await chain outside asyncio's own code."""
    coro, frame = task.get_coro(), None
    while coro is not None:
        f = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if f is None:
            break
        if not f.f_code.co_filename.startswith(_ASYNCIO):
            frame = f
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    if frame is None:
        return "(not started)"
    path = frame.f_code.co_filename
    try:
        shown = os.path.relpath(path)
    except ValueError:
        shown = path
    if shown.startswith(".."):
        shown = path
    return f"{shown}:{frame.f_lineno} in {frame.f_code.co_name}"
