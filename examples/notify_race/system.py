"""A small asyncio implementation of the task registry behind the notify race, instrumented with
tlacheck's recorder (docs/case-studies/conform_notify_race.md).

One background agent task and the parent session that sends it a message ("DONE") near the end
of its run, as in the bug report modelled by specs/notify_race.spec:

- the registry keeps one record per task (`TaskRegistry`); every start and resume registers
  the task again; before a notification is enqueued, the notifier claims the record
  (test-and-set), and a notification whose claim fails is skipped silently;
- the original run (`original_run`) finishes its final API round, finishes the task (which fires
  the stranded-messages event if a message is pending), passes two awaits (a classifier gate, a
  worktree read) and enqueues its stop notification with the OLD reply;
- the parent (`send_done`) sends DONE: it joins the turn if the run is still in it, otherwise it
  waits in the task's pending messages, and the stranded-messages event fires at once unless the
  run is in its final round (then it fires when the task finishes);
- the listener (`follow_on`) starts the follow-on run when the event fires: it registers the
  task again (clearing the record's flag in the buggy registry) under the DONE send's tool-use
  id, answers, and notifies the answer.

`fixed=False` is the code of the report: one `notified` flag per record, cleared by every
registration, so a follow-on that registers before the stop notification loses its answer.
`fixed=True` is the spec's `Generation` variant: a claim is per registration (the run's
generation), so the follow-on's answer is always notified.

Which interleaving happens is up to the event loop; a `Schedule` makes it deterministic by
holding a step until another one is done (scenarios.py). The code logs what each part knows, in
its own words ("runner_state", "follow_on", tool-use ids), one line per step; the spec's
`conform:` section maps those words to the spec's. Each step also starts with a mark
(`await step(name)`, tlacheck.conform): outside a scheduler it costs nothing; under one
(tlacheck.testing.Schedule, docs/testing.md) the steps are taken in the order of a trace of the
spec, a counterexample say.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from tlacheck.conform import step

TASK = "agent-7f3a"
PREVIOUS_TOOL_USE = "toolu_prev"  # the tool-use id of the resume before DONE
DONE_TOOL_USE = "toolu_done"  # the tool-use id of the DONE send
OLD_REPLY, ANSWER = "old_reply", "answer"


@dataclass
class Record:
    """A task's registry record."""

    tool_use: str
    generation: int
    notified: bool = False  # the buggy registry's one flag per record


class TaskRegistry:
    """The in-memory task registry: `register` on every start and resume, `claim` before a
    notification is enqueued."""

    def __init__(self, fixed: bool):
        self.fixed = fixed
        self.records: dict[str, Record] = {}
        self.notified_generations: dict[str, set[int]] = {}  # the fixed registry: per task

    def register(self, task: str, tool_use: str) -> int:
        """Register `task` again (a start or a resume) under `tool_use`; the new generation. The
        record is rebuilt from a fixed list of fields, and `notified` is not on it."""
        old = self.records.get(task)
        generation = old.generation + 1 if old is not None else 0
        self.records[task] = Record(tool_use, generation)
        return generation

    def claim(self, task: str, generation: int) -> bool:
        """Test-and-set before a notification: False means "already notified, skip it"."""
        record = self.records.get(task)
        if record is None:
            return False
        if self.fixed:  # one claim per registration: the run's own generation
            done = self.notified_generations.setdefault(task, set())
            if generation in done:
                return False
            done.add(generation)
            return True
        if record.notified:  # one claim per record, whatever run claims it
            return False
        record.notified = True
        return True


class Schedule:
    """Which step waits for which: `before(step)` returns once the step it waits for is done
    (no wait by default); `done(step)` marks a step done."""

    def __init__(self, waits: dict[str, str] | None = None):
        self.waits = dict(waits or {})
        self.finished: dict[str, asyncio.Event] = {}

    def _event(self, step: str) -> asyncio.Event:
        return self.finished.setdefault(step, asyncio.Event())

    async def before(self, step: str) -> None:
        if step in self.waits:
            await self._event(self.waits[step]).wait()

    def done(self, step: str) -> None:
        self._event(step).set()


