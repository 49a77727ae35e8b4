"""IR to Python source, compiled once per model.

The checker never walks the AST per state: every action, invariant, constraint
and function becomes a Python function over tuple states.

Safety rule: no text from the spec reaches the generated source. Identifiers
are generated (`v3` for state slot 3, `l17` for bound name 17, `K2` for
constant 2, `f1` for function 1, `a0` for action 0), literals are emitted with
`repr()` of ints and bools only, and everything else (constant values, spans,
names for messages) lives in tables outside the source. tests/test_codegen.py
tokenizes generated code to enforce this.

Shape of an action function: `def a0(s)` unpacks the state into locals, loops
over its parameters and nondeterministic choices in canonical order, runs the
statements in sequence, and yields `(args, next_state)` for every path that
passes all its `require`s. A failed `require` abandons the innermost choice
(`continue`) or the whole instance (`return`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker import ir
from checker import types as T

# Primitive operations with a direct Python form: op -> format string.
_INFIX = {
    "and": "({} and {})", "or": "({} or {})", "implies": "((not {}) or {})", "not": "(not {})",
    "eq": "({} == {})", "ne": "({} != {})", "lt": "({} < {})", "le": "({} <= {})", "gt": "({} > {})",
    "ge": "({} >= {})", "in": "({} in {})", "notin": "({} not in {})", "subset": "({} <= {})",
    "union": "({} | {})", "inter": "({} & {})", "diff": "({} - {})", "add": "({} + {})",
    "sub": "({} - {})", "mul": "({} * {})", "neg": "(-{})", "concat": "({} + {})",
    "len": "len({})", "card": "len({})", "elems": "frozenset({})", "domain": "frozenset({}[0])",
    "append": "({} + ({},))", "range": "_int_range({}, {})", "bigunion": "_bigunion({})",
}
# Primitive operations that may fail at run time: op -> runtime function (last argument: where).
_FAULTING = {
    "lookup": "_lookup", "at": "_at", "head": "_head", "tail": "_tail", "subseq": "_subseq",
    "powerset": "_powerset", "maps": "_maps", "min": "_set_min", "max": "_set_max", "div": "_div", "mod": "_mod",
}

RUNTIME_NAMES = {
    "_int_range": "int_range", "_bigunion": "bigunion", "_lookup": "lookup", "_at": "at", "_head": "head",
    "_tail": "tail", "_subseq": "subseq", "_powerset": "powerset", "_maps": "all_maps", "_in_maps": "in_maps", "_memo": "memo", "_set_min": "set_min",
    "_set_max": "set_max", "_div": "div", "_mod": "mod", "_mkmap": "mkmap", "_map_set": "map_set",
    "_seq_set": "seq_set", "_put": "put", "_canon": "canon", "_choose": "choose",
    "_check_range": "check_range", "NONE": "NONE", "Fault": "Fault",
}


@dataclass
class Generated:
    """The generated module's source and the tables it refers to by index."""

    source: str
    wheres: list  # (Span, kind, detail) for each `where` index used in the source
    function_reads: list[tuple[int, ...]] = field(default_factory=list)
    # Liveness support: generated function name and the ids of its free locals, for each
    # temporal-formula state predicate, quantifier domain and fairness-argument list.
    predicates: dict = field(default_factory=dict)  # ir.Expr -> (name, local ids)
    domains: dict = field(default_factory=dict)  # ir.Expr -> (name, local ids)
    fairness: list = field(default_factory=list)  # per ir.Fairness: (bindings fn, [args fn or None per target])


def generate(spec: ir.Spec) -> Generated:
    return _Gen(spec).run()


