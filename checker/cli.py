"""The command line: the only module that prints, reads arguments or exits.

Exit codes (docs/cli.md): 0 no error, 1 internal error, 2 usage error,
3 spec error (syntax, names, types), 4 evaluation error, 5 stopped at a limit,
11 deadlock, 12 safety violation, 13 liveness violation.
"""

from __future__ import annotations

import argparse
import json
import sys

from checker import __version__
from checker.errors import Diagnostic, EvalError, SpecError, TlacheckError, UsageError
from checker.explore import Options, Progress, explore
from checker.model import build_model
from checker.report import errors_json, format_result, result_json
from checker.result import Verdict
from checker.source import Source

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_SPEC = 3
EXIT_EVAL = 4
EXIT_LIMIT = 5
EXIT_VERIFY_FAILED = 10


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors raise UsageError instead of exiting from deep inside."""

    def error(self, message):
        raise UsageError(message, f"run `{self.prog} --help` for the options")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tlacheck", description="A TLA+-style explicit-state model checker.")
    parser.add_argument("--version", action="version", version=f"tlacheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    check = sub.add_parser("check", help="explore every reachable state and check invariants and deadlock",
                           description="Explore every reachable state of a spec breadth-first; report the "
                                       "shortest trace to an invariant violation or a deadlock.")
    check.add_argument("file", metavar="FILE", help="the .spec file")
    check.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                       help="override a constant, e.g. -D N=4 or -D RM={r1,r2,r3,r4} (repeatable)")
    check.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of text")
    check.add_argument("--no-deadlock", action="store_true", help="do not report states without successors")
    check.add_argument("--invariant", metavar="NAME", action="append",
                       help="check only this invariant (repeatable); default: all")
    check.add_argument("--max-states", type=_positive_int, metavar="N", help="stop after N distinct states")
    check.add_argument("--max-depth", type=_positive_int, metavar="N", help="stop after BFS depth N")
    check.add_argument("--time-limit", type=_positive_float, metavar="SECONDS", help="stop after this many seconds")
    check.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    check.add_argument("--full-states", action="store_true",
                       help="list every variable in every state of a trace (default: only the changed ones)")
    check.add_argument("--variant", metavar="NAME", default="base",
                       help="check this variant of the spec instead of the base spec")
    verify = sub.add_parser("verify", help="check every variant of each spec against its `expect` lines",
                            description="For each spec, explore the base spec and every variant named in an "
                                        "`expect` line; print one table row per expectation.")
    verify.add_argument("files", metavar="FILE", nargs="+", help=".spec files")
    verify.add_argument("-D", dest="defines", metavar="NAME=VALUE", action="append", default=[],
                        help="override a constant in every spec (repeatable)")
    verify.add_argument("--json", action="store_true", help="print the rows as JSON")
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
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, not {text}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, not {text}")
    return value


def read_source(path: str) -> Source:
    """Read a spec file. Unreadable files are usage errors; bytes that are not UTF-8 are spec errors."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a spec file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        src = Source(path, "")
        raise SpecError.single("E006", f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x})",
                               src.span(line, column), "save the file as UTF-8") from None
    if "\x00" in text:
        line = text[:text.index("\x00")].count("\n") + 1
        raise SpecError.single("E006", "the file contains a NUL character", Source(path, text).span(line, 1),
                               "spec files are plain text")
    return Source(path, text.lstrip("\ufeff"))


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
    """Run the command line; returns the exit code. Never lets a Python traceback reach the user."""
    stdout, stderr = sys.stdout, sys.stderr
    want_json = False
    sources: dict[str, Source] = {}
    try:
        args = _build_parser().parse_args(argv)
        want_json = getattr(args, "json", False)
        if args.command is None:
            _build_parser().print_help(stdout)
            return EXIT_USAGE
        return _COMMANDS[args.command](args, sources)
    except SpecError as exc:
        _report_diagnostics(exc.diagnostics, sources, want_json, getattr(exc, "path", None))
        return EXIT_SPEC
    except UsageError as exc:
        diag = Diagnostic("usage", exc.message, None, exc.hint)
        if want_json:
            print(json.dumps(errors_json([diag], None, "usage_error"), indent=2), file=stdout)
        print(f"tlacheck: error: {exc.message}", file=stderr)
        if exc.hint:
            print(f"  = hint: {exc.hint}", file=stderr)
        return EXIT_USAGE
    except EvalError as exc:
        _report_diagnostics([exc.diagnostic()], sources, want_json, None, verdict="error")
        return EXIT_EVAL
    except TlacheckError as exc:  # pragma: no cover - every subclass is handled above
        print(f"tlacheck: error: {exc}", file=stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("tlacheck: interrupted", file=stderr)
        return EXIT_LIMIT
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # an internal bug: say so plainly, without a traceback
        print(f"tlacheck: internal error: {type(exc).__name__}: {exc}", file=stderr)
        print("  = hint: this is a bug in tlacheck; please report it with the spec that triggered it",
              file=stderr)
        return EXIT_INTERNAL


def _report_diagnostics(diags, sources, want_json: bool, path, verdict: str = "error") -> None:
    if want_json:
        print(json.dumps(errors_json(diags, path, verdict), indent=2))
    for d in diags:
        print(d.render(sources), file=sys.stderr)


def _progress(p: Progress) -> None:
    rate = p.generated / p.elapsed_s if p.elapsed_s > 0 else 0
    print(f"progress: {p.generated:,} generated, {p.distinct:,} distinct, {p.queue:,} on queue, "
          f"depth {p.depth}, {rate:,.0f} states/s", file=sys.stderr, flush=True)


def _check(args, sources: dict[str, Source]) -> int:
    overrides = parse_defines(args.defines)
    source = read_source(args.file)
    sources[source.name] = source
    model = build_model(source, overrides, args.variant)
    if args.invariant:
        known = [name for name, _ in model.invariants]
        for name in args.invariant:
            if name not in known:
                from checker.errors import suggest

                hint = suggest(name, known)
                raise UsageError(f"--invariant {name}: the spec has no invariant named `{name}`",
                                 f"did you mean `{hint}`?" if hint else f"invariants: {', '.join(known) or 'none'}")
    for w in model.warnings:
        print(w.render(sources), file=sys.stderr)
    options = Options(
        check_deadlock=not args.no_deadlock,
        max_states=args.max_states,
        max_depth=args.max_depth,
        time_limit=args.time_limit,
        invariants=tuple(args.invariant) if args.invariant else None,
    )
    result = explore(model, options, progress=None if args.quiet else _progress)
    if args.json:
        print(json.dumps(result_json(model, result, args.file), indent=2))
    else:
        print(format_result(model, result, args.file, args.full_states), end="")
    if result.verdict == Verdict.ERROR and result.error is not None:
        print(result.error.diagnostic().render(sources), file=sys.stderr)
    return result.verdict.exit_code


def _verify(args, sources: dict[str, Source]) -> int:
    from checker.report import format_verify, trace_json
    from checker.verify import verify_source

    overrides = parse_defines(args.defines)
    rows = []
    for path in args.files:
        source = read_source(path)
        sources[source.name] = source
        rows += verify_source(source, dict(overrides))
    if args.json:
        out = []
        for r in rows:
            trace = getattr(r.evidence, "trace", r.evidence)
            out.append({
                "file": r.file, "spec": r.spec, "variant": r.variant, "check": r.check,
                "expected": r.expected, "got": r.got, "ok": r.ok, "states": r.states,
                "elapsed_s": round(r.seconds, 3), "trace_length": r.trace_length, "note": r.note,
                "trace": trace_json(r.model, trace) if trace is not None and trace.steps else None,
            })
        print(json.dumps({"tool": "tlacheck", "version": __version__, "rows": out,
                          "ok": all(r.ok for r in rows)}, indent=2))
    else:
        print(format_verify(rows), end="")
    return 0 if all(r.ok for r in rows) else EXIT_VERIFY_FAILED


EXIT_REFUTED = 12


def _prove(args, sources: dict[str, Source]) -> int:
    """`tlacheck prove`: exit 0 all proved (or the diff finished), 12 one refuted, 5 one unknown."""
    from checker import smt  # z3 is loaded only for this command
    from checker.proof import Outcome, diff_json, format_diff, format_proofs, proofs_json

    if (args.diff is None) != (args.against is None):
        raise UsageError("--diff FUNC and --against VARIANT go together",
                         "for example: --diff async_launch --against Fix1")
    if args.diff is not None and (args.all or args.theorem):
        raise UsageError("--diff compares functions; it does not take --all or --theorem")
    overrides = parse_defines(args.defines)
    source = read_source(args.file)
    sources[source.name] = source
    model = build_model(source, dict(overrides), args.variant)
    if args.diff is not None:
        other = build_model(source, dict(overrides), args.against)
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
    return {Outcome.PROVED: EXIT_OK, Outcome.REFUTED: EXIT_REFUTED, Outcome.UNKNOWN: EXIT_LIMIT}[report.outcome]


# Subcommand name -> function(args, sources) returning the exit code.
_COMMANDS = {
    "check": _check,
    "verify": _verify,
    "prove": _prove,
}
