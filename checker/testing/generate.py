"""Generated tests: a few behaviours of the spec that together cover it (`tlacheck tests`).

What is covered, `Cover`:

- `actions`: every action is taken at least once;
- `changes`: also, for every action, every variable it changes somewhere in the model is changed
  by one of its steps in some behaviour;
- `transitions`: also every distinct transition (state, action, arguments, next state) of the
  model: for small models.

How (a small model, exhaustively): the whole reachable graph (engine/stategraph.py), then, per
target, the shortest behaviour that covers it, breadth-first from the initial states (the path to
the transition, the transition, then the fewest steps that finish an event of the code, below);
then greedy selection among those: the behaviour that covers the most targets not yet covered,
the shorter on a tie, then the one of the earlier target. The selected behaviours are returned
shortest first. Everything is in the order of the search: the same spec gives the same
behaviours, byte for byte.

Events of the code: when the spec's `conform:` section says that the code takes some steps as one
event (`event "x" = A then B`) and never takes A or B alone, a behaviour that separates them is
none the code can run. Generated behaviours keep them together: the search runs over (state,
steps of the event still to take), and a behaviour ends only between events.

Large models (more reachable states than `max_states`): behaviours sampled by simulation with a
seed (engine/simulate.py), each cut after the last step that covered something new, chosen
greedily the same way; the summary says the coverage reached, and that a target never seen may
still be reachable (the totals of changes and transitions are unknown).
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field
from enum import Enum

from tlacheck.compile.model import Model
from tlacheck.core.result import Step, Trace
from tlacheck.core.runtime import Fault
from tlacheck.engine import stategraph
from tlacheck.output.logs import Mapping
from tlacheck.testing import events as ev


class Cover(Enum):
    ACTIONS = "actions"
    CHANGES = "changes"
    TRANSITIONS = "transitions"


KINDS = ("actions", "changes", "transitions")  # the coverage measures, in the order they are reported
DEFAULT_MAX_STATES = 50_000


@dataclass(frozen=True)
class Sampling:
    """How a model too large to explore is sampled (engine/simulate.py SimOptions)."""

    seed: int = 1
    traces: int = 1000
    depth: int = 50


@dataclass
class Coverage:
    """Per measure (KINDS), the targets covered and how many there are (None: unknown, sampled)."""

    covered: dict[str, int] = field(default_factory=dict)
    total: dict[str, int | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Suite:
    """The behaviours chosen (shortest first), what they cover, what could not be covered."""

    model: Model
    cover: Cover
    behaviours: tuple[Trace, ...]
    coverage: Coverage
    never_enabled: tuple[str, ...]  # actions with no transition in the model (exhaustive), or never seen (sampled)
    # Targets of the model no behaviour the code can take covers: they happen only between the
    # steps of an event the code takes in one go (kept_together), as text
    uncoverable: tuple[str, ...]
    uncovered: tuple[str, ...]  # targets left out because --max stopped the selection, as text
    kept_together: tuple[tuple[str, tuple[str, ...]], ...]  # events whose steps a behaviour never separates
    states: int | None  # reachable states (exhaustive), else None
    transitions: int | None
    sampled: Sampling | None = None
    too_large: bool = False  # sampled because the model has more than max_states states (else: asked to)
    limited: bool = False  # --max stopped the selection before every target was covered


def generate(model: Model, cover: Cover = Cover.ACTIONS, max_behaviours: int | None = None,
             max_states: int = DEFAULT_MAX_STATES, sampling: Sampling | None = None,
             sample: bool = False) -> Suite:
    """The behaviours of `model` that cover it (module docstring). `sample`: sample by simulation
    even if the model is small; `sampling`: its seed and budget (defaults: Sampling()). A model
    above `max_states` is sampled. A spec that fails to evaluate raises its EvalError (E4xx)."""
    try:
        return _generate(model, cover, max_behaviours, max_states, sampling, sample)
    except Fault as fault:
        raise model.eval_error(fault) from None
    except (RecursionError, MemoryError) as exc:
        raise model.limit_error(exc, "choosing the behaviours") from None


def _generate(model: Model, cover: Cover, max_behaviours, max_states: int, sampling, sample: bool) -> Suite:
    mapping = Mapping(model)
    bound, composed = ev.bound(mapping)
    kept = tuple((e.name, tuple(model.action_info[a].name for a in e.actions)) for e in ev.events(mapping)
                 if not e.own and len(e.actions) > 1 and any(a in bound for a in e.actions))
    if not sample:
        try:
            graph = stategraph.build(model, max_states)
        except stategraph.TooLarge:
            return _sampled(model, cover, max_behaviours, bound, composed, kept, sampling or Sampling(), True)
        return _exhaustive(model, graph, cover, max_behaviours, bound, composed, kept)
    return _sampled(model, cover, max_behaviours, bound, composed, kept, sampling or Sampling(), False)


# ---------------------------------------------------------------- targets

def _targets(source: int, target: int, action: int, states, edge_key) -> list[tuple]:
    """The targets one transition covers, in a fixed order: the action, the variables it changes,
    the transition itself."""
    before, after = states[source], states[target]
    out: list[tuple] = [("actions", action)]
    out += [("changes", action, i) for i, (a, b) in enumerate(zip(before, after)) if a != b]
    out.append(("transitions", edge_key))
    return out


def _wanted(cover: Cover, target: tuple) -> bool:
    return KINDS.index(target[0]) <= KINDS.index(cover.value)


def _describe(model: Model, target: tuple, edges=None) -> str:
    kind = target[0]
    name = model.action_info[target[1]].name if kind != "transitions" else None
    if kind == "actions":
        return f"action {name}"
    if kind == "changes":
        return f"{name} changing {model.var_names[target[2]]}"
    src, dst, a, args = edges[target[1]]
    return f"transition {src + 1} -> {dst + 1} by {model.step_label(a, args)}"


# ---------------------------------------------------------------- exhaustive

class _Product:
    """The model's graph as the code can walk it: nodes (state, the event's steps still to take)."""

    def __init__(self, graph: stategraph.StateGraph, bound: frozenset, composed):
        self.graph = graph
        out: dict[int, list[int]] = {}
        for k, (src, _, _, _) in enumerate(graph.edges):
            out.setdefault(src, []).append(k)
        self.out = out
        self.bound = bound
        self.composed = composed
        self.nodes: list[tuple[int, tuple]] = []
        self.index: dict[tuple[int, tuple], int] = {}
        self.moves: list[list[tuple[int, int]]] = []  # per node: (model edge, next node)
        self.parent: list[tuple[int, int] | None] = []  # per node: (previous node, model edge) on a shortest path
        self._search()

    def _node(self, key) -> tuple[int, bool]:
        n = self.index.get(key)
        if n is not None:
            return n, False
        n = len(self.nodes)
        self.index[key] = n
        self.nodes.append(key)
        self.moves.append([])
        self.parent.append(None)
        return n, True

    def _next(self, state: int, pending: tuple):
        """(model edge, next node key) from (state, pending), in the graph's order."""
        for k in self.out.get(state, ()):
            _, dst, a, _ = self.graph.edges[k]
            if pending:
                if a == pending[0]:
                    yield k, (dst, pending[1:])
                continue
            if a not in self.bound:
                yield k, (dst, ())
            for seq in self.composed:
                if seq[0] == a:
                    yield k, (dst, seq[1:])

    def _search(self) -> None:
        queue = deque()
        for s in self.graph.initial:
            n, new = self._node((s, ()))
            if new:
                queue.append(n)
        while queue:
            n = queue.popleft()
            state, pending = self.nodes[n]
            for k, key in self._next(state, pending):
                m, new = self._node(key)
                self.moves[n].append((k, m))
                if new:
                    self.parent[m] = (n, k)
                    queue.append(m)
        # the fewest steps from each node to one between events (pending == ()), and the first move
        self.to_free: list[int | None] = [0 if p == () else None for _, p in self.nodes]
        self.finish: list[tuple[int, int] | None] = [None] * len(self.nodes)
        changed = True
        while changed:  # the events are short: a few rounds
            changed = False
            for n in range(len(self.nodes)):
                for k, m in self.moves[n]:
                    if self.to_free[m] is not None and (self.to_free[n] is None or self.to_free[m] + 1 < self.to_free[n]):
                        self.to_free[n], self.finish[n] = self.to_free[m] + 1, (k, m)
                        changed = True

    def path_to(self, n: int) -> list[int]:
        edges = []
        while self.parent[n] is not None:
            n, k = self.parent[n]
            edges.append(k)
        return edges[::-1]

    def start_of(self, n: int) -> int:
        while self.parent[n] is not None:
            n = self.parent[n][0]
        return self.nodes[n][0]

    def completion(self, n: int) -> list[int]:
        edges = []
        while self.finish[n] is not None:
            k, n = self.finish[n]
            edges.append(k)
        return edges


