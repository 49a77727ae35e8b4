"""Decide theorems, enumerate counterexamples and compare functions with Z3.

This is the only module that imports `z3`. It translates IR expressions over
finite scalar types to Z3 terms: bool; enum members and model values (ints
0..n-1); options `T?` (a presence flag and a value); ints, with a finite
domain for theorem binders and function parameters declared `lo..hi`. Calls
of `def` functions are inlined (recursion is refused, E121). Sets appear
only as literals, constants, enums and ranges, for `in`, `all`, `any` and
`sum`. Anything else is refused with E122 and the span of the construct.

Guarantees:
- A theorem is `proved` only when Z3 answers unsat for its negation over the
  whole finite domain; `unknown` (a timeout, or Z3 giving up) is reported as
  such, never as proved. Every query runs under the theorem's time budget.
- The counterexample shown is the least one in the inputs' display order
  (false before true, none first, enum order, ints ascending), so it does
  not depend on which model Z3 happens to return (if the budget runs out
  while minimising, Z3's own counterexample is shown).
- A cover (`--all`, diffs) is a list of cubes whose union is exactly the set
  described; each cube is prime (no single value can be added to any input
  without leaving the set; for inputs with more than 32 values, the cube's
  interval cannot be extended) and no cube is covered by the others. A cover
  cut short by the budget is marked incomplete and is still a subset.
tests/test_smt.py checks all of this against brute-force enumeration.

Known limits: records, tuples, sequences and maps are not translated; a
function parameter's range is assumed for theorem binders passed to it, not
checked at call sites; guards are analysed with the constants as given.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from tlacheck.ir import nodes as ir
from tlacheck.core import types as T
from tlacheck.core.result import Answer
from tlacheck.core.errors import Diagnostic, SpecError, UsageError, suggest
from tlacheck.compile.model import Model
from tlacheck.prove.proof import (
    Cover, DiffResult, Flip, Input, Outcome, ProofReport, TheoremResult, condition, cube_size, domain_values,
    irredundant, point_cube, union_size,
)
from tlacheck.core.runtime import NONE, canon
from tlacheck.core.source import Span

DEFAULT_TIMEOUT_S = 10.0
MAX_CUBES = 1000  # a cover with more cubes than this is reported incomplete
_UNROLL_LIMIT = 100_000  # quantifier instances over explicit sets
_SMALL_DOMAIN = 32  # larger domains are searched by bisection and grown as intervals


# ---------------------------------------------------------------- errors and budgets

class _Untranslatable(Exception):
    """An expression Z3 cannot be given; becomes a SpecError for theorems."""

    def __init__(self, code: str, message: str, span: Span | None, hint: str | None = None):
        super().__init__(message)
        self.diagnostic = Diagnostic(code, message, span, hint)


def _unsupported(what: str, span: Span | None) -> _Untranslatable:
    return _Untranslatable("E122", f"the Z3 translation does not support {what}", span,
                           "theorems and the functions they call may use bool, enums, model values, options, "
                           "bounded ints, and sets only for `in`, `all`, `any` and `sum`")


class _Timeout(Exception):
    """Z3 answered unknown or the budget ran out."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _Budget:
    """A wall-clock allowance shared by every query about one theorem or one diff."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.start = time.monotonic()
        self.deadline = self.start + seconds

    def check(self, solver: z3.Solver) -> bool:
        """True for sat, False for unsat; raises _Timeout otherwise."""
        ms = int((self.deadline - time.monotonic()) * 1000)
        if ms <= 0:
            raise _Timeout(f"timeout after {self.seconds:g} s")
        solver.set("timeout", ms)
        answer = solver.check()
        if answer == z3.unknown:
            reason = solver.reason_unknown()
            if reason in ("timeout", "canceled"):
                reason = f"timeout after {self.seconds:g} s"
            raise _Timeout(reason)
        return answer == z3.sat

    def elapsed(self) -> float:
        return time.monotonic() - self.start


# ---------------------------------------------------------------- symbolic values

@dataclass(frozen=True)
class _Opt:
    """A value of `T?`: `value` is meaningful when `present`; None for the literal `none`."""

    present: z3.BoolRef
    value: object


@dataclass(frozen=True)
class _Set:
    """A finite set given by its (possibly symbolic, possibly repeated) elements."""

    items: tuple


@dataclass(frozen=True)
class _Range:
    """The set lo..hi of ints."""

    lo: z3.ArithRef
    hi: z3.ArithRef


def _as_opt(v) -> _Opt:
    return v if isinstance(v, _Opt) else _Opt(z3.BoolVal(True), v)


def _eq(a, b, span: Span | None) -> z3.BoolRef:
    if isinstance(a, _Opt) or isinstance(b, _Opt):
        a, b = _as_opt(a), _as_opt(b)
        both_none = z3.And(z3.Not(a.present), z3.Not(b.present))
        if a.value is None or b.value is None:
            return both_none
        return z3.Or(both_none, z3.And(a.present, b.present, _eq(a.value, b.value, span)))
    if isinstance(a, (_Set, _Range)) or isinstance(b, (_Set, _Range)):
        raise _unsupported("comparisons of sets", span)
    return a == b


def _ite(c: z3.BoolRef, a, b, span: Span | None):
    if isinstance(a, _Opt) or isinstance(b, _Opt):
        a, b = _as_opt(a), _as_opt(b)
        if a.value is None:
            value = b.value
        elif b.value is None:
            value = a.value
        else:
            value = _ite(c, a.value, b.value, span)
        return _Opt(z3.If(c, a.present, b.present), value)
    if isinstance(a, (_Set, _Range)) or isinstance(b, (_Set, _Range)):
        raise _unsupported("sets chosen by `if`", span)
    return z3.If(c, a, b)


def _concrete_int(term, span: Span | None, what: str) -> int:
    v = z3.simplify(term)
    if not z3.is_int_value(v):
        raise _unsupported(f"{what} that depends on the theorem's variables", span)
    return v.as_long()


def _is_concrete(v) -> bool:
    return not isinstance(v, (_Opt, _Set, _Range)) and (z3.is_int_value(z3.simplify(v))
                                                         or z3.is_true(v) or z3.is_false(v))


# ---------------------------------------------------------------- translation

class _Translator:
    """IR expressions of one compiled model to Z3 terms; `env` maps Local ids to symbolic values."""

    def __init__(self, model: Model):
        self.spec = model.ir
        self.constants = model.constants
        self.inlining: list[int] = []

    def boolean(self, e: ir.Expr, env: dict):
        v = self.expr(e, env)
        if isinstance(v, (_Opt, _Set, _Range)) or not z3.is_bool(v):
            raise _unsupported(f"a {e.type} where a boolean is needed", e.span)  # pragma: no cover
        return v

    def expr(self, e: ir.Expr, env: dict):
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:
            raise _unsupported(f"this kind of expression ({type(e).__name__})", e.span)  # pragma: no cover
        return method(e, env)

    def lift(self, value, t: T.Type, span: Span | None):
        """A run-time value as a Z3 term."""
        if value is NONE:
            return _Opt(z3.BoolVal(False), None)
        if isinstance(t, T.OptionT):
            return _Opt(z3.BoolVal(True), self.lift(value, t.inner, span))
        if isinstance(t, T.BoolT):
            return z3.BoolVal(bool(value))
        if isinstance(t, (T.IntT, T.SortT)):
            return z3.IntVal(value)
        if isinstance(t, T.SetT) and isinstance(value, frozenset):
            return _Set(tuple(self.lift(x, t.element, span) for x in canon(value)))
        if isinstance(t, T.AnyT) and value == frozenset():
            return _Set(())
        raise _unsupported(f"values of type {t}", span)

    def _Lit(self, e: ir.Lit, env):
        return self.lift(e.value, e.type, e.span)

    def _ConstRef(self, e: ir.ConstRef, env):
        return self.lift(self.constants[e.index], e.type, e.span)

    def _VarRef(self, e: ir.VarRef, env):
        name = self.spec.variables[e.slot].name
        where = f"function `{self.spec.functions[self.inlining[-1]].name}`" if self.inlining else "this expression"
        raise _Untranslatable("E115", f"{where} reads state variable `{name}`", e.span,
                              "theorems are about functions of their `forall` variables; pass the value "
                              "as a parameter, or use an invariant for states")

    def _LocalRef(self, e: ir.LocalRef, env):
        if e.local.id not in env:
            raise _unsupported(f"`{e.local.name}` here", e.span)  # pragma: no cover
        return env[e.local.id]

    def _IfE(self, e: ir.IfE, env):
        c = self.boolean(e.cond, env)
        return _ite(c, self._coerce(self.expr(e.then, env), e.type), self._coerce(self.expr(e.orelse, env), e.type),
                    e.span)

    def _LetE(self, e: ir.LetE, env):
        return self.expr(e.body, {**env, e.local.id: self.expr(e.value, env)})

    @staticmethod
    def _coerce(v, t: T.Type):
        return _as_opt(v) if isinstance(t, T.OptionT) else v

    def _CallDef(self, e: ir.CallDef, env):
        f = self.spec.functions[e.index]
        if e.index in self.inlining:
            chain = " -> ".join(self.spec.functions[i].name for i in self.inlining[self.inlining.index(e.index):])
            raise _Untranslatable("E121", f"`{f.name}` is recursive ({chain} -> {f.name}): Z3 translation "
                                  "inlines calls and cannot unfold recursion", e.span,
                                  "write the function without recursion, or check it with `tlacheck check`")
        args = [self._coerce(self.expr(a, env), p.type) for a, p in zip(e.args, f.params)]
        self.inlining.append(e.index)
        try:
            body = self.expr(f.body, {p.id: a for p, a in zip(f.params, args)})
        finally:
            self.inlining.pop()
        return self._coerce(body, f.returns)

    def function_body(self, index: int, args: list):
        """The result of function `index` on symbolic `args` (its parameters, in order)."""
        f = self.spec.functions[index]
        self.inlining.append(index)
        try:
            return self._coerce(self.expr(f.body, {p.id: a for p, a in zip(f.params, args)}), f.returns)
        finally:
            self.inlining.pop()

    def _Build(self, e: ir.Build, env):
        if e.kind != "set":
            raise _unsupported(f"{_KIND_NAMES.get(e.kind, e.kind)} literals", e.span)
        return _Set(tuple(self.expr(i, env) for i in e.items))

    def _items(self, s, span: Span | None) -> tuple:
        if isinstance(s, _Set):
            return s.items
        if isinstance(s, _Range):
            lo = _concrete_int(s.lo, span, "a range")
            hi = _concrete_int(s.hi, span, "a range")
            if hi - lo + 1 > _UNROLL_LIMIT:
                raise _unsupported(f"quantifiers over {hi - lo + 1:,} values", span)
            return tuple(z3.IntVal(i) for i in range(lo, hi + 1))
        raise _unsupported("iterating over this value", span)  # pragma: no cover

    def _bindings(self, generators, env, span, distinct: bool):
        """Every environment the generators produce, in order."""
        envs = [env]
        for local, domain in generators:
            nxt = []
            for en in envs:
                items = self._items(self.expr(domain, en), domain.span)
                if distinct:
                    if not all(_is_concrete(i) for i in items):
                        raise _unsupported("`sum` over a set whose elements depend on the theorem's variables",
                                           domain.span)
                    seen, unique = set(), []
                    for i in items:
                        key = z3.simplify(i).sexpr()
                        if key not in seen:
                            seen.add(key)
                            unique.append(i)
                    items = unique
                nxt.extend({**en, local.id: i} for i in items)
                if len(nxt) > _UNROLL_LIMIT:
                    raise _unsupported(f"quantifiers over more than {_UNROLL_LIMIT:,} values", span)
            envs = nxt
        return envs

    def _Comp(self, e: ir.Comp, env):
        if e.kind not in ("all", "any", "sum"):
            raise _unsupported(f"`{e.kind}` comprehensions", e.span)
        parts = []
        for en in self._bindings(e.generators, env, e.span, distinct=e.kind == "sum"):
            cond = self.boolean(e.cond, en) if e.cond is not None else None
            if e.kind == "sum":
                body = self.expr(e.body, en)
                parts.append(body if cond is None else z3.If(cond, body, 0))
            else:
                body = self.boolean(e.body, en)
                if cond is not None:
                    body = z3.Implies(cond, body) if e.kind == "all" else z3.And(cond, body)
                parts.append(body)
        if e.kind == "all":
            return z3.And(parts) if parts else z3.BoolVal(True)
        if e.kind == "any":
            return z3.Or(parts) if parts else z3.BoolVal(False)
        return z3.Sum(parts) if parts else z3.IntVal(0)

    def member(self, x, s, span: Span | None) -> z3.BoolRef:
        if isinstance(s, _Range):
            if isinstance(x, _Opt):
                return z3.And(x.present, s.lo <= x.value, x.value <= s.hi)
            return z3.And(s.lo <= x, x <= s.hi)
        if isinstance(s, _Set):
            return z3.Or([_eq(x, i, span) for i in s.items]) if s.items else z3.BoolVal(False)
        raise _unsupported("membership in this value", span)  # pragma: no cover

    def _Prim(self, e: ir.Prim, env):
        op = e.op
        if op in ("and", "or", "implies"):
            a, b = (self.boolean(x, env) for x in e.args)
            return {"and": z3.And, "or": z3.Or, "implies": z3.Implies}[op](a, b)
        if op == "not":
            return z3.Not(self.boolean(e.args[0], env))
        if op in ("eq", "ne"):
            a, b = (self.expr(x, env) for x in e.args)
            r = _eq(a, b, e.span)
            return r if op == "eq" else z3.Not(r)
        if op in ("in", "notin"):
            x, s = (self.expr(a, env) for a in e.args)
            r = self.member(x, s, e.span)
            return r if op == "in" else z3.Not(r)
        if op == "range":
            lo, hi = (self.expr(x, env) for x in e.args)
            return _Range(lo, hi)
        if op == "unwrap":  # the value of an option, where it is known to be present (`??`)
            return _as_opt(self.expr(e.args[0], env)).value
        if op == "union":
            a, b = (self.expr(x, env) for x in e.args)
            return _Set(self._items(a, e.span) + self._items(b, e.span))
        arith = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
                 "ge": lambda a, b: a >= b, "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
                 "mul": lambda a, b: a * b}
        if op in arith:
            a, b = (self.expr(x, env) for x in e.args)
            return arith[op](a, b)
        if op == "neg":
            return -self.expr(e.args[0], env)
        if op in ("div", "mod"):
            a = self.expr(e.args[0], env)
            d = _concrete_int(self.expr(e.args[1], env), e.args[1].span, "a divisor")
            if d == 0:
                raise _Untranslatable("E122", "division by zero", e.args[1].span,
                                      "the divisor is the constant 0")
            # Python's floor semantics; SMT-LIB div/mod agree with it for a positive divisor.
            if d > 0:
                return a / d if op == "div" else a % d
            return (-a) / (-d) if op == "div" else -((-a) % (-d))
        raise _unsupported(_OP_NAMES.get(op, f"the operation `{op}`"), e.span)


_KIND_NAMES = {"seq": "sequence", "map": "map", "tuple": "tuple", "record": "record"}
_OP_NAMES = {
    "item": "record fields and tuple positions", "lookup": "map lookups", "at": "sequence indexing",
    "len": "`len`",
    "card": "`len` of a set", "concat": "sequence concatenation", "append": "`append`",
    "head": "`head`", "tail": "`tail`", "subseq": "`subseq`", "elems": "`elems`", "domain": "`domain`",
    "subset": "`subset`", "inter": "set intersection", "diff": "set difference", "powerset": "`powerset`", "orderings": "`orderings`",
    "bigunion": "`bigunion`", "maps": "`maps`", "min": "`min`", "max": "`max`",
}


# ---------------------------------------------------------------- inputs

@dataclass
class _Var:
    """One input as a Z3 term, with the constraint that keeps it in its domain."""

    input: Input
    sym: object
    domain: z3.BoolRef
    translator: _Translator
    _equals: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.input.values)

    def equals(self, index: int) -> z3.BoolRef:
        if index not in self._equals:
            value = self.translator.lift(self.input.values[index], self.input.type, None)
            self._equals[index] = _eq(self.sym, value, None)
        return self._equals[index]

    def member(self, indices) -> z3.BoolRef:
        """The input takes one of these values (a range constraint for a run of ints)."""
        indices = sorted(indices)
        if len(indices) == self.size:
            return z3.BoolVal(True)
        values = self.input.values
        has_none = values[indices[0]] is NONE
        ints = indices[1:] if has_none else indices
        inner = self.input.type.inner if isinstance(self.input.type, T.OptionT) else self.input.type
        if not (isinstance(inner, T.IntT) and len(ints) > 2 and ints == list(range(ints[0], ints[-1] + 1))):
            return z3.Or([self.equals(i) for i in indices])
        if isinstance(self.sym, _Opt):
            inside = z3.And(self.sym.present, values[ints[0]] <= self.sym.value, self.sym.value <= values[ints[-1]])
            return z3.Or(z3.Not(self.sym.present), inside) if has_none else inside
        return z3.And(values[ints[0]] <= self.sym, self.sym <= values[ints[-1]])

    def read(self, model: z3.ModelRef) -> int:
        """The index of this input's value in a Z3 model."""
        return self.input.values.index(_read(model, self.sym, self.input.type))


