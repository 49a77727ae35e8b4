"""Results of `tlacheck prove`: verdicts of theorems, covers of cubes, predicate diffs.

Nothing here talks to Z3 (smt.py does); this module holds the finite-domain
algebra the results are stated in, and their text and JSON forms.

An `Input` is one variable of a predicate (a theorem's `forall` binder or a
function's parameter) with its finite, ordered domain of run-time values. A
`Cube` restricts every input to a non-empty subset of its domain (given as
indices into `Input.values`); it denotes the product of those subsets and
prints as a condition such as
`forkEnabled and isTeammate and not isRemote and runInBackground != true`.
A `Cover` is a list of cubes whose union is exactly a set of input
combinations (the counterexamples of a theorem, or the inputs on which two
functions differ).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from math import prod

from tlacheck import SCHEMA_VERSION
from tlacheck.core import types as T
from tlacheck.core.errors import Diagnostic
from tlacheck.core.runtime import NONE
from tlacheck.core.source import Span
from tlacheck.core.values import format_value, to_json


class Outcome(Enum):
    """The verdict on one theorem. `unknown` is never reported as proved."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


# ---------------------------------------------------------------- inputs and cubes

@dataclass(frozen=True)
class Input:
    """One variable of a predicate and its finite domain, in display order
    (false before true, none first, enum members in declaration order, ints ascending)."""

    name: str
    type: T.Type
    values: tuple

    def format(self, value) -> str:
        return format_value(value, self.type)

    def json(self, value):
        return to_json(value, self.type)

    @property
    def type_text(self) -> str:
        """The type as declared, with an int's range: `bool?`, `ForkEnv`, `0..3`."""
        inner = self.type.inner if isinstance(self.type, T.OptionT) else self.type
        ints = [v for v in self.values if v is not NONE]
        if not isinstance(inner, T.IntT):
            return str(self.type)
        text = f"{ints[0]}..{ints[-1]}" if ints else "int (empty range)"
        return f"{text}?" if isinstance(self.type, T.OptionT) else text


Cube = tuple  # tuple[frozenset[int], ...]: per input, the indices of the values it allows


def domain_values(t: T.Type, bounds: tuple[int, int] | None) -> tuple:
    """Every run-time value of a finite scalar type, in display order.
    `bounds` is the (lo, hi) range of an int, or of the int inside an option."""
    if isinstance(t, T.OptionT):
        return (NONE,) + domain_values(t.inner, bounds)
    if isinstance(t, T.BoolT):
        return (False, True)
    if isinstance(t, T.SortT):
        return tuple(range(len(t.members)))
    if isinstance(t, T.IntT) and bounds is not None:
        return tuple(range(bounds[0], bounds[1] + 1))
    raise ValueError(f"{t} has no finite domain")


def full_cube(inputs: tuple[Input, ...]) -> Cube:
    return tuple(frozenset(range(len(i.values))) for i in inputs)


def point_cube(point: tuple[int, ...]) -> Cube:
    """The cube holding exactly one input combination (given as value indices)."""
    return tuple(frozenset((v,)) for v in point)


def cube_size(cube: Cube) -> int:
    return prod(len(s) for s in cube)


def cube_contains(cube: Cube, point: tuple[int, ...]) -> bool:
    return all(v in s for v, s in zip(point, cube))


def _intersect(a: Cube, b: Cube) -> Cube | None:
    parts = tuple(x & y for x, y in zip(a, b))
    return None if any(not p for p in parts) else parts


def cube_minus(a: Cube, b: Cube) -> list[Cube]:
    """Disjoint cubes whose union is a minus b (the sharp product)."""
    if _intersect(a, b) is None:
        return [a]
    pieces = []
    prefix = list(a)
    for k, (x, y) in enumerate(zip(a, b)):
        rest = x - y
        if rest:
            pieces.append(tuple(prefix[:k]) + (rest,) + tuple(a[k + 1:]))
        prefix[k] = x & y
    return pieces


def disjoint(cubes) -> list[Cube]:
    """Pairwise disjoint cubes with the same union as `cubes`."""
    out: list[Cube] = []
    for c in cubes:
        pieces = [c]
        for d in out:
            pieces = [p for piece in pieces for p in cube_minus(piece, d)]
        out.extend(pieces)
    return out


