"""What happens to a successor: the one admission sequence of every search.

A successor the search has not seen before is *admitted* (`Admission.admit`): the state
constraints first; a successor that fails one is not stored, but the invariants and the safety
part of the properties are checked on it (as TLC does); one that satisfies them is stored (its
written values interned, its key kept, its orbit's size, the behaviour graph's atoms: the
Recorder), the reachable checks still to witness are evaluated on it, then the invariants its
action may break and the safety properties. Every step that changes the state, to a state seen
before or not, is then checked against the step properties (`Admission.step`). explore.py's
docstring says why this is the order; `Checks` is the one owner of it.

Who calls it: the worker of levels.py (in this process or forked) for each successor its table
does not hold, a Ray partition (cluster.py) for each state sent to it, the search itself for the
initial states (levels.Coordinator, with the initial properties), and the simulator (simulate.py,
which stores nothing). What went wrong is a `Failure` (raised; in collect mode a check found
false is collected instead and no longer evaluated): each caller turns it into what it reports,
an event at a key (a worker), a violation with its trace (the search, the simulator). The search
also evaluates a worker's event again through `Checks`, so the violation and the error reported
are the ones this sequence found.

Cost. `admit` is one call per successor not seen before (the seen ones, most of them, never leave
the worker's loop); the checks are one more call. The order of the attributes read in `admit` is
the order of the work: a candidate failing a constraint reads nothing else.
"""

from __future__ import annotations

from array import array

from tlacheck.compile.model import Model
from tlacheck.core.result import Check
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.messages import UNSTORED, Admitted, Batch, Event, EventKind


class Failure(Exception):
    """A check of `kind` named `name` that is false (`error` None) or failed to evaluate (`error`),
    in a successor not stored (`unstored`: it fails a constraint) or stored; `initial`: a property
    of the initial states. A constraint's Failure is always an evaluation error."""

    def __init__(self, kind: Check, name: str | None, error: BaseException | None = None, unstored: bool = False,
                 initial: bool = False):
        super().__init__(kind, name)
        self.kind = kind
        self.name = name
        self.error = error
        self.unstored = unstored
        self.initial = initial

    def event(self, key: int) -> Event:
        """The event a worker reports for it at `key` (messages.py)."""
        if self.kind == Check.CONSTRAINT:
            return Event(key, EventKind.CONSTRAINT_FAULT)
        if self.kind == Check.STEP:
            return Event(key, EventKind.STEP)
        return Event(key, EventKind.INVARIANT, UNSTORED if self.unstored else None)

    @property
    def note(self) -> str:
        """What was being evaluated, for an error's message: "evaluating invariant Inv"."""
        return f"evaluating {self.kind.noun} {self.name}"


def placement(model: Model, error: BaseException, note: str, span) -> tuple | None:
    """Where a MemoryError or a RecursionError raised while `note` is placed and what it says,
    found from its traceback as one process finds it (Model.limit_error; `span`: what was being
    evaluated): (note, position, whether a recursion, message). The search reports it there
    without evaluating again, since neither need recur: memory may be free again, and how deep a
    recursion may go depends on the stack it starts from, which is deeper in a worker's expansion
    than where the search would evaluate it again. None for any other error (the search
    evaluates it again)."""
    if not isinstance(error, (MemoryError, RecursionError)):
        return None
    placed = model.limit_error(error, note, span)
    return note, placed.span, isinstance(error, RecursionError), placed.message