def _read(model: z3.ModelRef, sym, t: T.Type):
    """The run-time value of a symbolic value in a Z3 model."""
    if isinstance(sym, _Opt):
        if not z3.is_true(model.eval(sym.present, model_completion=True)):
            return NONE
        return _read(model, sym.value, t.inner if isinstance(t, T.OptionT) else t)
    v = model.eval(sym, model_completion=True)
    if isinstance(t, T.BoolT):
        return z3.is_true(v)
    return v.as_long()


def _const_int(e: ir.Expr, model: Model) -> int:
    """The value of a range bound: int literals and constants combined with + and -."""
    if isinstance(e, ir.Lit) and isinstance(e.value, int):
        return e.value
    if isinstance(e, ir.ConstRef):
        return model.constants[e.index]
    if isinstance(e, ir.Prim) and e.op in ("add", "sub"):
        a, b = (_const_int(x, model) for x in e.args)
        return a + b if e.op == "add" else a - b
    if isinstance(e, ir.Prim) and e.op == "neg":
        return -_const_int(e.args[0], model)
    raise _unsupported("range bounds that are not constant", e.span)  # pragma: no cover


def local_bounds(local: ir.Local, model: Model) -> tuple[int, int] | None:
    if local.bounds is None:
        return None
    return (_const_int(local.bounds[0], model), _const_int(local.bounds[1], model))


