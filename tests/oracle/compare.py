"""Check one generated spec with every oracle and classify the result.

`check_seed(seed, tlc=...)` builds the spec of `seed` (tests/oracle/generate.py) and runs:

- tlacheck in-process (checker.pipeline.driver.build_model, checker.engine.explore.explore) with exact storage,
  fingerprint storage and `workers=2` (the transition caches on), both again with everything
  spilled to disk (`--memory-budget 0`: the queue, the fingerprint table, the behaviour graph),
  fingerprint storage with the caches off (when an action has one), and the reference explorer (tests/reference_explorer.py),
  all on the safety part (invariants, constraints, deadlock) and the reachable checks. They
  explore in the same order, so they must agree on everything: verdict, distinct states, states
  generated, depth, trace length and the violated invariant (for an evaluation error: the
  verdict), and after a complete search which reachable checks hold (a stored state satisfies
  it; else the verdict is unreachable) and the trace length of each one's first witness.
  With the temporal properties too (when the spec has some), exact storage, fingerprint storage
  (also spilled) and `workers=2` must give the same answer: each records the behaviour graph its own way.
- a representation check (tests/values_check.py): every state a breadth-first walk of the
  compiled successor functions reaches uses the run-time representation of its types, and
  every successor's incrementally updated fingerprint is its fingerprint computed afresh
  (differences prefixed "representation: ").
- optionally TLC on the translation (tests/oracle/tla.py), against tlacheck with exact storage
  and the temporal properties (its differences are prefixed "TLC: "). For a complete run: verdict, distinct, generated and depth; for
  a violation: its kind, the invariant and the trace length (counts at a violation depend on
  the order within a level and are not compared); for temporal properties: the verdict.
  When the two report different violations (two invariants failing at the same depth, an
  invariant and a deadlock, ...), each reported check is run alone in both tools: they must
  agree on it, and both reports must be at the same BFS level (a violated invariant is found
  while the level before it is expanded, a deadlock while its own level is), except that
  tlacheck decides temporal properties after the search, so a property TLC reports during the
  search may come first there. Reachable checks are left out of these runs; after a complete
  search (tlacheck: ok or unreachable), each one is checked alone by TLC as an invariant it
  finds violated iff the check holds (tla.translate(spec, reachable=NAME)): it must hold in
  both or in neither, with witnesses at the same trace length.

The Outcome's status is one of: agree; error (every tool stopped with an evaluation error);
disagree (with diffs); skipped (too large, or an undecidable race; the reason says which);
generator-bug (the spec does not build); translator-bug (TLC rejected the translation, or the
translation does not cover the spec).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from tlacheck.compile.model import Model
from tlacheck.core.errors import SpecError
from tlacheck.core.result import Check, Result, Verdict
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tlacheck.pipeline.driver import build_model
from tests.oracle import tlc as tlc_runner
from tests.oracle.generate import GeneratedSpec, generate
from tests.oracle.tla import Unsupported, translate
from tests.reference_explorer import TooLarge, reference_check
from tests.values_check import state_problems


LIMIT = 3000  # distinct states: past this a spec is skipped
TIME_LIMIT_S = 30.0


@dataclass(frozen=True)
class Answer:
    """One tool's answer. verdict: ok, invariant, deadlock, temporal, unreachable, error,
    incomplete."""

    tool: str
    verdict: str
    distinct: int | None = None
    generated: int | None = None
    depth: int | None = None
    trace_length: int | None = None
    check: str | None = None  # the violated invariant or property, or the first unreachable check
    # After a complete search with reachable checks: (name, trace length of its witness) for
    # each check that holds, by name; None: no reachable check, or the search stopped early.
    witnesses: tuple[tuple[str, int], ...] | None = None

    def fields(self, counts: bool = True) -> dict:
        if self.verdict == "error":
            return {"verdict": "error"}
        out = {"verdict": self.verdict, "trace_length": self.trace_length, "check": self.check}
        if counts:
            out.update(distinct=self.distinct, generated=self.generated, depth=self.depth)
        if self.witnesses is not None:
            out.update(witnesses=self.witnesses)
        return out


@dataclass
class Outcome:
    seed: int
    status: str
    reason: str = ""
    diffs: list[str] = field(default_factory=list)
    features: frozenset[str] = frozenset()
    text: str = ""
    check_deadlock: bool = True
    tla: str | None = None  # the translation, when TLC took part
    tlc_output: str = ""  # the end of TLC's report on it

    def as_json(self) -> dict:
        return {"seed": self.seed, "status": self.status, "reason": self.reason, "diffs": self.diffs,
                "features": sorted(self.features), "check_deadlock": self.check_deadlock}


def from_result(tool: str, r: Result, reachables: bool = False) -> Answer:
    """`r` as an Answer; `reachables`: reachable checks were checked (their witnesses count)."""
    v = r.violation
    if r.verdict == Verdict.ERROR:
        return Answer(tool, "error", trace_length=len(v.trace.steps) if v else None, check=v.name if v else None)
    if r.verdict == Verdict.INCOMPLETE:
        return Answer(tool, "incomplete", r.distinct_states, r.states_generated, r.depth, check=r.stop_reason)
    witnesses = tuple(sorted((n, len(t.steps)) for n, t in r.witnesses.items())) if reachables else None
    if r.verdict == Verdict.OK:
        return Answer(tool, "ok", r.distinct_states, r.states_generated, r.depth, witnesses=witnesses)
    if r.verdict == Verdict.UNREACHABLE:
        return Answer(tool, "unreachable", r.distinct_states, r.states_generated, r.depth, check=v.name,
                      witnesses=witnesses)
    if r.verdict == Verdict.DEADLOCK:
        return Answer(tool, "deadlock", r.distinct_states, r.states_generated, r.depth, len(v.trace.steps))
    if v.kind == Check.INVARIANT:
        return Answer(tool, "invariant", r.distinct_states, r.states_generated, r.depth, len(v.trace.steps), v.name)
    safety = v.kind == Check.PROPERTY
    return Answer(tool, "temporal", r.distinct_states, r.states_generated, r.depth,
                  len(v.trace.steps) if safety else None, v.name)


def run_tlacheck(model: Model, deadlock: bool, storage: Storage = Storage.EXACT, workers: int = 1,
                 invariants: tuple[str, ...] | None = None, properties: tuple[str, ...] | None = (),
                 reachables: tuple[str, ...] | None = None, tool: str = "tlacheck", cache: bool = True,
                 budget: int | None = None) -> Answer:
    """tlacheck's answer; `invariants`, `properties`, `reachables`: () checks none, None all;
    `cache`: the transition caches on (the default) or off; `budget`: --memory-budget in MB (0:
    everything that can spill does: the queue, the fingerprint table, the behaviour graph)."""
    opts = Options(check_deadlock=deadlock, max_states=LIMIT, time_limit=TIME_LIMIT_S, storage=storage,
                   workers=workers, invariants=invariants, properties=properties, reachables=reachables,
                   check_properties=properties != () or reachables != (), cache=cache, memory_budget_mb=budget)
    return from_result(tool, explore(model, opts), reachables=bool(model.reachables) and reachables != ())


def run_reference(model: Model, deadlock: bool) -> Answer:
    return reference_answer(reference_check(model.ir, deadlock, limit=LIMIT))


def reference_answer(out) -> Answer:
    """The reference explorer's Outcome as an Answer."""
    return Answer("reference", out.verdict, out.distinct, out.generated, out.depth, out.trace_length, out.invariant,
                  out.witnesses)


