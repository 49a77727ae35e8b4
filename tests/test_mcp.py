"""`tlacheck mcp` (issue 37 item 4), driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import sys

import jsonschema
import pytest

pytest.importorskip("mcp", reason="the `mcp` extra is not installed (pip install -e '.[mcp]')")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from tlacheck.output.report import json_schema  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTIFY_RACE = str(ROOT / "specs" / "notify_race.spec")
SCHEMA = json_schema()
TOOLS = {"check": "check", "explain": "explain", "verify": "verify", "simulate": "simulate", "conform": "conform",
         "prove": "prove"}  # tool: the definition of the JSON schema its `result` is


def _valid(answer: dict, definition: str) -> dict:
    """`answer["result"]` is the command line's JSON: valid against the schema, of `definition`."""
    jsonschema.Draft202012Validator(SCHEMA).validate(answer["result"])
    sub = dict(SCHEMA, oneOf=[{"$ref": f"#/$defs/{definition}"}])
    assert jsonschema.Draft202012Validator(sub).is_valid(answer["result"])
    return answer["result"]


def _session(body):
    """Start `tlacheck mcp` as a child process, initialise a client session, run body(session)."""
    async def run():
        params = StdioServerParameters(command=sys.executable, args=["-m", "tlacheck", "mcp"], cwd=str(ROOT),
                                       env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)
    return asyncio.run(run())