def _make_var(name: str, t: T.Type, bounds, tr: _Translator, span: Span | None) -> _Var:
    inner = t.inner if isinstance(t, T.OptionT) else t
    if not isinstance(inner, (T.BoolT, T.SortT, T.IntT)) or (isinstance(inner, T.IntT) and bounds is None):
        raise _Untranslatable("E120", f"`{name}` has type {t}, which has no finite domain", span,
                              "give ints a range such as `0..3`; other types must be bool, an enum, "
                              "model values, or an option of these")
    values = domain_values(t, bounds)
    base = z3.Bool(name) if isinstance(inner, T.BoolT) else z3.Int(name)
    if isinstance(inner, T.SortT):
        dom = z3.And(0 <= base, base < len(inner.members))
    elif isinstance(inner, T.IntT):
        dom = z3.And(bounds[0] <= base, base <= bounds[1])
    else:
        dom = z3.BoolVal(True)
    if isinstance(t, T.OptionT):
        present = z3.Bool(name + "?")
        if len(values) == 1:  # an empty range: only `none`
            return _Var(Input(name, t, values), _Opt(present, base), z3.Not(present), tr)
        default = tr.lift(values[1], inner, span)
        dom = z3.And(dom, z3.Implies(z3.Not(present), base == default))
        return _Var(Input(name, t, values), _Opt(present, base), dom, tr)
    return _Var(Input(name, t, values), base, dom, tr)