def diff(a: Answer, b: Answer, counts: bool = True) -> str | None:
    fa, fb = a.fields(counts), b.fields(counts)
    if fa == fb:
        return None
    keys = [k for k in fa if fa.get(k) != fb.get(k)] or list(fa)
    return "; ".join(f"{k}: {a.tool} {fa.get(k)!r} vs {b.tool} {fb.get(k)!r}" for k in keys)


def check_seed(seed: int, tlc: bool = False) -> Outcome:
    """Run every oracle on the spec of `seed` (see the module docstring)."""
    return check_spec(generate(seed), tlc)


def check_spec(g: GeneratedSpec, tlc: bool = False, inject=None) -> Outcome:
    """As check_seed, on a generated spec. `inject(answer) -> answer`, if given, is applied to
    tlacheck's exact-storage answer before the comparisons (the tests use it to check that a
    wrong answer is reported)."""
    out = Outcome(g.seed, "agree", features=g.features, text=g.text, check_deadlock=g.check_deadlock)
    try:
        model = build_model(Source(f"oracle_{g.seed}.spec", g.text))
    except SpecError as exc:
        out.status, out.reason = "generator-bug", str(exc).splitlines()[0]
        return out
    dl = g.check_deadlock
    exact = run_tlacheck(model, dl, Storage.EXACT, tool="exact")
    if inject is not None:
        exact = inject(exact)
    if exact.verdict == "incomplete":
        out.status, out.reason = "skipped", f"too large ({exact.check})"
        return out
    others = [run_tlacheck(model, dl, Storage.FINGERPRINT, tool="fingerprint"),
              run_tlacheck(model, dl, Storage.FINGERPRINT, workers=2, tool="workers2"),
              run_tlacheck(model, dl, Storage.FINGERPRINT, tool="spilled", budget=0),
              run_tlacheck(model, dl, Storage.FINGERPRINT, workers=2, tool="workers2-spilled", budget=0)]
    if model.generated.caches:  # the transition caches off (on in every other run)
        others.append(run_tlacheck(model, dl, Storage.FINGERPRINT, tool="fingerprint-nocache", cache=False))
    try:
        others.append(run_reference(model, dl))
    except TooLarge:
        others.append(Answer("reference", "incomplete", check="more states than tlacheck's exact storage"))
    for other in others:
        d = diff(exact, other)
        if d is not None:
            out.diffs.append(d)
    if model.ir.properties:  # the behaviour graph of each store and of two workers
        mine = run_tlacheck(model, dl, properties=None, reachables=(), tool="exact+properties")
        for storage, workers, tool, budget in ((Storage.FINGERPRINT, 1, "fingerprint+properties", None),
                                               (Storage.FINGERPRINT, 2, "workers2+properties", None),
                                               (Storage.FINGERPRINT, 1, "spilled+properties", 0)):
            d = diff(mine, run_tlacheck(model, dl, storage, workers, properties=None, reachables=(), tool=tool,
                                        budget=budget))
            if d is not None:
                out.diffs.append(d)
    out.diffs += [f"representation: {p}" for p in state_problems(model, LIMIT)]
    if tlc:
        own = len(out.diffs)
        _compare_tlc(model, g, exact, out)
        if exact.witnesses is not None and out.status == "agree":
            _compare_reachables(model, exact, out)
        out.diffs[own:] = [f"TLC: {d}" for d in out.diffs[own:]]
    if out.diffs:
        out.status = "disagree"
    elif out.status == "agree" and exact.verdict == "error":
        out.status, out.reason = "error", "every tool stopped with an evaluation error"
    return out


