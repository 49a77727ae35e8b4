"""The command line: the only module that prints, reads arguments or exits.

Exit codes (docs/cli.md): 0 no error, 1 internal error, 2 usage error,
3 spec error (syntax, names, types), 4 evaluation error, 5 stopped at a limit,
6 an output could not be written, 7 the Ray cluster failed, 10 an `expect` line does not hold, 11 deadlock,
12 safety violation (for `conform`: along a run that conforms), 13 liveness violation, 14 a saved trace
does not replay or a run does not conform.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import sys
import threading
import traceback

from tlacheck import __version__
from tlacheck.core.errors import ClusterError, Diagnostic, EvalError, SpecError, TlacheckError, UsageError, suggest
from tlacheck.core.result import Check, Verdict
from tlacheck.core.source import Source
from tlacheck.core.files import read_source  # noqa: F401  (tests and the pytest plugin import it from here)
from tlacheck.engine.explore import budget_unused, explore, one_process_reason, symmetry_not_applied
from tlacheck.engine.options import Options, Progress, Storage
from tlacheck.output.artefacts import run_json
from tlacheck.output.report import errors_json, format_result
from tlacheck.pipeline.driver import Pipeline, build_model


EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_SPEC = 3
EXIT_EVAL = 4
EXIT_LIMIT = 5
EXIT_OUTPUT = 6
EXIT_CLUSTER = 7
EXIT_VERIFY_FAILED = 10
EXIT_DEADLOCK = 11
EXIT_VIOLATION = 12
EXIT_LIVENESS = 13
EXIT_NO_REPLAY = 14

# What each exit code means (docs/cli.md, "Exit codes"); `--help` lists those of each command,
# with the meanings a command gives some of them in _COMMAND_EXITS.
EXIT_CODES = {
    EXIT_OK: "no error found",
    EXIT_INTERNAL: "internal error (a bug in tlacheck)",
    EXIT_USAGE: "usage error",
    EXIT_SPEC: "spec error (syntax, names, types)",
    EXIT_EVAL: "evaluation error",
    EXIT_LIMIT: "stopped at a limit, or interrupted",
    EXIT_OUTPUT: "an output could not be written",
    EXIT_CLUSTER: "--ray: the Ray cluster failed",
    EXIT_VERIFY_FAILED: "an `expect` line does not hold",
    EXIT_DEADLOCK: "deadlock",
    EXIT_VIOLATION: "safety violation (invariant, safety property, reachable check)",
    EXIT_LIVENESS: "liveness violation",
    EXIT_NO_REPLAY: "the saved trace does not replay, or a recorded run does not conform",
}
_COMMON_EXITS = (EXIT_INTERNAL, EXIT_USAGE, EXIT_SPEC, EXIT_EVAL, EXIT_OUTPUT)
_COMMAND_EXITS = {
    "check": {EXIT_LIMIT: None, EXIT_CLUSTER: None, EXIT_DEADLOCK: None, EXIT_VIOLATION: None, EXIT_LIVENESS: None},
    "explain": {EXIT_LIMIT: None, EXIT_DEADLOCK: None, EXIT_VIOLATION: None, EXIT_LIVENESS: None},
    "simulate": {EXIT_OK: "no violation found (in the behaviours run: not a proof)",
                 EXIT_LIMIT: "interrupted, or the --memory-limit reached", EXIT_DEADLOCK: None,
                 EXIT_VIOLATION: "safety violation (invariant, safety property)"},
    "verify": {EXIT_OK: "every expectation met",
               EXIT_LIMIT: "interrupted, or stopped at a limit (the rows decided are printed)",
               EXIT_VERIFY_FAILED: None},
    "prove": {EXIT_OK: "every theorem proved (--diff: computed completely)",
              EXIT_LIMIT: "a theorem unknown (timeout; --diff: stopped at the timeout)",
              EXIT_VIOLATION: "a theorem refuted"},
    "render": {EXIT_OK: "the diagrams or the report written"},
    "graph": {EXIT_OK: "the graph drawn", EXIT_LIMIT: "the graph is too large to draw"},
    "replay": {EXIT_OK: "the trace replays", EXIT_NO_REPLAY: "the saved trace does not replay"},
    "conform": {EXIT_OK: "every run conforms", EXIT_USAGE: "usage error, or a log that cannot be read",
                EXIT_LIMIT: "stopped at a limit, or interrupted",
                EXIT_VIOLATION: "a run conforms, but a check fails along the matched behaviour",
                EXIT_NO_REPLAY: "a run does not conform"},
    "counterexamples": {EXIT_OK: "every counterexample written", EXIT_VERIFY_FAILED: None},
    "tests": {EXIT_OK: "the behaviours written"},
    "mcp": {EXIT_OK: "the client closed the session"},
    "lsp": {EXIT_OK: "the editor stopped the server"},
    "new": {EXIT_OK: "the spec written (or listed, or printed)"},
    "fmt": {EXIT_OK: "every file formatted (with --check: every file already is)",
            EXIT_VERIFY_FAILED: "with --check: a file is not formatted"},
}


def exit_codes(command: str | None) -> dict[int, str]:
    """The exit codes of one command (None: of tlacheck as a whole) and their meanings."""
    if command is None:
        return dict(EXIT_CODES)
    own = _COMMAND_EXITS[command]
    codes = sorted(set(own) | set(_COMMON_EXITS) | {EXIT_OK})
    return {c: own.get(c) or EXIT_CODES[c] for c in codes}


class OutputError(TlacheckError):
    """The report, the JSON or an output file could not be written (a full disk, a read-only
    folder): exit 6, with what could not be written and why."""

    exit_code = EXIT_OUTPUT

    def __init__(self, what: str, exc: OSError, verb: str = "write"):
        self.message = f"cannot {verb} {what}: {exc.strerror or exc}"
        super().__init__(self.message)


class _Output:
    """A standard stream as the commands write to it (main installs one for stdout and stderr).

    When the reader of stdout goes away (`tlacheck check ... | head -1`: EPIPE), the rest of the
    output is dropped without a word and the run ends as it would have, with its verdict's exit
    code, so that a pipeline under `set -o pipefail` sees the verdict. Any other error writing
    stdout (ENOSPC: a full disk) is an OutputError. Errors writing stderr are ignored: there is
    nowhere left to report them. After an error the stream's descriptor is pointed at /dev/null,
    so that the interpreter's last flush of what is still buffered cannot fail (which would
    print a traceback and make the exit code 120)."""

    def __init__(self, stream, what: str | None):
        self.stream = stream
        self.what = what  # None: errors are ignored
        self.dropping = False
        self.colour = False  # set by _run once the arguments say whether (_colour)

    def write(self, text: str) -> int:
        if not self.dropping:
            self._attempt(self.stream.write, _paint(text) if self.colour else text)
        return len(text)

    def flush(self) -> None:
        if not self.dropping:
            self._attempt(self.stream.flush)

    def _attempt(self, operation, *args) -> None:
        try:
            operation(*args)
        except OSError as exc:
            self.dropping = True
            self._to_devnull()
            if self.what is not None and not isinstance(exc, BrokenPipeError):
                raise OutputError(self.what, exc) from None

    def _to_devnull(self) -> None:
        try:
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):  # not a file descriptor (a test's capture)
            return
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)

    def __getattr__(self, name):  # encoding, isatty, fileno... of the stream itself
        return getattr(self.stream, name)


# ---------------------------------------------------------------- colour

_RED, _GREEN, _YELLOW, _CYAN, _BOLD, _DIM = "31", "32", "33", "36", "1", "2"

# (pattern, style of each group): the words of a report line that colour marks, the text itself
# unchanged; a line may match several patterns.
_PAINT = tuple((re.compile(pattern, re.M), styles) for pattern, styles in (
    (r"^(Error:|Theorem \S+: refuted|The trace does not replay)", (_RED + ";" + _BOLD,)),
    (r"(?<=: )(error\[\w+\]|error)(?=: )", (_RED + ";" + _BOLD,)),
    (r"(?<=: )(warning\[\w+\]|warning)(?=: )", (_YELLOW + ";" + _BOLD,)),
    (r"^(tlacheck: )(note|stopping|interrupted)\b", (_DIM, _CYAN)),
    (r"^(  = hint:)", (_CYAN,)),
    (r"^(No error found\.|No violation found|The trace replays|Theorem \S+: proved)", (_GREEN + ";" + _BOLD,)),
    (r"^(Stopped before|Stopped while|Interrupted:|Theorem \S+: unknown)", (_YELLOW + ";" + _BOLD,)),
    (r"^((?:State|Step) \d+:)", (_BOLD,)),
    (r"^(  )([*~])( )", (None, _YELLOW, None)),
    (r"(?<=  )(FAIL) ", (_RED + ";" + _BOLD,)),
    (r"(?<=  )(ok) (?=holds|violates|proves|refutes)", (_GREEN,)),
    (r"^(\d+ of \d+ expectations met)(?=\.$)", (_GREEN + ";" + _BOLD,)),
    (r"^(\d+ of \d+ expectations met)(?=;)", (_RED + ";" + _BOLD,)),
    (r"^(progress:)", (_DIM,)),
))


_CARET = re.compile(r"^(\s+)(\^+)$")  # under the source line a diagnostic quotes


def _paint_line(line: str, caret: str) -> str:
    """One line of a report or message with its key words coloured (ANSI SGR codes); a caret line
    in the colour `caret` (that of the diagnostic it belongs to)."""
    match = _CARET.match(line)
    if match:
        return f"{match.group(1)}\033[{caret};{_BOLD}m{match.group(2)}\033[0m"
    for pattern, styles in _PAINT:
        match = pattern.match(line) if pattern.pattern.startswith("^") else pattern.search(line)
        if match is None:
            continue
        out, at = [], 0
        for i, style in enumerate(styles, start=1):
            out.append(line[at:match.start(i)])
            text = match.group(i)
            out.append(text if style is None else f"\033[{style}m{text}\033[0m")
            at = match.end(i)
        line = "".join(out) + line[at:]
    return line


def _paint(text: str) -> str:
    out = []
    caret = _RED
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        if re.search(r": (warning|error)\[\w+\]: ", body):
            caret = _YELLOW if ": warning[" in body else _RED
        out.append(_paint_line(body, caret) + line[len(body):])
    return "".join(out)


def _set_colour(want_json: bool) -> None:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, _Output):
            stream.colour = _colour(stream.stream, want_json)


def _colour(stream, want_json: bool) -> bool:
    """Whether to colour what goes to `stream`: never with --json or under NO_COLOR (set and not
    empty, https://no-color.org); always under FORCE_COLOR (set and not empty); else on a terminal
    (not TERM=dumb) only, so never into a pipe or a file. NO_COLOR wins over FORCE_COLOR, as in
    Python's own colour."""
    if want_json or os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("FORCE_COLOR", ""):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's, but the table of exit codes at the end of `--help` keeps its lines."""

    def _fill_text(self, text, width, indent):
        if text.startswith(_EXIT_HEADING):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


_EXIT_HEADING = "exit codes:"


def _exit_epilog(command: str | None) -> str:
    return "\n".join([_EXIT_HEADING] + [f"  {code:>2}  {meaning}" for code, meaning in exit_codes(command).items()])


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors raise UsageError instead of exiting from deep inside, and a
    misspelt option is matched against the options of the command it was given to (`check --bogus`
    never suggests an option of `render`); `--help` ends with the exit codes."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self._command(getattr(parsed, "command", None))
            raise UsageError(f"unrecognized arguments: {' '.join(extras)}",
                             command._unknown_hint(extras, self) or f"run `{command.prog} --help` for the options")
        return parsed

    def error(self, message):
        raise UsageError(message, self._did_you_mean(message) or f"run `{self.prog} --help` for the options")

    def _did_you_mean(self, message: str) -> str | None:
        """A did-you-mean hint for a misspelt command."""
        choice = re.match(r"argument \S+: invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if choice:
            close = suggest(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
            return f"did you mean `{close}`?" if close else None
        return None

    def _unknown_hint(self, words: list[str], top: "_Parser") -> str | None:
        """For options this (sub)command does not have: the nearest of its own options, else which
        other command has the option (`check --simulate`: `verify` has it, and `simulate` is a
        command)."""
        options = {o for a in self._actions for o in a.option_strings}
        for word in words:
            name = word.split("=")[0]
            if not name.startswith("--"):
                continue
            owners = [p.prog for p in top._commands() if p is not self
                      and name in {o for a in p._actions for o in a.option_strings}]
            command = name[2:] if name[2:] in top._command_names() else None
            if owners or command:
                named = [f"`{o}`" for o in owners]
                where = f"`{name}` is an option of {', '.join(named[:-1]) + ' and ' if named[1:] else ''}{named[-1]}" \
                    if owners else ""
                instead = f"the command `{top.prog} {command}`" if command else ""
                return (f"{where}, not of `{self.prog}`" if where else f"`{self.prog}` has no `{name}`") + \
                    (f"; did you mean {instead}?" if instead else "") + f" (`{self.prog} --help` lists its options)"
            close = suggest(name, options)
            if close:
                return f"did you mean `{close}`? (`{self.prog} --help` lists the options)"
        return None

    def _commands(self):
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                yield from action.choices.values()

    def _command_names(self) -> set[str]:
        return {name for action in self._actions if isinstance(action, argparse._SubParsersAction)
                for name in action.choices}

    def _command(self, name: str | None) -> "_Parser":
        """The parser of the subcommand `name` (this one when there is none)."""
        return next((p for p in self._commands() if p.prog.split()[-1] == name), self)

    def _parsers(self):
        yield self
        yield from self._commands()


def _build_parser() -> argparse.ArgumentParser:
    from tlacheck.engine.simulate import DEFAULT_DEPTH, DEFAULT_TRACES

    parser = _Parser(prog="tlacheck", description="A TLA+-style explicit-state model checker.")
    parser.add_argument("--version", action="version", version=f"tlacheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    check = sub.add_parser("check", help="explore every reachable state and check invariants and deadlock",
                           description="Explore every reachable state of a spec breadth-first; report the "
                                       "shortest trace to an invariant violation or a deadlock.")
    check.add_argument("file", metavar="FILE", help="the .spec file")
    _add_checks(check)
    check.add_argument("--reachable", metavar="NAME", action="append",
                       help="check this reachable check (repeatable; see --invariant)")
    check.add_argument("--max-states", type=_positive_int, metavar="N", help="stop after N distinct states")
    check.add_argument("--max-depth", type=_positive_int, metavar="N", help="stop after BFS depth N")
    _add_limits(check, "stop after this many seconds")
    check.add_argument("--workers", type=_workers, metavar="N", default=1,
                       help="explore with N processes, or `auto`: one per core (same result as one; default 1)")
    check.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                       help="explore on a Ray cluster (same result as one process): the one at ADDRESS "
                            "(host:port, or `auto`), or without it a local one; needs tlacheck[ray]")
    check.add_argument("--ray-actors", type=_positive_int, metavar="N",
                       help="with --ray: N partitions, one Ray actor each (default: one per CPU of the cluster)")
    check.add_argument("--memory-budget", type=_non_negative_int, metavar="MB",
                       help="keep at most this much of the search's queue, fingerprint table and behaviour graph "
                            "in memory and write the rest to a temporary directory (same result; 0: all of it)")
    check.add_argument("--storage", choices=("fingerprint", "exact"), default="fingerprint",
                       help="seen states as 64-bit fingerprints (default) or exactly (about 10x the memory)")
    check.add_argument("--no-symmetry", action="store_true",
                       help="store every state, not one per renaming of the `symmetric` sets (TLC without SYMMETRY)")
    check.add_argument("--no-cache", action="store_true",
                       help="evaluate every action instance, without the transition cache of the actions that "
                            "enumerate (same result; for comparing, and for timing the actions)")
    _add_counterexample_options(check)
    _add_explain_command(sub)
    _add_simulate_command(sub)
    verify = sub.add_parser("verify", help="check every variant of each spec against its `expect` lines",
                            description="For each spec, explore the base spec and every variant named in an "
                                        "`expect` line; print one table row per expectation.")
    verify.add_argument("files", metavar="FILE", nargs="+", help=".spec files")
    verify.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                        help="override a constant in every spec (repeatable)")
    verify.add_argument("--json", action="store_true", help="print the rows as JSON")
    _add_deadlock_options(verify, "an expectation on all checks (`expect V holds`) fails on a deadlock, even where "
                                  "the spec declares `deadlock: allowed`",
                          "a deadlock fails no expectation but `expect V deadlocks` (as the spec's "
                          "`deadlock: allowed` does; TLC's -deadlock)")
    verify.add_argument("--simulate", action="store_true",
                        help="decide the expectations by simulation (a violation found is real; `holds` is then "
                             "no proof; reachable checks and liveness are not decided)")
    verify.add_argument("--seed", type=_non_negative_int, metavar="N", default=1,
                        help="with --simulate: the seed (default 1)")
    verify.add_argument("--depth", type=_positive_int, metavar="N", default=DEFAULT_DEPTH,
                        help=f"with --simulate: steps per behaviour at most (default {DEFAULT_DEPTH})")
    verify.add_argument("--traces", type=_positive_int, metavar="N", default=DEFAULT_TRACES,
                        help=f"with --simulate: behaviours per variant (default {DEFAULT_TRACES:,})")
    verify.add_argument("--max-states", type=_positive_int, metavar="N",
                        help="stop when a variant's search reaches N distinct states (the rows decided before are "
                             "printed; exit 5)")
    verify.add_argument("--time-limit", type=_positive_float, metavar="SECONDS",
                        help="stop after this many seconds (the rows decided before are printed; exit 5)")
    verify.add_argument("--progress-every", type=_positive_float, metavar="SECONDS", default=5.0,
                        help="seconds between progress lines on stderr (default 5)")
    verify.add_argument("--quiet", action="store_true", help="no progress lines and no warnings of the run on stderr")
    verify.add_argument("--html", metavar="FILE",
                        help="also write the table and every counterexample as one offline HTML report to FILE "
                             "(for a fix: the step and guard that block the base counterexample)")
    prove = sub.add_parser("prove", help="decide the spec's theorems with Z3; compare functions between variants",
                           description="Decide every theorem of a spec over its whole finite domain with Z3: "
                                       "proved, refuted (with a counterexample) or unknown (timeout). "
                                       "Exit 0 when all are proved, 12 when one is refuted, 5 when one is unknown.")
    prove.add_argument("file", metavar="FILE", help="the .spec file")
    prove.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                       help="override a constant (repeatable)")
    prove.add_argument("--variant", metavar="NAME", default="base",
                       help="prove the theorems of this variant instead of the base spec")
    prove.add_argument("--theorem", metavar="NAME", action="append",
                       help="decide only this theorem (repeatable); default: all")
    prove.add_argument("--all", action="store_true",
                       help="list every counterexample, as conditions with the number of inputs each covers")
    prove.add_argument("--timeout", type=_positive_float, metavar="SECONDS", default=10.0,
                       help="Z3 time budget per theorem (or for the whole --diff); default 10")
    prove.add_argument("--diff", metavar="FUNC",
                       help="instead of proving, show the inputs where FUNC differs between --variant and --against")
    prove.add_argument("--against", metavar="VARIANT", help="the variant to compare with (for --diff)")
    prove.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of text")
    _add_counterexample_commands(sub)
    fmt = sub.add_parser("fmt", help="write specs in the canonical layout (comments kept)",
                         description="Rewrite each spec (each .spec file under a folder) in the canonical layout: "
                                     "four spaces a block, one space around operators, trailing comments aligned; "
                                     "the same tokens on the same lines, so the spec means the same "
                                     "(docs/cli.md, fmt). A spec that does not parse is not changed.")
    fmt.add_argument("paths", metavar="FILE|DIR", nargs="+", help=".spec files or folders of them")
    fmt.add_argument("--check", action="store_true",
                     help="change nothing; list the files that are not formatted and exit 10 if there are any")
    _add_new_command(sub)
    sub.add_parser("lsp", help="serve editors: diagnostics, hover, definitions, completion, rename, formatting "
                               "(Language Server Protocol, stdio)",
                   description="A language server on stdin/stdout for editors (docs/editors.md): diagnostics as you "
                               "type, hover, go to definition, references, completion, document symbols, rename, "
                               "quick fixes, formatting and semantic tokens. Needs the extra: "
                               "pip install 'tlacheck[lsp]'.")
    sub.add_parser("mcp", help="serve the tools check, verify, simulate and prove to coding agents (MCP, stdio)",
                   description="A Model Context Protocol server on stdin/stdout for coding agents "
                               "(docs/agents.md); needs the extra: pip install 'tlacheck[mcp]'.")
    for each in parser._parsers():  # before or after the command; SUPPRESS: a command's default keeps the other
        each.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                          help=f"on an internal error, also print its Python traceback (or set {DEBUG_ENV}=1)")
        each.epilog = _exit_epilog(None if each is parser else each.prog.split()[-1])
    return parser