def _domain(vars_: list[_Var]) -> z3.BoolRef:
    return z3.And([v.domain for v in vars_]) if vars_ else z3.BoolVal(True)


# ---------------------------------------------------------------- search

def _cube_formula(vars_: list[_Var], cube) -> z3.BoolRef:
    parts = [v.member(s) for v, s in zip(vars_, cube) if len(s) < v.size]
    return z3.And(parts) if parts else z3.BoolVal(True)


def _least_point(solver: z3.Solver, vars_: list[_Var], budget: _Budget) -> tuple[int, ...]:
    """The least satisfying input combination in display order (the solver is known sat)."""
    chosen = []
    solver.push()
    try:
        for v in vars_:
            n = v.size
            if n <= _SMALL_DOMAIN:
                pick = n - 1
                for i in range(n - 1):  # the last value needs no query: some value works
                    solver.push()
                    solver.add(v.equals(i))
                    ok = budget.check(solver)
                    solver.pop()
                    if ok:
                        pick = i
                        break
            else:
                lo, hi = 0, n - 1  # invariant: some value in [lo, hi] works, none below lo
                while lo < hi:
                    mid = (lo + hi) // 2
                    solver.push()
                    solver.add(v.member(range(lo, mid + 1)))
                    ok = budget.check(solver)
                    solver.pop()
                    if ok:
                        hi = mid
                    else:
                        lo = mid + 1
                pick = lo
            solver.add(v.equals(pick))
            chosen.append(pick)
    finally:
        solver.pop()
    return tuple(chosen)


