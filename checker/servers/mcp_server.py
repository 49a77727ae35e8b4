"""`tlacheck mcp`: a Model Context Protocol server over stdio (needs the `mcp` extra).

Its tools run `tlacheck COMMAND ... --json` in a child process and return
`{"exit_code": N, "result": JSON}`, where `result` is the very JSON the command line prints; each
tool publishes it as its output schema (the command's definition of
checker/output/tlacheck.schema.json, or its `errors` object). Every tool is bounded: in states
(check and explain `--max-states`, verify's `--max-states` per variant, simulate's traces times
depth, conform by its logs, prove has no states) and in time (the command's own `--time-limit` or
`--timeout`; past it and a grace period the child is sent SIGTERM, which makes the command stop
and print what it decided, and then killed). Whatever goes wrong comes back as the schema's
`errors` object, each diagnostic with code, file, line and column (null where an error has no
place in a spec); never a traceback. Its resources are the language reference, the error
catalogue and the JSON schema (docs/agents.md).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer

from tlacheck.core.errors import Diagnostic
from tlacheck.core.files import doc
from tlacheck.output.report import errors_json, json_schema

MAX_SECONDS = 600.0
SLACK = 30.0  # seconds the child may take beyond its time bound: start-up, compiling, the report
GRACE = 10.0  # seconds between SIGTERM (the command stops and prints what it has) and killing it

INSTRUCTIONS = ("tlacheck checks .spec models (a TLA+-style language). Read the resource "
                "tlacheck://docs/language first; `check` explores every state and returns the shortest "
                "counterexample, `explain` the same counterexample as numbered steps with the guards and the "
                "assignments of each; `verify` checks every fix variant against its `expect` lines. Errors come "
                "back as `result.errors` with file, line and column; tlacheck://docs/errors explains each code.")


def run_cli(command: str, args: list[str], seconds: float) -> dict[str, Any]:
    """`tlacheck COMMAND ARGS` in a child process: its exit code and the JSON it printed. Past
    `seconds` (plus SLACK) the child is asked to stop (SIGTERM: exit 5 with the JSON of what it
    decided), past GRACE more it is killed; an answer that is no JSON becomes an errors object."""
    seconds = min(max(seconds, 1.0), MAX_SECONDS)
    child = subprocess.Popen([sys.executable, "-m", "tlacheck", command, *args], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    late = f"no answer within {seconds + SLACK:g} seconds: the command was stopped"
    smaller = "give a smaller time_limit, max_states or model (constants, -D)"
    stopped = False
    try:
        out, err = child.communicate(timeout=seconds + SLACK)
    except subprocess.TimeoutExpired:
        stopped = True
        child.send_signal(signal.SIGTERM)
        try:
            out, err = child.communicate(timeout=GRACE)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return _failed(command, None, late, "interrupted", smaller)
    try:
        result = json.loads(out)
    except json.JSONDecodeError:
        if stopped:  # a command that does not catch SIGTERM
            return _failed(command, child.returncode, late, "interrupted", smaller)
        last = (err or out).strip().splitlines()
        return _failed(command, child.returncode, last[-1] if last else "the command printed no JSON", "internal",
                       "this is a bug in tlacheck; please report it with the spec that triggered it")
    return {"exit_code": child.returncode, "result": result}


def _failed(command: str, exit_code: int | None, message: str, code: str, hint: str) -> dict[str, Any]:
    verdict = "incomplete" if code == "interrupted" else "error"
    return {"exit_code": exit_code,
            "result": errors_json([Diagnostic(code, message, None, hint)], None, verdict, command)}


def _defines(defines: dict[str, str] | None) -> list[str]:
    return [f"-D{name}={value}" for name, value in sorted((defines or {}).items())]


def output_schema(definition: str) -> dict[str, Any]:
    """The output schema a tool publishes: `exit_code`, and `result`, the command's `definition` of
    the JSON schema or its errors object (the JSON schema's own `$defs`)."""
    return {
        "type": "object",
        "required": ["exit_code", "result"],
        "properties": {
            "exit_code": {"description": "the command's exit code (docs/cli.md); null: it did not finish",
                          "type": ["integer", "null"]},
            "result": {"anyOf": [{"$ref": f"#/$defs/{definition}"}, {"$ref": "#/$defs/errors"}]},
        },
        "$defs": json_schema()["$defs"],
    }


def build_server() -> MCPServer:
    server = MCPServer("tlacheck", instructions=INSTRUCTIONS)

    def tool(definition: str):
        def register(fn):
            server.tool()(fn)
            # The SDK derives a schema from `-> dict` (any object); the one published is the JSON
            # schema's. FuncMetadata's fields are read on each call (its docstring says so), and
            # mcp 2 has no public way to give a tool its schema: tests/test_mcp.py checks it holds.
            server._tool_manager.get_tool(fn.__name__).fn_metadata.output_schema = output_schema(definition)
            return fn
        return register

    @tool("check")
    def check(file: str, variant: str = "base", max_states: int = 1_000_000, time_limit: float = 60.0,
              defines: dict[str, str] | None = None) -> dict[str, Any]:
        """Explore every reachable state of the spec FILE (breadth-first) and check its invariants,
        properties, reachable checks and deadlock; a violation comes with the shortest trace
        (`result.violation.trace`: each state, the action and what it changed). Stops at
        max_states distinct states or time_limit seconds (`result.verdict` "incomplete")."""
        return run_cli("check", [file, "--json", "--quiet", "--variant", variant, "--max-states", str(max_states),
                                 "--time-limit", str(time_limit), *_defines(defines)], time_limit)

    @tool("explain")
    def explain(file: str, variant: str = "base", max_states: int = 1_000_000, time_limit: float = 60.0,
                defines: dict[str, str] | None = None) -> dict[str, Any]:
        """Check the spec as `check` does and explain its shortest counterexample
        (`result.explanation`): numbered states, each with the action and its line, the guards
        the step passed (`require`s; `if` conditions with whether the branch was taken) and what
        it changed, entry by entry, with the assignment that wrote it; the check that fails with
        its text; for a deadlock, why each action is disabled. `result.explanation` is null when
        nothing is violated."""
        return run_cli("explain", [file, "--json", "--quiet", "--variant", variant, "--max-states", str(max_states),
                                   "--time-limit", str(time_limit), *_defines(defines)], time_limit)

    @tool("verify")
    def verify(files: list[str], max_states: int = 1_000_000, time_limit: float = 120.0,
               defines: dict[str, str] | None = None) -> dict[str, Any]:
        """Check the base spec and every fix variant named in the specs' `expect` lines; one row
        per expectation, each fix with the step of the base counterexample it blocks. Stops at
        max_states distinct states in one variant or at time_limit seconds, with the rows decided
        until then (`result.stop_reason`)."""
        return run_cli("verify", [*files, "--json", "--quiet", "--max-states", str(max_states),
                                  "--time-limit", str(time_limit), *_defines(defines)], time_limit)

    @tool("simulate")
    def simulate(file: str, variant: str = "base", traces: int = 1000, depth: int = 100, seed: int = 1,
                 time_limit: float = 60.0, defines: dict[str, str] | None = None) -> dict[str, Any]:
        """Run random behaviours of the spec, at most `traces` of `depth` steps (no proof when
        nothing is found)."""
        return run_cli("simulate", [file, "--json", "--quiet", "--variant", variant, "--traces", str(traces),
                                    "--depth", str(depth), "--seed", str(seed), "--time-limit", str(time_limit),
                                    *_defines(defines)], time_limit)

    @tool("conform")
    def conform(file: str, logs: list[str], variant: str = "base", max_gap: int = 0, time_limit: float = 60.0,
                defines: dict[str, str] | None = None) -> dict[str, Any]:
        """Check recorded runs of the real system (NDJSON logs, ITF traces, or folders of one log
        per process) against the spec (docs/conform.md): each run conforms, conforms while a check
        fails along it, or does not conform (the event, the candidate states and why no action
        takes it). `max_gap`: unlogged spec steps allowed before each event."""
        return run_cli("conform", [file, *logs, "--json", "--variant", variant, "--max-gap", str(max_gap),
                                   "--time-limit", str(time_limit), *_defines(defines)], time_limit)

    @tool("prove")
    def prove(file: str, variant: str = "base", timeout: float = 10.0,
              defines: dict[str, str] | None = None) -> dict[str, Any]:
        """Decide the spec's theorems with Z3: proved, refuted with a counterexample, or unknown
        at the timeout (seconds per theorem)."""
        return run_cli("prove", [file, "--json", "--variant", variant, "--timeout", str(timeout),
                                 *_defines(defines)], timeout * 20)

    @server.resource("tlacheck://docs/language", name="language", mime_type="text/markdown",
                     description="The spec language reference: every construct with an example")
    def language() -> str:
        return _doc("language.md")

    @server.resource("tlacheck://docs/errors", name="errors", mime_type="text/markdown",
                     description="The error catalogue: every error code, its cause and its fix")
    def errors() -> str:
        return _doc("errors.md")

    @server.resource("tlacheck://schema", name="schema", mime_type="application/schema+json",
                     description="The JSON Schema of every `result` the tools return")
    def schema() -> str:
        return json.dumps(json_schema(), indent=2)

    return server


def _doc(name: str) -> str:
    """A page of the docs the package ships (pyproject.toml: tlacheck/docs/)."""
    path = doc(name)
    if path is None:
        raise FileNotFoundError(f"docs/{name} is not installed with tlacheck: reinstall tlacheck")
    return path.read_text(encoding="utf-8")


def serve() -> None:
    build_server().run("stdio")
