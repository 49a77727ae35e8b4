"""A naive reference explorer: a direct IR interpreter and a plain BFS.

An independent oracle for the compiled explorer (codegen.py + explore.py): it
shares only the front end (parser, typecheck -> IR) and the value helpers of
runtime.py, and evaluates the IR by walking it, with Python sets for the seen
states and no fingerprints, no hoisting, no generated code. Slow on purpose;
tests compare its counts with the fast explorer's on every spec.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product

from tlacheck.core import runtime as R
from tlacheck.ir import nodes as ir


class Interpreter:
    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.consts: list = []
        for c in spec.constants:
            self.consts.append(self.ev(c.value, (), {}))

    # ---------------------------------------------------------------- expressions
    def ev(self, e: ir.Expr, state: tuple, env: dict):
        m = getattr(self, "_" + type(e).__name__)
        return m(e, state, env)

    def _Lit(self, e, s, env):
        return e.value

    def _ConstRef(self, e, s, env):
        return self.consts[e.index]

    def _VarRef(self, e, s, env):
        return s[e.slot]

    def _LocalRef(self, e, s, env):
        return env[e.local.id]

    def _IfE(self, e, s, env):
        return self.ev(e.then, s, env) if self.ev(e.cond, s, env) else self.ev(e.orelse, s, env)

    def _LetE(self, e, s, env):
        return self.ev(e.body, s, {**env, e.local.id: self.ev(e.value, s, env)})

    def _CallDef(self, e, s, env):
        f = self.spec.functions[e.index]
        args = [self.ev(a, s, env) for a in e.args]
        return self.ev(f.body, s, {**env, **{p.id: v for p, v in zip(f.params, args)}})

    def _Build(self, e, s, env):
        items = [self.ev(i, s, env) for i in e.items]
        if e.kind == "set":
            return frozenset(items)
        if e.kind in ("seq", "tuple", "record"):
            return tuple(items)
        return self._map(zip(items[0::2], items[1::2]))

    @staticmethod
    def _map(pairs):
        d = {}
        for k, v in pairs:
            if k in d and d[k] != v:
                raise R.Fault("E409", -1)
            d[k] = v
        keys = R.canon(d)
        return (tuple(keys), tuple(d[k] for k in keys))

    def _bindings(self, gens, s, env):
        if not gens:
            yield env
            return
        (local, dom), rest = gens[0], gens[1:]
        for v in R.canon(self.ev(dom, s, env)):
            yield from self._bindings(rest, s, {**env, local.id: v})

    def _Comp(self, e, s, env):
        envs = [b for b in self._bindings(e.generators, s, env)
                if e.cond is None or self.ev(e.cond, s, b)]
        if e.kind == "all":
            return all(self.ev(e.body, s, b) for b in envs)
        if e.kind == "any":
            return any(self.ev(e.body, s, b) for b in envs)
        if e.kind == "sum":
            return sum(self.ev(e.body, s, b) for b in envs)
        if e.kind == "set":
            return frozenset(self.ev(e.body, s, b) for b in envs)
        if e.kind == "seq":
            return tuple(self.ev(e.body, s, b) for b in envs)
        if e.kind == "map":
            return self._map((self.ev(e.key, s, b), self.ev(e.body, s, b)) for b in envs)
        if e.kind == "choose":
            for b in envs:
                return self.ev(e.body, s, b)
            raise R.Fault("E403", -1)
        raise AssertionError(e.kind)

    def _Prim(self, e, s, env):
        op = e.op
        if op == "enabled":  # the action has a step from s (any of its instances, or those arguments)
            a = self.spec.actions[e.info[0]]
            want = [self.ev(x, s, env) for x in e.args]
            return any(True for b in self._bindings(list(a.params), s, {})
                       if all(b[p.id] == w for (p, _), w in zip(a.params, want))
                       for _ in self.run_block(list(a.body), list(s), b))
        if op == "and":
            return bool(self.ev(e.args[0], s, env)) and bool(self.ev(e.args[1], s, env))
        if op == "or":
            return bool(self.ev(e.args[0], s, env)) or bool(self.ev(e.args[1], s, env))
        if op == "implies":
            return (not self.ev(e.args[0], s, env)) or bool(self.ev(e.args[1], s, env))
        if op in ("in", "notin") and isinstance(e.args[1], ir.Prim) and e.args[1].op == "maps":
            # membership in [D -> R], decided from the definition rather than by building the set
            f = self.ev(e.args[0], s, env)
            dom, rng = (self.ev(x, s, env) for x in e.args[1].args)
            member = frozenset(f[0]) == dom and all(v in rng for v in f[1])
            return member if op == "in" else not member
        a = [self.ev(x, s, env) for x in e.args]
        simple = {
            "not": lambda: not a[0], "eq": lambda: a[0] == a[1], "ne": lambda: a[0] != a[1],
            "lt": lambda: a[0] < a[1], "le": lambda: a[0] <= a[1], "gt": lambda: a[0] > a[1],
            "ge": lambda: a[0] >= a[1], "in": lambda: a[0] in a[1], "notin": lambda: a[0] not in a[1],
            "subset": lambda: a[0] <= a[1], "union": lambda: a[0] | a[1], "inter": lambda: a[0] & a[1],
            "diff": lambda: a[0] - a[1], "add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1],
            "mul": lambda: a[0] * a[1], "neg": lambda: -a[0], "concat": lambda: a[0] + a[1],
            "len": lambda: len(a[0]), "card": lambda: len(a[0]), "elems": lambda: frozenset(a[0]),
            "domain": lambda: frozenset(a[0][0]), "append": lambda: a[0] + (a[1],),
            "range": lambda: frozenset(range(a[0], a[1] + 1)),
            "bigunion": lambda: frozenset(x for part in a[0] for x in part),
            "item": lambda: a[0][e.info], "unwrap": lambda: a[0],
        }
        if op in simple:
            return simple[op]()
        if op == "lookup":
            keys, vals = a[0]
            if a[1] not in keys:
                raise R.Fault("E401", -1)
            return vals[keys.index(a[1])]
        if op == "at":
            if not 1 <= a[1] <= len(a[0]):
                raise R.Fault("E405", -1)
            return a[0][a[1] - 1]
        if op in ("head", "tail"):
            if not a[0]:
                raise R.Fault("E404", -1)
            return a[0][0] if op == "head" else a[0][1:]
        if op == "subseq":
            if a[2] < a[1]:
                return ()
            if a[1] < 1 or a[2] > len(a[0]):
                raise R.Fault("E405", -1)
            return a[0][a[1] - 1:a[2]]
        if op in ("div", "mod"):
            if a[1] == 0:
                raise R.Fault("E407", -1)
            return a[0] // a[1] if op == "div" else a[0] % a[1]
        if op in ("min", "max"):
            if not a[0]:
                raise R.Fault("E404", -1)
            return min(a[0]) if op == "min" else max(a[0])
        if op == "powerset":
            items = R.canon(a[0])
            return frozenset(frozenset(c) for n in range(len(items) + 1) for c in combinations(items, n))
        if op == "orderings":  # by recursion: each element first, then an ordering of the rest
            def orders(items):
                return [()] if not items else [(x,) + rest for x in items for rest in orders(items - {x})]
            return frozenset(orders(frozenset(a[0])))
        if op == "maps":
            keys = tuple(R.canon(a[0]))
            return frozenset((keys, vals) for vals in product(R.canon(a[1]), repeat=len(keys)))
        if op == "check_bounds":
            if not _within(a[0], a[1]):
                raise R.Fault("E402", -1)  # or E410: the comparisons do not look at codes
            return a[0]
        raise AssertionError(op)

    # ---------------------------------------------------------------- statements
    def run_block(self, stmts, state: list, env: dict):
        """Yield (state, env) for every path through `stmts` that passes its requires."""
        if not stmts:
            yield state, env
            return
        st, rest = stmts[0], stmts[1:]
        if isinstance(st, ir.RequireS):
            if self.ev(st.cond, tuple(state), env):
                yield from self.run_block(rest, state, env)
        elif isinstance(st, ir.LetS):
            yield from self.run_block(rest, state, {**env, st.local.id: self.ev(st.value, tuple(state), env)})
        elif isinstance(st, ir.AssignS):
            new = list(state)
            new[st.slot] = self._update(state[st.slot], st.steps, st.value, tuple(state), env)
            yield from self.run_block(rest, new, env)
        elif isinstance(st, ir.IfS):
            for cond, body in st.branches:
                if self.ev(cond, tuple(state), env):
                    for s2, e2 in self.run_block(list(body), state, env):
                        yield from self.run_block(rest, s2, env)
                    return
            for s2, e2 in self.run_block(list(st.orelse), state, env):
                yield from self.run_block(rest, s2, env)
        elif isinstance(st, ir.EitherS):
            for branch in st.branches:
                for s2, e2 in self.run_block(list(branch), state, env):
                    yield from self.run_block(rest, s2, env)
        elif isinstance(st, ir.WithS):
            for b in self._bindings(list(st.binders), tuple(state), env):
                for s2, e2 in self.run_block(list(st.body), state, b):
                    yield from self.run_block(rest, s2, env)
        else:
            raise AssertionError(st)

    def _update(self, current, steps, value, s, env):
        if not steps:
            return self.ev(value, s, env)
        step, more = steps[0], steps[1:]
        if step.kind == "field":
            return current[:step.index] + (self._update(current[step.index], more, value, s, env),) \
                + current[step.index + 1:]
        key = self.ev(step.index, s, env)
        if step.kind == "map":
            keys, vals = current
            if key not in keys:
                raise R.Fault("E401", -1)
            i = keys.index(key)
            return (keys, vals[:i] + (self._update(vals[i], more, value, s, env),) + vals[i + 1:])
        if not 1 <= key <= len(current):
            raise R.Fault("E405", -1)
        return current[:key - 1] + (self._update(current[key - 1], more, value, s, env),) + current[key:]

    # ---------------------------------------------------------------- the model
    def initial_states(self):
        """Every combination of the variables' initial values that satisfies the `init:` predicate
        (docs/language.md): its conjuncts, left to right, each tested once the variables it and the
        conjuncts before it read have values (`due`: the number of variables that takes)."""
        conjuncts = _conjuncts(self.spec.initially.expr) if self.spec.initially is not None else []
        reads = ir.function_reads(self.spec.functions)
        due, need = [], 0
        for c in conjuncts:
            need = max([need, *(slot + 1 for slot in ir.reads(c, reads)[0])])
            due.append(need)

        def go(i, state, tested):
            while tested < len(conjuncts) and due[tested] <= i:
                if not self.ev(conjuncts[tested], tuple(state), {}):
                    return
                tested += 1
            if i == len(self.spec.variables):
                yield tuple(state)
                return
            v = self.spec.variables[i]
            s = tuple(state)
            values = R.canon(self.ev(v.init, s, {})) if v.choice else [self.ev(v.init, s, {})]
            shape = None if v.bounds is None else self.ev(ir.bound_value(v.bounds, v.span), s, {})
            for value in values:
                if shape is not None and not _within(value, shape):
                    raise R.Fault("E402", -1)
                yield from go(i + 1, state + [value], tested)

        yield from go(0, [], 0)

    def successors(self, state: tuple):
        for a in self.spec.actions:
            for b in self._bindings(list(a.params), state, {}):
                for s2, _ in self.run_block(list(a.body), list(state), b):
                    yield tuple(s2)


def _within(v, shape) -> bool:
    """Whether `v` respects the declared bounds `shape` (the tuples of ir.bound_value)."""
    if shape is None:
        return True
    kind = shape[0]
    if kind == 0:
        return shape[1] <= v <= shape[2]
    if kind == 1:
        return (shape[1] is None or len(v) <= shape[1]) and all(_within(x, shape[2]) for x in v)
    if kind == 2:
        return all(_within(x, shape[1]) for x in v)
    if kind == 3:
        return all(_within(k, shape[1]) for k in v[0]) and all(_within(x, shape[2]) for x in v[1])
    if kind == 4:
        return all(_within(x, part) for x, part in zip(v, shape[1]))
    return v is R.NONE or _within(v, shape[1])


class TooLarge(Exception):
    pass


@dataclass(frozen=True)
class Outcome:
    """What the reference BFS found. verdict: ok, invariant, deadlock or error (an evaluation
    error: a Fault, whatever its code). trace_length: states in the trace to the violation (the
    deadlocked state, the state violating `invariant`, the state where the error happened)."""

    verdict: str
    distinct: int
    generated: int
    depth: int
    trace_length: int | None = None
    invariant: str | None = None  # for "unreachable": the first reachable check no state satisfies
    witnesses: tuple[tuple[str, int], ...] | None = None  # see reference_check


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.Prim) and e.op == "and":
        return _conjuncts(e.args[0]) + _conjuncts(e.args[1])
    return [e]


def reference_check(spec: ir.Spec, check_deadlock: bool = True, limit: int = 200_000,
                    invariants: tuple[str, ...] | None = None, legacy_constraints: bool = False,
                    reachables: bool = True) -> Outcome:
    """A plain BFS with TLC's semantics (invariants: None for all, else the named ones).

    As TLC: `generated` counts every initial state and every successor computed; a state not
    seen before is checked against the invariants (in declaration order) when it is generated,
    initial states included, whether or not it satisfies the state constraints; the
    constraints only decide whether it is stored (counted in `distinct`) and explored. Successors
    are checked one by one as they are computed, so that a violation in a successor is found
    before an evaluation error in a later one (as TLC). A state with no successor at all is a
    deadlock. `depth` is the deepest level of a stored state,
    and 1 when the initial states are computed but none is stored (TLC's report).
    Raises TooLarge past `limit` stored states.

    Reachable checks (unless not `reachables`), decided after a complete search only: a check
    holds iff a stored state (one that satisfies the constraints) satisfies it; `witnesses`
    lists (name, trace length to the first such state in BFS order, i.e. its level) for those
    that hold, and the verdict is "unreachable" (`invariant`: the first check, in declaration
    order, that no stored state satisfies) if one does not. Each check is evaluated on the
    stored states in BFS order up to its first witness (an evaluation error there is the
    verdict "error"). `witnesses` is None when the spec has none or the search stopped early.

    `legacy_constraints` is tlacheck's semantics before it followed TLC (used only to triage
    disagreements, tests/oracle/triage.py): states failing a constraint are not checked against
    the invariants, and the depth is 0 when no initial state is stored."""
    it = Interpreter(spec)
    checks = [p for p in spec.invariants if invariants is None or p.name in invariants]
    seen: set = set()
    frontier: list = []
    stored: list = []  # (state, level), in BFS order: for the reachable checks
    generated = 0
    depth = 1

    def in_model(s):
        return all(it.ev(c.expr, s, {}) for c in spec.constraints)

    def violated(s):
        if legacy_constraints and not in_model(s):
            return None
        return next((p.name for p in checks if not it.ev(p.expr, s, {})), None)

    try:
        for s in it.initial_states():
            generated += 1
            if s in seen:
                continue
            bad = violated(s)
            if bad is not None:
                return Outcome("invariant", len(seen) + in_model(s), generated, 1, 1, bad)
            if in_model(s):
                seen.add(s)
                frontier.append(s)
                stored.append((s, 1))
        if legacy_constraints and not frontier:
            depth = 0
        level = 1
        while frontier:
            nxt = []
            for s in frontier:
                found = False
                for t in it.successors(s):  # each checked as it is computed, before the next (as TLC)
                    found = True
                    generated += 1
                    if t in seen:
                        continue
                    bad = violated(t)
                    kept = in_model(t)
                    if kept:
                        seen.add(t)
                        nxt.append(t)
                        stored.append((t, level + 1))
                        depth = level + 1
                    if bad is not None:
                        return Outcome("invariant", len(seen), generated, depth, level + 1, bad)
                if not found and check_deadlock:
                    return Outcome("deadlock", len(seen), generated, depth, level)
                if len(seen) > limit:
                    raise TooLarge(len(seen))
            level += 1
            frontier = nxt
        witnesses = {}
        for p in spec.reachables if reachables else ():
            witnesses[p.name] = next((level for s, level in stored if it.ev(p.expr, s, {})), None)
    except R.Fault:
        return Outcome("error", len(seen), generated, depth)
    if not witnesses:
        return Outcome("ok", len(seen), generated, depth)
    missing = [name for name, level in witnesses.items() if level is None]
    found = tuple(sorted((name, level) for name, level in witnesses.items() if level is not None))
    return Outcome("unreachable" if missing else "ok", len(seen), generated, depth,
                   invariant=missing[0] if missing else None, witnesses=found)


def reference_counts(spec: ir.Spec, check_deadlock: bool = True, limit: int = 200_000):
    """(distinct, generated, depth, verdict) of reference_check; verdict ok, invariant or deadlock."""
    out = reference_check(spec, check_deadlock, limit, reachables=False)
    if out.verdict == "error":
        raise R.Fault("E4xx", -1)
    return out.distinct, out.generated, out.depth, out.verdict
