"""Inputs and a harness for fuzzing `tlacheck check` (used by tests/test_fuzz.py and tests/test_security.py).

`run_cli` runs `checker.app.cli.main(argv)` in a forked copy of the test process: the case
cannot hang the test run (it is killed after CASE_SECONDS of wall-clock time) nor exhaust
the machine's memory (the child's address space is capped), and a crash of the child is
reported instead of taking pytest down. Where `fork` does not exist, it runs in-process.

`check_outcome` states what every run must end with, whatever the input.

Three kinds of input:
- `token_soup`: random sequences of the grammar's keywords and punctuation, names, numbers,
  strings, comments, newlines and indentation (plus operators of other languages);
- `grammar_specs`: a small type-directed generator of declarations, statements and
  expressions, so that most inputs pass the parser and the type checker and reach code
  generation and exploration, sometimes with `--variant` and `-D`;
- `mutated`: a spec of the corpus (every spec in specs/, every ```spec block of docs/*.md,
  every spec-like string in tests/*.py) with lines deleted, duplicated, swapped or moved,
  truncated, indented wrongly, tokens inserted or replaced, huge literals, deep nesting, very
  long lines, CRLF, a byte-order mark, bytes that are not UTF-8 and NUL characters.

`check_storages_agree` checks an input that was explored again in fingerprint and in exact
storage: both must report the same verdict, counts, coverage and trace.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import json
import os
import re
import signal
import sys
import textwrap
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from tlacheck.app.cli import main


ROOT = Path(__file__).resolve().parent.parent

# What every `check` run may end with (docs/errors.md): 0 ok, 2 usage, 3 spec error, 4 evaluation
# error, 5 limit, 11 deadlock, 12 invariant or safety property violated, 13 liveness violation.
ALLOWED_EXITS = frozenset({0, 2, 3, 4, 5, 11, 12, 13})
CHECK_FLAGS = ("--quiet", "--max-states", "2000", "--time-limit", "2")
CASE_SECONDS = 30.0  # a case running longer than this is a hang
MEMORY_BYTES = 3 << 30  # address space a case may add to the test process
LOCATED_ERROR = re.compile(r"^.+:\d+:\d+: error\[[EW]\d{3}\]: ")


@dataclass(frozen=True)
class Outcome:
    code: int | None  # None: killed after CASE_SECONDS; negative: killed by that signal
    stdout: str
    stderr: str
    seconds: float

    @property
    def first_error(self) -> str | None:
        return next((line for line in self.stderr.splitlines() if "error[" in line), None)

    @property
    def stage(self) -> str:
        """Where the run ended, for statistics."""
        if self.code == 3:
            code = re.search(r"error\[([EW]\d\d\d)", self.first_error or "")
            code = code.group(1) if code else ""
            if code in ("E007", "E008"):
                return "nesting or compiler limit"
            return {"E0": "syntax error", "E1": "static error"}.get(code[:2], "spec error")
        return {0: "explored: ok", 2: "usage error", 4: "evaluation error", 5: "explored: limit",
                11: "explored: deadlock", 12: "explored: violation", 13: "explored: liveness"}.get(self.code, "bad")


def run_cli(argv: list[str], cwd: Path, memory_bytes: int = MEMORY_BYTES) -> Outcome:
    """`main(argv)` with `cwd` as the working directory, bounded in time and in memory: the child
    may add `memory_bytes` of address space to the test process's."""
    if not hasattr(os, "fork"):  # pragma: no cover - POSIX CI
        return _run_in_process(argv, cwd)
    _warm_up()
    out_path, err_path = cwd / ".fuzz-stdout", cwd / ".fuzz-stderr"
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 99
        try:
            import resource

            used = _address_space()
            resource.setrlimit(resource.RLIMIT_AS, (used + memory_bytes, used + memory_bytes))
            os.chdir(cwd)
            with open(out_path, "w", encoding="utf-8") as out, open(err_path, "w", encoding="utf-8") as err:
                sys.stdout, sys.stderr = out, err
                try:
                    code = main(argv)
                except BaseException:  # noqa: BLE001 - anything escaping main() is a bug to report
                    err.write("escaped main(): " + traceback.format_exc())
                    code = 98
                out.flush()
                err.flush()
        finally:
            os._exit(code if isinstance(code, int) and 0 <= code < 256 else 97)
    status = _wait(pid, start + CASE_SECONDS)
    seconds = time.monotonic() - start
    stdout = out_path.read_text(encoding="utf-8", errors="replace") if out_path.exists() else ""
    stderr = err_path.read_text(encoding="utf-8", errors="replace") if err_path.exists() else ""
    for p in (out_path, err_path):
        p.unlink(missing_ok=True)
    if status is None:
        return Outcome(None, stdout, stderr, seconds)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
    return Outcome(code, stdout, stderr, seconds)


@functools.lru_cache(maxsize=None)
def _warm_up() -> None:
    """Build the parsers once in this process, so that each forked child does not build them again."""
    from tlacheck.lang.parser import parse, parse_expression
    from tlacheck.core.source import Source

    parse(Source("warm-up.spec", "var x: int = 0\n"))
    parse_expression(Source("-D", "1"))


