"""Temporal properties on the behaviour graph: fair SCCs and lasso counterexamples.

Before the search, `Plan` says what the properties need of each state (the
values of their state predicates, the atoms) and `Fairness` of each transition;
the search records them in a `Graph` that keeps no state (levels.py), and this
module then decides each property on that graph, the way TLC does: a property is violated exactly when some behaviour
that satisfies the fairness conditions violates it, and such a behaviour can
be taken to be a lasso (a prefix, then a cycle repeated forever, or a state
in which the system stutters forever).

Properties are conjunctions (including `all(... for x in S)` over constant
sets) of these forms, where P and Q are state predicates, each decided by a
search of its own; any other formula (any nesting of the temporal operators
under not, or, implies) is decided by a tableau (tableau.py: the automaton of
its negation, run in a product with this graph):

    P                               true of the initial states      (safety)
    always P                        true of every reachable state   (safety)
    eventually P                    a fair lasso all of whose states satisfy ¬P
    always eventually P             a fair lasso whose cycle never satisfies P
    eventually always P             a fair lasso whose cycle visits a ¬P state
    P leads_to Q                    a state with P ∧ ¬Q, then a fair lasso in ¬Q
    always (P implies eventually Q) the same as P leads_to Q

The two safety forms are not decided here: `safety_checks` gives them to the
explorer, which checks them during the search on every state it generates, as
TLC checks such properties (and invariants), also on states that fail a state
constraint; a violation is a shortest finite trace. The other forms are the
liveness part (ir.Property.has_liveness says whether a property has one), decided here
after a complete search.

Fairness (TLA+'s WF/SF on ⟨A⟩_vars): a condition is *enabled* in a state when
a matching action instance has a successor different from the state, and
*taken* by a transition of a matching instance that changes the state. On a
cycle C: weak fairness holds iff the condition is taken in C or disabled in
some state of C; strong fairness iff it is taken in C or disabled in every
state of C. Stuttering forever in a state s is fair iff no condition is
enabled in s. The fair-cycle search is the Streett-style refinement: an SCC
where a strong condition is enabled but never taken loses the states where it
is enabled, and its remaining SCCs are searched again.

Counterexamples: the prefix is a shortest path (within the states the
property allows) to the cycle's entry, the state of a fair SCC nearest to the
initial states; the cycle is the shortest one through the entry, inside the
SCC, that meets every requirement (each fairness condition taken or, if weak,
disabled in a state of it; a state the property asks for), any of its steps or
states meeting any requirement. It is found breadth first over the pairs
(state, requirements met so far); past _EXACT pairs, a requirement at a time
(Checker._cycle).

Stopping: the analysis asks its `stop` callable (an interrupt, --time-limit,
--memory-limit) every few thousand states or edges of each pass over the graph
and every few reads of an atom's recorded values, and ends with `Stopped` when
told to; the properties not decided by then stay undecided.
"""

from __future__ import annotations

from array import array
from collections import deque
from bisect import bisect_right
from itertools import chain, compress, repeat
from functools import reduce
from operator import itemgetter, or_
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Callable, NamedTuple

from tlacheck.engine import tableau
from tlacheck.engine.graphstore import Column, GraphStore, Zeros
from tlacheck.core.result import Step, Trace
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.successors import nth_step
from tlacheck.ir import nodes as ir