class _Gen:
    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.out: list[str] = []
        self.wheres: list = []
        self.reads = _function_reads(spec)
        self.label = 0

    def where(self, span, kind: str, detail=None) -> int:
        self.wheres.append((span, kind, detail))
        return len(self.wheres) - 1

    def emit(self, indent: int, line: str) -> None:
        self.out.append("    " * indent + line)

    def fresh(self) -> str:
        self.label += 1
        return f"t{self.label}"

    # ---------------------------------------------------------------- module
    def run(self) -> Generated:
        spec = self.spec
        self.emit(0, "def _constants():")
        names = [f"K{i}" for i in range(len(spec.constants))]
        bounds = [f"B{i}" for i, v in enumerate(spec.variables) if v.bounds]
        if names or bounds:
            self.emit(1, "global " + ", ".join(names + bounds))
        for i, c in enumerate(spec.constants):
            self.emit(1, f"K{i} = {self.ex(c.value)}")
        for i, v in enumerate(spec.variables):
            if v.bounds:
                self.emit(1, f"B{i} = ({self.ex(v.bounds[0])}, {self.ex(v.bounds[1])})")
        self.emit(1, "return [" + ", ".join(names) + "]")
        self.emit(0, "")
        for i, f in enumerate(spec.functions):
            params = [f"l{p.id}" for p in f.params] + [f"v{s}" for s in self.reads[i]]
            self.emit(0, f"def f{i}({', '.join(params)}):")
            self.emit(1, f"return {self.ex(f.body)}")
            if not params:  # no arguments and no state: a constant, computed once
                self.emit(0, f"f{i} = _memo(f{i})")
            self.emit(0, "")
        self._init()
        for i, a in enumerate(spec.actions):
            self._action(i, a)
        for prefix, preds in (("inv", spec.invariants), ("con", spec.constraints)):
            for i, p in enumerate(preds):
                self.emit(0, f"def {prefix}{i}(s):")
                self._unpack(1, _expr_reads(p.expr, self.reads))
                self.emit(1, f"return {self.ex(p.expr)}")
                self.emit(0, "")
        for i, p in enumerate(spec.reachables):
            self.emit(0, f"def reach{i}(s):")
            self._unpack(1, _expr_reads(p.expr, self.reads))
            self.emit(1, f"return {self.ex(p.expr)}")
            self.emit(0, "")
        predicates: dict = {}
        domains: dict = {}
        for prop in spec.properties:
            self._formula(prop.formula, predicates, domains)
        fairness = [self._fairness(i, f) for i, f in enumerate(spec.fairness)]
        return Generated("\n".join(self.out) + "\n", self.wheres, [tuple(r) for r in self.reads],
                         predicates, domains, fairness)

    # ---------------------------------------------------------------- liveness support
    def _scoped_function(self, name: str, expr: ir.Expr, with_state: bool, body: str | None = None) -> tuple:
        free = sorted(_free_locals(expr), key=lambda l: l.id)
        params = (["s"] if with_state else []) + [f"l{l.id}" for l in free]
        self.emit(0, f"def {name}({', '.join(params)}):")
        if with_state:
            self._unpack(1, _expr_reads(expr, self.reads))
        self.emit(1, f"return {body if body is not None else self.ex(expr)}")
        self.emit(0, "")
        return (name, tuple(l.id for l in free))

    def _formula(self, f: ir.Formula, predicates: dict, domains: dict) -> None:
        if isinstance(f, ir.TPred):
            if f.expr not in predicates:
                predicates[f.expr] = self._scoped_function(f"tp{len(predicates)}", f.expr, True)
        elif isinstance(f, ir.TUnary):
            self._formula(f.operand, predicates, domains)
        elif isinstance(f, ir.TBinary):
            self._formula(f.left, predicates, domains)
            self._formula(f.right, predicates, domains)
        elif isinstance(f, ir.TQuant):
            if f.domain not in domains:
                domains[f.domain] = self._scoped_function(f"td{len(domains)}", f.domain, False, self.domain(f.domain))
            self._formula(f.body, predicates, domains)

    def _fairness(self, index: int, fair: ir.Fairness) -> tuple:
        """`fb{i}()` yields every binding of the generators; `fa{i}_{j}(s, bindings...)` gives
        the values of target j's fixed arguments (`*` positions left out)."""
        self.emit(0, f"def fb{index}():")
        indent = 1
        for local, domain in fair.generators:
            self.emit(indent, f"for l{local.id} in {self.domain(domain)}:")
            indent += 1
        names = "".join(f"l{l.id}, " for l, _ in fair.generators)
        self.emit(indent, f"yield ({names})")
        self.emit(0, "")
        gen_ids = [l.id for l, _ in fair.generators]
        arg_fns = []
        for j, target in enumerate(fair.targets):
            if target.args is None or all(a is None for a in target.args):
                arg_fns.append(None)
                continue
            fixed = [a for a in target.args if a is not None]
            name = f"fa{index}_{j}"
            params = ["s"] + [f"l{i}" for i in gen_ids]
            self.emit(0, f"def {name}({', '.join(params)}):")
            reads: set[int] = set()
            for a in fixed:
                reads |= _expr_reads(a, self.reads)
            self._unpack(1, reads)
            self.emit(1, "return (" + "".join(self.ex(a) + ", " for a in fixed) + ")")
            self.emit(0, "")
            positions = tuple(k for k, a in enumerate(target.args) if a is not None)
            arg_fns.append((name, positions))
        return (f"fb{index}", arg_fns)

    def _unpack(self, indent: int, slots) -> None:
        n = len(self.spec.variables)
        if not slots:
            return
        if len(slots) == n or len(slots) > 3:
            self.emit(indent, ", ".join(f"v{i}" for i in range(n)) + (", = s" if n == 1 else " = s"))
        else:
            for i in sorted(slots):
                self.emit(indent, f"v{i} = s[{i}]")

    def _init(self) -> None:
        spec = self.spec
        self.emit(0, "def init():")
        indent = 1
        for i, v in enumerate(spec.variables):
            if v.choice:
                self.emit(indent, f"for v{i} in {self.domain(v.init)}:")
                indent += 1
            else:
                self.emit(indent, f"v{i} = {self.ex(v.init)}")
            if v.bounds:
                w = self.where(v.span, "range", v.name)
                self.emit(indent, f"_check_range(v{i}, B{i}[0], B{i}[1], {w})")
        self.emit(indent, f"yield {self._state_tuple()}")
        self.emit(0, "")

    def _state_tuple(self) -> str:
        n = len(self.spec.variables)
        return "(" + ", ".join(f"v{i}" for i in range(n)) + ("," if n == 1 else "") + ")"

    # ---------------------------------------------------------------- actions
    def _action(self, index: int, action: ir.Action) -> None:
        self.emit(0, f"def a{index}(s):")
        self._unpack(1, range(len(self.spec.variables)))
        indent = 1
        for local, domain in action.params:
            self.emit(indent, f"for l{local.id} in {self.domain(domain)}:")
            indent += 1
        abort = "continue" if action.params else "return"
        args = "(" + "".join(f"l{l.id}, " for l, _ in action.params) + ")"
        assigned = _assigned_slots(action.body)
        if action.params:
            for slot in sorted(assigned):  # every parameter value starts from the unchanged state
                self.emit(indent, f"v{slot} = s[{slot}]")
        self._stmts(list(action.body), indent, abort, args, assigned)
        self.emit(0, "")

    def _finish(self, indent: int, args: str, assigned: set[int]) -> None:
        for slot in sorted(assigned):
            v = self.spec.variables[slot]
            if v.bounds:
                w = self.where(v.span, "range", v.name)
                self.emit(indent, f"_check_range(v{slot}, B{slot}[0], B{slot}[1], {w})")
        self.emit(indent, f"yield {args}, {self._state_tuple()}")

    def _stmts(self, stmts: list, indent: int, abort: str, args: str, assigned: set[int]) -> None:
        for i, st in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(st, ir.RequireS):
                self.emit(indent, f"if not {self.ex(st.cond)}:")
                self.emit(indent + 1, abort)
            elif isinstance(st, ir.LetS):
                self.emit(indent, f"l{st.local.id} = {self.ex(st.value)}")
            elif isinstance(st, ir.AssignS):
                self.emit(indent, f"v{st.slot} = {self._update(f'v{st.slot}', st.steps, st.value)}")
            elif isinstance(st, ir.IfS) and not _nondeterministic(st):
                self._if(st, indent, abort, args, assigned, tail=None)
            elif isinstance(st, ir.IfS):
                self._if(st, indent, abort, args, assigned, tail=rest)
                return
            elif isinstance(st, ir.EitherS):
                self._either(st, rest, indent, args, assigned)
                return
            elif isinstance(st, ir.WithS):
                self._with(st, rest, indent, args, assigned)
                return
            else:  # pragma: no cover
                raise AssertionError(st)
        self._finish(indent, args, assigned)

    def _if(self, st: ir.IfS, indent: int, abort: str, args: str, assigned, tail) -> None:
        """A deterministic `if` (tail None: the rest follows it) or one containing choices
        (the rest is emitted inside every branch)."""
        def body(stmts):
            if tail is None:
                self._plain(list(stmts), indent + 1, abort)
            else:
                self._stmts(list(stmts) + tail, indent + 1, abort, args, assigned)

        if not st.branches:
            if tail is not None:
                self._stmts(list(tail), indent, abort, args, assigned)
            return
        for n, (cond, stmts) in enumerate(st.branches):
            self.emit(indent, f"{'if' if n == 0 else 'elif'} {self.ex(cond)}:")
            body(stmts)
        if st.orelse or tail is not None:
            self.emit(indent, "else:")
            body(st.orelse)

    def _plain(self, stmts: list, indent: int, abort: str) -> None:
        """Deterministic statements with no final yield (inside a deterministic `if`)."""
        if not stmts:
            self.emit(indent, "pass")
        for st in stmts:
            if isinstance(st, ir.RequireS):
                self.emit(indent, f"if not {self.ex(st.cond)}:")
                self.emit(indent + 1, abort)
            elif isinstance(st, ir.LetS):
                self.emit(indent, f"l{st.local.id} = {self.ex(st.value)}")
            elif isinstance(st, ir.AssignS):
                self.emit(indent, f"v{st.slot} = {self._update(f'v{st.slot}', st.steps, st.value)}")
            elif isinstance(st, ir.IfS):
                self._if(st, indent, abort, "", set(), tail=None)
            else:  # pragma: no cover
                raise AssertionError(st)

    def _save_restore(self, rest_stmts: list, indent: int) -> tuple[str, list[str]]:
        slots = sorted(_assigned_slots(rest_stmts))
        if not slots:
            return "", []
        names = ", ".join(f"v{s}" for s in slots) + ("," if len(slots) == 1 else "")
        saved = self.fresh()
        self.emit(indent, f"{saved} = ({names})")
        return saved, [f"{names} = {saved}"]

    def _either(self, st: ir.EitherS, rest: list, indent: int, args: str, assigned) -> None:
        saved, restore = self._save_restore([st] + rest, indent)
        b = self.fresh()
        self.emit(indent, f"for {b} in range({len(st.branches)}):")
        for line in restore:
            self.emit(indent + 1, line)
        deterministic = not any(_nondeterministic_block(br) for br in st.branches)
        for n, branch in enumerate(st.branches):
            self.emit(indent + 1, f"{'if' if n == 0 else 'elif'} {b} == {n}:")
            if deterministic:
                self._plain(list(branch), indent + 2, "continue")
            else:
                self._stmts(list(branch) + rest, indent + 2, "continue", args, assigned)
        if deterministic:
            self._stmts(rest, indent + 1, "continue", args, assigned)

    def _with(self, st: ir.WithS, rest: list, indent: int, args: str, assigned) -> None:
        saved, restore = self._save_restore(list(st.body) + rest, indent)
        for local, domain in st.binders:
            self.emit(indent, f"for l{local.id} in {self.domain(domain)}:")
            indent += 1
        for line in restore:
            self.emit(indent, line)
        self._stmts(list(st.body) + rest, indent, "continue", args, assigned)

    def _update(self, current: str, steps, value: ir.Expr) -> str:
        """The expression for `current` with the value at the end of `steps` replaced."""
        if not steps:
            return self.ex(value)
        step, more = steps[0], steps[1:]
        if step.kind == "field":
            inner = self._update(f"{current}[{step.index}]", more, value)
            return f"_put({current}, {step.index}, {inner})"
        key = self.ex(step.index)
        w = self.where(step.span, "lookup" if step.kind == "map" else "at", None)
        if more:
            k = self.fresh()
            getter = "_lookup" if step.kind == "map" else "_at"
            inner = self._update(f"{getter}({current}, {k}, {w})", more, value)
            setter = "_map_set" if step.kind == "map" else "_seq_set"
            return f"(lambda {k}: {setter}({current}, {k}, {inner}, {w}))({key})"
        setter = "_map_set" if step.kind == "map" else "_seq_set"
        return f"{setter}({current}, {key}, {self.ex(value)}, {w})"

    # ---------------------------------------------------------------- expressions
    def domain(self, e: ir.Expr) -> str:
        """A set expression, iterated in canonical order."""
        assert isinstance(e.type, T.SetT)
        if T.naturally_ordered(e.type.element):
            return f"sorted({self.ex(e)})"
        return f"_canon({self.ex(e)})"

    def ex(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Lit):
            if e.value is None or isinstance(e.value, (bool, int)):
                return repr(e.value)
            return "NONE"
        if isinstance(e, ir.VarRef):
            return f"v{e.slot}"
        if isinstance(e, ir.ConstRef):
            return f"K{e.index}"
        if isinstance(e, ir.LocalRef):
            return f"l{e.local.id}"
        if isinstance(e, ir.Prim):
            return self._prim(e)
        if isinstance(e, ir.IfE):
            return f"({self.ex(e.then)} if {self.ex(e.cond)} else {self.ex(e.orelse)})"
        if isinstance(e, ir.LetE):
            return f"(lambda l{e.local.id}: {self.ex(e.body)})({self.ex(e.value)})"
        if isinstance(e, ir.CallDef):
            args = [self.ex(a) for a in e.args] + [f"v{s}" for s in self.reads[e.index]]
            return f"f{e.index}({', '.join(args)})"
        if isinstance(e, ir.Build):
            return self._build(e)
        if isinstance(e, ir.Comp):
            return self._comp(e)
        raise AssertionError(e)  # pragma: no cover

    def _prim(self, e: ir.Prim) -> str:
        if e.op in ("in", "notin") and isinstance(e.args[1], ir.Prim) and e.args[1].op in ("maps", "powerset"):
            # Membership in [D -> R] or SUBSET S is decided without building the set.
            inner = e.args[1]
            x = self.ex(e.args[0])
            parts = [self.ex(a) for a in inner.args]
            test = f"_in_maps({x}, {parts[0]}, {parts[1]})" if inner.op == "maps" else f"({x} <= {parts[0]})"
            return test if e.op == "in" else f"(not {test})"
        args = [self.ex(a) for a in e.args]
        if e.op == "item":
            return f"{args[0]}[{e.info}]"
        if e.op in _INFIX:
            return _INFIX[e.op].format(*args)
        if e.op in _FAULTING:
            w = self.where(e.span, e.op, tuple(a.type for a in e.args))
            return f"{_FAULTING[e.op]}({', '.join(args)}, {w})"
        raise AssertionError(e.op)  # pragma: no cover

    def _build(self, e: ir.Build) -> str:
        items = [self.ex(i) for i in e.items]
        if e.kind == "set":
            return "frozenset()" if not items else "frozenset((" + ", ".join(items) + ",))"
        if e.kind in ("seq", "tuple", "record"):
            return "()" if not items else "(" + ", ".join(items) + ",)"
        if e.kind == "map":
            pairs = ", ".join(f"({items[i]}, {items[i + 1]})" for i in range(0, len(items), 2))
            w = self.where(e.span, "mkmap", e.type)
            return f"_mkmap(({pairs}{',' if pairs else ''}), {T.naturally_ordered(e.type.key)}, {w})"
        raise AssertionError(e.kind)  # pragma: no cover

    def _comp(self, e: ir.Comp) -> str:
        canonical = e.kind in ("choose", "seq") or _may_fault(e)
        loops = []
        for local, dom in e.generators:
            d = self.domain(dom) if canonical else self.ex(dom)
            loops.append(f"for l{local.id} in {d}")
        gen = " ".join(loops)
        if e.cond is not None:
            gen += f" if {self.ex(e.cond)}"
        body = self.ex(e.body)
        if e.kind == "all":
            return f"all({body} {gen})"
        if e.kind == "any":
            return f"any({body} {gen})"
        if e.kind == "sum":
            return f"sum({body} {gen})"
        if e.kind == "set":
            return f"frozenset({body} {gen})"
        if e.kind == "map":
            w = self.where(e.span, "mkmap", e.type)
            return f"_mkmap((({self.ex(e.key)}, {body}) {gen}), {T.naturally_ordered(e.type.key)}, {w})"
        if e.kind == "seq":
            return f"tuple({body} {gen})"
        if e.kind == "choose":
            w = self.where(e.span, "choose", None)
            return f"_choose(({body} {gen}), {w})"
        raise AssertionError(e.kind)  # pragma: no cover


