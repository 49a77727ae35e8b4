"""The search: `explore(model, options)` explores a Model's state space, level by level, with
one driver (levels.py): on fingerprints, in this process or, with `options.workers` > 1, in
several; or on exact storage, in this process, with every violation in collect mode; with the
behaviour graph when temporal properties need it (in this process); always with the same Result.
This docstring is where the meanings of the search and of its counts are defined.

Guarantees: states are explored level by level, so the first invariant
violation found is at minimal depth and its trace is a shortest one; a
deadlock (a state with no successor at all, as in TLC) is reported with a
shortest trace too. Counts have TLC's meanings: `states_generated` counts the
initial states and every successor computed (duplicates included, and
successors failing a state constraint); `distinct_states` counts stored
states; `depth` is the BFS depth with initial states at depth 1 (and 1 when no
state is stored, as TLC says).

What is checked where, as in TLC: the invariants and the safety part of the
temporal properties (P and `always P`: liveness.safety_checks) are checked on
every state the search generates that it has not stored before, also on those
that fail a state constraint, which only decides whether a state is stored and
explored; reachable checks look at the stored states; step properties
(`always P` with P reading x') are checked on every step the search computes,
to a new state or not, after the invariants of a new state (a step that
changes nothing satisfies them); the liveness part of the properties is decided
on the stored graph after a complete search.

Deterministic: actions run in declaration order, parameters and choices in
canonical order, so the same model gives the same counts and the same trace.

Storage (Options.storage): by default the seen-set holds 64-bit fingerprints
(checker/engine/fingerprints.py) with a parent index and the fingerprint per
state (checker/engine/stores.py), 28 to 44 bytes a state; traces are rebuilt by
re-executing the actions along the parent links and matching the stored keys
(checker/engine/traces.py). Two states with the same fingerprint would be
merged (probability reported as TLC does). `Storage.EXACT` keeps every state
and cannot collide; collect mode uses it. Both give the same counts and traces.
Temporal properties add the behaviour graph (liveness.Graph: per state the
values of the properties' predicates, per transition its successor's number
and the fairness conditions it takes), on either storage: no state is kept for
them, and a counterexample's states are found again by running the spec.
"""

from __future__ import annotations

import gc

from tlacheck.compile.model import Model
from tlacheck.core.result import Result
from tlacheck.engine.levels import Coordinator
from tlacheck.engine.options import Options, ProgressCallback, Storage, unreduced_cause


def explore(model: Model, options: Options = Options(), progress: ProgressCallback | None = None,
            progress_every: float = 5.0) -> Result:
    """Explore every reachable state of `model` and return the first violation, if any.

    The cyclic garbage collector is paused meanwhile (and restored after): states and the
    explorer's tables hold no reference cycles, and its passes over millions of live tuples
    cost 4-18% of the time (docs/performance.md). Reference counting still frees memory."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _explore(model, options, progress, progress_every)
    finally:
        if paused:
            gc.enable()


def one_process_reason(options: Options) -> str | None:
    """Why a search with `options.workers` > 1 runs in one process anyway (None: it does not)."""
    if options.storage != Storage.FINGERPRINT:
        return "exact storage runs in one process"
    if options.collect:
        return "collecting every violation runs in one process"
    return None if Coordinator.available() else "this platform cannot fork worker processes"


def budget_unused(options: Options) -> str | None:
    """Why --memory-budget does not bound this search's queue and fingerprint table (None: it
    does, or none was given)."""
    if options.memory_budget_mb is not None and options.ray is not None:
        return ("--memory-budget has no effect with --ray: the partition actors keep their queues and "
                "fingerprint tables in memory")
    return None


def symmetry_not_applied(model: Model, options: Options) -> str | None:
    """Why a spec with `symmetric` sets is explored without the reduction (None: it is reduced,
    or there is nothing to reduce). Only the level-synchronous search stores orbits: the
    liveness checker needs every state of the graph (a lasso through renamed states is not one
    of the spec's behaviours), and so does an exact store."""
    if not model.symmetry or not options.symmetry:
        return None
    cause = unreduced_cause(model, options)
    return None if cause is None else _UNREDUCED[cause]


# How each cause of an unreduced search (options.unreduced_cause) is told.
_UNREDUCED = {"temporal": "temporal properties are decided on the graph of every state "
                          "(use --property/--invariant to check the rest reduced)",
              "exact": "exact storage keeps every state",
              "collect": "collecting every violation explores every state"}


def _explore(model: Model, options: Options, progress, progress_every: float) -> Result:
    if options.ray is not None:
        from tlacheck.engine.cluster import explore_on_ray
        return explore_on_ray(model, options, progress, progress_every, options.ray or None, options.ray_actors)
    exact = options.storage != Storage.FINGERPRINT or options.collect
    workers = options.workers if one_process_reason(options) is None else 1
    return Coordinator(model, options, progress, progress_every, workers, exact=exact).run()
