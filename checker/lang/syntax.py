"""The abstract syntax tree: immutable dataclasses, each carrying its source span.

Built by parser.py from Lark's parse tree; no Lark object survives into it.
The passes of the front end (front/pipeline.py) rewrite it; typecheck.py turns it into the IR.
Each node class declares its children (core/tree.py): `walk`, `Visitor` and `transform` serve
every traversal.
"""

from __future__ import annotations

from dataclasses import dataclass

from tlacheck.core import tree
from tlacheck.core.result import Expectation
from tlacheck.core.source import Span


@dataclass(frozen=True)
class Node(tree.Node):
    """Every node carries its span; CHILDREN names the fields holding its sub-nodes (core/tree.py)."""

    span: Span


# ---------------------------------------------------------------- types

@dataclass(frozen=True)
class TypeExpr(Node):
    pass


@dataclass(frozen=True)
class BoolType(TypeExpr):
    pass


@dataclass(frozen=True)
class IntType(TypeExpr):
    pass


@dataclass(frozen=True)
class ModelType(TypeExpr):
    pass


@dataclass(frozen=True)
class NamedType(TypeExpr):
    name: str


@dataclass(frozen=True)
class RangeType(TypeExpr):
    CHILDREN = ("low", "high")
    low: "Expr"
    high: "Expr"


@dataclass(frozen=True)
class SetType(TypeExpr):
    CHILDREN = ("element",)
    element: TypeExpr


@dataclass(frozen=True)
class SeqType(TypeExpr):
    """`seq[T]`, or `seq[T, N]`: at most N elements (N a constant int expression)."""

    CHILDREN = ("element", "limit")
    element: TypeExpr
    limit: "Expr | None" = None


@dataclass(frozen=True)
class MapType(TypeExpr):
    CHILDREN = ("key", "value")
    key: TypeExpr
    value: TypeExpr


@dataclass(frozen=True)
class RecordType(TypeExpr):
    CHILDREN = ("fields",)
    fields: tuple[tuple[str, TypeExpr], ...]


@dataclass(frozen=True)
class TupleType(TypeExpr):
    CHILDREN = ("elements",)
    elements: tuple[TypeExpr, ...]


@dataclass(frozen=True)
class ElementType(TypeExpr):
    """The type of the members of a constant set (a process's instances: processes.py)."""

    CHILDREN = ("set",)
    set: "Expr"


@dataclass(frozen=True)
class OptionType(TypeExpr):
    CHILDREN = ("inner",)
    inner: TypeExpr


# ---------------------------------------------------------------- expressions

@dataclass(frozen=True)
class Expr(Node):
    pass


@dataclass(frozen=True)
class Name(Expr):
    name: str


@dataclass(frozen=True)
class IntLit(Expr):
    value: int


@dataclass(frozen=True)
class BoolLit(Expr):
    value: bool


@dataclass(frozen=True)
class NoneLit(Expr):
    pass


@dataclass(frozen=True)
class IfExpr(Expr):
    CHILDREN = ("cond", "then", "orelse")
    cond: Expr
    then: Expr
    orelse: Expr


@dataclass(frozen=True)
class BinOp(Expr):
    """A binary operator. `op` is one of: implies or and == != < <= > >= in
    notin subset .. | & + - * // %."""

    CHILDREN = ("left", "right")
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Not(Expr):
    CHILDREN = ("operand",)
    operand: Expr


@dataclass(frozen=True)
class Temporal(Expr):
    """`always f`, `eventually f` (op "always"/"eventually", right None) or `p leads_to q`."""

    CHILDREN = ("left", "right")
    op: str
    left: Expr
    right: Expr | None = None


@dataclass(frozen=True)
class Neg(Expr):
    CHILDREN = ("operand",)
    operand: Expr


@dataclass(frozen=True)
class Index(Expr):
    CHILDREN = ("target", "index")
    target: Expr
    index: Expr


@dataclass(frozen=True)
class Field(Expr):
    CHILDREN = ("target",)
    target: Expr
    name: str


@dataclass(frozen=True)
class Primed(Expr):
    """`x'`: the value of state variable x after the step (in a step property,
    `property NAME: always P` with P reading x')."""

    CHILDREN = ("target",)
    target: Expr


@dataclass(frozen=True)
class Generator(Node):
    """`x in S` (`for x in S`, an action parameter, a `with` binder). `for (a, b) in S` names
    the items of tuple elements: `parts` holds a and b, and `name` is `(a, b)` (no one's name)."""

    CHILDREN = ("domain",)
    name: str
    domain: Expr
    parts: tuple[tuple[str, Span], ...] = ()


