"""examples/notify_race (issue 33 item 8): the asyncio implementation of the notify race runs
each exchange of the bug report deterministically, and `tlacheck conform` judges its logs: the
buggy code's racy run is a behaviour of the base spec that breaks AnswerNotified, the fix
variant rejects it at the follow-on's notification, and the fixed code conforms to the fix."""

import json

import pytest

from examples.notify_race.__main__ import main as example_main
from examples.notify_race.scenarios import SCENARIOS, run
from tests.conftest import SPECS
from tlacheck.app.cli import main
from tlacheck.conform import Recorder, check


NOTIFY_RACE = str(SPECS / "notify_race.spec")


def log_of(tmp_path, scenario: str, fixed: bool, name: str | None = None):
    path = tmp_path / (name or f"{scenario}-{'fixed' if fixed else 'buggy'}.ndjson")
    with Recorder(str(path)) as recorder:
        system = run(scenario, recorder, fixed=fixed)
    return path, system


def actions(path) -> list:
    return [json.loads(line).get("action") for line in path.read_text().splitlines()]


def test_issue_33_the_racy_scenario_is_forced_and_the_same_every_time(tmp_path):
    first, system = log_of(tmp_path, "racy", False, "a.ndjson")
    second, _ = log_of(tmp_path, "racy", False, "b.ndjson")
    assert first.read_bytes() == second.read_bytes()
    steps = actions(first)
    # the follow-on registers before the original run enqueues its stop notification: the race
    assert steps.index("follow_on.registered") < steps.index("notify.stop") < steps.index("follow_on.completed")
    assert "registry.claim_skipped" in steps  # the follow-on's claim fails: its answer is skipped
    assert system.delivered == ["old_reply"] and system.notifications == 1


@pytest.mark.parametrize("scenario,buggy,fixed", [
    # (notifications, what the parent read) with the buggy and the fixed registry
    ("racy", (1, ["old_reply"]), (2, ["old_reply", "answer"])),
    ("stop_first", (2, ["old_reply", "answer"]), (2, ["old_reply", "answer"])),
    ("joined_turn", (1, ["answer"]), (1, ["answer"])),
    ("idle", (2, ["old_reply", "answer"]), (2, ["old_reply", "answer"])),
])
def test_issue_33_each_scenario_ends_as_its_exchange_did(tmp_path, scenario, buggy, fixed):
    for is_fixed, (notifications, delivered) in ((False, buggy), (True, fixed)):
        _, system = log_of(tmp_path, scenario, is_fixed)
        assert (system.notifications, system.delivered) == (notifications, delivered)
    assert set(SCENARIOS) == {"racy", "stop_first", "joined_turn", "idle"}


def test_issue_33_the_buggy_racy_run_conforms_to_the_base_spec_and_breaks_answer_notified(tmp_path):
    path, _ = log_of(tmp_path, "racy", False)
    report = check(NOTIFY_RACE, [str(path)])
    assert report.exit_code == 12
    (log,) = report.runs
    assert log.verdict.value == "violation" and log.violation.name == "AnswerNotified"


def test_issue_33_the_fix_variant_rejects_the_buggy_racy_run_at_the_follow_ons_notification(tmp_path):
    path, _ = log_of(tmp_path, "racy", False)
    report = check(NOTIFY_RACE, [str(path)], variant="Generation")
    assert report.exit_code == 14
    (log,) = report.runs
    assert log.verdict.value == "does_not_conform"
    completed = actions(path).index("follow_on.completed") + 1  # its line in the log
    text = report.text()
    assert f"{path}:{completed}" in text and "FollowOnNotifies" in text and "queue" in text


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_issue_33_the_fixed_code_conforms_to_the_fix_in_every_scenario(tmp_path, scenario):
    path, _ = log_of(tmp_path, scenario, True)
    report = check(NOTIFY_RACE, [str(path)], variant="Generation")
    assert report.exit_code == 0 and report.runs[0].verdict.value == "conforms"


@pytest.mark.parametrize("scenario", ["stop_first", "joined_turn", "idle"])
def test_issue_33_the_buggy_code_conforms_to_the_base_spec_where_it_does_not_race(tmp_path, scenario):
    path, _ = log_of(tmp_path, scenario, False)
    report = check(NOTIFY_RACE, [str(path)])
    assert report.exit_code == 0 and report.runs[0].verdict.value == "conforms"


def test_issue_33_the_fixed_code_does_not_conform_to_the_buggy_spec_when_it_races(tmp_path):
    """The fixed code's second notification is no step of the base spec: a log tells the two apart."""
    path, _ = log_of(tmp_path, "racy", True)
    assert check(NOTIFY_RACE, [str(path)]).exit_code == 14


def test_issue_33_the_example_from_the_command_line(tmp_path, capsys):
    racy, fixed = str(tmp_path / "racy.ndjson"), str(tmp_path / "fixed.ndjson")
    assert example_main(["racy", racy]) == 0
    assert "the answer was never notified" in capsys.readouterr().out
    assert example_main(["racy", fixed, "--fixed"]) == 0
    assert "the answer was notified" in capsys.readouterr().out
    assert main(["conform", NOTIFY_RACE, racy]) == 12
    assert "AnswerNotified" in capsys.readouterr().out
    assert main(["conform", NOTIFY_RACE, racy, "--variant", "Generation"]) == 14
    capsys.readouterr()
    # several logs: one verdict each, the worst exit code
    assert main(["conform", NOTIFY_RACE, fixed, racy, "--variant", "Generation"]) == 14
    assert main(["conform", NOTIFY_RACE, fixed, "--variant", "Generation"]) == 0


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_issue_33_the_pytest_fixture_checks_the_fixed_code_against_the_fix(tlacheck_recorder, scenario):
    """The way a team would test its code: the fixture records the run and checks it when the test ends."""
    run(scenario, tlacheck_recorder("specs/notify_race.spec", variant="Generation"), fixed=True)


def test_issue_33_the_pytest_fixture_pins_the_bug_in_the_buggy_code(tlacheck_recorder):
    run("racy", tlacheck_recorder("specs/notify_race.spec", expect="violation"), fixed=False)


def test_issue_33_the_pytest_fixture_fails_a_test_whose_run_does_not_conform(pytester):
    """The buggy code's racy run against the fix: the test fails with the report as its message."""
    pytester.makepyfile(test_racy=f"""
import sys
sys.path.insert(0, {str(SPECS.parent)!r})
from examples.notify_race.scenarios import run

def test_racy(tlacheck_recorder):
    run("racy", tlacheck_recorder({NOTIFY_RACE!r}, variant="Generation"), fixed=False)
""")
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-q")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "does not conform" in text and "FollowOnNotifies" in text and "follow_on.completed" in text
