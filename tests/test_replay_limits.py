"""`tlacheck replay` reports recursion too deep (E406) and out of memory (E411) in a replayed step
as `check` does: code, position, outcome `error`, exit 14 (issue 8, item 3; docs/cli.md "replay").
They were `internal error: RecursionError` / `MemoryError`: replay caught only evaluation faults.
"""

from __future__ import annotations

import json

import pytest

from tlacheck.app.cli import main
from tlacheck.core.source import Source
from tlacheck.compile import instrument
from tlacheck.conform.replayer import replay
from tlacheck.output.replay import Outcome
from tlacheck.output.savedtrace import load
from tlacheck.pipeline.driver import build_model


GROW = "var n: int = 1\naction Grow:\n    n = n * 1000\ninvariant Small: n < 1000000000\n"
DEEP = "def depth(n: int) -> int: depth(n + 1)\n"


@pytest.fixture
def saved(tmp_path, capsys):
    """The counterexample of GROW (n = 1, 1000, 10^6, 10^9) saved by `check --json`."""
    (tmp_path / "grow.spec").write_text(GROW)
    assert main(["check", str(tmp_path / "grow.spec"), "--json", "--quiet"]) == 12
    (tmp_path / "grow.json").write_text(capsys.readouterr().out)
    return tmp_path / "grow.json"


def replay_cli(tmp_path, capsys, spec_text: str, trace, *flags: str):
    (tmp_path / "fixed.spec").write_text(spec_text)
    code = main(["replay", str(tmp_path / "fixed.spec"), str(trace), *flags])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in out + err
    return code, out


def test_recursion_too_deep_in_a_replayed_step(tmp_path, capsys, saved):
    spec = DEEP + "var n: int = 1\naction Grow:\n    n = n * 1000 + depth(0) * 0\ninvariant Small: n < 1000000000\n"
    code, out = replay_cli(tmp_path, capsys, spec, saved)
    assert code == 14
    assert ("The trace does not replay: state 2: evaluation error[E406]: recursion too deep in `depth` "
            "(while computing action Grow).") in out
    assert "fixed.spec:1:5: recursion too deep in `depth` (while computing action Grow)" in out
    code, out = replay_cli(tmp_path, capsys, spec, saved, "--json")
    data = json.loads(out)
    assert code == 14 and data["outcome"] == "error" and data["state"] == 2 and data["action"] == "Grow"
    assert (data["causes"][0]["line"], data["causes"][0]["column"]) == (1, 5)


def test_out_of_memory_in_a_replayed_step(tmp_path, capsys, saved, small_ranges):
    spec = "var n: int = 1\naction Grow:\n    require len(0..n) > 0\n    n = n * 1000\ninvariant Small: n < 1000000000\n"
    code, out = replay_cli(tmp_path, capsys, spec, saved)
    assert code == 14
    assert ("The trace does not replay: state 4: evaluation error[E411]: out of memory "
            "(while computing action Grow).") in out
    assert "Steps replayed before it: 2 of 3." in out
    assert "fixed.spec:3:5: out of memory (while computing action Grow)" in out


def test_recursion_too_deep_in_the_initial_states(tmp_path, capsys, saved):
    spec = DEEP + "var m: int in {0, 1}\nvar n: int = 1 + m * depth(0)\naction Grow:\n    n = n * 1000\n"
    code, out = replay_cli(tmp_path, capsys, spec, saved)
    assert code == 14
    assert "state 1: evaluation error[E406]: recursion too deep in `depth` (while computing the initial states)" in out


def test_recursion_too_deep_in_the_recorded_invariant_leaves_it_undecided(tmp_path, capsys, saved):
    spec = DEEP + "var n: int = 1\naction Grow:\n    n = n * 1000\ninvariant Small: n + depth(0) * 0 < 1000000000\n"
    code, out = replay_cli(tmp_path, capsys, spec, saved)
    assert code == 0 and "The trace replays" in out and "violates" not in out


@pytest.mark.parametrize("failure", [RecursionError, MemoryError])
def test_a_failure_while_explaining_a_disabled_step_is_an_evaluation_error(monkeypatch, saved, failure):
    """The instrumented copy of the actions, run only to name the false `require`, may fail too."""
    text = "var n: int = 1\naction Grow:\n    require n < 1000\n    n = n * 1000\n"
    model = build_model(Source("fixed.spec", text))
    trace = load(json.loads(saved.read_text()), model)

    def run(self, action, state):
        raise failure
        yield  # pragma: no cover

    monkeypatch.setattr(instrument.Instrumented, "run", run)
    result = replay(model, trace)
    assert result.outcome == Outcome.ERROR and result.state == 3
    code = "E406" if failure is RecursionError else "E411"
    assert result.message.startswith(f"state 3: evaluation error[{code}]: ")
    assert str(result.causes[0].span) == "fixed.spec:2:8"  # no generated line: the action