def _answer(result) -> dict:
    assert not result.is_error, result
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def test_issue_37_mcp_lists_the_tools_and_resources():
    async def body(session):
        tools = await session.list_tools()
        resources = await session.list_resources()
        errors = await session.read_resource("tlacheck://docs/errors")
        return tools, resources, errors

    tools, resources, errors = _session(body)
    assert {t.name for t in tools.tools} == set(TOOLS)
    for t in tools.tools:  # each publishes the command's JSON schema as its output schema
        assert t.output_schema["properties"]["result"] == {
            "anyOf": [{"$ref": f"#/$defs/{TOOLS[t.name]}"}, {"$ref": "#/$defs/errors"}]}
        assert t.output_schema["$defs"] == SCHEMA["$defs"]
        assert t.description
    assert {"tlacheck://docs/language", "tlacheck://docs/errors", "tlacheck://schema"} <= \
        {str(r.uri) for r in resources.resources}
    assert errors.contents[0].text == (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")


def test_issue_37_mcp_check_finds_the_notify_race_and_verify_passes():
    async def body(session):
        checked = await session.call_tool("check", {"file": NOTIFY_RACE})
        verified = await session.call_tool("verify", {"files": [NOTIFY_RACE]})
        return _answer(checked), _answer(verified)

    checked, verified = _session(body)
    assert checked["exit_code"] == 12
    violation = _valid(checked, "check")["violation"]
    assert violation["name"] == "AnswerNotified"
    assert len(violation["trace"]) - 1 == 9  # steps: the states after the initial one
    assert verified["exit_code"] == 0
    assert _valid(verified, "verify")["ok"] is True
    assert {row["variant"] for row in verified["result"]["rows"]} > {"base"}


def _line_of(text: str, after: str) -> int:
    """The number of the first line of the notify race that holds `text`, after the line holding `after`."""
    lines = pathlib.Path(NOTIFY_RACE).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    return next(i for i, line in enumerate(lines) if i > start and text in line) + 1


def test_issue_37_mcp_explain_gives_numbered_steps_with_guards_and_assignments():
    async def body(session):
        return _answer(await session.call_tool("explain", {"file": NOTIFY_RACE}))

    answer = _session(body)
    assert answer["exit_code"] == 12
    result = _valid(answer, "explain")
    x = result["explanation"]
    assert (x["kind"], x["name"]) == ("invariant", "AnswerNotified")
    assert x["check"]["line"] == _line_of("invariant AnswerNotified:", "-- checks")
    assert x["check"]["text"].startswith("invariant AnswerNotified: follow == Done implies")
    steps = x["steps"]
    assert [s["state"] for s in steps] == list(range(1, 11))
    assert [s["action"] for s in steps[1:]] == [t["action"] for t in result["violation"]["trace"][1:]]
    by_action = {s["action"]: s for s in steps}
    # state 8: the old run's stop notification claims the flag the follow-on's registration cleared
    stop = by_action["EnqueueStopNotification"]
    assert stop["line"] == _line_of("action EnqueueStopNotification", "the original run")
    guards = [(g["kind"], g["holds"], g["text"]) for g in stop["guards"]]
    assert guards == [("require", True, "require runner == AfterWorktree"), ("if", True, "not claimFails()")]
    written = {c["change"]["variable"]: c["written_at"] for c in stop["changes"]}
    assert written["notified"]["line"] == _line_of("notified = true", "action EnqueueStopNotification")
    assert written["notified"]["text"] == "notified = true"
    # state 10: the follow-on's notification finds the flag taken and skips the enqueue
    last = steps[-1]
    assert last["action"] == "FollowOnNotifies"
    assert ("if", False, "not claimFails()") in [(g["kind"], g["holds"], g["text"]) for g in last["guards"]]
    assert [c["change"]["path"] for c in last["changes"]] == ["follow"]


def test_issue_37_mcp_tools_are_bounded_in_states(tmp_path):
    async def body(session):
        checked = await session.call_tool("check", {"file": NOTIFY_RACE, "max_states": 10})
        verified = await session.call_tool("verify", {"files": [NOTIFY_RACE], "max_states": 10})
        return _answer(checked), _answer(verified)

    checked, verified = _session(body)
    assert checked["exit_code"] == 5
    result = _valid(checked, "check")
    assert (result["verdict"], result["stop_reason"]) == ("incomplete", "max_states")
    assert verified["exit_code"] == 5
    result = _valid(verified, "verify")
    assert (result["verdict"], result["stop_reason"], result["ok"]) == ("incomplete", "max_states", False)


def test_issue_37_mcp_conform_matches_a_recorded_run(tmp_path):
    good, bad = tmp_path / "good.ndjson", tmp_path / "bad.ndjson"
    good.write_text('{"action": "turn.final_round"}\n{"action": "task.finished"}\n', encoding="utf-8")
    bad.write_text('{"action": "turn.final_round"}\n{"action": "worktree.read"}\n', encoding="utf-8")

    async def body(session):
        ok = await session.call_tool("conform", {"file": NOTIFY_RACE, "logs": [str(good)]})
        not_ok = await session.call_tool("conform", {"file": NOTIFY_RACE, "logs": [str(bad)]})
        return _answer(ok), _answer(not_ok)

    ok, not_ok = _session(body)
    assert ok["exit_code"] == 0 and _valid(ok, "conform")["verdict"] == "conforms"
    assert not_ok["exit_code"] == 14
    [run] = _valid(not_ok, "conform")["runs"]
    [event] = run["mismatch"]["events"]
    assert (event["file"], event["line"]) == (str(bad), 2)
    [why] = run["mismatch"]["explanations"]
    [cause] = why["causes"]
    assert (why["action"], cause["line"]) == ("WorktreeRead", _line_of("require runner == AfterClassifier",
                                                                       "action WorktreeRead"))


def test_issue_37_mcp_spec_error_is_a_structured_diagnostic(tmp_path):
    bad = tmp_path / "bad.spec"
    bad.write_text("spec T\nvar x: int =\n", encoding="utf-8")

    async def body(session):
        return _answer(await session.call_tool("check", {"file": str(bad), "max_states": 10}))

    answer = _session(body)
    assert answer["exit_code"] == 3
    [error] = _valid(answer, "errors")["errors"]
    assert (error["code"], error["file"], error["line"], error["column"]) == ("E001", str(bad), 2, 13)
    assert "Traceback" not in json.dumps(answer)


def test_issue_37_mcp_every_tool_answers_a_bad_spec_with_its_diagnostic(tmp_path):
    bad = tmp_path / "bad.spec"
    bad.write_text("spec T\nvar count: int = 0\naction Up:\n    cuont = count + 1\nexpect base holds\n",
                   encoding="utf-8")
    log = tmp_path / "run.ndjson"
    log.write_text('{"action": "Up"}\n', encoding="utf-8")
    calls = {"check": {"file": str(bad)}, "explain": {"file": str(bad)}, "verify": {"files": [str(bad)]},
             "simulate": {"file": str(bad)}, "conform": {"file": str(bad), "logs": [str(log)]},
             "prove": {"file": str(bad)}}

    async def body(session):
        return {name: _answer(await session.call_tool(name, args)) for name, args in calls.items()}

    answers = _session(body)
    for name, answer in answers.items():
        assert answer["exit_code"] == 3, name
        [error] = _valid(answer, "errors")["errors"]
        assert (error["code"], error["file"], error["line"], error["column"]) == ("E100", str(bad), 4, 5), name
        assert "count" in error["hint"]
        assert "Traceback" not in json.dumps(answer)


def test_issue_37_mcp_a_missing_file_is_a_structured_usage_error(tmp_path):
    async def body(session):
        return _answer(await session.call_tool("explain", {"file": str(tmp_path / "nope.spec")}))

    answer = _session(body)
    assert answer["exit_code"] == 2
    [error] = _valid(answer, "errors")["errors"]
    assert (error["code"], error["severity"], error["line"]) == ("usage", "error", None)
    assert "nope.spec" in error["message"]


def test_issue_37_mcp_resources_are_read_from_the_installed_package(tmp_path):
    """An installed tlacheck has no docs/ of a checkout beside it: the pages it serves ship in
    the package (they were read from the checkout's docs/, and failed once installed)."""
    from tests.conftest import installed_copy

    site = installed_copy(tmp_path / "site")
    assert not (site / "docs").exists()

    async def run():
        params = StdioServerParameters(command=sys.executable, args=["-m", "tlacheck", "mcp"], cwd=str(tmp_path),
                                       env={**os.environ, "PYTHONPATH": str(site)})
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return [(await session.read_resource(uri)).contents[0].text
                        for uri in ("tlacheck://docs/language", "tlacheck://docs/errors")]

    language, errors = asyncio.run(run())
    assert language == (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert errors == (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