def _add_checks(p, named: str = "--invariant, --property and --reachable") -> None:
    """-D, --json, --deadlock/--no-deadlock and the choice of checks (`named`: the options that
    choose): `check` and `simulate`."""
    p.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                   help="override a constant, e.g. -D N=4 or -D RM={r1,r2,r3,r4} (repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of text")
    _add_deadlock_options(p, "report states without successors as deadlocks, even where the spec declares "
                             "`deadlock: allowed`", "do not report states without successors (as the spec's "
                             "`deadlock: allowed` does; TLC's -deadlock)")
    p.add_argument("--invariant", metavar="NAME", action="append",
                   help=f"check this invariant (repeatable); with any of {named}, only the checks named are "
                        "made; default: all")
    p.add_argument("--property", metavar="NAME", action="append",
                   help="check this temporal property (repeatable; see --invariant)")


def _add_deadlock_options(p, on_help: str, off_help: str) -> None:
    """--deadlock and --no-deadlock: force the deadlock check on or off, whatever the spec's
    `deadlock:` says (args.deadlock: True, False, or None for the spec's choice; _checks_deadlock)."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--deadlock", dest="deadlock", action="store_const", const=True, default=None, help=on_help)
    group.add_argument("--no-deadlock", dest="deadlock", action="store_const", const=False, help=off_help)


def _checks_deadlock(args, model) -> bool:
    """Whether the run reports deadlocks: as --deadlock or --no-deadlock say, else as the spec does
    (`deadlock: allowed` turns the check off; it is on by default)."""
    return args.deadlock if args.deadlock is not None else not model.deadlock_allowed


def _unchecked_deadlock(args, model) -> str | None:
    """Why the run does not report deadlocks (None: it does), for the text report."""
    from tlacheck.app.verify import unchecked_deadlock

    return unchecked_deadlock(model, args.deadlock)


def _add_limits(p, time_help: str) -> None:
    p.add_argument("--time-limit", type=_positive_float, metavar="SECONDS", help=time_help)
    p.add_argument("--progress-every", type=_positive_float, metavar="SECONDS", default=5.0,
                   help="seconds between progress lines on stderr (default 5)")
    p.add_argument("--memory-limit", type=_positive_int, metavar="MB",
                   help="stop when the process uses more than this much resident memory")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _add_counterexample_options(p) -> None:
    p.add_argument("--full-states", action="store_true",
                   help="list every variable in every state of a trace (default: only the changed ones)")
    p.add_argument("--variant", metavar="NAME", default="base",
                   help="check this variant of the spec instead of the base spec")
    p.add_argument("--render", metavar="DIR",
                   help="write the counterexample as a Graphviz diagram (.dot and .svg) into DIR")
    _add_render_options(p, "with --render")
    p.add_argument("--itf", metavar="FILE", help="write the counterexample as an ITF trace (Apalache, Quint)")
    p.add_argument("--html", metavar="FILE",
                   help="write the counterexample as one offline HTML report (swimlanes, the states with what each "
                        "step changed, the spec's source; step through it with the keys) to FILE")


def _add_explain_command(sub) -> None:
    explain = sub.add_parser("explain", help="check a spec and explain its counterexample step by step",
                             description="Explore the spec as `check` does; explain the shortest counterexample "
                                         "found as numbered states, each with its action, the `require` guards "
                                         "it passed and what it changed, entry by entry, with the line of each "
                                         "assignment; for a deadlock, why each action is disabled. Exit codes "
                                         "as for `check`.")
    explain.add_argument("file", metavar="FILE", help="the .spec file")
    _add_checks(explain)
    explain.add_argument("--reachable", metavar="NAME", action="append",
                         help="check this reachable check (repeatable; see --invariant)")
    explain.add_argument("--variant", metavar="NAME", default="base",
                         help="check this variant of the spec instead of the base spec")
    explain.add_argument("--max-states", type=_positive_int, metavar="N", help="stop after N distinct states")
    explain.add_argument("--max-depth", type=_positive_int, metavar="N", help="stop after BFS depth N")
    _add_limits(explain, "stop after this many seconds")
    explain.set_defaults(workers=1, ray=None, ray_actors=None, storage="fingerprint", no_symmetry=False,
                         no_cache=False)


def _add_simulate_command(sub) -> None:
    from tlacheck.engine.simulate import DEFAULT_DEPTH, DEFAULT_TRACES

    sim = sub.add_parser("simulate", help="check random behaviours (for models too large to explore)",
                         description="Run random behaviours from the initial states, each step a successor chosen "
                                     "uniformly, and check every state they generate; report the first violation "
                                     "with its trace. Not a proof: a run without violation checked only these "
                                     "behaviours. Exit codes as for `check`.")
    sim.add_argument("file", metavar="FILE", help="the .spec file")
    _add_checks(sim, "--invariant and --property")
    sim.set_defaults(reachable=None)
    sim.add_argument("--seed", type=_non_negative_int, metavar="N",
                     help="seed of the random choices (default: a random one, printed); the same seed gives the "
                          "same behaviours")
    sim.add_argument("--depth", type=_positive_int, metavar="N", default=DEFAULT_DEPTH,
                     help=f"steps per behaviour at most (default {DEFAULT_DEPTH})")
    sim.add_argument("--traces", type=_positive_int, metavar="N",
                     help=f"behaviours at most (default {DEFAULT_TRACES:,}; with --time-limit: as many as fit)")
    _add_limits(sim, "end the run after this many seconds (no violation found: exit 0)")
    sim.add_argument("--no-shrink", action="store_true",
                     help="report the behaviour that found the violation as it was, without shortening it")
    _add_counterexample_options(sim)


DEBUG_ENV = "TLACHECK_DEBUG"


def _debugging(args) -> bool:
    """--debug, or TLACHECK_DEBUG set to anything but empty or 0 (also before the arguments parse)."""
    return getattr(args, "debug", False) or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def _add_render_options(p, needs: str) -> None:
    suffix = f" ({needs})" if needs else ""
    p.add_argument("--format", choices=("svg", "png"), default="svg", help=f"image format, default svg{suffix}")
    p.add_argument("--swimlanes", action="store_true",
                   help=f"also draw a swimlane diagram, one column per actor{suffix}")
    p.add_argument("--changed-only", action="store_true",
                   help=f"list only the variables each step changed (default when there are over 6){suffix}")
    p.add_argument("--all-variables", action="store_true", help=f"list every variable in every state{suffix}")


def _add_counterexample_commands(sub) -> None:
    render = sub.add_parser("render", help="draw a saved counterexample (check --json output or ITF)",
                            description="Draw a counterexample saved by `tlacheck check --json` (or an ITF trace) "
                                        "as Graphviz diagrams. The spec is the one recorded in the trace, or --spec.")
    render.add_argument("trace", metavar="TRACE", help="the saved .json or .itf.json file")
    render.add_argument("--out", metavar="DIR", help="write the .dot and image files into DIR")
    render.add_argument("--html", metavar="FILE", help="write one offline HTML report of the trace to FILE")
    render.add_argument("--spec", metavar="FILE", help="the spec (default: the file recorded in the trace)")
    render.add_argument("--variant", metavar="NAME", help="the variant (default: the one recorded in the trace)")
    render.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                        help="override a constant (default: the overrides recorded in the trace)")
    _add_render_options(render, "")
    graph = sub.add_parser("graph", help="draw the whole reachable state graph of a small model",
                           description="Draw every reachable state and transition, the counterexample (if any) "
                                       "in bold red. Refuses models with more than --max-states states.")
    graph.add_argument("file", metavar="FILE", help="the .spec file")
    graph.add_argument("--out", metavar="DIR", required=True, help="write the .dot and image files into DIR")
    graph.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                       help="override a constant (repeatable)")
    graph.add_argument("--variant", metavar="NAME", default="base", help="draw this variant of the spec")
    graph.add_argument("--format", choices=("svg", "png"), default="svg", help="image format, default svg")
    graph.add_argument("--max-states", type=_positive_int, default=300, metavar="N",
                       help="refuse graphs with more than N states (default 300)")
    _add_deadlock_options(graph, "highlight a deadlock even where the spec declares `deadlock: allowed`",
                          "do not look for a deadlock to highlight")
    graph.add_argument("--vars", metavar="A,B", help="show only these variables in the states (comma-separated)")
    graph.add_argument("--labels", choices=("auto", "full", "changes", "none"), default="auto",
                       help="full: every shown variable; changes: what differs from the state each state was "
                            "first reached from; none: numbers only (default auto: full up to 20 states)")
    graph.add_argument("--merge", action="store_true",
                       help="draw the states that agree on the --vars as one node")
    graph.add_argument("--group-by", metavar="VAR", help="frame the states of each value of VAR together")
    graph.add_argument("--max-nodes", type=_positive_int, default=100, metavar="N",
                       help="refuse to draw more than N nodes or 6N lines of labels (default 100)")
    replay = sub.add_parser("replay", help="re-execute a saved counterexample against a spec or a fixed variant",
                            description="Re-execute a saved trace (check --json output or ITF) step by step. "
                                        "Exit 0: it replays; exit 14: it does not (the report says at which step "
                                        "and which guard or assignment is responsible).")
    replay.add_argument("file", metavar="FILE", help="the .spec file")
    replay.add_argument("trace", metavar="TRACE", help="the saved .json or .itf.json file")
    replay.add_argument("--variant", metavar="NAME", default="base", help="replay against this variant")
    replay.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                        help="override a constant (default: the overrides recorded in the trace)")
    replay.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    _add_conform_command(sub)
    _add_tests_command(sub)
    cx = sub.add_parser("counterexamples", help="regenerate counterexamples/ from the specs' `expect` lines",
                        description="For every `expect VARIANT violates NAME` and `expect VARIANT deadlocks` line "
                                    "of the specs under SPECS, write the text trace, JSON, ITF, DOT and SVG into "
                                    "OUT, mirroring the folders of SPECS. Files no longer produced are removed.")
    cx.add_argument("specs", metavar="SPECS", nargs="?", default="specs", help="folder of specs (default specs)")
    cx.add_argument("--out", metavar="DIR", default="counterexamples", help="output folder (default counterexamples)")


def _add_new_command(sub) -> None:
    new = sub.add_parser("new", help="start a spec from a pattern or a property template of the library",
                         description="Write a spec of your own, started from a pattern of specs/lib/ "
                                     "(docs/patterns.md) or a property template (docs/templates.md): the "
                                     "example with its failure, its fix as a variant and their expectations, "
                                     "renamed, with the constants you give. Without --pattern or --template, on a "
                                     "terminal, it asks; without --out it prints the spec (docs/cli.md, new).")
    source = new.add_mutually_exclusive_group()
    source.add_argument("--pattern", metavar="NAME", help="start from this pattern (see --list)")
    source.add_argument("--template", metavar="NAME", help="start from this property template (see --list)")
    source.add_argument("--list", action="store_true", help="list the patterns and templates, and stop")
    new.add_argument("--out", metavar="FILE", help="write the spec here (default: print it)")
    new.add_argument("--name", metavar="NAME", help="the spec's name (default: from --out, my_jobs.spec -> MyJobs)")
    new.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                     help="set a constant's value in the spec, e.g. -D 'Clients={c1,c2,c3}' (repeatable)")
    new.add_argument("--force", action="store_true", help="overwrite --out if it exists")


def _add_spec_options(p, variant_help: str) -> None:
    """-D and --variant: which model of the spec a command reads."""
    p.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                   help="override a constant (repeatable)")
    p.add_argument("--variant", metavar="NAME", default="base", help=variant_help)


def _add_conform_command(sub) -> None:
    conform = sub.add_parser(
        "conform", help="check recorded runs of a real system (NDJSON logs, ITF traces) against the spec",
        description="Match each run (a log, or a folder of one log per process) against the spec's behaviours, "
                    "with partial states, unlogged steps and the spec's `conform:` mapping (docs/conform.md). "
                    "Exit 0: every run conforms; 12: a run conforms but a check fails along the matched behaviour; "
                    "14: a run does not conform; 2: a log cannot be read; the worst of the runs.")
    conform.add_argument("file", metavar="SPEC", help="the .spec file")
    conform.add_argument("logs", metavar="LOG", nargs="+",
                         help="an NDJSON log or ITF trace (one run), or a folder holding one log per process")
    _add_spec_options(conform, "match against this variant")
    conform.add_argument("--max-gap", type=_non_negative_int, metavar="K", default=0,
                         help="up to K unlogged spec steps before each event (of the `silent` actions, if the spec "
                              "names some); default 0")
    conform.add_argument("--max-lazy", type=_non_negative_int, metavar="N", default=1,
                         help="up to N unlogged steps of the `lazy` actions before an event that matches nothing "
                              "otherwise; default 1")
    conform.add_argument("--merge", choices=("clock", "time"), default="clock",
                         help="a folder of process logs is merged by the events' logical clocks (default) or by "
                              "their timestamps")
    conform.add_argument("--tolerance", type=_non_negative_float, metavar="SECONDS", default=0.0,
                         help="with --merge time: events of two processes closer than this may be in either order")
    conform.add_argument("--invariant", metavar="NAME", action="append",
                         help="check this invariant along the matched behaviours (repeatable); with --invariant or "
                              "--property, only the checks named; default: all")
    conform.add_argument("--property", metavar="NAME", action="append",
                         help="check this property's safety part along the matched behaviours (repeatable)")
    conform.set_defaults(reachable=None)
    conform.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of text")
    conform.add_argument("--html", metavar="FILE",
                         help="also write an offline HTML report: each run's matched behaviour beside the log and "
                              "the spec, the frontier and why no candidate takes an event")
    conform.add_argument("--full-states", action="store_true",
                         help="list every variable in every state of a trace (default: only the changed ones)")
    conform.add_argument("--time-limit", type=_positive_float, metavar="SECONDS", help="stop after this many seconds")
    conform.add_argument("--memory-limit", type=_positive_int, metavar="MB",
                         help="stop when the process uses more than this much resident memory")


def _add_tests_command(sub) -> None:
    from tlacheck.testing.generate import DEFAULT_MAX_STATES, Sampling

    tests = sub.add_parser(
        "tests", help="write behaviours of the spec that cover it, as ITF, to test an implementation with",
        description="Choose behaviours of the spec, shortest first, that together take every action (--cover "
                    "actions), also change every variable each action changes (changes), or take every distinct "
                    "transition (transitions); write each as an ITF trace with the action and its arguments per "
                    "step, and tests.json, what is covered and what could not be (docs/testing.md). A model with "
                    "more than --max-states states is sampled by simulation.")
    tests.add_argument("file", metavar="SPEC", help="the .spec file")
    tests.add_argument("--out", metavar="DIR", required=True, help="write the behaviours and tests.json into DIR")
    _add_spec_options(tests, "behaviours of this variant of the spec")
    tests.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of text "
                                                            "(tests.json's summary and what was written)")
    tests.add_argument("--cover", choices=("actions", "changes", "transitions"), default="actions",
                       help="what the behaviours cover (default actions)")
    tests.add_argument("--max", type=_positive_int, metavar="N", help="write at most N behaviours")
    tests.add_argument("--max-states", type=_positive_int, metavar="N", default=DEFAULT_MAX_STATES,
                       help=f"explore models of up to N states (default {DEFAULT_MAX_STATES:,}); sample larger ones")
    tests.add_argument("--simulate", action="store_true", help="sample behaviours by simulation even if the model is "
                                                                 "small enough to explore")
    defaults = Sampling()
    tests.add_argument("--seed", type=_non_negative_int, metavar="N", default=defaults.seed,
                       help=f"when sampling: the seed of the random choices (default {defaults.seed})")
    tests.add_argument("--traces", type=_positive_int, metavar="N", default=defaults.traces,
                       help=f"when sampling: random behaviours to choose from (default {defaults.traces:,})")
    tests.add_argument("--depth", type=_positive_int, metavar="N", default=defaults.depth,
                       help=f"when sampling: steps per random behaviour at most (default {defaults.depth})")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, not {text}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of 0 or more, not {text}")
    return value


def _workers(text: str) -> int:
    """`--workers N`, or `auto`: as many as the cores this process may run on (as TLC's)."""
    if text == "auto":
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not Linux
            return max(1, os.cpu_count() or 1)
    if not text.strip().lstrip("+-").isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number or `auto`, not {text!r}")
    return _positive_int(text)


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of 0 or more, not {text}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, not {text}")
    return value


def parse_defines(defines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in defines:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier() or not value.strip():
            raise UsageError(f"-D {item}: expected NAME=VALUE", "for example -D N=3 or -D RM={r1,r2}")
        if name in out:
            raise UsageError(f"-D {name} is given twice")
        out[name] = value.strip()
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code. Never lets a Python traceback reach the user.

    Output goes through _Output: a reader that closes stdout early does not change the exit
    code; a report or JSON that cannot be written is exit 6, as an output file that cannot be."""
    stdout, stderr = _Output(sys.stdout, "standard output"), _Output(sys.stderr, None)
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = stdout, stderr
    try:
        try:
            return _run(argv)
        finally:
            stdout.flush()  # a full disk shows here, not in the interpreter's last flush
    except OutputError as exc:
        print(f"tlacheck: error: {exc.message}", file=stderr)
        return EXIT_OUTPUT
    finally:
        stderr.flush()
        sys.stdout, sys.stderr = streams


def _report_plain(exc: UsageError | ClusterError, kind: str, verdict: str, asked: "_Asked") -> None:
    """An error without a place in a spec: its message and hint on stderr, and with --json the
    errors object (`kind` its code, `verdict` the run's) on stdout."""
    asked.errors([Diagnostic(kind, exc.message, None, exc.hint)], verdict)
    print(f"tlacheck: error: {exc.message}", file=sys.stderr)
    if exc.hint:
        print(f"  = hint: {exc.hint}", file=sys.stderr)


class _Asked:
    """What the command line asked for, as far as it is known when an error is reported: --json,
    the command and its file (guessed from the words given until the arguments are parsed, so that
    a usage error of `tlacheck check --json ...` is JSON too)."""

    def __init__(self, argv: list[str]):
        self.json = "--json" in argv
        self.command = next((a for a in argv if a in _COMMANDS), None)
        self.file = None

    def parsed(self, args) -> None:
        self.json = getattr(args, "json", False)
        self.command = args.command
        self.file = getattr(args, "file", None)

    def errors(self, diagnostics, verdict: str, path: str | None = None) -> None:
        """With --json, the errors object on stdout."""
        if self.json:
            print(json.dumps(errors_json(diagnostics, path or self.file, verdict, self.command), indent=2),
                  file=sys.stdout)


def _run(argv: list[str] | None) -> int:
    """main's command, each error rendered once with its exit code (OutputError: by main)."""
    stderr = sys.stderr
    sources: dict[str, Source] = {}
    args = None
    asked = _Asked(sys.argv[1:] if argv is None else argv)
    try:
        _set_colour(asked.json)  # a usage error comes before the arguments are parsed
        args = _build_parser().parse_args(argv)
        asked.parsed(args)
        _set_colour(asked.json)
        if args.command is None:
            _build_parser().print_help(sys.stdout)
            return EXIT_USAGE
        return _COMMANDS[args.command](args, sources)
    except OutputError:
        raise
    except SpecError as exc:
        _report_diagnostics(exc.diagnostics, sources, asked, getattr(exc, "path", None))
        return EXIT_SPEC
    except UsageError as exc:
        _report_plain(exc, "usage", "usage_error", asked)
        return EXIT_USAGE
    except EvalError as exc:
        _report_diagnostics([exc.diagnostic()], sources, asked)
        return EXIT_EVAL
    except ClusterError as exc:  # no verdict: the search did not finish
        _report_plain(exc, "cluster", "incomplete", asked)
        return EXIT_CLUSTER
    except TlacheckError as exc:  # pragma: no cover - every subclass is handled above
        print(f"tlacheck: error: {exc}", file=stderr)
        return exc.exit_code
    except KeyboardInterrupt:  # before or after the signal handlers of a search: reading, building the model
        asked.errors([Diagnostic("interrupted", "interrupted", None)], "incomplete")
        print("tlacheck: interrupted", file=stderr)
        return EXIT_LIMIT
    except MemoryError as exc:  # outside the spec's expressions (those are E411): reading, the explorer's tables
        exc.__traceback__ = None  # free the frames' locals first: the message needs a little memory
        asked.errors([Diagnostic("out_of_memory", _OUT_OF_MEMORY, None, _OUT_OF_MEMORY_HINT)], "incomplete")
        print(f"tlacheck: {_OUT_OF_MEMORY}", file=stderr)
        print(f"  = hint: {_OUT_OF_MEMORY_HINT}", file=stderr)
        return EXIT_LIMIT
    except Exception as exc:  # an internal bug: say so plainly, without a traceback
        message = f"internal error: {type(exc).__name__}: {exc}"
        asked.errors([Diagnostic("internal", message, None, _BUG_HINT)], "error")
        print(f"tlacheck: {message}", file=stderr)
        if _debugging(args):
            traceback.print_exception(exc, file=stderr)
        else:
            print(f"  = hint: {_BUG_HINT} (--debug or {DEBUG_ENV}=1 shows the Python traceback)", file=stderr)
        return EXIT_INTERNAL


_BUG_HINT = "this is a bug in tlacheck; please report it with the spec that triggered it"
_OUT_OF_MEMORY = "out of memory: the run needs more memory than this process may use"
_OUT_OF_MEMORY_HINT = ("make the model smaller (constants, --max-states, a state constraint) or allow more memory "
                       "(ulimit -v)")


def _report_diagnostics(diags, sources, asked: _Asked, path: str | None = None) -> None:
    asked.errors(diags, "error", path)
    for d in diags:
        _add_source(sources, d.span)
        print(d.render(sources), file=sys.stderr)


def _add_source(sources: dict[str, Source], span) -> None:
    """The source of a diagnostic in another file than the one checked (a spec that `refines`
    reads the abstract spec's), read again for its excerpt; none when it cannot be read."""
    if span is None or span.file in sources:
        return
    try:
        sources[span.file] = read_source(span.file)
    except TlacheckError:
        pass


class _Progress:
    """The progress lines on stderr: how long the run has gone, what it has done, and how fast it
    went since the previous line (as TLC's lines give the rate over the last interval: the rate
    since the start hides a search that slows down). `label` heads the line (verify: which variant)."""

    def __init__(self, label: str = ""):
        self.label = label
        self.last = (0.0, 0, 0)  # elapsed, count and distinct at the previous line
        self.phase = "explore"

    def _rates(self, elapsed: float, count: int, distinct: int) -> tuple[str, str]:
        then, before, distinct_before = self.last
        self.last = (elapsed, count, distinct)
        span = elapsed - then
        if span <= 0:
            return "", ""
        return f" ({(count - before) / span:,.0f}/s)", f" ({(distinct - distinct_before) / span:,.0f}/s)"

    def _print(self, elapsed: float, text: str) -> None:
        print(f"progress: {_clock(elapsed)} {self.label}{text}", file=sys.stderr, flush=True)

    def search(self, p: Progress) -> None:
        if p.phase != self.phase:  # the analysis of temporal properties counts transitions anew
            self.phase, self.last = p.phase, (p.elapsed_s, 0, 0)
        if p.phase == "liveness":
            self._print(p.elapsed_s, f"search complete ({p.distinct:,} distinct states, {p.generated:,} "
                                     "transitions); checking the temporal properties")
            return
        generated, distinct = self._rates(p.elapsed_s, p.generated, p.distinct)
        self._print(p.elapsed_s, f"{p.generated:,} generated{generated}, {p.distinct:,} distinct{distinct}, "
                                 f"{p.queue:,} on queue, depth {p.depth}")

    def simulation(self, p) -> None:
        behaviours, _ = self._rates(p.elapsed_s, p.behaviours, p.distinct)
        self._print(p.elapsed_s, f"{p.behaviours:,} behaviours{behaviours}, {p.states_visited:,} states visited "
                                 f"({p.distinct:,} distinct)")


def _clock(seconds: float) -> str:
    """Elapsed time as h:mm:ss."""
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event):
    """Ctrl-C or SIGTERM: ask the explorer to stop cleanly (summary, valid JSON, exit 5);
    a second Ctrl-C quits at once."""

    def handler(signum, frame):
        if stop.is_set():
            os._exit(130)
        stop.set()
        print("\ntlacheck: stopping (Ctrl-C again to quit at once)",
              file=sys.stderr, flush=True)

    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        for sig in previous:
            signal.signal(sig, handler)
    except ValueError:  # not the main thread (e.g. inside a test runner thread): no handlers
        yield
        return
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _selection(args, model) -> tuple:
    """The invariants, temporal properties and reachable checks to make (None: all of that kind).
    With none of --invariant, --property and --reachable: all checks; with any of them, only the
    checks named (so `--invariant Inv` on a spec with properties checks Inv alone, in fingerprint
    storage, and `--property P` checks P alone). An unknown name is a usage error."""
    flags = (("--invariant", args.invariant, "invariant", "invariants", [n for n, _ in model.invariants]),
             ("--property", args.property, "property", "properties",
              [p.name for p in model.properties] + [n for n, _ in model.steps]),
             ("--reachable", args.reachable, "reachable check", "reachable checks", [n for n, _ in model.reachables]))
    if not any(given for _, given, _, _, _ in flags):
        return None, None, None
    for flag, given, kind, kinds, known in flags:
        for name in given or ():
            if name not in known:
                hint = suggest(name, known)
                raise UsageError(f"{flag} {name}: the spec has no {kind} named `{name}`",
                                 f"did you mean `{hint}`?" if hint else f"its {kinds}: {', '.join(known) or 'none'}")
    return tuple(tuple(dict.fromkeys(given or ())) for _, given, _, _, _ in flags)


def _load(args, sources: dict[str, Source]):
    """`check` and `simulate`: the source, the model of the variant asked for, the checks chosen
    (_selection); the spec's static warnings are printed."""
    overrides = parse_defines(args.defines)
    source = read_source(args.file)
    sources[source.name] = source
    model = build_model(source, overrides, args.variant)
    selection = _selection(args, model)
    for w in model.warnings:
        print(w.render(sources), file=sys.stderr)
    return source, model, selection


def _check_ray_options(args) -> None:
    """--ray goes with one process per partition; --ray-actors with --ray (the search refuses what
    else --ray cannot do: engine/cluster.py explore_on_ray)."""
    if args.ray_actors is not None and args.ray is None:
        raise UsageError("--ray-actors needs --ray", "add --ray (a local cluster) or --ray ADDRESS")
    if args.ray is None:
        return
    if args.workers != 1:
        raise UsageError("--ray and --workers are two ways to explore in parallel: choose one",
                         "drop --workers: --ray-actors N sets the partitions of the cluster")


class _Notices:
    """The run's own warnings and notes (about this run, not the spec's text): each printed on
    stderr as it comes (warnings not with --quiet), and listed in `--json`'s `warnings` with code,
    file, line and column null."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.json: list[dict] = []

    def add(self, message: str, hint: str | None = None, severity: str = "warning") -> None:
        self.json.append(Diagnostic(None, message, None, hint, severity).to_json())
        if not (self.quiet and severity == "warning"):
            print(f"tlacheck: {severity}: {message}" + (f"\n  = hint: {hint}" if hint else ""), file=sys.stderr,
                  flush=True)


def _check(args, sources: dict[str, Source]) -> int:
    notices = _Notices(args.quiet)
    source, model, result = _explore(args, sources, notices)

    def more_json(data: dict) -> None:
        data["warnings"] += notices.json

    return _conclude(args, model, result, source, sources,
                     lambda: format_result(model, result, args.file, args.full_states, _unchecked_deadlock(args, model)),
                     more_json)


def _explore(args, sources: dict[str, Source], notices: "_Notices"):
    """`check` and `explain`: the source, the model and the Result of the search the arguments ask for."""
    source, model, (invariants, properties, reachables) = _load(args, sources)
    options = Options(
        check_deadlock=_checks_deadlock(args, model),
        max_states=args.max_states,
        max_depth=args.max_depth,
        time_limit=args.time_limit,
        memory_limit_mb=args.memory_limit,
        memory_budget_mb=getattr(args, "memory_budget", None),
        stop=threading.Event(),
        # the early memory estimate (docs/cli.md, Memory estimate)
        warn=lambda estimate: notices.add(estimate.message(), estimate.hint),
        invariants=invariants,
        properties=properties,
        reachables=reachables,
        workers=args.workers,
        storage=Storage(args.storage),
        symmetry=not args.no_symmetry,
        cache=not args.no_cache,
        ray=args.ray,
        ray_actors=args.ray_actors,
    )
    _check_ray_options(args)
    _nothing_to_check(args, model, notices)
    unreduced = symmetry_not_applied(model, options)
    if unreduced is not None:
        notices.add(f"symmetry is not applied: {unreduced}")
    single = one_process_reason(options) if options.workers > 1 else None
    if single is not None:
        notices.add(f"--workers {options.workers} has no effect on this run: {single}")
    unbounded = budget_unused(options)
    if unbounded is not None:
        notices.add(unbounded, "drop --ray, or use --workers N on one machine, to spill to disk", severity="note")
    with _stop_on_signals(options.stop):
        result = explore(model, options, progress=None if args.quiet else _Progress().search,
                         progress_every=args.progress_every)
    return source, model, result


def _explain(args, sources: dict[str, Source]) -> int:
    """`tlacheck explain FILE`: the search of `check`, its counterexample explained step by step."""
    from tlacheck.app.explain import explain, explain_json, format_explanation

    notices = _Notices(args.quiet)
    source, model, result = _explore(args, sources, notices)

    def source_of(name: str) -> Source | None:  # an imported file's text, for its lines
        if name not in sources:
            try:
                sources[name] = read_source(name)
            except TlacheckError:
                return None
        return sources[name]

    x = None if result.violation is None else explain(model, result.violation, source_of)
    if args.json:
        data = run_json(model, result, args.file, args.variant, parse_defines(args.defines),
                        deadlock_checked=_checks_deadlock(args, model))
        data["command"] = "explain"
        data["warnings"] += notices.json
        data["explanation"] = None if x is None else explain_json(model, x)
        print(json.dumps(data, indent=2))
    elif x is not None:
        print(format_explanation(model, x), end="")
    else:
        print(format_result(model, result, args.file, False, _unchecked_deadlock(args, model)), end="")
    if result.verdict == Verdict.ERROR and result.error is not None:
        print(result.error.diagnostic().render(sources), file=sys.stderr)
    return result.verdict.exit_code


def _nothing_to_check(args, model, notices: _Notices) -> None:
    """`check` and `simulate` of every check of a spec that has none, deadlocks unchecked: say so."""
    from tlacheck.app.verify import nothing_to_check, nothing_to_check_hint

    if args.invariant or args.property or getattr(args, "reachable", None):
        return
    message = nothing_to_check(model, _unchecked_deadlock(args, model))
    if message is not None:
        notices.add(message, nothing_to_check_hint(model))


def _conclude(args, model, result, source: Source, sources: dict[str, Source], text_report, more_json) -> int:
    """`check` and `simulate` after the run: print the report (`text_report()`, or with --json the
    `check --json` object completed by `more_json(data)`), the evaluation error, write the
    counterexample files asked for; the verdict's exit code."""
    try:
        if args.json:
            data = run_json(model, result, args.file, args.variant, parse_defines(args.defines),
                            deadlock_checked=_checks_deadlock(args, model))
            more_json(data)
            text = json.dumps(data, indent=2) + "\n"
        else:
            text = text_report()
    except MemoryError:  # states too large to print (after E411, say): the report without the trace
        text = _report_without_trace(model, result, args)
    print(text, end="")
    if result.verdict == Verdict.ERROR and result.error is not None:
        print(result.error.diagnostic().render(sources), file=sys.stderr)
    if args.render or args.itf or args.html:
        _write_counterexample(args, model, result, source)
    return result.verdict.exit_code


def _simulate(args, sources: dict[str, Source]) -> int:
    """`tlacheck simulate FILE`: random behaviours; exit codes as for `check`."""
    import random

    from tlacheck.engine.simulate import DEFAULT_TRACES, SimOptions, simulate
    from tlacheck.output.report import add_simulation_json, format_simulation

    source, model, (invariants, properties, _) = _load(args, sources)
    notices = _Notices(args.quiet)
    _nothing_to_check(args, model, notices)
    for note in _simulation_notes(model, properties, args.invariant or args.property):
        notices.add(note, severity="note")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    if args.traces is not None:
        traces = args.traces
    else:  # a time limit alone: as many behaviours as fit in it
        traces = DEFAULT_TRACES if args.time_limit is None else None
    options = SimOptions(seed=seed, depth=args.depth, traces=traces, time_limit=args.time_limit,
                         memory_limit_mb=args.memory_limit, stop=threading.Event(), check_deadlock=_checks_deadlock(args, model),
                         invariants=invariants, properties=properties, shrink=not args.no_shrink)
    with _stop_on_signals(options.stop):
        result = simulate(model, options, progress=None if args.quiet else _Progress().simulation,
                          progress_every=args.progress_every)

    def more_json(data: dict) -> None:
        add_simulation_json(data, result)
        data["warnings"] += notices.json

    return _conclude(args, model, result, source, sources, lambda: format_simulation(model, result, args.file,
                                                                                     args.full_states), more_json)


def _simulation_notes(model, properties, chosen) -> list[str]:
    """What `simulate` leaves unchecked of what was asked: the liveness of temporal properties,
    reachable checks (all of them are asked when no check is named)."""
    notes = []
    for p in model.properties:
        if p.has_liveness and (properties is None or p.name in properties):
            notes.append(f"temporal property {p.name}: simulate checks no liveness (`eventually`, `leads_to`), "
                         "only safety (`always P`, on every state); `tlacheck check` decides it")
    reachables = [n for n, _ in model.reachables]
    if reachables and not chosen:
        notes.append(f"simulate does not decide reachable checks ({', '.join(reachables)}): a run without a "
                     "witness proves nothing; `tlacheck check` decides them")
    return notes


def _report_without_trace(model, result, args) -> str:
    """The `check` report when its trace cannot be formatted in the memory left."""
    from tlacheck.output.report import format_summary

    if args.json:
        data = errors_json([result.error.diagnostic()] if result.error is not None else [], args.file,
                           result.verdict.value, args.command)
        data["trace"] = None
        data["trace_omitted"] = "out of memory"
        data["note"] = _TRACE_TOO_LARGE
        return json.dumps(data, indent=2) + "\n"
    return (f"tlacheck {__version__}: checking {args.file} (spec {model.name})\n\n{_TRACE_TOO_LARGE}\n\n"
            f"{format_summary(model, result)}")


_TRACE_TOO_LARGE = "The trace is too large to print: formatting its states ran out of memory."


def _verify(args, sources: dict[str, Source]) -> int:
    """`tlacheck verify`: exit 0 every expectation met, 10 one failed; stopped (Ctrl-C, SIGTERM),
    the rows decided until then and exit 5."""
    from tlacheck.output.report import format_verify, verify_json
    from tlacheck.app.verify import Reporting, verify_source

    from tlacheck.engine.simulate import SimOptions

    overrides = parse_defines(args.defines)
    simulation = SimOptions(seed=args.seed, depth=args.depth, traces=args.traces) if args.simulate else None
    notices = _Notices(args.quiet)

    def warn(diagnostic) -> None:
        if diagnostic.code is None:  # the run's: nothing to check, symmetry not applied
            notices.add(diagnostic.message, diagnostic.hint, diagnostic.severity)
        else:
            print(diagnostic.render(sources), file=sys.stderr)
            notices.json.append(diagnostic.to_json())

    def progress(path: str):
        def per_variant(variant: str):
            report = _Progress(f"{path}, variant {variant}: ")
            return None if args.quiet else report.simulation if simulation is not None else report.search
        return per_variant

    rows = []
    stop = threading.Event()
    pipeline = Pipeline()  # a file the specs share (an import, an abstract spec) is parsed once
    reason = {"why": "interrupted"}  # unless a limit stops the run first

    def out_of_time() -> None:
        reason["why"] = "time_limit"
        stop.set()

    timer = threading.Timer(args.time_limit, out_of_time) if args.time_limit else None
    with _stop_on_signals(stop):
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            for path in args.files:
                source = read_source(path)
                sources[source.name] = source
                reporting = Reporting(warn=warn, progress=progress(path), progress_every=args.progress_every,
                                      stop=stop, max_states=args.max_states)
                rows += verify_source(source, dict(overrides), simulation, args.deadlock, reporting, pipeline)
                if reporting.stop_reason is not None:
                    reason["why"] = reporting.stop_reason
                if stop.is_set():
                    break
        finally:
            if timer is not None:
                timer.cancel()
    stop_reason = reason["why"] if stop.is_set() else None
    interrupted = stop_reason is not None
    if args.json:
        print(json.dumps(verify_json(rows, notices.json, stop_reason), indent=2))
    else:
        print(format_verify(rows, simulation, stop_reason), end="")
    if args.html:
        from tlacheck.output import artefacts

        _write_text(args.html, artefacts.verify_html(rows, sources, overrides, simulated=simulation is not None))
        print(f"tlacheck: wrote {args.html}", file=sys.stderr)
    if interrupted:
        return EXIT_LIMIT
    return 0 if all(r.ok or r.unchecked for r in rows) else EXIT_VERIFY_FAILED


def _prove(args, sources: dict[str, Source]) -> int:
    """`tlacheck prove`: exit 0 all proved (or the diff finished), 12 one refuted, 5 one unknown."""
    from tlacheck.prove import smt  # z3 is loaded only for this command
    from tlacheck.prove.proof import Outcome, diff_json, format_diff, format_proofs, proofs_json

    if (args.diff is None) != (args.against is None):
        raise UsageError("--diff FUNC and --against VARIANT go together",
                         "for example: --diff async_launch --against Fix1")
    if args.diff is not None and (args.all or args.theorem):
        raise UsageError("--diff compares functions; it does not take --all or --theorem")
    overrides = parse_defines(args.defines)
    source = read_source(args.file)
    sources[source.name] = source
    pipeline = Pipeline()  # both variants from one parse
    model = pipeline.build(source, dict(overrides), args.variant)
    if args.diff is not None:
        other = pipeline.build(source, dict(overrides), args.against)
        result = smt.diff(model, other, args.diff, args.variant, args.against, args.timeout)
        if args.json:
            print(json.dumps(diff_json(result, __version__, args.file), indent=2))
        else:
            print(format_diff(result, __version__, args.file), end="")
        return EXIT_OK if result.complete else EXIT_LIMIT
    report = smt.prove(model, args.timeout, args.all, args.theorem, args.variant)
    for w in report.warnings:
        print(w.render(sources), file=sys.stderr)
    if args.json:
        print(json.dumps(proofs_json(report, __version__), indent=2))
    else:
        print(format_proofs(report, __version__, args.all), end="")
    return {Outcome.PROVED: EXIT_OK, Outcome.REFUTED: EXIT_VIOLATION, Outcome.UNKNOWN: EXIT_LIMIT}[report.outcome]


# ---------------------------------------------------------------- counterexamples: diagrams, ITF, replay

_NO_DOT = ("tlacheck: the `dot` program is not installed, so only .dot files were written: install Graphviz "
           "(Debian/Ubuntu `apt-get install graphviz`, macOS `brew install graphviz`) or run "
           "`dot -Tsvg FILE.dot -o FILE.svg`")


def _write_text(path, text: str) -> None:
    from pathlib import Path

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    except OSError as exc:
        raise OutputError(str(path), exc) from None


def _write_bytes(path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise OutputError(str(path), exc) from None


def _write_diagrams(out_dir: str, stem: str, dots: dict[str, str], fmt: str) -> tuple[list[str], bool]:
    """Write each DOT source and, with the `dot` program, its image. Returns the paths written
    (as the user would type them) and whether `dot` was missing."""
    import os

    from tlacheck.output import render
    from tlacheck.output.artefacts import inside

    written, missing = [], False
    for suffix, source in dots.items():
        path = inside(out_dir, stem + suffix)
        _write_text(path, source)
        written.append(os.path.join(out_dir, stem + suffix))
        if missing:
            continue
        try:
            data = render.image(source, fmt)
        except render.DotMissing:
            missing = True
            continue
        image = inside(out_dir, stem + suffix.removesuffix(".dot") + "." + fmt)  # not through a planted symlink
        _write_bytes(image, data)
        written.append(os.path.join(out_dir, image.name))
    return written, missing


def _write_counterexample(args, model, result, source) -> None:
    """`check --render DIR`, `check --itf FILE` and `check --html FILE` (and the same of simulate)."""
    from tlacheck.output import artefacts
    from tlacheck.output import html
    from tlacheck.output import itf

    v = result.violation
    if v is None or not v.trace.steps:
        print("tlacheck: no counterexample to write", file=sys.stderr)
        return
    if args.render:
        stem = artefacts.stem(artefacts.spec_stem(args.file), args.variant, artefacts.property_name(v))
        dots = artefacts.diagrams(model, v, source, _view(args),
                                  True if args.swimlanes else None)
        written, missing = _write_diagrams(args.render, stem, dots, args.format)
        print(f"tlacheck: wrote {', '.join(written)}", file=sys.stderr)
        if missing:
            print(_NO_DOT, file=sys.stderr)
    if args.html:
        doc = artefacts.html_doc(model, v, source, args.file, args.variant, parse_defines(args.defines), result,
                                 deadlock_checked=_checks_deadlock(args, model))
        _write_text(args.html, html.trace_report(doc))
        print(f"tlacheck: wrote {args.html}", file=sys.stderr)
    if args.itf:
        data = itf.trace_itf(model, v.trace, source=args.file, status=artefacts.STATUS.get(v.kind, "violation"),
                             kind=v.kind, name=v.name, variant=args.variant)
        _write_text(args.itf, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"tlacheck: wrote {args.itf}", file=sys.stderr)


def _view(args):
    from tlacheck.output import render

    return render.View(changed_only=True if args.changed_only else False if args.all_variables else None)


def _read_json(path: str):
    from tlacheck.core.values import int_from_text

    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh, parse_int=int_from_text)  # json.load refuses numbers of over 4300 digits
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}",
                         "give the output of `tlacheck check --json` or an ITF trace") from None