def union_size(cubes) -> int:
    """The number of input combinations in the union of `cubes` (exact, not a sum)."""
    return sum(cube_size(c) for c in disjoint(cubes))


def covered_by(cube: Cube, others) -> bool:
    """Whether every combination in `cube` lies in one of `others`."""
    pieces = [cube]
    for d in others:
        pieces = [p for piece in pieces for p in cube_minus(piece, d)]
        if not pieces:
            return True
    return not pieces


def irredundant(cubes: list[Cube]) -> list[Cube]:
    """Drop, in order, every cube covered by the cubes kept so far and those after it."""
    kept = list(cubes)
    i = 0
    while i < len(kept):
        if covered_by(kept[i], kept[:i] + kept[i + 1:]):
            del kept[i]
        else:
            i += 1
    return kept


def span_cube(cubes) -> Cube | None:
    """The smallest cube containing every cube given: the conditions they all share."""
    cubes = list(cubes)
    if not cubes:
        return None
    return tuple(frozenset().union(*parts) for parts in zip(*cubes))


def literal(inp: Input, allowed: frozenset[int]) -> str | None:
    """One input's part of a condition (None when the input is unconstrained)."""
    n = len(inp.values)
    if len(allowed) == n:
        return None
    name = inp.name
    chosen = sorted(allowed)
    if inp.type == T.BOOL:
        return name if inp.values[chosen[0]] else f"not {name}"
    if len(chosen) == 1:
        return f"{name} == {inp.format(inp.values[chosen[0]])}"
    if len(chosen) == n - 1:
        missing = next(i for i in range(n) if i not in allowed)
        return f"{name} != {inp.format(inp.values[missing])}"
    values = [inp.values[i] for i in chosen]
    ints = [v for v in values if v is not NONE]
    inner = inp.type.inner if isinstance(inp.type, T.OptionT) else inp.type
    if isinstance(inner, T.IntT) and len(ints) > 2 and ints == list(range(ints[0], ints[-1] + 1)):
        run = f"{name} in {ints[0]}..{ints[-1]}"
        return run if len(ints) == len(values) else f"({name} == none or {run})"
    return f"{name} in {{{', '.join(inp.format(v) for v in values)}}}"


def condition(inputs: tuple[Input, ...], cube: Cube) -> str:
    """A cube as a condition in the spec language's syntax (`true` for the full cube)."""
    parts = [lit for inp, s in zip(inputs, cube) if (lit := literal(inp, s)) is not None]
    return " and ".join(parts) if parts else "true"


# ---------------------------------------------------------------- results

@dataclass(frozen=True)
class Cover:
    """Cubes whose union is exactly the described set (when `complete`).

    `total` is the number of input combinations in the union; a cube's own
    count may overlap another's. `complete` is False when the enumeration
    stopped at the timeout: then the cubes describe only part of the set."""

    cubes: tuple[Cube, ...]
    total: int
    complete: bool = True


@dataclass(frozen=True)
class TheoremResult:
    name: str
    span: Span | None
    inputs: tuple[Input, ...]
    outcome: Outcome
    counterexample: tuple | None = None  # value indices, one per input
    cover: Cover | None = None  # with --all: every counterexample
    reason: str | None = None  # for unknown: why Z3 gave up
    elapsed_s: float = 0.0
    vacuous: bool = False  # proved only because the hypothesis of `A implies B` is never true

    @property
    def domain_size(self) -> int:
        return prod(len(i.values) for i in self.inputs)


@dataclass(frozen=True)
class Flip:
    """Inputs on which the old function returns `old` and the new one `new`."""

    old: object
    new: object
    cover: Cover


@dataclass(frozen=True)
class DiffResult:
    function: str
    old_label: str  # e.g. "base"
    new_label: str  # e.g. "Fix1"
    inputs: tuple[Input, ...]
    returns: T.Type
    flips: tuple[Flip, ...]
    complete: bool  # False: stopped at the timeout, more differences may exist
    reason: str | None = None
    elapsed_s: float = 0.0

    @property
    def domain_size(self) -> int:
        return prod(len(i.values) for i in self.inputs)

    @property
    def differing(self) -> int:
        return sum(f.cover.total for f in self.flips)