def _expand(point, vars_: list[_Var], outside: z3.Solver, budget: _Budget) -> tuple:
    """Grow the point to a prime cube inside the set (`outside` holds the complement)."""
    cube = list(point_cube(point))

    def inside(candidate) -> bool:
        outside.push()
        outside.add(_cube_formula(vars_, candidate))
        ok = not budget.check(outside)
        outside.pop()
        return ok

    for k, v in enumerate(vars_):
        n = v.size
        if n == 1:
            continue
        full = cube[:k] + [frozenset(range(n))] + cube[k + 1:]
        if inside(full):
            cube = full
            continue
        if n <= _SMALL_DOMAIN:
            for i in range(n):
                if i not in cube[k]:
                    trial = cube[:k] + [cube[k] | {i}] + cube[k + 1:]
                    if inside(trial):
                        cube = trial
        else:  # grow an interval around the point's value, by bisection on each side
            p = point[k]
            lo, hi = 0, p
            while lo < hi:
                mid = (lo + hi) // 2
                if inside(cube[:k] + [frozenset(range(mid, p + 1))] + cube[k + 1:]):
                    hi = mid
                else:
                    lo = mid + 1
            start = lo
            lo, hi = p, n - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if inside(cube[:k] + [frozenset(range(start, mid + 1))] + cube[k + 1:]):
                    lo = mid
                else:
                    hi = mid - 1
            cube = cube[:k] + [frozenset(range(start, lo + 1))] + cube[k + 1:]
    return tuple(cube)