def _recorded(data) -> tuple[str | None, str | None, dict]:
    """The spec file, variant and `-D` overrides a saved trace records (tlacheck JSON or ITF)."""
    from tlacheck.output import itf

    if itf.is_itf(data):
        meta = data.get("#meta") if isinstance(data.get("#meta"), dict) else {}
        return meta.get("source"), meta.get("variant"), {}
    if isinstance(data, dict):
        defines = data.get("defines") if isinstance(data.get("defines"), dict) else {}
        return data.get("file"), data.get("variant"), {str(k): str(v) for k, v in defines.items()}
    return None, None, {}


def _load_saved(data, model, path: str):
    from tlacheck.output import savedtrace

    try:
        return savedtrace.load(data, model)
    except savedtrace.TraceFileError as exc:
        raise UsageError(f"{path}: {exc}", "give the output of `tlacheck check --json` or an ITF trace") from None


def _render(args, sources: dict[str, Source]) -> int:
    """`tlacheck render TRACE --out DIR`: diagrams of a saved counterexample."""
    from tlacheck.output import artefacts
    from tlacheck.output import savedtrace
    from tlacheck.core.result import Violation

    if not args.out and not args.html:
        raise UsageError("render needs --out DIR (diagrams) or --html FILE (a report), or both",
                         f"for example: tlacheck render {args.trace} --out diagrams")
    data = _read_json(args.trace)
    spec_file, variant, defines = _recorded(data)
    spec_file = args.spec or spec_file
    if not spec_file:
        raise UsageError(f"{args.trace} does not say which spec it comes from", "give the spec with --spec FILE")
    variant = args.variant or variant or "base"
    overrides = parse_defines(args.defines) if args.defines else defines
    source = read_source(spec_file)
    sources[source.name] = source
    model = build_model(source, dict(overrides), variant)
    saved = _load_saved(data, model, args.trace)
    try:
        trace = savedtrace.to_trace(saved, model)
    except savedtrace.TraceFileError as exc:
        raise UsageError(f"{args.trace}: {exc}", "render it with the spec it was saved from (--spec, --variant), "
                         "or check that it still replays with `tlacheck replay`") from None
    violation = Violation(saved.kind or Check.TRACE, saved.name, trace)
    if args.html:
        from tlacheck.output import html

        doc = artefacts.html_doc(model, violation, source, spec_file, variant, dict(overrides), fault=saved.fault)
        _write_text(args.html, html.trace_report(doc))
        print(f"tlacheck: wrote {args.html}")
    if args.out:
        stem = artefacts.stem(artefacts.spec_stem(spec_file), variant, artefacts.property_name(violation))
        dots = artefacts.diagrams(model, violation, source, _view(args),
                                  True if args.swimlanes else None)
        written, missing = _write_diagrams(args.out, stem, dots, args.format)
        print(f"tlacheck: wrote {', '.join(written)}")
        if missing:
            print(_NO_DOT, file=sys.stderr)
    return EXIT_OK


