"""Timers as countdowns (issue 38 item 3; docs/language.md, timers and time): the failure
detector of tests/data/language/timers.spec meets its expectations, its Tick waits for every
deadline, and its state space is finite without a horizon."""

from tlacheck.app.cli import main
from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tests.conftest import ROOT, model_of

SPEC = ROOT / "tests" / "data" / "language" / "timers.spec"


def test_issue_38_the_timer_spec_meets_its_expectations():
    assert main(["verify", str(SPEC)]) == 0


def test_issue_38_a_timeout_up_to_a_period_and_a_delay_suspects_a_live_node_and_a_longer_one_never():
    text = SPEC.read_text()
    for timeout, verdict in ((1, Verdict.INVARIANT_VIOLATED), (3, Verdict.INVARIANT_VIOLATED),
                             (4, Verdict.OK), (6, Verdict.OK)):
        result = explore(model_of(text, {"Timeout": str(timeout)}), Options(properties=()))
        assert result.verdict == verdict, timeout


def test_issue_38_tick_waits_for_every_deadline():
    # no reachable state has a heartbeat overdue: one due to arrive waits for Arrive, not for Tick
    text = SPEC.read_text() + ("invariant OnTime: (flight == none or flight >= 0) and untilBeat >= 0 "
                               "and silence <= Timeout\n")
    result = explore(model_of(text, {"Timeout": "4"}), Options(invariants=("OnTime",), properties=()))
    assert result.verdict == Verdict.OK and result.distinct_states > 0