def _cover(vars_: list[_Var], member: z3.BoolRef, budget: _Budget, seed: tuple | None = None) -> Cover:
    """Every input combination satisfying `member`, as an irredundant cover of prime cubes.
    When time runs out the cover is incomplete; it still holds `seed`, a known member."""
    domain = _domain(vars_)
    todo = z3.Solver()
    todo.add(domain, member)
    outside = z3.Solver()
    outside.add(domain, z3.Not(member))
    cubes: list = []
    complete = True
    try:
        while budget.check(todo):
            if len(cubes) >= MAX_CUBES:
                complete = False
                break
            point = tuple(v.read(todo.model()) for v in vars_)
            try:
                point = _least_point(todo, vars_, budget)
                cube = _expand(point, vars_, outside, budget)
            except _Timeout:
                cubes.append(point_cube(point))  # a member found before time ran out
                raise
            cubes.append(cube)
            todo.add(z3.Not(_cube_formula(vars_, cube)))
    except _Timeout:
        complete = False
        if seed is not None and not any(all(v in c for v, c in zip(seed, cube)) for cube in cubes):
            cubes.append(point_cube(seed))
    kept = irredundant(cubes)
    inputs = tuple(v.input for v in vars_)
    kept.sort(key=lambda c: (-cube_size(c), condition(inputs, c)))
    return Cover(tuple(kept), union_size(kept), complete)


# ---------------------------------------------------------------- theorems

@dataclass
class _Query:
    theorem: ir.Theorem
    vars: list[_Var]
    body: z3.BoolRef
    hypothesis: z3.BoolRef | None


def _translate_theorem(th: ir.Theorem, model: Model) -> _Query:
    tr = _Translator(model)
    vars_ = [_make_var(p.name, p.type, local_bounds(p, model), tr, th.span) for p in th.params]
    env = {p.id: v.sym for p, v in zip(th.params, vars_)}
    body = tr.boolean(th.body, env)
    hypothesis = None
    if isinstance(th.body, ir.Prim) and th.body.op == "implies":
        hypothesis = tr.boolean(th.body.args[0], env)
    return _Query(th, vars_, body, hypothesis)


def _decide(q: _Query, timeout_s: float, want_all: bool) -> tuple[TheoremResult, Diagnostic | None]:
    th = q.theorem
    budget = _Budget(timeout_s)
    inputs = tuple(v.input for v in q.vars)
    domain = _domain(q.vars)
    refute = z3.Solver()
    refute.add(domain, z3.Not(q.body))
    try:
        refuted = budget.check(refute)
    except _Timeout as t:
        return TheoremResult(th.name, th.span, inputs, Outcome.UNKNOWN, reason=t.reason,
                             elapsed_s=budget.elapsed()), None
    if not refuted:
        warning = _vacuity(q, domain, budget)
        return (TheoremResult(th.name, th.span, inputs, Outcome.PROVED, elapsed_s=budget.elapsed(),
                              vacuous=warning is not None), warning)
    fallback = tuple(v.read(refute.model()) for v in q.vars)
    try:
        point = _least_point(refute, q.vars, budget)
    except _Timeout:
        point = fallback
    cover = _cover(q.vars, z3.Not(q.body), budget, seed=point) if want_all else None
    return TheoremResult(th.name, th.span, inputs, Outcome.REFUTED, counterexample=point, cover=cover,
                         elapsed_s=budget.elapsed()), None


def _vacuity(q: _Query, domain, budget: _Budget) -> Diagnostic | None:
    """W210 when the hypothesis of `A implies B` holds for no input (the theorem is then vacuous)."""
    if q.hypothesis is None:
        return None
    s = z3.Solver()
    s.add(domain, q.hypothesis)
    try:
        if budget.check(s):
            return None
    except _Timeout:
        return None
    span = q.theorem.body.args[0].span
    return Diagnostic("W210", f"the hypothesis of theorem `{q.theorem.name}` is never true, so it "
                      "holds vacuously", span,
                      "the part before `implies` excludes every input; check it for a contradiction",
                      severity="warning")