def _address_space() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return 1 << 30


def _wait(pid: int, deadline: float):
    """The child's exit status, or None after killing it at `deadline`."""
    delay = 0.0005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def _run_in_process(argv: list[str], cwd: Path) -> Outcome:  # pragma: no cover - POSIX CI
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    old = os.getcwd()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(old)
    return Outcome(code, out.getvalue(), err.getvalue(), time.monotonic() - start)


def check_spec(data: bytes, cwd: Path, extra: tuple[str, ...] = (), name: str = "fuzz.spec") -> Outcome:
    """Write `data` to cwd/name and run `tlacheck check` on it with the fuzzing flags."""
    path = cwd / name
    path.write_bytes(data)
    before = sorted(p.name for p in cwd.iterdir())
    outcome = run_cli(["check", name, *CHECK_FLAGS, *extra], cwd)
    after = sorted(p.name for p in cwd.iterdir())
    assert after == before, f"`check` without --render or --itf wrote files: {sorted(set(after) - set(before))}"
    return outcome


EXPLORED = frozenset({0, 5, 11, 12, 13})  # the exits of a run that reached exploration
# What a run's JSON must say alike in both storages (not the time, nor the collision estimate).
_COMPARED = ("verdict", "distinct_states", "states_generated", "depth", "queue_left", "stop_reason", "coverage",
             "violation", "error", "witnesses", "undecided")


def check_storages_agree(data: bytes, cwd: Path, extra: tuple[str, ...] = (), name: str = "fuzz.spec") -> str:
    """Check `data` (already written to cwd/name by check_spec, and explored) again with --json in
    fingerprint and in exact storage (both without symmetry reduction), and fail unless both say the same. Returns what was found:
    "agree", or why nothing was compared (a run stopped by --time-limit stops at a different state
    in each storage)."""
    # --no-symmetry: exact storage keeps every state, so fingerprint storage must too for the
    # counts to compare (a spec with `symmetric` sets is reduced on fingerprints by default)
    runs = [run_cli(["check", name, "--json", *CHECK_FLAGS, *extra, "--no-symmetry", "--storage", storage], cwd)
            for storage in ("fingerprint", "exact")]
    if any(r.code not in EXPLORED for r in runs):
        assert runs[0].code == runs[1].code, _storage_context(data, extra, runs)
        return f"not explored (exit {runs[0].code})"
    fp, exact = (json.loads(r.stdout) for r in runs)
    if "time_limit" in (fp.get("stop_reason"), exact.get("stop_reason")):
        return "time limit"
    assert runs[0].code == runs[1].code and all(fp.get(k) == exact.get(k) for k in _COMPARED), \
        _storage_context(data, extra, runs, [k for k in _COMPARED if fp.get(k) != exact.get(k)])
    return "agree"


def _storage_context(data: bytes, extra: tuple[str, ...], runs: list, keys=()) -> str:
    shown = data.decode("utf-8", errors="backslashreplace")[:3000]
    return (f"fingerprint and exact storage disagree{' on ' + ', '.join(keys) if keys else ''}"
            f" (exits {runs[0].code} and {runs[1].code}; extra flags {list(extra)})\n--- input ---\n{shown}"
            f"\n--- fingerprint ---\n{runs[0].stdout[-2000:]}\n--- exact ---\n{runs[1].stdout[-2000:]}")


# Failures the fuzzer found that are not fixed yet (docs/reliability.md, "Open findings"). They are
# counted, not failed, so that a campaign goes on finding other bugs; TLACHECK_FUZZ_STRICT=1 fails
# them too (to check a fix). Remove an entry when its fix lands.
KNOWN_OPEN: dict[str, re.Pattern] = {
    # none open; an entry maps a name to a pattern of the run's stderr, e.g.
    # "out of memory": re.compile(r"^tlacheck: internal error: MemoryError", re.M) (fixed: E411)
}


def known_open(outcome: Outcome) -> str | None:
    """The KNOWN_OPEN finding this outcome is an instance of, if any (and not in strict mode)."""
    if outcome.code != 1 or os.environ.get("TLACHECK_FUZZ_STRICT") == "1":
        return None
    return next((name for name, pattern in KNOWN_OPEN.items() if pattern.search(outcome.stderr)), None)


def check_outcome(outcome: Outcome, data: bytes, extra: tuple[str, ...] = ()) -> None:
    """Fail, showing the input, unless the run ended as every run must."""
    shown = data.decode("utf-8", errors="backslashreplace")
    if len(shown) > 3000:
        shown = shown[:1500] + f"\n... ({len(shown) - 3000} characters left out) ...\n" + shown[-1500:]
    context = (f"\n--- input ({len(data)} bytes; extra flags {list(extra)}) ---\n{shown}\n"
               f"--- exit {outcome.code} after {outcome.seconds:.1f}s; stderr ---\n{outcome.stderr[-3000:]}"
               f"\n--- stdout ---\n{outcome.stdout[-1500:]}")
    assert outcome.code is not None, f"hang: still running after {CASE_SECONDS}s" + context
    assert outcome.code in ALLOWED_EXITS, f"exit code {outcome.code}" + context
    for text in (outcome.stdout, outcome.stderr):
        assert "Traceback" not in text and "internal error" not in text, "traceback or internal error" + context
    if outcome.code in (3, 4):
        first = outcome.first_error
        assert first is not None, "exit 3/4 without an error[CODE] line" + context
        assert LOCATED_ERROR.match(first), f"first error line has no file:line:col: {first!r}" + context