class Stopped(Exception):
    """The analysis was told to stop before deciding every property; `reason` is the stop reason
    (`interrupted`, `time_limit`, `memory_limit`)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class EvaluationFailed(Exception):
    """A spec expression failed (runtime.EVAL_FAILURES: `error`) in stored state `state` (-1: in
    none, e.g. a quantifier's domain) while `note` ("evaluating property P"); `span` is the
    property or fairness condition. The explorer reports it as an evaluation error with the trace
    to that state."""

    def __init__(self, error: BaseException, state: int, note: str = "", span=None):
        super().__init__(note)
        self.error = error
        self.state = state
        self.note = note
        self.span = span


class _Watch:
    """Asks `stop` whether to stop. The loops call `poll` when the index of the state they are at
    is a multiple of 4,096 (passes over the graph) or of 8 (where they evaluate a predicate, spec
    code of any cost): a bit test per state, and a call now and then."""

    def __init__(self, stop: Callable[[], str | None] | None):
        self.stop = stop

    def poll(self) -> None:
        if self.stop is not None:
            reason = self.stop()
            if reason is not None:
                raise Stopped(reason)


def _bits_array(bits: int):
    """The smallest array of unsigned ints holding `bits` bits (a list above 64)."""
    for code in ("B", "H", "I", "Q"):
        if bits <= 8 * array(code).itemsize:
            return array(code)
    return []


@dataclass
class Graph:
    """The behaviour graph the search records for the liveness checker: per state (by number) what
    the properties and the fairness conditions need of it, and per transition its successor, so
    that no state is kept (TLC keeps fingerprints and successor links, not states). State i's
    transitions are edge_start[i] .. edge_start[i+1]-1, in the order the search computed them:
    transition e of state i is its successor number e - edge_start[i] (successors.nth_step), which
    is how a counterexample's states are found again. A successor of -1 left the model (it failed
    a state constraint): it counts for enabledness but is not a transition of the graph.

    A worker records its part of a level with the successors' keys (fingerprints, or ids on exact
    storage, in an array("q")); the driver appends it with the keys made numbers once the level's
    new states are numbered (levels.Coordinator._add_level)."""

    plan: "Plan"
    edge_start: array = field(default_factory=lambda: array("q"))
    succ: array = field(default_factory=lambda: array("i"))
    # Per state, 2 bits per atom of the plan (Plan.bits): its value, and whether it failed to evaluate
    values: object = None
    # Per state, the fairness conditions some state-changing step enables there; per transition,
    # those it takes (a state-changing step of a matching instance). Empty without fairness.
    enabled: object = None
    take: object = None
    # The first state (in number order) where a fairness condition's arguments failed to evaluate
    fairness_fault: int = -1
    # Per transition, the plan's step atoms (Plan.step_bits: predicates of a step, bit i atom i),
    # aligned with `succ`; empty without step atoms (a refinement's abstract fairness needs them)
    steps: object = None
    # With --memory-budget: where the arrays above are (graphstore.py: each a Column, in memory up
    # to the store's budget, on disk beyond it); None: they are arrays in memory
    store: GraphStore | None = None

    def __post_init__(self):
        self.values = _bits_array(2 * len(self.plan.atoms))
        count = self.plan.fairness.count
        self.enabled = _bits_array(count) if count else array("B")
        self.take = _bits_array(count) if count else array("B")
        self.steps = _bits_array(len(self.plan.step_atoms)) if self.plan.step_atoms else array("B")

    def edges(self, s: int) -> range:
        end = self.edge_start[s + 1] if s + 1 < len(self.edge_start) else len(self.succ)
        return range(self.edge_start[s], end)

    _COLUMNS = ("edge_start", "succ", "values", "enabled", "take", "steps")

    def to_disk(self, store: GraphStore) -> None:
        """From now on, keep the arrays (what they hold so far, and what is added) in `store`'s
        columns: in memory up to its budget, on disk beyond it. A bit array that is a list (more
        than 64 bits a record) stays in memory."""
        self.store = store
        for name in self._COLUMNS:
            records = getattr(self, name)
            if isinstance(records, array):
                setattr(self, name, store.column(records.typecode, name, records))

    def settle(self) -> None:
        """The search is over: a column none of whose records went to disk becomes an array again
        (the checker's passes read an array at C speed, a column through a call)."""
        for name in self._COLUMNS:
            records = getattr(self, name)
            whole = records.whole() if isinstance(records, Column) else None
            if whole is not None:
                setattr(self, name, whole)

    def zeros(self, length: int):
        """`length` zero bits (the fairness bits when the spec has none)."""
        return bytes(length) if self.store is None else Zeros(length)

    def close(self) -> None:
        """Remove the files of a graph on disk (the graph is not read after)."""
        if self.store is not None:
            self.store.close()

    def add(self, part: "Transitions", counts, actions: int, values, number: Callable[[int, int], int]) -> None:
        """Append a worker's part of a level, its parents in index order: their transitions
        (`part`, the successors' keys made numbers by `number`, -1 for a successor not stored),
        where each parent's start (from `counts`, its successor count per action, `actions` a row),
        and the atoms of the new states it adds (`values`), whose numbers follow the stored ones."""
        start = len(self.succ)
        for p in range(0, len(counts), actions):
            self.edge_start.append(start)
            start += sum(counts[p:p + actions])
        self.succ.extend(map(number, part.succ, repeat(-1)))
        self.steps.extend(part.steps)
        self.values.extend(values)
        self.enabled.extend(part.enabled)
        self.take.extend(part.take)
        if part.fault >= 0 and (self.fairness_fault < 0 or part.fault < self.fairness_fault):
            self.fairness_fault = part.fault


class Transitions(NamedTuple):
    """A worker's part of the transitions of a level (Recorder): per transition, its successor's key
    and its step atoms; per parent, the fairness conditions enabled there; per transition, those it
    takes; the first parent whose fairness conditions failed to evaluate (-1: none)."""

    succ: array
    enabled: object
    take: object
    fault: int
    steps: object


_keys_of = itemgetter(1)  # the keys of an action's (successors, keys) (Recorder.expanded)


class Recorder:
    """What a worker records of the behaviour graph while it expands and admits a level (Graph:
    every state is kept out of it). The expansion calls `expanded` once per parent, with the
    successors of each of its actions (their keys, the step atoms, the fairness conditions enabled
    there and those its transitions take); the admission sequence calls `stored` for each state it
    stores (admission.py: the atoms' values). `transitions()` and `values()` hand the part over,
    with the worker's messages, and start the next."""

    def __init__(self, plan: "Plan"):
        self.plan = plan
        self.fair = plan.fairness if plan.fairness.count else None
        self.by_args = self.fair.by_args if self.fair is not None else frozenset()
        # {action in by_args: the arguments of its last successors}: the successor functions of
        # those actions leave them here (worker.Worker._successor_functions)
        self.args: dict = {}
        self.bits = plan.bits
        self.step_bits = plan.step_bits if plan.step_atoms else None
        self.graph = Graph(plan, succ=array("q"))

    def expanded(self, state: tuple, key: int, number: int, successors: int, taken: list,
                 complete: bool = True) -> None:
        """Parent `state` (key `key`, number `number`) is expanded, with `successors` transitions:
        `taken` holds, per action in order, its successors and their keys (the list is emptied).
        Record them, and the fairness conditions the parent enables and those its transitions
        take, unless the expansion stopped at an event in it (not `complete`). A condition's
        arguments that fail to evaluate are reported after the search, if nothing is found before
        (Graph.fairness_fault). One call per parent: the expansion's loop appends to a list."""
        graph = self.graph
        graph.succ.extend(chain.from_iterable(map(_keys_of, taken)))
        if self.step_bits is not None:
            step_bits, extend = self.step_bits, graph.steps.extend
            for succs, _ in taken:
                extend(map(step_bits, repeat(state, len(succs)), succs))
        if self.fair is not None and complete:
            by_args, args = self.by_args, self.args
            pending = [(ai, args.get(ai) if ai in by_args else None, keys) for ai, (_, keys) in enumerate(taken)]
            take = graph.take
            mark = len(take)
            try:
                graph.enabled.append(self.fair.masks(state, key, pending, take))
            except EvaluationFailed:
                del take[mark:]
                take.extend(repeat(0, successors))
                graph.enabled.append(0)
                if graph.fairness_fault < 0:
                    graph.fairness_fault = number
        taken.clear()

    def stored(self, state: tuple) -> None:
        self.graph.values.append(self.bits(state))

    def transitions(self) -> Transitions:
        """The transitions recorded since the last call."""
        g = self.graph
        self.graph = Graph(self.plan, succ=array("q"))
        self.graph.values = g.values  # (states stored are handed over apart: values())
        return Transitions(g.succ, g.enabled, g.take, g.fairness_fault, g.steps)

    def values(self):
        """The atoms of the states stored since the last call."""
        values = self.graph.values
        self.graph.values = _bits_array(2 * len(self.plan.atoms))
        return values


class Form(Enum):
    """The forms of a property's leaf (its parts, instantiated: `leaves`): each common form is
    decided by a search of its own (Checker), any other formula by a tableau; the safety forms
    are checked during the search (`safety_checks`)."""

    INITIALLY = "initially"  # a state predicate: true of the initial states
    ALWAYS = "always"
    EVENTUALLY = "eventually"
    ALWAYS_EVENTUALLY = "always_eventually"
    EVENTUALLY_ALWAYS = "eventually_always"
    LEADS_TO = "leads_to"
    TABLEAU = "tableau"  # p: (the automaton of its negation, the predicate of each literal)


@dataclass(frozen=True)
class _Leaf:
    """One supported property form, instantiated (quantifiers expanded)."""

    kind: Form
    p: object  # predicate: callable(state) -> bool
    q: object = None
    label: str = ""
    # `P implies eventually Q` (and `if P then ... else ...`): only the behaviours whose initial
    # state satisfies this predicate must satisfy the leaf (None: every behaviour)
    init: object = None


@dataclass(frozen=True)
class LivenessViolation:
    name: str
    trace: Trace  # a lasso
    detail: str


# ---------------------------------------------------------------- formulas

def _predicate(model, expr: ir.Expr, env: dict):
    fn, ids = model.temporal_predicates[expr]
    if not ids:
        return fn
    bound = tuple(env[i] for i in ids)
    return lambda s: fn(s, *bound)


def _state_formula(model, f: ir.Formula, env: dict):
    """A callable for a formula without temporal operators, or None if it has some."""
    if isinstance(f, ir.TPred):
        return _predicate(model, f.expr, env)
    if isinstance(f, ir.TUnary) and f.op == "not":
        inner = _state_formula(model, f.operand, env)
        return None if inner is None else (lambda s: not inner(s))
    if isinstance(f, ir.TBinary) and f.op in ("and", "or", "implies"):
        a = _state_formula(model, f.left, env)
        b = _state_formula(model, f.right, env)
        if a is None or b is None:
            return None
        if f.op == "and":
            return lambda s: a(s) and b(s)
        if f.op == "or":
            return lambda s: a(s) or b(s)
        return lambda s: (not a(s)) or b(s)
    return None


SAFETY = (Form.INITIALLY, Form.ALWAYS)  # the leaf forms the explorer checks during the search


def instantiate(model, names) -> dict[str, list[_Leaf]]:
    """The named properties' leaves, instantiated once (for the search's safety checks and the
    behaviour graph's Plan). Raises EvaluationFailed (state -1) when a quantifier's domain fails
    to evaluate."""
    out = {}
    for prop in model.ir.properties:
        if prop.name not in names:
            continue
        try:
            out[prop.name] = leaves(model, prop)
        except EVAL_FAILURES as exc:  # the domain of an `all(... for x in S)`
            raise EvaluationFailed(exc, -1, f"evaluating property {prop.name}", prop.span) from None
    return out


def safety_checks(model, names, instantiated: dict | None = None) -> tuple[list[tuple[str, object]], list[tuple[str, object]]]:
    """The safety leaves of the named properties, instantiated: (initially, always), each a list
    of (property name, predicate on a state); `instantiated`: their leaves (default: instantiate,
    whose errors it raises)."""
    if instantiated is None:
        instantiated = instantiate(model, names)
    initially: list = []
    always: list = []
    for name, found in instantiated.items():
        for leaf in found:
            if leaf.kind in SAFETY:
                (initially if leaf.kind == Form.INITIALLY else always).append((name, leaf.p))
    return initially, always


def leaves(model, prop: ir.Property) -> list[_Leaf]:
    """The property as a list of leaves: the common forms, each decided by its own search, and
    for any other formula (a temporal operator under `not`, `or`, `implies`...) a tableau leaf
    (tableau.py) for that part."""
    out: list[_Leaf] = []
    _expand(model, prop.formula, {}, out, prop.name)
    return out


def _tableau_leaf(model, f: ir.Formula, env: dict, label: str) -> _Leaf:
    """The leaf deciding `f` with a tableau: the automaton of its negation over literals, each
    a maximal sub-formula without temporal operators (a predicate, an atom of the Plan)."""
    preds: list = []

    def atom(pred) -> int:
        preds.append(pred)
        return len(preds) - 1

    def nnf(f: ir.Formula, env: dict, neg: bool) -> tuple:
        p = _state_formula(model, f, env)
        if p is not None:
            return tableau.lit(atom(p), not neg)
        if isinstance(f, ir.TUnary) and f.op == "not":
            return nnf(f.operand, env, not neg)
        if isinstance(f, ir.TUnary) and f.op in ("always", "eventually"):
            inner = nnf(f.operand, env, neg)
            if (f.op == "always") != neg:
                return tableau.release(tableau.FALSE, inner)
            return tableau.until(tableau.TRUE, inner)
        if isinstance(f, ir.TBinary) and f.op in ("and", "or"):
            a, b = nnf(f.left, env, neg), nnf(f.right, env, neg)
            return tableau.conj(a, b) if (f.op == "and") != neg else tableau.disj(a, b)
        if isinstance(f, ir.TBinary) and f.op == "implies":  # not P or Q
            a, b = nnf(f.left, env, not neg), nnf(f.right, env, neg)
            return tableau.disj(a, b) if not neg else tableau.conj(a, b)
        if isinstance(f, ir.TBinary) and f.op == "leads_to":  # always (not P or eventually Q)
            if not neg:
                return tableau.release(tableau.FALSE, tableau.disj(nnf(f.left, env, True),
                                                                   tableau.until(tableau.TRUE, nnf(f.right, env, False))))
            return tableau.until(tableau.TRUE, tableau.conj(nnf(f.left, env, False),
                                                            tableau.release(tableau.FALSE, nnf(f.right, env, True))))
        if isinstance(f, ir.TQuant):
            domain, ids = model.temporal_domains[f.domain]
            parts = [nnf(f.body, {**env, f.local.id: value}, neg) for value in domain(*(env[i] for i in ids))]
            every = (f.kind == "all") != neg
            out = tableau.TRUE if every else tableau.FALSE
            for x in parts:
                out = tableau.conj(out, x) if every else tableau.disj(out, x)
            return out
        raise AssertionError(f)  # pragma: no cover (every formula is one of the above)

    try:
        negated = nnf(f, env, True)
    except EVAL_FAILURES as exc:  # the domain of an `all(... for x in S)`
        raise EvaluationFailed(exc, -1, f"evaluating property {label}", f.span) from None
    return _Leaf(Form.TABLEAU, (tableau.automaton(negated), preds), label=label)


class _NotCommon(Exception):
    """A formula (or part) that is none of the common forms: the tableau decides it (_expand)."""


def _unsupported(f: ir.Formula) -> _NotCommon:
    return _NotCommon(f)


def _guarded(model, f: ir.TBinary, g, env: dict, out: list, label: str) -> None:
    """`P implies F`, P a state predicate (`g`, instantiated): F's leaves, for the behaviours
    whose initial state satisfies P. Only `eventually Q` leaves take such a condition (their
    counterexample starts at an initial state, which the condition selects); for others the
    tableau decides the whole formula (_NotCommon)."""
    start = len(out)
    _expand(model, f.right, env, out, label)
    for i in range(start, len(out)):
        leaf = out[i]
        if leaf.kind != Form.EVENTUALLY:
            raise _unsupported(f)
        inner = leaf.init
        out[i] = replace(leaf, init=g if inner is None else (lambda s, a=inner: g(s) and a(s)))


def _expand(model, f: ir.Formula, env: dict, out: list, label: str) -> None:
    """Append f's leaves: the common forms where f is one of them (or a conjunction of them),
    else one tableau leaf for f."""
    start = len(out)
    try:
        _expand_forms(model, f, env, out, label)
    except _NotCommon:
        del out[start:]
        out.append(_tableau_leaf(model, f, env, label))


def _expand_forms(model, f: ir.Formula, env: dict, out: list, label: str) -> None:
    if isinstance(f, ir.TBinary) and f.op == "and":
        _expand(model, f.left, env, out, label)
        _expand(model, f.right, env, out, label)
        return
    if isinstance(f, ir.TQuant):
        if f.kind != "all":
            raise _unsupported(f)
        domain, ids = model.temporal_domains[f.domain]
        for value in domain(*(env[i] for i in ids)):
            _expand(model, f.body, {**env, f.local.id: value}, out, label)
        return
    state = _state_formula(model, f, env)
    if state is not None:  # a plain state predicate: true of the initial states
        out.append(_Leaf(Form.INITIALLY, state, label=label))
        return
    if isinstance(f, ir.TBinary) and f.op == "implies":
        g = _state_formula(model, f.left, env)
        if g is not None:
            _guarded(model, f, g, env, out, label)
            return
    if isinstance(f, ir.TBinary) and f.op == "leads_to":
        p = _state_formula(model, f.left, env)
        q = _state_formula(model, f.right, env)
        if p is None or q is None:
            raise _unsupported(f)
        out.append(_Leaf(Form.LEADS_TO, p, q, label))
        return
    if isinstance(f, ir.TUnary) and f.op in ("always", "eventually"):
        inner = f.operand
        p = _state_formula(model, inner, env)
        if p is not None:
            out.append(_Leaf(Form(f.op), p, label=label))
            return
        if isinstance(inner, ir.TUnary) and inner.op in ("always", "eventually") and inner.op != f.op:
            p = _state_formula(model, inner.operand, env)
            if p is not None:
                out.append(_Leaf(Form(f"{f.op}_{inner.op}"), p, label=label))
                return
        if f.op == "always" and isinstance(inner, ir.TBinary) and inner.op == "implies":
            p = _state_formula(model, inner.left, env)
            right = inner.right
            if p is not None and isinstance(right, ir.TUnary) and right.op == "eventually":
                q = _state_formula(model, right.operand, env)
                if q is not None:
                    out.append(_Leaf(Form.LEADS_TO, p, q, label))
                    return
        if f.op == "always" and isinstance(inner, ir.TBinary) and inner.op == "and":
            _expand(model, ir.TUnary(f.span, "always", inner.left), env, out, label)
            _expand(model, ir.TUnary(f.span, "always", inner.right), env, out, label)
            return
        if f.op == "always" and isinstance(inner, ir.TQuant) and inner.kind == "all":
            _expand(model, ir.TQuant(inner.span, "all", inner.local, inner.domain,
                                     ir.TUnary(f.span, "always", inner.body)), env, out, label)
            return
    raise _unsupported(f)


# ---------------------------------------------------------------- fairness

def _values_at(positions: tuple) -> Callable[[tuple], object]:
    """A function giving the values at `positions` of an argument tuple: a tuple of them, or the
    value itself at one position (Fairness.masks keys its tables alike)."""
    return itemgetter(*positions) if positions else (lambda values: ())


class Fairness:
    """The spec's fairness conditions, instantiated (before the search), as bits: condition c is
    bit 1 << c. `masks` gives, for a state expanded, the conditions enabled there and those each
    of its transitions takes. `error`: what evaluating the conditions' bindings raised (reported
    by the liveness checker after the search, with `span`, as any property's evaluation error)."""

    def __init__(self, model):
        self.strong: list[bool] = []
        self.error: BaseException | None = None
        self.error_span = None
        # action -> {positions -> (mask of conditions matching any arguments there,
        #                          [(bit, values-fn)] for conditions fixing those positions)}
        groups: dict[int, dict[tuple, list]] = {}
        self.spans = []  # per condition (bit): its `fair` declaration
        for fair, (bindings_fn, arg_fns) in zip(model.ir.fairness, model.fairness):
            try:
                bindings = list(bindings_fn())
            except EVAL_FAILURES as exc:
                self.error, self.error_span = exc, fair.span
                groups.clear()
                self.strong.clear()
                break
            for binding in bindings:
                self.spans.append(fair.span)
                bit = 1 << len(self.strong)
                self.strong.append(fair.strong)
                for target, fn in zip(fair.targets, arg_fns):
                    by_positions = groups.setdefault(target.action, {})
                    if fn is None:
                        by_positions.setdefault((), [0, []])[0] |= bit
                    else:  # with `for some`, f gives the list of the values a step may have there
                        f, positions, some = fn
                        by_positions.setdefault(positions, [0, []])[1].append(
                            (bit, (lambda st, f=f, b=binding: f(st, *b)), some))
        # action -> [(positions, mask for any arguments, [(bit, fn)] fixing them)]
        # (with a function giving the values at those positions of an argument tuple, as a tuple)
        self.plan = {a: [(positions, any_mask, fixed, _values_at(positions))
                         for positions, (any_mask, fixed) in sorted(g.items())]
                     for a, g in groups.items()}
        self.count = len(self.strong)
        # The actions whose conditions depend on the arguments: the search records those
        self.by_args = frozenset(a for a, entries in self.plan.items() if any(fixed for _, _, fixed, _ in entries))

    def masks(self, state: tuple, key: int, transitions, take) -> int:
        """Append to `take` the conditions each transition of `state` takes, and return those
        enabled in `state`. `transitions`: per action, (action, its arguments per successor (None
        when no condition of it depends on them), the successors' keys); `key`: the state's. A
        step to the state itself takes nothing. Raises EvaluationFailed (state -1) when a
        condition's arguments fail to evaluate (the search records where: Fairness.fault)."""
        en = 0
        plan = self.plan
        for a, args, keys in transitions:
            entries = plan.get(a)
            n = len(keys)
            if entries is None or not n:
                take.extend(repeat(0, n))
                continue
            stutters = [*map(key.__eq__, keys)] if key in keys else None
            if stutters is not None and all(stutters):
                take.extend(repeat(0, n))
                continue
            mask = 0
            for _, any_mask, _, _ in entries:
                mask |= any_mask
            masks = [mask] * n
            if args is not None:  # per group of conditions fixing the same positions: {their values: mask}
                for positions, _, fixed, values_at in entries:
                    if not fixed:
                        continue
                    table: dict = {}
                    for bit, fn, some in fixed:
                        try:
                            found = fn(state)
                        except EVAL_FAILURES as exc:
                            raise EvaluationFailed(exc, -1, "evaluating a fairness condition",
                                                   self.spans[bit.bit_length() - 1]) from None
                        for v in (found if some else (found,)):
                            if len(positions) == 1:
                                v, = v
                            table[v] = table.get(v, 0) | bit
                    masks = [*map(or_, masks, map(table.get, map(values_at, args), repeat(0)))]
            if stutters is not None:  # a step to the state itself takes nothing
                for i in compress(range(n), stutters):
                    masks[i] = 0
            take.extend(masks)
            en |= reduce(or_, masks, 0)
        return en

    def fault(self, model, state: tuple, s: int, graph: Graph) -> "EvaluationFailed":
        """The evaluation error met in state number `s` (`state`) during the search, found again
        by the same evaluation of the same transitions."""
        succ = graph.succ
        transitions = []
        e = graph.edge_start[s]
        for a, act in enumerate(model.actions):
            args = [x for x, _ in act(state)]
            transitions.append((a, args, succ[e:e + len(args)]))
            e += len(args)
        try:
            self.masks(state, s, transitions, [])
        except EvaluationFailed as failed:
            failed.state = s
            return failed
        raise AssertionError("the fairness condition did not fail again")  # pragma: no cover


def refinement_obligations(check) -> list[tuple]:
    """The fairness conditions of a refinement's abstract spec (compile/refinement.py Check) as
    conditions on this spec's behaviours (TLA+'s
    `WF_vars(A)` in `M!Spec`, under the mapping): per condition (strong, enabled, taken,
    label), `enabled(s)` whether it is enabled in the abstract state s maps to (an instance
    of its actions has a step from there that changes it), `taken(s, t)` whether the step
    from s to t maps to such a step. Empty when the abstract spec has no fairness."""
    fair = Fairness(check.abstract)
    if fair.error is not None or not fair.count:
        return []
    actions = check.abstract.actions
    memo: dict = {}

    def analysis(a) -> tuple[int, dict]:
        """(the conditions enabled in abstract state a, {successor: the conditions its steps take})."""
        found = memo.get(a)
        if found is None:
            transitions, nexts = [], []
            for ai, act in enumerate(actions):
                pairs = list(act(a))
                args = [x for x, _ in pairs] if ai in fair.by_args else None
                transitions.append((ai, args, [t for _, t in pairs]))
                nexts += [t for _, t in pairs]
            take: list[int] = []
            enabled = fair.masks(a, a, transitions, take)
            by_successor: dict = {}
            for t, mask in zip(nexts, take):
                by_successor[t] = by_successor.get(t, 0) | mask
            found = memo[a] = (enabled, by_successor)
        return found

    def enabled_fn(bit):
        def enabled(s) -> bool:
            return bool(analysis(check.state_of(s))[0] & bit)
        return enabled

    def taken_fn(bit):
        def taken(s, t) -> bool:
            try:
                a, b = check.state_of(s), check.state_of(t)
            except EVAL_FAILURES:  # (the mapping fails in t: the search reports that state's error)
                return False
            return a != b and bool(analysis(a)[1].get(b, 0) & bit)
        return taken

    spec = check.abstract.ir
    out = []
    for c, strong in enumerate(fair.strong):
        span = fair.spans[c]
        decl = next(f for f in spec.fairness if f.span == span)
        targets = " or ".join(spec.actions[t.action].name for t in decl.targets)
        label = f"`{targets}` ({span.file}:{span.line})"
        out.append((strong, enabled_fn(1 << c), taken_fn(1 << c), label))
    return out


class Plan:
    """What the liveness checker needs of each state, decided before the search so that the
    search can record it and keep no state: the atoms (the state predicates of the properties'
    liveness leaves) and the fairness conditions."""

    def __init__(self, model, instantiated: dict[str, list], obligations: dict[str, list] | None = None):
        """`instantiated`: the leaves of the properties to decide, by name (instantiate).
        `obligations`: per refinement, the abstract fairness conditions its behaviours must
        satisfy, as (strong, enabled: predicate on a state, taken: predicate on a step, label)."""
        self.model = model
        self.atoms: list = []  # predicates on a state; Plan.bits: bit 2i its value, bit 2i+1 it failed
        self.step_atoms: list = []  # predicates on a step (s, t); Plan.step_bits: bit i
        self._index: dict[int, int] = {}
        # refinement -> [(strong, atom of `enabled`, step atom of `taken`, label)]
        self.obligations: dict[str, list[tuple]] = {}
        for name, conditions in (obligations or {}).items():
            out = []
            for strong, enabled, taken, label in conditions:
                self.step_atoms.append(taken)
                out.append((strong, self._atom(enabled), len(self.step_atoms) - 1, label))
            self.obligations[name] = out
        # property -> [(kind, atom p, atom q or -1, atom of the initial condition or -1)]; for a
        # tableau leaf, p is its index in `tableaux`: (automaton, the atom of each literal)
        self.leaves: dict[str, list[tuple]] = {}
        self.tableaux: list[tuple] = []
        for prop in model.ir.properties:
            if prop.name not in instantiated:
                continue
            out = []
            for leaf in instantiated[prop.name]:
                if leaf.kind in SAFETY:
                    continue
                if leaf.kind == Form.TABLEAU:  # (automaton, its literals' predicates): the atoms of each
                    auto, preds = leaf.p
                    self.tableaux.append((auto, tuple(self._atom(x) for x in preds)))
                    out.append((Form.TABLEAU, len(self.tableaux) - 1, -1, -1))
                    continue
                p = self._atom(leaf.p)
                q = -1 if leaf.q is None else self._atom(leaf.q)
                g = -1 if leaf.init is None else self._atom(leaf.init)
                out.append((leaf.kind, p, q, g))
            self.leaves[prop.name] = out
        self.fairness = Fairness(model)

    def _atom(self, pred) -> int:
        """The index of a predicate among the atoms: one each, however many leaves use it (the
        same compiled predicate with no bound name is one object: `all(... for i in S)` over a
        body that does not read i)."""
        i = self._index.get(id(pred))
        if i is None:
            i = self._index[id(pred)] = len(self.atoms)
            self.atoms.append(pred)  # (and keeps it alive, so that its id is not reused)
        return i

    def step_bits(self, state: tuple, succ: tuple) -> int:
        """The step atoms' values on the step from `state` to `succ` (bit i: atom i); a step atom
        that fails to evaluate counts as false (refinement.Check makes them total)."""
        v = 0
        for i, pred in enumerate(self.step_atoms):
            if pred(state, succ):
                v |= 1 << i
        return v

    def bits(self, state: tuple) -> int:
        """The atoms' values in `state`: bit 2i for atom i true, bit 2i+1 for atom i failing to
        evaluate (the checker evaluates it again, to report the error, only if it needs it)."""
        v = 0
        bit = 1
        for pred in self.atoms:
            try:
                if pred(state):
                    v |= bit
            except EVAL_FAILURES:
                v |= bit << 1
            bit <<= 2
        return v


# ---------------------------------------------------------------- graph algorithms

class _Components:
    """Tarjan's algorithm, iterative, on subgraphs of the behaviour graph given as regions: the
    states s with region[s] == r form region r. Its tables are arrays of the graph's size, made
    once and shared by every region searched (a state is visited in this pass when its index is
    at least the pass's first), so that a graph of millions of states costs some bytes a state,
    not the hundred of a dict entry."""

    def __init__(self, graph: Graph, region: array, watch: _Watch, visits: int = 1):
        n = len(region)
        self.graph = graph
        self.region = region
        self.watch = watch
        # A state is visited at most `visits` times (the counter's bound: n * visits): 4 bytes a
        # state each for index and lowlink where that fits, else 8
        code = "i" if n * visits < 1 << 31 else "q"
        self.index = array(code, [-1]) * n
        self.low = array(code, [0]) * n
        self.on_stack = bytearray(n)
        self.counter = 0

    def of(self, r: int, nodes) -> list[array]:
        """The strongly connected components of region r (its states `nodes`, in increasing
        order), each as the sorted array of its states; deterministic order."""
        index, low, on_stack, region = self.index, self.low, self.on_stack, self.region
        starts, succ, watch = self.graph.edge_start, self.graph.succ, self.watch
        first = counter = self.counter
        # The stacks as arrays: in one large component they hold every state (a list would take
        # 36 bytes an entry, with the int objects)
        stack = array("i")
        out: list[array] = []
        for root in nodes:
            if index[root] >= first:
                continue
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack[root] = 1
            work = array("i", [root])
            position = array("q", [starts[root]])
            while work:
                v = work[-1]
                e, end = position[-1], starts[v + 1]
                advanced = False
                while e < end:
                    w = succ[e]
                    e += 1
                    if w < 0 or region[w] != r:
                        continue
                    if index[w] < first:
                        position[-1] = e
                        if not counter & 0xFFF:
                            watch.poll()
                        index[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        on_stack[w] = 1
                        work.append(w)
                        position.append(starts[w])
                        advanced = True
                        break
                    if on_stack[w] and index[w] < low[v]:
                        low[v] = index[w]
                if advanced:
                    continue
                work.pop()
                position.pop()
                if work:
                    u = work[-1]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == index[v]:
                    comp = array("i")
                    while True:
                        w = stack.pop()
                        on_stack[w] = 0
                        comp.append(w)
                        if w == v:
                            break
                    out.append(_sorted(comp, len(region)))
        self.counter = counter
        return out


def _sorted(states: array, n: int) -> array:
    """The states (distinct numbers below n) in increasing order: a large set is marked in a
    bytearray of n bytes and read back in order, instead of sorting a list of int objects."""
    if len(states) < 1 << 14:
        return array("i", sorted(states))
    marks = bytearray(n)
    for s in states:
        marks[s] = 1
    return array("i", compress(range(n), marks))


@dataclass
class _FairCycle:
    """A fair SCC and what a cycle in it must do to be fair and to visit what the property asks
    for (Checker._cycle builds the cycle)."""

    nodes: list[int]
    # Weak conditions enabled somewhere in the SCC: a fair cycle takes each or visits a state where
    # it is disabled. Strong ones (each taken in the SCC): a fair cycle takes each.
    weak: int = 0
    strong: int = 0
    musts: list = field(default_factory=list)  # predicates on a state: the cycle visits one of each
    stutter: int | None = None  # a state where stuttering forever is fair


def _fair_cycles(nodes: bytearray, graph: Graph, fairness: Fairness, watch: _Watch, must_visit=None,
                 stutter: bool = True):
    """Every fair cycle (as an SCC with its requirements) or fair stuttering state among the
    states s with nodes[s] set, in a deterministic order. `must_visit(s)`: the cycle must
    contain such a state (a list of such functions: one state of each). `stutter`: a state
    where stuttering forever is fair counts (a product with an automaton has stuttering steps
    of its own: tableau.Product)."""
    enabled = graph.enabled
    take = graph.take
    starts, succ = graph.edge_start, graph.succ
    strong_mask = sum(1 << c for c, strong in enumerate(fairness.strong) if strong)
    musts = [] if must_visit is None else must_visit if isinstance(must_visit, list) else [must_visit]
    members = array("i", compress(range(len(nodes)), nodes))
    for i, s in enumerate(members):
        if not i & 0xFFF:
            watch.poll()
        if stutter and not enabled[s] and all(must(s) for must in musts):
            yield _FairCycle([s], stutter=s)
    # Regions are labelled in `region`: 1 the states given, then each component and each
    # part of one searched again its own label (a label, once searched, is never used again).
    region = array("i", iter(nodes))  # (a bytearray itself would be read as raw bytes)
    # (a state is searched again in a part of its component once per strong condition at most)
    components = _Components(graph, region, watch, 1 + len(fairness.strong))
    label = 2
    work = deque([(1, members)])
    del members
    while work:
        r, states = work.popleft()
        for comp_list in components.of(r, states):
            c = label
            label += 1
            for s in comp_list:
                region[s] = c
            taken = 0
            has_edge = False
            for i, s in enumerate(comp_list):
                if not i & 0xFFF:
                    watch.poll()
                for e in range(starts[s], starts[s + 1]):
                    t = succ[e]
                    if t < 0 or region[t] != c:
                        continue
                    has_edge = True
                    taken |= take[e]
            if not has_edge:
                continue
            en_any = 0
            en_all = -1
            for s in comp_list:
                en_any |= enabled[s]
                en_all &= enabled[s]
            missing = en_any & ~taken
            if missing & ~strong_mask & en_all:
                continue  # a weak condition enabled everywhere and never taken: no fair cycle here
            drop_bits = missing & strong_mask
            if drop_bits:
                rest = array("i", (s for s in comp_list if not enabled[s] & drop_bits))
                if rest:
                    sub = label
                    label += 1
                    for s in rest:
                        region[s] = sub
                    work.append((sub, rest))
                continue
            if not all(any(map(must, comp_list)) for must in musts):
                continue
            yield _FairCycle(comp_list, en_any & ~strong_mask, en_any & strong_mask, musts)


def _walk(graph: Graph, start: int, met: int, goal, meets, comp: set, watch: _Watch,
          budget: int | None = None) -> tuple[list[tuple[int, int]], int] | None:
    """A shortest walk of one step or more inside `comp` from `start`, where the requirements `met`
    (bits) are met, to a state t where goal(t, m) holds, m the requirements met by then (`meets(e,
    t)`: those that transition e, to t, meets). Breadth first over the pairs (state, requirements
    met): a state seen again with more requirements met is a new pair. Returns the (state, edge)
    steps and the requirements met at the end, or None when more than `budget` pairs were seen."""
    first = (start, met)
    prev: dict = {}
    queue = deque([first])
    edges, succ = graph.edges, graph.succ
    seen = 0
    while queue:
        node = queue.popleft()
        s, m = node
        seen += 1
        if not seen & 0xFFF:
            watch.poll()
        if budget is not None and seen > budget:
            return None
        for e in edges(s):
            t = succ[e]
            if t < 0 or t not in comp:
                continue
            reached = m | meets(e, t)
            pair = (t, reached)
            if goal(t, reached):
                steps = [(s, e)]
                while node != first:
                    node, pe = prev[node]
                    steps.append((node[0], pe))
                steps.reverse()
                return steps, reached
            if pair in prev or pair == first:
                continue
            prev[pair] = (node, e)
            queue.append(pair)
    raise AssertionError("no walk inside a strongly connected component")  # pragma: no cover


# The most pairs (state, requirements met) the search for the shortest cycle visits (_walk) before
# the cycle is built a requirement at a time instead (Checker._cycle)
_EXACT = 1 << 15


def _bfs(graph: Graph, seeds: list[tuple[int, int]], allowed: bytearray, watch: _Watch) -> tuple[array, array]:
    """Multi-source BFS inside the allowed states, with seed distances: per state its distance
    (-1: not reached) and the transition it is first reached by (-1: a seed)."""
    n = len(allowed)
    starts, succ = graph.edge_start, graph.succ
    seeds = sorted(seeds, key=lambda x: (x[1], x[0]))
    # (a distance is at most a seed's, a depth, plus n; an edge below the graph's count)
    dist = array("i" if 2 * n < 1 << 31 else "q", [-1]) * n
    prev = array("i" if len(graph.succ) < 1 << 31 else "q", [-1]) * n
    buckets: dict[int, list[int]] = {}
    for s, d in seeds:
        if dist[s] < 0 or d < dist[s]:
            dist[s] = d
            buckets.setdefault(d, []).append(s)
    level = min(buckets) if buckets else 0
    polled = 0
    while buckets:
        if level not in buckets:
            level = min(buckets)
        frontier = buckets.pop(level)
        for s in frontier:
            polled += 1
            if not polled & 0xFFF:
                watch.poll()
            if dist[s] != level:
                continue
            for e in range(starts[s], starts[s + 1]):
                t = succ[e]
                if t < 0 or not allowed[t]:
                    continue
                if dist[t] < 0 or dist[t] > level + 1:
                    dist[t] = level + 1
                    prev[t] = e
                    buckets.setdefault(level + 1, []).append(t)
        level += 1
    return dist, prev


# ---------------------------------------------------------------- checking

class _Without:
    """The behaviour graph without the transitions where step atom `atom` holds (Graph.steps), with
    the interface the fair-cycle search uses; edge e of it is the graph's transition under[e]."""

    def __init__(self, graph: Graph, atom: int):
        # (arrays: 20 bytes a transition kept, where lists of ints took about 100)
        self.edge_start = array("q")
        self.succ = array("i")
        self.under = array("q")
        steps, bit = graph.steps, 1 << atom
        for s in range(len(graph.edge_start) - 1):
            self.edge_start.append(len(self.succ))
            for e in graph.edges(s):
                if not steps[e] & bit:
                    self.succ.append(graph.succ[e])
                    self.under.append(e)
        self.edge_start.append(len(self.succ))
        self.enabled = graph.enabled
        self.take = [graph.take[e] for e in self.under]

    def edges(self, s: int) -> range:
        return range(self.edge_start[s], self.edge_start[s + 1])


def _nearest(cycles, dist) -> tuple[_FairCycle, int] | None:
    """The fair cycle whose nearest state is nearest (by `dist`, then by number), and that state:
    the entry of the counterexample with the shortest prefix; None without a cycle."""
    best = None
    for cycle in cycles:
        entry = min(cycle.nodes, key=lambda s: (dist[s], s))
        key = (dist[entry], entry)
        if best is None or key < best[0]:
            best = (key, cycle, entry)
    return None if best is None else best[1:]


class Checker:
    """Decides the properties of a model on its behaviour graph. `state_of(i)` gives stored state
    i again (from its key: traces.py), for a counterexample and to report an evaluation error
    met during the search. `stop` (called now and then: see the module's docstring) returns a
    reason to stop, or None; the constructor and `check` then raise Stopped."""

    def __init__(self, model, graph: Graph, parents, depth, state_of: Callable[[int], tuple],
                 stop: Callable[[], str | None] | None = None):
        self.model = model
        self.graph = graph
        self.plan = graph.plan
        self.state_of = state_of
        self.parents = parents
        self.depth = depth  # BFS depth of each state (initial states: 0)
        self.n = len(parents)
        self.watch = _Watch(stop)
        self.watch.poll()
        fairness = self.plan.fairness
        if fairness.error is not None:
            raise EvaluationFailed(fairness.error, -1, "evaluating a fairness condition", fairness.error_span)
        if graph.fairness_fault >= 0:
            s = graph.fairness_fault
            raise fairness.fault(model, state_of(s), s, graph)
        self.fairness = fairness
        graph.settle()
        if not fairness.count:  # nothing recorded: no condition is enabled or taken anywhere
            graph.enabled, graph.take = graph.zeros(self.n), graph.zeros(len(graph.succ))
        if len(graph.edge_start) == self.n:  # the end of the last state's transitions
            graph.edge_start.append(len(graph.succ))
        self.initial = [i for i, p in enumerate(parents) if p < 0]
        self.decided: list[str] = []  # properties found to hold or violated so far, by `check`

    def check(self, names=None, stop_at_first: bool = True) -> list[LivenessViolation]:
        """The properties whose liveness part is violated (each with one counterexample), in
        declaration order, then the refinements whose abstract fairness is (Plan.obligations).
        The properties' safety leaves were checked during the search (`safety_checks`)."""
        out = self._properties(names, stop_at_first)
        if out and stop_at_first:
            return out
        for name, conditions in self.plan.obligations.items():
            if names is not None and name not in names:
                continue
            for strong, enabled, taken, label in conditions:
                self.watch.poll()
                found = self._obligation(name, strong, enabled, taken, label)
                if found is not None:
                    out.append(found)
                    break
            self.decided.append(name)
            if out and stop_at_first:
                break
        return out

    def _obligation(self, name: str, strong: bool, enabled: int, taken: int, label: str):
        """A fair behaviour that violates the abstract fairness condition `label` of refinement
        `name`: a fair cycle (or fair stuttering) in which it is enabled in every state (weak; in
        some state: strong) and never taken, with the shortest prefix."""
        n = self.n
        holds = [self._holds(enabled, s) for s in range(n)]
        sub = _Without(self.graph, taken)
        nodes = bytearray([1]) * n if strong else bytearray(holds)
        must = holds.__getitem__ if strong else None
        best = _nearest(_fair_cycles(nodes, sub, self.fairness, self.watch, must), self.depth)
        if best is None:
            return None
        cycle, entry = best
        trace = self._lasso(cycle, entry, self._prefix(entry, None, True), sub)
        what = "strong" if strong else "weak"
        return LivenessViolation(name, trace, f"its abstract spec's {what} fairness of {label} fails: a fair behaviour "
                                              f"in which that step is {'enabled again and again' if strong else 'always enabled'} "
                                              "but never taken")

    def _properties(self, names, stop_at_first: bool) -> list[LivenessViolation]:
        out = []
        for prop in self.model.ir.properties:
            if names is not None and prop.name not in names:
                continue
            try:
                for leaf in self.plan.leaves[prop.name]:
                    self.watch.poll()
                    found = self._check_leaf(prop.name, *leaf)
                    if found is not None:
                        out.append(found)
                        break
            except EvaluationFailed as failed:
                failed.note, failed.span = f"evaluating property {prop.name}", prop.span
                raise
            self.decided.append(prop.name)
            if out and stop_at_first:
                break
        return out

    def _holds(self, atom: int, s: int) -> bool:
        """Whether the atom held in state s, as the search recorded it (Plan.bits); where it
        failed to evaluate, the error, found again in the state."""
        if not s & 7:
            self.watch.poll()
        bits = self.graph.values[s] >> (2 * atom)
        if bits & 2:
            try:
                self.plan.atoms[atom](self.state_of(s))
            except EVAL_FAILURES as exc:
                raise EvaluationFailed(exc, s) from None
            raise AssertionError("the predicate did not fail again")  # pragma: no cover
        return bool(bits & 1)

    def _check_leaf(self, name: str, kind: Form, p: int, q: int, g: int) -> LivenessViolation | None:
        n = self.n
        if kind == Form.EVENTUALLY:  # (from the initial states that satisfy the condition g, if any)
            allowed = bytearray(not self._holds(p, s) for s in range(n))
            seeds = [(s, 0) for s in self.initial if allowed[s] and (g < 0 or self._holds(g, s))]
            return self._search(name, allowed, seeds, None,
                                "a fair behaviour in which the predicate never holds")
        if kind == Form.ALWAYS_EVENTUALLY:
            allowed = bytearray(not self._holds(p, s) for s in range(n))
            return self._search(name, allowed, None, None,
                                "a fair behaviour in which the predicate eventually never holds again")
        if kind == Form.EVENTUALLY_ALWAYS:
            must = (lambda s: not self._holds(p, s))
            return self._search(name, bytearray([1]) * n, None, must,
                                "a fair behaviour in which the predicate is false infinitely often")
        if kind == Form.LEADS_TO:
            allowed = bytearray(not self._holds(q, s) for s in range(n))
            seeds = [(s, self.depth[s]) for s in compress(range(n), allowed) if self._holds(p, s)]
            return self._search(name, allowed, seeds, None,
                                "the left side holds, then the right side never does", from_tree=True)
        if kind == Form.TABLEAU:
            return self._tableau(name, *self.plan.tableaux[p])
        raise AssertionError(kind)  # pragma: no cover

    def _tableau(self, name: str, auto, atoms: tuple) -> LivenessViolation | None:
        """A fair behaviour that the automaton of the negated formula accepts: a fair cycle of
        the product visiting each acceptance set, with the shortest prefix in the product; its
        steps projected on the behaviour graph (the automaton's own stuttering steps dropped)."""
        product = tableau.Product(self.graph, self.initial, auto, lambda a, s: self._holds(atoms[a], s), self.watch)
        n = len(product.state)
        if not product.initial:
            return None
        dist, prev = _bfs(product, [(k, 0) for k in product.initial], bytearray([1]) * n, self.watch)
        reach = bytearray(d >= 0 for d in dist)
        musts = [acc.__getitem__ for acc in product.accepting]
        best = _nearest(_fair_cycles(reach, product, self.fairness, self.watch, musts, stutter=False), dist)
        if best is None:
            return None
        cycle, entry = best
        prefix = []
        k = entry
        while prev[k] >= 0:
            e = prev[k]
            source = bisect_right(product.edge_start, e) - 1
            prefix.append((source, e))
            k = source
        prefix.reverse()
        loop = self._cycle(cycle, entry, product)

        def project(steps):
            return [(product.state[k], product.under[e]) for k, e in steps if product.under[e] >= 0]

        start = product.state[entry]
        shown = project(loop)
        if not shown:  # the system stutters in the entry state forever
            trace = self._trace(project(prefix), start, None, stutter=True)
        else:
            trace = self._trace(project(prefix), start, shown)
        return LivenessViolation(name, trace, "a fair behaviour that does not satisfy the formula")

    def _search(self, name, allowed: bytearray, seeds, must, detail, from_tree: bool = False):
        """The fair cycle inside the allowed states (allowed[s] set) with the shortest prefix.
        `seeds`: (state, distance) where the restricted prefix may start (None: any reachable
        state, reached by the BFS tree)."""
        if 1 not in allowed:
            return None
        if seeds is None:
            reach = allowed
            dist = self.depth
            prev = None
        else:
            if not seeds:
                return None
            dist, prev = _bfs(self.graph, seeds, allowed, self.watch)
            reach = bytearray(map((-1).__lt__, dist))
        best = _nearest(_fair_cycles(reach, self.graph, self.fairness, self.watch, must), dist)
        if best is None:
            return None
        cycle, entry = best
        return LivenessViolation(name, self._lasso(cycle, entry, self._prefix(entry, prev, from_tree)), detail)

    def _lasso(self, cycle: _FairCycle, entry: int, prefix, sub: "_Without | None" = None) -> Trace:
        """The counterexample: `prefix` to `entry`, then the cycle (in `sub`, a part of the graph
        whose edges map to the graph's) or stuttering in `entry` forever."""
        if cycle.stutter is not None:
            return self._trace(prefix, entry, None, stutter=True)
        loop = self._cycle(cycle, entry, sub)
        if sub is not None:
            loop = [(s, sub.under[e]) for s, e in loop]
        return self._trace(prefix, entry, loop)

    def _prefix(self, entry: int, prev, from_tree: bool) -> list[tuple[int, int]]:
        """(state, edge) steps from an initial state to `entry`."""
        steps: list[tuple[int, int]] = []
        s = entry
        if prev is not None:  # the transition each state was first reached by (-1: a seed)
            starts = self.graph.edge_start
            while prev[s] >= 0:
                e = prev[s]
                p = bisect_right(starts, e) - 1  # the state whose transitions include e
                steps.append((p, e))
                s = p
            if not from_tree:
                steps.reverse()
                return steps
        tree = self._tree_path(s)
        steps.reverse()
        return tree + steps

    def _tree_path(self, s: int) -> list[tuple[int, int]]:
        path = []
        while self.parents[s] >= 0:
            p = self.parents[s]
            path.append((p, self._edge_between(p, s)))
            s = p
        path.reverse()
        return path

    def _edge_between(self, s: int, t: int) -> int:
        return next(e for e in self.graph.edges(s) if self.graph.succ[e] == t)

    def _cycle(self, cycle: _FairCycle, entry: int, graph=None) -> list[tuple[int, int]]:
        """Steps from `entry` around the SCC back to `entry` (in `graph`: the behaviour graph, or a
        part or a product of it) that make a fair cycle and visit what the property asks for: the
        shortest such cycle through `entry`; where finding it would visit more than _EXACT pairs
        of a state and the requirements met (_walk), shortest walks each to the nearest state
        meeting some requirement not met yet, then back. Each requirement is met by any step or
        state of the cycle that meets it, the entry included."""
        graph = self.graph if graph is None else graph
        comp = set(cycle.nodes)
        enabled, take = graph.enabled, graph.take
        weak, conditions, musts = cycle.weak, cycle.weak | cycle.strong, cycle.musts
        shift = self.fairness.count  # a `must` is bit shift + its index, after the conditions
        full = conditions | (((1 << len(musts)) - 1) << shift)
        memo: dict[int, int] = {}

        def at(t: int) -> int:  # the requirements state t meets
            found = memo.get(t)
            if found is None:
                found = ~enabled[t] & weak
                for j, must in enumerate(musts):
                    if must(t):
                        found |= 1 << (shift + j)
                memo[t] = found
            return found

        def meets(e: int, t: int) -> int:
            return (take[e] & conditions) | at(t)

        met = at(entry)
        found = _walk(graph, entry, met, lambda t, m: t == entry and m == full, meets, comp, self.watch, _EXACT)
        if found is not None:
            return found[0]
        steps: list[tuple[int, int]] = []
        here = entry
        while met != full:
            part, met = _walk(graph, here, met, lambda t, m, before=met: m != before, meets, comp, self.watch)
            steps += part
            here = graph.succ[part[-1][1]]
        if here != entry or not steps:
            steps += _walk(graph, here, met, lambda t, m: t == entry, meets, comp, self.watch)[0]
        return steps

    def _trace(self, prefix, end: int, loop, stutter: bool = False) -> Trace:
        """The lasso's states found again: from the first state, each transition e of state s is
        s's successor number e - edge_start[s] (the order the search computed them in)."""
        first = prefix[0][0] if prefix else end
        state = self.state_of(first)
        steps = [Step(None, (), state)]
        starts = self.graph.edge_start
        for s, e in list(prefix) + list(loop or ()):
            step = nth_step(self.model, steps[-1].state, e - starts[s])
            steps.append(step)
        if loop is None:
            return Trace(tuple(steps), len(steps) - 1 if stutter else None)
        loop_index = len(prefix)
        # the last step returns to the entry state: drop it, the loop index says where it goes
        return Trace(tuple(steps[:-1]), loop_index, closing=steps[-1])
