"""`tlacheck explain` (app/explain.py, issue 37 item 4): a counterexample as numbered states with
the guards each step passed and the assignment behind each change."""

from __future__ import annotations

import json

import jsonschema

from tlacheck.app.cli import main
from tlacheck.output.report import json_schema
from tests.conftest import SPECS

SCHEMA = json_schema()
NOTIFY = str(SPECS / "notify_race.spec")
PROCESSES = str(SPECS / "notify_race_processes.spec")


def _run(capsys, args: list[str], code: int) -> str:
    assert main(args) == code
    return capsys.readouterr().out


def _json(capsys, args: list[str], code: int) -> dict:
    data = json.loads(_run(capsys, [*args, "--json", "--quiet"], code))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["command"] == "explain"
    return data


def _spec(tmp_path, text: str) -> str:
    path = tmp_path / "t.spec"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _line(path: str, text: str) -> int:
    return next(i for i, line in enumerate(open(path, encoding="utf-8"), start=1) if text in line)


def test_issue_37_explain_the_notify_race_names_the_branch_that_strands_the_answer(capsys):
    data = _json(capsys, ["explain", NOTIFY], 12)
    x = data["explanation"]
    trace = data["violation"]["trace"]  # the check's own trace, which the explanation numbers
    assert [s["state"] for s in x["steps"]] == list(range(1, len(trace) + 1))
    assert [s["action"] for s in x["steps"]] == [t["action"] for t in trace]
    for step, traced in zip(x["steps"], trace):  # the same per-entry diff as the trace
        assert [c["change"] for c in step["changes"]] == traced["changes"]
        for c in step["changes"]:
            w = c["written_at"]
            written = open(NOTIFY, encoding="utf-8").read().splitlines()[w["line"] - 1]
            assert written.split("#")[0].strip() == w["text"]
            assert w["text"].startswith(c["change"]["variable"] + " = ")
    send = next(s for s in x["steps"] if s["action"] == "SendDone")
    assert [(g["kind"], g["holds"], g["line"]) for g in send["guards"]] == [
        ("require", True, _line(NOTIFY, "require not sent")),
        ("if", False, _line(NOTIFY, "if runner == Running:")),
        ("if", True, _line(NOTIFY, "if runner != FinalRound:"))]
    notifies = x["steps"][-1]
    assert notifies["action"] == "FollowOnNotifies"
    assert [(g["kind"], g["holds"], g["text"]) for g in notifies["guards"]] == [
        ("require", True, "require follow == Answered"), ("if", False, "not claimFails()")]
    text = _run(capsys, ["explain", NOTIFY], 12)
    assert text.startswith("The invariant AnswerNotified is violated after 9 steps.\n")
    assert "State 10: FollowOnNotifies" in text
    assert f"    if not claimFails(): not taken    (line {notifies['guards'][1]['line']})" in text
    assert f"  * notified = true    (was false)    (line {_line(NOTIFY, '        notified = true')})" in text


def test_issue_37_explain_a_deadlock_says_why_each_action_is_disabled(capsys, tmp_path):
    path = _spec(tmp_path, "spec D\nvar x: int = 0\nvar y: int = 0\naction Inc:\n    require x < 2\n    x = x + 1\n"
                           "action Other:\n    require y == 1\n    y = 0\n")
    x = _json(capsys, ["explain", path], 11)["explanation"]
    assert x["kind"] == "deadlock" and x["check"] is None
    assert [(d["action"], [(g["line"], g["text"]) for g in d["guards"]]) for d in x["disabled"]] == [
        ("Inc", [(5, "require x < 2")]), ("Other", [(8, "require y == 1")])]
    text = _run(capsys, ["explain", path], 11)
    assert "No action is enabled in state 3:\n  Inc    require x < 2  (line 5)\n  Other  require y == 1  (line 8)\n" in text


def test_issue_37_explain_a_lasso_takes_the_either_branch_of_each_step(capsys, tmp_path):
    path = _spec(tmp_path, "spec L\nvar x: int = 0\naction Flip:\n    either:\n        require x == 0\n        x = 1\n"
                           "    or:\n        require x == 1\n        x = 0\nfair weak Flip\n"
                           "property Reach2: eventually x == 2\n")
    x = _json(capsys, ["explain", path], 13)["explanation"]
    assert x["loop_index"] == 0
    assert [g["text"] for g in x["steps"][1]["guards"]] == ["require x == 0"]
    closing = x["closing"]
    assert (closing["state"], closing["action"]) == (None, "Flip")
    assert [g["text"] for g in closing["guards"]] == ["require x == 1"]
    assert closing["changes"][0]["written_at"]["line"] == 9
    assert "Back to state 1: Flip" in _run(capsys, ["explain", path], 13)


def test_issue_37_explain_a_process_step_is_guarded_by_its_label(capsys):
    x = _json(capsys, ["explain", PROCESSES], 12)["explanation"]
    step = x["steps"][2]
    assert step["action"] == "TaskFinishes"
    assert step["guards"][0] == {"kind": "label", "holds": True, "file": PROCESSES,
                                 "line": _line(PROCESSES, "    TaskFinishes:"), "column": 5, "text": "TaskFinishes"}


def test_issue_37_explain_without_a_violation_prints_the_summary(capsys, tmp_path):
    path = _spec(tmp_path, "spec Ok\nvar x: 0..2 = 0\naction Inc:\n    require x < 2\n    x = x + 1\n"
                           "invariant Small: x <= 2\ndeadlock: allowed\n")
    data = _json(capsys, ["explain", path], 0)
    assert data["explanation"] is None and data["verdict"] == "ok"
    assert "\nNo error found.\n" in _run(capsys, ["explain", path], 0)


def test_issue_37_explain_stops_at_its_limits(capsys):
    data = _json(capsys, ["explain", NOTIFY, "--max-states", "5"], 5)
    assert (data["verdict"], data["stop_reason"], data["explanation"]) == ("incomplete", "max_states", None)


def test_issue_37_explain_an_evaluation_error_shows_the_steps_to_it(capsys, tmp_path):
    path = _spec(tmp_path, "spec E\nvar x: int = 0\naction Div:\n    require x < 2\n    x = x + 1\n"
                           "invariant I: 10 // (2 - x) >= 0\n")
    x = _json(capsys, ["explain", path], 4)["explanation"]
    assert (x["kind"], x["name"], x["check"]) == ("error", "E407", None)
    assert [s["state"] for s in x["steps"]] == [1, 2, 3]
    assert _run(capsys, ["explain", path], 4).startswith("Evaluation error E407 after 2 steps.\n  division by zero")