@dataclass
class ProofReport:
    spec: str
    file: str
    variant: str
    timeout_s: float
    theorems: list[TheoremResult] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def outcome(self) -> Outcome:
        """refuted if any theorem is refuted, else unknown if any is unknown, else proved."""
        outcomes = {r.outcome for r in self.theorems}
        for o in (Outcome.REFUTED, Outcome.UNKNOWN):
            if o in outcomes:
                return o
        return Outcome.PROVED


# ---------------------------------------------------------------- text

def _assignment(inputs, point) -> str:
    return ", ".join(f"{i.name} = {i.format(i.values[v])}" for i, v in zip(inputs, point))


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _where(span: Span | None) -> str:
    return f"    ({span.file}:{span.line})" if span else ""


def _cover_lines(inputs, cover: Cover, what: str, indent: str = "  ") -> list[str]:
    """The cubes, one per line with its count; a condition all of them share is printed once,
    above `and one of:`, and left out of each line."""
    out = []
    cubes = list(cover.cubes)
    full = tuple(frozenset(range(len(i.values))) for i in inputs)
    # an input restricted the same way in every cube is a literal they share
    common = tuple(c[0] if len(cubes) > 1 and len(set(c)) == 1 else f for c, f in zip(zip(*cubes), full))
    shared = condition(inputs, common) if cubes else "true"
    if shared != "true":
        out.append(f"{indent}  {shared}")
        out.append(f"{indent}  and one of:")
        cubes = [tuple(f if k != f else s for s, k, f in zip(cube, common, full)) for cube in cubes]
    counts = [cube_size(c) for c in cover.cubes]
    width = max((len(f"{n:,}") for n in counts), default=1)
    pad = "    " if shared != "true" else "  "
    for cube, n in zip(cubes, counts):
        out.append(f"{indent}{pad}{n:>{width},}  {condition(inputs, cube)}")
    if sum(counts) > cover.total:
        out.append(f"{indent}  (the conditions overlap: their counts add up to more than {cover.total:,})")
    if not cover.complete:
        out.append(f"{indent}  (incomplete: stopped at the timeout; more {what} may exist)")
    return out


def format_theorem(r: TheoremResult, show_cover: bool) -> list[str]:
    head = f"Theorem {r.name}: {r.outcome.value}{_where(r.span)}"
    out = [head]
    total = r.domain_size
    if r.outcome == Outcome.PROVED:
        out.append(f"  holds for all {_plural(total, 'input combination')}"
                   + (", vacuously: the hypothesis before `implies` is never true" if r.vacuous else ""))
    elif r.outcome == Outcome.UNKNOWN:
        out.append(f"  Z3 could not decide it: {r.reason or 'unknown'}")
        out.append("  (not proved; try a larger --timeout)")
    else:
        out.append(f"  counterexample: {_assignment(r.inputs, r.counterexample)}")
        if show_cover and r.cover is not None:
            cover = r.cover
            shown = f"{cover.total:,}" + ("+" if not cover.complete else "")
            out.append(f"  fails on {shown} of {_plural(total, 'input combination')}: every counterexample "
                       f"satisfies")
            out.extend(_cover_lines(r.inputs, cover, "counterexamples"))
    return out


def format_proofs(report: ProofReport, version: str, show_cover: bool) -> str:
    variant = "" if report.variant == "base" else f", variant {report.variant}"
    out = [f"tlacheck {version}: proving {report.file} (spec {report.spec}{variant})", ""]
    if not report.theorems:
        out.append("The spec declares no theorem.")
    for r in report.theorems:
        out.extend(format_theorem(r, show_cover))
        out.append("")
    counts = {o: sum(1 for r in report.theorems if r.outcome == o) for o in Outcome}
    if report.theorems:
        out.append(f"Summary: {counts[Outcome.PROVED]} proved, {counts[Outcome.REFUTED]} refuted, "
                   f"{counts[Outcome.UNKNOWN]} unknown (timeout {report.timeout_s:g} s per theorem)")
    return "\n".join(out) + "\n"