# ---------------------------------------------------------------- TLC

def tlc_answer(model: Model, deadlock: bool, invariants: tuple[str, ...] | None = None,
               properties: tuple[str, ...] | None = None, out: Outcome | None = None) -> Answer:
    """TLC's answer on the translation of `model`'s spec, restricted to the named invariants and
    properties (None: all). Raises Unsupported, or _Rejected when TLC rejects the translation."""
    spec = model.ir
    if invariants is not None or properties is not None:
        keep_inv = tuple(p for p in spec.invariants if invariants is None or p.name in invariants)
        keep_prop = tuple(p for p in spec.properties if properties is None or p.name in properties)
        spec = dataclasses.replace(spec, invariants=keep_inv, properties=keep_prop)
    translation = translate(spec)
    if out is not None and out.tla is None:
        out.tla = translation.module + "\n\\* cfg:\n" + translation.cfg
    r = tlc_runner.run(translation, deadlock)
    if out is not None and not out.tlc_output:
        out.tlc_output = _tlc_error(r.output, 60, "\n")
    if r.verdict in ("parse", "unknown", "timeout"):
        raise _Rejected(r.verdict, r.output)
    if r.verdict == "invariant":
        name = translation.invariants.get(r.invariant)
        if name is None:  # TLC checks `always P` as an invariant, named Prop_X, or P's text
            prop = r.invariant[5:] if r.invariant.startswith("Prop_") else None
            return Answer("tlc", "temporal", r.distinct, r.generated, r.depth, r.trace_length, prop)
        return Answer("tlc", "invariant", r.distinct, r.generated, r.depth, r.trace_length, name)
    if r.verdict == "temporal":
        return Answer("tlc", "temporal", r.distinct, r.generated, r.depth)
    return Answer("tlc", r.verdict, r.distinct, r.generated, r.depth, r.trace_length if r.verdict == "deadlock" else None)


class _Rejected(Exception):
    pass


def _level(a: Answer) -> int:
    """The BFS level at which the reported violation is found (see the module docstring)."""
    return a.trace_length if a.verdict == "deadlock" else a.trace_length - 1