def _graph(args, sources: dict[str, Source]) -> int:
    """`tlacheck graph FILE --out DIR`: the whole reachable state graph, the counterexample highlighted;
    above --max-nodes nodes (or 6 times as many label lines) a refusal with advice instead."""
    from tlacheck.output import artefacts
    from tlacheck.output import render
    from tlacheck.engine import stategraph
    from tlacheck.core.runtime import Fault

    overrides = parse_defines(args.defines)
    source = read_source(args.file)
    sources[source.name] = source
    model = build_model(source, overrides, args.variant)
    shown = _graph_variables(args, model)
    try:
        graph = stategraph.build(model, args.max_states)
        bad = frozenset(i for i, s in enumerate(graph.states) if not all(inv(s) for _, inv in model.invariants))
    except stategraph.TooLarge as exc:
        count = f"{exc.count:,}" if exc.exact else f"more than {exc.count:,}"
        print(f"tlacheck: the state graph of {model.name} has {count} reachable states; `tlacheck graph` draws "
              f"at most {args.max_states:,}", file=sys.stderr)
        print("  = hint: make the model smaller with -D, raise --max-states (big graphs are hard to read), "
              "or draw just the counterexample with `tlacheck check --render DIR`", file=sys.stderr)
        return EXIT_LIMIT
    except Fault as fault:
        raise model.eval_error(fault) from None
    except (RecursionError, MemoryError) as exc:
        raise model.limit_error(exc, "building the state graph") from None
    view = render.GraphView(variables=shown, labels=args.labels, group_by=args.group_by)
    if args.merge:
        merged = stategraph.merge(graph, tuple(model.var_names.index(n) for n in shown))
        view = render.GraphView(variables=shown, labels=args.labels, group_by=args.group_by,
                                sizes=tuple(len(m) for m in merged.members),
                                node_of={s: merged.node_of[i] for i, s in enumerate(graph.states)})
        bad = frozenset(merged.node_of[i] for i in bad)
        states = len(graph.states)
        graph = merged.graph
    lines = sum(len(label) for label in render.graph_labels(model, graph, view))
    if len(graph.states) > args.max_nodes or lines > 6 * args.max_nodes:
        print(_too_big_to_draw(args, model, graph, view, lines, states if args.merge else None), file=sys.stderr)
        return EXIT_LIMIT
    result = explore(model, Options(check_deadlock=_checks_deadlock(args, model)))
    v = result.violation
    headline = artefacts.headline(model, v, source) if v is not None and v.trace.steps else None
    shape = stategraph.shape(graph)
    dot = render.state_graph_dot(model, graph, headline, v.trace if headline else None, bad, shape=shape, view=view)
    stem = ".".join((artefacts.safe_part(artefacts.spec_stem(args.file)), artefacts.safe_part(args.variant), "graph"))
    written, missing = _write_diagrams(args.out, stem, {".dot": dot}, args.format)
    print(f"tlacheck: {render.shape_text(graph, shape, (shown, states) if args.merge else None)}; "
          f"wrote {', '.join(written)}")
    if missing:
        print(_NO_DOT, file=sys.stderr)
    return EXIT_OK