class Checks:
    """What a search checks, in the order one process checks it (explore.py): the state
    constraints; the invariants, then the safety part of the temporal properties (`state`, each
    (name, predicate, kind)), on every state not seen before; the properties true of the initial
    states (`initially`) on those; the step properties (`steps`, (name, predicate)) on every step
    that changes the state. In collect mode (`tlacheck verify`) a check found false is collected
    (`collected`: (where, Failure)) and dropped: it is not evaluated again."""

    def __init__(self, model: Model, invariants: tuple = (), always: tuple = (), initially: tuple = (),
                 steps: tuple = (), collect: bool = False):
        self.model = model
        self.constraints = model.constraints
        self.state = (tuple((name, f, Check.INVARIANT) for name, f in invariants)
                      + tuple((name, f, Check.PROPERTY) for name, f in always))
        self.initially = tuple((name, f, Check.PROPERTY) for name, f in initially)
        self.steps = tuple(steps)
        self.collect = collect
        self.dropped: set[str] = set()
        self.collected: list[tuple] = []

    def by_action(self) -> list[tuple]:
        """Per action, the state checks a step of it may break: every safety property, and the
        invariants that read a variable it writes (the others keep the parent's value)."""
        model = self.model
        return [tuple(c for c in self.state if c[2] != Check.INVARIANT or model.invariant_reads[c[0]] & writes)
                for writes in model.action_writes]

    def in_model(self, state: tuple) -> bool:
        """Whether `state` satisfies the state constraints; raises the Failure of one that fails
        to evaluate."""
        for name, con in self.constraints:
            try:
                if not con(state):
                    return False
            except EVAL_FAILURES as exc:
                raise Failure(Check.CONSTRAINT, name, exc) from None
        return True

    def check(self, state: tuple, checks: tuple, where=None, unstored: bool = False, initial: bool = False) -> None:
        """Evaluate `checks` on `state`: the first false or failing to evaluate is raised (collect
        mode: a false one is collected at `where`, and the others evaluated)."""
        dropped = self.dropped
        for name, pred, kind in checks:
            if dropped and name in dropped:
                continue
            try:
                ok = pred(state)
            except EVAL_FAILURES as exc:
                raise Failure(kind, name, exc, unstored, initial) from None
            if not ok:
                self._false(Failure(kind, name, None, unstored, initial), where)

    def check_step(self, state: tuple, succ: tuple, where=None) -> None:
        """Evaluate the step properties on the step from `state` to `succ`, as `check`."""
        dropped = self.dropped
        for name, pred in self.steps:
            if dropped and name in dropped:
                continue
            try:
                ok = pred(state, succ)
            except EVAL_FAILURES as exc:
                raise Failure(Check.STEP, name, exc) from None
            if not ok:
                self._false(Failure(Check.STEP, name), where)

    def failing(self, state: tuple, checks: tuple, before: tuple | None = None) -> Failure | None:
        """The first of `checks` false or failing to evaluate in `state` (with `before`, the step
        properties on the step from it), nothing collected: what the simulator's shrinking compares."""
        collect, self.collect = self.collect, False
        try:
            if before is None:
                self.check(state, checks)
            else:
                self.check_step(before, state)
        except Failure as failure:
            return failure
        finally:
            self.collect = collect
        return None

    def _false(self, failure: Failure, where) -> None:
        if not self.collect:
            raise failure
        self.dropped.add(failure.name)
        self.collected.append((where, failure))

    def drop(self, name: str) -> None:
        """Check `name` no more (collect mode: it is reported once)."""
        self.dropped.add(name)

    def take_collected(self) -> list[tuple]:
        collected, self.collected = self.collected, []
        return collected


