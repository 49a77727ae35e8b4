"""`tlacheck counterexamples`: the `counterexamples/` folder, made from the `expect ... violates`
and `expect ... deadlocks` lines of the specs in a folder.

For each such expectation the variant is built (one Pipeline for the whole folder: each file is
parsed once) and explored for that one check; its counterexample's files come from
output/artefacts.py, which only computes contents. Pure: returns the files and the problems met;
cli.py renders the diagrams and writes the folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable

from tlacheck.compile.model import Model
from tlacheck.core.result import Check, Expectation, Result, Verdict
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.output import artefacts
from tlacheck.pipeline.driver import Pipeline


@dataclass(frozen=True)
class Expected:
    spec_path: str  # as written in the artefacts, e.g. specs/classic/diehard.spec
    folder: str  # output sub-folder, e.g. classic
    variant: str
    outcome: Expectation  # VIOLATES or DEADLOCKS
    check: str | None


def expected_violations(pipeline: Pipeline, spec_path: str, folder: str, source: Source) -> list[Expected]:
    """The `expect VARIANT violates NAME` and `expect VARIANT deadlocks` lines of a spec."""
    return [Expected(spec_path, folder, e.name, e.outcome, e.check) for e in pipeline.expectations(source)
            if e.outcome in (Expectation.VIOLATES, Expectation.DEADLOCKS)]


def check_expected(model: Model, e: Expected) -> Result:
    """Explore for the one expected violation (only that invariant, property or reachable check;
    deadlock only when expected), so another check failing first cannot hide it."""
    invariants = tuple(n for n, _ in model.invariants if n == e.check)
    properties = tuple(n for n in [p.name for p in model.properties] + [n for n, _ in model.steps]
                       if n == e.check)  # temporal and step properties (Options.properties selects both)
    reachables = tuple(n for n, _ in model.reachables if n == e.check)
    return explore(model, Options(check_deadlock=e.outcome == Expectation.DEADLOCKS, invariants=invariants,
                                  properties=properties, reachables=reachables))


def regenerate(specs_dir: str, read: Callable[[str], Source]) -> tuple[dict[str, str], list[str]]:
    """Text files of `counterexamples/` (relative path -> content) for every expected violation of
    the specs under `specs_dir`, an index README.md, the manifest, and the problems met (an
    expectation that does not hold). `read` reads a spec file into a Source (the command line's
    reader)."""
    files: dict[str, str] = {}
    problems: list[str] = []
    rows = []
    root = Path(specs_dir)
    pipeline = Pipeline()
    for path in sorted(root.rglob("*.spec"), key=lambda p: p.relative_to(root).as_posix()):
        rel = path.relative_to(root)
        spec_path = (PurePosixPath(specs_dir.replace("\\", "/")) / rel.as_posix()).as_posix()
        source = read(spec_path)
        folder = rel.parent.as_posix()
        for e in expected_violations(pipeline, spec_path, folder, source):
            model = pipeline.build(source, None, e.variant)
            result = check_expected(model, e)
            v = result.violation
            wanted = Check.DEADLOCK.value if e.outcome == Expectation.DEADLOCKS else e.check
            if v is None or result.verdict in (Verdict.OK, Verdict.INCOMPLETE, Verdict.ERROR) \
                    or (e.outcome == Expectation.VIOLATES and v.name != e.check):
                found = result.verdict.value if v is None else f"{result.verdict.value} ({v.name or v.kind.value})"
                problems.append(f"{spec_path}: expected `{e.variant} {e.outcome.value} {e.check or ''}`".rstrip() +
                                f", but the check found {found}")
                continue
            if not v.trace.steps:  # e.g. a `reachable` check that fails: there is no trace to show
                continue
            name = artefacts.stem(artefacts.spec_stem(spec_path), e.variant, wanted)
            prefix = f"{folder}/{name}" if folder != "." else name
            for suffix, text in artefacts.counterexample_files(model, result, spec_path, e.variant, {}, source).items():
                files[prefix + suffix] = text
            rows.append((spec_path, e.variant, f"{e.outcome.value} {e.check or ''}".strip(), len(v.trace.steps) - 1,
                         prefix, (prefix + ".swimlanes.dot") in files))
    files["README.md"] = artefacts.index(rows)
    files[artefacts.MANIFEST] = artefacts.manifest(files)
    return files, problems
