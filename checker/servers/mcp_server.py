"""`tlacheck mcp`: a Model Context Protocol server over stdio (needs the `mcp` extra).

Its tools run `tlacheck COMMAND ... --json` in a child process, bounded in time (the command's
own `--time-limit` where it has one, and a hard timeout on the child) and in states, and return
`{"exit_code": N, "result": JSON}`: the very JSON the command line prints, with its schema
(checker/output/tlacheck.schema.json). A spec error comes back the same way, as the `errors`
of that JSON with file, line and column; no traceback. Its resources are the language reference
and the error catalogue (docs/agents.md).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

from mcp.server.mcpserver import MCPServer

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
MAX_SECONDS = 600.0
SLACK = 30.0  # seconds the child may take beyond its --time-limit: start-up, compiling, the report

INSTRUCTIONS = ("tlacheck checks .spec models (a TLA+-style language). Read the resource "
                "tlacheck://docs/language first; `check` explores every state and returns the shortest "
                "counterexample; `verify` checks every fix variant against its `expect` lines.")


def run_cli(args: list[str], seconds: float) -> dict:
    """`tlacheck ARGS` in a child process: its exit code and the JSON it printed."""
    seconds = min(max(seconds, 1.0), MAX_SECONDS)
    try:
        done = subprocess.run([sys.executable, "-m", "tlacheck", *args], capture_output=True, text=True,
                              timeout=seconds + SLACK, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"exit_code": None, "error": f"no answer within {seconds + SLACK:g} seconds"}
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"exit_code": done.returncode, "error": (done.stderr or done.stdout).strip()}
    return {"exit_code": done.returncode, "result": result}


def _defines(defines: dict[str, str] | None) -> list[str]:
    return [f"-D{name}={value}" for name, value in sorted((defines or {}).items())]


def build_server() -> MCPServer:
    server = MCPServer("tlacheck", instructions=INSTRUCTIONS)

    @server.tool()
    def check(file: str, variant: str = "base", max_states: int = 1_000_000, time_limit: float = 60.0,
              defines: dict[str, str] | None = None) -> dict:
        """Explore every reachable state of the spec FILE (breadth-first) and check its invariants,
        properties, reachable checks and deadlock; a violation comes with the shortest trace.
        Returns `tlacheck check --json`'s object under `result`."""
        return run_cli(["check", file, "--json", "--quiet", "--variant", variant, "--max-states", str(max_states),
                        "--time-limit", str(time_limit), *_defines(defines)], time_limit)

    @server.tool()
    def verify(files: list[str], time_limit: float = 120.0, defines: dict[str, str] | None = None) -> dict:
        """Check the base spec and every fix variant named in the specs' `expect` lines; one row
        per expectation (`tlacheck verify --json`)."""
        return run_cli(["verify", *files, "--json", "--quiet", *_defines(defines)], time_limit)

    @server.tool()
    def simulate(file: str, variant: str = "base", traces: int = 1000, depth: int = 100, seed: int = 1,
                 time_limit: float = 60.0, defines: dict[str, str] | None = None) -> dict:
        """Run random behaviours of the spec (no proof when nothing is found; `tlacheck simulate --json`)."""
        return run_cli(["simulate", file, "--json", "--quiet", "--variant", variant, "--traces", str(traces),
                        "--depth", str(depth), "--seed", str(seed), "--time-limit", str(time_limit),
                        *_defines(defines)], time_limit)

    @server.tool()
    def prove(file: str, variant: str = "base", timeout: float = 10.0, defines: dict[str, str] | None = None) -> dict:
        """Decide the spec's theorems with Z3 (`tlacheck prove --json`)."""
        return run_cli(["prove", file, "--json", "--variant", variant, "--timeout", str(timeout),
                        *_defines(defines)], timeout * 20)

    @server.resource("tlacheck://docs/language", name="language", mime_type="text/markdown",
                     description="The spec language reference")
    def language() -> str:
        return (DOCS / "language.md").read_text(encoding="utf-8")

    @server.resource("tlacheck://docs/errors", name="errors", mime_type="text/markdown",
                     description="The error catalogue: every error code, its cause and its fix")
    def errors() -> str:
        return (DOCS / "errors.md").read_text(encoding="utf-8")

    return server


def serve() -> None:
    build_server().run("stdio")
