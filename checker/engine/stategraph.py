"""The whole reachable state graph of a small model, for `tlacheck graph`.

`build` explores breadth-first like the explorer (same order: initial states,
then actions in declaration order, parameters and choices in canonical
order), but keeps every transition, so the result is deterministic: state
`i` is the i-th state discovered. Above `max_states` it stops storing and
raises `TooLarge` with the number of reachable states, counted exactly up to
`count_limit` (beyond that, "more than count_limit").
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.compile.model import Model


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
