"""The IR verifier: the invariants every `ir.Spec` must satisfy, whoever produced it.

`verify(spec)` returns the problems it finds (empty: well formed). The tests run it on every
spec the front end lowers (tests/test_ir_verify.py), so a second front end, or a change to
typecheck, that produces IR the later stages do not expect is caught at the IR, not as wrong
Python or a wrong count. What it checks:

- every name is resolved: state slots, constant and function indices in range; every local
  read is bound by an enclosing `let`, generator, parameter or binder (and each local is
  bound once);
- every operator is applied to as many arguments as it takes (nodes.OP_ARITY), and the
  operators whose types are fixed have them: logic on bools, arithmetic and order on ints,
  membership in a set of the element's type, lookups in maps and sequences, positions
  within tuples and records;
- literals hold values of the run-time representation of their type (a bool is never an int);
- collection literals hold items of their element types; comprehensions bind one local per
  generator over a set (or sequence) of its type;
- assignments name a state slot and path steps fit the types they index.
"""

from __future__ import annotations

from tlacheck.core import types as T
from tlacheck.core.runtime import NONE
from tlacheck.ir import nodes as ir

_LOGIC = {"and", "or", "implies", "not"}
_ORDER = {"lt", "le", "gt", "ge"}
_ARITH = {"add", "sub", "mul", "div", "mod", "neg"}


def verify(spec: ir.Spec) -> list[str]:
    """Every problem found in `spec`, as `where: what` lines; [] when it is well formed."""
    return _Verifier(spec).run()


def _compatible(a: T.Type, b: T.Type) -> bool:
    return T.join(a, b) is not None


