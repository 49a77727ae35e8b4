"""The one candidate-set matcher: a recorded run matched against the behaviours of a spec.

`tlacheck replay` (a saved counterexample), `tlacheck conform` (logs of a real system), the
online monitor and the pytest fixture all match through this module; they differ only in how
they read events (conform/replayer.py, output/logs.py, conform/runs.py); the events and the
markers of unlogged steps are core/events.py's.

A recorded run is a sequence of `Event`s. An event stands for one spec step of a named action
with some or all of its arguments, or for a step of any action (the run did not record which),
or for a sequence of steps (a composed event: the code did two spec steps in one logged event);
and it records a partial state: some variables' values after it. An `initial` event records
(part of) the initial state.

The candidate set (the *frontier*) holds every state the spec can be in after the events so
far, agreeing with everything recorded. Matching one event: from each candidate, up to
`max_gap` unlogged steps (of the `silent` actions, or of any action that is not `lazy` when the
spec names no silent one), then the event's step or steps; the states reached that agree with
the recorded variables form the next frontier. When nothing matches and the spec declares
`lazy` actions (environment steps such as message loss, never logged), the event is tried again
with up to `max_lazy` lazy steps allowed among the unlogged ones, and with the lazy actions among
those an event without an action may stand for. Unlogged variables and nondeterministic choices
are thereby resolved by search, breadth-first over the events, bounded by the frontier, never by
the state space.

Deterministic: the frontier is ordered (candidates in order, gap states breadth-first, actions
in declaration order, successors in the model's canonical order) and deduplicated keeping the
first occurrence, except that a state reached without a failed check replaces one reached with
one (so a verdict "a check fails" means every matching behaviour fails it).

Memory grows with the frontier, not with the run: each candidate keeps a link to the state it
came from, and every `COMPACT_EVERY` events the history behind the frontier's common ancestor
is compacted to three integers per spec step (action, the successor's number among that action's
successors, the event) from which `trace` rebuilds the states by running the spec again.

Checks along the way (MatchOptions.checks): the invariants and the safety part of the temporal
properties on every state of a candidate's behaviour (gap states included), the initial checks
(and the refinements' initial conditions) on its initial state, the step properties (and the
refinements' steps) on each of its steps; a candidate remembers the first check that failed along
its behaviour (`Node.broken`). Checks are made when a state enters the frontier, so the states
tried in vain are never checked. Liveness is not decided: a finite run satisfies no `eventually`.

Several processes (`run_merged`): one stream of events per process, each in its own order, and a
relation `precedes(e, f)` (happens-before, from logical clocks or timestamps). A candidate is then a
state with a cursor per stream, and each round takes, from each candidate, every event that is
next in its stream and that no other stream's next event precedes: the search explores every
interleaving consistent with happens-before.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass, field

from tlacheck.compile.instrument import Instrumented
from tlacheck.compile.model import Model
from tlacheck.core.errors import EvalError
from tlacheck.core.events import GAP, INITIAL, LAZY, Call, Event
from tlacheck.core.result import Check, Step, Trace
from tlacheck.core.runtime import EVAL_FAILURES, Fault
from tlacheck.engine.limits import limit_reached
from tlacheck.engine.liveness import EvaluationFailed
from tlacheck.engine.options import Options, select, step_properties
from tlacheck.engine.search import temporal_checks

# How often (in events) the history behind the frontier's common ancestor is compacted, and how
# often the resident memory is read for --memory-limit.
COMPACT_EVERY = 256
_MEMORY_EVERY = 256

_UNCHECKED = object()  # Node.broken before the checks are made


@dataclass(frozen=True)
class MatchOptions:
    max_gap: int = 0  # unlogged spec steps before each event
    max_lazy: int = 1  # lazy steps among them, when the event matches nothing without
    silent: tuple[int, ...] | None = None  # the actions that may fill a gap (None: any not lazy)
    lazy: tuple[int, ...] = ()
    checks: Options | None = None  # which checks to make along the behaviours (None: none)
    time_limit: float | None = None
    memory_limit_mb: int | None = None
    stop: object = None  # a threading.Event: set it to stop at the next event


class Node:
    """A candidate: a state, the step that reached it and the candidate it came from."""

    __slots__ = ("state", "parent", "action", "args", "index", "event", "broken", "cursor", "depth")

    def __init__(self, state, parent, action, args, index, event, cursor, depth):
        self.state = state
        self.parent = parent
        self.action = action  # None: an initial state
        self.args = args
        self.index = index  # its number among the successors of `action` from the parent (or the initial states)
        # the event (0-based; in run_merged, position * streams + stream) whose step(s) it is, or
        # INITIAL, GAP, LAZY
        self.event = event
        self.broken = _UNCHECKED  # None, or (kind, name, depth): the first check failed along the behaviour
        self.cursor = cursor  # run_merged: the position in each stream; else None
        self.depth = depth  # spec steps from the initial state


@dataclass(frozen=True)
class Failure:
    """The events no candidate can take: the frontier before them is `Matcher.frontier`."""

    events: tuple[Event, ...]  # one per stream whose next event was tried (one for a single stream)
    matched: int  # the events matched before


class MatchFault(Exception):
    """Evaluating the spec failed while matching event `event` (EvalError `error`), computing
    `action` (None: the initial states or a check) from the state of `node`."""

    def __init__(self, error: EvalError, event: int, node: Node | None, action: int | None = None):
        super().__init__(error.message)
        self.error = error
        self.event = event
        self.node = node
        self.action = action


class MatchStopped(Exception):
    """A limit was reached (the reason: "time_limit", "memory_limit", "interrupted")."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Statistics:
    events: int = 0
    candidates: int = 0  # the frontier's sizes after each event, summed
    largest: int = 0
    unlogged: int = 0  # gap and lazy steps on the frontier's behaviours (not known until the end)

    @property
    def mean(self) -> float:
        return self.candidates / self.events if self.events else 0.0


