"""verify.py, `tlacheck verify` and the pytest plugin."""

import json

import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.app.verify import verify_source
from tests.conftest import SPECS


SPEC_FILES = sorted(str(p) for p in SPECS.glob("*.spec"))

SMALL = """\
spec Small
var x: int = 0
action Inc:
    require x < 2
    x = x + 1
action Stay:
    skip
invariant Below2: x < 2
reachable Two: x == 2

variant Capped "stop at 1":
    replace action Inc:
        require x < 1
        x = x + 1

expect base violates Below2
expect Capped holds Below2
expect Capped violates Two
"""


@pytest.mark.parametrize("path", SPEC_FILES)
def test_every_expectation_in_specs_is_met(path):
    rows = verify_source(read_source(path))
    assert rows, "a spec in specs/ should state its expectations"
    failed = [(r.variant, r.check, r.expected, r.got) for r in rows if not r.ok]
    assert not failed


def test_rows_carry_the_evidence(tmp_path):
    p = tmp_path / "small.spec"
    p.write_text(SMALL)
    rows = verify_source(read_source(str(p)))
    assert [(r.variant, r.check, r.expected, r.got, r.ok) for r in rows] == [
        ("base", "Below2", "violates", "violates", True),
        ("Capped", "Below2", "holds", "holds", True),
        ("Capped", "Two", "violates", "violates", True),
    ]
    assert rows[0].trace_length == 2 and rows[0].evidence.name == "Below2"


def test_verify_command_exit_codes(tmp_path, capsys):
    p = tmp_path / "small.spec"
    p.write_text(SMALL)
    assert main(["verify", str(p)]) == 0
    out = capsys.readouterr().out
    assert "3 of 3 expectations met." in out
    p.write_text(SMALL.replace("expect Capped holds Below2", "expect Capped violates Below2"))
    assert main(["verify", str(p)]) == 10
    out = capsys.readouterr().out
    assert "FAIL holds" in out and "expected `Capped` violates Below2, but it holds." in out


def test_verify_json(tmp_path, capsys):
    p = tmp_path / "small.spec"
    p.write_text(SMALL)
    assert main(["verify", str(p), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and len(data["rows"]) == 3
    assert data["rows"][0]["trace"][-1]["state"] == {"x": 2}


def test_unknown_check_in_expectation_is_a_spec_error(tmp_path, capsys):
    p = tmp_path / "bad.spec"
    p.write_text(SMALL + "expect base holds Belwo2\n")
    assert main(["verify", str(p)]) == 3
    assert "did you mean `Below2`?" in capsys.readouterr().err


def test_pytest_plugin_reports_the_trace_of_a_wrong_expectation(pytester):
    pytester.makefile(".spec", good=SMALL)
    wrong = SMALL.replace("expect base violates Below2", "expect base holds Below2")
    pytester.makefile(".spec", wrong=wrong)
    result = pytester.runpytest("-q")  # the plugin is active through its pytest11 entry point
    result.assert_outcomes(passed=5, failed=1)
    text = result.stdout.str()
    assert "expected `base` holds Below2, but it violates." in text
    assert "Counterexample (2 steps)" in text and "x = 2" in text


def test_fix_rows_say_where_the_base_counterexample_is_blocked():
    rows = verify_source(read_source(str(SPECS / "notify_race.spec")))
    row = next(r for r in rows if (r.variant, r.check) == ("EnqueueFirst", "AnswerNotified"))
    assert row.ok and "blocked at step 5 SendDone" in row.replay


def test_blocked_guard_is_named(tmp_path):
    p = tmp_path / "small.spec"
    p.write_text(SMALL)
    rows = verify_source(read_source(str(p)))
    capped = next(r for r in rows if (r.variant, r.check) == ("Capped", "Below2"))
    assert "blocked at step 2 Inc" in capped.replay and "require" in capped.replay


# ---------------------------------------------------------------- issue 15: `deadlock: allowed`

STOPPING = """\
deadlock: allowed
var x: int = 0
action Inc:
    require x < 2
    x = x + 1
invariant Small: x <= 2

variant Strict "a run must not stop":
    replace deadlock: forbidden

expect base holds
expect base deadlocks
expect Strict violates
expect Strict deadlocks
expect Strict holds Small
"""


def test_issue_15_verify_honours_deadlock_allowed_and_still_decides_deadlocks(tmp_path):
    path = tmp_path / "stopping.spec"
    path.write_text(STOPPING)
    rows = verify_source(read_source(str(path)))
    assert [(r.variant, r.check, r.expected, r.got) for r in rows] == [
        ("base", "all checks", "holds", "holds"),  # violates without the declaration
        ("base", "deadlock", "deadlocks", "violates"),
        ("Strict", "all checks", "violates", "violates"),
        ("Strict", "deadlock", "deadlocks", "violates"),
        ("Strict", "Small", "holds", "holds"),
    ]
    assert all(r.ok for r in rows)
    without = tmp_path / "without.spec"
    without.write_text(STOPPING.replace("deadlock: allowed\n", "deadlock: forbidden\n"))
    assert not verify_source(read_source(str(without)))[0].ok


def test_issue_15_verify_simulate_honours_deadlock_allowed(tmp_path):
    from tlacheck.engine.simulate import SimOptions

    path = tmp_path / "stopping.spec"
    path.write_text(STOPPING)
    rows = verify_source(read_source(str(path)), simulation=SimOptions(seed=1, traces=20))
    assert [r.got for r in rows] == ["holds", "violates", "violates", "violates", "holds"]


def test_issue_15_the_pytest_plugin_honours_deadlock_allowed(pytester):
    pytester.makefile(".spec", stopping=STOPPING)
    pytester.makefile(".spec", forbidden=STOPPING.replace("deadlock: allowed\n", "deadlock: forbidden\n"))
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=9, failed=1)  # forbidden.spec's `expect base holds`: the deadlock
    assert "FAILED forbidden.spec::base holds all checks" in result.stdout.str()


@pytest.mark.parametrize("flag, base_all, strict_all", [
    (None, "holds", "violates"),  # each variant as its `deadlock:` says
    (False, "holds", "holds"),  # --no-deadlock: a deadlock fails no expectation on all checks
    (True, "violates", "violates"),  # --deadlock: it fails them even under `deadlock: allowed`
])
def test_verify_deadlock_flags_override_the_spec(tmp_path, flag, base_all, strict_all):
    path = tmp_path / "stopping.spec"
    path.write_text(STOPPING)
    rows = {(r.variant, r.check): r.got for r in verify_source(read_source(str(path)), deadlock=flag)}
    assert (rows[("base", "all checks")], rows[("Strict", "all checks")]) == (base_all, strict_all)
    # `expect V deadlocks` asks whether there is one, whatever the flags say
    assert rows[("base", "deadlock")] == rows[("Strict", "deadlock")] == "violates"


def test_verify_deadlock_flags_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "stopping.spec"
    path.write_text(STOPPING)
    assert main(["verify", str(path)]) == 0
    assert main(["verify", "--no-deadlock", str(path)]) == 10  # `expect Strict violates` now fails
    assert main(["verify", "--deadlock", str(path)]) == 10  # `expect base holds` now fails
    capsys.readouterr()
    assert main(["verify", "--deadlock", "--no-deadlock", str(path)]) == 2  # a usage error
    assert "not allowed with argument" in capsys.readouterr().err
