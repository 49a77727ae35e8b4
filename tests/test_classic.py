"""More of TLC's facts about the classic ports, beyond the counts that tests/test_corpus.py
checks for every port (from tests/data/tlc_counts)."""

import json
from pathlib import Path

import pytest

from tlacheck.app.cli import read_source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS


COUNTS = Path(__file__).parent / "data" / "tlc_counts"


def test_diehard_shortest_solution_takes_six_steps():
    """The DieHard comments upstream: the shortest solution takes 6 steps."""
    entry = json.loads((COUNTS / "diehard.json").read_text())
    model = build_model(read_source(str(SPECS / entry["port"])))
    result = explore(model, Options(check_deadlock=entry["check_deadlock"]))
    assert result.violation.name == "NotSolved"
    steps = result.violation.trace.steps
    assert len(steps) - 1 == 6
    assert model.format_state(steps[-1].state)["big"] == "4"


@pytest.mark.parametrize("rms, distinct, generated", [
    ("{r1,r2,r3,r4,r5}", 8832, 58146),  # TLC's counts, quoted in issue 7
])
def test_two_phase_scales_like_tlc(rms, distinct, generated):
    model = build_model(read_source(str(SPECS / "classic" / "two_phase.spec")), {"RM": rms})
    result = explore(model)
    assert (result.distinct_states, result.states_generated) == (distinct, generated)


def test_coverage_credits_each_new_state_to_the_action_that_found_it_first_as_tlc_does():
    """TLC's coverage (`-coverage 1`) gives each action's distinct:generated: the new states it
    found first, in the order of the search, and all the successors it computed. TLC 2.15,
    `-workers 1`, on TwoPhase.tla with TPNext's disjuncts put in two_phase.spec's action order
    (`\\E rm \\in RM : TMRcvPrepared(rm)`, TMCommit, TMAbort, `\\E rm \\in RM : RMPrepare(rm)`, ...):
    13:96, 1:1, 14:64, 26:156, 74:156, 7:24, 152:648. The original TPNext quantifies rm around five
    actions at once, so TLC tries them rm by rm: the same generated counts, and distinct
    21, 1, 22, 64, 64, 7, 108 (the first finder of a state depends on the order of the actions)."""
    model = build_model(read_source(str(SPECS / "classic" / "two_phase.spec")))
    result = explore(model)
    assert [(c.distinct, c.generated) for c in result.coverage] == [
        (13, 96), (1, 1), (14, 64), (26, 156), (74, 156), (7, 24), (152, 648)]


# SyncTerminationDetection.cfg checks TypeOK, TDCorrect, Quiescence and Liveness: all hold (TLC's
# verdict, tests/test_corpus.py and tests/test_liveness.py); each is broken by a mutation.
SYNC_MUTATIONS = {
    # DetectTermination without its guard: termination is detected while a node is active
    "TDCorrect": ("action DetectTermination:\n    require terminated()\n", "action DetectTermination:\n"),
    # a node wakes another without being active itself: a terminated ring comes back to life
    "Quiescence": ("action Wakeup(i in Node, j in Node):\n    require active[i]\n",
                   "action Wakeup(i in Node, j in Node):\n"),
    # the nodes' map gains a node N
    "TypeOK": ("    active[i] = false\n", "    active[i] = false\n    active = {n -> n < N and active[n] for n in 0..N}\n"),
}


@pytest.mark.parametrize("check", sorted(SYNC_MUTATIONS))
def test_sync_termination_detection_checks_hold_and_a_mutation_breaks_each(check):
    from tlacheck.core.source import Source

    path = SPECS / "classic" / "sync_termination_detection.spec"
    text = path.read_text()
    assert explore(build_model(read_source(str(path)))).verdict.name == "OK"
    old, new = SYNC_MUTATIONS[check]
    assert old in text
    model = build_model(Source(str(path), text.replace(old, new, 1)))
    result = explore(model, Options(invariants=(check,), properties=(check,)) if check != "TypeOK"
                     else Options(invariants=(check,), properties=()))
    assert result.verdict.name == "INVARIANT_VIOLATED" and result.violation.name == check