@dataclass(frozen=True)
class Comprehension(Node):
    """`elem for x in S for y in T if cond`, used by set/map comprehensions and
    by generator arguments (`all(p for x in S)`)."""

    CHILDREN = ("element", "generators", "cond")
    element: Expr
    generators: tuple[Generator, ...]
    cond: Expr | None


@dataclass(frozen=True)
class Call(Expr):
    CHILDREN = ("args", "comprehension")
    name: str
    name_span: Span
    args: tuple[Expr, ...]
    comprehension: Comprehension | None = None


@dataclass(frozen=True)
class TupleLit(Expr):
    CHILDREN = ("elements",)
    elements: tuple[Expr, ...]


@dataclass(frozen=True)
class SeqLit(Expr):
    CHILDREN = ("elements",)
    elements: tuple[Expr, ...]


@dataclass(frozen=True)
class SetLit(Expr):
    CHILDREN = ("elements",)
    elements: tuple[Expr, ...]


@dataclass(frozen=True)
class SetComp(Expr):
    CHILDREN = ("comprehension",)
    comprehension: Comprehension


@dataclass(frozen=True)
class SeqComp(Expr):
    """`[e for x in S]`: the elements in the canonical order of S (ascending for ints)."""

    CHILDREN = ("comprehension",)
    comprehension: Comprehension


@dataclass(frozen=True)
class MapComp(Expr):
    CHILDREN = ("key", "comprehension")
    key: Expr
    comprehension: Comprehension  # element is the value


@dataclass(frozen=True)
class MapLit(Expr):
    CHILDREN = ("entries",)
    entries: tuple[tuple[Expr, Expr], ...]


@dataclass(frozen=True)
class RecordLit(Expr):
    CHILDREN = ("fields",)
    fields: tuple[tuple[str, Span, Expr], ...]


@dataclass(frozen=True)
class LetExpr(Expr):
    """`let` lines in front of an expression (in def, invariant and constraint bodies)."""

    CHILDREN = ("bindings", "body")
    bindings: tuple[tuple[str, Span, Expr], ...]
    body: Expr


# ---------------------------------------------------------------- statements

@dataclass(frozen=True)
class Stmt(Node):
    pass


@dataclass(frozen=True)
class Require(Stmt):
    CHILDREN = ("cond",)
    cond: Expr


@dataclass(frozen=True)
class LValue(Node):
    """`name`, `name[k]`, `name.f`, `name[k].f` ... on the left of `=`."""

    CHILDREN = ("steps",)
    name: str
    name_span: Span
    steps: tuple[Expr | str, ...]  # an Expr is an index step, a str a field step
    step_spans: tuple[Span, ...]


@dataclass(frozen=True)
class Assign(Stmt):
    CHILDREN = ("target", "value")
    target: LValue
    value: Expr


@dataclass(frozen=True)
class Let(Stmt):
    CHILDREN = ("value",)
    name: str
    name_span: Span
    value: Expr


@dataclass(frozen=True)
class Skip(Stmt):
    pass


@dataclass(frozen=True)
class If(Stmt):
    CHILDREN = ("branches", "orelse")
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...] | None


@dataclass(frozen=True)
class Either(Stmt):
    CHILDREN = ("branches",)
    branches: tuple[tuple[Stmt, ...], ...]


@dataclass(frozen=True)
class With(Stmt):
    CHILDREN = ("binders", "body")
    binders: tuple[Generator, ...]
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class BlockCall(Stmt):
    """`notify_one(c)` as a statement: the body of `block notify_one`, its parameters bound to the
    values of the arguments (typecheck.py expands it in place)."""

    CHILDREN = ("args",)
    name: str
    name_span: Span
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Labelled(Stmt):
    """`L:` and its block, in a process: an atomic step begins at L (processes.py)."""

    CHILDREN = ("body",)
    label: str
    label_span: Span
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class While(Stmt):
    """`while COND:` in a process; its first statement is a label's (processes.py)."""

    CHILDREN = ("cond", "body")
    cond: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Goto(Stmt):
    """`goto L` in a process: the step ends, and the next one of this process begins at L."""

    label: str
    label_span: Span


@dataclass(frozen=True)
class Scoped(Stmt):
    """Statements in a scope of their own: the `let` names they bind are not seen after them (the
    parts of an action that a variant extends: variants.py)."""

    CHILDREN = ("body",)
    body: tuple[Stmt, ...]


# ---------------------------------------------------------------- declarations

@dataclass(frozen=True)
class Decl(Node):
    name: str
    name_span: Span