class Matcher:
    """The candidate set of one recorded run, fed event by event (`feed`) or from several
    streams at once (`run_merged`). After a failure, `frontier` is still the set before the
    event that matched nothing, and `failure` says which event that was."""

    def __init__(self, model: Model, options: MatchOptions = MatchOptions()):
        self.model = model
        self.options = options
        n = len(model.actions)
        lazy = set(options.lazy)
        self.lazy = tuple(a for a in range(n) if a in lazy)
        self.ordinary = tuple(a for a in range(n) if a not in lazy)  # what an unnamed event tries first
        self.gap_actions = tuple(options.silent) if options.silent is not None else self.ordinary
        self.frontier: list[Node] = []
        self.failure: Failure | None = None
        self.stats = Statistics()
        self.start_s = time.perf_counter()
        self._checks(options.checks)
        self._inits: list | None = None
        # the compacted history: the initial state's number, then (action, successor number, event)
        # per step, up to and including `root` (the frontier's common ancestor)
        self.root: Node | None = None
        self.root_init = -1
        self.committed = array("q")

    def _checks(self, options: Options | None) -> None:
        self.invariants = self.initially = self.always = self.steps = ()
        if options is None:
            return
        self.invariants = select(self.model.invariants, options.invariants)
        try:
            self.initially, self.always, _ = temporal_checks(self.model, options)
        except EvaluationFailed as failed:
            raise MatchFault(evaluation_error(self.model, failed.error, failed.note, failed.span), -1, None) from None
        self.steps = step_properties(self.model, options)

    # ---------------------------------------------------------------- the initial states
    def initial_states(self) -> list:
        if self._inits is None:
            try:
                self._inits = list(self.model.init())
            except EVAL_FAILURES as fault:
                raise MatchFault(self._error(fault, "computing the initial states", self.model.span_of("initial")),
                                 -1, None) from None
        return self._inits

    def start(self, initial: tuple[Event, ...] = (), cursor: tuple | None = None) -> bool:
        """The frontier: the initial states that agree with the `initial` events (each records part
        of the initial state). False (and `failure`) when none does."""
        seen: dict = {}
        for i, s in enumerate(self.initial_states()):
            if s not in seen and all(e.agrees(s) for e in initial):
                seen[s] = Node(s, None, None, (), i, INITIAL, cursor, 0)
        if not seen:
            self.failure = Failure(tuple(initial), 0)
            return False
        self.frontier = self._admit(list(seen.values()))
        return True

    # ---------------------------------------------------------------- one stream
    def feed(self, event: Event) -> bool:
        """Match the next event. True: the frontier moved on; False: no candidate takes it
        (`failure` is set, the frontier is left as it was)."""
        self._watch()
        number = self.stats.events
        found = self._advance(self.frontier, event, number, False, None)
        if not found and self.lazy and self.options.max_lazy > 0:
            found = self._advance(self.frontier, event, number, True, None)
        if not found:
            self.failure = Failure((event,), number)
            return False
        self._moved(found)
        return True

    def _moved(self, found: list[Node]) -> None:
        self.frontier = self._admit(found)
        self.stats.events += 1
        self.stats.candidates += len(self.frontier)
        self.stats.largest = max(self.stats.largest, len(self.frontier))
        if self.stats.events % COMPACT_EVERY == 0:
            self._compact()

    def _watch(self) -> None:
        opts = self.options
        if opts.stop is None and opts.time_limit is None and opts.memory_limit_mb is None:
            return
        memory = self.stats.events % _MEMORY_EVERY == 0
        reason = limit_reached(opts, self.start_s, time.perf_counter(), memory)  # type: ignore[arg-type]
        if reason is not None:
            raise MatchStopped(reason)

    # ---------------------------------------------------------------- several streams
    def run_merged(self, streams: list, precedes) -> bool:
        """Match the events of several streams (iterators of Events, one per process), in every
        order consistent with `precedes(e, f)` (e happens before f). True when some candidate
        consumed every event; False (and `failure`) at the first round no candidate can take."""
        windows = [_Window(iter(s)) for s in streams]
        for node in self.frontier:
            node.cursor = (0,) * len(streams)
        while True:
            self._watch()
            rounds = [self._round(windows, precedes, lazy) for lazy in (False, True)
                      if not lazy or (self.lazy and self.options.max_lazy > 0)]
            found, tried = rounds[0]
            if not found and len(rounds) > 1:
                found, tried = rounds[1]
            if not tried:
                return True  # every candidate has consumed every event
            if not found:
                self.failure = Failure(tuple(tried), self.stats.events)
                return False
            self._moved(found)
            low = [min(n.cursor[p] for n in self.frontier) for p in range(len(windows))]
            for w, k in zip(windows, low):
                w.drop_before(k)

    def _round(self, windows: list, precedes, with_lazy: bool) -> tuple[list[Node], list[Event]]:
        """From every candidate, every event next in its stream that no other stream's next event
        precedes: the states reached, and the events tried."""
        out: dict = {}
        tried: dict = {}
        streams = len(windows)
        for node in self.frontier:
            heads = [w.get(node.cursor[p]) for p, w in enumerate(windows)]
            for p, e in enumerate(heads):
                if e is None or any(h is not None and q != p and precedes(h, e) for q, h in enumerate(heads)):
                    continue
                tried.setdefault((p, node.cursor[p]), e)
                cursor = node.cursor[:p] + (node.cursor[p] + 1,) + node.cursor[p + 1:]
                # the event's number: its position in its stream, times the streams, plus the stream
                number = node.cursor[p] * streams + p
                for child in self._advance([node], e, number, with_lazy, cursor):
                    _keep(out, (child.state, child.cursor), child)
        return list(out.values()), [tried[k] for k in sorted(tried)]

    # ---------------------------------------------------------------- one event
    def _advance(self, frontier: list[Node], event: Event, number: int, with_lazy: bool,
                 cursor: tuple | None) -> list[Node]:
        """The states reached from `frontier` by the event (after up to max_gap unlogged steps)
        that agree with it, in order, each once (cursor: the children's, for run_merged)."""
        out: dict = {}
        for start in self._gap_states(frontier, with_lazy):
            for end in self._event_steps(start, event, number, with_lazy, cursor):
                _keep(out, end.state if cursor is None else (end.state, cursor), end)
        return list(out.values())

    def _gap_states(self, frontier: list[Node], with_lazy: bool):
        """The frontier, then breadth-first the states up to max_gap unlogged steps away (and up
        to max_lazy lazy steps with `with_lazy`), each once per budget it was reached with."""
        yield from frontier
        gap = self.options.max_gap
        lazy = self.options.max_lazy if with_lazy else 0
        if gap == 0 and lazy == 0:
            return
        seen: dict = {}
        for n in frontier:
            seen[n.state] = [(0, 0)]
        level = [(n, 0, 0) for n in frontier]
        actions = self.model.actions
        while level:
            nxt = []
            for node, g, z in level:
                for a in (self.gap_actions if g < gap else ()) + (self.lazy if z < lazy else ()):
                    is_lazy = a in self.lazy
                    budget = (g, z + 1) if is_lazy else (g + 1, z)
                    try:
                        for i, (args, s) in enumerate(actions[a](node.state)):
                            used = seen.get(s)
                            if used is not None and any(u[0] <= budget[0] and u[1] <= budget[1] for u in used):
                                continue
                            seen.setdefault(s, []).append(budget)
                            child = Node(s, node, a, args, i, LAZY if is_lazy else GAP, node.cursor, node.depth + 1)
                            nxt.append((child, *budget))
                            yield child
                    except EVAL_FAILURES as fault:
                        info = self.model.action_info[a]
                        raise MatchFault(self._error(fault, f"computing action {info.name}", info.span),
                                         self.stats.events, node, a) from None
            level = nxt

    def _event_steps(self, start: Node, event: Event, number: int, with_lazy: bool, cursor):
        """The states the event's step(s) reach from `start` that agree with it."""
        actions = self.model.actions
        if event.calls is None:
            for a in (self.ordinary + self.lazy if with_lazy else self.ordinary):
                try:
                    for i, (args, s) in enumerate(actions[a](start.state)):
                        if event.agrees(s):
                            yield Node(s, start, a, args, i, number, cursor, start.depth + 1)
                except EVAL_FAILURES as fault:
                    info = self.model.action_info[a]
                    raise MatchFault(self._error(fault, f"computing action {info.name}", info.span),
                                     number, start, a) from None
            return
        nodes = [start]
        last = len(event.calls) - 1
        for c, call in enumerate(event.calls):
            nxt: dict = {}
            for node in nodes:
                try:
                    for i, (args, s) in enumerate(actions[call.action](node.state)):
                        if call.fits(args) and (c < last or event.agrees(s)) and s not in nxt:
                            nxt[s] = Node(s, node, call.action, args, i, number, node.cursor if c < last else cursor,
                                          node.depth + 1)
                except EVAL_FAILURES as fault:
                    info = self.model.action_info[call.action]
                    raise MatchFault(self._error(fault, f"computing action {info.name}", info.span),
                                     number, node, call.action) from None
            nodes = list(nxt.values())
        yield from nodes

    def _error(self, fault, note: str, span) -> EvalError:
        return evaluation_error(self.model, fault, note, span)

    # ---------------------------------------------------------------- the checks
    def _admit(self, nodes: list[Node]) -> list[Node]:
        """The nodes entering the frontier, with their checks made (and a state reached both with
        and without a failed check kept as reached without one)."""
        for node in nodes:
            self._settle(node)
        if not any(n.broken is not None for n in nodes):
            return nodes
        out: dict = {}
        for node in nodes:
            _keep(out, node.state if node.cursor is None else (node.state, node.cursor), node)
        return list(out.values())

    def _settle(self, node: Node) -> None:
        pending = []
        n = node
        while n is not None and n.broken is _UNCHECKED:
            pending.append(n)
            n = n.parent
        for n in reversed(pending):
            n.broken = self._check(n)

    def _check(self, node: Node):
        parent = node.parent
        if parent is not None and parent.broken is not None:
            return parent.broken
        state = node.state
        current = "initial states"
        try:
            if parent is None:
                for name, p in self.initially:
                    current = f"property {name}"
                    if not p(state):
                        return (Check.PROPERTY, name, node.depth)
            for name, p in self.invariants:
                current = f"invariant {name}"
                if not p(state):
                    return (Check.INVARIANT, name, node.depth)
            for name, p in self.always:
                current = f"property {name}"
                if not p(state):
                    return (Check.PROPERTY, name, node.depth)
            if parent is not None:
                for name, p in self.steps:
                    current = f"property {name}"
                    if not p(parent.state, state):
                        return (Check.STEP, name, node.depth)
        except EVAL_FAILURES as fault:
            raise MatchFault(self._error(fault, f"evaluating {current}", None), node.event, node) from None
        return None

    # ---------------------------------------------------------------- the behaviours
    def best(self) -> Node | None:
        """The candidate reported: the first one whose behaviour fails no check, else the first."""
        return next((n for n in self.frontier if n.broken is None), self.frontier[0] if self.frontier else None)

    def _compact(self) -> None:
        """Commit the history up to the frontier's common ancestor (see the module docstring)."""
        top = _common_ancestor(self.frontier)
        if top is None or top is self.root:
            return
        chain = []
        n = top
        while n is not None and n is not self.root:
            chain.append(n)
            n = n.parent
        chain.reverse()
        if self.root is None:
            self.root_init = chain[0].index
            chain = chain[1:]
        for node in chain:
            self.committed.extend((node.action, node.index, node.event))
        top.parent = None
        self.root = top

    def walk(self, node: Node):
        """The behaviour that reached `node`, state by state from its initial state: (Step, the
        event it matched: INITIAL for the initial state, GAP or LAZY for unlogged steps). The
        compacted part is run again as it is walked: nothing of it is kept."""
        chain = []
        n = node
        while n is not None:
            chain.append(n)
            n = n.parent
        chain.reverse()
        if chain[0] is self.root:
            state = self.initial_states()[self.root_init]
            yield Step(None, (), state), INITIAL
            rec = self.committed
            for k in range(0, len(rec), 3):
                a, i, e = rec[k], rec[k + 1], rec[k + 2]
                args, state = _nth(self.model.actions[a](state), i)
                yield Step(a, args, state), e
            chain = chain[1:]
        for n in chain:
            yield Step(n.action, n.args, n.state), n.event

    def history(self, node: Node, last: int | None = None) -> tuple[Trace, tuple[int, ...]]:
        """The behaviour that reached `node` as a Trace (its `last` states only, when given), and
        per state the event it matched (as `walk` gives them)."""
        steps: list[Step] = []
        events: list[int] = []
        for step, e in self.walk(node):
            steps.append(step)
            events.append(e)
            if last is not None and len(steps) > 2 * last:
                del steps[:-last], events[:-last]
        if last is not None:
            steps, events = steps[-last:], events[-last:]
        return Trace(tuple(steps)), tuple(events)


