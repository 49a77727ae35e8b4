"""Counterexamples as schedules (issue 36 item 3): marks in real asyncio code (conform/marks.py), the
steering that holds tasks at them (testing/steering.py) and the Schedule that makes the code take a
trace's steps in the trace's order (testing/schedule.py), on the notify race's example code and on
small programs written here for each way a program cannot follow."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from examples.notify_race.system import NotifyRaceSystem
from tests.conftest import SPECS, model_of
from tlacheck.app.cli import main
from tlacheck.conform import Recorder, atomic, check, step
from tlacheck.core.result import Step, Trace
from tlacheck.testing.schedule import Schedule, ScheduleError, Verdict

NOTIFY_RACE = str(SPECS / "notify_race.spec")


def racy_run(fixed: bool, schedule: Schedule):
    """The example under `schedule`: the outcome, the system, the log."""
    log = io.StringIO()
    recorder = Recorder(log)
    made = []

    def program():
        made.append(NotifyRaceSystem(recorder, fixed=fixed))
        return made[0].run()

    outcome = schedule.run(program, recorder=recorder)
    return outcome, made[0], log.getvalue()


@pytest.fixture(scope="module")
def answer_notified() -> Schedule:
    return Schedule.counterexample(NOTIFY_RACE, "AnswerNotified")


def test_issue_36_the_counterexample_is_planned_as_the_codes_events(answer_notified):
    plan = [(p.first, p.last, p.event.name) for p in answer_notified.plan]
    assert plan == [(1, 1, "turn.final_round"), (2, 2, "task.finished"), (3, 3, "gate.classifier"),
                    (4, 4, "worktree.read"), (5, 5, "send_message"), (6, 6, "follow_on.registered"),
                    (7, 7, "notify.stop"), (8, 9, "follow_on.completed")]
    assert len(answer_notified.trace.steps) == 10  # the 9-step counterexample


def test_issue_36_the_schedule_strands_the_reply_in_the_buggy_code_every_time(tmp_path, answer_notified):
    """The seed race, reproduced in the real code 20 times: the same steps, the same log, the
    answer never notified; and the log is a behaviour of the spec that breaks AnswerNotified."""
    logs = set()
    for _ in range(20):
        outcome, system, log = racy_run(False, answer_notified)
        assert outcome.verdict is Verdict.FOLLOWED, outcome.text()
        assert outcome.steps_followed == 9
        assert system.notifications == 1 and system.delivered == ["old_reply"]  # the answer is stranded
        assert system.follow == "done" and system.runner == "stopped"
        logs.add(log)
    assert len(logs) == 1
    (log,) = logs
    actions = [json.loads(line).get("action") for line in log.splitlines()]
    assert actions.index("follow_on.registered") < actions.index("notify.stop") < actions.index("follow_on.completed")
    path = tmp_path / "racy.ndjson"
    path.write_text(log)
    report = check(NOTIFY_RACE, [str(path)])
    assert report.runs[0].verdict.value == "violation" and report.runs[0].violation.name == "AnswerNotified"


def test_issue_36_the_fixed_code_cannot_follow_past_the_step_the_fix_blocks(answer_notified):
    for _ in range(3):
        outcome, system, _ = racy_run(True, answer_notified)
        assert outcome.verdict is Verdict.DIVERGED
        assert outcome.steps_followed == 7  # up to state 8: the stop notification after the registration
        assert (outcome.failed.first, outcome.failed.last) == (8, 9)
        assert system.notifications == 2  # the follow-on's claim succeeded: its answer is queued
        text = outcome.text()
        assert "cannot follow the trace past state 8" in text and "FollowOnNotifies" in text
        assert "specs/notify_race.spec:137" in text
        rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.startswith("    ")}
        assert rows["notifications"] == ["2", "1"]  # the code, the trace
        assert rows["queue"][-1] == "(absent)"


def test_issue_36_marks_cost_nothing_outside_a_schedule():
    """No scheduler: `await step(...)` completes without yielding to the event loop."""
    coro = step("anything", {"x": 1})
    with pytest.raises(StopIteration):
        coro.send(None)


# ---------------------------------------------------------------- small programs that cannot follow

TWO = """
spec Two
var a: bool = false
var b: bool = false
action A:
    require not a
    a = true
action B:
    require not b
    b = true
action Tick:
    skip
deadlock: allowed
conform:
    field "a_done" = a
    silent Tick