def prove(model: Model, timeout_s: float = DEFAULT_TIMEOUT_S, want_all: bool = False,
          names: list[str] | None = None, variant: str = "base", guards: bool = True) -> ProofReport:
    """Decide the model's theorems (all, or those named), with vacuity warnings (W210, and
    W211 for action guards when `guards`). Raises SpecError (E115, E120-E122) when a theorem
    cannot be translated, UsageError for an unknown theorem name."""
    spec = model.ir
    theorems = list(spec.theorems)
    if names:
        known = [t.name for t in theorems]
        for n in names:
            if n not in known:
                hint = suggest(n, known)
                raise UsageError(f"--theorem {n}: the spec has no theorem named `{n}`",
                                 f"did you mean `{hint}`?" if hint else f"theorems: {', '.join(known) or 'none'}")
        theorems = [t for t in theorems if t.name in names]
    queries, errors = [], []
    for th in theorems:
        try:
            queries.append(_translate_theorem(th, model))
        except _Untranslatable as exc:
            errors.append(exc.diagnostic)
    if errors:
        raise SpecError(errors)
    report = ProofReport(spec.name, spec.file, variant, timeout_s)
    for q in queries:
        result, warning = _decide(q, timeout_s, want_all)
        report.theorems.append(result)
        if warning is not None:
            report.warnings.append(warning)
    if guards:
        report.warnings.extend(guard_warnings(model, timeout_s))
    return report


# ---------------------------------------------------------------- guards

def _top_requires(body) -> list[ir.RequireS]:
    """The `require`s every enabled path of an action passes (those at the top of its body)."""
    return [st for st in body if isinstance(st, ir.RequireS)]


def guard_warnings(model: Model, timeout_s: float = DEFAULT_TIMEOUT_S) -> list[Diagnostic]:
    """W211 for each action whose guard holds for no parameter value.

    Sound, not complete: only top-level `require`s that read parameters and
    constants (directly or through functions) take part, with the constants
    as given; a parameter whose domain cannot be translated ranges over its
    whole type. So a warning means the action can never be taken."""
    out = []
    for action in model.ir.actions:
        tr = _Translator(model)
        env: dict = {}
        facts = []
        for local, domain in action.params:
            sym, dom = _param_sym(local, action.name)
            if sym is None:
                continue
            env[local.id] = sym
            facts.append(dom)
            try:
                facts.append(tr.member(sym, tr.expr(domain, env), domain.span))
            except _Untranslatable:
                pass
        guards = []
        for st in _top_requires(action.body):
            try:
                guards.append(tr.boolean(st.cond, env))
            except _Untranslatable:
                pass
        if not guards and not action.params:
            continue
        s = z3.Solver()
        s.add(*facts, *guards)
        try:
            if _Budget(timeout_s).check(s):
                continue
        except _Timeout:
            continue
        what = "no value of its parameters satisfies its guard" if action.params else "its guard is always false"
        out.append(Diagnostic("W211", f"action `{action.name}` can never be taken: {what}", action.span,
                              "its `require`s on parameters and constants contradict each other, or a "
                              "parameter's set is empty (with the constants as given)",
                              severity="warning"))
    return out


def _param_sym(local: ir.Local, action: str):
    """A Z3 term for an action parameter over its whole type (None when not scalar)."""
    t = local.type
    inner = t.inner if isinstance(t, T.OptionT) else t
    name = f"{action}.{local.name}"
    if isinstance(inner, T.BoolT):
        base, dom = z3.Bool(name), z3.BoolVal(True)
    elif isinstance(inner, T.SortT):
        base = z3.Int(name)
        dom = z3.And(0 <= base, base < len(inner.members))
    elif isinstance(inner, T.IntT):
        base, dom = z3.Int(name), z3.BoolVal(True)
    else:
        return None, None
    if isinstance(t, T.OptionT):
        return _Opt(z3.Bool(name + "?"), base), dom
    return base, dom


# ---------------------------------------------------------------- diffs

def _function(model: Model, name: str, label: str) -> int:
    names = [f.name for f in model.ir.functions]
    if name not in names:
        hint = suggest(name, names)
        raise UsageError(f"--diff {name}: {label} has no function named `{name}`",
                         f"did you mean `{hint}`?" if hint else f"functions: {', '.join(names) or 'none'}")
    return names.index(name)