@dataclass(frozen=True)
class ConstDecl(Decl):
    CHILDREN = ("type", "default")
    type: TypeExpr
    default: Expr | None
    symmetric: bool = False  # `symmetric const S: set[model]`: S's members are interchangeable


@dataclass(frozen=True)
class EnumDecl(Decl):
    members: tuple[tuple[str, Span], ...]


@dataclass(frozen=True)
class VarDecl(Decl):
    CHILDREN = ("type", "init")
    type: TypeExpr
    init: Expr | None  # None: `var x: T` alone, every value of T that the `init:` predicate allows
    choice: bool  # `var x: T in S` (one initial state per element of S)


@dataclass(frozen=True)
class ActionDecl(Decl):
    CHILDREN = ("params", "body", "sends_to")
    params: tuple[Generator, ...]
    body: tuple[Stmt, ...]
    actor: str | None = None  # `by Runner`: who takes the step (swimlanes)
    sends_to: Expr | None = None  # `by Runner -> Parent`, `-> first_waiter()`: an expression
    actor_span: Span | None = None


@dataclass(frozen=True)
class DefDecl(Decl):
    CHILDREN = ("params", "returns", "body")
    params: tuple[tuple[str, Span, TypeExpr], ...]
    returns: TypeExpr
    body: Expr


@dataclass(frozen=True)
class BlockDecl(Decl):
    """`block NAME(p: T, ...): STATEMENTS`: statements that actions call (BlockCall)."""

    CHILDREN = ("params", "body")
    params: tuple[tuple[str, Span, TypeExpr], ...]
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class ProcessDecl(Decl):
    """`process NAME(self in S):` (or `process NAME:`, one instance): local variables, then
    statements with labels; `processes.desugar` turns it into an enum, variables and actions."""

    CHILDREN = ("domain", "locals", "body")
    self_name: str | None  # None: a single process
    self_span: Span | None
    domain: "Expr | None"
    locals: tuple["VarDecl", ...]
    body: tuple[Stmt, ...]
    fair: str | None = None  # `fair process` ("weak"), `fair strong process` ("strong")
    # set by a variant that replaces a `fair process` with one that is not: the base's declaration
    unfair_replacement_of: Span | None = None


@dataclass(frozen=True)
class RefinesDecl(Decl):
    """`refines NAME "FILE":` and its mapping lines `v = EXPR` (TLA+'s INSTANCE ... WITH): this
    spec implements the spec in FILE (relative to this one). `variables` and `constants` are the
    abstract spec's, in its order, filled in when it is loaded (compile/refinement.py), which
    also completes `mapping` with TLA+'s implicit substitutions (a name maps to the same name)."""

    CHILDREN = ("mapping",)
    path: str
    path_span: Span
    mapping: tuple[tuple[str, Span, "Expr"], ...]
    variables: tuple[str, ...] = ()
    constants: tuple[str, ...] = ()


@dataclass(frozen=True)
class TypeDecl(Decl):
    """`type NAME = TYPE`: an alias, replaced by its type before type checking (aliases.py)."""

    CHILDREN = ("type",)
    type: TypeExpr


@dataclass(frozen=True)
class InvariantDecl(Decl):
    CHILDREN = ("body",)
    body: Expr


@dataclass(frozen=True)
class AssumeDecl(Decl):
    """`assume NAME: P`: a boolean of the constants, checked once before exploring (TLA+'s ASSUME)."""

    CHILDREN = ("body",)
    body: Expr


@dataclass(frozen=True)
class DerivedDecl(Decl):
    """`derived NAME: EXPR`: a value of each state, shown along traces (not a check)."""

    CHILDREN = ("body",)
    body: Expr


@dataclass(frozen=True)
class ConstraintDecl(Decl):
    CHILDREN = ("body",)
    body: Expr


@dataclass(frozen=True)
class PropertyDecl(Decl):
    """`property NAME: <temporal formula>`."""

    CHILDREN = ("body",)
    body: Expr


@dataclass(frozen=True)
class ReachableDecl(Decl):
    """`reachable NAME: <state predicate>`: some reachable state satisfies it."""

    CHILDREN = ("body",)
    body: Expr


@dataclass(frozen=True)
class FairTarget(Node):
    CHILDREN = ("args",)
    action: str
    args: tuple[Expr | None, ...] | None  # None: no parentheses (every argument); an arg None is `*`


@dataclass(frozen=True)
class FairSome(Node):
    """`for some q in S if c` after a fairness condition's targets: inside the one condition (TLA+'s
    `WF_vars(\\E q \\in S : c /\\ A(q))`); `cond` a predicate of the state before the step, or None."""

    CHILDREN = ("generator", "cond")
    generator: Generator
    cond: Expr | None


