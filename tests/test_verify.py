"""verify.py, `tlacheck verify` and the pytest plugin."""

import json

import jsonschema
import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.app.verify import verify_source
from tlacheck.output.report import json_schema
from tlacheck.core.result import Answer
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
    assert [(r.variant, r.check, r.expected.value, r.got.value, r.ok) for r in rows] == [
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
    assert row.ok and "blocked at state 6 (SendDone)" in row.replay


def test_blocked_guard_is_named(tmp_path):
    p = tmp_path / "small.spec"
    p.write_text(SMALL)
    rows = verify_source(read_source(str(p)))
    capped = next(r for r in rows if (r.variant, r.check) == ("Capped", "Below2"))
    assert "blocked at state 3 (Inc)" in capped.replay and "require" in capped.replay


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
    assert [(r.variant, r.check, r.expected.value, r.got.value) for r in rows] == [
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
    assert [r.got.value for r in rows] == ["holds", "violates", "violates", "violates", "holds"]


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
    rows = {(r.variant, r.check): r.got.value for r in verify_source(read_source(str(path)), deadlock=flag)}
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


# ---------------------------------------------------------------- issue 32: warnings, Ctrl-C, progress

HIDDEN = """\
var x: int = 0
action Set(x in 0..1): skip
invariant Ok: x == 0
expect base holds
"""


def test_issue_32_verify_prints_the_spec_warnings_as_check_does(tmp_path, capsys):
    p = tmp_path / "hidden.spec"
    p.write_text(HIDDEN)
    assert main(["check", str(p), "--quiet"]) == 0
    check_err = capsys.readouterr().err
    assert "warning[W204]: `x` here hides the variable `x`" in check_err
    assert main(["verify", str(p)]) == 0
    out, err = capsys.readouterr()
    assert err == check_err  # the same warning, once, in the same words
    assert main(["verify", str(p), "--json"]) == 0
    [warning] = json.loads(capsys.readouterr().out)["warnings"]
    assert (warning["code"], warning["line"], warning["column"]) == ("W204", 2, 12)


SYMMETRIC = """\
symmetric const Node: set[model] = {n1, n2, n3}
var holder: Node? = none
action Grab(n in Node):
    require holder == none
    holder = n
action Drop:
    require holder != none
    holder = none
invariant Fine: true
expect base holds
"""


def test_issue_32_verify_says_that_symmetry_is_not_applied(tmp_path, capsys):
    p = tmp_path / "sym.spec"
    p.write_text(SYMMETRIC)
    assert main(["verify", str(p)]) == 0
    err = capsys.readouterr().err
    assert err.count("tlacheck: warning: symmetry is not applied: collecting every violation explores every state") \
        == 1
    assert main(["verify", str(p), "--json"]) == 0
    assert [w["message"] for w in json.loads(capsys.readouterr().out)["warnings"]] == \
        ["symmetry is not applied: collecting every violation explores every state"]


def test_issue_32_a_variant_warning_names_the_variant(capsys):
    assert main(["verify", str(SPECS / "notify_race.spec")]) == 0
    err = capsys.readouterr().err
    assert "warning[W201]: variable `notified` is never read (in variant Generation)" in err


def test_issue_32_expect_holds_on_every_check_explains_where_the_fix_blocks_the_base(tmp_path, capsys):
    p = tmp_path / "small.spec"
    text = SMALL.replace("reachable Two: x == 2\n", "").replace("expect Capped violates Two\n", "") \
        + "expect Capped holds\n"
    p.write_text(text)
    guard = text.splitlines().index("        require x < 1") + 1  # the variant's
    rows = {r.check: r for r in verify_source(read_source(str(p))) if r.variant == "Capped"}
    named, every = rows["Below2"], rows["all checks"]
    assert every.got == Answer.HOLDS and every.blocked_state == named.blocked_state == 3  # the step to state 3
    assert every.blocked_line == named.blocked_line == guard
    assert every.replay == named.replay.replace("the base counterexample", "the base counterexample to Below2")
    assert main(["verify", str(p), "--json"]) == 0
    [row] = [r for r in json.loads(capsys.readouterr().out)["rows"] if r["check"] == "all checks"]
    assert row["base_counterexample"] == {"check": "Below2", "blocked_state": 3, "blocked_line": guard,
                                          "message": every.replay}


def test_issue_32_verify_warns_of_a_variant_with_nothing_to_check(tmp_path, capsys):
    p = tmp_path / "empty.spec"
    p.write_text("deadlock: allowed\nvar x: int = 0\naction A: skip\nexpect base holds\n")
    assert main(["verify", str(p)]) == 0
    assert "tlacheck: warning: variant base of empty: nothing to check: the spec declares no invariant" \
        in capsys.readouterr().err


ENDLESS_VARIANT = """\
spec Slow
deadlock: allowed
var x: int = 0
var y: int = 0
action A:
    require x < 3
    x = x + 1
action B:
    require y < 3
    y = y + 1
invariant Small: x < 3
expect base violates Small
variant Endless "grow forever":
    replace action A:
        x = x + 1
expect Endless violates Small
expect base holds
"""


def _verify_until_the_endless_variant(tmp_path, *extra):
    """`verify` of a spec whose second variant never ends, once its progress lines show that it is
    being explored (the first variant's row is decided)."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    p = tmp_path / "slow.spec"
    p.write_text(ENDLESS_VARIANT)
    proc = subprocess.Popen([sys.executable, "-m", "tlacheck", "verify", str(p), "--progress-every", "0.1", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    line = proc.stderr.readline()
    while line and "variant Endless:" not in line:
        line = proc.stderr.readline()
    assert line.startswith("progress: ") and " generated (" in line, proc.communicate()
    proc.send_signal(__import__("signal").SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def test_issue_32_ctrl_c_in_verify_prints_the_rows_decided(tmp_path):
    code, out, err = _verify_until_the_endless_variant(tmp_path)
    assert code == 5, err
    assert "Traceback" not in err
    rows = [line.split() for line in out.splitlines() if line.startswith("Slow ")]
    assert rows == [["Slow", "base", "Small", "violates", "ok", "violates", "16", rows[0][7], "3"]]
    assert "Interrupted: 1 expectation decided before the stop; the others were not." in out


def test_issue_32_ctrl_c_in_verify_json_is_a_valid_incomplete_document(tmp_path):
    code, out, err = _verify_until_the_endless_variant(tmp_path, "--json")
    assert code == 5, err
    data = json.loads(out)
    jsonschema.validate(data, json_schema(), cls=jsonschema.Draft202012Validator)
    assert (data["verdict"], data["stop_reason"], data["ok"]) == ("incomplete", "interrupted", False)
    assert [(r["variant"], r["check"], r["got"]) for r in data["rows"]] == [("base", "Small", "violates")]