@dataclass
class NotifyRaceSystem:
    """The agent task, the parent and the follow-on listener, sharing one registry and the
    parent's notification queue. `recorder`: anything with `event(name, args=, state=)`.
    `guards`: the spec's runtime guards (tlacheck.testing.Guards), asserted before each step and
    after it (the step's guard, then the invariants), or None."""

    recorder: object
    fixed: bool = False
    schedule: Schedule = field(default_factory=Schedule)
    guards: object = None
    runner: str = "running"
    follow: str = "not_started"
    joined_turn: bool = False
    pending: list = field(default_factory=list)
    queue: list = field(default_factory=list)  # the parent's notification queue
    delivered: list = field(default_factory=list)
    notifications: int = 0
    sent: bool = False
    send_result: str = "not_sent"

    def __post_init__(self):
        self.registry = TaskRegistry(self.fixed)
        self.generation = self.registry.register(TASK, PREVIOUS_TOOL_USE)  # the resume before DONE
        self.stranded = asyncio.Event()  # agentStrandedMessages

    # ---------------------------------------------------------------- where a step begins, what it logs
    async def _begin(self, name: str) -> None:
        """A step begins: the scenario may hold it until another is done, a scheduler until its turn;
        then, with guards, the spec must allow it from here."""
        await self.schedule.before(name)
        await step(name)
        if self.guards is not None:
            self.guards.check(name, self.observed())

    def _log(self, step: str, **state) -> None:
        self.recorder.event(step, args={"task_id": TASK}, state=state)
        self.schedule.done(step)
        if self.guards is not None:
            self.guards.check_invariants(self.observed())

    def observed(self) -> dict:
        """What the code has, in its own words, as the spec's `conform:` section names it: the run,
        the follow-on, the DONE send, the registry record, the parent's queue and what it read. (The
        registries keep their claims differently, one flag per record or a set of generations: the
        claims are not in it.)"""
        record = self.registry.records[TASK]
        return {"runner_state": self.runner, "follow_on": self.follow, "sent": self.sent,
                "send_result": self.send_result, "joinedTurn": self.joined_turn, "pendingMessages": bool(self.pending),
                "strandedEvent": self.stranded.is_set(), "recordToolUse": record.tool_use,
                "queue": [dict(n) for n in self.queue], "delivered": list(self.delivered),
                "notification_count": self.notifications, "generation": record.generation}

    def _queue_state(self) -> dict:
        return {"queue": [dict(n) for n in self.queue], "notification_count": self.notifications}

    def _notify(self, generation: int, reply: str, tool_use: str) -> None:
        """Ofr: claim the record, enqueue only if the claim succeeds."""
        if self.registry.claim(TASK, generation):
            self.queue.append({"reply": reply, "toolUse": tool_use})
            self.notifications += 1
        else:  # the code's debug line, which is no step of the spec
            self.recorder.event("registry.claim_skipped", args={"task_id": TASK})

    # ---------------------------------------------------------------- the original run
    async def original_run(self) -> None:
        await self._begin("turn.final_round")
        self.runner = "final_round"
        self._log("turn.final_round", runner_state=self.runner)
        await self._begin("task.finished")
        self.runner = "finished"
        if self.pending:
            self.stranded.set()
        self._log("task.finished", runner_state=self.runner)
        await self._begin("gate.classifier")
        await asyncio.sleep(0)  # the classifier gate returns at once outside auto mode, but it awaits
        self.runner = "after_classifier"
        self._log("gate.classifier", runner_state=self.runner)
        await self._begin("worktree.read")
        await asyncio.sleep(0)  # reading the worktree result
        self.runner = "after_worktree"
        self._log("worktree.read", runner_state=self.runner)
        await self._begin("notify.stop")
        self.runner = "stopped"
        # the stop notification carries the reply of the turn, under the tool-use id its caller passes
        self._notify(self.generation, ANSWER if self.joined_turn else OLD_REPLY, PREVIOUS_TOOL_USE)
        self._log("notify.stop", runner_state=self.runner, **self._queue_state())

    # ---------------------------------------------------------------- the parent
    async def send_done(self) -> None:
        """SendMessage, non-blocking: the result string is the same whatever the task is doing."""
        await self._begin("send_message")
        self.sent = True
        self.send_result = "Resuming agent"
        if self.runner == "running":
            self.joined_turn = True  # answered inside the turn
        else:
            self.pending.append("DONE")
            if self.runner != "final_round":
                self.stranded.set()  # the task is no longer running: fired on arrival
        self._log("send_message", sent=self.sent, send_result=self.send_result)

    def parent_read(self) -> None:
        """The parent reads its first notification, and logs the line."""
        note = self.queue.pop(0)
        if note["reply"] not in self.delivered:
            self.delivered.append(note["reply"])
        self.recorder.event("parent.read", state={"delivered": list(self.delivered),
                                                   "queue": [dict(n) for n in self.queue]})

    async def parent_reads(self) -> None:
        """The parent reads its notifications, one step each."""
        while self.queue:
            await step("parent.read")
            self.parent_read()

    # ---------------------------------------------------------------- the follow-on run
    async def follow_on(self) -> None:
        """The stranded-messages listener: start the follow-on at once."""
        await self.stranded.wait()
        await self._begin("follow_on.registered")
        self.pending.clear()
        generation = self.registry.register(TASK, DONE_TOOL_USE)  # re-registration: the flag is cleared
        self.follow = "registered"
        self._log("follow_on.registered", follow_on=self.follow)
        await self._begin("follow_on.completed")
        await asyncio.sleep(0)  # the follow-on's API round
        # the answer is written to the transcript, then notified: the code logs both as one event
        self.follow = "answered"
        self.follow = "done"
        self._notify(generation, ANSWER, self.registry.records[TASK].tool_use)
        self._log("follow_on.completed", follow_on=self.follow, **self._queue_state())

    async def parts(self) -> None:
        """The original run, the DONE send and the listener, until each is done (the listener waits
        for the stranded-messages event, which may never fire); the parent's reads are left to the
        caller (`parent_read`). The step driver of driver.py runs this."""
        await asyncio.gather(self.original_run(), self.send_done(), self.follow_on())

    async def run(self) -> None:
        """One exchange: the original run, the DONE send and the listener, until the task has
        stopped and the follow-on (if it started) is done; then the parent reads its queue."""
        self.recorder.initial(state={"runner_state": self.runner, "follow_on": self.follow, "queue": [],
                                     "notification_count": 0, "sent": False, "send_result": self.send_result})
        listener = asyncio.create_task(self.follow_on())
        await asyncio.gather(self.original_run(), self.send_done())
        if self.stranded.is_set():
            await listener
        else:
            listener.cancel()
            try:
                await listener
            except asyncio.CancelledError:
                pass
        await self.parent_reads()
