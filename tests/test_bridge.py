"""The pytest bridge (issue 36 item 2): the behaviours `tlacheck tests` chooses, run step by step on
an implementation through a driver, compared with the spec's states through the `conform:` mapping.
The notify race's asyncio code passes every behaviour of the fix with the fixed registry, and the
buggy registry fails exactly the behaviours that take the racy order, at the step where the race
loses a notification."""

from __future__ import annotations

import pytest

from examples.notify_race.driver import RegistryDriver
from tests.conftest import SPECS, model_of
from tlacheck.app.cli import main
from tlacheck.testing import Behaviour, BehaviourFailed, Driver, behaviours, handles, run_behaviour
from tlacheck.testing.bridge import DriverError

NOTIFY_RACE = str(SPECS / "notify_race.spec")
FIX = behaviours(NOTIFY_RACE, variant="Generation", cover="transitions")


@pytest.mark.parametrize("behaviour", FIX, ids=str)
def test_issue_36_the_fixed_registry_does_every_behaviour_of_the_fix(behaviour):
    run_behaviour(RegistryDriver(fixed=True), behaviour)


def names(behaviour: Behaviour) -> list[str]:
    return [behaviour.model.action_info[s.action].name for s in behaviour.trace.steps[1:]]


def racy(behaviour: Behaviour) -> bool:
    """The follow-on registers before the original run enqueues its stop notification."""
    taken = names(behaviour)
    return "StartFollowOn" in taken and "EnqueueStopNotification" in taken and \
        taken.index("StartFollowOn") < taken.index("EnqueueStopNotification")


def test_issue_36_the_buggy_registry_fails_the_racy_behaviours_at_the_racy_step():
    failed = {}
    for b in FIX:
        try:
            run_behaviour(RegistryDriver(fixed=False), b)
        except BehaviourFailed as exc:
            failed[b.name] = str(exc)
    racy_ones = {b.name for b in FIX if racy(b)}
    # the racy behaviours that get as far as the second claim (the later of the stop notification
    # and the follow-on's): there the flag, cleared by the registration, was taken by the other one
    second_claim = {b.name: max(names(b).index("EnqueueStopNotification"), names(b).index("FollowOnNotifies"))
                    for b in FIX if racy(b) and "FollowOnNotifies" in names(b)}
    assert second_claim and set(failed) == set(second_claim) <= racy_ones
    for b in FIX:
        if b.name in failed:
            step = second_claim[b.name]
            first_line = failed[b.name].splitlines()[0]
            action = names(b)[step]
            assert f"after state {step + 2} ({action}" in first_line or f"-{step + 2} (" in first_line, first_line
            assert "notifications" in failed[b.name]


def test_issue_36_a_failure_names_the_step_the_spec_line_and_the_difference():
    b = next(b for b in FIX if racy(b) and names(b)[-1] == "EnqueueStopNotification"
             and "FollowOnNotifies" in names(b))
    with pytest.raises(BehaviourFailed) as caught:
        run_behaviour(RegistryDriver(fixed=False), b)
    text = str(caught.value)
    lines = text.splitlines()
    assert lines[0].startswith(f"{b.name} (NotifyRace, {NOTIFY_RACE}): after state {len(b.trace.steps)} "
                               "(EnqueueStopNotification, event `notify.stop`)")
    assert lines[1] == f"  {NOTIFY_RACE}:181:20: EnqueueStopNotification, the step's action"
    assert "replace action EnqueueStopNotification" in lines[2]
    rows = {line.split()[0]: line.split()[1:] for line in lines if line.startswith("  ") and not
            line.startswith("    ") and line.split()[0] in ("queue", "notifications")}
    assert rows["notifications"] == ["1", "2"]  # the implementation, the spec
    assert "  The behaviour up to there:" in lines and lines[-1].endswith("EnqueueStopNotification")


def test_issue_36_actions_coverage_alone_does_not_reach_the_race():
    """One behaviour takes every action, in an order without the race: the buggy code passes it.
    That is why the suite above covers transitions."""
    (only,) = behaviours(NOTIFY_RACE, variant="Generation")
    assert not racy(only)
    run_behaviour(RegistryDriver(fixed=False), only)


def test_issue_36_behaviours_read_back_from_tlacheck_tests(tmp_path, capsys):
    out = tmp_path / "behaviours"
    assert main(["tests", NOTIFY_RACE, "--variant", "Generation", "--cover", "transitions", "--out", str(out)]) == 0
    capsys.readouterr()
    saved = behaviours(NOTIFY_RACE, variant="Generation", folder=out)
    assert [b.trace for b in saved] == [b.trace for b in FIX]
    assert [str(b) for b in saved][:2] == ["behaviour-001", "behaviour-002"]
    for b in saved:
        b.run(RegistryDriver(fixed=True))


# ---------------------------------------------------------------- a plain synchronous driver

JOBS = """
spec Jobs
enum Status { Idle, Busy, Done }
const Workers: set[model] = {w1, w2}
var status: Status = Idle
var worker: Workers? = none
var retries: int = 0
action Take(w in Workers):
    require status == Idle
    status = Busy
    worker = w
action Finish:
    require status == Busy
    status = Done
action Retry:
    require status == Busy and retries < 1
    status = Idle
    worker = none
    retries = retries + 1
deadlock: allowed
conform:
    event "job.taken" = Take(w = "worker_id")
    field "state" = status
    values Status: "idle" = Idle, "busy" = Busy, "done" = Done
    values Workers: "worker-1" = w1, "worker-2" = w2
"""


