"""The typed intermediate representation every later stage consumes.

Produced by typecheck.py (a second front end, e.g. a TLA+ subset, could target
it too); consumed by codegen.py (explicit-state exploration) and, later, by the
SMT translation. Names are resolved: state variables are slots, constants are
indices, bound names are `Local`s with unique ids. Every expression has a type and a span.
Every node class declares its children (core/tree.py), the spec down to its literals: `walk`,
`Visitor` and `transform` serve every traversal (a `Local` is not a node: the bounds it
carries are looked at where it is declared).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from tlacheck.core.source import Span
from tlacheck.core.tree import Node, walk
from tlacheck.core.types import ANY, INT, TupleT, Type


@dataclass(frozen=True)
class Local:
    """A bound name (let, action parameter, generator, def parameter); `id` is unique per spec.

    `bounds` is the declared range `lo..hi` of a def parameter or theorem binder
    of type `lo..hi` (or `(lo..hi)?`): constant int expressions, used by the SMT
    translation to give ints a finite domain. It does not take part in equality.
    """

    id: int
    name: str
    type: Type
    bounds: tuple["Expr", "Expr"] | None = field(default=None, compare=False)


# ---------------------------------------------------------------- operators

# Every built-in operation of `Prim`, with its number of arguments. `item` reads position
# `info` of a tuple or record; `check_bounds` is a value assigned to a bounded variable and its
# bound; `unwrap` the value inside an option known not to be none.
OP_ARITY = {
    "not": 1, "neg": 1, "len": 1, "card": 1, "elems": 1, "domain": 1, "head": 1, "tail": 1,
    "bigunion": 1, "unwrap": 1, "powerset": 1, "orderings": 1, "min": 1, "max": 1, "item": 1,
    "and": 2, "or": 2, "implies": 2, "eq": 2, "ne": 2, "lt": 2, "le": 2, "gt": 2, "ge": 2,
    "in": 2, "notin": 2, "subset": 2, "union": 2, "inter": 2, "diff": 2, "add": 2, "sub": 2,
    "mul": 2, "div": 2, "mod": 2, "concat": 2, "append": 2, "lookup": 2, "at": 2, "maps": 2,
    "range": 2, "check_bounds": 2,
    "subseq": 3,
    # `enabled(A)`: whether action A has a step from the state; info: (A's index, the slots it reads).
    # `enabled(A(x, y))` takes A's arguments (as many as A has parameters: ir/verify.py checks it)
    "enabled": 0,
    # `A(x, y)` (or `A`) in a step property: whether the step (s, t) is one of action A's (with those
    # arguments); info: (A's index, the slots it reads: every variable, before and after the step)
    "step_of": 0,
}

# The operators, as enums whose members' names are their values: an Op is equal to its string
# and hashes as it does (Enum hashes the name), so tables keyed by the strings work with Ops.
# Prim, Comp and Build turn the strings they are given into members, so an unknown operator is
# an error where the node is built, not somewhere downstream.
class _Named(str, Enum):
    """An enum member that reads as its string everywhere: in f-strings and str() too."""

    __str__ = str.__str__
    __format__ = str.__format__


Op = _Named("Op", [(name, name) for name in OP_ARITY], module=__name__)
CompKind = _Named("CompKind", [(k, k) for k in ("all", "any", "sum", "choose", "set", "map", "seq")], module=__name__)
BuildKind = _Named("BuildKind", [(k, k) for k in ("set", "seq", "tuple", "record", "map")], module=__name__)


# ---------------------------------------------------------------- expressions

@dataclass(frozen=True)
class Expr(Node):
    type: Type
    span: Span


@dataclass(frozen=True)
class Lit(Expr):
    """A literal run-time value: bool, int, an atom (int), or runtime.NONE."""

    value: object


@dataclass(frozen=True)
class ConstRef(Expr):
    index: int


@dataclass(frozen=True)
class VarRef(Expr):
    slot: int


@dataclass(frozen=True)
class LocalRef(Expr):
    local: Local


@dataclass(frozen=True)
class Prim(Expr):
    """A built-in operation (`op`: an Op, see OP_ARITY)."""

    CHILDREN = ("args",)
    op: Op
    args: tuple[Expr, ...]
    info: object = None  # static extra data: a field index, a tuple position

    def __post_init__(self):
        object.__setattr__(self, "op", Op(self.op))


@dataclass(frozen=True)
class IfE(Expr):
    CHILDREN = ("cond", "then", "orelse")
    cond: Expr
    then: Expr
    orelse: Expr


@dataclass(frozen=True)
class LetE(Expr):
    CHILDREN = ("value", "body")
    local: Local
    value: Expr
    body: Expr


@dataclass(frozen=True)
class Comp(Expr):
    """A comprehension or quantifier over generators.

    kind: all, any, sum, choose (first element in canonical order), set, map
    (key and body), seq.
    """

    CHILDREN = ("generators", "body", "cond", "key")
    kind: CompKind
    generators: tuple[tuple[Local, Expr], ...]
    cond: Expr | None
    body: Expr
    key: Expr | None = None

    def __post_init__(self):
        object.__setattr__(self, "kind", CompKind(self.kind))


@dataclass(frozen=True)
class Build(Expr):
    """A literal collection: set, seq, tuple, record (fields in sorted order), map (k, v, k, v...)."""

    CHILDREN = ("items",)
    kind: BuildKind
    items: tuple[Expr, ...]

    def __post_init__(self):
        object.__setattr__(self, "kind", BuildKind(self.kind))


@dataclass(frozen=True)
class CallDef(Expr):
    CHILDREN = ("args",)
    index: int
    args: tuple[Expr, ...]
    # The state the function reads: 0, the current one; n (the number of variables), the state
    # after the step (`f()'` in a step property, where slot n + i is variable i after the step).
    shift: int = 0


# ---------------------------------------------------------------- statements

@dataclass(frozen=True)
class Stmt(Node):
    span: Span


@dataclass(frozen=True)
class RequireS(Stmt):
    CHILDREN = ("cond",)
    cond: Expr


@dataclass(frozen=True)
class PathStep(Node):
    """One step of an assignment target: `[k]` on a map or seq, `.f` on a record."""

    CHILDREN = ("index",)
    kind: str  # "map", "seq", "field"
    index: Expr | int  # the key/position expression, or the field's position
    span: Span
    container: Type | None = None  # the type of the map or sequence indexed (for messages)


@dataclass(frozen=True)
class AssignS(Stmt):
    CHILDREN = ("steps", "value")
    slot: int
    steps: tuple[PathStep, ...]
    value: Expr


@dataclass(frozen=True)
class LetS(Stmt):
    CHILDREN = ("value",)
    local: Local
    value: Expr


@dataclass(frozen=True)
class IfS(Stmt):
    CHILDREN = ("branches", "orelse")
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]


@dataclass(frozen=True)
class EitherS(Stmt):
    CHILDREN = ("branches",)
    branches: tuple[tuple[Stmt, ...], ...]


@dataclass(frozen=True)
class WithS(Stmt):
    CHILDREN = ("binders", "body")
    binders: tuple[tuple[Local, Expr], ...]
    body: tuple[Stmt, ...]


# ---------------------------------------------------------------- declarations

@dataclass(frozen=True)
class Constant(Node):
    CHILDREN = ("value",)
    name: str
    type: Type
    value: Expr  # evaluated once, before exploration
    span: Span


@dataclass(frozen=True)
class Variable(Node):
    CHILDREN = ("init", "bounds")
    name: str
    type: Type
    init: Expr
    choice: bool  # the initial value is chosen from the set `init`
    bounds: "Bound | None"  # declared ranges and sequence bounds, checked at run time
    span: Span


@dataclass(frozen=True)
class Function(Node):
    CHILDREN = ("body",)
    name: str
    params: tuple[Local, ...]
    returns: Type
    body: Expr
    span: Span


@dataclass(frozen=True)
class Action(Node):
    CHILDREN = ("params", "body", "sends_expr")
    name: str
    params: tuple[tuple[Local, Expr], ...]
    body: tuple[Stmt, ...]
    span: Span
    actor: str | None = None  # `by NAME`: a parameter's name, a model value or enum member, or a label
    sends_to: str | None = None  # `-> Label`: a label that names no value
    # `-> EXPR` (a parameter, `first_waiter()`, a set of actors): evaluated in the state before the step,
    # with the action's parameters bound; of a sort's type, an option of one, or a set of one
    sends_expr: Expr | None = None


# ---------------------------------------------------------------- declared bounds

@dataclass(frozen=True)
class RangeBound(Node):
    """`lo..hi`: an int in that range (E402). `lo` and `hi` are constant int expressions."""

    CHILDREN = ("lo", "hi")
    lo: Expr
    hi: Expr


@dataclass(frozen=True)
class SeqBound(Node):
    """`seq[T, N]`: at most `limit` elements (E410; None: any number), each within `element`."""

    CHILDREN = ("limit", "element")
    limit: Expr | None
    element: "Bound | None"


@dataclass(frozen=True)
class SetBound(Node):
    CHILDREN = ("element",)
    element: "Bound"


@dataclass(frozen=True)
class MapBound(Node):
    CHILDREN = ("key", "value")
    key: "Bound | None"
    value: "Bound | None"


@dataclass(frozen=True)
class PartsBound(Node):
    """A record (fields in sorted order) or a tuple: one bound per position (None: unchecked)."""

    CHILDREN = ("parts",)
    parts: tuple["Bound | None", ...]


@dataclass(frozen=True)
class OptionBound(Node):
    CHILDREN = ("inner",)
    inner: "Bound"


# What a declared type checks at run time beyond its static type: the ranges and sequence
# bounds inside it. A variable's bounds are checked on its initial values and on every value
# assigned to it or to a part of it (a `check_bounds` Prim around the assigned value).
Bound = RangeBound | SeqBound | SetBound | MapBound | PartsBound | OptionBound


def bound_at(bound: "Bound | None", steps) -> "Bound | None":
    """The bound of the part of a value that an assignment path (PathSteps) reaches."""
    for step in steps:
        if bound is None:
            return None
        if step.kind == "field":
            bound = bound.parts[step.index] if isinstance(bound, PartsBound) else None
        elif step.kind == "map":
            bound = bound.value if isinstance(bound, MapBound) else None
        else:
            bound = bound.element if isinstance(bound, SeqBound) else None
    return bound


def bound_value(bound: "Bound | None", span: Span) -> Expr:
    """The bound as a constant IR tuple, the form runtime.check_bounds reads:
    (0, lo, hi) a range, (1, limit or None, element) a sequence, (2, element) a set,
    (3, key, value) a map, (4, (part, ...)) a record or tuple, (5, inner) an option;
    None where nothing is checked."""
    def tup(*items: Expr) -> Expr:
        return Build(TupleT(tuple(i.type for i in items)), span, "tuple", items)

    def tag(n: int) -> Expr:
        return Lit(INT, span, n)

    if bound is None:
        return Lit(ANY, span, None)
    if isinstance(bound, RangeBound):
        return tup(tag(0), bound.lo, bound.hi)
    if isinstance(bound, SeqBound):
        limit = bound.limit if bound.limit is not None else Lit(ANY, span, None)
        return tup(tag(1), limit, bound_value(bound.element, span))
    if isinstance(bound, SetBound):
        return tup(tag(2), bound_value(bound.element, span))
    if isinstance(bound, MapBound):
        return tup(tag(3), bound_value(bound.key, span), bound_value(bound.value, span))
    if isinstance(bound, PartsBound):
        return tup(tag(4), tup(*(bound_value(p, span) for p in bound.parts)))
    return tup(tag(5), bound_value(bound.inner, span))


# ---------------------------------------------------------------- temporal formulas

@dataclass(frozen=True)
class Formula(Node):
    span: Span


@dataclass(frozen=True)
class TPred(Formula):
    """A state predicate inside a temporal formula."""

    CHILDREN = ("expr",)
    expr: Expr


@dataclass(frozen=True)
class TUnary(Formula):
    CHILDREN = ("operand",)
    op: str  # "always", "eventually", "not"
    operand: Formula


@dataclass(frozen=True)
class TBinary(Formula):
    CHILDREN = ("left", "right")
    op: str  # "and", "or", "implies", "leads_to"
    left: Formula
    right: Formula


@dataclass(frozen=True)
class TQuant(Formula):
    """`all(f for x in S)` / `any(...)` over temporal formulas; S must be constant."""

    CHILDREN = ("domain", "body")
    kind: str  # "all" or "any"
    local: Local
    domain: Expr
    body: Formula


@dataclass(frozen=True)
class Property(Node):
    CHILDREN = ("formula",)
    name: str
    formula: Formula
    span: Span

    @property
    def has_liveness(self) -> bool:
        """Whether the formula says more than `P` and `always P` about state predicates P (and
        conjunctions of those): that part is decided on the whole state graph."""
        def state(f: Formula) -> bool:
            if isinstance(f, TPred):
                return True
            if isinstance(f, TUnary):
                return f.op == "not" and state(f.operand)
            if isinstance(f, TBinary):
                return f.op in ("and", "or", "implies") and state(f.left) and state(f.right)
            return False

        def safety(f: Formula) -> bool:
            if state(f):
                return True
            if isinstance(f, TBinary) and f.op == "and":
                return safety(f.left) and safety(f.right)
            if isinstance(f, TQuant) and f.kind == "all":
                return safety(f.body)
            if isinstance(f, TUnary) and f.op == "always":
                inner = f.operand
                if isinstance(inner, TBinary) and inner.op == "and":
                    return safety(TUnary(f.span, "always", inner.left)) and safety(TUnary(f.span, "always", inner.right))
                if isinstance(inner, TQuant) and inner.kind == "all":
                    return safety(TUnary(f.span, "always", inner.body))
                return state(inner)
            return False

        return not safety(self.formula)


@dataclass(frozen=True)
class FairTarget(Node):
    CHILDREN = ("args",)
    action: int
    args: tuple[Expr | None, ...] | None  # None: any instance; an arg None: any value


@dataclass(frozen=True)
class Fairness(Node):
    """`fair weak|strong A(..) or B(..) for x in S`: one condition per binding of the generators."""

    CHILDREN = ("targets", "generators", "some")
    strong: bool
    targets: tuple[FairTarget, ...]
    generators: tuple[tuple[Local, Expr], ...]
    span: Span
    # `for some q in S if c`: inside the one condition, a step of a target with some such q
    # (TLA+'s WF_vars(\E q \in S : c /\ A(q))); (local, set, condition or None), outermost first
    some: tuple[tuple[Local, Expr, Expr | None], ...] = ()


@dataclass(frozen=True)
class Theorem(Node):
    """`theorem NAME: forall x, y: body`: body holds for every value of the (finite-typed) binders."""

    CHILDREN = ("body",)
    name: str
    params: tuple[Local, ...]
    body: Expr
    span: Span


@dataclass(frozen=True)
class Predicate(Node):
    """A named expression of the state: a boolean for an invariant, a state constraint, a
    reachable check or a step property; any type for a derived value."""

    CHILDREN = ("expr",)
    name: str
    expr: Expr
    span: Span


@dataclass(frozen=True)
class Process:
    """A `process` declaration, after desugaring (lang/processes.py): which variables and actions
    it became, so that traces, swimlanes and coverage can show it by name."""

    name: str
    span: Span
    indexed: bool  # `process P(self in S)`: its program counter and locals are maps from S's members
    pc: str  # the variable of its program counter (`P.pc`, an enum of its labels and `Done`)
    locals: tuple[tuple[str, str], ...]  # (the local's name, its variable: `P.x`)
    steps: tuple[str, ...]  # its labels, in order: the names of its actions


@dataclass(frozen=True)
class Refinement(Node):
    """`refines NAME "FILE"`: the abstract spec in `path`, and the concrete expressions its
    variables map to (`state`, a tuple in the abstract's variable order) and its constants
    (`constants`, a tuple of expressions of constants only)."""

    CHILDREN = ("state", "constants_expr")
    name: str
    span: Span
    path: str
    variables: tuple[str, ...]
    variable_spans: tuple[Span, ...]
    state: "Predicate"
    constants: tuple[str, ...]
    constants_expr: "Predicate"


@dataclass(frozen=True)
class ConformEvent:
    """`event "NAME" = A(p = "field") then B` in a `conform:` section: a logged event called NAME
    stands for these spec steps, in order; each step is (action index, ((parameter position, the
    event's argument it takes), ...)): a parameter not listed takes the argument of its own name."""

    name: str
    steps: tuple[tuple[int, tuple[tuple[int, str], ...]], ...]
    span: Span


@dataclass(frozen=True)
class Conform:
    """`conform:`: how a real system's logs name this spec's actions, variables and values
    (`tlacheck conform`, docs/conform.md). `fields`: (the log's name, variable slot); `values`: per
    enum or set of model values (the SortT's name), (the log's text, member index); `ignore`: names
    dropped wherever they appear in a log line; `silent`: the actions that may fill a gap (None: the
    section names none, so every action that is not lazy may); `lazy`: actions tried only when
    nothing else matches, as unlogged steps."""

    events: tuple[ConformEvent, ...] = ()
    fields: tuple[tuple[str, int], ...] = ()
    values: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()
    ignore: tuple[str, ...] = ()
    silent: tuple[int, ...] | None = None
    lazy: tuple[int, ...] = ()
    span: Span | None = None


@dataclass(frozen=True)
class Spec(Node):
    CHILDREN = ("constants", "variables", "functions", "actions", "invariants", "constraints", "properties", "reachables", "fairness", "steps", "theorems", "derived", "initially", "refinements", "assumptions")
    name: str
    file: str
    sorts: tuple  # SortT, in declaration order
    constants: tuple[Constant, ...]
    variables: tuple[Variable, ...]
    functions: tuple[Function, ...]
    actions: tuple[Action, ...]
    invariants: tuple[Predicate, ...]
    constraints: tuple[Predicate, ...]
    properties: tuple[Property, ...] = ()
    reachables: tuple[Predicate, ...] = ()
    fairness: tuple[Fairness, ...] = ()
    # Step properties (`property P: always Q`, Q reading x'): predicates of two states, in which VarRef slot n + i (n variables) is
    # variable i after the step
    steps: tuple[Predicate, ...] = ()
    theorems: tuple[Theorem, ...] = ()
    # `derived NAME: EXPR`: values of each state shown along traces (never evaluated by the search)
    derived: tuple[Predicate, ...] = ()
    warnings: tuple = field(default=())
    # The sets of model values declared `symmetric` (SortT names): their members are interchangeable
    symmetric: tuple[str, ...] = ()
    # `deadlock: allowed`: a state without successors is not an error (TLC's CHECK_DEADLOCK FALSE)
    deadlock_allowed: bool = False
    # `init: P`: the initial states are those of the variables' initial values that satisfy P (a
    # variable declared without a value is a choice among every value of its type: `choice`)
    initially: Predicate | None = None
    # `process` declarations, and the variables and actions they became
    processes: tuple[Process, ...] = ()
    # `refines NAME "FILE"`: the specs this one implements, and the mappings
    refinements: tuple[Refinement, ...] = ()
    # `conform:`: the mapping of a real system's logs to this spec (None: the spec has none)
    conform: Conform | None = None
    # `assume NAME: P`: booleans of the constants, checked once, when the model is built (TLA+'s ASSUME)
    assumptions: tuple[Predicate, ...] = ()


# ---------------------------------------------------------------- analyses shared by later stages

def blocks(st: Stmt) -> tuple:
    """The statement blocks directly inside `st` (an `if`'s branches and else, `either`'s
    branches, a `with`'s body)."""
    if isinstance(st, IfS):
        return tuple(b for _, b in st.branches) + (st.orelse,)
    if isinstance(st, EitherS):
        return st.branches
    if isinstance(st, WithS):
        return (st.body,)
    return ()


def stmt_exprs(st: Stmt) -> tuple:
    """The expressions directly in `st`, not in its blocks: a guard, an assigned value and the
    keys and positions of its target, a `let`'s value, an `if`'s conditions, a `with`'s sets."""
    out: list[Expr] = []
    for c in st.children():
        if isinstance(c, PathStep):
            out += c.children()
        elif isinstance(c, Expr):
            out.append(c)
    return tuple(out)


def statements(body):
    """Every statement in the block `body`, nested ones too, pre-order."""
    return (x for x in walk(tuple(body)) if isinstance(x, Stmt))


# What an expression reads is answered here and only here. Typecheck asks it (constants, the
# bounds in types, the sets of fairness conditions and of quantifiers over temporal formulas
# must not read the state) and codegen relies on the same answer (what it computes once, which
# functions it memoises, what it evaluates with no state at hand): were the two to disagree, a
# spec the type checker accepts could compile to code that reads a state it does not have.

def reads(e: Expr, function_reads: list[tuple[frozenset, frozenset]]) -> tuple[set[int], set[int]]:
    """(state slots, constant indices) that evaluating `e` reads, through function calls too.

    `function_reads` is function_reads()'s table for the spec's functions: a call is looked up
    in it, never followed, so recursive functions cost nothing more."""
    slots: set[int] = set()
    consts: set[int] = set()

    for x in walk(e):
        if isinstance(x, VarRef):
            slots.add(x.slot)
        elif isinstance(x, ConstRef):
            consts.add(x.index)
        elif isinstance(x, CallDef):
            slots.update(s + x.shift for s in function_reads[x.index][0])
            consts.update(function_reads[x.index][1])
        elif isinstance(x, Prim) and x.op in ("enabled", "step_of"):
            slots.update(x.info[1])
    return slots, consts


def reads_state(e: Expr, function_reads: list[tuple[frozenset, frozenset]]) -> bool:
    """Whether evaluating `e` reads a state variable, directly or through the functions it calls
    (`function_reads` as for reads())."""
    return bool(reads(e, function_reads)[0])


def function_reads(functions) -> list[tuple[frozenset, frozenset]]:
    """For each function, the state slots and constants it reads, directly or through calls: a
    fixpoint over the call graph (the sets only grow, so it ends, recursion included)."""
    out: list[tuple[frozenset, frozenset]] = [(frozenset(), frozenset()) for _ in functions]
    changed = True
    while changed:
        changed = False
        for i, f in enumerate(functions):
            slots, consts = reads(f.body, out)
            new = (frozenset(slots), frozenset(consts))
            if new != out[i]:
                out[i] = new
                changed = True
    return out


def guard_reads(action: Action, function_reads: list[tuple[frozenset, frozenset]]) -> frozenset[int]:
    """The state slots whose values can decide whether `action` has a step from a state: what its
    `require`s, its `with`s' sets and its parameters' domains read, and the conditions of the `if`s
    around them, through the assignments and `let`s before them (statements run in order: `x = y;
    require x > 0` reads y). The other variables only feed the next state's values: a runtime guard
    (testing/guards.py) needs just these. Evaluation errors are not counted as guards."""
    out: set[int] = set()

    def deps(e: Expr, env: dict) -> set[int]:
        found: set[int] = set()
        for slot in reads(e, function_reads)[0]:
            found |= env.get(("var", slot), {slot})
        for x in walk(e):
            if isinstance(x, LocalRef):
                found |= env.get(("local", x.local.id), set())
        return found

    def guarded(body) -> bool:
        return any(isinstance(st, (RequireS, WithS)) for st in statements(body))

    def merge(envs: list[dict]) -> dict:
        """After branches: what each name's value may depend on, in any of them."""
        keys = {key for env in envs for key in env}
        return {key: set().union(*(env.get(key, {key[1]} if key[0] == "var" else set()) for env in envs))
                for key in keys}

    def block(body, env: dict, context: set[int]) -> dict:
        for st in body:
            if isinstance(st, RequireS):
                out.update(deps(st.cond, env) | context)
            elif isinstance(st, AssignS):
                value = deps(st.value, env) | context
                for s in st.steps:
                    if s.kind != "field":
                        value |= deps(s.index, env)
                if st.steps:  # `m[k] = v` keeps the rest of m
                    value |= env.get(("var", st.slot), {st.slot})
                env = dict(env)
                env[("var", st.slot)] = value
            elif isinstance(st, LetS):
                env = dict(env)
                env[("local", st.local.id)] = deps(st.value, env) | context
            elif isinstance(st, IfS):
                conditions: set[int] = set(context)
                branches = []
                for cond, branch in st.branches:
                    conditions |= deps(cond, env)
                    branches.append(block(branch, env, conditions))
                branches.append(block(st.orelse, env, conditions))
                if any(guarded(b) for b in blocks(st)):
                    out.update(conditions)
                env = merge(branches)
            elif isinstance(st, EitherS):
                env = merge([block(branch, env, context) for branch in st.branches])
            elif isinstance(st, WithS):
                env = dict(env)
                for local, domain in st.binders:
                    chosen = deps(domain, env) | context
                    out.update(chosen)  # an empty set to choose from: no step
                    env[("local", local.id)] = chosen
                env = block(st.body, env, context)
        return env

    env: dict = {}
    for local, domain in action.params:
        env[("local", local.id)] = deps(domain, env)
        out.update(env[("local", local.id)])
    block(action.body, env, set())
    return frozenset(out)


@dataclass(frozen=True)
class Access:
    """What one action reads and writes, at the grain of map entries (access()).

    `reads`: the slots read whole. `read_entries`: map slot -> the position of the parameter `p`
    it is read at, as `m[p]` only (so an instance reads the one entry m[p]). `writes`: the slots
    an instance may assign whole (or otherwise than at `m[p]`). `write_entries`: map slot -> the
    position of the parameter it is assigned at, as `m[p] = v` or `m[p]... = v` only (an
    instance changes that entry alone and carries the rest over). A slot in `read_entries` or
    `write_entries` is in neither `reads` nor `writes`; the two entry tables name the same
    parameter for a slot they share. `overwrites`: the slots of `writes` that every successor
    assigns whole (`x = e` at the top level of the body), so that a successor's value of one
    that is not read is decided by what the instance reads; a slot of `writes` assigned on some
    paths only keeps, on the others, the value it had, which the instance does not read."""

    reads: frozenset[int]
    read_entries: dict[int, int]
    writes: frozenset[int]
    write_entries: dict[int, int]
    overwrites: frozenset[int] = frozenset()


def access(action: Action, function_reads: list[tuple[frozenset, frozenset]]) -> Access:
    """The read and write sets of `action` (Access), per parameter at the grain of entries: a map
    variable read only as `m[p]` and assigned only at `m[p]`, `p` a parameter of the action, is the
    entry (m, p); any other read (through a `def`, `enabled`, a key that is not a parameter, the
    whole map) makes it the whole variable. Reads count the parameters' domains, guards, values,
    keys and the maps an entry assignment carries over (`m[k] = v` with `k` not a parameter reads
    all of m). What an instance computes is a function of its parameters' values and of what this
    gives it reads: the transition cache (compile/codegen.py) keys on that."""
    params = {local.id: i for i, (local, _) in enumerate(action.params)}
    whole: set[int] = set()
    entries: dict[int, set[int]] = {}
    assigned: set[int] = set()
    assigned_at: dict[int, set[int]] = {}

    def at_param(e) -> int | None:
        return params.get(e.local.id) if isinstance(e, LocalRef) else None

    def walk_reads(x: Expr) -> None:
        if isinstance(x, Prim) and x.op == "lookup" and isinstance(x.args[0], VarRef) \
                and at_param(x.args[1]) is not None:
            entries.setdefault(x.args[0].slot, set()).add(at_param(x.args[1]))
            return
        if isinstance(x, VarRef):
            whole.add(x.slot)
        elif isinstance(x, CallDef) or (isinstance(x, Prim) and x.op in ("enabled", "step_of")):
            whole.update(reads(x, function_reads)[0])
        for c in x.children():
            walk_reads(c)

    for _, domain in action.params:
        walk_reads(domain)
    for st in statements(action.body):
        for e in stmt_exprs(st):
            walk_reads(e)
        if not isinstance(st, AssignS):
            continue
        first = st.steps[0] if st.steps else None
        p = at_param(first.index) if first is not None and first.kind == "map" else None
        if p is not None:
            assigned_at.setdefault(st.slot, set()).add(p)
            entries.setdefault(st.slot, set()).add(p)
        else:
            assigned.add(st.slot)
            if st.steps:  # `m[k] = v`, `r.f = v`: the rest of the value is carried over, so read
                whole.add(st.slot)
    bounded = {slot: next(iter(ps)) for slot, ps in entries.items()
               if len(ps) == 1 and slot not in whole and slot not in assigned}
    whole |= set(entries) - set(bounded)
    write_entries = {slot: bounded[slot] for slot in assigned_at if slot in bounded}
    writes = assigned | (set(assigned_at) - set(write_entries))
    overwrites = {st.slot for st in action.body if isinstance(st, AssignS) and not st.steps}
    return Access(frozenset(whole), {s: p for s, p in bounded.items()}, frozenset(writes), write_entries,
                  frozenset(overwrites))


def _enumerating(e, calls: frozenset[int]) -> bool:
    """Whether evaluating `e` enumerates: a comprehension or quantifier (but one whose condition is
    `false`, a way to stop with an error: it tests nothing), `powerset`, `orderings`, a set of
    maps, or a call of one of the functions `calls`."""
    return any((isinstance(x, Comp) and not (isinstance(x.cond, Lit) and x.cond.value is False))
               or (isinstance(x, Prim) and x.op in ("powerset", "orderings", "maps"))
               or (isinstance(x, CallDef) and x.index in calls) for x in walk(e))


def enumerating_functions(functions) -> frozenset[int]:
    """The functions whose evaluation enumerates (_enumerating), directly or through the functions
    they call: a fixpoint over the call graph."""
    out: frozenset[int] = frozenset()
    while True:
        more = frozenset(i for i, f in enumerate(functions) if _enumerating(f.body, out))
        if more == out:
            return out
        out = more


def cached_part(action: Action) -> Action:
    """What a transition cache answers of `action`: its body after the leading `require`s, which
    are evaluated before the cache is looked up (in the same order as without a cache, so that an
    instance they disable costs what it did, and the cache keys on what the rest reads)."""
    body = tuple(action.body)
    k = 0
    while k < len(body) and isinstance(body[k], RequireS):
        k += 1
    return replace(action, body=body[k:])


def enumerates(action: Action, function_reads: list[tuple[frozenset, frozenset]],
               enumerating: frozenset[int]) -> bool:
    """Whether an instance of `action` (its body, for given parameter values) enumerates: a
    comprehension or quantifier, a `powerset`, `orderings` or set of maps, a call of a function of
    `enumerating` (enumerating_functions), or a `with` over a set that reads the state or a bound
    name. The transition cache is worth its key (a tuple hashed by Python: about two map reads)
    only there; a body of a few reads and assignments (and calls of small `def`s) costs less than
    the lookup."""
    for st in statements(action.body):
        if isinstance(st, WithS) and any(reads_state(d, function_reads) or any(isinstance(x, LocalRef) for x in walk(d))
                                         for _, d in st.binders):
            return True
        if any(_enumerating(e, enumerating) for e in stmt_exprs(st)):
            return True
    return False