@dataclass(frozen=True)
class FairDecl(Decl):
    """`fair weak A(p) or B(p) for p in S`. `name` is a generated label (`fair#3`)."""

    CHILDREN = ("targets", "generators", "some")
    strong: bool
    targets: tuple[FairTarget, ...]
    generators: tuple[Generator, ...]
    some: tuple[FairSome, ...] = ()


@dataclass(frozen=True)
class TheoremDecl(Decl):
    CHILDREN = ("params", "body")
    params: tuple[tuple[str, Span, TypeExpr | None], ...]
    body: Expr


# The names of the declarations that a spec makes at most once and that name nothing: no name of
# the language can be spelt like them, so they never clash with one (in duplicates, in variants).
DEADLOCK = "deadlock:"
INIT = "init:"
CONFORM = "conform:"


@dataclass(frozen=True)
class DeadlockDecl(Decl):
    """`deadlock: allowed` (a state without successors is not an error: TLC's CHECK_DEADLOCK FALSE)
    or `deadlock: forbidden` (the default). `name` is DEADLOCK."""

    allowed: bool


@dataclass(frozen=True)
class InitDecl(Decl):
    """`init: PREDICATE`: the initial states are those of the variables' initial values (every value
    of its type for a variable declared without one) that satisfy it. `name` is INIT."""

    CHILDREN = ("body",)
    body: Expr


@dataclass(frozen=True)
class ConformStep(Node):
    """`SendDone(t = "task")` in an `event` line: an action, and for some of its parameters the
    name of the logged argument each takes."""

    action: str
    action_span: Span
    args: tuple[tuple[str, Span, str, Span], ...]  # (parameter, its span, the log's name, its span)


@dataclass(frozen=True)
class ConformLine(Node):
    """One line of a `conform:` section, after its leading word (`word`):
    `event "TEXT" = STEP then STEP...` and `event "TEXT" = skip` (no steps) (`texts` holds
    TEXT, `steps` the steps); `field "TEXT" = VAR` (`steps` holds one step, VAR, without
    arguments); `values SORT: "TEXT" = MEMBER, ...` (`names` holds SORT, `pairs` the rest);
    `ignore "TEXT", ...` (`texts`); `silent A, B` and `lazy A, B` (`names`)."""

    CHILDREN = ("steps",)
    word: str
    word_span: Span
    texts: tuple[tuple[str, Span], ...] = ()
    steps: tuple[ConformStep, ...] = ()
    names: tuple[tuple[str, Span], ...] = ()
    pairs: tuple[tuple[str, Span, str, Span], ...] = ()  # (the log's text, its span, member, its span)


@dataclass(frozen=True)
class ConformDecl(Decl):
    """`conform:` and its lines: how a real system's logs name this spec's actions, variables and
    values (`tlacheck conform`, docs/conform.md). `name` is CONFORM."""

    CHILDREN = ("lines",)
    lines: tuple[ConformLine, ...]


@dataclass(frozen=True)
class VariantDecl(Decl):
    """`variant NAME [extends PARENT] ["description"]:` and its items, applied to the base spec (after
    those of PARENT and its own parents, when it extends one: variants.py)."""

    CHILDREN = ("items",)
    description: str | None
    items: tuple[tuple[str, "Decl"], ...]  # ("add" | "replace", decl), ("remove", RemoveAction), ("extend", ExtendAction)
    parent: str | None = None
    parent_span: Span | None = None


@dataclass(frozen=True)
class RemoveAction(Decl):
    pass


@dataclass(frozen=True)
class ExtendAction(Decl):
    """`extend action NAME:` in a variant: statements run before and after the base action's body."""

    CHILDREN = ("before", "after")
    before: tuple[Stmt, ...]
    after: tuple[Stmt, ...]


@dataclass(frozen=True)
class ExpectDecl(Decl):
    """`expect VARIANT OUTCOME [CHECK]`; `name` is the variant (`base` for the base spec)."""

    outcome: Expectation
    check: str | None
    check_span: Span | None


@dataclass(frozen=True)
class Import(Node):
    """`import "FILE"`: FILE's declarations (not its variants and expectations) are this spec's
    too (lang/modules.py)."""

    path: str
    path_span: Span


@dataclass(frozen=True)
class SpecFile(Node):
    CHILDREN = ("declarations", "imports")
    name: str | None
    declarations: tuple[Decl, ...]
    imports: tuple[Import, ...] = ()
