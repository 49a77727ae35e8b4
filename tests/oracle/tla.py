"""Translate a checked spec (checker.ir.nodes.Spec) into a TLA+ module and a TLC configuration.

Guarantee: TLC, run on the translation, explores the same behaviours as tlacheck and counts
them the same way, so that verdicts, distinct states, states generated and depths can be
compared number for number:

- An action is `\\E p \\in S : ...` over its parameters; `either` is `\\/` and `with` is `\\E`
  (one successor per branch and per choice, as TLC counts "states generated"); an `if`
  statement is an `IF ... THEN ... ELSE` over the continuations (exactly one successor).
- Statements run in order: each translated statement is followed by the translation of
  everything after it in its action (continuation passing), so statements after an `either`,
  a `with` or an `if` continue in each branch. An assignment binds a new name for the
  variable's value (`\\E x_3 \\in {value} : ...`, strict, as tlacheck evaluates it where it
  stands); later statements read that name, and only the final names are primed
  (unassigned variables are UNCHANGED).
- Every condition (a `require`, an `if`, a guard containing `\\/`, `\\E` or `=>`) is one
  value: `IF cond THEN rest ELSE FALSE`, never a disjunction TLC would branch on.
- Values: ints and bools as themselves; enum members and model values as their index (so
  TLA+'s `<` is tlacheck's canonical order on them); `none` as the model value NONE (unequal
  to everything else); sequences and tuples as TLA+ tuples, records as records, maps as
  functions, sets as sets.
- Where tlacheck's canonical order is observable (`choose`, sequence comprehensions) the
  translation picks or sorts with an explicit order operator generated per type (a map is
  ordered as its pair (keys, values): its sorted domain, then its values in key order).
- `//` and `%` are Python's (floor division for any sign of the divisor); `len` of a set is
  Cardinality; `let` is strict; an evaluation error of tlacheck (a key outside a domain,
  `head` of `[]`, a value outside a declared range, ...) is an error of TLC too (TLC's own,
  or `Assert(FALSE, ...)`).
- A `def` reading state variables takes their current values as extra arguments: a call
  after an assignment sees the new value, as in tlacheck.
- Invariants become INVARIANTs, constraints CONSTRAINTs (a predicate reading no variable is
  made state-level, see `predicate`); temporal properties PROPERTYs of
  `Spec == Init /\\ [][Next]_vars /\\ fairness`, with `fair weak|strong` as WF_vars/SF_vars.

- `reachable` checks are left out (TLC has none); `translate(spec, reachable=NAME)` checks
  one alone, as an invariant that TLC finds violated iff the check holds (see `translate`).

Identifiers are prefixed (v_, c_, f_, l<id>_, A_, Inv_, Con_, Reach_, Prop_) so that no spec
name can clash with TLA+'s.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tlacheck.core import types as T
from tlacheck.core.runtime import NONE
from tlacheck.ir import nodes as ir
from tlacheck.ir.nodes import function_reads


MODULE = "Oracle"


class Unsupported(Exception):
    """The spec uses something the translation does not cover (the reason is the message)."""


@dataclass(frozen=True)
class Translation:
    module: str  # the text of Oracle.tla
    cfg: str  # the text of Oracle.cfg
    invariants: dict[str, str]  # TLA+ invariant name -> spec invariant name
    has_properties: bool


_PRELUDE = r"""EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANT NONE

