"""`tlacheck verify`: every variant of a spec against its `expect` lines.

For each variant named in an expectation, the model is explored once in
collecting mode (every invariant, property, reachable check and deadlock is
decided, each failure with a shortest counterexample); theorems go to the SMT
module. A deadlock fails "every check" (`expect V holds`) unless the variant
declares `deadlock: allowed`; `expect V deadlocks` is decided either way. With a
SimOptions (`verify --simulate`, `pytest --tlacheck-simulate`) the variant is
simulated instead, in collecting mode: a violation found is a real
counterexample, so `violates` and `deadlocks` can be met, and a `holds` not
refuted is reported as such with a note that it is not a proof; reachable
checks and the liveness of temporal properties, which simulation does not
decide, give `unchecked` (neither met nor failed). Each expectation becomes one
`Row`: expected outcome, actual outcome, and the evidence. Pure: returns rows;
cli.py prints them.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Callable

from tlacheck.compile.model import Model
from tlacheck.core.errors import Diagnostic, SpecError, suggest
from tlacheck.core.result import Answer, Check, Expectation, Result, Trace, Verdict, Violation
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore, symmetry_not_applied
from tlacheck.engine.options import Options
from tlacheck.engine.simulate import SimOptions, simulate
from tlacheck.lang import syntax as S
from tlacheck.lang.variants import BASE
from tlacheck.pipeline.driver import Pipeline


@dataclass
class Row:
    file: str
    spec: str
    variant: str
    check: str  # a check name, DEADLOCK, or ALL
    expected: Expectation
    got: Answer
    states: int | None
    seconds: float
    trace_length: int | None  # steps in the counterexample or witness
    evidence: Violation | Trace | None  # the counterexample (or witness) behind `got`
    model: Model | None
    note: str = ""
    span: object = None
    replay: str | None = None  # for a fix that holds: where the base counterexample is now blocked
    blocked_state: int | None = None  # ... the state whose step it blocks (1: the initial state; replay.py)
    blocked_line: int | None = None  # ... and the line of the guard (or other cause) that blocks it
    base: tuple[Model, Violation] | None = None  # ... and that base counterexample, with its model

    @property
    def ok(self) -> bool:
        return self.got.meets(self.expected)

    @property
    def unchecked(self) -> bool:
        """Simulation cannot decide this expectation (a reachable check, a liveness property)."""
        return self.got == Answer.UNCHECKED


@dataclass
class _Run:
    model: Model
    result: Result
    seconds: float


@dataclass
class Reporting:
    """What `verify_source` tells its caller while it runs (each optional): `warn(diagnostic)`, once
    per warning (the spec's own, W2xx, of every variant explored; and the run's, code None);
    `progress(variant)`, the progress callback of the search or simulation of that variant (every
    `progress_every` seconds); `stop`,
    a threading.Event: once set, the variant being explored stops and no other is started;
    `max_states`: a bound on the distinct states of each variant's search, which, once reached,
    stops the run as `stop` does (`stop_reason` then says `max_states`)."""

    warn: Callable[[Diagnostic], None] | None = None
    progress: Callable[[str], Callable | None] | None = None
    progress_every: float = 5.0
    stop: object = None
    max_states: int | None = None
    stop_reason: str | None = None  # why the run stopped early: set with `stop` by whoever sets it

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()


def verify_source(source: Source, overrides: dict | None = None, simulation: SimOptions | None = None,
                  deadlock: bool | None = None, reporting: Reporting | None = None,
                  pipeline: Pipeline | None = None) -> list[Row]:
    """Decide every expectation of one spec file (by simulation, with `simulation`). `deadlock`:
    whether a deadlock fails an expectation on all checks (True: `--deadlock`, False:
    `--no-deadlock`; None: as each variant's `deadlock:` declaration says). Stopped (`reporting`),
    it returns the rows decided before the stop, in order: an expectation whose variant was not
    explored to the end is never given a row. Every variant is built by `pipeline` (a new one by
    default): the file, and each file it imports or refines, is parsed once."""
    reporting = reporting or Reporting()
    pipeline = pipeline or Pipeline()
    expects = pipeline.expectations(source)
    runs: dict[str, _Run] = {}
    rows = []
    warned: set = set()
    for e in expects:
        if e.name not in runs:
            runs[e.name] = _explore(pipeline, source, overrides, e.name, simulation, reporting, warned)
        if reporting.stopped():
            return rows
        row = _row(source, e, runs[e.name], simulation, deadlock)
        if row.check == ALL and e.outcome == Expectation.HOLDS:
            _warn(reporting, warned, _nothing_to_check_in_variant(runs[e.name].model, e.name, deadlock))
        rows.append(row)
    _replay_base_counterexamples(pipeline, source, overrides, rows, runs, simulation, deadlock, reporting, warned)
    return rows


ALL = "all checks"  # the check of an expectation without a name: every check of the variant
DEADLOCK = Check.DEADLOCK.value  # the check of `expect V deadlocks`


def _warn(reporting: Reporting, warned: set, diagnostic: Diagnostic | None, variant: str = BASE) -> None:
    """Tell the caller a warning, once however many variants give it; one first given by a
    variant (of the variant's own text, or of the base's as the variant changes it: a variable
    no longer read) says which."""
    key = None if diagnostic is None else (diagnostic.code, diagnostic.message, diagnostic.span)
    if key is None or key in warned or reporting.warn is None:
        return
    warned.add(key)
    if variant != BASE:
        diagnostic = dataclasses.replace(diagnostic, message=f"{diagnostic.message} (in variant {variant})")
    reporting.warn(diagnostic)


def _nothing_to_check_in_variant(model: Model, variant: str, deadlock: bool | None) -> Diagnostic | None:
    """`expect V holds` of a variant that has nothing to check (nothing_to_check)."""
    message = nothing_to_check(model, unchecked_deadlock(model, deadlock))
    return None if message is None else Diagnostic(None, f"variant {variant} of {model.name}: {message}", None,
                                                   nothing_to_check_hint(model), "warning")


def unchecked_deadlock(model: Model, deadlock: bool | None) -> str | None:
    """Why a run of `model` does not report deadlocks (None: it does), as the reports say it.
    `deadlock`: --deadlock (True), --no-deadlock (False), or None: as the spec declares."""
    if deadlock is True or (deadlock is None and not model.deadlock_allowed):
        return None
    if deadlock is False:
        return "--no-deadlock"
    if not model.var_names and not model.action_info:  # its one state has no step to take
        return "the spec has no variables and no actions"
    return "the spec says `deadlock: allowed`"


def _failures(model: Model, result: Result, deadlock: bool | None) -> list[Violation]:
    """The violations that fail `expect V holds` (every check): all but a deadlock that the
    variant allows (or --no-deadlock, unless --deadlock)."""
    deadlock_fails = deadlock if deadlock is not None else not model.deadlock_allowed
    return [v for v in result.violations if v.kind != Check.DEADLOCK or deadlock_fails]


def _replay_base_counterexamples(pipeline: Pipeline, source: Source, overrides, rows: list[Row], runs: dict,
                                 simulation=None, deadlock: bool | None = None, reporting: Reporting | None = None,
                                 warned: set | None = None) -> None:
    """For each fix that makes a check hold which the base spec violates, replay the base
    counterexample against the fix and record the step (and guard) that now blocks it. For a fix
    that holds on every check (`expect Fix holds`), the base counterexample replayed is the one
    that fails the base on every check (the first of them)."""
    from tlacheck.conform.replayer import replay
    from tlacheck.output.report import trace_json
    from tlacheck.output.savedtrace import TraceFileError, load

    candidates = [r for r in rows if r.variant != BASE and r.got == Answer.HOLDS and r.check != DEADLOCK]
    if not candidates:
        return
    if BASE not in runs:
        runs[BASE] = _explore(pipeline, source, overrides, BASE, simulation, reporting or Reporting(),
                              set() if warned is None else warned)
    base = runs[BASE]
    if base.result.verdict == Verdict.INCOMPLETE:  # stopped: no base counterexample to trust
        return
    for row in candidates:
        if row.check == ALL:
            violation = next((v for v in _failures(base.model, base.result, deadlock) if v.trace.steps), None)
        else:
            violation = next((v for v in base.result.violations if v.name == row.check and v.trace.steps), None)
        if violation is None:
            continue
        t = violation.trace
        saved = {"kind": violation.kind.value, "name": violation.name, "trace": trace_json(base.model, t),
                 "loop_index": t.loop_index, "closing": None if t.closing is None else {
                     "action": base.model.action_info[t.closing.action].name,
                     "args": base.model.args_json(t.closing.action, t.closing.args)}}
        row.base = (base.model, violation)
        try:
            outcome = replay(row.model, load(saved, row.model))
        except TraceFileError as exc:
            row.replay = f"the base counterexample cannot be replayed against this variant: {exc}"
            continue
        if outcome.replays:
            row.replay = "the base counterexample still replays step for step (the check changed, not the path)"
            continue
        cause = outcome.causes[0] if outcome.causes else None
        row.blocked_state = outcome.state
        row.blocked_line = cause.span.line if cause is not None and cause.span is not None else None
        where = f" ({cause.span.file}:{cause.span.line})" if cause is not None and cause.span is not None else ""
        why = f": {cause.message}{where}" if cause is not None else ""
        which = f" to {violation.name or violation.kind.value}" if row.check == ALL else ""
        row.replay = (f"the base counterexample{which} ({len(t.steps) - 1} steps) is blocked at state {outcome.state}"
                      f"{f' ({outcome.action})' if outcome.action else ''}, {outcome.outcome.value.replace('_', ' ')}"
                      f"{why}")


def _explore(pipeline: Pipeline, source: Source, overrides, variant: str, simulation: SimOptions | None,
             reporting: Reporting, warned: set) -> _Run:
    model = pipeline.build(source, overrides, variant)
    for w in model.warnings:
        _warn(reporting, warned, w, variant)
    progress = reporting.progress(variant) if reporting.progress is not None else None
    start = time.perf_counter()
    if simulation is None:
        options = Options(collect=True, check_deadlock=True, stop=reporting.stop, max_states=reporting.max_states)
        unreduced = symmetry_not_applied(model, options)
        if unreduced is not None:
            _warn(reporting, warned, Diagnostic(None, f"symmetry is not applied: {unreduced}", None, None, "warning"))
        result = explore(model, options, progress=progress, progress_every=reporting.progress_every)
        if result.stop_reason == "max_states" and reporting.stop is not None:  # undecided: stop as at an interrupt
            reporting.stop_reason = "max_states"
            reporting.stop.set()
    else:
        result = simulate(model, dataclasses.replace(simulation, collect=True, check_deadlock=True,
                                                     stop=reporting.stop), progress=progress,
                          progress_every=reporting.progress_every)
    return _Run(model, result, time.perf_counter() - start)


def _checks(model: Model) -> dict[str, Check]:
    """The kind of each check `expect` may name, by name (a refinement is checked as a step property
    too: its kind is REFINEMENT)."""
    out = {}
    for kind, names in ((Check.INVARIANT, [n for n, _ in model.invariants]),
                        (Check.PROPERTY, [p.name for p in model.properties]),
                        (Check.STEP, [n for n, _ in model.steps]), (Check.REACHABLE, [n for n, _ in model.reachables]),
                        (Check.THEOREM, model.theorems), (Check.REFINEMENT, [c.name for c in model.refinements])):
        for name in names:
            # a property with step conjuncts (`always P and always (x' >= x)`) is a property and a
            # step under one name: it is a property (its liveness is not decided by simulation)
            out.setdefault(name, kind)
    return out


def nothing_to_check(model: Model, unchecked_deadlock: str | None) -> str | None:
    """Why a run of every check of `model` checks nothing but that its expressions evaluate (None:
    it checks something): no invariant, temporal or step property, reachable check or refinement,
    and deadlocks not checked, for the reason `unchecked_deadlock` (None: they are checked).
    Theorems are `prove`'s, not the search's."""
    if unchecked_deadlock is None or any(kind != Check.THEOREM for kind in _checks(model).values()):
        return None
    return ("nothing to check: the spec declares no invariant, property or reachable check, and deadlocks are "
            f"not checked ({unchecked_deadlock})")


def nothing_to_check_hint(model: Model) -> str:
    prove = "; `tlacheck prove` decides its theorems" if model.theorems else ""
    return f"the run can only find evaluation errors: declare an invariant (`invariant NAME: EXPR`) or a property{prove}"


def _row(source: Source, e: S.ExpectDecl, run: _Run, simulation: SimOptions | None = None,
         deadlock: bool | None = None) -> Row:
    row = _decided(source, e, run, deadlock)
    if simulation is None:
        return row
    # simulation: a violation found is real, nothing found is not a proof, and some checks it
    # does not decide at all
    model = run.model
    kind = _checks(model).get(e.check) if e.check is not None else None
    if kind == Check.THEOREM:
        return row
    liveness = kind == Check.PROPERTY and any(p.name == e.check and p.has_liveness for p in model.properties)
    if kind == Check.REACHABLE or liveness and row.got != Answer.VIOLATES:
        what = "reachable checks" if kind == Check.REACHABLE else "liveness"
        return dataclasses.replace(row, got=Answer.UNCHECKED, evidence=None, trace_length=None,
                                   note=f"simulation does not decide {what}")
    if row.got == Answer.HOLDS:
        sim = run.result.simulation
        return dataclasses.replace(row, note=f"no violation in {sim.behaviours:,} behaviours (simulation, seed "
                                             f"{sim.seed}): not a proof")
    return row


def _decided(source: Source, e: S.ExpectDecl, run: _Run, deadlock: bool | None = None) -> Row:
    model, result = run.model, run.result
    base = dict(file=source.name, spec=model.name, variant=e.name, expected=e.outcome,
                states=result.distinct_states, seconds=run.seconds, model=model, span=e.span)
    if e.outcome == Expectation.DEADLOCKS or e.check is None:
        # `deadlocks` asks whether the variant has a deadlock, whatever the spec allows; every check
        # includes deadlock unless the spec declares `deadlock: allowed` (or --no-deadlock says so,
        # and --deadlock includes it anyway)
        if e.outcome == Expectation.DEADLOCKS:
            failures = [v for v in result.violations if v.kind == Check.DEADLOCK]
        else:
            failures = _failures(model, result, deadlock)
        evidence = failures[0] if failures else None
        got = Answer.VIOLATES if failures else Answer.HOLDS
        check = DEADLOCK if e.outcome == Expectation.DEADLOCKS else ALL
        note = "" if not failures else f"{failures[0].kind.value} {failures[0].name or ''}".strip()
        return Row(check=check, got=got, trace_length=_length(evidence), evidence=evidence, note=note, **base)
    checks = _checks(model)
    if e.check not in checks:
        hint = suggest(e.check, checks)
        raise SpecError.single("E100", f"variant `{e.name}` has no check named `{e.check}`", e.check_span,
                               f"did you mean `{hint}`?" if hint else
                               "name an invariant, property, reachable check, theorem or refinement")
    kind = checks[e.check]
    if kind == Check.THEOREM:
        return _theorem_row(model, e, base)
    failed = next((v for v in result.violations if v.name == e.check), None)
    if kind == Check.REACHABLE:
        witness = result.witnesses.get(e.check)
        got = Answer.HOLDS if witness is not None else Answer.VIOLATES
        return Row(check=e.check, got=got, trace_length=_length(witness), evidence=witness, **base)
    got = Answer.VIOLATES if failed is not None else Answer.HOLDS
    return Row(check=e.check, got=got, trace_length=_length(failed), evidence=failed, **base)


def _theorem_row(model: Model, e: S.ExpectDecl, base: dict) -> Row:
    try:
        from tlacheck.prove import smt
    except ImportError:  # pragma: no cover - smt ships with tlacheck
        return Row(check=e.check, got=Answer.UNKNOWN, trace_length=None, evidence=None,
                   note="the SMT module is not available", **base)
    start = time.perf_counter()
    outcome = smt.decide(model, e.check)
    base = dict(base, seconds=time.perf_counter() - start, states=None)
    return Row(check=e.check, got=outcome.verdict, trace_length=None, evidence=None,
               note=outcome.summary, **base)


def _length(evidence) -> int | None:
    if evidence is None:
        return None
    trace = evidence.trace if isinstance(evidence, Violation) else evidence
    return max(0, len(trace.steps) - 1) if trace.steps else None
