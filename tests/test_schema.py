"""The JSON Schema of `--json` (checker/output/tlacheck.schema.json, issue 32 item 10): every kind
of object tlacheck prints validates against it, matches the one definition of its command, and
carries the schema version."""

import json
import tomllib
from fnmatch import fnmatch

import jsonschema
import pytest

from tlacheck import SCHEMA_VERSION
from tlacheck.app import cli
from tlacheck.app.cli import main
from tlacheck.core.errors import ClusterError
from tlacheck.output.report import json_schema
from tests.conftest import ROOT, SPECS


SCHEMA = json_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
DIEHARD = str(SPECS / "classic" / "diehard.spec")
TWO_PHASE = str(SPECS / "classic" / "two_phase.spec")
NOTIFY = str(SPECS / "notify_race.spec")
FORK = str(SPECS / "fork_teammate.spec")


def valid(data: dict, definition: str) -> dict:
    """`data` validates against the schema, and against `definition` of its $defs (the one of
    its command): the top-level oneOf picks exactly it."""
    errors = sorted(VALIDATOR.iter_errors(data), key=lambda e: list(e.absolute_path))
    assert not errors, jsonschema.exceptions.best_match(errors)
    matching = [name for name in _alternatives() if _validates(data, name)]
    assert matching == [definition]
    assert data["schema_version"] == SCHEMA_VERSION and data["tool"] == "tlacheck"
    return data


def _alternatives() -> list[str]:
    return [alt["$ref"].rsplit("/", 1)[1] for alt in SCHEMA["oneOf"]]


def _validates(data, name) -> bool:
    sub = dict(SCHEMA, oneOf=[{"$ref": f"#/$defs/{name}"}])
    return jsonschema.Draft202012Validator(sub).is_valid(data)


def run(capsys, args: list[str], code: int) -> dict:
    assert main(args) == code
    return json.loads(capsys.readouterr().out)


def spec(tmp_path, text: str, name: str = "t.spec") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# ---------------------------------------------------------------- the schema itself

def test_the_schema_is_a_valid_draft_2020_12_schema_of_this_version():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$defs"]["schema_version"]["const"] == SCHEMA_VERSION
    major, minor = SCHEMA_VERSION.split(".")
    assert major.isdigit() and minor.isdigit()


def test_the_schema_ships_in_the_package_and_the_docs_link_to_it():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["tlacheck.output"]
    assert any(fnmatch("tlacheck.schema.json", p) for p in patterns)
    assert (ROOT / "checker" / "output" / "tlacheck.schema.json").is_file()
    assert "(../checker/output/tlacheck.schema.json)" in (ROOT / "docs" / "cli.md").read_text()


def test_each_command_object_is_one_definition_named_in_one_of():
    assert sorted(_alternatives()) == sorted(["check", "explain", "simulate", "verify", "prove", "prove_diff", "replay",
                                              "conform", "tests", "errors"])
    for name in _alternatives():
        assert name in SCHEMA["$defs"]


# ---------------------------------------------------------------- check

LIVE = """\
var x: int = 0
action Inc:
    require x < 2
    x = x + 1
action Reset:
    require x == 2
    x = 0
property Reaches3: eventually x == 3
"""


@pytest.mark.parametrize("text, args, code, verdict, kind", [
    (None, [TWO_PHASE], 0, "ok", None),
    (None, [DIEHARD], 12, "invariant_violated", "invariant"),
    ("var x: int = 0\naction A:\n    require x < 1\n    x = x + 1\n", [], 11, "deadlock", "deadlock"),
    (LIVE + "fair weak Inc\nfair weak Reset\n", [], 13, "liveness_violated", "liveness"),  # a cycle
    (LIVE, [], 13, "liveness_violated", "liveness"),  # it stutters
    (LIVE + "property Small: always x < 2\n", ["--property", "Small"], 12, "invariant_violated", "property"),
    (LIVE + "property Down: always x' >= x\n", ["--property", "Down"], 12, "invariant_violated", "step"),
    (LIVE + "reachable Two: x == 2\nreachable Five: x == 5\n", ["--reachable", "Two", "--reachable", "Five"], 12,
     "unreachable", "unreachable"),
    (LIVE + "invariant Div: 10 // (x - 2) > -100\n", ["--invariant", "Div"], 4, "error", "error"),
    (LIVE + "derived twice: x * 2\ninvariant Small: x < 2\n", ["--invariant", "Small", "-D", "X=1"], None, None,
     None),
    ("var x: int = 0\naction A:\n    x = x + 1\n", ["--max-states", "5"], 5, "incomplete", None),
    ("", [], 0, "ok", None),  # an empty file: a warning of the run
])
def test_every_check_outcome_validates(tmp_path, capsys, text, args, code, verdict, kind):
    if "-D" in args:  # a constant to override, derived values in the trace
        text = "const X: int = 0\n" + text
        code, verdict, kind = 12, "invariant_violated", "invariant"
    path = [spec(tmp_path, text)] if text is not None else []
    data = valid(run(capsys, ["check", *path, *args, "--json", "--quiet"], code), "check")
    assert data["verdict"] == verdict
    assert (data["violation"] or {}).get("kind") == kind
    if kind == "liveness":
        assert data["violation"]["loop_index"] is not None
    if "derived" in (text or ""):
        assert all("derived" in step for step in data["violation"]["trace"])
    if "Two" in args:
        assert list(data["witnesses"]) == ["Two"]