Err(msg) == Assert(FALSE, msg)
Force(a, b) == IF a = a THEN b ELSE b
PyDiv(a, b) == IF b > 0 THEN a \div b ELSE IF b = 0 THEN Err("E407") ELSE (-a) \div (-b)
PyMod(a, b) == a - b * PyDiv(a, b)
SetMin(S) == IF S = {} THEN Err("E404") ELSE CHOOSE m \in S : \A o \in S : m <= o
SetMax(S) == IF S = {} THEN Err("E404") ELSE CHOOSE m \in S : \A o \in S : m >= o
Elems(s) == {s[i] : i \in 1..Len(s)}
SafeHead(s) == IF s = <<>> THEN Err("E404") ELSE Head(s)
SafeTail(s) == IF s = <<>> THEN Err("E404") ELSE Tail(s)
SafeSubSeq(s, i, j) == IF j < i THEN <<>> ELSE IF i < 1 \/ j > Len(s) THEN Err("E405") ELSE SubSeq(s, i, j)
SafeAt(s, i) == IF i \in 1..Len(s) THEN s[i] ELSE Err("E405")
SafeLookup(m, k) == IF k \in DOMAIN m THEN m[k] ELSE Err("E401")
RECURSIVE SumFun(_, _)
SumFun(f, S) == IF S = {} THEN 0 ELSE LET e == CHOOSE e \in S : TRUE IN f[e] + SumFun(f, S \ {e})
ArgMin(S, Lt(_, _)) == IF S = {} THEN Err("E403") ELSE CHOOSE m \in S : \A o \in S : ~Lt(o, m)
"""

_RESERVED = {
    "ASSUME", "ASSUMPTION", "AXIOM", "CASE", "CHOOSE", "CONSTANT", "CONSTANTS", "DOMAIN", "ELSE", "ENABLED",
    "EXCEPT", "EXTENDS", "IF", "IN", "INSTANCE", "LET", "LOCAL", "MODULE", "OTHER", "SUBSET", "THEN", "THEOREM",
    "UNCHANGED", "UNION", "VARIABLE", "VARIABLES", "WITH", "LAMBDA", "BOOLEAN", "STRING", "TRUE", "FALSE",
}

_INFIX = {
    "eq": "=", "ne": "/=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "in": "\\in", "notin": "\\notin",
    "subset": "\\subseteq", "union": "\\cup", "inter": "\\cap", "diff": "\\", "add": "+", "sub": "-",
    "mul": "*", "concat": "\\o", "and": "/\\", "or": "\\/", "implies": "=>",
}
_CALLS = {
    "len": "Len", "card": "Cardinality", "elems": "Elems", "domain": "DOMAIN ", "append": "Append",
    "bigunion": "UNION ", "head": "SafeHead", "tail": "SafeTail", "subseq": "SafeSubSeq", "at": "SafeAt",
    "lookup": "SafeLookup", "div": "PyDiv", "mod": "PyMod", "min": "SetMin", "max": "SetMax",
    "powerset": "SUBSET ",
}


_AND, _OR = " /\\ ", " \\/ "


def field_name(name: str) -> str:
    return name + "_" if name in _RESERVED else name


def translate(spec: ir.Spec, reachable: str | None = None) -> Translation:
    """The TLA+ module and cfg of `spec` (see the module docstring). Raises Unsupported.

    With `reachable`, the name of one of its reachable checks, the module checks that one alone,
    as the invariant Reach_NAME == ~(C1 /\\ ... /\\ Cn /\\ P) over the constraints C1..Cn and
    its predicate P: TLC reports it violated iff a state that satisfies the constraints, one
    it stores, satisfies P (TLC checks invariants on the states failing a constraint too), with
    a shortest trace to the first. The spec's invariants and properties are left out."""
    if reachable is None:  # TLC has no reachable checks
        spec = dataclasses.replace(spec, reachables=())
    else:  # the one reachable check left is translated as the invariant Reach_NAME
        check = next(p for p in spec.reachables if p.name == reachable)
        spec = dataclasses.replace(spec, invariants=(), properties=(), fairness=(), reachables=(check,))
    return _Translator(spec).run()