def _exhaustive(model, graph, cover, max_behaviours, bound, composed, kept) -> Suite:
    product = _Product(graph, bound, composed)
    states, edges = graph.states, graph.edges
    all_targets: dict[tuple, None] = {}
    for k, (src, dst, a, args) in enumerate(edges):
        for t in _targets(src, dst, a, states, k):
            all_targets.setdefault(t, None)
    # per target, its shortest witness: (length, path of model edges, start state)
    depth = _depths(product)
    best: dict[tuple, tuple] = {}
    for n, moves in enumerate(product.moves):
        if depth[n] is None:
            continue
        for k, m in moves:
            if product.to_free[m] is None:
                continue
            length = depth[n] + 1 + product.to_free[m]
            src, dst, a, args = edges[k]
            for t in _targets(src, dst, a, states, k):
                if t not in best or length < best[t][0]:
                    best[t] = (length, n, k, m)
    candidates = {}
    for t, (_, n, k, m) in best.items():
        path = tuple(product.path_to(n) + [k] + product.completion(m))
        candidates.setdefault((product.start_of(n), path), None)

    def covers(candidate) -> list[tuple]:
        _, path = candidate
        out = []
        for k in path:
            src, dst, a, args = edges[k]
            out += _targets(src, dst, a, states, k)
        return out

    wanted = [t for t in all_targets if _wanted(cover, t)]
    chosen, limited = _select(list(candidates), covers, wanted, max_behaviours)
    traces = []
    for start, path in chosen:
        steps = [Step(None, (), states[start])]
        steps += [Step(edges[k][2], edges[k][3], states[edges[k][1]]) for k in path]
        traces.append(Trace(tuple(steps)))
    covered = {t for c in chosen for t in covers(c)}
    coverage = Coverage({k: sum(1 for t in all_targets if t[0] == k and t in covered) for k in KINDS},
                        {k: sum(1 for t in all_targets if t[0] == k) for k in KINDS})
    coverage.total["actions"] = len(model.action_info)  # never-enabled ones too
    used = {t[1] for t in all_targets if t[0] == "actions"}
    never = tuple(i.name for a, i in enumerate(model.action_info) if a not in used)
    uncoverable = tuple(_describe(model, t, edges) for t in wanted if t not in best)
    uncovered = tuple(_describe(model, t, edges) for t in wanted if t in best and t not in covered)
    return Suite(model, cover, tuple(traces), coverage, never, uncoverable, uncovered, kept, len(states), len(edges),
                 limited=limited)