class Admission:
    """The admission sequence (the module docstring) of one worker, of the search's initial states or
    of the simulator: `admit` a successor not seen before, `step` every step. With `keep` the
    states admitted are kept, level by level (`begin`, then `admitted()`), in `kept` (a Batch:
    their keys, fingerprints, actions and states, the values an action writes interned in `pools`); with
    `recorder`, the behaviour graph's atoms; with `sized`, the size of each one's orbit (the
    caller's `size`). Without `keep` (the simulator) nothing is stored; `admit` says whether the
    successor is in the model. `queue`: what holds the states kept (a worker's
    statequeue.StateQueue; None: a list)."""

    def __init__(self, model: Model, checks: Checks, keep: bool = True, pools=None, recorder=None,
                 sized: bool = False, queue=None):
        self.model = model
        self.checks = checks
        self.keep = keep
        self.pools = pools
        self.recorder = recorder
        self.sized = sized
        self.queue = queue
        self.constraints = bool(model.constraints)
        self.replan()
        self.begin(())

    def replan(self) -> None:
        """Per action: the state checks a step of it may break, and the slots of the values it writes
        that go through a pool (again when the pools change: ValuePools.review)."""
        pools = self.pools
        self.plan = [(invs, () if pools is None else
                      tuple(sorted(q for q in writes if pools.pools[q] is not None and not pools.scalar[q])))
                     for invs, writes in zip(self.checks.by_action(), self.model.action_writes)]

    def begin(self, pending: tuple) -> None:
        """A new level: nothing admitted yet; `pending`: the reachable checks still to witness."""
        self.kept = Batch(sizes=array("q") if self.sized else None,  # the states stored
                          states=self.queue() if self.queue is not None else [])
        self.reach = [(name, pred) for name, pred in self.model.reachables if name in pending]
        self.witnesses: dict[str, int] = {}
        self.faults: dict[str, int] = {}
        self.placed: dict = {}

    def admit(self, k: int, ai: int, succ: tuple, fp: int, size: int = 0) -> bool:
        """Admit `succ`, a successor by action `ai` not seen before, at key `k` (its fingerprint
        `fp`, its orbit's `size`): whether it is in the model (stored, with `keep`). Raises the
        first Failure."""
        invs, interned = self.plan[ai]
        if self.constraints and not self.checks.in_model(succ):
            if invs:
                self.checks.check(succ, invs, k, unstored=True)
            return False
        if self.keep:
            succ = self._store(k, ai, succ, fp, interned, size)
        if invs:
            self.checks.check(succ, invs, k)
        return True

    def admit_initial(self, k: int, state: tuple, fp: int) -> bool:
        """Admit an initial state not seen before, as `admit`, with every state check and then the
        properties true of the initial states (stored: its action is recorded as 0)."""
        checks = self.checks
        if self.constraints and not checks.in_model(state):
            checks.check(state, checks.state, k, unstored=True)
            checks.check(state, checks.initially, k, unstored=True, initial=True)
            return False
        if self.keep:
            self._store(k, 0, state, fp, (), 0)
        if checks.state:  # (most models have few checks: a call less per initial state without)
            checks.check(state, checks.state, k)
        if checks.initially:
            checks.check(state, checks.initially, k, initial=True)
        return True

    def step(self, state: tuple, succ: tuple, k: int) -> None:
        """The step properties on the step from `state` to `succ` (which differs from it), at key `k`."""
        self.checks.check_step(state, succ, k)

    def _store(self, k: int, ai: int, succ: tuple, fp: int, interned: tuple, size: int) -> tuple:
        if interned:  # the values it writes, shared with equal ones queued (pools.py)
            pools = self.pools.pools
            values = [*succ]
            for q in interned:
                v = values[q]
                values[q] = pools[q].setdefault(v, v)
            succ = tuple(values)
        self.kept.add(k, ai, succ, fp, size)
        if self.recorder is not None:
            self.recorder.stored(succ)
        if self.reach:
            self._reachables(k, succ)
        return succ

    def _reachables(self, k: int, state: tuple) -> None:
        """The reachable checks still to witness, on a state stored at `k`: a check is decided by
        its first witness or evaluation error (an event only if no state before it witnessed the
        check: levels.Coordinator)."""
        resolved = False
        for name, pred in self.reach:
            try:
                if pred(state):
                    self.witnesses[name] = k
                    resolved = True
            except EVAL_FAILURES as exc:
                self.faults[name] = k
                where = placement(self.model, exc, f"evaluating {Check.REACHABLE.noun} {name}",
                                  self.model.span_of(Check.REACHABLE.value, name))
                if where is not None:
                    self.placed[Event(k, EventKind.REACHABLE_FAULT, name)] = where
                resolved = True
        if resolved:
            self.reach = [(n, p) for n, p in self.reach if n not in self.witnesses and n not in self.faults]

    def admitted(self, events: list, placed: dict, collected: list) -> Admitted:
        """What this level admitted (the states stay in `kept`), with the events met among them."""
        values = self.recorder.values() if self.recorder is not None else None
        placed.update(self.placed)
        kept = self.kept
        return Admitted(kept.keys, kept.fps, kept.acts, self.witnesses, self.faults, events, placed, values,
                        kept.sizes, collected)


def failure_event(model: Model, failure: Failure, key: int, placed: dict) -> Event:
    """The event a worker reports for `failure` at `key`, its MemoryError or RecursionError placed
    in `placed`."""
    event = failure.event(key)
    if failure.error is not None:
        where = placement(model, failure.error, failure.note, model.span_of(failure.kind.value, failure.name))
        if where is not None:
            placed[event] = where
    return event