class _Translator:
    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.reads = [sorted(slots) for slots, _ in function_reads(spec.functions)]
        self.fresh = 0
        self.orders: dict[T.Type, str] = {}  # type -> name of its order operator
        self.order_defs: list[str] = []
        self.order_defs_names: set[str] = set()

    def name(self, stem: str) -> str:
        self.fresh += 1
        return f"t{self.fresh}_{stem}"

    # ---------------------------------------------------------------- the module
    def run(self) -> Translation:
        spec = self.spec
        var_names = [f"v_{v.name}" for v in spec.variables]
        body: list[str] = []
        if spec.functions:
            # Every function is declared RECURSIVE (so that any may call any); one without
            # arguments takes a dummy one.
            body.append("RECURSIVE " + ", ".join(
                f"f_{f.name}({', '.join(['_'] * max(1, len(f.params) + len(self.reads[i])))})"
                for i, f in enumerate(spec.functions)))
        for c in spec.constants:
            body.append(f"c_{c.name} == {self.expr(c.value, {})}")
        for i, f in enumerate(spec.functions):
            env = {p.id: f"l{p.id}_{p.name}" for p in f.params}
            env.update({("var", slot): f"s_{spec.variables[slot].name}" for slot in self.reads[i]})
            params = [env[p.id] for p in f.params] + [f"s_{spec.variables[s].name}" for s in self.reads[i]]
            body.append(f"f_{f.name}({', '.join(params or ['dummy_'])}) == {self.expr(f.body, env)}")
        state = {("var", i): n for i, n in enumerate(var_names)}
        init = self.init(state)
        if spec.initially is not None:  # `init: P`: TLC evaluates P on each combination of the values
            init = f"({init}) /\\ {self.predicate(spec.initially.expr, state)}"
        body.append(f"Init == {init}")
        actions = []
        for k, a in enumerate(spec.actions):
            params = [f"l{p.id}_{p.name}" for p, _ in a.params]
            env = dict(state)
            env.update({p.id: n for (p, _), n in zip(a.params, params)})
            head = f"B_{k}({', '.join(params)})" if params else f"B_{k}"
            body.append(f"\\* action {a.name}\n{head} ==\n    {self.block([list(a.body)], env)}")
            actions.append(self.instance(k, [None] * len(a.params), state) if params else head)
        body.append("Next == " + (" \\/ ".join(f"({x})" for x in actions) if actions else "FALSE"))
        invariants = {}
        cfg = ["INIT Init", "NEXT Next"]
        for p in spec.invariants:
            body.append(f"Inv_{p.name} == {self.predicate(p.expr, state)}")
            invariants[f"Inv_{p.name}"] = p.name
        for p in spec.constraints:
            body.append(f"Con_{p.name} == {self.predicate(p.expr, state)}")
        for p in spec.reachables:
            stored = "".join(f"Con_{c.name} /\\ " for c in spec.constraints)
            body.append(f"Reach_{p.name} == ~({stored}{self.predicate(p.expr, state)})")
            invariants[f"Reach_{p.name}"] = p.name
        if spec.properties:
            fair = [self.fairness(fd, state) for fd in spec.fairness]
            body.append("Spec == Init /\\ [][Next]_vars" + "".join(f" /\\ ({f})" for f in fair))
            for p in spec.properties:
                body.append(f"Prop_{p.name} == {self.formula(p.formula, state)}")
            cfg = ["SPECIFICATION Spec"]
        cfg.append("CONSTANT NONE = NONE")
        cfg += [f"INVARIANT Inv_{p.name}" for p in spec.invariants]
        cfg += [f"INVARIANT Reach_{p.name}" for p in spec.reachables]
        cfg += [f"CONSTRAINT Con_{p.name}" for p in spec.constraints]
        cfg += [f"PROPERTY Prop_{p.name}" for p in spec.properties]
        decls = []
        if var_names:
            decls.append("VARIABLES " + ", ".join(var_names))
            decls.append("vars == <<" + ", ".join(var_names) + ">>")
        text = (f"---- MODULE {MODULE} ----\n{_PRELUDE}\n" + "\n".join(decls) + "\n\n" + "\n".join(self.order_defs)
                + "\n" + "\n\n".join(body) + "\n====\n")
        return Translation(text, "\n".join(cfg) + "\n", invariants, bool(spec.properties))

    def init(self, state: dict) -> str:
        env = {}
        names = []
        for i, v in enumerate(self.spec.variables):
            names.append(self.name(v.name))
            env[("var", i)] = names[-1]
        out = " /\\ ".join(f"{state[('var', i)]} = {n}" for i, n in enumerate(names)) or "TRUE"
        for i in reversed(range(len(self.spec.variables))):
            v = self.spec.variables[i]
            scope = {("var", j): names[j] for j in range(i)}
            value = self.expr(v.init, scope)
            domain = value if v.choice else f"{{{value}}}"
            if v.bounds is not None:
                check = self.within(names[i], ir.bound_value(v.bounds, v.span), v.type)
                out = f"IF {check} THEN {out} ELSE Err(\"E402\")"
            out = f"\\E {names[i]} \\in {domain} : {out}"
        return out

    def instance(self, k: int, fixed: list, env: dict) -> str:
        """Action k as a disjunct of Next (`fixed` all None) or a fairness target: its instances
        whose parameters equal the fixed values (None: any value)."""
        a = self.spec.actions[k]
        params = [f"l{p.id}_{p.name}" for p, _ in a.params]
        inner = dict(env)
        tests = []
        for (p, _), n, f in zip(a.params, params, fixed):
            inner[p.id] = n
            if f is not None:
                tests.append(f"{n} = ({self.expr(f, env)})")
        out = f"B_{k}({', '.join(params)})" if params else f"B_{k}"
        if tests:
            out = f"IF {_AND.join(tests)} THEN {out} ELSE FALSE"
        for i in reversed(range(len(a.params))):
            scope = dict(env)
            scope.update({p.id: n for (p, _), n in zip(a.params[:i], params[:i])})
            out = f"\\E {params[i]} \\in {self.expr(a.params[i][1], scope)} : {out}"
        return out

    def fairness(self, fd: ir.Fairness, env: dict) -> str:
        inner = dict(env)
        for local, _ in fd.generators:
            inner[local.id] = f"l{local.id}_{local.name}"
        parts = []
        for t in fd.targets:
            n = len(self.spec.actions[t.action].params)
            parts.append(self.instance(t.action, list(t.args) if t.args is not None else [None] * n, inner))
        out = f"{'SF' if fd.strong else 'WF'}_vars({_OR.join(f'({p})' for p in parts)})"
        for i in reversed(range(len(fd.generators))):
            local, dom = fd.generators[i]
            scope = dict(env)
            scope.update({g.id: f"l{g.id}_{g.name}" for g, _ in fd.generators[:i]})
            out = f"\\A l{local.id}_{local.name} \\in {self.expr(dom, scope)} : {out}"
        return out

    def formula(self, f: ir.Formula, env: dict) -> str:
        # Where tlacheck splits a property into parts decided on their own (a conjunction; `all`
        # and `always` over one), the translation splits it the same way, so that TLC too checks
        # the `[]P` parts as invariants and the rest with its tableau: `all(A and B for x in S)` is
        # `(\A x : A) /\ (\A x : B)`, `always (A and B)` is `[]A /\ []B` (the same formulas). The
        # parts differ where no behaviour is fair: a safety part is checked on every reachable
        # state, whatever the fairness, by both tools (TLC checks a PROPERTY []P as an invariant).
        if isinstance(f, ir.TQuant) and f.kind == "all" and isinstance(f.body, ir.TBinary) and f.body.op == "and":
            parts = [ir.TQuant(f.span, "all", f.local, f.domain, part) for part in (f.body.left, f.body.right)]
            return self.formula(ir.TBinary(f.span, "and", *parts), env)
        if isinstance(f, ir.TUnary) and f.op == "always" and isinstance(f.operand, ir.TBinary) \
                and f.operand.op == "and":
            parts = [ir.TUnary(f.span, "always", part) for part in (f.operand.left, f.operand.right)]
            return self.formula(ir.TBinary(f.span, "and", *parts), env)
        if isinstance(f, ir.TPred) and isinstance(f.expr, ir.VarRef):
            # a bare boolean variable as `v = TRUE`: TLC 2.15 refuses a PROPERTY with a variable for
            # a conjunct ("The operator v ... cannot be used as a property", seed 70243)
            return f"({self.expr(f.expr, env)} = TRUE)"
        if isinstance(f, ir.TPred):
            return self.predicate(f.expr, env)
        if isinstance(f, ir.TUnary) and f.op == "not" and _temporal(f.operand):
            # a negation over temporal operators is pushed inwards (~[]F is <>~F, ...): TLC 2.15
            # finds `[]((~[](x = 0)) => (x = 5))` violated where x = 0 forever, and the same
            # formula written `[](<>(x # 0) => (x = 5))` holds (docs/reliability.md)
            return self.formula(_negated(f.operand), env)
        if isinstance(f, ir.TUnary):
            op = {"always": "[]", "eventually": "<>", "not": "~"}[f.op]
            return f"({op}{self.formula(f.operand, env)})"
        if isinstance(f, ir.TBinary) and f.op == "leads_to" and not all(
                isinstance(x, ir.TPred) for x in (f.left, f.right)):
            # F ~> G over temporal formulas is written out as TLA+ defines it, [](F => <>G):
            # TLC 2.15 finds `(~((x = 0) ~> (x = x))) ~> (x = 5)` violated on a spec where x = 0
            # forever, though its left side is false everywhere, and the expansion holds
            # (docs/reliability.md, seed 1229)
            return f"([]({self.formula(f.left, env)} => (<>{self.formula(f.right, env)})))"
        if isinstance(f, ir.TBinary):
            op = {"and": "/\\", "or": "\\/", "implies": "=>", "leads_to": "~>"}[f.op]
            return f"({self.formula(f.left, env)} {op} {self.formula(f.right, env)})"
        if isinstance(f, ir.TQuant):
            n = f"l{f.local.id}_{f.local.name}"
            q = "\\A" if f.kind == "all" else "\\E"
            inner = {**env, f.local.id: n}
            if f.kind == "all" and isinstance(f.body, ir.TUnary) and f.body.op == "always" \
                    and isinstance(f.body.operand, ir.TPred):
                # `all(always P for x in S)` as `[](\A x \in S : P)`, the same formula: TLC checks a
                # PROPERTY of the form []P during the search, as an invariant (tlacheck checks the
                # safety part of every property so), but `\A x \in S : []P` only in its liveness
                # phase, after the search (seed 2677 of the TLC campaign on `a7220cb`)
                pred = self.formula(f.body.operand, inner)
                return f"([](\\A {n} \\in {self.expr(f.domain, env)} : {pred}))"
            return f"({q} {n} \\in {self.expr(f.domain, env)} : {self.formula(f.body, inner)})"
        raise Unsupported(f"temporal formula {type(f).__name__}")

    def predicate(self, e: ir.Expr, env: dict) -> str:
        """A state predicate. One that reads no variable is made state-level (`IF vars = vars
        THEN P ELSE P`): TLC 2.15 stops with "The invariant of Inv is equal to FALSE" on a constant
        invariant, and finds `FALSE ~> TRUE` violated (constant operands of temporal formulas)."""
        text = f"({self.expr(e, env)})"
        if not ir.reads(e, function_reads(self.spec.functions))[0] and self.spec.variables:
            text = f"(IF vars = vars THEN {text} ELSE {text})"  # (not `vars = vars /\\ P`: TLC splits
            # the conjuncts of a PROPERTY and stops on a FALSE one, "The spec is trivially false")
        return text

    # ---------------------------------------------------------------- statements
    def block(self, stack: list[list], env: dict) -> str:
        """The action formula of the statements on `stack` (the innermost block first): every
        path through them, ending in the primed final values."""
        while stack and not stack[0]:
            stack = stack[1:]
        if not stack:
            return self.final(env)
        st, rest = stack[0][0], [stack[0][1:]] + stack[1:]
        if isinstance(st, ir.RequireS):
            return f"IF {self.expr(st.cond, env)} THEN {self.block(rest, env)} ELSE FALSE"
        if isinstance(st, ir.LetS):
            n = f"l{st.local.id}_{st.local.name}"
            return f"\\E {n} \\in {{{self.expr(st.value, env)}}} : {self.block(rest, {**env, st.local.id: n})}"
        if isinstance(st, ir.AssignS):
            key = ("var", st.slot)
            var = self.spec.variables[st.slot]
            n = self.name(var.name)
            value = self.update(env[key], var.type, st.steps, st.value, env)
            return f"\\E {n} \\in {{{value}}} : {self.block(rest, {**env, key: n})}"
        if isinstance(st, ir.IfS):
            out = self.block([list(st.orelse)] + rest, env)
            for cond, body in reversed(st.branches):
                out = f"IF {self.expr(cond, env)} THEN {self.block([list(body)] + rest, env)} ELSE {out}"
            return f"({out})"
        if isinstance(st, ir.EitherS):
            return "(" + " \\/ ".join(f"({self.block([list(b)] + rest, env)})" for b in st.branches) + ")"
        if isinstance(st, ir.WithS):
            scope = dict(env)
            heads = []
            for local, dom in st.binders:  # every set is evaluated before the body runs
                n = f"l{local.id}_{local.name}"
                heads.append(f"\\E {n} \\in {self.expr(dom, scope)} : ")
                scope[local.id] = n
            return "(" + "".join(heads) + self.block([list(st.body)] + rest, scope) + ")"
        raise Unsupported(f"statement {type(st).__name__}")

    def final(self, env: dict) -> str:
        parts, unchanged = [], []
        for i, v in enumerate(self.spec.variables):
            now = env[("var", i)]
            if now == f"v_{v.name}":
                unchanged.append(now)
            else:
                parts.append(f"v_{v.name}' = {now}")
        if unchanged:
            parts.append(f"UNCHANGED <<{', '.join(unchanged)}>>")
        return "(" + " /\\ ".join(parts or ["TRUE"]) + ")"

    def update(self, current: str, typ: T.Type, steps, value: ir.Expr, env: dict) -> str:
        """The new value of `current` (of type `typ`) after assigning `value` at `steps`."""
        if not steps:
            return self.expr(value, env)
        step, more = steps[0], steps[1:]
        if step.kind == "field":
            name, ftype = typ.fields[step.index]
            inner = self.update(f"{current}.{field_name(name)}", ftype, more, value, env)
            return f"[{current} EXCEPT !.{field_name(name)} = {inner}]"
        k = self.name("key")
        inner_type = typ.value if step.kind == "map" else typ.element
        inner = self.update(f"{current}[{k}]", inner_type, more, value, env)
        code = "E401" if step.kind == "map" else "E405"
        return (f"(LET {k} == {self.expr(step.index, env)} IN IF {k} \\in DOMAIN {current} "
                f"THEN [{current} EXCEPT ![{k}] = {inner}] ELSE Err(\"{code}\"))")

    # ---------------------------------------------------------------- expressions
    def expr(self, e: ir.Expr, env: dict) -> str:
        if isinstance(e, ir.Lit):
            return self.literal(e.value, e.type)
        if isinstance(e, ir.ConstRef):
            return f"c_{self.spec.constants[e.index].name}"
        if isinstance(e, ir.VarRef):
            return env[("var", e.slot)]
        if isinstance(e, ir.LocalRef):
            return env[e.local.id]
        if isinstance(e, ir.IfE):
            return f"(IF {self.expr(e.cond, env)} THEN {self.expr(e.then, env)} ELSE {self.expr(e.orelse, env)})"
        if isinstance(e, ir.LetE):
            n = f"l{e.local.id}_{e.local.name}"
            return (f"(LET {n} == {self.expr(e.value, env)} IN Force({n}, "
                    f"{self.expr(e.body, {**env, e.local.id: n})}))")
        if isinstance(e, ir.CallDef):
            f = self.spec.functions[e.index]
            args = [self.expr(a, env) for a in e.args] + [env[("var", s)] for s in self.reads[e.index]]
            return f"f_{f.name}({', '.join(args or ['0'])})"
        if isinstance(e, ir.Build):
            items = [self.expr(i, env) for i in e.items]
            if e.kind == "set":
                return "{" + ", ".join(items) + "}"
            if e.kind in ("seq", "tuple"):
                return "<<" + ", ".join(items) + ">>"
            if e.kind == "record":
                return "[" + ", ".join(f"{field_name(n)} |-> {v}" for (n, _), v in zip(e.type.fields, items)) + "]"
            return "(" + " @@ ".join(f"(({k}) :> ({v}))" for k, v in zip(items[0::2], items[1::2])) + ")"
        if isinstance(e, ir.Comp):
            return self.comp(e, env)
        if isinstance(e, ir.Prim):
            return self.prim(e, env)
        raise Unsupported(f"expression {type(e).__name__}")

    def literal(self, value, typ: T.Type) -> str:
        if value is NONE:
            return "NONE"
        if isinstance(value, bool):
            return "TRUE" if value else "FALSE"
        if isinstance(value, int):
            return f"({value})" if value < 0 else str(value)
        raise Unsupported(f"literal {value!r}")

    def prim(self, e: ir.Prim, env: dict) -> str:
        op = e.op
        if op == "enabled":  # `enabled(A)`: ENABLED of A's disjunct of Next (a step that changes nothing counts)
            k = e.info[0]
            fixed = list(e.args) if e.args else [None] * len(self.spec.actions[k].params)
            return f"(ENABLED ({self.instance(k, fixed, env)}))"
        if op == "check_bounds":
            t = self.name("v")
            check = self.within(t, e.args[1], e.type)
            return f"(LET {t} == {self.expr(e.args[0], env)} IN IF {check} THEN {t} ELSE Err(\"E402\"))"
        if op in ("in", "notin") and isinstance(e.args[1], ir.Prim) and e.args[1].op == "range":
            x = self.name("x")  # x in lo..hi is a comparison, whatever the size of the range
            lo, hi = (self.expr(a, env) for a in e.args[1].args)
            test = f"(LET {x} == {self.expr(e.args[0], env)} IN {lo} <= {x} /\\ {x} <= {hi})"
            return test if op == "in" else f"(~{test})"
        args = [self.expr(a, env) for a in e.args]
        if op in _INFIX:
            return f"({args[0]} {_INFIX[op]} {args[1]})"
        if op == "not":
            return f"(~{args[0]})"
        if op == "neg":
            return f"(-{args[0]})"
        if op == "unwrap":
            return args[0]
        if op == "range":
            return f"({args[0]}..{args[1]})"
        if op == "maps":
            return f"[{args[0]} -> {args[1]}]"
        if op == "item":
            t = e.args[0].type
            if isinstance(t, T.RecordT):
                return f"{args[0]}.{field_name(t.fields[e.info][0])}"
            return f"{args[0]}[{e.info + 1}]"
        if op in _CALLS:
            name = _CALLS[op]
            if name.endswith(" "):
                return f"({name}{args[0]})"
            return f"{name}({', '.join(args)})"
        raise Unsupported(f"operation {op}")

    def within(self, value: str, bound: ir.Expr, typ: T.Type) -> str:
        """A TLA+ test that `value` respects the bound (in ir.bound_value's form)."""
        if isinstance(bound, ir.Lit):  # None: nothing to check
            return "TRUE"
        kind = bound.items[0].value
        parts = bound.items[1:]
        x = self.name("x")
        if kind == 0:
            return f"({self.expr(parts[0], {})} <= {value} /\\ {value} <= {self.expr(parts[1], {})})"
        if kind == 1:
            limit = "TRUE" if isinstance(parts[0], ir.Lit) and parts[0].value is None else \
                f"Len({value}) <= {self.expr(parts[0], {})}"
            return (f"({limit} /\\ \\A {x} \\in 1..Len({value}) : "
                    f"{self.within(f'{value}[{x}]', parts[1], typ.element)})")
        if kind == 2:
            return f"(\\A {x} \\in {value} : {self.within(x, parts[0], typ.element)})"
        if kind == 3:
            return (f"(\\A {x} \\in DOMAIN {value} : {self.within(x, parts[0], typ.key)} /\\ "
                    f"{self.within(f'{value}[{x}]', parts[1], typ.value)})")
        if kind == 4:
            tests = []
            for i, p in enumerate(parts[0].items):
                if isinstance(typ, T.RecordT):
                    name, t = typ.fields[i]
                    tests.append(self.within(f"{value}.{field_name(name)}", p, t))
                else:
                    tests.append(self.within(f"{value}[{i + 1}]", p, typ.elements[i]))
            return "(" + " /\\ ".join(tests or ["TRUE"]) + ")"
        return f"({value} = NONE \\/ {self.within(value, parts[0], typ.inner)})"

    # ---------------------------------------------------------------- comprehensions
    def bindings(self, e: ir.Comp, env: dict) -> tuple[str, str, dict, T.Type]:
        """(set of bindings, name of one binding, env inside, type of a binding): one generator
        binds its own name; several bind a tuple, in the order of nested iteration."""
        gens = e.generators
        if len(gens) == 1:
            local, dom = gens[0]
            n = f"l{local.id}_{local.name}"
            inner = {**env, local.id: n}
            domain = self.expr(dom, env)
            if e.cond is not None:
                domain = f"{{{n} \\in {domain} : {self.expr(e.cond, inner)}}}"
            return domain, n, inner, local.type
        names = [f"l{local.id}_{local.name}" for local, _ in gens]
        scope = dict(env)
        doms = []
        for (local, dom), n in zip(gens, names):
            doms.append(self.expr(dom, scope))
            scope[local.id] = n
        out = "{<<" + ", ".join(names) + ">>}"
        for n, d in reversed(list(zip(names, doms))):
            out = f"UNION {{{out} : {n} \\in {d}}}"
        b = self.name("b")
        inner = {**env, **{local.id: f"{b}[{i + 1}]" for i, (local, _) in enumerate(gens)}}
        if e.cond is not None:
            out = f"{{{b} \\in {out} : {self.expr(e.cond, inner)}}}"
        return f"({out})", b, inner, T.TupleT(tuple(local.type for local, _ in gens))

    def comp(self, e: ir.Comp, env: dict) -> str:
        domain, b, inner, btype = self.bindings(e, env)
        body = self.expr(e.body, inner)
        if e.kind == "all":
            return f"(\\A {b} \\in {domain} : {body})"
        if e.kind == "any":
            return f"(\\E {b} \\in {domain} : {body})"
        if e.kind == "set":
            return f"{{{body} : {b} \\in {domain}}}"
        if e.kind == "sum":
            d = self.name("d")
            return f"(LET {d} == {domain} IN SumFun([{b} \\in {d} |-> {body}], {d}))"
        if e.kind == "choose":
            m = self.name("m")
            return f"(LET {m} == ArgMin({domain}, {self.order(btype)}) IN {self.expr(e.body, self.rebind(inner, b, m))})"
        if e.kind == "seq":
            s = self.name("s")
            i = self.name("i")
            elem = self.expr(e.body, self.rebind(inner, b, f"{s}[{i}]"))
            return f"(LET {s} == {self.sorted(btype)}({domain}) IN [{i} \\in 1..Len({s}) |-> {elem}])"
        if e.kind == "map":
            key = self.expr(e.key, inner)
            if len(e.generators) == 1 and isinstance(e.key, ir.LocalRef) and e.key.local.id == e.generators[0][0].id:
                return f"[{b} \\in {domain} |-> {body}]"
            k, d = self.name("k"), self.name("d")
            return (f"(LET {d} == {domain} IN [{k} \\in {{{key} : {b} \\in {d}}} |-> "
                    f"LET {b} == CHOOSE {b} \\in {d} : {key} = {k} IN {body}])")
        raise Unsupported(f"comprehension {e.kind}")

    @staticmethod
    def rebind(inner: dict, b: str, value: str) -> dict:
        """`inner` with the binding name `b` (alone, or indexed `b[i]`) replaced by `value`."""
        out = {}
        for k, v in inner.items():
            if v == b:
                out[k] = value
            elif v.startswith(b + "["):
                out[k] = f"({value}){v[len(b):]}"
            else:
                out[k] = v
        return out

    # ---------------------------------------------------------------- canonical order
    def order(self, t: T.Type) -> str:
        """The name of a TLA+ operator Lt(a, b): a comes before b in tlacheck's canonical order."""
        if t in self.orders:
            return self.orders[t]
        name = f"Lt{len(self.orders)}"
        self.orders[t] = name
        if isinstance(t, (T.IntT, T.SortT)):
            body = "a < b"
        elif isinstance(t, T.BoolT):
            body = "~a /\\ b"
        elif isinstance(t, T.OptionT):
            inner = self.order(t.inner)
            body = f"(a = NONE /\\ b /= NONE) \\/ (a /= NONE /\\ b /= NONE /\\ {inner}(a, b))"
        elif isinstance(t, (T.TupleT, T.RecordT)):
            if isinstance(t, T.TupleT):
                parts = [(f"a[{i + 1}]", f"b[{i + 1}]", et) for i, et in enumerate(t.elements)]
            else:
                parts = [(f"a.{field_name(n)}", f"b.{field_name(n)}", ft) for n, ft in t.fields]
            body = "FALSE"
            for x, y, pt in reversed(parts):
                body = f"({self.order(pt)}({x}, {y}) \\/ ({x} = {y} /\\ {body}))"
        elif isinstance(t, T.SeqT):
            body = f"{self.seq_order(t.element)}(a, b)"
        elif isinstance(t, T.SetT):
            sort = self.sorted(t.element)
            body = f"{self.seq_order(t.element)}({sort}(a), {sort}(b))"
        elif isinstance(t, T.MapT):  # a map is its pair (keys, values): the sorted domains first
            sort, keys, vals = self.sorted(t.key), self.seq_order(t.key), self.seq_order(t.value)
            body = (f"LET ka == {sort}(DOMAIN a) kb == {sort}(DOMAIN b) IN {keys}(ka, kb) \\/ (ka = kb /\\ "
                    f"{vals}([i \\in 1..Len(ka) |-> a[ka[i]]], [i \\in 1..Len(kb) |-> b[kb[i]]]))")
        else:
            raise Unsupported(f"canonical order of {t}")
        self.order_defs.append(f"{name}(a, b) == {body}")
        return name

    def sorted(self, t: T.Type) -> str:
        """The name of a TLA+ operator: a set of values of type `t` as a sequence in canonical order."""
        lt = self.order(t)
        name = f"Sorted{lt}"
        if name not in self.order_defs_names:
            self.order_defs_names.add(name)
            self.order_defs.append(f"RECURSIVE {name}(_)\n{name}(S) == IF S = {{}} THEN <<>> ELSE "
                                   f"LET m == ArgMin(S, {lt}) IN <<m>> \\o {name}(S \\ {{m}})")
        return name

    def seq_order(self, t: T.Type) -> str:
        """The name of a TLA+ operator: the lexicographic order on sequences of `t` (a prefix first)."""
        lt = self.order(t)
        name = f"Seq{lt}"
        if name not in self.order_defs_names:
            self.order_defs_names.add(name)
            self.order_defs.append(
                f"RECURSIVE {name}(_, _)\n{name}(a, b) == IF a = <<>> THEN b /= <<>> ELSE IF b = <<>> THEN FALSE "
                f"ELSE {lt}(Head(a), Head(b)) \\/ (Head(a) = Head(b) /\\ {name}(Tail(a), Tail(b)))")
        return name


