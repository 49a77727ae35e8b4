"""Runtime guards from the spec (issue 36 item 4): each action's guard and each invariant as a Python
predicate over the implementation's state (in its words, through the `conform:` mapping), given
only the variables it needs. Checked against exhaustive exploration: on every reachable state of
several models, with the state cut down to those variables, a guard says "enabled" exactly when
the reachable graph has a transition of that action (with those arguments) from that state."""

from __future__ import annotations

import asyncio
import io

import pytest

from examples.notify_race.scenarios import SCENARIOS
from examples.notify_race.system import NotifyRaceSystem, Schedule as Waits
from tests.conftest import SPECS, model_of
from tlacheck.conform import Recorder
from tlacheck.core.result import Step
from tlacheck.engine import stategraph
from tlacheck.ir import nodes as ir
from tlacheck.testing import GuardFailed, Guards
from tlacheck.testing import events as ev
from tlacheck.testing.guards import GuardError
from tlacheck.testing.schedule import Schedule, Verdict

NOTIFY_RACE = str(SPECS / "notify_race.spec")

MODELS = [("notify_race.spec", "base"), ("notify_race.spec", "Generation"), ("notify_race.spec", "EnqueueFirst"),
          ("classic/two_phase.spec", "base"), ("classic/dining_philosophers.spec", "base"),
          ("classic/missionaries.spec", "base"), ("lib/lease.spec", "base"), ("agent_routing.spec", "base"),
          ("lib/at_least_once_queue.spec", "base")]


@pytest.mark.parametrize("spec, variant", MODELS)
def test_issue_36_guards_agree_with_the_spec_on_every_reachable_state(spec, variant):
    guards = Guards(SPECS / spec, variant=variant)
    model = guards.model
    graph = stategraph.build(model, 10_000)
    taken: dict[tuple, set] = {}
    for src, _, a, args in graph.edges:
        taken.setdefault((src, a), set()).add(args)
    instances = {a: sorted({args for _, _, b, args in graph.edges if b == a}, key=repr) for a in range(len(model.action_info))}
    checked = 0
    for i, state in enumerate(graph.states):
        for a, info in enumerate(model.action_info):
            view = ev.state_in_code(guards.mapping, state, sorted(guards.action_needs[a]))
            assert guards.enabled(info.name, view) == ((i, a) in taken), (info.name, state)
            for args in instances[a] if info.param_names else ():
                named = ev.args_in_code(guards.mapping, ev.EventSteps(info.name, (a,), True), [Step(a, args, state)])
                assert guards.enabled(info.name, view, named) == (args in taken.get((i, a), ())), (info.name, args)
                checked += 1
            checked += 1
        for name, fn in model.invariants:
            view = ev.state_in_code(guards.mapping, state, sorted(guards.invariant_needs[name]))
            assert guards.invariant(name)(view) == bool(fn(state)), (name, state)
    assert checked >= len(graph.states) * len(model.action_info)


def test_issue_36_a_guard_needs_only_what_decides_it():
    spec = """
    spec Reads
    var a: int = 0
    var b: int = 1
    var c: bool = true
    var d: int = 0
    var log: seq[int] = []
    action Copy:
        a = b              # a's value now comes from b
        require a > 0
        log = log + [d]    # d only feeds the next state
    action Branch:
        if c:
            require d < 3
        log = log + [a]
    action Choose:
        with x in {v for v in 0..d if v > a}:
            log = log + [x]
    action Plain:
        d = d + 1
    """
    model = model_of(spec)
    reads = ir.function_reads(model.ir.functions)
    needs = {a.name: sorted(model.var_names[i] for i in ir.guard_reads(a, reads)) for a in model.ir.actions}
    assert needs == {"Copy": ["b"], "Branch": ["c", "d"], "Choose": ["a", "d"], "Plain": []}


def test_issue_36_a_guard_asked_without_what_it_needs_says_so():
    guards = Guards(NOTIFY_RACE, variant="Generation")
    assert guards.needs("follow_on.registered") == ("follow", "strandedEvent")
    assert guards.needs("AnswerNotified") == ("follow", "queue", "delivered")
    with pytest.raises(GuardError, match="the guard of follow_on.registered reads `follow`, which the state does not "
                                         "give"):
        guards.enabled("follow_on.registered", {"strandedEvent": True})
    with pytest.raises(GuardError, match=r"`follow_on.registerd` is no action of the spec nor an event of its "
                                         r"`conform:` section \(did you mean `follow_on.registered`\?\)"):
        guards.guard("follow_on.registerd")
    with pytest.raises(GuardError, match=r"the spec has no variable `folow_on` \(did you mean `follow_on`\?\)"):
        guards.enabled("follow_on.registered", {"folow_on": "done", "strandedEvent": True})
    with pytest.raises(GuardError, match="the spec has no invariant `AnswerNotifed`"):
        guards.invariant("AnswerNotifed")