def test_a_lasso_with_a_closing_step_and_one_that_stutters_both_validate(tmp_path, capsys):
    cycle = run(capsys, ["check", spec(tmp_path, LIVE + "fair weak Inc\nfair weak Reset\n"), "--json"], 13)
    stutter = run(capsys, ["check", spec(tmp_path, LIVE, "s.spec"), "--json"], 13)
    assert valid(cycle, "check")["violation"]["closing"]["action"] == "Reset"
    assert valid(stutter, "check")["violation"]["stutters"] is True


def test_warnings_of_the_spec_and_of_the_run_validate(tmp_path, capsys):
    path = spec(tmp_path, "deadlock: allowed\nvar x: int = 0\naction Set(x in 0..1): skip\n")
    data = valid(run(capsys, ["check", path, "--json", "--storage", "exact", "--workers", "2"], 0), "check")
    codes = [w["code"] for w in data["warnings"]]
    assert "W204" in codes and codes.count(None) == 2  # nothing to check; --workers without effect


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("args, code, verdict, error", [
    (["check", "SPEC", "--json", "--bogus"], 2, "usage_error", "usage"),  # before the arguments are parsed
    (["check", "SPEC", "--json", "--invariant", "Nope"], 2, "usage_error", "usage"),
    (["verify", "--json", "/nonexistent.spec"], 2, "usage_error", "usage"),
    (["check", "BAD", "--json"], 3, "error", "E100"),
    (["prove", "BAD", "--json"], 3, "error", "E100"),
    (["replay", "SPEC", "/nonexistent.json", "--json"], 2, "usage_error", "usage"),
])
def test_errors_validate(tmp_path, capsys, args, code, verdict, error):
    good = spec(tmp_path, "var x: int = 0\naction A: skip\ninvariant I: x == 0\n")
    bad = spec(tmp_path, "var x: int = 0\naction A:\n    require notx\n", "bad.spec")
    args = [good if a == "SPEC" else bad if a == "BAD" else a for a in args]
    data = valid(run(capsys, args, code), "errors")
    assert data["verdict"] == verdict and data["errors"][0]["code"] == error
    assert data["command"] == args[0]


@pytest.mark.parametrize("raised, code, verdict, error", [
    (ClusterError("a partition actor died", "run it again"), 7, "incomplete", "cluster"),
    (MemoryError(), 5, "incomplete", "out_of_memory"),
    (KeyboardInterrupt(), 5, "incomplete", "interrupted"),
    (ZeroDivisionError("a bug"), 1, "error", "internal"),
])
def test_errors_of_the_run_validate(monkeypatch, capsys, raised, code, verdict, error):
    def fail(*_args, **_kwargs):
        raise raised

    monkeypatch.setattr(cli, "explore", fail)
    data = valid(run(capsys, ["check", DIEHARD, "--json", "--quiet"], code), "errors")
    assert (data["verdict"], data["errors"][0]["code"], data["file"]) == (verdict, error, DIEHARD)


def test_a_trace_too_large_to_print_validates(monkeypatch, capsys):
    def too_large(*_args, **_kwargs):
        raise MemoryError

    monkeypatch.setattr(cli, "run_json", too_large)
    data = valid(run(capsys, ["check", DIEHARD, "--json", "--quiet"], 12), "errors")
    assert data["trace"] is None and data["trace_omitted"] == "out of memory"


# ---------------------------------------------------------------- simulate

@pytest.mark.parametrize("text, args, code, ended", [
    (None, [DIEHARD, "--seed", "2"], 12, "violation"),
    (None, [TWO_PHASE, "--seed", "1", "--traces", "20"], 0, "traces"),
    ("var x: int = 0\nconstraint C: x > 0\naction A: skip\ninvariant I: true\n", ["--seed", "1"], 0,
     "no_initial_state"),
    (LIVE + "invariant Div: 10 // (x - 2) > -100\n", ["--seed", "1"], 4, "error"),
])
def test_every_simulate_outcome_validates(tmp_path, capsys, text, args, code, ended):
    path = [spec(tmp_path, text)] if text is not None else []
    data = valid(run(capsys, ["simulate", *path, *args, "--json", "--quiet"], code), "simulate")
    assert data["simulation"]["ended"] == ended and data["command"] == "simulate"


# ---------------------------------------------------------------- verify