def evaluation_error(model: Model, fault, note: str, span) -> EvalError:
    """The EvalError of an evaluation failure (runtime.EVAL_FAILURES) while `note` ("computing
    action A"), as `check` reports it: Model.eval_error for a Fault, else E406 or E411 at the line
    being computed, or at `span`."""
    if isinstance(fault, Fault):
        return model.eval_error(fault)
    return model.limit_error(fault, note, span)


class _Window:
    """The events of one stream from the lowest cursor of the frontier on, read as needed."""

    def __init__(self, events):
        self.events = events
        self.buffer: list = []
        self.base = 0
        self.ended = False

    def get(self, k: int):
        while not self.ended and k - self.base >= len(self.buffer):
            e = next(self.events, None)
            if e is None:
                self.ended = True
            else:
                self.buffer.append(e)
        i = k - self.base
        return self.buffer[i] if i < len(self.buffer) else None

    def drop_before(self, k: int) -> None:
        if k > self.base:
            del self.buffer[:k - self.base]
            self.base = k


def _keep(out: dict, key, node: Node) -> None:
    """Add `node` under `key` unless there is one already (a node without a failed check
    replaces one with, in its place)."""
    old = out.get(key)
    if old is None:
        out[key] = node
    elif old.broken not in (None, _UNCHECKED) and node.broken is None:
        out[key] = node