"""


def trace_of(model, names: list[str]) -> Trace:
    """The behaviour of `model` taking these actions in order (each the first instance enabled)."""
    state = next(iter(model.init()))
    steps = [Step(None, (), state)]
    index = [i.name for i in model.action_info]
    for name in names:
        a = index.index(name)
        args, state = next(iter(model.actions[a](state)))
        steps.append(Step(a, args, state))
    return Trace(tuple(steps))


def schedule_of(names: list[str], spec: str = TWO, **options) -> Schedule:
    model = model_of(spec)
    return Schedule(model, trace_of(model, names), title=f"Schedule: {', '.join(names)}", patience=0.0, **options)


def follow(schedule: Schedule, program) -> tuple:
    log = io.StringIO()
    recorder = Recorder(log)
    outcome = schedule.run(lambda: program(recorder), recorder=recorder)
    return outcome, log.getvalue()


async def a_then_b(recorder, a_state=None, record_b: bool = True):
    """A, then B: B's task waits until A is done, whatever the schedule says."""
    state = {"a": False, "b": False}
    a_done = asyncio.Event()

    async def task_a():
        await step("A")
        state["a"] = True
        recorder.event("A", state=a_state if a_state is not None else {"a_done": True})
        a_done.set()

    async def task_b():
        await a_done.wait()
        await step("B")
        state["b"] = True
        if record_b:
            recorder.event("B", state={"b": True})

    await asyncio.gather(task_a(), task_b())
    return state


def test_issue_36_a_program_follows_a_schedule_it_can_take():
    outcome, log = follow(schedule_of(["A", "B"]), a_then_b)
    assert outcome.verdict is Verdict.FOLLOWED and outcome.steps_followed == 2
    assert outcome.result == {"a": True, "b": True}  # the program's own return value, once free
    assert [json.loads(line)["action"] for line in log.splitlines()] == ["A", "B"]


def test_issue_36_a_step_that_never_arrives_is_reported_with_where_each_task_waits():
    outcome, log = follow(schedule_of(["B", "A"]), a_then_b)
    assert outcome.verdict is Verdict.NEVER_ARRIVED and outcome.steps_followed == 0
    assert log == ""  # nothing ran past a mark
    text = outcome.text()
    assert "no task reaches the mark `B`" in text
    assert "a_then_b.<locals>.task_a: held at mark `A`" in text
    assert "a_then_b.<locals>.task_b: waits at tests/test_schedule.py:" in text and "in task_b" in text


def test_issue_36_a_step_recorded_without_its_mark_is_out_of_order():
    async def program(recorder):
        async def unmarked_b():
            recorder.event("B", state={"b": True})  # no `await step("B")`: nothing holds it

        async def marked_a():
            await step("A")
            recorder.event("A")

        await asyncio.gather(marked_a(), unmarked_b())

    outcome, _ = follow(schedule_of(["A", "B"]), program)
    assert outcome.verdict is Verdict.OUT_OF_ORDER
    assert "the code recorded `B`, which the trace does not take before its first step" in outcome.text()


def test_issue_36_a_step_that_reaches_another_state_diverges():
    outcome, _ = follow(schedule_of(["A", "B"]), lambda rec: a_then_b(rec, a_state={"a_done": False}))
    assert outcome.verdict is Verdict.DIVERGED and outcome.steps_followed == 0
    assert "a         false  true" in outcome.text()  # the variable, the code's value, the trace's


def test_issue_36_an_initial_state_other_than_the_traces_diverges_before_the_first_step():
    async def program(recorder):
        recorder.initial(state={"a_done": True})
        await a_then_b(recorder)

    outcome, _ = follow(schedule_of(["A", "B"]), program)
    assert outcome.verdict is Verdict.DIVERGED and outcome.failed is None and outcome.steps_followed == 0
    assert "before the first step: the code's initial state is not the trace's:" in outcome.text()


def test_issue_36_a_step_that_never_ends_is_blocked():
    async def program(recorder):
        never = asyncio.Event()
        await step("A")
        await never.wait()  # inside the step: nothing will set it
        recorder.event("A")

    outcome, _ = follow(schedule_of(["A"]), program)
    assert outcome.verdict is Verdict.BLOCKED
    assert "began at the mark `A` and never ended" in outcome.text() and "in program" in outcome.text()


def test_issue_36_a_step_that_raises_is_reported():
    async def program(recorder):
        await step("A")
        raise ValueError("the registry is gone")

    outcome, _ = follow(schedule_of(["A"]), program)
    assert outcome.verdict is Verdict.RAISED
    assert "the step raised ValueError: the registry is gone" in outcome.text()


