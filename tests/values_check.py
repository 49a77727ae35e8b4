"""Checks on the run-time values of states, shared by tests/test_fingerprints.py and the oracle
(tests/oracle/compare.py).

- `well_represented(v, t)`: value `v` of type `t` uses exactly the run-time representation of
  runtime.py. Equal values of two Python types (True == 1) or two layouts encode, so
  fingerprint, differently, and a map whose keys are out of canonical order is unequal to the
  same map built elsewhere: either makes equal states count twice.
- `state_problems(model, limit)`: a breadth-first walk of the model's compiled successor
  functions (as the explorers run them, constraints included: a state failing one is checked,
  not expanded) that reports every state that is not well represented, and every successor
  whose fingerprint, as the generated code updates it incrementally (only the slots an
  action may assign, map entries one by one), differs from its fingerprint computed afresh,
  or whose unassigned slots changed.
"""

from __future__ import annotations

from tlacheck.core import types as T
from tlacheck.core.runtime import EVAL_FAILURES, NONE, canon_key
from tlacheck.engine.fingerprints import Fingerprinter


def well_represented(v, t: T.Type) -> bool:
    """Whether `v` uses the run-time representation of type `t`: bools only where `t` says
    bool, ints (never bools) for ints, enum members and model values, NONE for `none`,
    frozensets for sets, tuples for sequences, tuples and records (fields in alphabetical
    order, one per field), and for maps a pair (keys, values) of tuples of the same length
    with the keys in strictly increasing canonical order."""
    if isinstance(t, T.BoolT):
        return type(v) is bool
    if isinstance(t, (T.IntT, T.SortT)):
        return type(v) is int
    if isinstance(t, T.OptionT):
        return v is NONE or well_represented(v, t.inner)
    if isinstance(t, (T.SetT, T.SeqT)):
        return type(v) is (frozenset if isinstance(t, T.SetT) else tuple) and \
            all(well_represented(x, t.element) for x in v)
    if isinstance(t, T.MapT):
        if not (type(v) is tuple and len(v) == 2 and isinstance(v[0], tuple) and type(v[1]) is tuple
                and len(v[0]) == len(v[1])):
            return False
        keys = [canon_key(k) for k in v[0]]
        return all(a < b for a, b in zip(keys, keys[1:])) and \
            all(well_represented(k, t.key) for k in v[0]) and all(well_represented(x, t.value) for x in v[1])
    if isinstance(t, (T.TupleT, T.RecordT)):
        parts = t.elements if isinstance(t, T.TupleT) else [f for _, f in t.fields]
        return type(v) is tuple and len(v) == len(parts) and all(map(well_represented, v, parts))
    return isinstance(t, T.AnyT)


def badly_represented(state: tuple, var_types) -> list[int]:
    """The slots of `state` whose values are not well represented."""
    return [i for i, (v, t) in enumerate(zip(state, var_types)) if not well_represented(v, t)]


def state_problems(model, limit: int, max_reports: int = 3) -> list[str]:
    """What is wrong with the states a breadth-first search of `model` reaches (up to `limit`
    stored states, or an evaluation error): see the module docstring. Empty: nothing."""
    names = [v.name for v in model.ir.variables]
    types = model.var_types
    incremental = Fingerprinter(types)
    afresh = Fingerprinter(types)
    problems: list[str] = []

    def report(text: str) -> bool:
        problems.append(text)
        return len(problems) >= max_reports

    def check(state: tuple, how: str) -> bool:
        for i in badly_represented(state, types):
            if report(f"{how}: {names[i]} = {state[i]!r} is not a {types[i]}"):
                return True
        return False

    def stored(state: tuple) -> bool:
        return all(c(state) for _, c in model.constraints)

    try:
        frontier = []
        for s in dict.fromkeys(model.init()):
            if check(s, "an initial state"):
                return problems
            if stored(s):
                frontier.append(s)
        seen = set(frontier)
        while frontier and len(seen) <= limit:
            nxt = []
            for s in frontier:
                for k, (nexts, writes) in enumerate(zip(model.next_states, model.action_writes)):
                    succs, fps = nexts(s, incremental.raw(s), incremental.memos, incremental.entries)
                    action = model.ir.actions[k].name
                    for succ, fp in zip(succs, fps):
                        if check(succ, f"a successor by {action}"):
                            return problems
                        changed = [names[i] for i in range(len(s)) if i not in writes and succ[i] != s[i]]
                        if changed and report(f"{action} changed {', '.join(changed)}, which it does not assign"):
                            return problems
                        if fp != afresh(succ) and report(
                                f"{action}: the successor's fingerprint updated incrementally, {fp}, is not "
                                f"its fingerprint, {afresh(succ)}: {succ!r} from {s!r}"):
                            return problems
                        if succ not in seen and stored(succ):
                            seen.add(succ)
                            nxt.append(succ)
            frontier = nxt
    except EVAL_FAILURES:
        pass  # the explorers stop at an evaluation error too
    return problems
