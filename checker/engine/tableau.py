"""Temporal formulas of any nesting, by a tableau: the negated formula as a Büchi automaton
(the construction of Gerth, Peled, Vardi and Wolper, 1995), its product with the behaviour
graph, and a fair accepting cycle in the product (liveness.py).

The formulas are TLA+'s over state predicates (`enabled(A)` included): `always`, `eventually`,
`leads_to`, `not`, `and`, `or`, `implies`, and `all`/`any` over constant sets, nested in any
way. TLA+ has no "next" operator in these formulas, so they cannot tell a behaviour from one
with stuttering steps added: the product lets the automaton move while the system stutters
(an edge from (s, q) to (s, q')), and a behaviour may end by stuttering in a state forever
where fairness allows it, as the other liveness checks do.

A formula is first put in negation normal form over *literals* (a maximal sub-formula with no
temporal operator, an atom of the Plan, or its negation), with `U` (until) and `R` (release):
`eventually P` is `true U P`, `always P` is `false R P`, `P leads_to Q` is
`always (not P or eventually Q)`. The automaton reads one state per position; its acceptance
is generalised (one set per `U`), and the fair-cycle search asks a cycle to visit every set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

TRUE = ("true",)
FALSE = ("false",)


def lit(atom: int, positive: bool = True) -> tuple:
    return ("lit", atom, positive)


def until(a: tuple, b: tuple) -> tuple:
    return ("U", a, b)


def release(a: tuple, b: tuple) -> tuple:
    return ("R", a, b)


def conj(a: tuple, b: tuple) -> tuple:
    if a == TRUE:
        return b
    if b == TRUE:
        return a
    if FALSE in (a, b):
        return FALSE
    return ("and", a, b)


def disj(a: tuple, b: tuple) -> tuple:
    if a == FALSE:
        return b
    if b == FALSE:
        return a
    if TRUE in (a, b):
        return TRUE
    return ("or", a, b)


@dataclass
class _Node:
    id: int
    incoming: set
    new: set
    old: set = field(default_factory=set)
    next: set = field(default_factory=set)


@dataclass(frozen=True)
class Automaton:
    """A generalised Büchi automaton over states. State i must read a state satisfying every
    literal in labels[i] (atom, positive); initial states are `initial`; `succ[i]` its
    successors; `accepting[k]` the states of acceptance set k (a run is accepting when it visits
    each set infinitely often; no set: every infinite run is)."""

    labels: tuple[tuple[tuple[int, bool], ...], ...]
    initial: tuple[int, ...]
    succ: tuple[tuple[int, ...], ...]
    accepting: tuple[frozenset, ...]

    def reads(self, q: int, holds) -> bool:
        """Whether automaton state q may read a state whose atoms `holds(atom)` gives."""
        return all(holds(a) == positive for a, positive in self.labels[q])


def automaton(formula: tuple) -> Automaton:
    """The automaton of `formula` (in negation normal form, as built by lit/until/release/conj/disj)."""
    ids = count(1)
    done: list[_Node] = []

    def expand(node: _Node) -> None:
        while node.new:
            f = node.new.pop()
            if f in node.old:
                continue
            kind = f[0]
            if kind == "true":
                continue
            if kind == "false":
                return  # a contradiction: no node
            if kind == "lit":
                if lit(f[1], not f[2]) in node.old:
                    return
                node.old.add(f)
                continue
            if kind == "and":
                node.old.add(f)
                node.new |= {f[1], f[2]} - node.old
                continue
            if kind in ("or", "U", "R"):
                a, b = f[1], f[2]
                if kind == "or":
                    first_new, first_next, second_new = {a}, set(), {b}
                elif kind == "U":  # a U b: b now, or a now and a U b next
                    first_new, first_next, second_new = {a}, {f}, {b}
                else:  # a R b: b now and (a now, or a R b next)
                    first_new, first_next, second_new = {b}, {f}, {a, b}
                old = node.old | {f}
                expand(_Node(next(ids), set(node.incoming), node.new | (first_new - old), set(old),
                             node.next | first_next))
                node.old = old
                node.new |= second_new - old
                continue
            raise AssertionError(f)  # pragma: no cover
        for other in done:
            if other.old == node.old and other.next == node.next:
                other.incoming |= node.incoming
                return
        done.append(node)
        expand(_Node(next(ids), {node.id}, set(node.next)))

    expand(_Node(next(ids), {0}, {formula}))
    labels = tuple(tuple(sorted((f[1], f[2]) for f in n.old if f[0] == "lit")) for n in done)
    initial = tuple(i for i, n in enumerate(done) if 0 in n.incoming)
    succ = tuple(tuple(sorted(j for j, m in enumerate(done) if n.id in m.incoming)) for n in done)
    untils = sorted({f for n in done for f in n.old if f[0] == "U"}, key=repr)
    accepting = tuple(frozenset(i for i, n in enumerate(done) if u not in n.old or u[2] in n.old) for u in untils)
    return Automaton(labels, initial, succ, accepting)


class Product:
    """The product of the behaviour graph with an automaton, reachable from the initial states,
    with the interface of liveness.Graph that the fair-cycle search uses (edge_start, succ,
    enabled, take, edges): node k is (state[k], automaton state); edge e follows the graph's
    transition under[e], or is a stuttering step (under[e] == -1)."""

    def __init__(self, graph, initial_states, auto: Automaton, holds, watch):
        self.state: list[int] = []
        self.q: list[int] = []
        number: dict[tuple[int, int], int] = {}
        starts, gsucc = graph.edge_start, graph.succ
        cache: dict[tuple[int, int], bool] = {}

        def reads(q: int, s: int) -> bool:
            key = (q, s)
            found = cache.get(key)
            if found is None:
                found = cache[key] = auto.reads(q, lambda atom: holds(atom, s))
            return found

        def node(s: int, q: int) -> int:
            k = number.get((s, q))
            if k is None:
                k = number[(s, q)] = len(self.state)
                self.state.append(s)
                self.q.append(q)
            return k

        self.initial = [node(s, q) for s in initial_states for q in auto.initial if reads(q, s)]
        self.edge_start: list[int] = []
        self.succ: list[int] = []
        self.under: list[int] = []
        k = 0
        while k < len(self.state):  # breadth first over the reachable product nodes
            if not k & 0xFFF:
                watch.poll()
            s, q = self.state[k], self.q[k]
            self.edge_start.append(len(self.succ))
            for e in range(starts[s], starts[s + 1]):
                t = gsucc[e]
                if t < 0:
                    continue
                for q2 in auto.succ[q]:
                    if reads(q2, t):
                        self.succ.append(node(t, q2))
                        self.under.append(e)
            for q2 in auto.succ[q]:  # the system stutters, the automaton moves
                if reads(q2, s):
                    self.succ.append(node(s, q2))
                    self.under.append(-1)
            k += 1
        self.edge_start.append(len(self.succ))
        n = len(self.state)
        self.enabled = [graph.enabled[s] for s in self.state] if len(graph.enabled) else bytes(n)
        self.take = [graph.take[e] if e >= 0 else 0 for e in self.under] if len(graph.take) else bytes(len(self.succ))
        self.accepting = [bytearray(q in acc for q in self.q) for acc in auto.accepting]

    def edges(self, k: int) -> range:
        return range(self.edge_start[k], self.edge_start[k + 1])