def test_issue_36_check_names_the_require_that_is_false():
    guards = Guards(NOTIFY_RACE, variant="Generation")
    state = {"strandedEvent": False, "follow_on": "not_started"}
    with pytest.raises(GuardFailed) as caught:
        guards.check("follow_on.registered", state)
    assert str(caught.value).splitlines() == [
        "NotifyRace cannot take `follow_on.registered` from this state:",
        f"  {NOTIFY_RACE}:189:9: this `require` is false",
        "   189 |         require strandedEvent and follow == NotStarted",
        "                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"]
    guards.check("follow_on.registered", dict(state, strandedEvent=True))  # allowed: no exception
    predicate = guards.guard("follow_on.registered")
    assert predicate.__name__ == "guard_of_follow_on_registered"
    assert predicate(dict(state, strandedEvent=True)) and not predicate(state)


def test_issue_36_an_event_of_several_steps_is_enabled_when_they_can_be_taken_in_a_row():
    guards = Guards(NOTIFY_RACE, variant="Generation")
    assert guards.enabled("follow_on.completed", {"follow_on": "registered"})  # FollowOnAnswers then FollowOnNotifies
    assert not guards.enabled("follow_on.completed", {"follow_on": "answered"})  # FollowOnAnswers no longer can


def test_issue_36_arguments_in_the_codes_words(tmp_path):
    spec = tmp_path / "workers.spec"
    spec.write_text("""spec Workers
const W: set[model] = {w1, w2}
var taken: set[W] = {}
action Take(w in W):
    require w not in taken
    taken = taken | {w}
invariant Few: len(taken) < 2
deadlock: allowed
conform:
    event "job.taken" = Take(w = "worker")
    values W: "worker-1" = w1, "worker-2" = w2
""")
    guards = Guards(spec)
    assert guards.enabled("job.taken", {"taken": ["worker-1"]}, {"worker": "worker-2"})
    assert not guards.enabled("job.taken", {"taken": ["worker-1"]}, {"worker": "worker-1"})
    assert guards.enabled("job.taken", {"taken": ["worker-1"]})  # some worker may still take it
    assert guards.guard("Take")({"taken": ["worker-1"]}, w="worker-2")  # by the action's own name
    assert guards.violated({"taken": ["worker-1", "worker-2"]}) == ["Few"]
    with pytest.raises(GuardError, match="`job.taken` has no argument `wrker`"):
        guards.enabled("job.taken", {"taken": []}, {"wrker": "worker-1"})
    with pytest.raises(GuardFailed, match="Take has no instance with these arguments|this `require` is false"):
        guards.check("job.taken", {"taken": ["worker-1"]}, {"worker": "worker-1"})


def run_scenario(scenario: str, fixed: bool, guards: Guards) -> NotifyRaceSystem:
    made = []

    async def main():
        made.append(NotifyRaceSystem(Recorder(io.StringIO()), fixed=fixed, schedule=Waits(SCENARIOS[scenario]),
                                     guards=guards))
        await made[0].run()

    asyncio.run(main())
    return made[0]


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_issue_36_the_fixed_registry_passes_the_fixs_guards_in_every_scenario(scenario):
    system = run_scenario(scenario, True, Guards(NOTIFY_RACE, variant="Generation"))
    assert "answer" in system.delivered


def test_issue_36_the_buggy_registry_trips_the_invariant_guard_where_the_reply_is_stranded():
    guards = Guards(NOTIFY_RACE, variant="Generation")
    for scenario in ("stop_first", "joined_turn", "idle"):
        run_scenario(scenario, False, guards)
    with pytest.raises(GuardFailed) as caught:
        run_scenario("racy", False, guards)
    assert str(caught.value).splitlines()[:2] == ["NotifyRace: the state breaks AnswerNotified:",
                                                  f"  {NOTIFY_RACE}:153:11: invariant AnswerNotified"]


def test_issue_36_under_the_counterexamples_schedule_the_guard_stops_the_buggy_step():
    """The orchestrator asserts the fix's invariants after each step: under the racy schedule the
    buggy code's follow-on completion raises, at the step the trace strands the reply."""
    guards = Guards(NOTIFY_RACE, variant="Generation")
    schedule = Schedule.counterexample(NOTIFY_RACE, "AnswerNotified")
    recorder = Recorder(io.StringIO())
    outcome = schedule.run(lambda: NotifyRaceSystem(recorder, guards=guards).run(), recorder=recorder)
    assert outcome.verdict is Verdict.RAISED and (outcome.failed.first, outcome.failed.last) == (8, 9)
    assert "the step raised GuardFailed: NotifyRace: the state breaks AnswerNotified" in outcome.text()