@pytest.mark.parametrize("args, code, verdict", [
    ([NOTIFY], 0, "ok"),
    ([FORK, "--simulate", "--traces", "50"], None, None),
    (["FAILING"], 10, "failed"),
])
def test_every_verify_outcome_validates(tmp_path, capsys, args, code, verdict):
    failing = spec(tmp_path, "var x: int = 0\naction A:\n    require x < 2\n    x = x + 1\ninvariant I: x < 2\n"
                             "expect base holds I\nexpect base proves T\ndef f(b: bool) -> bool: b\n"
                             "theorem T: forall b: f(b) == b\n")
    args = [failing if a == "FAILING" else a for a in args]
    assert main(["verify", *args, "--json", "--quiet"]) in ((code,) if code is not None else (0, 10))
    data = valid(json.loads(capsys.readouterr().out), "verify")
    if verdict is not None:
        assert data["verdict"] == verdict
    assert data["rows"] and all(r["ok"] or r["unchecked"] for r in data["rows"]) is (data["verdict"] == "ok")


@pytest.mark.parametrize("limit, stop_reason", [(["--max-states", "10"], "max_states"),
                                                 (["--time-limit", "1"], "time_limit")])
def test_issue_37_verify_stopped_at_a_limit_validates(tmp_path, capsys, limit, stop_reason):
    endless = spec(tmp_path, "var x: int = 0\naction Up: x = x + 1\ninvariant I: x >= 0\nexpect base holds\n")
    data = valid(run(capsys, ["verify", endless, *limit, "--json", "--quiet"], 5), "verify")
    assert (data["verdict"], data["stop_reason"], data["ok"]) == ("incomplete", stop_reason, False)


def test_issue_37_explain_validates(capsys):
    data = valid(run(capsys, ["explain", NOTIFY, "--json", "--quiet"], 12), "explain")
    assert data["explanation"]["name"] == "AnswerNotified"


# ---------------------------------------------------------------- prove

@pytest.mark.parametrize("args, code, definition", [
    ([FORK], 12, "prove"),
    ([FORK, "--all"], 12, "prove"),
    ([FORK, "--theorem", "PinnedOffKeepsTeammatesForeground"], 0, "prove"),
    ([FORK, "--diff", "async_launch", "--against", "Fix1"], 0, "prove_diff"),
])
def test_every_prove_outcome_validates(capsys, args, code, definition):
    data = valid(run(capsys, ["prove", *args, "--json"], code), definition)
    assert data["command"] == "prove"


# ---------------------------------------------------------------- replay

@pytest.mark.parametrize("variant, code, outcome", [("base", 0, "replays"), ("Generation", 14, "diverges")])
def test_every_replay_outcome_validates(tmp_path, capsys, variant, code, outcome):
    saved = tmp_path / "t.json"
    assert main(["check", NOTIFY, "--json", "--quiet"]) == 12
    saved.write_text(capsys.readouterr().out)
    data = valid(run(capsys, ["replay", NOTIFY, str(saved), "--variant", variant, "--json"], code), "replay")
    assert data["outcome"] == outcome


# ---------------------------------------------------------------- tests

def test_issue_36_tests_json_validates_and_is_the_summary_of_tests_json(tmp_path, capsys):
    out = tmp_path / "suite"
    data = valid(run(capsys, ["tests", NOTIFY, "--out", str(out), "--json"], 0), "tests")
    written = json.loads((out / "tests.json").read_text())
    assert data["command"] == "tests" and data["out"] == str(out) and data["removed"] == []
    assert {k: v for k, v in data.items() if k in written} == {k: v for k, v in written.items() if k != "tlacheck"}
    assert [b["file"] for b in data["behaviours"]] == sorted(p.name for p in out.glob("behaviour-*.itf.json"))
    stale = out / "behaviour-999.itf.json"  # an earlier run's file, listed in the manifest
    manifest = out / "tlacheck-manifest.txt"
    stale.write_text("{}")
    manifest.write_text(manifest.read_text() + "behaviour-999.itf.json\n")
    again = valid(run(capsys, ["tests", NOTIFY, "--out", str(out), "--json", "--cover", "transitions", "--max", "2"],
                      0), "tests")
    assert again["removed"] == ["behaviour-999.itf.json"]
    assert again["limited"] and len(again["behaviours"]) == 2 and again["uncovered"]


def test_issue_36_a_spec_error_of_tests_json_is_the_errors_object(tmp_path, capsys):
    bad = spec(tmp_path, "spec T\nvar x: int = 0\naction A:\n    x = y\n")
    data = valid(run(capsys, ["tests", bad, "--out", str(tmp_path / "o"), "--json"], 3), "errors")
    assert data["command"] == "tests" and data["errors"][0]["code"].startswith("E")


# ---------------------------------------------------------------- files of `tlacheck counterexamples`

def test_the_committed_counterexample_json_files_validate():
    files = sorted(p for p in (ROOT / "counterexamples").rglob("*.json") if not p.name.endswith(".itf.json"))
    assert files
    for path in files:
        valid(json.loads(path.read_text()), "check")