def _compare_tlc(model: Model, g: GeneratedSpec, exact: Answer, out: Outcome) -> None:
    dl = g.check_deadlock
    mine = exact
    if model.ir.properties or model.ir.reachables:  # TLC's module has no reachable checks
        mine = run_tlacheck(model, dl, properties=None, reachables=(), tool="exact")
    try:
        theirs = tlc_answer(model, dl, out=out)
    except Unsupported as exc:
        out.status, out.reason = "translator-bug", f"not translated: {exc}"
        return
    except _Rejected as exc:
        out.status, out.reason = "translator-bug", f"TLC: {exc.args[0]}: " + _tlc_error(exc.args[1])
        return
    if mine.verdict == "error" or theirs.verdict == "error":
        if mine.verdict == theirs.verdict:
            return
        lengths = (mine.trace_length, theirs.trace_length)
        if "ok" not in (mine.verdict, theirs.verdict) and None not in lengths and abs(lengths[0] - lengths[1]) <= 1:
            out.status, out.reason = "skipped", "an evaluation error and a violation at the same level"
            return
        out.diffs.append(f"verdict: tlacheck {mine.verdict} vs tlc {theirs.verdict}")
        return
    if mine.verdict == "ok" or theirs.verdict == "ok":
        d = diff(mine, theirs)
        if d is not None:
            out.diffs.append(d)
        return
    if mine.verdict == theirs.verdict == "temporal":
        if mine.trace_length is not None and theirs.trace_length is not None and mine.check == theirs.check \
                and mine.trace_length != theirs.trace_length:
            out.diffs.append(f"trace_length of `always {mine.check}`: tlacheck {mine.trace_length} "
                             f"vs tlc {theirs.trace_length}")
        return
    if diff(mine, theirs, counts=False) is None:
        return
    _reconcile(model, dl, mine, theirs, out)


def _alone(model: Model, dl: bool, a: Answer) -> tuple[Answer, Answer]:
    """tlacheck's and TLC's answers when only the check `a` reports is checked."""
    if a.verdict == "deadlock":
        args = dict(invariants=(), properties=())
        return run_tlacheck(model, True, reachables=(), **args), tlc_answer(model, True, **args)
    if a.verdict == "invariant":
        args = dict(invariants=(a.check,), properties=())
        return run_tlacheck(model, False, reachables=(), **args), tlc_answer(model, False, **args)
    props = (a.check,) if a.check is not None else None
    return (run_tlacheck(model, False, invariants=(), properties=props or None, reachables=()),
            tlc_answer(model, False, invariants=(), properties=props))


def _reconcile(model: Model, dl: bool, mine: Answer, theirs: Answer, out: Outcome) -> None:
    """The tools report different violations: see the module docstring."""
    for reported in (mine, theirs):
        a, b = _alone(model, dl, reported)
        d = diff(a, b, counts=False) if a.verdict != "temporal" else (
            None if a.verdict == b.verdict else f"verdict: {a.verdict} vs {b.verdict}")
        if d is not None:
            out.diffs.append(f"checked alone ({reported.verdict} {reported.check or ''}): {d}")
    if out.diffs:
        return
    if "temporal" in (mine.verdict, theirs.verdict):
        return  # tlacheck decides temporal properties after the search, TLC `always P` during it
    if _level(mine) != _level(theirs):
        out.diffs.append(f"tlacheck reports {mine.verdict} {mine.check or ''} at level {_level(mine)}, "
                         f"TLC {theirs.verdict} {theirs.check or ''} at level {_level(theirs)}")


def _compare_reachables(model: Model, exact: Answer, out: Outcome) -> None:
    """After a complete search: each reachable check holds in tlacheck (with a witness at the same
    trace length) iff TLC, checking it alone as an invariant (tla.translate(spec, reachable=...)),
    finds that invariant violated."""
    held = dict(exact.witnesses)
    for p in model.ir.reachables:
        translation = translate(model.ir, reachable=p.name)
        r = tlc_runner.run(translation, check_deadlock=False)
        if r.verdict in ("parse", "unknown", "timeout"):
            out.status, out.reason = "translator-bug", f"TLC: reachable {p.name}: {r.verdict}: " + _tlc_error(r.output)
            return
        if r.verdict == "invariant" and r.invariant == f"Reach_{p.name}":
            theirs = f"a witness at trace length {r.trace_length}"
        elif r.verdict == "ok":
            theirs = "unreachable"
        else:
            theirs = f"verdict {r.verdict}"
        mine = f"a witness at trace length {held[p.name]}" if p.name in held else "unreachable"
        if mine != theirs:
            out.diffs.append(f"reachable {p.name}: tlacheck {mine} vs tlc {theirs}")
            out.tla = (out.tla or "") + f"\n\\* reachable {p.name}, checked alone:\n{translation.module}\n" \
                f"\\* cfg:\n{translation.cfg}"
            out.tlc_output += f"\n(reachable {p.name}:)\n" + _tlc_error(r.output, 60, "\n")


def _tlc_error(output: str, n: int = 12, sep: str = " | ") -> str:
    """The last `n` lines of TLC's report that say something (not its parsing progress)."""
    lines = [x for x in output.splitlines() if x.strip() and not x.startswith(("Parsing file", "Semantic processing"))]
    return sep.join(lines[-n:])[:6000]
