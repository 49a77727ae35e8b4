"""The whole reachable state graph of a small model, for `tlacheck graph`.

`build` explores breadth-first like the explorer (same order: initial states,
then actions in declaration order, parameters and choices in canonical
order), but keeps every transition, so the result is deterministic: state
`i` is the i-th state discovered. Above `max_states` it stops storing and
raises `TooLarge` with the number of reachable states, counted exactly up to
`count_limit` (beyond that, "more than count_limit").

`shape` analyses a built graph off the hot path (the only module that imports `networkx`):
its strongly connected components, and which of them are terminal, the parts of the graph
that every behaviour ends in and never leaves.

For drawing a mid-sized graph: `merge` collapses the states that agree on some variables into
one node (the tree of the states each was first reached from is the drawing's: output/render.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from tlacheck.compile.model import Model


@dataclass(frozen=True)
class StateGraph:
    states: tuple[tuple, ...]  # in BFS discovery order
    initial: tuple[int, ...]
    edges: tuple[tuple[int, int, int, tuple], ...]  # (source, target, action index, args)


class TooLarge(Exception):
    def __init__(self, count: int, exact: bool, limit: int):
        self.count = count
        self.exact = exact
        self.limit = limit
        super().__init__(count)


def build(model: Model, max_states: int = 300, count_limit: int = 1_000_000) -> StateGraph:
    """The reachable graph, or TooLarge when it has more than `max_states` states.
    Evaluation faults propagate as runtime.Fault (the caller turns them into errors)."""
    states: list[tuple] = []
    index: dict[tuple, int] = {}
    edges: list[tuple[int, int, int, tuple]] = []
    initial: list[int] = []
    constraints = [c for _, c in model.constraints]

    def add(state) -> int | None:
        i = index.get(state)
        if i is None:
            if not all(c(state) for c in constraints):
                return None
            i = len(states)
            index[state] = i
            states.append(state)
        return i

    for s in model.init():
        i = add(s)
        if i is not None and i not in initial:
            initial.append(i)
    head = 0
    while head < len(states):
        if len(states) > max_states:
            raise _count_rest(model, states, index, head, count_limit, max_states)
        state = states[head]
        for ai, act in enumerate(model.actions):
            for args, succ in act(state):
                j = add(succ)
                if j is not None:
                    edges.append((head, j, ai, args))
        head += 1
    if len(states) > max_states:
        raise TooLarge(len(states), True, max_states)
    return StateGraph(tuple(states), tuple(initial), tuple(edges))


def _count_rest(model: Model, states: list, index: dict, head: int, count_limit: int, max_states: int) -> TooLarge:
    constraints = [c for _, c in model.constraints]
    while head < len(states):
        if len(states) > count_limit:
            return TooLarge(count_limit, False, max_states)
        for act in model.actions:
            for _args, succ in act(states[head]):
                if succ not in index and all(c(succ) for c in constraints):
                    index[succ] = len(states)
                    states.append(succ)
        head += 1
    return TooLarge(len(states), True, max_states)


@dataclass(frozen=True)
class GraphShape:
    components: int  # strongly connected components
    # The terminal components (no transition leaves them), each as its sorted state indices, in
    # the order of their first state: where every infinite behaviour ends up; a deadlock state
    # is a terminal component of its own.
    terminal: tuple[tuple[int, ...], ...]


def shape(graph: StateGraph) -> GraphShape:
    """The strongly connected components of `graph`, and which of them are terminal."""
    g = nx.DiGraph()
    g.add_nodes_from(range(len(graph.states)))
    g.add_edges_from((src, dst) for src, dst, _, _ in graph.edges)
    condensed = nx.condensation(g)
    members = nx.get_node_attributes(condensed, "members")
    terminal = sorted(tuple(sorted(members[c])) for c in condensed if condensed.out_degree(c) == 0)
    return GraphShape(condensed.number_of_nodes(), tuple(terminal))


@dataclass(frozen=True)
class Merged:
    """A graph whose states that agree on some variables are one node each."""

    graph: StateGraph  # per node its first state (in discovery order); each transition between nodes once
    members: tuple[tuple[int, ...], ...]  # per node, the indices of the states it stands for
    node_of: tuple[int, ...]  # per state of the original graph, its node


def merge(graph: StateGraph, slots: tuple[int, ...]) -> Merged:
    """Collapse the states of `graph` that have the same values in the variables `slots` into one
    node (numbered in the order of their first state); a transition between two states becomes one
    between their nodes (inside one node: a self-loop), each (action, arguments) once."""
    node: dict[tuple, int] = {}
    node_of: list[int] = []
    members: list[list[int]] = []
    for i, state in enumerate(graph.states):
        key = tuple(state[k] for k in slots)
        n = node.setdefault(key, len(members))
        if n == len(members):
            members.append([])
        members[n].append(i)
        node_of.append(n)
    edges = list(dict.fromkeys((node_of[src], node_of[dst], a, args) for src, dst, a, args in graph.edges))
    states = tuple(graph.states[m[0]] for m in members)
    initial = tuple(dict.fromkeys(node_of[i] for i in graph.initial))
    return Merged(StateGraph(states, initial, tuple(edges)), tuple(tuple(m) for m in members), tuple(node_of))