def _graph_variables(args, model) -> tuple[str, ...]:
    """The variables `graph` shows (--vars, checked against the spec), and a check of --group-by
    and --merge."""
    names = model.var_names
    shown = names
    if args.vars is not None:
        shown = tuple(dict.fromkeys(n.strip() for n in args.vars.split(",") if n.strip()))
        if not shown:
            raise UsageError("--vars names no variable", f"for example --vars {','.join(names[:2])}")
    for n in shown + ((args.group_by,) if args.group_by else ()):
        if n not in names:
            close = suggest(n, names)
            raise UsageError(f"{model.name} has no variable `{n}`" + (f" (did you mean `{close}`?)" if close else ""),
                             f"its variables: {', '.join(names)}")
    if args.merge and args.vars is None:
        raise UsageError("--merge needs --vars: the states that agree on those variables become one node",
                         f"for example --vars {names[0]} --merge")
    if args.merge and args.group_by and args.group_by not in shown:
        raise UsageError(f"with --merge, --group-by {args.group_by} must be one of the --vars "
                         "(a merged node may stand for several of its values)")
    return shown


def _too_big_to_draw(args, model, graph, view, lines: int, states: int | None) -> str:
    """The refusal of a graph too big to read, with the options that make it smaller."""
    nodes = len(graph.states)
    what = f"{nodes:,} nodes" + (f" (merged from {states:,} states)" if states is not None else "")
    out = [f"tlacheck: the state graph of {model.name} would be {what} with {lines:,} lines of labels: too large "
           f"to read (at most {args.max_nodes:,} nodes and {6 * args.max_nodes:,} lines; --max-nodes N raises both)"]
    hints = []
    if nodes > args.max_nodes:
        hints.append("merge on fewer variables" if args.merge else
                     "draw the states that agree on some variables as one node with --vars A,B --merge")
    if lines > 6 * args.max_nodes:
        if args.vars is None:
            hints.append(f"show fewer variables with --vars (it has {len(model.var_names)}: "
                         f"{', '.join(model.var_names)})")
        mode = view.label_mode(graph)
        if mode != "none":
            hints.append(("label each state with what changed only (--labels changes) or " if mode == "full" else
                          "label each state ") + "with its number only (--labels none)")
    hints.append("make the model smaller with -D, or draw just the counterexample with `tlacheck check --render DIR`")
    out.append("  = hint: " + "; ".join(hints))
    return "\n".join(out)