def diff(old: Model, new: Model, name: str, old_label: str, new_label: str,
         timeout_s: float = DEFAULT_TIMEOUT_S) -> DiffResult:
    """Where function `name` of `old` and of `new` give different results, on the inputs of
    `old`'s parameters: one cover per pair (old result, new result)."""
    i_old, i_new = _function(old, name, old_label), _function(new, name, new_label)
    f_old, f_new = old.ir.functions[i_old], new.ir.functions[i_new]
    sig_old = [(p.type, local_bounds(p, old)) for p in f_old.params] + [f_old.returns]
    sig_new = [(p.type, local_bounds(p, new)) for p in f_new.params] + [f_new.returns]
    if sig_old != sig_new:
        def show(f, m):
            params = ", ".join(f"{p.name}: {_type_text(p, m)}" for p in f.params)
            return f"({params}) -> {f.returns}"
        raise UsageError(f"--diff {name}: the two functions take different inputs or return different types",
                         f"{old_label}: {show(f_old, old)}; {new_label}: {show(f_new, new)}")
    inner = f_old.returns.inner if isinstance(f_old.returns, T.OptionT) else f_old.returns
    if not isinstance(inner, (T.BoolT, T.SortT, T.IntT)):
        raise UsageError(f"--diff {name}: `{name}` returns {f_old.returns}; diffs compare functions returning "
                         "bool, an enum, model values, an int or an option of these")
    tr_old, tr_new = _Translator(old), _Translator(new)
    try:
        vars_ = [_make_var(p.name, p.type, local_bounds(p, old), tr_old, f_old.span) for p in f_old.params]
        args = [v.sym for v in vars_]
        out_old = tr_old.function_body(i_old, args)
        out_new = tr_new.function_body(i_new, args)
    except _Untranslatable as exc:
        raise SpecError([exc.diagnostic]) from None
    budget = _Budget(timeout_s)
    inputs = tuple(v.input for v in vars_)
    domain = _domain(vars_)
    pending = z3.Solver()
    pending.add(domain, z3.Not(_eq(out_old, out_new, None)))
    flips = []
    complete, reason = True, None
    try:
        while budget.check(pending):
            m = pending.model()
            point = tuple(v.read(m) for v in vars_)
            a, b = _read(m, out_old, f_old.returns), _read(m, out_new, f_new.returns)
            try:  # report the pair of the least differing input; Z3's own if time runs out
                least = _least_point(pending, vars_, budget)
                pending.push()
                try:
                    pending.add(*[v.equals(i) for v, i in zip(vars_, least)])
                    budget.check(pending)
                    m = pending.model()
                finally:
                    pending.pop()
                point, a, b = least, _read(m, out_old, f_old.returns), _read(m, out_new, f_new.returns)
            except _Timeout:
                pass
            same = z3.And(_eq(out_old, tr_old.lift(a, f_old.returns, None), None),
                          _eq(out_new, tr_new.lift(b, f_new.returns, None), None))
            cover = _cover(vars_, same, budget, seed=point)
            flips.append(Flip(a, b, cover))
            if not cover.complete:
                complete, reason = False, f"timeout after {timeout_s:g} s"
                break
            pending.add(z3.Not(same))
    except _Timeout as t:
        complete, reason = False, t.reason
    return DiffResult(name, old_label, new_label, inputs, f_old.returns, tuple(flips), complete, reason,
                      budget.elapsed())


def _type_text(p: ir.Local, model: Model) -> str:
    b = local_bounds(p, model)
    if b is None:
        return str(p.type)
    text = f"{b[0]}..{b[1]}"
    return text + "?" if isinstance(p.type, T.OptionT) else text



# ---------------------------------------------------------------- one theorem, for `tlacheck verify`

@dataclass(frozen=True)
class Decision:
    """One theorem's outcome in the words of `expect` lines: holds (proved),
    violates (refuted) or unknown."""

    result: TheoremResult

    @property
    def verdict(self) -> Answer:
        return {Outcome.PROVED: Answer.HOLDS, Outcome.REFUTED: Answer.VIOLATES, Outcome.UNKNOWN: Answer.UNKNOWN}[
            self.result.outcome]

    @property
    def summary(self) -> str:
        r = self.result
        if r.outcome == Outcome.REFUTED:
            shown = ", ".join(f"{i.name} = {i.format(i.values[v])}" for i, v in zip(r.inputs, r.counterexample))
            return f"refuted: {shown}" if shown else "refuted"
        if r.outcome == Outcome.UNKNOWN:
            return f"unknown: {r.reason}"
        return f"proved for all {r.domain_size:,} inputs"


def decide(model: Model, name: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> Decision:
    """Decide the theorem `name` of a compiled model."""
    report = prove(model, timeout_s, names=[name], guards=False)
    return Decision(report.theorems[0])
