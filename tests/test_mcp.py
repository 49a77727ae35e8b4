"""`tlacheck mcp` (issue 37 item 4), driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import sys

import pytest

pytest.importorskip("mcp", reason="the `mcp` extra is not installed (pip install -e '.[mcp]')")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTIFY_RACE = str(ROOT / "specs" / "notify_race.spec")


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
    assert {"check", "verify", "simulate", "prove"} <= {t.name for t in tools.tools}
    assert {"tlacheck://docs/language", "tlacheck://docs/errors"} <= {str(r.uri) for r in resources.resources}
    assert errors.contents[0].text == (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")


def test_issue_37_mcp_check_finds_the_notify_race_and_verify_passes():
    async def body(session):
        checked = await session.call_tool("check", {"file": NOTIFY_RACE})
        verified = await session.call_tool("verify", {"files": [NOTIFY_RACE]})
        return _answer(checked), _answer(verified)

    checked, verified = _session(body)
    assert checked["exit_code"] == 12
    violation = checked["result"]["violation"]
    assert violation["name"] == "AnswerNotified"
    assert len(violation["trace"]) - 1 == 9  # steps: the states after the initial one
    assert verified["exit_code"] == 0
    assert verified["result"]["ok"] is True
    assert {row["variant"] for row in verified["result"]["rows"]} > {"base"}


def test_issue_37_mcp_spec_error_is_a_structured_diagnostic(tmp_path):
    bad = tmp_path / "bad.spec"
    bad.write_text("spec T\nvar x: int =\n", encoding="utf-8")

    async def body(session):
        return _answer(await session.call_tool("check", {"file": str(bad), "max_states": 10}))

    answer = _session(body)
    assert answer["exit_code"] == 3
    [error] = answer["result"]["errors"]
    assert (error["code"], error["file"], error["line"], error["column"]) == ("E001", str(bad), 2, 13)
    assert "Traceback" not in json.dumps(answer)