class _Verifier:
    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.problems: list[str] = []
        self.bound_ids: set[int] = set()
        self.slots = len(spec.variables)  # the state slots an expression may read

    def run(self) -> list[str]:
        spec = self.spec
        for c in spec.constants:
            self.expr(c.value, {}, f"constant {c.name}")
        for v in spec.variables:
            self.expr(v.init, {}, f"variable {v.name}")
        for f in spec.functions:
            scope = self.bind({}, f.params, f"def {f.name}")
            self.expr(f.body, scope, f"def {f.name}")
            self.same(f.body.type, f.returns, f"def {f.name}: its body")
        for a in spec.actions:
            scope = self.generators(a.params, {}, f"action {a.name}")
            self.stmts(a.body, scope, f"action {a.name}")
            if a.sends_expr is not None:
                self.expr(a.sends_expr, scope, f"action {a.name}: its `->` target")
        for kind, preds in (("invariant", spec.invariants), ("constraint", spec.constraints),
                            ("reachable", spec.reachables), ("assumption", spec.assumptions)):
            for p in preds:
                self.expr(p.expr, {}, f"{kind} {p.name}")
                self.same(p.expr.type, T.BOOL, f"{kind} {p.name}")
        for p in spec.derived:
            self.expr(p.expr, {}, f"derived {p.name}")
        for r in spec.refinements:
            self.expr(r.state.expr, {}, f"refinement {r.name}")
            self.expr(r.constants_expr.expr, {}, f"refinement {r.name}: its constants")
        if spec.initially is not None:
            self.expr(spec.initially.expr, {}, "the init: predicate")
            self.same(spec.initially.expr.type, T.BOOL, "the init: predicate")
        self.slots = 2 * len(spec.variables)  # a step property reads the state after the step too
        for p in spec.steps:
            self.expr(p.expr, {}, f"step {p.name}")
            self.same(p.expr.type, T.BOOL, f"step {p.name}")
        self.slots = len(spec.variables)
        for th in spec.theorems:
            scope = self.bind({}, th.params, f"theorem {th.name}")
            self.expr(th.body, scope, f"theorem {th.name}")
            self.same(th.body.type, T.BOOL, f"theorem {th.name}")
        for prop in spec.properties:
            self.formula(prop.formula, {}, f"property {prop.name}")
        for i, fair in enumerate(spec.fairness):
            where = f"fairness condition {i + 1}"
            scope = self.generators(fair.generators, {}, where)
            scope = self.generators([(local, domain) for local, domain, _ in fair.some], scope, where)
            for _, _, cond in fair.some:
                if cond is not None:
                    self.expr(cond, scope, where)
                    self.same(cond.type, T.BOOL, f"{where}: a `for some` filter")
            for target in fair.targets:
                if not 0 <= target.action < len(spec.actions):
                    self.problems.append(f"{where}: action index {target.action} out of range")
                    continue
                params = spec.actions[target.action].params
                if target.args is not None and len(target.args) != len(params):
                    self.problems.append(f"{where}: {len(target.args)} arguments for {len(params)} parameters")
                for arg in target.args or ():
                    if arg is not None:
                        self.expr(arg, scope, where)
        return self.problems

    # ---------------------------------------------------------------- scopes
    def bind(self, scope: dict, locals_, where: str) -> dict:
        out = dict(scope)
        for local in locals_:
            if local.id in self.bound_ids:
                self.problems.append(f"{where}: local {local.name} (id {local.id}) is bound twice")
            self.bound_ids.add(local.id)
            out[local.id] = local
        return out

    def generators(self, binders, scope: dict, where: str) -> dict:
        """The scope inside `x in S, y in T, ...` (each set may read the names bound before it)."""
        for local, domain in binders:
            self.expr(domain, scope, where)
            self.generator(local, domain, where)
            scope = self.bind(scope, (local,), where)
        return scope

    def generator(self, local: ir.Local, domain: ir.Expr, where: str) -> None:
        if isinstance(domain.type, (T.SetT, T.SeqT)):
            self.same(local.type, domain.type.element, f"{where}: `{local.name}` ranging over its set")
        elif not isinstance(domain.type, T.AnyT):
            self.problems.append(f"{where}: `{local.name}` ranges over a {domain.type}, not a set")

    def same(self, got: T.Type, want: T.Type, where: str) -> None:
        if not _compatible(got, want):
            self.problems.append(f"{where}: type {got} where {want} is expected")

    # ---------------------------------------------------------------- statements
    def stmts(self, stmts, scope: dict, where: str) -> dict:
        for st in stmts:
            scope = self.stmt(st, scope, where)
        return scope

    def stmt(self, st: ir.Stmt, scope: dict, where: str) -> dict:
        if isinstance(st, ir.RequireS):
            self.expr(st.cond, scope, where)
            self.same(st.cond.type, T.BOOL, f"{where}: require")
        elif isinstance(st, ir.AssignS):
            if not 0 <= st.slot < len(self.spec.variables):
                self.problems.append(f"{where}: assignment to slot {st.slot}, out of range")
                return scope
            t = self.spec.variables[st.slot].type
            for step in st.steps:
                t = self.step(step, t, scope, where)
            self.expr(st.value, scope, where)
            if t is not None:
                self.same(st.value.type, t, f"{where}: the value assigned to `{self.spec.variables[st.slot].name}`")
        elif isinstance(st, ir.LetS):
            self.expr(st.value, scope, where)
            self.same(st.local.type, st.value.type, f"{where}: let {st.local.name}")
            return self.bind(scope, (st.local,), where)
        elif isinstance(st, ir.IfS):
            for cond, body in st.branches:
                self.expr(cond, scope, where)
                self.same(cond.type, T.BOOL, f"{where}: if")
                self.stmts(body, scope, where)
            self.stmts(st.orelse, scope, where)
        elif isinstance(st, ir.EitherS):
            for body in st.branches:
                self.stmts(body, scope, where)
        elif isinstance(st, ir.WithS):
            self.stmts(st.body, self.generators(st.binders, scope, where), where)
        else:
            self.problems.append(f"{where}: unknown statement {type(st).__name__}")
        return scope

    def step(self, step: ir.PathStep, t: T.Type | None, scope: dict, where: str) -> T.Type | None:
        if step.kind == "field":
            if isinstance(t, (T.RecordT, T.TupleT)):
                parts = [ft for _, ft in t.fields] if isinstance(t, T.RecordT) else list(t.elements)
                if isinstance(step.index, int) and 0 <= step.index < len(parts):
                    return parts[step.index]
            self.problems.append(f"{where}: field step {step.index!r} into {t}")
            return None
        if not isinstance(step.index, ir.Expr):
            self.problems.append(f"{where}: a {step.kind} step without an index expression")
            return None
        self.expr(step.index, scope, where)
        if step.kind == "map" and isinstance(t, T.MapT):
            self.same(step.index.type, t.key, f"{where}: a map key")
            return t.value
        if step.kind == "seq" and isinstance(t, T.SeqT):
            self.same(step.index.type, T.INT, f"{where}: a sequence position")
            return t.element
        self.problems.append(f"{where}: a {step.kind} step into {t}")
        return None

    # ---------------------------------------------------------------- expressions
    def expr(self, e: ir.Expr, scope: dict, where: str) -> None:
        if isinstance(e, ir.Lit):
            self.literal(e, where)
        elif isinstance(e, ir.VarRef):
            if not 0 <= e.slot < self.slots:
                self.problems.append(f"{where}: state slot {e.slot} out of range")
        elif isinstance(e, ir.ConstRef):
            if not 0 <= e.index < len(self.spec.constants):
                self.problems.append(f"{where}: constant {e.index} out of range")
        elif isinstance(e, ir.LocalRef):
            if scope.get(e.local.id) != e.local:
                self.problems.append(f"{where}: `{e.local.name}` (local {e.local.id}) is read outside its scope")
        elif isinstance(e, ir.CallDef):
            if not 0 <= e.index < len(self.spec.functions):
                self.problems.append(f"{where}: function {e.index} out of range")
            else:
                f = self.spec.functions[e.index]
                if len(e.args) != len(f.params):
                    self.problems.append(f"{where}: {f.name} called with {len(e.args)} arguments, takes {len(f.params)}")
                for a, p in zip(e.args, f.params):
                    self.same(a.type, p.type, f"{where}: an argument of {f.name}")
            for a in e.args:
                self.expr(a, scope, where)
        elif isinstance(e, ir.Prim):
            # check_bounds' second argument is a bound descriptor (nodes.bound_value), not a value
            # of the spec: it holds Python None where nothing is checked.
            for a in e.args[:1] if e.op == "check_bounds" else e.args:
                self.expr(a, scope, where)
            self.prim(e, where)
        elif isinstance(e, ir.IfE):
            for part in (e.cond, e.then, e.orelse):
                self.expr(part, scope, where)
            self.same(e.cond.type, T.BOOL, f"{where}: if")
        elif isinstance(e, ir.LetE):
            self.expr(e.value, scope, where)
            self.expr(e.body, self.bind(scope, (e.local,), where), where)
        elif isinstance(e, ir.Comp):
            inner = self.generators(e.generators, scope, where)
            for part in (e.cond, e.body, e.key):
                if part is not None:
                    self.expr(part, inner, where)
            if e.kind in ("all", "any"):
                self.same(e.body.type, T.BOOL, f"{where}: the body of `{e.kind}`")
            if e.cond is not None:
                self.same(e.cond.type, T.BOOL, f"{where}: a comprehension's condition")
        elif isinstance(e, ir.Build):
            for item in e.items:
                self.expr(item, scope, where)
            self.build(e, where)
        else:
            self.problems.append(f"{where}: unknown expression {type(e).__name__}")

    def literal(self, e: ir.Lit, where: str) -> None:
        v, t = e.value, e.type
        ok = ((isinstance(t, T.BoolT) and type(v) is bool)
              or (isinstance(t, T.IntT) and type(v) is int)
              or (isinstance(t, T.SortT) and type(v) is int and 0 <= v < len(t.members))
              or (isinstance(t, (T.OptionT, T.AnyT)) and v is NONE)
              or (isinstance(t, T.OptionT) and not isinstance(t.inner, T.OptionT)
                  and self.literal_ok(v, t.inner)))
        if not ok:
            self.problems.append(f"{where}: literal {v!r} is not a run-time value of type {t}")

    @staticmethod
    def literal_ok(v, t: T.Type) -> bool:
        return ((isinstance(t, T.BoolT) and type(v) is bool) or (isinstance(t, T.IntT) and type(v) is int)
                or (isinstance(t, T.SortT) and type(v) is int and 0 <= v < len(t.members)))

    def prim(self, e: ir.Prim, where: str) -> None:
        op, args = e.op, e.args
        if op in ("enabled", "step_of") and args:  # `enabled(A(x, y))`, `A(x, y)`: one argument per parameter of A
            params = self.spec.actions[e.info[0]].params
            if len(args) != len(params):
                self.problems.append(f"{where}: `{op}` with {len(args)} arguments, its action takes {len(params)}")
            for a, (local, _) in zip(args, params):
                self.same(a.type, local.type, f"{where}: an argument of `{op}`")
            return
        if len(args) != ir.OP_ARITY[op]:
            self.problems.append(f"{where}: `{op}` with {len(args)} arguments, takes {ir.OP_ARITY[op]}")
            return
        types = [a.type for a in args]
        here = f"{where}: `{op}`"
        if op in _LOGIC:
            for t in types:
                self.same(t, T.BOOL, here)
            self.same(e.type, T.BOOL, here)
        elif op in _ARITH:
            for t in types:
                self.same(t, T.INT, here)
            self.same(e.type, T.INT, here)
        elif op in _ORDER:
            for t in types:
                self.same(t, T.INT, here)
            self.same(e.type, T.BOOL, here)
        elif op in ("eq", "ne"):
            if not _compatible(types[0], types[1]):
                self.problems.append(f"{here} compares a {types[0]} with a {types[1]}")
            self.same(e.type, T.BOOL, here)
        elif op in ("in", "notin"):
            if isinstance(types[1], T.SetT):
                self.same(types[0], types[1].element, here)
            elif not isinstance(types[1], T.AnyT):
                self.problems.append(f"{here}: membership in a {types[1]}")
            self.same(e.type, T.BOOL, here)
        elif op == "lookup":
            if isinstance(types[0], T.MapT):
                self.same(types[1], types[0].key, here)
                self.same(e.type, types[0].value, here)
            else:
                self.problems.append(f"{here} into a {types[0]}")
        elif op == "at":
            if isinstance(types[0], T.SeqT):
                self.same(types[1], T.INT, here)
                self.same(e.type, types[0].element, here)
            else:
                self.problems.append(f"{here} into a {types[0]}")
        elif op == "item":
            t = types[0]
            parts = [ft for _, ft in t.fields] if isinstance(t, T.RecordT) else \
                list(t.elements) if isinstance(t, T.TupleT) else None
            if parts is None or not isinstance(e.info, int) or not 0 <= e.info < len(parts):
                self.problems.append(f"{here}: position {e.info!r} of a {t}")
            else:
                self.same(e.type, parts[e.info], here)
        elif op in ("len", "card"):
            self.same(e.type, T.INT, here)
        elif op == "range":
            for t in types:
                self.same(t, T.INT, here)
            self.same(e.type, T.SetT(T.INT), here)
        elif op in ("union", "inter", "diff", "subset"):
            if not _compatible(types[0], types[1]):
                self.problems.append(f"{here} on a {types[0]} and a {types[1]}")

    def build(self, e: ir.Build, where: str) -> None:
        t, items = e.type, e.items
        here = f"{where}: a {e.kind} literal"
        if e.kind in ("set", "seq"):
            if not isinstance(t, (T.SetT, T.SeqT)):
                self.problems.append(f"{here} of type {t}")
                return
            for item in items:
                self.same(item.type, t.element, here)
        elif e.kind in ("tuple", "record"):
            parts = [ft for _, ft in t.fields] if isinstance(t, T.RecordT) else \
                list(t.elements) if isinstance(t, T.TupleT) else None
            if parts is None or len(parts) != len(items):
                self.problems.append(f"{here} with {len(items)} items of type {t}")
                return
            for item, pt in zip(items, parts):
                self.same(item.type, pt, here)
        elif e.kind == "map":
            if not isinstance(t, T.MapT) or len(items) % 2:
                self.problems.append(f"{here} of type {t} with {len(items)} items")
                return
            for i, item in enumerate(items):
                self.same(item.type, t.key if i % 2 == 0 else t.value, here)

    # ---------------------------------------------------------------- temporal formulas
    def formula(self, f: ir.Formula, scope: dict, where: str) -> None:
        if isinstance(f, ir.TPred):
            self.expr(f.expr, scope, where)
            self.same(f.expr.type, T.BOOL, where)
        elif isinstance(f, ir.TUnary):
            self.formula(f.operand, scope, where)
        elif isinstance(f, ir.TBinary):
            self.formula(f.left, scope, where)
            self.formula(f.right, scope, where)
        elif isinstance(f, ir.TQuant):
            self.expr(f.domain, scope, where)
            self.generator(f.local, f.domain, where)
            self.formula(f.body, self.bind(scope, (f.local,), where), where)
        else:
            self.problems.append(f"{where}: unknown formula {type(f).__name__}")