class Job:
    """The implementation: a job that one worker takes."""

    def __init__(self, forgets_worker_on_retry: bool = False):
        self.state, self.owner, self.retries = "idle", None, 0
        self.forgets = forgets_worker_on_retry

    def take(self, worker: str):
        assert self.state == "idle"
        self.state, self.owner = "busy", worker

    def finish(self):
        self.state = "done"

    def retry(self):
        self.state, self.retries = "idle", self.retries + 1
        if not self.forgets:
            self.owner = None


class JobDriver(Driver):
    def __init__(self, **job):
        self.calls = []
        self.options = job

    def setup(self):
        self.job = Job(**self.options)

    @handles("job.taken")
    def take(self, worker_id):
        self.calls.append(("take", worker_id))
        self.job.take(worker_id)

    def Finish(self):
        self.calls.append(("finish",))
        self.job.finish()

    def Retry(self):
        self.calls.append(("retry",))
        self.job.retry()

    def state(self):
        return {"state": self.job.state, "worker": self.job.owner, "retries": self.job.retries}


@pytest.fixture(scope="module")
def jobs_behaviours():
    model = model_of(JOBS)
    from tlacheck.testing.generate import Cover, generate

    return [Behaviour(f"jobs-{i + 1}", t, model) for i, t in enumerate(generate(model, Cover.TRANSITIONS).behaviours)]


def test_issue_36_a_synchronous_driver_gets_the_arguments_in_the_codes_words(jobs_behaviours):
    seen = set()
    for b in jobs_behaviours:
        driver = JobDriver()
        run_behaviour(driver, b)
        seen |= set(driver.calls)
    assert ("take", "worker-1") in seen and ("take", "worker-2") in seen and ("retry",) in seen


def test_issue_36_a_synchronous_driver_fails_where_the_implementation_drifts(jobs_behaviours):
    failures = []
    for b in jobs_behaviours:
        try:
            run_behaviour(JobDriver(forgets_worker_on_retry=True), b)
        except BehaviourFailed as exc:
            failures.append(str(exc))
    assert failures and all("(Retry)" in f.splitlines()[0] for f in failures)
    # values as the spec writes them (the mapping read the code's "worker-1" as w1)
    assert all("worker    w1              none" in f or "worker    w2              none" in f for f in failures)


def test_issue_36_a_driver_that_cannot_take_a_step_says_what_is_missing(jobs_behaviours):
    class NoRetry(JobDriver):
        Retry = None

    with_retry = next(b for b in jobs_behaviours if any(b.model.action_info[s.action].name == "Retry"
                                                        for s in b.trace.steps[1:]))
    with pytest.raises(DriverError, match=r"NoRetry has no method for Retry \(state \d+ of jobs-\d+\): define "
                                          r"`def Retry\(self, \.\.\.\)`"):
        run_behaviour(NoRetry(), with_retry)

    class Misnamed(JobDriver):
        def state(self):
            return {"stat": self.job.state}

    with pytest.raises(DriverError, match=r"Misnamed.state\(\): the spec has no variable `stat` "
                                          r"\(did you mean `state`\?\)"):
        run_behaviour(Misnamed(), jobs_behaviours[0])

    class NotADict(JobDriver):
        def state(self):
            return self.job.state

    with pytest.raises(DriverError, match=r"NotADict.state\(\) returned str, not a dict"):
        run_behaviour(NotADict(), jobs_behaviours[0])


def test_issue_36_the_bridge_in_a_users_test_file(pytester):
    """A parametrised test as a user writes it: one test per behaviour, a failure shows the step."""
    pytester.makepyfile(test_registry=f"""
import sys
sys.path.insert(0, {str(SPECS.parent)!r})
import pytest
from examples.notify_race.driver import RegistryDriver
from tlacheck.testing import behaviours, run_behaviour

@pytest.mark.parametrize("behaviour", behaviours({NOTIFY_RACE!r}, variant="Generation", cover="transitions"), ids=str)
def test_buggy(behaviour):
    run_behaviour(RegistryDriver(fixed=False), behaviour)
""")
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-q")
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == sum(1 for b in FIX if racy(b) and "FollowOnNotifies" in names(b))
    assert outcomes["passed"] == len(FIX) - outcomes["failed"]
    text = result.stdout.str()
    assert "the implementation's state differs from the spec's" in text and "EnqueueStopNotification" in text


def test_issue_36_an_async_driver_runs_each_behaviour_in_one_event_loop(jobs_behaviours):
    import asyncio

    loops = []

    class AsyncJobDriver(JobDriver):
        async def setup(self):
            loops.append(asyncio.get_running_loop())
            super().setup()

        @handles("job.taken")
        async def take(self, worker_id):
            await asyncio.sleep(0)
            assert asyncio.get_running_loop() is loops[-1]
            self.job.take(worker_id)

        async def state(self):
            return {"state": self.job.state, "worker": self.job.owner, "retries": self.job.retries}

    for b in jobs_behaviours:
        run_behaviour(AsyncJobDriver(), b)
    assert len(loops) == len(jobs_behaviours) and len(set(map(id, loops))) >= 1
    with pytest.raises(BehaviourFailed, match=r"after state 3 \(Retry\)"):
        for b in jobs_behaviours:
            run_behaviour(AsyncJobDriver(forgets_worker_on_retry=True), b)