# ---------------------------------------------------------------- the corpus

def _grammar_literals() -> list[str]:
    text = (ROOT / "checker" / "lang" / "grammar.lark").read_text(encoding="utf-8")
    return sorted({m for m in re.findall(r'"([^"\\\n]+)"', text) if not m.startswith("[^")})


GRAMMAR_WORDS = _grammar_literals()
_SPEC_LIKE = re.compile(r"^\s*(var|action|const|enum|spec|invariant|def)\b", re.M)


def corpus() -> list[tuple[str, str]]:
    """(origin, text) of every spec the repository holds, in a fixed order."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "specs").rglob("*.spec")):
        found.setdefault(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    for doc in sorted((ROOT / "docs").glob("*.md")):
        lines = doc.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```spec":
                j = next((k for k in range(i + 1, len(lines)) if lines[k].strip() == "```"), len(lines))
                found.setdefault("\n".join(lines[i + 1:j]) + "\n", f"{doc.relative_to(ROOT).as_posix()}:{i + 1}")
                i = j
            i += 1
    for module in sorted((ROOT / "tests").glob("test_*.py")):
        if module.name in ("test_fuzz.py", "test_security.py"):
            continue
        try:
            tree = ast.parse(module.read_text(encoding="utf-8"))
        except SyntaxError:  # pragma: no cover - another engineer's module mid-edit
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value \
                    and _SPEC_LIKE.search(node.value):
                text = textwrap.dedent(node.value).lstrip("\n")
                found.setdefault(text, f"{module.relative_to(ROOT).as_posix()}:{node.lineno}")
    return sorted(((origin, text) for text, origin in found.items()), key=lambda item: item[0])


# ---------------------------------------------------------------- token soup

_NAMES = ["x", "y", "n", "A", "B", "Inc", "Color", "red", "green", "P", "p1", "N", "s", "m", "r", "f", "_",
          "base", "len", "head", "all", "any", "sum", "choose", "powerset", "maps", "domain", "__import__", "os"]
_FOREIGN = ["&&", "||", "+=", "'", "\\", "=>", "/\\", "\\/", "~>", "[]", "<>", "!", "@", "$", "`", ";", "^",
            "\\in", "==>", "#", "/", "\t", "\r", "\x0c", "\u00e9", "\u200b", "\ufeff"]
_LITERALS = ["0", "1", "2", "-1", "007", "30", "999999999999999999999999999999", "1" * 31, "1" * 5000,
             '"desc"', '"', '"' + "a" * 600 + '"', "# a comment", "true", "false", "none"]
_LAYOUT = ["\n", "\n    ", "\n        ", "\n  ", "\n\t", " ", " ", " ", ""]

soup_token = st.sampled_from(GRAMMAR_WORDS + _NAMES + _FOREIGN + _LITERALS + _LAYOUT)
token_soup = st.lists(soup_token, min_size=0, max_size=150).map(lambda toks: " ".join(toks).encode("utf-8"))


# ---------------------------------------------------------------- grammar-shaped specs

class SpecGen:
    """A random, mostly well-typed spec. Types are tuples: ("bool",), ("int",), ("enum",),
    ("model",), ("set", T), ("seq", T), ("map", K, V), ("rec",) `{n: int, ok: bool}`, ("qrec",)
    `{q: seq[int], ok: bool}`, ("opt", T), ("tup",). A sequence type's text often carries a bound
    (`seq[T, N]`, also as a map's values and in "qrec"'s field): a bounded `seq[T]` to the type
    checker, so expressions ignore it, and appends and literals overflow it now and then (E410).
    A small share of expressions is deliberately wrong (`sloppy`), to exercise the checks."""

    BASE = [("bool",), ("int",), ("enum",), ("model",)]

    def __init__(self, rnd):
        self.r = rnd
        self.sloppy = rnd.random() < 0.2
        self.vars: dict[str, tuple] = {}
        self.consts: dict[str, tuple] = {}
        self.defs: list[tuple[str, list[tuple[str, tuple]], tuple]] = []
        self.actions: list[tuple[str, int]] = []
        self.fresh = 0

    # -- helpers
    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    def type_(self, depth: int = 2) -> tuple:
        if depth <= 0 or self.chance(0.45):
            return self.pick(self.BASE)
        k = self.pick(["set", "seq", "map", "rec", "qrec", "opt", "tup"])
        if k == "set":
            return ("set", self.pick(self.BASE))
        if k == "seq":
            return ("seq", self.pick([("int",), ("enum",), ("bool",)]))
        if k == "map":
            return ("map", self.pick([("enum",), ("model",)]),
                    self.pick([("int",), ("bool",), ("enum",), ("seq", ("int",))]))
        if k == "opt":
            return ("opt", self.pick([("int",), ("enum",), ("model",)]))
        return (k,)

    def type_text(self, t: tuple) -> str:
        k = t[0]
        if k in ("bool", "int"):
            return k if not (k == "int" and self.chance(0.2)) else self.pick(["0..5", "-2..N", "0..N + 1"])
        if k == "enum":
            return "Color"
        if k == "model":
            return "P"
        if k == "set":
            return f"set[{self.type_text(t[1])}]"
        if k == "seq":
            return f"seq[{self.type_text(t[1])}{self.seq_bound()}]"
        if k == "map":
            return f"map[{self.type_text(t[1])}, {self.type_text(t[2])}]"
        if k == "rec":
            return "{n: int, ok: bool}"
        if k == "qrec":
            return f"{{q: seq[int{self.seq_bound()}], ok: bool}}"
        if k == "opt":
            return f"{self.type_text(t[1])}?"
        return "(int, bool)"

    def seq_bound(self) -> str:
        """A sequence type's bound (`seq[T, N]`), or none; small, so that appends overflow it (E410),
        sometimes negative (with N = 0 or -D N=-1)."""
        if self.chance(0.5):
            return ""
        return ", " + self.pick(["0", "1", "1", "2", "2", "3", "N", "N + 1", "N - 2"])

    def names_of(self, t: tuple, env: dict) -> list[str]:
        return [n for n, nt in {**self.consts, **self.vars, **env}.items() if nt == t]

    # -- expressions
    def expr(self, t: tuple, env: dict, depth: int = 3, top: bool = False) -> str:
        """An expression of type t. `top`: the type is known from the context (an assignment,
        an initial value), so the empty literals `{}` and `[]` may appear."""
        if top and t[0] in ("set", "seq") and self.chance(0.15):
            return "{}" if t[0] == "set" else "[]"
        if self.sloppy and self.chance(0.03):
            t = self.type_(1)  # a type error, or an unknown name below
            if self.chance(0.3):
                return self.pick(["nope", "Colour", "x_", "len", "p3"])
        names = self.names_of(t, env)
        if depth <= 0 or self.chance(0.25):
            if names and self.chance(0.6):
                return self.pick(names)
            return self.leaf(t, env)
        k = t[0]
        d = depth - 1
        options = self.names_of(("opt", t), env) if k != "opt" else []
        if options and self.chance(0.2):  # the value of an option variable, or a default
            return f"({self.pick(options)} ?? {self.expr(t, env, d)})"
        if k == "bool":
            return self.bool_expr(env, d)
        if k == "int":
            return self.int_expr(env, d)
        if k == "enum":
            return self.pick([self.leaf(t, env), f"(if {self.expr(('bool',), env, d)} then red else blue)",
                              f"choose(c for c in Color if {self.expr(('bool',), env, d)})" if self.chance(0.3)
                              else "Color.green",
                              *([f"{self.pick(self.names_of(('map', ('enum',), ('enum',)), env))}[red]"]
                                if self.names_of(("map", ("enum",), ("enum",)), env) else [])])
        if k == "model":
            return self.pick([self.leaf(t, env), f"choose(q for q in P if {self.expr(('bool',), env, d)})"])
        if k == "set":
            return self.set_expr(t, env, d)
        if k == "seq":
            return self.seq_expr(t, env, d)
        if k == "map":
            dom = "Color" if t[1] == ("enum",) else "P"
            v = self.fresh_local()
            body = self.expr(t[2], {**env, v: t[1]}, d)
            return self.pick([f"{{{v} -> {body} for {v} in {dom}}}", self.leaf(t, env)])
        if k == "rec":
            return f"{{n: {self.expr(('int',), env, d)}, ok: {self.expr(('bool',), env, d)}}}"
        if k == "qrec":
            return f"{{q: {self.expr(('seq', ('int',)), env, d)}, ok: {self.expr(('bool',), env, d)}}}"
        if k == "opt":
            return self.pick(["none", self.expr(t[1], env, d)])
        return f"({self.expr(('int',), env, d)}, {self.expr(('bool',), env, d)})"

    def fresh_local(self) -> str:
        return self.name("v")

    def leaf(self, t: tuple, env: dict) -> str:
        k = t[0]
        if k == "bool":
            return self.pick(["true", "false"])
        if k == "int":
            return self.pick(["0", "1", "2", "3", "N", "-1", "7"])
        if k == "enum":
            return self.pick(["red", "green", "blue", "Color.red"])
        if k == "model":
            return self.pick(["p1", "p2"])
        if k == "set":
            inner = t[1]
            if inner == ("int",):
                return self.pick(["{1, 2}", "(0..2)", "(1..N)", "{0}"])
            if inner == ("enum",):
                return self.pick(["Color", "{red}", "{red, blue}"])
            if inner == ("model",):
                return self.pick(["P", "{p1}", "{p2, p1}"])
            return self.pick(["{true}", "{true, false}", "{false}"])
        if k == "seq":
            return self.pick([f"[{self.leaf(t[1], env)}]", f"[{self.leaf(t[1], env)}, {self.leaf(t[1], env)}]"])
        if k == "map":
            dom = "Color" if t[1] == ("enum",) else "P"
            return f"{{k -> {self.leaf(t[2], env)} for k in {dom}}}"
        if k == "rec":
            return "{n: 0, ok: true}"
        if k == "qrec":
            return self.pick(["{q: [], ok: true}", "{q: [1], ok: false}", "{q: [1, 2, 3], ok: true}"])
        if k == "opt":
            return self.pick(["none", self.leaf(t[1], env)])
        return "(0, false)"

    def bool_expr(self, env: dict, d: int) -> str:
        b = ("bool",)
        i = ("int",)
        choices = [
            lambda: f"({self.expr(b, env, d)} and {self.expr(b, env, d)})",
            lambda: f"({self.expr(b, env, d)} or {self.expr(b, env, d)})",
            lambda: f"(not {self.expr(b, env, d)})",
            lambda: f"({self.expr(b, env, d)} implies {self.expr(b, env, d)})",
            lambda: f"({self.expr(i, env, d)} {self.pick(['<', '<=', '>', '>=', '==', '!='])} {self.expr(i, env, d)})",
            lambda: self.equality(env, d),
            lambda: self.membership(env, d),
            lambda: self.quantifier(env, d),
            lambda: f"(if {self.expr(b, env, d)} then {self.expr(b, env, d)} else {self.expr(b, env, d)})",
            lambda: f"{self.expr(self.pick([('rec',), ('qrec',)]), env, d)}.ok",
            lambda: f"{self.expr(('tup',), env, d)}[2]",
            lambda: self.call(b, env, d),
            lambda: f"{self.expr(('set', i), env, d)} in powerset({self.leaf(('set', i), env)})",
        ]
        return self.pick(choices)()

    def equality(self, env: dict, d: int) -> str:
        t = self.type_(1)
        return f"({self.expr(t, env, d)} {self.pick(['==', '!='])} {self.expr(t, env, d)})"

    def membership(self, env: dict, d: int) -> str:
        t = self.pick(self.BASE)
        s = ("set", t)
        op = self.pick(["in", "not in", "subset"])
        left = self.expr(s if op == "subset" else t, env, d)
        return f"({left} {op} {self.expr(s, env, d)})"

    def quantifier(self, env: dict, d: int) -> str:
        t = self.pick(self.BASE)
        v = self.fresh_local()
        inner = {**env, v: t}
        cond = f" if {self.expr(('bool',), inner, d)}" if self.chance(0.3) else ""
        return f"{self.pick(['all', 'any'])}({self.expr(('bool',), inner, d)} for {v} in {self.expr(('set', t), env, d)}{cond})"

    def call(self, t: tuple, env: dict, d: int) -> str:
        fitting = [f for f in self.defs if f[2] == t]
        if not fitting:
            return self.leaf(t, env)
        name, params, _ = self.pick(fitting)
        return f"{name}({', '.join(self.expr(pt, env, d) for _, pt in params)})"

    def int_expr(self, env: dict, d: int) -> str:
        i = ("int",)
        choices = [
            lambda: f"({self.expr(i, env, d)} + {self.expr(i, env, d)})",
            lambda: f"({self.expr(i, env, d)} - {self.expr(i, env, d)})",
            lambda: f"({self.expr(i, env, d)} * {self.pick(['2', '3', '-1', '0'])})",
            lambda: f"({self.expr(i, env, d)} * {self.expr(i, env, d)})",  # E412 bounds x = x * x
            lambda: f"({self.expr(i, env, d)} {self.pick(['//', '%'])} {self.expr(i, env, d)})",
            lambda: f"(-{self.expr(i, env, d)})",
            lambda: f"len({self.expr(self.pick([('set', i), ('seq', ('enum',))]), env, d)})",
            lambda: f"{self.pick(['min', 'max'])}({self.expr(('set', i), env, d)})",
            lambda: self.sum_expr(env, d),
            lambda: f"(if {self.expr(('bool',), env, d)} then {self.expr(i, env, d)} else {self.expr(i, env, d)})",
            lambda: f"{self.expr(('map', ('enum',), i), env, d)}[{self.expr(('enum',), env, d)}]",
            lambda: f"{self.expr(('rec',), env, d)}.n",
            lambda: f"head({self.expr(('seq', i), env, d)})",
            lambda: f"{self.expr(('seq', i), env, d)}[{self.expr(i, env, d)}]",
            lambda: f"{self.expr(('tup',), env, d)}[1]",
            lambda: self.call(i, env, d),
        ]
        return self.pick(choices)()

    def sum_expr(self, env: dict, d: int) -> str:
        v = self.fresh_local()
        return f"sum({self.expr(('int',), {**env, v: ('int',)}, d)} for {v} in {self.expr(('set', ('int',)), env, d)})"

    def set_expr(self, t: tuple, env: dict, d: int) -> str:
        inner = t[1]
        v = self.fresh_local()
        choices = [
            lambda: f"({self.expr(t, env, d)} {self.pick(['|', '&', '-'])} {self.expr(t, env, d)})",
            lambda: f"{{{self.expr(inner, env, d)}, {self.expr(inner, env, d)}}}",
            lambda: (f"{{{self.expr(inner, {**env, v: inner}, d)} for {v} in {self.expr(t, env, d)}"
                     f"{' if ' + self.expr(('bool',), {**env, v: inner}, d) if self.chance(0.4) else ''}}}"),
            lambda: f"elems({self.expr(('seq', inner), env, d)})" if inner != ("model",) else self.leaf(t, env),
            lambda: (f"domain({self.expr(('map', inner, ('int',)), env, d)})"
                     if inner in (("enum",), ("model",)) else self.leaf(t, env)),
            lambda: f"({self.expr(('int',), env, d)}..{self.pick(['0', '1', '3', 'N'])})" if inner == ("int",)
            else self.leaf(t, env),
        ]
        return self.pick(choices)()

    def seq_expr(self, t: tuple, env: dict, d: int) -> str:
        inner = t[1]
        v = self.fresh_local()
        choices = [
            lambda: f"({self.expr(t, env, d)} + {self.leaf(t, env)})",
            # `s = s + s` doubles a sequence at every step: the watchdog stops it at the time limit
            lambda: f"({self.expr(t, env, d)} + {self.expr(t, env, d)})",
            lambda: f"append({self.expr(t, env, d)}, {self.expr(inner, env, d)})",
            lambda: f"tail({self.expr(t, env, d)})",
            lambda: f"subseq({self.expr(t, env, d)}, {self.leaf(('int',), env)}, {self.leaf(('int',), env)})",
            lambda: f"[{self.expr(inner, {**env, v: ('int',)}, d)} for {v} in {self.leaf(('set', ('int',)), env)}]",
            lambda: f"{self.expr(('qrec',), env, d)}.q" if inner == ("int",) else self.leaf(t, env),
        ]
        return self.pick(choices)()

    # -- statements
    def block(self, env: dict, indent: int, depth: int, size: int | None = None) -> list[str]:
        pad = "    " * indent
        lines: list[str] = []
        env = dict(env)
        for _ in range(size or self.r.randint(1, 4)):
            k = self.pick(["require", "assign", "assign", "assign", "let", "if", "either", "with", "skip"]
                          if depth > 0 else ["require", "assign", "assign", "let", "skip"])
            if k == "require":
                lines.append(f"{pad}require {self.expr(('bool',), env, 2)}")
            elif k == "assign" and self.vars:
                var = self.pick(sorted(self.vars))
                t = self.vars[var]
                target, tt = var, t
                if t[0] == "map" and self.chance(0.5):
                    target, tt = f"{var}[{self.leaf(t[1], env)}]", t[2]
                elif t[0] == "rec" and self.chance(0.5):
                    field = self.pick(["n", "ok"])
                    target, tt = f"{var}.{field}", ("int",) if field == "n" else ("bool",)
                elif t[0] == "qrec" and self.chance(0.6):
                    field = self.pick(["q", "q", "ok"])
                    target, tt = f"{var}.{field}", ("seq", ("int",)) if field == "q" else ("bool",)
                elif t[0] == "seq" and self.chance(0.3):
                    target, tt = f"{var}[{self.leaf(('int',), env)}]", t[1]
                lines.append(f"{pad}{target} = {self.expr(tt, env, 2, top=True)}")
            elif k == "let":
                t = self.type_(1)
                v = self.name("t")
                lines.append(f"{pad}let {v} = {self.expr(t, env, 2)}")
                env[v] = t
            elif k == "if":
                lines.append(f"{pad}if {self.expr(('bool',), env, 2)}:")
                lines += self.block(env, indent + 1, depth - 1)
                if self.chance(0.3):
                    lines.append(f"{pad}elif {self.expr(('bool',), env, 2)}:")
                    lines += self.block(env, indent + 1, depth - 1)
                if self.chance(0.5):
                    lines.append(f"{pad}else:")
                    lines += self.block(env, indent + 1, depth - 1)
            elif k == "either":
                lines.append(f"{pad}either:")
                lines += self.block(env, indent + 1, depth - 1)
                for _ in range(self.r.randint(1, 2)):
                    lines.append(f"{pad}or:")
                    lines += self.block(env, indent + 1, depth - 1)
            elif k == "with":
                t = self.pick(self.BASE)
                v = self.name("w")
                lines.append(f"{pad}with {v} in {self.expr(('set', t), env, 1)}:")
                lines += self.block({**env, v: t}, indent + 1, depth - 1)
            else:
                lines.append(f"{pad}skip")
        return lines

    # -- declarations
    def spec(self) -> tuple[str, tuple[str, ...]]:
        out: list[str] = []
        if self.chance(0.5):
            out.append(f"spec {self.pick(['Fuzz', 'T', 'Notify_Race'])}")
        out.append("enum Color { red, green, blue }")
        out.append(f"const N: int = {self.r.randint(0, 3)}")
        out.append("const P: set[model] = {p1, p2}")
        self.consts.update({"N": ("int",), "P": ("set", ("model",)), "Color": ("set", ("enum",))})
        for _ in range(self.r.randint(0, 1)):
            t = self.type_(1)
            c = self.name("K")
            out.append(f"const {c}: {self.type_text(t)} = {self.expr(t, {}, 2)}")
            self.consts[c] = t
        for _ in range(self.r.randint(1, 4)):
            t = self.type_()
            v = self.name("x")
            if t[0] in ("bool", "int", "enum", "model") and self.chance(0.3):
                out.append(f"var {v}: {self.type_text(t)} in {self.expr(('set', t), {}, 1)}")
            else:
                out.append(f"var {v}: {self.type_text(t)} = {self.expr(t, {}, 2, top=True)}")
            self.vars[v] = t
        for _ in range(self.r.randint(0, 2)):
            params = [(self.name("a"), self.pick(self.BASE)) for _ in range(self.r.randint(0, 2))]
            ret = self.pick([("bool",), ("int",)])
            body = self.expr(ret, dict(params), 2)
            f = self.name("f")
            out.append(f"def {f}({', '.join(f'{p}: {self.type_text(t)}' for p, t in params)}) -> "
                       f"{self.type_text(ret)}: {body}")
            self.defs.append((f, params, ret))
        for _ in range(self.r.randint(1, 3)):
            out += self.action()
        for _ in range(self.r.randint(0, 2)):
            out.append(f"invariant {self.name('Inv')}: {self.expr(('bool',), {}, 3)}")
        if self.chance(0.2):
            out.append(f"constraint {self.name('Bound')}: {self.expr(('bool',), {}, 2)}")
        if self.chance(0.2):
            out.append(f"reachable {self.name('Reach')}: {self.expr(('bool',), {}, 2)}")
        if self.chance(0.25):
            a = self.expr(("bool",), {}, 1)
            b = self.expr(("bool",), {}, 1)
            out.append(f"property {self.name('Live')}: " + self.pick([
                f"always {a}", f"eventually {a}", f"{a} leads_to {b}", f"always eventually {a}",
                f"all({a} leads_to {b} for q in P)"]))
            if self.actions and self.chance(0.7):
                act, params = self.pick(self.actions)
                args = "(" + ", ".join("*" for _ in range(params)) + ")" if params else ""
                out.append(f"fair {self.pick(['weak', 'strong'])} {act}{args}")
        extra: tuple[str, ...] = ()
        if self.chance(0.2) and self.actions:
            act, _ = self.pick(self.actions)
            out.append(f'variant Fix "{self.pick(["a fix", "../../etc/passwd", "x; rm -rf /", ""])}":')
            out += ["    replace " + line if i == 0 else "    " + line
                    for i, line in enumerate(self.action(act, params=0))]
            out.append(f"expect base {self.pick(['holds', 'deadlocks', 'violates'])}")
            out.append(f"expect Fix {self.pick(['holds', 'deadlocks'])}")
            if self.chance(0.6):
                extra = ("--variant", "Fix")
        if self.chance(0.15):
            extra += ("-D", self.pick(["N=2", "N=0", "N=-1", "P={p1, p2, p3}", "P={}", "N=true", "N={1}",
                                       "N=__import__('os')", "N=1 + 1", "Q=1", "N", "N=" + "9" * 40]))
        return "\n".join(out) + "\n", extra

    def action(self, name: str | None = None, params: int | None = None) -> list[str]:
        name = name or self.name("Act")
        count = self.r.randint(0, 2) if params is None else params
        env: dict = {}
        header = []
        for _ in range(count):
            t = self.pick(self.BASE)
            p = self.name("q")
            header.append(f"{p} in {self.expr(('set', t), env, 1)}")
            env[p] = t
        if params is None:  # a new action, not a variant's replacement
            self.actions.append((name, count))
        actor = f" by {self.pick(['Runner', 'Parent -> Child'])}" if self.chance(0.15) else ""
        head = f"action {name}{'(' + ', '.join(header) + ')' if header else ''}{actor}:"
        return [head] + self.block(env, 1, 2)


@st.composite
def grammar_specs(draw) -> tuple[bytes, tuple[str, ...]]:
    gen = SpecGen(draw(st.randoms(use_true_random=False)))
    text, extra = gen.spec()
    return text.encode("utf-8"), extra


# ---------------------------------------------------------------- mutations

_NESTINGS = [("(", ")"), ("[", "]"), ("{", "}"), ("not ", ""), ("-", ""), ("len([", "])"), ("f(", ")"),
             ("{1 -> ", "}"), ("(if true then ", " else 0)"), ("all(true for q in ", ")")]
_DEPTHS = [2, 10, 50, 95, 98, 99, 100, 101, 102, 150, 300, 1000, 5000]
_HUGE = ["9" * 30, "9" * 31, "1" + "0" * 300, "7" * 5000, "0" * 40, "-" + "9" * 30, "2147483648"]
_BAD_BYTES = [b"\xff", b"\xc3", b"\xe2\x82", b"\x80", b"\x00", b"\xfe\xff", b"\xed\xa0\x80", b"\r", b"\x1b[31m"]


def _line(draw, lines: list[str]) -> int:
    return draw(st.integers(0, max(len(lines) - 1, 0)))


def _delete(draw, lines):
    if lines:
        del lines[_line(draw, lines)]


def _duplicate(draw, lines):
    if lines:
        i = _line(draw, lines)
        lines.insert(i, lines[i])


def _swap(draw, lines):
    if lines:
        i, j = _line(draw, lines), _line(draw, lines)
        lines[i], lines[j] = lines[j], lines[i]


def _move(draw, lines):
    if lines:
        line = lines.pop(_line(draw, lines))
        lines.insert(_line(draw, lines), line)


def _truncate(draw, lines):
    if lines:
        i = _line(draw, lines)
        lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        del lines[i + 1:]


def _reindent(draw, lines):
    if lines:
        i = _line(draw, lines)
        body = lines[i].lstrip(" \t")
        indent = draw(st.sampled_from(["", " ", "   ", "    ", "     ", "        ", "\t", "    \t", " " * 200]))
        lines[i] = indent + body


def _insert_token(draw, lines):
    if lines:
        i = _line(draw, lines)
        col = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:col] + draw(soup_token) + lines[i][col:]


def _replace_word(draw, lines):
    if lines:
        i = _line(draw, lines)
        words = list(re.finditer(r"\w+|[^\w\s]+", lines[i]))
        if words:
            m = draw(st.sampled_from(words))
            lines[i] = lines[i][:m.start()] + draw(soup_token) + lines[i][m.end():]


def _huge_literal(draw, lines):
    spots = [(i, m) for i, line in enumerate(lines) for m in re.finditer(r"\b\d+\b", line)]
    if spots:
        i, m = draw(st.sampled_from(spots))
        lines[i] = lines[i][:m.start()] + draw(st.sampled_from(_HUGE)) + lines[i][m.end():]


def _deep_nesting(draw, lines):
    spots = [(i, m) for i, line in enumerate(lines) for m in re.finditer(r"\b(\d+|true|false|[a-z]\w*)\b", line)
             if not line.lstrip().startswith("#")]
    if spots:
        i, m = draw(st.sampled_from(spots))
        opener, closer = draw(st.sampled_from(_NESTINGS))
        depth = draw(st.sampled_from(_DEPTHS))
        lines[i] = lines[i][:m.start()] + opener * depth + m.group() + closer * depth + lines[i][m.end():]


def _long_line(draw, lines):
    i = _line(draw, lines) if lines else 0
    n = draw(st.sampled_from([1000, 20000, 200000]))
    filler = draw(st.sampled_from([
        "# " + "x" * n, " and true" * (n // 9), " + 1" * (n // 4), "x" * n, "{" + ", ".join(["1"] * (n // 3)) + "}"]))
    if lines:
        lines[i] = lines[i] + filler if filler.startswith((" ", "#")) else filler
    else:
        lines.append(filler)


def _splice(draw, lines, texts: list[str]):
    other = draw(st.sampled_from(texts)).split("\n")
    start = draw(st.integers(0, max(len(other) - 1, 0)))
    piece = other[start:start + draw(st.integers(1, 6))]
    at = draw(st.integers(0, len(lines)))
    lines[at:at] = piece


_LINE_MUTATIONS = [_delete, _duplicate, _swap, _move, _truncate, _reindent, _insert_token, _replace_word,
                   _huge_literal, _deep_nesting, _long_line]


def _bytes_mutation(draw, data: bytes) -> bytes:
    kind = draw(st.sampled_from(["bad byte", "cut", "crlf", "bom", "no final newline", "tabs", "cr only"]))
    if kind == "bad byte":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.sampled_from(_BAD_BYTES)) + data[at:]
    if kind == "cut":
        return data[:draw(st.integers(0, len(data)))]
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "no final newline":
        return data.rstrip(b"\n")
    if kind == "tabs":
        return data.replace(b"    ", b"\t")
    return data.replace(b"\n", b"\r")


def mutated(texts: list[str]):
    """A strategy: one of `texts` with one to four mutations (and sometimes a byte-level one)."""
    @st.composite
    def strategy(draw) -> bytes:
        lines = draw(st.sampled_from(texts)).split("\n")
        for _ in range(draw(st.integers(1, 4))):
            op = draw(st.sampled_from(_LINE_MUTATIONS + [_splice]))
            if op is _splice:
                _splice(draw, lines, texts)
            else:
                op(draw, lines)
        data = "\n".join(lines).encode("utf-8")
        if draw(st.integers(0, 4)) == 0:
            data = _bytes_mutation(draw, data)
        return data
    return strategy()
