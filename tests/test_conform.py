"""`tlacheck conform` (output/conformance.py, app/cli.py): verdicts and exit codes per run and for a
batch, the text and JSON diagnosis, coverage, runs of several processes, determinism, limits."""

from __future__ import annotations

import json
import os
import re

import jsonschema
import pytest

from tlacheck import SCHEMA_VERSION
from tlacheck.app.cli import main
from tlacheck.output.report import json_schema


SPEC = """spec Jobs
enum Status { Queued, Running, Done }
const Workers: set[model] = {w1, w2}
var status: Status = Queued
var owner: Workers? = none
var tries: int = 0
var audit: int = 0

action Take(w in Workers):
    require status == Queued
    status = Running
    owner = w

action Finish:
    require status == Running
    require tries < 2
    status = Done

action Retry:
    require status == Running
    status = Queued
    owner = none
    tries = tries + 1

action Audit:
    audit = audit + 1

action Crash:
    require status == Running
    status = Queued
    owner = none

invariant FewTries: tries < 2

conform:
    event "job.take" = Take(w = "worker")
    event "job.finish" = Finish
    event "job.retry_take" = Retry then Take(w = "worker")
    field "state" = status
    values Status: "queued" = Queued, "running" = Running, "done" = Done
    values Workers: "worker-1" = w1, "worker-2" = w2
    ignore "ts"
    silent Audit
    lazy Crash
"""


def write(folder, name: str, *lines):
    """The log, its path relative to the current folder (the tests run in tmp_path)."""
    path = folder / name
    path.write_text("".join((json.dumps(x) if not isinstance(x, str) else x) + "\n" for x in lines))
    return os.path.relpath(path)