def test_issue_36_steps_of_silent_actions_without_an_event_are_not_forced():
    schedule = schedule_of(["A", "Tick", "B"])
    assert [p.event.name if p.event else p.note for p in schedule.plan] == [
        "A", "not forced: an unlogged step of the environment", "B"]
    outcome, _ = follow(schedule, a_then_b)
    assert outcome.verdict is Verdict.FOLLOWED and outcome.steps_followed == 3


def test_issue_36_unforced_actions_can_be_named():
    schedule = schedule_of(["A", "B"], unforced=("B",))
    assert [p.event for p in schedule.plan][1] is None
    outcome, _ = follow(schedule, lambda rec: a_then_b(rec, record_b=False))
    assert outcome.verdict is Verdict.FOLLOWED
    with pytest.raises(ScheduleError, match="the spec has no action `C`"):
        schedule_of(["A"], unforced=("C",))


def test_issue_36_the_atomic_decorator_marks_a_coroutine_function():
    @atomic("A")
    async def take_a(recorder):
        recorder.event("A")

    async def program(recorder):
        await asyncio.gather(take_a(recorder), b_after_a(recorder))

    async def b_after_a(recorder):
        await step("B")
        recorder.event("B")

    outcome, log = follow(schedule_of(["B", "A"]), program)
    assert outcome.verdict is Verdict.FOLLOWED
    assert [json.loads(line)["action"] for line in log.splitlines()] == ["B", "A"]
    with pytest.raises(TypeError, match="coroutine function"):
        atomic("A")(lambda: None)


def test_issue_36_a_step_after_a_timer_is_waited_for():
    """A timer is outside the marks: the schedule waits for it (up to `patience` seconds)."""
    async def program(recorder):
        await asyncio.sleep(0.01)
        await step("A")
        recorder.event("A")

    model = model_of(TWO)
    schedule = Schedule(model, trace_of(model, ["A"]), title="A after a timer", patience=5.0)
    outcome, _ = follow(schedule, program)
    assert outcome.verdict is Verdict.FOLLOWED


def test_issue_36_marks_agree_with_the_trace_on_their_arguments():
    spec = """
    spec Workers
    const W: set[model] = {w1, w2}
    var taken: set[W] = {}
    action Take(w in W):
        require w not in taken
        taken = taken | {w}
    deadlock: allowed
    conform:
        event "job.taken" = Take(w = "worker")
        values W: "worker-1" = w1, "worker-2" = w2
    """
    model = model_of(spec)
    w2_first = trace_of(model, ["Take", "Take"])
    w2_first = Trace((w2_first.steps[0], Step(0, (1,), (frozenset({1}),)), Step(0, (0,), (frozenset({0, 1}),))))
    schedule = Schedule(model, w2_first, title="worker-2 first", patience=0.0)

    async def program(recorder):
        async def worker(name):
            await step("job.taken", {"worker": name})
            recorder.event("job.taken", args={"worker": name})

        await asyncio.gather(worker("worker-1"), worker("worker-2"))

    outcome, log = follow(schedule, program)
    assert outcome.verdict is Verdict.FOLLOWED
    assert [json.loads(line)["args"]["worker"] for line in log.splitlines()] == ["worker-2", "worker-1"]


def test_issue_36_a_trace_that_splits_an_event_of_the_code_is_refused():
    spec = TWO.replace('    field "a_done" = a', '    event "both" = A then B\n    field "a_done" = a')
    model = model_of(spec)
    with pytest.raises(ScheduleError, match=r"state 2 \(A\): the code takes A only as part of `both`"):
        Schedule(model, trace_of(model, ["A", "Tick", "B"]), title="split")


def test_issue_36_a_saved_counterexample_is_a_schedule(tmp_path, capsys):
    itf = tmp_path / "cx.itf.json"
    assert main(["check", NOTIFY_RACE, "--itf", str(itf)]) == 12
    capsys.readouterr()
    loaded = Schedule.load(NOTIFY_RACE, itf)
    direct = Schedule.counterexample(NOTIFY_RACE, "AnswerNotified")
    assert loaded.plan == direct.plan and loaded.trace == direct.trace
    outcome, system, _ = racy_run(False, loaded)
    assert outcome.followed and system.delivered == ["old_reply"]
    with pytest.raises(ScheduleError, match="has no counterexample"):
        Schedule.counterexample(NOTIFY_RACE, "AnswerNotified", variant="Generation")
    with pytest.raises(ScheduleError, match="no invariant or property `AnswerNotifed`"):
        Schedule.counterexample(NOTIFY_RACE, "AnswerNotifed")