def format_diff(d: DiffResult, version: str, file: str) -> str:
    out = [f"tlacheck {version}: comparing `{d.function}` in {file}: {d.old_label} -> {d.new_label}", ""]
    total = d.domain_size
    names = ", ".join(i.name for i in d.inputs)
    out.append(f"Inputs: {names} ({_plural(total, 'combination')})")
    if not d.flips and d.complete:
        out.append(f"No difference: `{d.function}` gives the same result on every input.")
    elif d.flips:
        more = "" if d.complete else "+"
        out.append(f"Differs on {d.differing:,}{more} of {_plural(total, 'combination')}.")
        every = span_cube(c for f in d.flips for c in f.cover.cubes)
        if len(d.flips) > 1 and every is not None and condition(d.inputs, every) != "true":
            out.append(f"Every difference has: {condition(d.inputs, every)}")
        for f in d.flips:
            out.append("")
            old = format_value(f.old, d.returns)
            new = format_value(f.new, d.returns)
            more = "" if f.cover.complete else " or more"
            out.append(f"{old} -> {new} on {_plural(f.cover.total, 'combination')}{more}, where")
            out.extend(_cover_lines(d.inputs, f.cover, "of these", indent=""))
    if not d.complete:
        out.append("")
        out.append(f"Incomplete: Z3 stopped ({d.reason or 'unknown'}); more differences may exist.")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- JSON

def _allowed_json(inp: Input, allowed: frozenset[int]):
    """The values a cube allows an input: a list, or for an int input with a large range
    (always restricted to an interval) `{"min": lo, "max": hi}`, plus `"none"` for an option."""
    chosen = sorted(allowed)
    if len(inp.values) <= 32:
        return [inp.json(inp.values[v]) for v in chosen]
    ints = [inp.values[v] for v in chosen if inp.values[v] is not NONE]
    out = {"min": ints[0], "max": ints[-1]} if ints else {}
    if isinstance(inp.type, T.OptionT):
        out["none"] = any(inp.values[v] is NONE for v in chosen)
    return out


def _cube_json(inputs, cube: Cube) -> dict:
    return {
        "condition": condition(inputs, cube),
        "count": cube_size(cube),
        "inputs": {i.name: _allowed_json(i, s) for i, s in zip(inputs, cube) if len(s) < len(i.values)},
    }


def _cover_json(inputs, cover: Cover) -> dict:
    return {"total": cover.total, "complete": cover.complete,
            "cubes": [_cube_json(inputs, c) for c in cover.cubes]}


def _inputs_json(inputs) -> list:
    return [{"name": i.name, "type": i.type_text, "size": len(i.values)} for i in inputs]


def theorem_json(r: TheoremResult) -> dict:
    return {
        "name": r.name,
        "file": r.span.file if r.span else None,
        "line": r.span.line if r.span else None,
        "outcome": r.outcome.value,
        "inputs": _inputs_json(r.inputs),
        "input_combinations": r.domain_size,
        "counterexample": None if r.counterexample is None else
        {i.name: i.json(i.values[v]) for i, v in zip(r.inputs, r.counterexample)},
        "counterexamples": None if r.cover is None else _cover_json(r.inputs, r.cover),
        "reason": r.reason,
        "vacuous": r.vacuous,
        "elapsed_s": round(r.elapsed_s, 3),
    }


def proofs_json(report: ProofReport, version: str) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": "tlacheck",
        "version": version,
        "command": "prove",
        "spec": report.spec,
        "file": report.file,
        "variant": report.variant,
        "verdict": report.outcome.value,
        "timeout_s": report.timeout_s,
        "theorems": [theorem_json(r) for r in report.theorems],
        "warnings": [w.to_json() for w in report.warnings],
    }


def diff_json(d: DiffResult, version: str, file: str, warnings=()) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": "tlacheck",
        "version": version,
        "command": "prove",
        "mode": "diff",
        "file": file,
        "function": d.function,
        "old": d.old_label,
        "new": d.new_label,
        "inputs": _inputs_json(d.inputs),
        "input_combinations": d.domain_size,
        "differing": d.differing,
        "complete": d.complete,
        "reason": d.reason,
        "flips": [{"old": to_json(f.old, d.returns), "new": to_json(f.new, d.returns),
                   **_cover_json(d.inputs, f.cover)} for f in d.flips],
        "warnings": [w.to_json() for w in warnings],
        "elapsed_s": round(d.elapsed_s, 3),
    }