def _replay(args, sources: dict[str, Source]) -> int:
    """`tlacheck replay FILE TRACE`: exit 0 when the trace replays, 14 when it does not."""
    from tlacheck.conform.replayer import replay
    from tlacheck.output.report import replay_json

    data = _read_json(args.trace)
    _, _, defines = _recorded(data)
    overrides = parse_defines(args.defines) if args.defines else defines
    source = read_source(args.file)
    sources[source.name] = source
    model = build_model(source, dict(overrides), args.variant)
    saved = _load_saved(data, model, args.trace)
    result = replay(model, saved)
    if args.json:
        print(json.dumps(replay_json(result, args.file, args.trace, args.variant), indent=2))
    else:
        print(_replay_text(result, args, model, saved, sources), end="")
    return EXIT_OK if result.replays else EXIT_NO_REPLAY


def _replay_text(result, args, model, saved, sources) -> str:
    from tlacheck.output.replay import quote_cause

    out = [f"tlacheck {__version__}: replaying {args.trace} against {args.file} "
           f"(spec {model.name}, variant {args.variant})", ""]
    if result.replays:
        n = result.total_steps
        out.append(f"The trace replays: all {n} step{'s' if n != 1 else ''} are enabled and reach the recorded "
                   "states.")
        if result.still_violates is True:
            out.append(f"Its last state still violates invariant {saved.name}.")
        elif result.still_violates is False:
            out.append(f"Its last state no longer violates invariant {saved.name}.")
    else:
        out.append(f"The trace does not replay: {result.message}.")
        if result.state and result.state > 1:
            out.append(f"Steps replayed before it: {result.replayed} of {result.total_steps}.")
        for cause in result.causes:
            out.append("")
            out += quote_cause(cause, sources)
        if result.differences:
            out.append("")
            rows = [(p, a, b) for _, p, a, b in result.differences]
            width = max(len(p) for p, _, _ in rows + [("variable", "", "")])
            rec = max(len(a) for _, a, _ in rows + [("", "recorded", "")])
            out.append(f"  {'variable':<{width}}  {'recorded':<{rec}}  replayed")
            out += [f"  {p:<{width}}  {a:<{rec}}  {b}" for p, a, b in rows]
    if result.notes:
        out.append("")
        out += [f"note: {n}" for n in result.notes]
    return "\n".join(out) + "\n"