# ---------------------------------------------------------------- analyses

def _children(e: ir.Expr):
    if isinstance(e, ir.Prim):
        return e.args
    if isinstance(e, ir.IfE):
        return (e.cond, e.then, e.orelse)
    if isinstance(e, ir.LetE):
        return (e.value, e.body)
    if isinstance(e, (ir.CallDef,)):
        return e.args
    if isinstance(e, ir.Build):
        return e.items
    if isinstance(e, ir.Comp):
        parts = [d for _, d in e.generators] + [e.body]
        if e.cond is not None:
            parts.append(e.cond)
        if e.key is not None:
            parts.append(e.key)
        return parts
    return ()


def _free_locals(e: ir.Expr) -> set:
    """Locals referenced in `e` but bound outside it."""
    refs: set = set()
    bound: set = set()

    def walk(x):
        if isinstance(x, ir.LocalRef):
            refs.add(x.local)
        elif isinstance(x, ir.Comp):
            bound.update(l for l, _ in x.generators)
        elif isinstance(x, ir.LetE):
            bound.add(x.local)
        for c in _children(x):
            walk(c)

    walk(e)
    return refs - bound


def _may_fault(e: ir.Expr) -> bool:
    """Whether evaluating `e` can raise a Fault (then comprehensions iterate canonically,
    so which element faults first does not depend on set layout)."""
    if isinstance(e, ir.Prim) and e.op in _FAULTING:
        return True
    if isinstance(e, (ir.CallDef,)):
        return True
    if isinstance(e, ir.Comp) and e.kind in ("map", "choose"):
        return True
    if isinstance(e, ir.Build) and e.kind == "map":
        return True
    return any(_may_fault(c) for c in _children(e))