@pytest.fixture
def spec(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jobs.spec").write_text(SPEC)
    return "jobs.spec"


def run(capsys, *args):
    """`tlacheck conform ARGS`; with --json, its object is checked against the JSON schema."""
    code = main(["conform", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err
    if "--json" in args:
        data = json.loads(out)
        errors = list(VALIDATOR.iter_errors(data))
        assert not errors, jsonschema.exceptions.best_match(errors)
        assert data["command"] == "conform" and data["schema_version"] == SCHEMA_VERSION
    return code, out, err


VALIDATOR = jsonschema.Draft202012Validator(json_schema())


TAKE = {"action": "job.take", "args": {"worker": "worker-1"}, "state": {"state": "running"}}
FINISH = {"action": "job.finish", "state": {"state": "done"}}


def test_issue_33_a_run_that_conforms_exits_0(spec, tmp_path, capsys):
    log = write(tmp_path, "ok.ndjson", {"action": None, "state": {"state": "queued"}}, TAKE, FINISH)
    code, out, _ = run(capsys, spec, log)
    assert code == 0
    assert "ok.ndjson: conforms\n  2 events matched by 2 spec steps; 1.0 candidate states per event" in out
    assert "Summary: 1 run: 1 conforms. Exit code 0." in out


def test_issue_33_a_check_failing_along_the_matched_run_exits_12_with_the_trace(spec, tmp_path, capsys):
    retry = {"action": "job.retry_take", "args": {"worker": "worker-2"}, "state": {"tries": 1}}
    log = write(tmp_path, "bug.ndjson", TAKE, retry, {"action": "Retry"}, {"action": "Take", "args": {"w": "w1"}})
    code, out, _ = run(capsys, spec, log)
    assert code == 12
    assert "bug.ndjson: conforms, but invariant FewTries is violated along it" in out
    assert "The invariant fails in state 5 of the matched behaviour:" in out
    assert "State 5: Retry    (jobs.spec:19)    log bug.ndjson:3" in out
    # --invariant chooses the checks: with another one, nothing fails
    assert run(capsys, spec, log, "--invariant", "FewTries")[0] == 12
    assert run(capsys, spec, "--property", "x", log)[0] == 2


def test_issue_33_a_run_that_does_not_conform_exits_14_with_the_diagnosis(spec, tmp_path, capsys):
    log = write(tmp_path, "bad.ndjson", TAKE, {"action": "job.take", "args": {"worker": "worker-2"}})
    assert run(capsys, spec, log)[0] == 0  # a lazy crash explains it
    code, out, _ = run(capsys, spec, log, "--max-lazy", "0")
    assert code == 14
    assert "bad.ndjson: does not conform at bad.ndjson:2" in out
    assert "Matched before it: 1 event of the run, by 1 spec step." in out
    assert "The frontier before it: 1 candidate state:" in out
    assert "candidate 1, Take is disabled" in out
    assert "jobs.spec:10:5: this `require` is false" in out and "require status == Queued" in out
    code, out, _ = run(capsys, spec, log, "--json", "--max-lazy", "0")
    data = json.loads(out)
    (r,) = data["runs"]
    assert r["verdict"] == "does_not_conform" and r["exit_code"] == 14 and r["events_matched"] == 1
    mm = r["mismatch"]
    assert mm["events"][0]["line"] == 2 and mm["frontier_size"] == 1
    assert mm["frontier"][0]["status"] == "Running"
    [x] = mm["explanations"]
    assert x["outcome"] == "disabled" and x["action"] == "Take" and x["causes"][0]["line"] == 10


def test_issue_33_a_diverging_event_shows_the_differences_entry_by_entry(spec, tmp_path, capsys):
    log = write(tmp_path, "bad.ndjson", {"action": "job.take", "args": {"worker": "worker-1"},
                                         "state": {"owner": "w2"}})
    code, out, _ = run(capsys, spec, log)
    assert code == 14
    assert "candidate 1, Take(w=w1) reaches a different state" in out
    assert "`owner` gets its value here" in out
    assert "variable  recorded  spec\n      owner     w2        w1" in out


def test_issue_33_an_unnamed_event_is_explained_for_every_action(spec, tmp_path, capsys):
    log = write(tmp_path, "bad.ndjson", {"state": {"tries": 5}})
    code, out, _ = run(capsys, spec, log, "--json")
    data = json.loads(out)
    names = [x["action"] for x in data["runs"][0]["mismatch"]["explanations"]]
    assert code == 14 and [n.split("(")[0] for n in names] == ["Take", "Finish", "Retry", "Audit", "Crash"]


def test_issue_33_gaps_silent_and_lazy_steps(spec, tmp_path, capsys):
    # Audit is silent: with --max-gap 1 it may happen unlogged; Crash is lazy: it is found only
    # when nothing else explains a take after a take
    log = write(tmp_path, "gap.ndjson", TAKE, {"action": "job.take", "args": {"worker": "worker-2"},
                                               "state": {"audit": 1}})
    assert run(capsys, spec, log)[0] == 14
    code, out, _ = run(capsys, spec, log, "--max-gap", "1", "--json")
    r = json.loads(out)["runs"][0]
    assert code == 0 and r["steps"] == 4 and r["unlogged_steps"] == 2
    # the audit happens before the first take (the first candidate found), the crash before the second
    assert r["trace_log_lines"] == ["", "(unlogged)", "log gap.ndjson:1", "(unlogged, lazy)", "log gap.ndjson:2"]
    assert [s["action"] for s in r["trace"][1:]] == ["Audit", "Take", "Crash", "Take"]
    assert run(capsys, spec, log, "--max-gap", "1", "--max-lazy", "0")[0] == 14


def test_issue_33_several_runs_get_a_verdict_each_and_the_worst_exit_code(spec, tmp_path, capsys):
    ok = write(tmp_path, "ok.ndjson", TAKE, FINISH)
    bad = write(tmp_path, "bad.ndjson", FINISH)
    broken = write(tmp_path, "broken.ndjson", "{nope")
    code, out, _ = run(capsys, spec, ok, bad)
    assert code == 14 and "Summary: 2 runs: 1 conforms, 1 does not conform. Exit code 14." in out
    code, out, err = run(capsys, spec, ok, broken, bad)
    assert code == 2 and "broken.ndjson: cannot be read\n  broken.ndjson:1:2: error[E501]: not JSON" in out
    assert "\nbroken.ndjson:1:2: error[E501]: not JSON" in err and "   1 | {nope\n        ^\n" in err
    assert "Summary: 3 runs: 1 conforms, 1 does not conform, 1 cannot be read. Exit code 2." in out
    data = json.loads(run(capsys, spec, ok, broken, bad, "--json")[1])
    assert [r["verdict"] for r in data["runs"]] == ["conforms", "malformed", "does_not_conform"]
    assert data["runs"][1]["error"]["code"] == "E501" and data["exit_code"] == 2


def test_issue_33_coverage_across_runs(spec, tmp_path, capsys):
    a = write(tmp_path, "a.ndjson", TAKE, FINISH)
    b = write(tmp_path, "b.ndjson", TAKE, {"action": "job.retry_take", "args": {"worker": "worker-2"}})
    code, out, _ = run(capsys, spec, a, b, "--invariant", "FewTries")
    assert code == 0
    assert "Coverage across the 2 runs matched to their end (steps of the behaviours that match them):" in out
    assert "  Take          3         0  owner 3, status 3\n" in out
    assert "  never exercised: Audit, Crash" in out
    cov = json.loads(run(capsys, spec, a, b, "--json")[1])["coverage"]
    assert cov["actions"]["Retry"] == {"logged": 1, "unlogged": 0, "variables": {"owner": 1, "status": 1, "tries": 1}}
    assert cov["never_exercised"] == ["Audit", "Crash"]


def test_issue_33_a_thin_log_is_warned_about(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wide.spec").write_text("var x: 0..30 = 0\naction Set:\n    with v in 0..30:\n        x = v\n")
    log = write(tmp_path, "thin.ndjson", {"action": "Set"}, {"action": "Set"})
    code, out, _ = run(capsys, "wide.spec", log)
    assert code == 0
    assert "warning: the log pins the spec's state down loosely: 31.0 candidate states per event on average " \
           "(at most 31)" in out


def test_issue_33_processes_merged_by_lamport_clocks(spec, tmp_path, capsys):
    folder = tmp_path / "run"
    folder.mkdir()
    write(folder, "scheduler.ndjson", dict(TAKE, clock=1), dict(FINISH, clock=4))
    write(folder, "auditor.ndjson", {"action": "Audit", "state": {"audit": 1, "state": "running"}, "clock": 2})
    code, out, _ = run(capsys, spec, str(folder), "--json")
    r = json.loads(out)["runs"][0]
    assert code == 0 and [s["action"] for s in r["trace"][1:]] == ["Take", "Audit", "Finish"]
    assert r["trace_log_lines"][2] == f"log {folder / 'auditor.ndjson'}:1"
    # the auditor saw the job running: ordered after the finish, it cannot be matched
    write(folder, "auditor.ndjson", {"action": "Audit", "state": {"audit": 1, "state": "running"}, "clock": 5})
    code, out, _ = run(capsys, spec, str(folder))
    assert code == 14 and "auditor.ndjson:1" in out
    # timestamps, with a tolerance wide enough to let the audit go first
    write(folder, "scheduler.ndjson", dict(TAKE, time=10.0), dict(FINISH, time=10.2))
    write(folder, "auditor.ndjson", {"action": "Audit", "state": {"audit": 1, "state": "running"}, "time": 10.25})
    assert run(capsys, spec, str(folder), "--merge", "time")[0] == 14
    assert run(capsys, spec, str(folder), "--merge", "time", "--tolerance", "0.1")[0] == 0
    # merging needs the clocks
    code, out, _ = run(capsys, spec, str(folder))
    assert code == 2 and "error[E506]" in out


def test_issue_33_the_same_logs_give_byte_identical_output(spec, tmp_path, capsys):
    logs = [write(tmp_path, "a.ndjson", TAKE, {"state": {"audit": 1}}),
            write(tmp_path, "b.ndjson", TAKE, {"action": "job.take", "args": {"worker": "worker-2"}})]
    first = run(capsys, spec, *logs, "--max-gap", "2", "--json")
    assert run(capsys, spec, *logs, "--max-gap", "2", "--json") == first
    text = run(capsys, spec, *logs, "--max-gap", "2")
    assert run(capsys, spec, *logs, "--max-gap", "2") == text


def test_issue_33_the_variant_and_defines_are_used(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.spec").write_text("const N: int = 2\nvar x: int = 0\naction Inc:\n    require x < N\n"
                                     "    x = x + 1\n\nvariant Fast:\n    replace action Inc:\n        x = x + 2\n")
    log = write(tmp_path, "run.ndjson", {"action": "Inc", "state": {"x": 1}}, {"action": "Inc", "state": {"x": 2}},
                {"action": "Inc", "state": {"x": 3}})
    assert run(capsys, "c.spec", log)[0] == 14
    assert run(capsys, "c.spec", log, "-D", "N=3")[0] == 0
    code, out, _ = run(capsys, "c.spec", log, "-D", "N=3", "--variant", "Fast")
    assert code == 14 and "variant Fast" in out and "x         1         2" in out


def test_issue_33_a_time_limit_stops_with_exit_5(spec, tmp_path, capsys, monkeypatch):
    from tlacheck.engine import matcher

    log = write(tmp_path, "ok.ndjson", TAKE, FINISH)
    monkeypatch.setattr(matcher, "limit_reached", lambda *a, **k: "time_limit")
    code, out, _ = run(capsys, spec, log, "--time-limit", "1")
    assert code == 5 and "ok.ndjson: stopped (time limit)" in out


def test_issue_33_an_evaluation_error_exits_4(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.spec").write_text("var x: int = 0\naction Div:\n    x = 1 // x\n")
    log = write(tmp_path, "run.ndjson", {"action": "Div"})
    code, out, _ = run(capsys, "e.spec", log)
    assert code == 4 and "error[E407]: division by zero" in out


def test_issue_33_the_html_report(spec, tmp_path, capsys):
    ok = write(tmp_path, "ok.ndjson", TAKE, FINISH)
    bad = write(tmp_path, "bad.ndjson", TAKE, {"action": "job.take", "args": {"worker": "worker-2"}})
    code, out, _ = run(capsys, spec, ok, bad, "--max-lazy", "0", "--html", "report.html")
    assert code == 14 and "tlacheck: wrote report.html" in out
    page = (tmp_path / "report.html").read_text()
    assert "bad.ndjson: does not conform at bad.ndjson:2</h2>" in page
    assert "The frontier before it: 1 candidate state</h3>" in page
    assert "candidate 1: Take is disabled" in page and "jobs.spec:10:5: this `require` is false" in page
    # the viewer of the prefix shows each step's log line beside the spec's source
    assert 'class="log-pane"' in page and "bad.ndjson:1: {&quot;action&quot;: &quot;job.take&quot;" in page
    assert "the next event matches no step" in page
    # the frontier's note is on the last state of the prefix (notes are keyed by state number)
    steps = json.loads(re.findall(r'<script type="application/json" class="steps">(.*?)</script>', page)[-1])
    assert steps[-1]["notes"] and steps[-1]["notes"][0].startswith("The frontier: 1 candidate state")
    assert all(not s["notes"] for s in steps[:-1])
    assert "<h2>Coverage</h2>" in page and "never exercised" in page
    # deterministic, and nothing loaded from anywhere
    run(capsys, spec, ok, bad, "--max-lazy", "0", "--html", "again.html")
    assert (tmp_path / "again.html").read_text() == page
    assert 'src="http' not in page and 'href="http' not in page


def test_issue_33_processes_merged_by_vector_clocks(spec, tmp_path, capsys):
    """The scheduler's finish and the auditor's audit are concurrent (neither vector is below the
    other): both orders are tried, and the one where the audit saw the job running matches."""
    folder = tmp_path / "run"
    folder.mkdir()
    write(folder, "a.ndjson", dict(TAKE, clock={"a": 1}), dict(FINISH, clock={"a": 2}))
    write(folder, "b.ndjson", {"action": "Audit", "state": {"audit": 1, "state": "running"},
                               "clock": {"a": 1, "b": 1}})
    code, out, _ = run(capsys, spec, str(folder), "--json")
    assert code == 0 and [s["action"] for s in json.loads(out)["runs"][0]["trace"][1:]] == ["Take", "Audit", "Finish"]
    # the audit knew of the finish (a: 2): it comes after it, where the job is done, and cannot match
    write(folder, "b.ndjson", {"action": "Audit", "state": {"audit": 1, "state": "running"},
                               "clock": {"a": 2, "b": 1}})
    assert run(capsys, spec, str(folder))[0] == 14
    # mixing the kinds of clock is an error
    write(folder, "b.ndjson", {"action": "Audit", "clock": 3})
    code, out, err = run(capsys, spec, str(folder))
    assert code == 2 and "mix Lamport and vector clocks" in err


def test_issue_33_an_itf_trace_from_check_is_a_run(tmp_path, capsys, monkeypatch):
    """`check --itf` writes the counterexample as ITF; conform reads it as a run that conforms and
    shows the violation along it (12), and, with a variable dropped from it, still does."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.spec").write_text("var x: int = 0\nvar y: int = 0\naction Inc:\n    x = x + 1\n    y = y + 2\n"
                                     "invariant Small: x < 3\n")
    assert main(["check", "c.spec", "--itf", "cx.itf.json", "--quiet"]) == 12
    capsys.readouterr()
    code, out, _ = run(capsys, "c.spec", "cx.itf.json")
    assert code == 12 and "cx.itf.json: conforms, but invariant Small is violated along it" in out
    data = json.loads((tmp_path / "cx.itf.json").read_text())
    data["vars"].remove("y")
    for state in data["states"]:
        del state["y"], state["#meta"]  # a partial state, and no action names
    (tmp_path / "partial.itf.json").write_text(json.dumps(data, indent=1))
    assert run(capsys, "c.spec", "partial.itf.json")[0] == 12


def test_issue_33_a_refinement_violated_along_a_run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "abstract.spec").write_text("var n: int = 0\naction Up:\n    require n < 5\n    n = n + 1\n")
    (tmp_path / "impl.spec").write_text("var c: int = 0\naction Inc:\n    c = c + 1\naction Jump:\n    c = c + 2\n"
                                        'refines A "abstract.spec":\n    n = c\n')
    ok = write(tmp_path, "ok.ndjson", {"action": "Inc"}, {"action": "Inc"})
    bad = write(tmp_path, "bad.ndjson", {"action": "Inc"}, {"action": "Jump"})
    assert run(capsys, "impl.spec", ok)[0] == 0
    code, out, _ = run(capsys, "impl.spec", bad)
    assert code == 12
    assert "bad.ndjson: conforms, but refinement A is violated along it: a step is not a step of the abstract " \
           "spec" in out


def test_issue_32_the_html_report_names_no_folder_above_the_working_directory(tmp_path, capsys, monkeypatch):
    """Spec and logs given by absolute path, from a working directory elsewhere: the report (title,
    facts, verdicts, log lines, embedded JSON) names them as `check --html` does, never by a path
    that shows a home folder's name."""
    private = tmp_path / "home" / "alice-private"
    private.mkdir(parents=True)
    (private / "jobs.spec").write_text(SPEC)
    ok = os.path.abspath(write(private, "ok.ndjson", TAKE, FINISH))
    bad = os.path.abspath(write(private, "bad.ndjson", TAKE, {"action": "job.take", "args": {"worker": "worker-2"}}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, _ = run(capsys, str(private / "jobs.spec"), ok, bad, "--max-lazy", "0",
                     "--html", "report.html")
    assert code == 14
    page = (elsewhere / "report.html").read_text()
    assert "alice-private" not in page and str(tmp_path) not in page
    assert "<title>tlacheck conform: jobs.spec (spec Jobs" in page
    assert "bad.ndjson: does not conform at bad.ndjson:2</h2>" in page
    assert "bad.ndjson:1: {&quot;action&quot;: &quot;job.take&quot;" in page
    # from inside the folder, the same files are named relative to it
    monkeypatch.chdir(tmp_path / "home")
    run(capsys, str(private / "jobs.spec"), ok, bad, "--max-lazy", "0",
        "--html", "inside.html")
    inside = (tmp_path / "home" / "inside.html").read_text()
    assert "alice-private/bad.ndjson: does not conform at alice-private/bad.ndjson:2</h2>" in inside
    assert str(tmp_path) not in inside