def _common_ancestor(frontier: list[Node]) -> Node | None:
    if not frontier:
        return None
    path = []
    n = frontier[0]
    while n is not None:
        path.append(n)
        n = n.parent
    position = {id(n): k for k, n in enumerate(path)}
    deepest = 0
    for node in frontier[1:]:
        n = node
        while n is not None and id(n) not in position:
            n = n.parent
        if n is None:
            return None
        deepest = max(deepest, position[id(n)])
    return path[deepest]


def _nth(successors, i: int):
    for k, x in enumerate(successors):
        if k == i:
            return x
    raise AssertionError("a committed step is no successor any more")  # pragma: no cover


# ---------------------------------------------------------------- why an event matches nothing

@dataclass(frozen=True)
class Attempt:
    """One action tried for an event from one candidate, in vain. `start`: the state it was tried
    from (the candidate's, or for a composed event's later step, the state the earlier ones
    reached); `failed`: for each path of the action with the event's arguments that is disabled,
    the number of the guard that stops it (Explainer.guard); `reached`: for each enabled path
    with the event's arguments, (args, state, the assignment numbers that wrote each variable);
    `fits`: some instance of the action has the event's arguments."""

    candidate: int
    action: int
    call: int  # which of the event's steps failed (0 for an event of one step)
    start: tuple
    failed: tuple[int, ...]
    reached: tuple[tuple[tuple, tuple, tuple], ...]
    fits: bool

    @property
    def disabled(self) -> bool:
        return not self.reached