def _counterexamples(args, sources: dict[str, Source]) -> int:
    """`tlacheck counterexamples [SPECS] [--out DIR]`: regenerate the counterexamples folder."""
    from pathlib import Path

    from tlacheck.app import counterexamples
    from tlacheck.output import artefacts
    from tlacheck.output import render

    if not Path(args.specs).is_dir():
        raise UsageError(f"{args.specs} is not a folder of specs")

    def read(path: str) -> Source:
        src = read_source(path)
        sources[src.name] = src
        return src

    files, problems = counterexamples.regenerate(args.specs, read)
    out = Path(args.out)
    produced = {rel: text.encode("utf-8") for rel, text in files.items()}
    missing = False
    for rel, text in sorted(files.items()):
        if rel.endswith(".dot") and not missing:
            try:
                produced[rel.removesuffix(".dot") + ".svg"] = render.image(text, "svg")
            except render.DotMissing:
                missing = True
    plan = artefacts.plan_folder(out, produced)  # refuses, before writing, to overwrite a file it did not write
    for rel in plan.remove:  # first: a file that cannot be removed stays in the manifest, written last
        path = artefacts.inside(out, rel)
        try:
            path.unlink()
        except OSError as exc:
            raise OutputError(str(path), exc, "remove") from None
    for rel, data in plan.write.items():
        _write_bytes(artefacts.inside(out, rel), data)  # not through a planted symlink
    removed = len(plan.remove)
    count = sum(1 for rel in files if rel.endswith(".itf.json"))
    print(f"tlacheck: {count} counterexample{'s' if count != 1 else ''}, {len(plan.write)} files written into "
          f"{args.out}" + (f", {removed} stale file{'s' if removed != 1 else ''} removed" if removed else ""))
    if missing:
        print(_NO_DOT, file=sys.stderr)
    for p in problems:
        print(f"tlacheck: error: {p}", file=sys.stderr)
    return EXIT_VERIFY_FAILED if problems else EXIT_OK