def _depths(product: _Product) -> list[int | None]:
    out: list[int | None] = [None] * len(product.nodes)
    for n in range(len(product.nodes)):
        if product.parent[n] is None:
            out[n] = 0
    for n in range(len(product.nodes)):  # nodes are numbered breadth-first: parents come first
        if product.parent[n] is not None:
            out[n] = out[product.parent[n][0]] + 1
    return out


def _select(candidates: list, covers, wanted: list, limit: int | None) -> tuple[list, bool]:
    """Greedy: the candidate covering the most wanted targets not yet covered, the shorter on a
    tie, then the earlier; until every wanted target is covered (or `limit` candidates). Returns
    them shortest first (stable), and whether the limit stopped the selection early.

    Lazily (a candidate's gain only shrinks as targets get covered): the heap holds each
    candidate's last known gain; the top is taken when its gain, computed again, still ranks
    first, which chooses what recomputing every gain each round would choose."""
    order = {t: i for i, t in enumerate(wanted)}
    sets = [frozenset(t for t in covers(c) if t in order) for c in candidates]
    lengths = [len(c[1]) for c in candidates]
    left = set(order)
    heap = [(-len(s), lengths[i], i) for i, s in enumerate(sets) if s]
    heapq.heapify(heap)
    chosen: list[int] = []
    while left and heap and (limit is None or len(chosen) < limit):
        _, _, i = heapq.heappop(heap)
        key = (-len(sets[i] & left), lengths[i], i)
        if key[0] == 0:
            continue
        if heap and key > heap[0]:
            heapq.heappush(heap, key)
            continue
        chosen.append(i)
        left -= sets[i]
    picked = sorted(chosen, key=lambda i: (lengths[i], chosen.index(i)))
    return [candidates[i] for i in picked], bool(left) and limit is not None and len(chosen) >= limit


