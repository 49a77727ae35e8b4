"""cli.py: exit codes, JSON output, usage errors, determinism across processes."""

import json
import os
import re
import subprocess
import sys

import pytest

from tlacheck.app.cli import main
from tests.conftest import ROOT, SPECS


DIEHARD = str(SPECS / "classic" / "diehard.spec")
TWO_PHASE = str(SPECS / "classic" / "two_phase.spec")


def write(tmp_path, text: str, name: str = "t.spec") -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def run_json(capsys, args):
    code = main(args + ["--json", "--quiet"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_ok_exit_code_and_json_keys(capsys):
    code, data = run_json(capsys, ["check", TWO_PHASE])
    assert code == 0
    for key in ("spec", "verdict", "distinct_states", "states_generated", "depth", "elapsed_s", "coverage",
                "violation"):
        assert key in data
    assert (data["verdict"], data["distinct_states"], data["states_generated"]) == ("ok", 288, 1146)
    assert data["violation"] is None
    assert data["coverage"]["TMCommit"] == {"enabled": 1, "generated": 1, "distinct": 1}


def test_invariant_violation_exit_code_and_trace(capsys):
    code, data = run_json(capsys, ["check", DIEHARD])
    assert code == 12
    v = data["violation"]
    assert data["verdict"] == "invariant_violated"
    assert (v["kind"], v["name"]) == ("invariant", "NotSolved")
    assert v["trace"][0]["action"] is None
    assert v["trace"][-1]["state"] == {"big": 4, "small": 3}
    assert len(v["trace"]) == 7 and v["loop_index"] is None


def test_deadlock_exit_code(tmp_path, capsys):
    path = write(tmp_path, "var x: int = 0\naction A:\n    require x < 1\n    x = x + 1\n")
    code, data = run_json(capsys, ["check", path])
    assert code == 11 and data["verdict"] == "deadlock"
    assert main(["check", path, "--no-deadlock", "--quiet"]) == 0


def test_spec_error_exit_code_and_message(tmp_path, capsys):
    path = write(tmp_path, "var notified: bool = false\naction A:\n    require notifed\n    notified = true\n")
    assert main(["check", path]) == 3
    err = capsys.readouterr().err
    assert f"{path}:3:13: error[E100]: unknown name `notifed`" in err
    assert "did you mean `notified`?" in err
    assert "Traceback" not in err


def test_spec_error_json(tmp_path, capsys):
    path = write(tmp_path, "var x: int = true\n")
    code, data = run_json(capsys, ["check", path])
    assert code == 3
    assert data["verdict"] == "error" and data["errors"][0]["code"] == "E102"
    assert data["errors"][0]["line"] == 1
    assert data["file"] == path  # was null


def test_spec_error_json_lists_every_body_with_an_error(tmp_path, capsys):
    path = write(tmp_path, "var x: int = 0\naction A:\n    x = true\ninvariant I: x + 1\n")
    code, data = run_json(capsys, ["check", path])
    assert code == 3 and data["file"] == path
    assert [(e["code"], e["line"]) for e in data["errors"]] == [("E102", 3), ("E105", 4)]


def test_evaluation_error_exit_code(tmp_path, capsys):
    path = write(tmp_path, "var s: seq[int] = []\naction A:\n    s = tail(s)\n")
    code, data = run_json(capsys, ["check", path])
    assert code == 4
    assert data["verdict"] == "error" and data["error"]["code"] == "E404"
    assert data["violation"]["trace"][0]["state"] == {"s": []}


@pytest.mark.parametrize("flags", [[], ["--full-states"], ["--workers", "2"]])
def test_issue_8_a_constraint_failing_on_an_initial_state_shows_it_in_every_format(tmp_path, capsys, flags):
    path = write(tmp_path, "var x: int in {0, 2}\naction A:\n    x = x + 1\nconstraint C: 10 // (x - 2) > -100\n")
    itf_path = tmp_path / "t.itf.json"
    assert main(["check", path, *flags, "--itf", str(itf_path)]) == 4
    out, err = capsys.readouterr()
    assert "error[E407]: division by zero: 10 // 0 (while evaluating constraint C)" in err
    assert "trace (0 steps):\n\nState 1: initial state\n    x = 2\n" in out
    code, data = run_json(capsys, ["check", path, *flags])
    assert code == 4 and data["violation"]["trace"] == [{"action": None, "args": {}, "state": {"x": 2}, "changes": []}]
    states = json.loads(itf_path.read_text())["states"]
    assert [s["x"] for s in states] == [{"#bigint": "2"}]


def test_limit_exit_code(tmp_path, capsys):
    path = write(tmp_path, "var x: int = 0\naction A:\n    x = x + 1\n")
    code, data = run_json(capsys, ["check", path, "--max-states", "50"])
    assert code == 5 and data["verdict"] == "incomplete" and data["stop_reason"] == "max_states"


@pytest.mark.parametrize("args", [
    [],
    ["check"],
    ["check", "/nonexistent/x.spec"],
    ["frobnicate"],
    ["check", TWO_PHASE, "--max-states", "0"],
    ["check", TWO_PHASE, "-D", "oops"],
    ["check", TWO_PHASE, "-D", "NOPE=3"],
    ["check", TWO_PHASE, "--invariant", "Nope"],
])
def test_usage_errors_exit_2(args, capsys):
    assert main(args) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("args, hint", [
    (["chek", TWO_PHASE], "did you mean `check`?"),
    (["check", TWO_PHASE, "--wokers", "2"], "did you mean `--workers`?"),
    (["check", TWO_PHASE, "--max-stats=9"], "did you mean `--max-states`?"),
    (["check", TWO_PHASE, "--zzz"], "run `tlacheck check --help` for the options"),
])
def test_a_misspelt_command_or_option_gets_a_did_you_mean(args, hint, capsys):
    assert main(args) == 2
    assert f"  = hint: {hint}" in capsys.readouterr().err


@pytest.mark.parametrize("args, told, never", [
    # `--out` belongs to render, graph and counterexamples: never offered to check
    (["check", "--bogus", TWO_PHASE], "run `tlacheck check --help` for the options", "--out"),
    # `--simulate` is verify's (and `tests`'s, issue 36): the hint says so, and points at the `simulate` command
    (["check", "--simulate", TWO_PHASE],
     "`--simulate` is an option of `tlacheck verify` and `tlacheck tests`, not of `tlacheck check`; did you mean "
     "the command `tlacheck simulate`?", "did you mean `--simulate`"),
    (["simulate", TWO_PHASE, "--reachable", "X"], "`--reachable` is an option of `tlacheck check` and "
     "`tlacheck explain`, not of `tlacheck simulate`", "did you mean `--reachable`"),
    (["replay", TWO_PHASE, "t.json", "--jsn"], "did you mean `--json`? (`tlacheck replay --help`", "--jsn`?"),
    (["render", "t.json", "--ouput", "d"], "did you mean `--out`? (`tlacheck render --help`", "--output"),
])
def test_issue_32_option_hints_come_from_the_command_given(args, told, never, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert told in err
    assert never not in err.split("hint:")[1]


def test_define_overrides_model_values(capsys):
    code, data = run_json(capsys, ["check", TWO_PHASE, "-D", "RM={r1,r2}"])
    assert code == 0 and data["distinct_states"] < 288


def test_non_utf8_file_is_a_spec_error(tmp_path, capsys):
    p = tmp_path / "bad.spec"
    p.write_bytes(b"var x: int = 0\n# caf\xe9\n")
    assert main(["check", str(p)]) == 3
    assert ":2:6: error[E006]" in capsys.readouterr().err


def test_text_report_marks_changed_variables(capsys):
    assert main(["check", DIEHARD, "--quiet"]) == 12
    out = capsys.readouterr().out
    assert "Error: invariant NotSolved is violated." in out
    assert "Shortest trace: 6 steps" in out
    assert "  * big   = 5    (was 0)" in out


def test_python_dash_m_and_pythonhashseed_determinism():
    """Two processes with different hash seeds print identical JSON (timing aside)."""
    outputs = []
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run([sys.executable, "-m", "tlacheck", "check", DIEHARD, "--json", "--quiet"],
                              capture_output=True, text=True, env=env, cwd=ROOT)
        assert proc.returncode == 12, proc.stderr
        data = json.loads(proc.stdout)
        data.pop("elapsed_s")
        outputs.append(data)
    assert outputs[0] == outputs[1]


def test_issue_8_render_does_not_write_an_image_through_a_planted_symlink(tmp_path, capsys):
    """The image used to be written to `<dot path>.with_suffix(".svg")` without the check the
    .dot gets, so a symlink planted in the output directory redirected it outside."""
    from tlacheck.output.render import dot_available

    if not dot_available():
        pytest.skip("needs Graphviz's `dot` to write an image")
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (out / "diehard.base.NotSolved.svg").symlink_to(victim)
    assert main(["check", DIEHARD, "--quiet", "--render", str(out)]) == 2
    assert "outside" in capsys.readouterr().err
    assert victim.read_text() == "keep"


@pytest.mark.parametrize("args, reason", [
    (["specs/classic/two_phase.spec", "--storage", "exact"], "exact storage runs in one process"),
])
def test_workers_that_cannot_be_used_are_reported(args, reason, capsys):
    args = [str(ROOT / args[0])] + args[1:]
    main(["check", *args, "--workers", "2"])
    err = capsys.readouterr().err
    assert f"tlacheck: warning: --workers 2 has no effect on this run: {reason}" in err
    main(["check", *args, "--workers", "2", "--json", "--quiet"])
    captured = capsys.readouterr()
    assert "warning" not in captured.err
    assert any(reason in w["message"] for w in json.loads(captured.out)["warnings"])
    main(["check", *args, "--json", "--quiet"])
    assert not any("--workers" in w["message"] for w in json.loads(capsys.readouterr().out)["warnings"])


def test_workers_run_with_temporal_properties(capsys):
    """The workers record the behaviour graph in parts: the run is the one-process run."""
    args = [str(ROOT / "specs/fork_teammate.spec"), "--variant", "Fix1", "--property", "DispatchReachesTeammate",
            "--json", "--quiet"]
    code = main(["check", *args])
    one = json.loads(capsys.readouterr().out)
    assert main(["check", *args, "--workers", "2"]) == code
    two = json.loads(capsys.readouterr().out)
    assert "DispatchReachesTeammate" not in two.get("undecided_properties", [])
    assert not any("--workers" in w["message"] for w in two["warnings"])
    assert [two[k] for k in ("verdict", "distinct_states", "states_generated", "depth")] == \
        [one[k] for k in ("verdict", "distinct_states", "states_generated", "depth")]


def test_workers_auto_is_one_per_core(capsys, monkeypatch):
    import tlacheck.app.cli as cli

    seen = []
    real = cli.explore

    def spy(model, options, **kwargs):
        seen.append(options.workers)
        return real(model, options, **kwargs)

    monkeypatch.setattr(cli, "explore", spy)
    assert main(["check", TWO_PHASE, "--workers", "auto", "--quiet"]) == 0
    assert seen == [len(os.sched_getaffinity(0))]
    assert main(["check", TWO_PHASE, "--workers", "many"]) == 2
    assert "expected a whole number or `auto`, not 'many'" in capsys.readouterr().err


# Soundness issue, item 7: a reader closing stdout early must not change the exit code
# (`tlacheck check ... | true` exited 0, losing the violation's 12), and output that cannot be
# written is one line on stderr and exit 6 (`> /dev/full` was `internal error: OSError`).
FORK = str(SPECS / "fork_teammate.spec")
# (command line with {trace}, {out} and {specs} to fill in, the verdict's exit code)
WRITERS = {
    "check": (["check", DIEHARD], 12),
    "check --json": (["check", DIEHARD, "--json"], 12),
    "verify": (["verify", DIEHARD], 0),
    "prove": (["prove", FORK, "--theorem", "TeammateStaysForeground"], 12),
    "render": (["render", "{trace}", "--out", "{out}"], 0),
    "graph": (["graph", DIEHARD, "--out", "{out}"], 0),
    "replay": (["replay", DIEHARD, "{trace}"], 0),
    "counterexamples": (["counterexamples", "{specs}", "--out", "{out}"], 0),
}


@pytest.fixture(scope="module")
def saved_trace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("saved")
    (folder / "specs").mkdir()
    (folder / "specs" / "diehard.spec").write_text((SPECS / "classic" / "diehard.spec").read_text())
    proc = subprocess.run([sys.executable, "-m", "tlacheck", "check", DIEHARD, "--json", "--quiet"],
                          capture_output=True, text=True, cwd=ROOT)
    (folder / "diehard.json").write_text(proc.stdout)
    return folder


def tlacheck(args, stdout) -> subprocess.CompletedProcess:
    """`python -m checker ARGS` with stdout on the file descriptor `stdout`."""
    return subprocess.run([sys.executable, "-m", "tlacheck", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, cwd=ROOT, timeout=300)


def command(name: str, saved, tmp_path) -> tuple[list[str], int]:
    args, code = WRITERS[name]
    fill = {"trace": str(saved / "diehard.json"), "out": str(tmp_path / "out"), "specs": str(saved / "specs")}
    return [a.format(**fill) for a in args], code


def to_closed_pipe(args) -> subprocess.CompletedProcess:
    """Run with stdout a pipe whose reader has already gone: every write to it is EPIPE."""
    read, write = os.pipe()
    os.close(read)
    try:
        return tlacheck(args, write)
    finally:
        os.close(write)


def assert_quiet(stderr: str) -> None:
    for word in ("Traceback", "Exception ignored", "internal error", "BrokenPipe", "Broken pipe"):
        assert word not in stderr, stderr


@pytest.mark.parametrize("name", WRITERS)
def test_soundness_7_a_reader_closing_stdout_early_keeps_the_verdicts_exit_code(name, saved_trace, tmp_path):
    args, code = command(name, saved_trace, tmp_path)
    proc = to_closed_pipe(args)
    assert proc.returncode == code, proc.stderr
    assert_quiet(proc.stderr)


def test_soundness_7_output_after_the_reader_has_gone_is_dropped_and_files_are_written(tmp_path):
    """A report larger than the buffers breaks the pipe in the middle of printing it: the run
    goes on, writes the ITF trace asked for and ends with the verdict's code."""
    spec = write(tmp_path, "var s: set[int] = {}\naction Grow:\n    require len(s) == 0\n    s = 0..50000\n"
                           "invariant Small: len(s) < 10\n")
    itf = tmp_path / "trace.itf.json"
    proc = to_closed_pipe(["check", spec, "--json", "--itf", str(itf)])
    assert proc.returncode == 12, proc.stderr
    assert_quiet(proc.stderr)
    assert json.loads(itf.read_text())["states"][-1]["s"]["#set"][-1] == {"#bigint": "50000"}


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("name", WRITERS)
def test_soundness_7_a_report_that_cannot_be_written_is_exit_6(name, saved_trace, tmp_path):
    args, _ = command(name, saved_trace, tmp_path)
    with open("/dev/full", "w") as full:
        proc = tlacheck(args, full.fileno())
    assert proc.returncode == 6, proc.stderr
    assert_quiet(proc.stderr)
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    assert errors == ["tlacheck: error: cannot write standard output: No space left on device"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_soundness_7_an_itf_file_that_cannot_be_written_is_exit_6(tmp_path):
    proc = tlacheck(["check", DIEHARD, "--quiet", "--itf", "/dev/full"], subprocess.DEVNULL)
    assert (proc.returncode, proc.stderr) == (6, "tlacheck: error: cannot write /dev/full: No space left on device\n")


@pytest.mark.parametrize("args", [
    ["check", DIEHARD, "--quiet", "--render", "{out}"],
    ["graph", DIEHARD, "--out", "{out}"],
    ["render", "{trace}", "--out", "{out}"],
], ids=["check --render", "graph", "render"])
def test_soundness_7_a_diagram_that_cannot_be_written_is_exit_6(args, saved_trace, tmp_path, capsys):
    out = tmp_path / "out"
    stem = "diehard.base.graph" if args[0] == "graph" else "diehard.base.NotSolved"
    (out / f"{stem}.dot").mkdir(parents=True)  # where the .dot file should go
    fill = {"trace": str(saved_trace / "diehard.json"), "out": str(out)}
    assert main([a.format(**fill) for a in args]) == 6
    assert capsys.readouterr().err == f"tlacheck: error: cannot write {out / stem}.dot: Is a directory\n"


def test_soundness_7_a_stale_artefact_that_cannot_be_removed_is_exit_6(saved_trace, tmp_path, capsys, monkeypatch):
    from pathlib import Path

    from tlacheck.output import artefacts

    out = tmp_path / "out"
    out.mkdir()
    (out / "gone.base.Inv.txt").write_text("stale")
    (out / artefacts.MANIFEST).write_text(artefacts.manifest(["gone.base.Inv.txt"]))

    def unlink(self, missing_ok=False):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "unlink", unlink)
    assert main(["counterexamples", str(saved_trace / "specs"), "--out", str(out)]) == 6
    assert capsys.readouterr().err.endswith(f"tlacheck: error: cannot remove {out.resolve()}/gone.base.Inv.txt: "
                                            "Permission denied\n")


class _Failing:
    """A stream whose writes fail with `error` (in-process tests of cli._Output)."""

    def __init__(self, error: OSError):
        self.error = error

    def write(self, text):
        raise self.error

    def flush(self):
        raise self.error


@pytest.mark.parametrize("error, code, message", [
    (BrokenPipeError(32, "Broken pipe"), 12, ""),
    (OSError(28, "No space left on device"), 6, "tlacheck: error: cannot write standard output: No space left on device\n"),
    (OSError(5, "Input/output error"), 6, "tlacheck: error: cannot write standard output: Input/output error\n"),
])
def test_soundness_7_stdout_errors_in_process(error, code, message, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _Failing(error))
    assert main(["check", DIEHARD, "--quiet"]) == code
    assert capsys.readouterr().err == message


def test_soundness_7_errors_writing_stderr_are_ignored(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Failing(OSError(28, "No space left on device")))
    assert main(["check", DIEHARD]) == 12
    assert "NotSolved" in capsys.readouterr().out


def _internal_error(monkeypatch):
    """An internal bug stands in: building the model raises a plain Python exception."""
    from tlacheck.app import cli

    def broken(*_args, **_kwargs):
        raise ZeroDivisionError("division by zero, a bug")

    monkeypatch.setattr(cli, "build_model", broken)


def test_an_internal_error_is_one_line_and_names_the_way_to_the_traceback(monkeypatch, capsys):
    monkeypatch.delenv("TLACHECK_DEBUG", raising=False)
    _internal_error(monkeypatch)
    assert main(["check", DIEHARD]) == 1
    err = capsys.readouterr().err
    assert "internal error: ZeroDivisionError: division by zero, a bug" in err
    assert "Traceback" not in err and "--debug" in err


@pytest.mark.parametrize("how", [["--debug", "check", DIEHARD], ["check", DIEHARD, "--debug"], "env"])
def test_debug_shows_the_traceback_of_an_internal_error(monkeypatch, capsys, how):
    if how == "env":
        monkeypatch.setenv("TLACHECK_DEBUG", "1")
        how = ["check", DIEHARD]
    else:
        monkeypatch.delenv("TLACHECK_DEBUG", raising=False)
    _internal_error(monkeypatch)
    assert main(how) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in broken" in err
    assert "internal error: ZeroDivisionError" in err


def test_debug_changes_nothing_else(monkeypatch, capsys):
    monkeypatch.delenv("TLACHECK_DEBUG", raising=False)
    assert main(["check", DIEHARD, "--debug", "--quiet"]) == main(["check", DIEHARD, "--quiet"]) == 12


# An invariant that fails at x = 2, a property that fails (x never returns to 0), a reachable
# check that holds.
SELECTABLE = """\
var x: int = 0
action Up:
    require x < 3
    x = x + 1
action Stay:
    require x == 3
    x = 3
invariant Small: x < 2
invariant Bounded: x <= 3
property BackToZero: always eventually x == 0
reachable Three: x == 3
"""


@pytest.mark.parametrize("args, code, verdict, name", [
    ([], 12, "invariant_violated", "Small"),
    (["--invariant", "Bounded"], 0, "ok", None),  # the property is not checked either
    (["--invariant", "Small"], 12, "invariant_violated", "Small"),
    (["--property", "BackToZero"], 13, "liveness_violated", "BackToZero"),  # not the invariant Small
    (["--reachable", "Three"], 0, "ok", None),
    (["--invariant", "Bounded", "--property", "BackToZero"], 13, "liveness_violated", "BackToZero"),
])
def test_invariant_property_and_reachable_select_the_checks_made(tmp_path, capsys, args, code, verdict, name):
    path = write(tmp_path, SELECTABLE)
    got, data = run_json(capsys, ["check", path] + args)
    assert (got, data["verdict"]) == (code, verdict)
    assert (data["violation"] or {}).get("name") == name


def test_invariants_alone_are_checked_with_fingerprints_and_several_workers(tmp_path, capsys):
    """Invariants alone, and with a property too (on fingerprints, with the behaviour graph):
    both run with the workers asked for."""
    path = write(tmp_path, SELECTABLE)
    assert main(["check", path, "--invariant", "Bounded", "--workers", "2"]) == 0
    captured = capsys.readouterr()
    assert "fingerprints: 64-bit" in captured.out and "one process" not in captured.err
    assert main(["check", path, "--workers", "2"]) == 12
    captured = capsys.readouterr()
    assert "fingerprints: 64-bit" in captured.out and "stored exactly" not in captured.out
    assert "no effect" not in captured.err


@pytest.mark.parametrize("flag, name, hint", [
    ("--property", "BackToZer", "did you mean `BackToZero`?"),
    ("--reachable", "Nope", "its reachable checks: Three"),
    ("--invariant", "Smal", "did you mean `Small`?"),
])
def test_an_unknown_check_name_is_a_usage_error_with_a_hint(tmp_path, capsys, flag, name, hint):
    path = write(tmp_path, SELECTABLE)
    assert main(["check", path, flag, name]) == 2
    err = capsys.readouterr().err
    assert hint in err and "Traceback" not in err


# ---------------------------------------------------------------- issue 15: `deadlock: allowed`

STOPS = "var x: int = 0\naction Inc:\n    require x < 2\n    x = x + 1\ninvariant Small: x <= 2\n"


@pytest.mark.parametrize("command", [["check"], ["simulate", "--seed", "1"]])
def test_issue_15_deadlock_allowed_is_honoured_and_the_command_line_overrides_it(command, tmp_path, capsys):
    plain = write(tmp_path, STOPS, "plain.spec")
    allowed = write(tmp_path, "deadlock: allowed\n" + STOPS, "allowed.spec")
    code, data = run_json(capsys, command[:1] + [plain] + command[1:])
    assert (code, data["verdict"], data["deadlock_checked"]) == (11, "deadlock", True)
    # the same spec, declared: OK only because of the declaration
    code, data = run_json(capsys, command[:1] + [allowed] + command[1:])
    assert (code, data["verdict"], data["deadlock_checked"]) == (0, "ok", False)
    code, data = run_json(capsys, command[:1] + [allowed, "--deadlock"] + command[1:])
    assert (code, data["verdict"], data["deadlock_checked"]) == (11, "deadlock", True)
    code, data = run_json(capsys, command[:1] + [plain, "--no-deadlock"] + command[1:])
    assert (code, data["verdict"], data["deadlock_checked"]) == (0, "ok", False)


def test_issue_15_the_text_report_says_when_deadlocks_were_not_checked_and_why(tmp_path, capsys):
    plain = write(tmp_path, STOPS, "plain.spec")
    allowed = write(tmp_path, "deadlock: allowed\n" + STOPS, "allowed.spec")
    said = {}
    for name, args in {"plain": [plain], "allowed": [allowed], "forced": [allowed, "--deadlock"],
                       "off": [plain, "--no-deadlock"]}.items():
        main(["check", *args, "--quiet"])
        said[name] = [line.strip() for line in capsys.readouterr().out.splitlines() if "deadlock" in line]
    assert said["plain"] == ["Error: deadlock reached (a state with no successor)."]
    assert said["forced"] == said["plain"]
    assert said["allowed"] == ["deadlocks were not checked (the spec says `deadlock: allowed`)"]
    assert said["off"] == ["deadlocks were not checked (--no-deadlock)"]


def test_issue_15_deadlock_and_no_deadlock_exclude_each_other(tmp_path, capsys):
    path = write(tmp_path, STOPS)
    assert main(["check", path, "--deadlock", "--no-deadlock"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_issue_15_check_help_documents_deadlock(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--deadlock report states without successors as deadlocks, even where the spec declares " \
           "`deadlock: allowed`" in out
    assert "--no-deadlock" in out


def test_issue_15_graph_highlights_a_deadlock_only_where_it_is_checked(tmp_path, capsys):
    allowed = write(tmp_path, "deadlock: allowed\n" + STOPS, "allowed.spec")
    assert main(["graph", allowed, "--out", str(tmp_path / "a")]) == 0
    assert "deadlock" not in (tmp_path / "a" / "allowed.base.graph.dot").read_text()
    assert main(["graph", allowed, "--out", str(tmp_path / "b"), "--deadlock"]) == 0
    assert "deadlock" in (tmp_path / "b" / "allowed.base.graph.dot").read_text()


def test_issue_15_a_port_whose_cfg_allows_deadlock_checks_cleanly_without_flags(capsys):
    code, data = run_json(capsys, ["check", str(SPECS / "classic" / "tcommit.spec")])
    assert (code, data["distinct_states"], data["states_generated"], data["deadlock_checked"]) == (0, 34, 94, False)
    code, data = run_json(capsys, ["check", str(SPECS / "classic" / "tcommit.spec"), "--deadlock"])
    assert (code, data["verdict"]) == (11, "deadlock")


# ---------------------------------------------------------------- issue 32: nothing to check

NOTHING = "tlacheck: warning: nothing to check: the spec declares no invariant, property or reachable check"


def test_issue_32_an_empty_spec_says_nothing_is_checked_and_does_not_invent_a_declaration(tmp_path, capsys):
    path = write(tmp_path, "")
    assert main(["check", path]) == 0
    out, err = capsys.readouterr()
    assert "`deadlock: allowed`" not in out + err  # the file declares nothing
    assert "deadlocks were not checked (the spec has no variables and no actions)" in out
    assert f"{NOTHING}, and deadlocks are not checked (the spec has no variables and no actions)" in err
    code, data = run_json(capsys, ["check", path])
    [warning] = data["warnings"]
    assert warning["code"] is None and warning["message"].startswith("nothing to check:")
    assert "evaluation errors" in warning["hint"]


@pytest.mark.parametrize("text, args, why", [
    ("deadlock: allowed\nvar x: int = 0\naction A:\n    require x < 1\n    x = x + 1\n", [],
     "the spec says `deadlock: allowed`"),
    ("var x: int = 0\naction A:\n    require x < 1\n    x = x + 1\n", ["--no-deadlock"], "--no-deadlock"),
    ("def f(b: bool) -> bool: b\ntheorem T: forall b: f(b) == b\n", [], "the spec has no variables and no actions"),
])
def test_issue_32_a_spec_without_checks_and_deadlocks_unchecked_is_told(tmp_path, capsys, text, args, why):
    path = write(tmp_path, text)
    for command in ("check", "simulate"):
        assert main([command, path, *args]) == 0
        err = capsys.readouterr().err
        assert f"{NOTHING}, and deadlocks are not checked ({why})" in err
    if "theorem" in text:
        assert "`tlacheck prove` decides its theorems" in err


@pytest.mark.parametrize("text, args", [
    ("var x: int = 0\naction A:\n    require x < 1\n    x = x + 1\n", []),  # deadlocks are checked
    ("deadlock: allowed\nvar x: int = 0\naction A: skip\ninvariant I: x == 0\n", []),
    ("deadlock: allowed\nvar x: int = 0\naction A: skip\nreachable R: x == 0\n", []),
    ("deadlock: allowed\nvar x: int = 0\naction A: skip\nproperty P: always x == 0\n", []),
])
def test_issue_32_a_spec_with_something_to_check_gets_no_such_warning(tmp_path, capsys, text, args):
    path = write(tmp_path, text)
    main(["check", path, *args])
    assert "nothing to check" not in capsys.readouterr().err


# ---------------------------------------------------------------- issue 32: progress lines

def test_issue_32_progress_lines_give_the_elapsed_time_and_the_rate_since_the_last_line(capsys):
    from tlacheck.app.cli import _Progress
    from tlacheck.engine.options import Progress

    report = _Progress()
    report.search(Progress(generated=10_000, distinct=4_000, queue=900, depth=7, elapsed_s=5.0))
    report.search(Progress(generated=12_000, distinct=4_500, queue=950, depth=8, elapsed_s=3725.0))
    report.search(Progress(generated=4_000, distinct=4_500, queue=0, depth=8, elapsed_s=3727.0, phase="liveness"))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "progress: 0:00:05 10,000 generated (2,000/s), 4,000 distinct (800/s), 900 on queue, depth 7"
    # over the last interval (3,720 s), not since the start: 2,000 states, 500 distinct
    assert lines[1] == "progress: 1:02:05 12,000 generated (1/s), 4,500 distinct (0/s), 950 on queue, depth 8"
    assert lines[2].startswith("progress: 1:02:07 search complete (4,500 distinct states, 4,000 transitions)")


def test_issue_32_simulation_progress_gives_the_rate_of_behaviours_since_the_last_line(capsys):
    from tlacheck.app.cli import _Progress
    from tlacheck.engine.simulate import SimProgress

    report = _Progress()
    report.simulation(SimProgress(behaviours=100, states_visited=2_000, distinct=50, elapsed_s=4.0))
    report.simulation(SimProgress(behaviours=1_100, states_visited=22_000, distinct=60, elapsed_s=8.0))
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["progress: 0:00:04 100 behaviours (25/s), 2,000 states visited (50 distinct)",
                     "progress: 0:00:08 1,100 behaviours (250/s), 22,000 states visited (60 distinct)"]


# ---------------------------------------------------------------- issue 32: exit codes in --help

def _documented_exit_codes() -> dict[int, str]:
    text = (ROOT / "docs" / "cli.md").read_text()
    table = text[text.index("## Exit codes"):text.index("## Debugging")]
    return {int(row.split("|")[1]): row.split("|")[2].strip() for row in table.splitlines()
            if row.startswith("| ") and row.split("|")[1].strip().isdigit()}


def _help(*command: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "tlacheck", *command, "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _listed_exit_codes(help_text: str) -> dict[int, str]:
    table = help_text[help_text.index("\nexit codes:\n"):].splitlines()[2:]
    return {int(line.split()[0]): line.split(None, 1)[1] for line in table if line.strip()}


def test_issue_32_help_lists_every_documented_exit_code():
    listed = _listed_exit_codes(_help())
    documented = _documented_exit_codes()
    assert set(listed) == set(documented) and len(listed) >= 13
    for code, meaning in listed.items():  # the same meaning as the docs' table: a word of it in common
        words = {w for w in re.findall(r"[a-z]{4,}", meaning.lower())}
        assert words & set(re.findall(r"[a-z]{4,}", documented[code].lower())), (code, meaning, documented[code])


@pytest.mark.parametrize("command, codes", [
    ("check", {0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13}),
    ("simulate", {0, 1, 2, 3, 4, 5, 6, 11, 12}),
    ("verify", {0, 1, 2, 3, 4, 5, 6, 10}),
    ("prove", {0, 1, 2, 3, 4, 5, 6, 12}),
    ("replay", {0, 1, 2, 3, 4, 6, 14}),
    ("render", {0, 1, 2, 3, 4, 6}),
    ("graph", {0, 1, 2, 3, 4, 5, 6}),
    ("counterexamples", {0, 1, 2, 3, 4, 6, 10}),
    ("tests", {0, 1, 2, 3, 4, 6}),
])
def test_issue_32_each_command_help_lists_its_exit_codes(command, codes):
    listed = _listed_exit_codes(_help(command))
    assert set(listed) == codes
    assert set(listed) <= set(_documented_exit_codes())
    if command == "prove":
        assert listed[12] == "a theorem refuted"


# ---------------------------------------------------------------- issue 32: colour

ESC = "\x1b["


def _run_on_a_terminal(args, env_extra=None):
    """tlacheck with stdout and stderr on a pseudo-terminal: everything it wrote."""
    import pty

    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm", **(env_extra or {}))
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "tlacheck", *args], stdout=follower, stderr=follower, cwd=ROOT,
                            env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=60), b"".join(chunks).decode()


def _run_piped(args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-m", "tlacheck", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def test_issue_32_a_terminal_gets_colour(tmp_path):
    code, text = _run_on_a_terminal(["check", DIEHARD])
    assert code == 12
    assert f"{ESC}31;1mError:{ESC}0m invariant NotSolved is violated." in text
    assert f"{ESC}1mState 2:{ESC}0m FillBigJug" in text
    path = write(tmp_path, "var x: int = 0\naction A:\n    require notx\n")
    code, text = _run_on_a_terminal(["check", path])
    assert code == 3 and f"{ESC}31;1merror[E100]{ESC}0m: unknown name `notx`" in text
    # the words are coloured, never changed: without the codes it is the plain report
    def untimed(text):
        return re.sub(r"  time .*", "", text)

    plain = _run_piped(["check", DIEHARD])[1]
    coloured = _run_on_a_terminal(["check", DIEHARD])[1].replace("\r\n", "\n")
    assert untimed(re.sub(r"\x1b\[[0-9;]*m", "", coloured)) == untimed(plain)


def test_issue_32_colour_respects_no_color_json_and_pipes():
    assert ESC not in _run_on_a_terminal(["check", DIEHARD], {"NO_COLOR": "1"})[1]
    assert ESC not in _run_on_a_terminal(["check", DIEHARD, "--json"])[1]
    code, out, err = _run_piped(["check", DIEHARD])
    assert code == 12 and ESC not in out + err


def test_issue_32_force_color_colours_a_pipe_but_never_json_and_no_color_wins():
    code, out, _ = _run_piped(["check", DIEHARD], {"FORCE_COLOR": "1"})
    assert code == 12 and f"{ESC}31;1mError:{ESC}0m" in out
    code, out, err = _run_piped(["check", DIEHARD, "--json"], {"FORCE_COLOR": "1"})
    assert code == 12 and ESC not in out + err
    json.loads(out)
    code, out, err = _run_piped(["check", DIEHARD], {"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert ESC not in out + err


@pytest.mark.parametrize("env, tty, want_json, expected", [
    ({}, True, False, True),
    ({}, False, False, False),
    ({}, True, True, False),
    ({"NO_COLOR": "1"}, True, False, False),
    ({"NO_COLOR": ""}, True, False, True),  # set but empty: no effect (no-color.org)
    ({"FORCE_COLOR": "1"}, False, False, True),
    ({"FORCE_COLOR": ""}, False, False, False),
    ({"FORCE_COLOR": "1"}, False, True, False),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, True, False, False),
    ({"TERM": "dumb"}, True, False, False),
])
def test_issue_32_when_to_colour(monkeypatch, env, tty, want_json, expected):
    from tlacheck.app.cli import _colour

    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    class Stream:
        def isatty(self):
            return tty

    assert _colour(Stream(), want_json) is expected