def _conform(args, sources: dict[str, Source]) -> int:
    """`tlacheck conform SPEC LOG...`: each run's verdict; the worst run's exit code."""
    from tlacheck.conform import runs
    from tlacheck.output import conformance

    overrides = parse_defines(args.defines)
    source = read_source(args.file)
    sources[source.name] = source
    model = build_model(source, overrides, args.variant)
    invariants, properties, _ = _selection(args, model)
    for w in model.warnings:
        print(w.render(sources), file=sys.stderr)
    settings = conformance.Settings(max_gap=args.max_gap, max_lazy=args.max_lazy, merge=args.merge,
                                    tolerance=args.tolerance, invariants=invariants, properties=properties,
                                    time_limit=args.time_limit, memory_limit_mb=args.memory_limit,
                                    stop=threading.Event())
    with _stop_on_signals(settings.stop):
        report = runs.check_runs(model, args.logs, settings, args.file, args.variant, overrides, sources)
    if args.json:
        print(conformance.dumps(conformance.report_json(report)), end="")
    else:
        print(conformance.format_report(report, args.full_states), end="")
    for run in report.runs:  # a log that cannot be read: its diagnostic, as a spec's goes
        if run.error_text is not None:
            print(run.error_text, file=sys.stderr)
    if args.html:
        _write_text(args.html, conformance.html_report(report))
        print(f"tlacheck: wrote {args.html}", file=sys.stderr if args.json else sys.stdout)
    return report.exit_code


def _tests(args, sources: dict[str, Source]) -> int:
    """`tlacheck tests SPEC --out DIR`: behaviours that cover the spec, written as ITF."""
    from pathlib import Path

    from tlacheck.output import artefacts
    from tlacheck.testing.generate import Cover, Sampling, generate
    from tlacheck.testing.suite import report_json, suite_files, summary_text

    overrides = parse_defines(args.defines)
    source = read_source(args.file)
    sources[source.name] = source
    model = build_model(source, overrides, args.variant)
    for w in model.warnings:
        print(w.render(sources), file=sys.stderr)
    suite = generate(model, Cover(args.cover), args.max, args.max_states, Sampling(args.seed, args.traces, args.depth),
                     args.simulate)
    files = suite_files(suite, args.file, args.variant, overrides)
    files[artefacts.MANIFEST] = artefacts.manifest(files, "tests")
    out = Path(args.out)
    plan = artefacts.plan_folder(out, {rel: text.encode("utf-8") for rel, text in files.items()}, "tests")
    for rel in plan.remove:
        path = artefacts.inside(out, rel)
        try:
            path.unlink()
        except OSError as exc:
            raise OutputError(str(path), exc, "remove") from None
    for rel, data in plan.write.items():
        _write_bytes(artefacts.inside(out, rel), data)
    if args.json:
        print(json.dumps(report_json(suite, args.file, args.variant, overrides, args.out, list(plan.remove)),
                         indent=2, ensure_ascii=False))
        return EXIT_OK
    print(summary_text(suite, args.file, args.variant), end="")
    removed = len(plan.remove)
    print(f"\ntlacheck: {len(suite.behaviours)} behaviour{'s' if len(suite.behaviours) != 1 else ''} and tests.json "
          f"written into {args.out}" + (f", {removed} stale file{'s' if removed != 1 else ''} removed" if removed
                                        else ""))
    return EXIT_OK


def _fmt(args, sources: dict[str, Source]) -> int:
    """`tlacheck fmt [--check] FILE|DIR...`: every spec parsed before any is written."""
    from pathlib import Path

    from tlacheck.editing.fmt import format_source

    files: list[str] = []
    for given in args.paths:
        path = Path(given)
        if path.is_dir():  # hidden folders (.venv, .git) and node_modules hold no spec of the user's
            files += sorted(str(p) for p in path.rglob("*.spec")
                            if not any(part.startswith(".") or part == "node_modules"
                                       for part in p.relative_to(path).parts[:-1]))
        elif path.exists():
            files.append(given)
        else:
            raise UsageError(f"{given}: no such file or folder")
    changed: list[tuple[str, str]] = []
    for name in dict.fromkeys(files):  # a file named twice (itself and in its folder) is done once
        src = read_source(name)
        sources[src.name] = src
        text = format_source(src)
        if text != src.text:
            changed.append((name, text))
    for name, text in changed:
        if args.check:
            print(f"{name}: not formatted")
        else:
            try:
                with open(name, "w", encoding="utf-8", newline="") as out:
                    out.write(text)
            except OSError as exc:
                raise OutputError(name, exc) from None
            print(f"{name}: formatted")
    return EXIT_VERIFY_FAILED if args.check and changed else EXIT_OK


def _new(args, sources: dict[str, Source]) -> int:
    """`tlacheck new`: a spec started from the library; the questions only on a terminal."""
    from tlacheck.editing import starter

    folder = starter.library_folder()
    if args.list:
        for kind, title in ((starter.Kind.PATTERN, "Patterns (docs/patterns.md):"),
                            (starter.Kind.TEMPLATE, "Property templates (docs/templates.md):")):
            print(title)
            for e in starter.entries(folder):
                if e.kind is kind:
                    print(f"  {e.name:<28} {e.summary}")
        print("Start one: tlacheck new --pattern NAME --out FILE (or --template NAME)")
        return EXIT_OK
    asking = args.pattern is None and args.template is None
    if asking and not sys.stdin.isatty():
        raise UsageError("say what to start from: --pattern NAME or --template NAME",
                         "tlacheck new --list lists them")
    if asking:
        entry = _ask_entry(starter.entries(folder))
    else:
        kind = starter.Kind.PATTERN if args.pattern is not None else starter.Kind.TEMPLATE
        entry = starter.find(folder, kind, args.pattern or args.template)
    out = args.out
    if out is None and asking:
        out = _ask("Write it to", f"{entry.name}.spec")
    name = args.name or (starter.spec_name(out) if out else starter.spec_name(entry.name))
    if args.name is None and asking:
        name = _ask("Spec name", name)
    overrides = parse_defines(args.defines)
    if asking and not overrides:
        print("Constants (Enter keeps the value shown):")
        for const, value in starter.constants(folder, entry):
            answer = _ask(f"  {const}", value)
            if answer != value:
                overrides[const] = answer
    if out is not None and os.path.exists(out) and not args.force:
        raise UsageError(f"{out} exists", "write elsewhere with --out FILE, or overwrite it with --force")
    text = starter.start(folder, entry, name, overrides)
    path = out or f"{entry.name}.spec"
    sources[path] = Source(path, text)
    starter.check_started(sources[path])
    if out is None:
        print(text, end="")
        return EXIT_OK
    _write_text(out, text)
    print(f"wrote {out}: spec {name}, from the {entry.kind.value} {entry.name}")
    print(f"next: tlacheck check {out}; tlacheck verify {out}")
    return EXIT_OK


def _ask(question: str, default: str = "") -> str:
    """One question on the terminal; Enter takes the default (shown in brackets)."""
    try:
        answer = input(f"{question} [{default}]: " if default else f"{question}: ").strip()
    except EOFError:
        raise UsageError("no answer (end of input)", "give the choices as options: tlacheck new --help") from None
    return answer or default


def _ask_entry(entries: list) -> object:
    """The pattern or template chosen from a numbered list, asked again until one is."""
    print("Start a spec from a pattern (docs/patterns.md) or a property template (docs/templates.md):")
    for i, e in enumerate(entries, 1):
        print(f"  {i:>2}. {e.kind.value:<8} {e.name:<28} {e.summary}")
    by_name = {e.name: e for e in entries}
    while True:
        answer = _ask("Start from (a number or a name)")
        if answer.isdigit() and 1 <= int(answer) <= len(entries):
            return entries[int(answer) - 1]
        if answer.replace("-", "_") in by_name:
            return by_name[answer.replace("-", "_")]
        print(f"  no {answer!r} in the list: a number from 1 to {len(entries)}, or a name")


def _serve(module: str, extra: str) -> int:
    """`tlacheck lsp` / `tlacheck mcp`: a server on stdio until its client stops it."""
    import importlib

    try:
        server = importlib.import_module(f"tlacheck.servers.{module}")
    except ModuleNotFoundError as exc:
        raise UsageError(f"this command needs the `{extra}` extra ({exc.name} is missing): "
                         f"pip install 'tlacheck[{extra}]'") from None
    server.serve()
    return EXIT_OK


def _lsp(args, sources: dict[str, Source]) -> int:
    return _serve("lsp_server", "lsp")


def _mcp(args, sources: dict[str, Source]) -> int:
    return _serve("mcp_server", "mcp")


# Subcommand name -> function(args, sources) returning the exit code.
_COMMANDS = {
    "fmt": _fmt,
    "new": _new,
    "lsp": _lsp,
    "mcp": _mcp,
    "render": _render,
    "graph": _graph,
    "replay": _replay,
    "conform": _conform,
    "tests": _tests,
    "counterexamples": _counterexamples,
    "check": _check,
    "explain": _explain,
    "simulate": _simulate,
    "verify": _verify,
    "prove": _prove,
}