# ---------------------------------------------------------------- sampled

def _sampled(model, cover, max_behaviours, bound, composed, kept, sampling: Sampling, too_large: bool) -> Suite:
    from tlacheck.engine.simulate import SimOptions, simulate

    walks: list[tuple] = []
    options = SimOptions(seed=sampling.seed, depth=sampling.depth, traces=sampling.traces, check_deadlock=False,
                         invariants=(), properties=(), shrink=False, on_behaviour=walks.append)
    result = simulate(model, options)
    if result.error is not None:
        raise result.error
    walks = [w for w in (_keep_events(w, bound, composed) for w in walks) if len(w) > 1]
    numbers: dict[tuple, int] = {}  # states and transitions, numbered as first seen

    def step_targets(before: Step, step: Step) -> list[tuple]:
        key = (numbers.setdefault(before.state, len(numbers)), step.action, step.args,
               numbers.setdefault(step.state, len(numbers)))
        return _targets(0, 1, step.action, (before.state, step.state),
                        numbers.setdefault(key, len(numbers)))

    per_step = [[step_targets(b, s) for b, s in zip(w, w[1:])] for w in walks]  # per walk, per step
    first: dict[tuple, tuple[int, int]] = {}  # target -> (the first walk that covers it, at which step)
    for i, steps in enumerate(per_step):
        for j, targets in enumerate(steps):
            for t in targets:
                first.setdefault(t, (i, j))
    cuts: dict[int, int] = {}  # walk -> its steps up to the last wanted target it is the first to cover
    for t, (i, j) in first.items():
        if _wanted(cover, t):
            cuts[i] = max(cuts.get(i, 0), j + 1)
    candidates, covered_by = [], {}
    for i, cut in sorted(cuts.items()):
        walk = _complete(walks[i], cut, bound, composed)
        candidates.append((0, walk))
        covered_by[len(candidates) - 1] = [t for targets in per_step[i][:len(walk) - 1] for t in targets]
    index = {id(c): k for k, c in enumerate(candidates)}
    wanted = [t for t in first if _wanted(cover, t)]
    chosen, limited = _select(candidates, lambda c: covered_by[index[id(c)]], wanted, max_behaviours)
    covered = {t for c in chosen for t in covered_by[index[id(c)]]}
    coverage = Coverage({k: sum(1 for t in first if t[0] == k and t in covered) for k in KINDS},
                        {"actions": len(model.action_info), "changes": None, "transitions": None})
    used = {t[1] for t in first if t[0] == "actions"}
    never = tuple(i.name for a, i in enumerate(model.action_info) if a not in used)
    uncovered = tuple(_describe(model, t) for t in wanted if t not in covered and t[0] != "transitions")
    return Suite(model, cover, tuple(Trace(tuple(c[1])) for c in chosen), coverage, never, (), uncovered, kept, None,
                 None, sampled=sampling, too_large=too_large, limited=limited)


def _event_ends(walk: tuple, bound: frozenset, composed) -> list[int]:
    """The positions of `walk` (state indices) where a behaviour the code can take may end: between
    two events, each bound action inside one of the events of several steps, whole; up to the first
    step the code cannot take there."""
    ends, i = [0], 1
    while i < len(walk):
        if walk[i].action in bound:
            seq = next((s for s in composed if tuple(st.action for st in walk[i:i + len(s)]) == s), None)
            if seq is None:
                break
            i += len(seq)
        else:
            i += 1
        ends.append(i - 1)
    return ends


def _keep_events(walk: tuple, bound: frozenset, composed) -> tuple:
    """The longest prefix of `walk` the code can take."""
    return walk[:_event_ends(walk, bound, composed)[-1] + 1]


def _complete(walk: tuple, steps: int, bound: frozenset, composed) -> tuple:
    """The first `steps` steps of `walk` (a prefix the code can take), and the rest of the event the
    last of them is part of."""
    return walk[:min(e for e in _event_ends(walk, bound, composed) if e >= steps) + 1]