@dataclass
class Explainer:
    """Why an event matches nothing, per candidate and per action (Attempt), from the instrumented
    actions (compile/instrument.py), built on first use."""

    model: Model
    _instrumented: Instrumented | None = field(default=None, init=False)

    @property
    def instrumented(self) -> Instrumented:
        if self._instrumented is None:
            self._instrumented = Instrumented(self.model)
        return self._instrumented

    def error(self, fault, note: str, span) -> EvalError:
        """An evaluation failure while explaining (the instrumented copy places it at the same
        spec lines as the spec's own code)."""
        return evaluation_error(self.instrumented.model, fault, note, span)

    def guard(self, number: int):
        """(kind: "require" or "with", span) of a guard number of an Attempt."""
        return self.instrumented.guards[number - 1]

    def assignment(self, number: int):
        return self.instrumented.assignments[number - 1]

    def paths(self, action: int, state: tuple, call: Call | None = None) -> tuple[tuple, tuple, bool]:
        """(failed guard numbers, reached (args, state, wrote)) of the paths of `action` from `state`
        whose arguments fit `call` (all with None), and whether any does. Raises EVAL_FAILURES."""
        inst = self.instrumented
        n = inst.n
        failed, reached, fits = [], [], False
        for args, fail, wrote, s in inst.run(action, state):
            if call is not None and not call.fits(args):
                continue
            fits = True
            if fail:
                failed.append(fail)
            else:
                reached.append((args, s[:n], wrote))
        return tuple(failed), tuple(reached), fits

    def attempts(self, candidates: list[tuple], event: Event, actions: tuple[int, ...], limit: int = 10
                 ) -> list[Attempt]:
        """For each of the first `limit` candidate states, each action that could have produced
        the event (the event's own, or `actions` when it names none), why it does not. A composed
        event is followed through its steps from the candidate: the step that fails is explained,
        from the first state the earlier steps reached. Raises EVAL_FAILURES."""
        out = []
        model = self.model
        for k, cand in enumerate(candidates[:limit]):
            if event.calls is None:
                for a in actions:
                    failed, reached, fits = self.paths(a, cand)
                    out.append(Attempt(k, a, 0, cand, failed, reached, fits))
                continue
            states = [cand]
            last = len(event.calls) - 1
            for c, call in enumerate(event.calls):
                nxt = []
                for s in states:
                    for args, t in model.actions[call.action](s):
                        if call.fits(args) and (c < last or event.agrees(t)) and t not in nxt:
                            nxt.append(t)
                if not nxt:
                    failed, reached, fits = self.paths(call.action, states[0], call)
                    out.append(Attempt(k, call.action, c, states[0], failed, reached, fits))
                    break
                states = nxt
        return out