def _temporal(f: ir.Formula) -> bool:
    """Whether f has a temporal operator (always, eventually, leads_to)."""
    if isinstance(f, ir.TPred):
        return False
    if isinstance(f, ir.TUnary):
        return f.op != "not" or _temporal(f.operand)
    if isinstance(f, ir.TBinary):
        return f.op == "leads_to" or _temporal(f.left) or _temporal(f.right)
    if isinstance(f, ir.TQuant):
        return _temporal(f.body)
    return False


def _negated(f: ir.Formula) -> ir.Formula:
    """not f, with the negation one level further in (the same formula)."""
    sp = f.span
    if isinstance(f, ir.TUnary) and f.op == "not":
        return f.operand
    if isinstance(f, ir.TUnary):
        dual = "eventually" if f.op == "always" else "always"
        return ir.TUnary(sp, dual, ir.TUnary(sp, "not", f.operand))
    if isinstance(f, ir.TBinary) and f.op in ("and", "or"):
        return ir.TBinary(sp, "or" if f.op == "and" else "and", ir.TUnary(sp, "not", f.left), ir.TUnary(sp, "not", f.right))
    if isinstance(f, ir.TBinary) and f.op == "implies":
        return ir.TBinary(sp, "and", f.left, ir.TUnary(sp, "not", f.right))
    if isinstance(f, ir.TBinary) and f.op == "leads_to":  # ~[](A => <>B) is <>(A /\ []~B)
        return ir.TUnary(sp, "eventually", ir.TBinary(sp, "and", f.left,
                                                      ir.TUnary(sp, "always", ir.TUnary(sp, "not", f.right))))
    if isinstance(f, ir.TQuant):
        return ir.TQuant(f.span, "any" if f.kind == "all" else "all", f.local, f.domain, ir.TUnary(sp, "not", f.body))
    return ir.TUnary(sp, "not", f)