def _expr_reads(e: ir.Expr, function_reads) -> set[int]:
    out: set[int] = set()

    def walk(x):
        if isinstance(x, ir.VarRef):
            out.add(x.slot)
        elif isinstance(x, ir.CallDef):
            out.update(function_reads[x.index])
        for c in _children(x):
            walk(c)

    walk(e)
    return out


def _function_reads(spec: ir.Spec) -> list[list[int]]:
    """State slots each function reads, directly or through the functions it calls (a fixpoint)."""
    reads: list[set[int]] = [set() for _ in spec.functions]
    changed = True
    while changed:
        changed = False
        for i, f in enumerate(spec.functions):
            new = _expr_reads(f.body, reads)
            if new != reads[i]:
                reads[i] = new
                changed = True
    return [sorted(r) for r in reads]


def _assigned_slots(stmts) -> set[int]:
    out: set[int] = set()
    for st in stmts:
        if isinstance(st, ir.AssignS):
            out.add(st.slot)
        elif isinstance(st, ir.IfS):
            for _, b in st.branches:
                out |= _assigned_slots(b)
            out |= _assigned_slots(st.orelse)
        elif isinstance(st, ir.EitherS):
            for b in st.branches:
                out |= _assigned_slots(b)
        elif isinstance(st, ir.WithS):
            out |= _assigned_slots(st.body)
    return out


def _nondeterministic(st: ir.Stmt) -> bool:
    if isinstance(st, (ir.EitherS, ir.WithS)):
        return True
    if isinstance(st, ir.IfS):
        return any(_nondeterministic_block(b) for _, b in st.branches) or _nondeterministic_block(st.orelse)
    return False


def _nondeterministic_block(stmts) -> bool:
    return any(_nondeterministic(s) for s in stmts)
