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

Speed (docs/performance.md): sub-expressions that read no state and no bound
name and cannot fault (constant sets, records, ranges; the canonical order of
a constant domain) are computed once, in `_constants()`, into generated `t`
names, each after the constants it reads and before the constants that read it
through a `def` (_in_dependency_order). A parameter, `with` choice or generator that ranges over a constant
domain and is used as a map key is bound with its position too, and `m[k]`
reads and `m[k] = v` updates take that position directly when the map's key
tuple is the domain's (`is`, else `==`); otherwise they fall back to the
runtime's search by key. Maps built by the model share their key tuples with
the domains (an intern table), so the fast path is the usual one. In an
action with parameters, what is the same for every parameter value is
computed once per call, before the parameter loops (after the guards that do
not depend on a parameter): the key tests and value tuples of maps not yet
assigned, and cheap expressions that read no bound name and no variable
assigned before them and cannot fault. In an invariant, constraint or
reachable check, the same goes for what a comprehension evaluates for each
element without depending on it (the sorted elements of a sequence scanned
once per key, say). A set that is not naturally ordered is sorted with a key function
generated for its element type (`ck{n}`), which orders as runtime.canon_key does; a set is
sorted only where the order can be seen (a loop of an action, `choose`, a sequence, a map, and
a comprehension of which some element may fault: a set or sum one is built from the set as it
lies first, and again in canonical order only after a fault). An expression that reads no state
and no bound name but may fault is memoised where it is first evaluated. A `let` of a name and a
call of a small `def` are written where they are used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tlacheck.core import types as T
from tlacheck.core.runtime import NONE
from tlacheck.core.tree import walk
from tlacheck.ir import nodes as ir


# Primitive operations with a direct Python form: op -> format string.
_INFIX = {
    "and": "({} and {})", "or": "({} or {})", "implies": "((not {}) or {})", "not": "(not {})",
    "eq": "({} == {})", "ne": "({} != {})", "lt": "({} < {})", "le": "({} <= {})", "gt": "({} > {})",
    "ge": "({} >= {})", "in": "({} in {})", "notin": "({} not in {})", "subset": "({} <= {})",
    "union": "({} | {})", "inter": "({} & {})", "diff": "({} - {})", "add": "({} + {})",
    "sub": "({} - {})", "mul": "({} * {})", "neg": "(-{})", "concat": "({} + {})",
    "len": "len({})", "card": "len({})", "elems": "frozenset({})", "domain": "frozenset({}[0])",
    "append": "({} + ({},))", "bigunion": "_bigunion({})", "unwrap": "{}",
}
# Primitive operations that may fail at run time: op -> runtime function (last argument: where).
_FAULTING = {
    "lookup": "_lookup", "at": "_at", "head": "_head", "tail": "_tail", "subseq": "_subseq",
    "powerset": "_powerset", "orderings": "_orderings", "maps": "_maps", "min": "_set_min", "max": "_set_max", "div": "_div", "mod": "_mod",
    "check_bounds": "_check_bounds",
}

RUNTIME_NAMES = {
    "_int_range": "int_range", "_range_domain": "range_domain", "_mul": "mul", "_bigunion": "bigunion", "_lookup": "lookup", "_at": "at", "_head": "head",
    "_tail": "tail", "_subseq": "subseq", "_powerset": "powerset", "_orderings": "orderings", "_maps": "all_maps", "_in_maps": "in_maps", "_in_maps_where": "in_maps_where", "_in_powerset_where": "in_powerset_where", "_memo": "memo", "_enabled": "enabled", "_enabled_with": "enabled_with", "_step_of": "step_of", "_set_min": "set_min",
    "_set_max": "set_max", "_div": "div", "_mod": "mod", "_mkmap": "mkmap", "_map_set": "map_set",
    "_map_update": "map_update",
    "_seq_set": "seq_set", "_put": "put", "_canon_key": "canon_key", "_sorted_option": "sorted_option",
    "_retry_canonical": "retry_canonical",
    "_NINF": "NINF", "_choose": "choose",
    "_check_bounds": "check_bounds", "_keys_tuple": "keys_tuple", "NONE": "NONE", "Fault": "Fault",
    "_cache_entry": "cache_entry", "_cache_store": "cache_store", "_SAME": "SAME",
}


_CONSTANTS = "_constants"  # the function computing the constants and the hoisted globals


@dataclass(frozen=True)
class Entries:
    """The generated module's entry points by role: the names codegen gave them, so that the
    Model finds them here and never by a naming convention."""

    init: str  # (): yields every initial state
    actions: tuple[str, ...]  # per action, (s): yields (arguments, successor) in canonical order
    next_states: tuple[str, ...]  # per action, (s, fp, M, E): (successors, their fingerprints)
    invariants: tuple[str, ...]  # per invariant, (s) -> bool
    constraints: tuple[str, ...]
    reachables: tuple[str, ...]
    canonical_keys: str  # (s): s with every map's key tuple the interned one
    constants: str  # (): the constants' values, computing the hoisted globals
    steps: tuple[str, ...] = ()  # per step property, (s, t) -> bool: does the step s -> t satisfy it
    derived: tuple[str, ...] = ()  # per derived value, (s) -> its value in state s
    # per refinement, ((s) -> the abstract state s maps to, (s) -> the abstract constants' values)
    refinements: tuple[tuple[str, str], ...] = ()
    # per action, (s, fp, M, E): (successors, their fingerprints, the arguments of each), for the
    # actions a fairness condition with arguments targets (the behaviour graph needs them); else None
    next_states_with_args: tuple = ()
    assumptions: tuple[str, ...] = ()  # per assumption, (s) -> bool, called with no state: it reads constants only


@dataclass(frozen=True)
class Cache:
    """The module globals of one action's transition cache (_Gen._cache_lookup), by role."""

    action: int
    table: str  # the dict: key -> effects
    # the list [hits, misses, clears, on, gave up]: `on` (1 or 0), whether the successor functions
    # use it (Model.caching; runtime.cache_store turns it off when it does not pay)
    counts: str


@dataclass
class Generated:
    """The generated module's source and the tables it refers to by index."""

    source: str
    entries: Entries
    wheres: list  # (Span, kind, detail) for each `where` index used in the source
    function_reads: list[tuple[int, ...]] = field(default_factory=list)
    # Liveness support: generated function name and the ids of its free locals, for each
    # temporal-formula state predicate, quantifier domain and fairness-argument list.
    # Slots each action may assign and slots each invariant reads (the explorer skips an
    # invariant on the successors of an action that cannot change what it reads).
    action_writes: list[frozenset] = field(default_factory=list)
    invariant_reads: list[frozenset] = field(default_factory=list)
    predicates: dict = field(default_factory=dict)  # ir.Expr -> (name, local ids)
    domains: dict = field(default_factory=dict)  # ir.Expr -> (name, local ids)
    fairness: list = field(default_factory=list)  # per ir.Fairness: (bindings fn, [args fn or None per target])
    # per action: the `-> EXPR` target's function (name, ids of its free locals: the action's parameters), or None
    sends: list = field(default_factory=list)
    # Per line of `source` (line n at index n - 1): the span of the declaration or statement it was
    # generated for, or None. Locates a RecursionError or MemoryError (Model.limit_error), at no cost
    # while exploring.
    line_spans: list = field(default_factory=list)
    # Per line of `source`: the declaration it was generated for, (kind, index) with kind one of
    # "constant", "variable" (the initial states), "initially" (the `init:` predicate), "function", "action", "invariant",
    # "constraint", "reachable", "property", "fairness"; or None. Locates an E008.
    line_owners: list = field(default_factory=list)
    # Per action whose successor functions have a transition cache, its globals (in action order)
    caches: tuple[Cache, ...] = ()


def generate(spec: ir.Spec, cache: bool = True) -> Generated:
    """The model's module. `cache`: give the successor functions of the actions that enumerate a
    transition cache (`_Gen._cache_lookup`); False generates none (compile_spec's fallback when the
    extra loop breaks one of Python's limits)."""
    return _Gen(spec, cache).run()


class _Gen:
    def __init__(self, spec: ir.Spec, cache: bool = True):
        self.spec = spec
        self.out: list[str] = []
        # Per line of self.out: (span, owner) for Generated.line_spans and line_owners, or None.
        self.spans: list = []
        self.at = None  # the span of the declaration or statement being generated
        self.owner = None  # the declaration being generated: Generated.line_owners
        self.wheres: list = []
        self.function_reads = ir.function_reads(spec.functions)  # the one answer to "what does it read?"
        recursive = _recursive_functions(spec.functions)
        self.faulting = _faulting_functions(spec.functions, self.function_reads, recursive)
        self.inlined = _inlined_functions(spec.functions, self.function_reads, recursive)
        self.reads = [sorted(slots) for slots, _ in self.function_reads]  # state slots per function
        # The actions whose successor functions cache their instances' effects, with what they read
        # and write (ir.access): those whose body enumerates (ir.enumerates).
        enumerating = ir.enumerating_functions(spec.functions)
        parts = [ir.cached_part(a) for a in spec.actions]
        self.cached: dict[int, ir.Access] = {i: ir.access(a, self.function_reads) for i, a in enumerate(parts)
                                             if cache and ir.enumerates(a, self.function_reads, enumerating)}
        self.label = 0
        # Hoisting of constant sub-expressions into `_constants()` (off while generating it).
        self.hoisting = False
        self.hoisted: dict[str, str] = {}  # generated code -> name
        self.hoisted_lines: list[str] = []
        self.hoisted_at: list = []  # the span each hoisted line was generated for
        self.domain_names: dict[str, T.Type] = {}  # hoisted canonical domains (tuples): their element type
        # Per key type, the table interning map key tuples: the hoisted domains of that type. One
        # per type, because equal tuples of different types (False, True) and (0, 1) must not be
        # interned as one another: equal values of different Python types encode (and so
        # fingerprint) differently.
        self.keys_tables: dict[T.Type, str] = {}
        # Per element type that is not naturally ordered, the canonical sort key generated for it
        # (`ck{n}`, _sort_key) and its definition.
        self.sort_keys: dict[T.Type, str] = {}
        self.sort_key_lines: list[str] = []
        self.constant: dict[int, bool] = {}  # id(expr) -> reads no state, no bound name, cannot fault
        self.keyed = _keyed_locals(spec)  # ids of locals used as map keys
        self.into = None  # while generating an n{i} function: the name of its result list
        self.args_into = None  # and of a w{i} function's list of arguments
        # And then: (the list of fingerprints, the name of their base, the slots the action may
        # assign that are not maps); self.deltas: map slot -> the name of its hash's change so far.
        self.fps: tuple | None = None
        self.deltas: dict[int, str] = {}
        self.positions: dict[int, tuple[str, str]] = {}  # bound local id -> (position name, domain name)
        self.canonical: set[tuple[str, str]] = set()  # (map name, domain name): keys known to be the domain
        self.substitutes: dict[int, str] = {}  # bound local id -> the code of its value (a `let` of _duplicable)
        self.retrying = False  # generating a comprehension computed twice when it faults (_retry_canonical)
        # In an action: where its prologue ends, the variables assigned so far in emission order,
        # and the code computed once per call in the prologue (code -> name): the tests "v{slot}'s
        # keys are domain t{n}", the value tuples of maps not assigned yet and, in an action with
        # parameters, the expressions that do not depend on them. The prologue ends after
        # `v0, v1, ... = s` or, in an action with parameters, right before the parameter loops
        # (after the guards that read no parameter: a disabled action computes none of it).
        self.prologue: int | None = None
        self.dirty: set[str] = set()
        self.once: dict[str, str] = {}
        self.loops = False  # in an action with parameters (after its leading guards)
        self.lifting = False  # generating an expression computed in the prologue
        # In an invariant, constraint or reachable check: its prologue ends after the unpacking,
        # and what a comprehension evaluates for each element but does not depend on it is
        # computed there (`comps`: how many comprehensions the code being generated is inside).
        self.predicate = False
        self.comps = 0
        # While generating a cached instance (_cache_lookup, then _cache_store): its key's name, the
        # name of the successors' count before it, and the slots and entries it writes
        self._cache_names: tuple | None = None

    def where(self, span, kind: str, detail=None) -> int:
        self.wheres.append((span, kind, detail))
        return len(self.wheres) - 1

    def emit(self, indent: int, line: str) -> None:
        self.out.append("    " * indent + line)
        self.spans.append((self.at, self.owner))

    def fresh(self) -> str:
        self.label += 1
        return f"t{self.label}"

    # ---------------------------------------------------------------- module
    def run(self) -> Generated:
        spec = self.spec
        tables_at = len(self.out)  # the keys tables are defined here, once all are known
        self.emit(0, "")
        self.emit(0, f"def {_CONSTANTS}():")
        header = len(self.out)
        names = [f"K{i}" for i in range(len(spec.constants))]
        for i, c in enumerate(spec.constants):
            self.at, self.owner = c.span, ("constant", i)
            self.emit(1, f"K{i} = {self.ex(c.value)}")
        constants_end = len(self.out)
        self.emit(1, "return [" + ", ".join(names) + "]")
        self.emit(0, "")
        self.hoisting = True
        function_code: dict[str, str] = {}  # f{i} -> its generated text
        for i, f in enumerate(spec.functions):
            self.at, self.owner = f.span, ("function", i)
            params = [f"l{p.id}" for p in f.params] + [f"v{s}" for s in self.reads[i]]
            start = len(self.out)
            self.emit(0, f"def f{i}({', '.join(params)}):")
            self.emit(1, f"return {self.ex(f.body)}")
            function_code[f"f{i}"] = "\n".join(self.out[start:])
            if not params:  # no arguments and no state: a constant, computed once
                self.emit(0, f"f{i} = _memo(f{i})")
            self.emit(0, "")
        init = self._init()
        canonical = self._canonical_keys()
        actions, next_states, with_args = [], [], []
        by_args = {t.action for fair in spec.fairness for t in fair.targets
                   if fair.some or (t.args is not None and any(x is not None for x in t.args))}
        for i, a in enumerate(spec.actions):
            if i in self.cached:  # its cache, its [hits, misses, clears], and whether it is on
                self.emit(0, f"cc{i} = {{}}")
                self.emit(0, f"cs{i} = [0, 0, 0, 1, 0]")
            actions.append(self._action(i, a))
            next_states.append(self._action(i, a, into=self.fresh()))
            with_args.append(self._action(i, a, into=self.fresh(), args_into=self.fresh()) if i in by_args else None)
        checks = {}
        for prefix, kind, preds in (("inv", "invariant", spec.invariants), ("con", "constraint", spec.constraints),
                                    ("reach", "reachable", spec.reachables)):
            checks[prefix] = tuple(self._predicate(f"{prefix}{i}", p, (kind, i)) for i, p in enumerate(preds))
        steps = tuple(self._predicate(f"step{i}", p, ("step", i), step=True) for i, p in enumerate(spec.steps))
        derived = tuple(self._predicate(f"der{i}", p, ("derived", i)) for i, p in enumerate(spec.derived))
        refinements = tuple((self._predicate(f"ref{i}", r.state, ("refinement", i)),
                             self._predicate(f"refc{i}", r.constants_expr, ("refinement", i)))
                            for i, r in enumerate(spec.refinements))
        assumptions = tuple(self._predicate(f"asm{i}", p, ("assumption", i)) for i, p in enumerate(spec.assumptions))
        entries = Entries(init, tuple(actions), tuple(next_states), checks["inv"], checks["con"], checks["reach"],
                          canonical, _CONSTANTS, steps, derived, next_states_with_args=tuple(with_args),
                          refinements=refinements, assumptions=assumptions)
        predicates: dict = {}
        domains: dict = {}
        for i, prop in enumerate(spec.properties):
            self.owner = ("property", i)
            self._formula(prop.formula, predicates, domains)
        fairness = [self._fairness(i, f) for i, f in enumerate(spec.fairness)]
        sends = []
        for i, a in enumerate(spec.actions):
            self.owner = ("action", i)
            sends.append(None if a.sends_expr is None else self._scoped_function(f"send{i}", a.sends_expr, True))
        hoisted = list(self.hoisted.values())
        # The constants and the hoisted values, each after what it reads (a constant may call a
        # `def` that reads a hoisted value, which may read an earlier constant), then the domains
        # interned in the keys tables
        lines = [(f"K{i}", line, at) for i, (line, at) in
                 enumerate(zip(self.out[header:constants_end], self.spans[header:constants_end]))]
        lines += [(name, f"    {line}", at) for name, line, at in zip(hoisted, self.hoisted_lines, self.hoisted_at)]
        lines = _in_dependency_order(lines, function_code)
        tables = [f"    {self._keys_table(t)}[{d}] = {d}"
                  for d, t in sorted(self.domain_names.items(), key=lambda item: int(item[0][1:]))]
        self.out[header:constants_end] = [line for _, line, _ in lines] + tables
        self.spans[header:constants_end] = [at for _, _, at in lines] + [None] * len(tables)
        if names or hoisted:
            self.out.insert(header, "    global " + ", ".join(names + hoisted))
            self.spans.insert(header, None)
        tables = [f"{name} = {{}}" for name in self.keys_tables.values()] + self.sort_key_lines
        self.out[tables_at:tables_at] = tables
        self.spans[tables_at:tables_at] = [None] * len(tables)
        action_writes = [frozenset(_assigned_slots(a.body)) for a in spec.actions]
        invariant_reads = [frozenset(_expr_reads(p.expr, self.reads)) for p in spec.invariants]
        return Generated("\n".join(self.out) + "\n", entries, self.wheres, [tuple(r) for r in self.reads],
                         action_writes, invariant_reads, predicates, domains, fairness, sends,
                         [None if x is None else x[0] for x in self.spans],
                         [None if x is None else x[1] for x in self.spans],
                         tuple(Cache(i, f"cc{i}", f"cs{i}") for i in sorted(self.cached)))

    def _predicate(self, name: str, p, owner: tuple, step: bool = False) -> str:
        """`{name}(s)`: the value of the state predicate `p` (an invariant, constraint or
        reachable check) or of a derived value; with `step`, `{name}(s, t)`: the value of the step property `p` on the
        step from s to t (slot n + i of its IR is variable i of t). Returns the name."""
        self.at, self.owner = p.span, owner
        reads = _expr_reads(p.expr, self.reads)
        if step:
            n = len(self.spec.variables)
            self.emit(0, f"def {name}(s, t):")
            for slot in sorted(reads):
                self.emit(1, f"v{slot} = s[{slot}]" if slot < n else f"v{slot} = t[{slot - n}]")
        else:
            self.emit(0, f"def {name}(s):")
            self._unpack(1, reads)
        self.prologue, self.dirty, self.once, self.predicate = len(self.out), set(), {}, True
        try:
            self.emit(1, f"return {self.ex(p.expr)}")
        finally:
            self.prologue, self.predicate = None, False
        self.emit(0, "")
        return name

    # ---------------------------------------------------------------- liveness support
    def _scoped_function(self, name: str, expr: ir.Expr, with_state: bool, body: str | None = None) -> tuple:
        free = sorted(_free_locals(expr), key=lambda l: l.id)
        self.at = expr.span
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
        the values of target j's fixed arguments (`*` positions left out), or with `for some`, the
        list of them for every value of its names that passes its filters in `s` (the third item of
        the target's entry says which)."""
        self.at, self.owner = fair.span, ("fairness", index)
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
            if not fair.some and (target.args is None or all(a is None for a in target.args)):
                arg_fns.append(None)
                continue
            fixed = [a for a in target.args or () if a is not None]
            name = f"fa{index}_{j}"
            params = ["s"] + [f"l{i}" for i in gen_ids]
            self.emit(0, f"def {name}({', '.join(params)}):")
            reads: set[int] = set()
            for a in [*fixed, *(x for local, domain, cond in fair.some for x in (domain, cond) if x is not None)]:
                reads |= _expr_reads(a, self.reads)
            self._unpack(1, reads)
            values = "(" + "".join(self.ex(a) + ", " for a in fixed) + ")"
            if fair.some:  # every value of the `for some` names that passes the filters, a comprehension
                loops = "".join(f" for l{local.id} in {self.domain(domain)}" + (f" if {self.ex(cond)}" if cond else "")
                                for local, domain, cond in fair.some)
                values = f"[{values}{loops}]"
            self.emit(1, f"return {values}")
            self.emit(0, "")
            positions = tuple(k for k, a in enumerate(target.args or ()) if a is not None)
            arg_fns.append((name, positions, bool(fair.some)))
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

    def _init(self) -> str:
        """`init()`: the variables' initial values in nested loops (a `for` per choice, in
        declaration order), yielding each combination that satisfies the `init:` predicate. Its
        conjuncts are tested left to right, each as soon as the variables it reads (and those the
        conjuncts before it read) have their values: a combination that fails one is abandoned
        there, before the later variables' values are computed."""
        spec = self.spec
        self.at, self.owner = None, None
        self.emit(0, "def init():")
        tests = _initial_tests(spec, self.reads)
        self._initial_tests(1, tests.get(-1, ()), False)
        indent = 1
        for i, v in enumerate(spec.variables):
            self.at, self.owner = v.span, ("variable", i)
            if v.choice:
                self.emit(indent, f"for v{i} in {self.domain(v.init)}:")
                indent += 1
            else:
                self.emit(indent, f"v{i} = {self.ex(v.init)}")
            if v.bounds:  # declared ranges and sequence bounds (assignments check theirs: ir.bound_at)
                w = self.where(v.span, "check_bounds", v.name)
                self.emit(indent, f"_check_bounds(v{i}, {self.ex(ir.bound_value(v.bounds, v.span))}, {w})")
            self._initial_tests(indent, tests.get(i, ()), indent > 1)
        self.emit(indent, f"yield {self._state_tuple()}")
        self.emit(0, "")
        return "init"

    def _initial_tests(self, indent: int, conjuncts, in_loop: bool) -> None:
        """The `init:` predicate's conjuncts due at this point of `init()`: a combination that fails
        one goes on with the next value of the innermost loop, or, before any loop, ends init()."""
        saved = self.at, self.owner
        for c in conjuncts:
            self.at, self.owner = c.span, ("initially", 0)
            self.emit(indent, f"if not {self.ex(c)}:")
            self.emit(indent + 1, "continue" if in_loop else "return")
        self.at, self.owner = saved

    def _canonical_keys(self) -> str:
        """`t0(s)`: `s` with each map variable's key tuple replaced by the interned one (a state
        that went through pickle, from another worker, gets the map fast path back)."""
        slots = [i for i, v in enumerate(self.spec.variables) if isinstance(v.type, T.MapT)]
        self.at, self.owner = None, None
        self.emit(0, "def t0(s):")
        if not slots:
            self.emit(1, "return s")
        else:
            self._unpack(1, range(len(self.spec.variables)))
            for i in slots:
                table = self._keys_table(self.spec.variables[i].type.key)
                self.emit(1, f"v{i} = ({table}.get(v{i}[0], v{i}[0]), v{i}[1])")
            self.emit(1, f"return {self._state_tuple()}")
        self.emit(0, "")
        return "t0"

    def _state_tuple(self) -> str:
        n = len(self.spec.variables)
        return "(" + ", ".join(f"v{i}" for i in range(n)) + ("," if n == 1 else "") + ")"

    # ---------------------------------------------------------------- actions
    def _action(self, index: int, action: ir.Action, into: str | None = None, args_into: str | None = None) -> str:
        """`a{index}(s)`, a generator of (args, next state); or, with `into` (a fresh name for
        the list), `n{index}(s, fp, M)`: the lists of next states in the same order and of their
        fingerprints, for the explorers' hot loop (no generator switch, no argument tuples).

        `fp` is the XOR of `s`'s per-slot hashes (fingerprints.Fingerprinter.raw), `M` and `E`
        the fingerprinter's memos of H per slot and of the entries of map slots: a successor's
        fingerprint is `fp` with the hashes of the slots the action may assign replaced
        (fingerprints.py, "Speed"), computed inline: two dict lookups per such slot, the
        parent's once per call (`base`, when the first successor is found). A map slot's hash
        is updated entry by entry where the action assigns entries by position (self.deltas:
        the change so far, None once the map is assigned otherwise, which looks it up whole).
        With `args_into` too, `w{index}(s, fp, M, E)` also returns the list of each successor's
        arguments (the fairness conditions of the behaviour graph: liveness.Fairness)."""
        self.into = into
        self.args_into = args_into
        self.at, self.owner = action.span, ("action", index)
        assigned = _assigned_slots(action.body)
        name = f"{('w' if args_into else 'n') if into else 'a'}{index}"
        self.emit(0, f"def {name}{'(s, fp, M, E)' if into else '(s)'}:")
        if into:
            maps = [i for i in sorted(assigned) if isinstance(self.spec.variables[i].type, T.MapT)]
            self.deltas = {i: self.fresh() for i in maps}
            self.fps = (self.fresh(), self.fresh(), tuple(i for i in sorted(assigned) if i not in self.deltas))
            self.emit(1, f"{into} = []")
            self.emit(1, f"{self.fps[0]} = []")
            if args_into:
                self.emit(1, f"{args_into} = []")
            if self.fps[2]:
                self.emit(1, f"{self.fps[1]} = None")
            for d in self.deltas.values():
                self.emit(1, f"{d} = 0")
        self._unpack(1, range(len(self.spec.variables)))
        self.prologue, self.dirty, self.once = len(self.out), set(), {}
        indent = 1
        body, guards, plain = self._hoist_guards(action, assigned)
        self._hoisted_guards(indent, action, -1, guards[-1], assigned, self._return())
        if action.params:
            self.prologue, self.loops = len(self.out), True
        for k, (local, domain) in enumerate(action.params):
            if k and ir.reads_state(domain, self.function_reads):
                # The body of the previous combination has run: a later parameter's set
                # must read the unchanged state, not that combination's next state.
                self._reset(indent, assigned)
            self.at = domain.span
            binder, filtered = self._binder(local, domain, guards[k] if k in plain else ())
            self.emit(indent, f"for {binder}:")
            indent += 1
            if not filtered:
                self._hoisted_guards(indent, action, k, guards[k], assigned, "continue")
        abort = "continue" if action.params else self._return()
        args = "(" + "".join(f"l{l.id}, " for l, _ in action.params) + ")"
        if action.params:
            self._reset(indent, assigned)  # every parameter value starts from the unchanged state
        if into and index in self.cached:
            lead = len(body) - len(ir.cached_part(ir.Action(action.name, action.params, tuple(body), action.span)).body)
            for st in body[:lead]:  # the leading guards: evaluated first, as without the cache
                self.at = st.span
                self.emit(indent, f"if not {self.ex(st.cond)}:")
                self.emit(indent + 1, abort)
            key = self._cache_lookup(index, action, indent, args)
            self._stmts(body[lead:], indent + 1, "continue", args)
            self._cache_store(index, action, indent, key)
        else:
            self._stmts(body, indent, abort, args)
        if into:
            self.emit(1, self._return())
        self.emit(0, "")
        self.into = self.fps = self.args_into = None
        self.deltas = {}
        self.prologue, self.loops = None, False
        for local, _ in action.params:
            self.positions.pop(local.id, None)
        return name

    def _cache_lookup(self, index: int, action: ir.Action, indent: int, args: str) -> str:
        """The transition cache of an action instance (docs/performance.md, "Transition caching"):
        its key is the parameters' values and the values it reads (ir.access: slots whole, and
        entries `m[p]`); on a hit, the successors are rebuilt from the cached effects (the
        written slots and entries) in the order they were found, their fingerprints updated
        from the parent's as the body would (the old values' hashes out, the new ones' in), and
        the instance is done; on a miss the body runs, inside a loop of one turn so that its
        aborts (`continue`) end it, then _cache_store remembers its successors. An instance that
        faults is never remembered; runtime.cache_store turns the cache off when it does not pay.
        Returns the name of the key (None when the cache is off)."""
        acc = self.cached[index]
        key, hit, effect, start, once = self.fresh(), self.fresh(), self.fresh(), self.fresh(), self.fresh()
        # the parameters the cached part reads (an instance of another value of the others does the
        # same), the slots it reads, and those it writes on some paths only (the others carry them
        # over): whole
        used = {x.local.id for x in walk(tuple(ir.cached_part(action).body)) if isinstance(x, ir.LocalRef)}
        keyed = acc.reads | (acc.writes - acc.overwrites)
        parts = [f"l{local.id}" for local, _ in action.params if local.id in used] + [f"s[{i}]" for i in sorted(keyed)]
        for slot, p in sorted(acc.read_entries.items()):
            local = action.params[p][0]
            entry = f"_cache_entry(s[{slot}], l{local.id})"
            fast = self.positions.get(local.id)
            if fast is not None:
                pos, dom = fast
                entry = f"(s[{slot}][1][{pos}] if s[{slot}][0] is {dom} else {entry})"
            parts.append(entry)
        self.emit(indent, f"{key} = None")
        self.emit(indent, f"if cs{index}[3]:")
        self.emit(indent + 1, f"{key} = ({', '.join(parts)}{',' if len(parts) == 1 else ''})")
        self.emit(indent + 1, f"{hit} = cc{index}.get({key})")
        self.emit(indent + 1, f"if {hit} is not None:")
        self.emit(indent + 2, f"cs{index}[0] += 1")
        fixed = sorted(acc.writes & keyed)  # written whole, old value in the key: in the cached change
        free = sorted(acc.writes - keyed)  # written whole by every successor, old value not read: hashed here
        entries = sorted(acc.write_entries.items())
        names = {slot: self.fresh() for slot in fixed + free + [slot for slot, _ in entries]}
        base, delta = self.fresh(), self.fresh()
        self.emit(indent + 2, f"{base} = fp" + "".join(f" ^ M[{i}][s[{i}]]" for i in free))
        self.emit(indent + 2, f"for {effect} in {hit}:")
        inner = indent + 3
        self.emit(inner, f"{', '.join([delta] + [names[slot] for slot in fixed + free + [m for m, _ in entries]])}, = {effect}")
        state = {i: f"v{i}" for i in range(len(self.spec.variables))}
        state.update({i: names[i] for i in fixed + free})
        w = self.where(action.span, "lookup", (None,))
        for slot, p in entries:
            local = action.params[p][0]
            new, value = self.fresh(), names[slot]
            self.emit(inner, f"if {value} is _SAME:")
            self.emit(inner + 1, f"{new} = v{slot}")
            fast = self.positions.get(local.id)
            if fast is not None:
                pos, dom = fast
                values = self.fresh()
                self.emit(inner, f"elif s[{slot}][0] is {dom}:")
                self.emit(inner + 1, f"{values} = [*s[{slot}][1]]")
                self.emit(inner + 1, f"{values}[{pos}] = {value}")
                self.emit(inner + 1, f"{new} = ({dom}, tuple({values}))")
            self.emit(inner, "else:")
            self.emit(inner + 1, f"{new} = _map_set(s[{slot}], l{local.id}, {value}, {w})")
            state[slot] = new
        n = len(self.spec.variables)
        self.emit(inner, f"{self.into}.append(({', '.join(state[i] for i in range(n))}{',' if n == 1 else ''}))")
        if self.args_into:
            self.emit(inner, f"{self.args_into}.append({args})")
        terms = [base, delta] + [f"M[{i}][{names[i]}]" for i in free]
        self.emit(inner, f"{self.fps[0]}.append(({' ^ '.join(terms)}) or 1)")
        self.emit(indent + 2, "continue" if action.params else self._return())
        self.emit(indent, f"{start} = len({self.into})")
        self.emit(indent, f"for {once} in (0,):")
        self._cache_names = (key, start, fixed, free, entries)
        return key

    def _cache_store(self, index: int, action: ir.Action, indent: int, key: str) -> None:
        """After an instance's body ran uncached: remember its successors' effects (runtime.cache_store)."""
        _, start, fixed, free, entries = self._cache_names

        def slots(xs) -> str:
            return "(" + "".join(f"{i}, " for i in xs) + ")"

        pairs = "(" + "".join(f"({slot}, l{action.params[p][0].id}), " for slot, p in entries) + ")"
        self.emit(indent, f"if {key} is not None:")
        self.emit(indent + 1, f"_cache_store(cc{index}, cs{index}, {key}, s, {self.into}, {start}, {slots(fixed)}, "
                              f"{slots(free)}, {pairs}, M, E)")

    def _hoist_guards(self, action: ir.Action, assigned: set[int]) -> tuple[list, dict, set]:
        """Move the action's leading `require`s out of the parameter loops they do not depend
        on (RMRcvAbortMsg's message test is the same for every rm; a PlusCal step's
        `pc[self] == "label"` is the same for every value of its other parameters): a guard goes
        right after the loop of the last parameter it reads (key -1: before every loop). A guard
        that may fault moves only out of loops over constant sets (computed once, with the
        constants: they cannot fault), and is evaluated there only if none of them is empty, so
        it faults where and when it did, before any successor of its combination; a guard reading
        a variable the action assigns reads it reset to the parent's value (a combination before
        may have assigned it: _hoisted_guards). The first guard that cannot move keeps the rest in
        place, so the order of evaluation errors is unchanged. Also returns the depths whose
        guards all cannot fault and read nothing the action assigns (`plain`: _binder may filter
        the loop's set with them)."""
        body = list(action.body)
        guards: dict[int, list] = {k: [] for k in range(-1, len(action.params))}
        if not action.params:
            return body, guards, set()
        while body and isinstance(body[0], ir.RequireS):
            cond = body[0].cond
            free = _free_locals(cond)
            depth = max((k for k, (local, _) in enumerate(action.params) if local in free), default=-1)
            if depth == len(action.params) - 1:
                break  # already where it is evaluated
            if self._may_fault(cond) and not all(self.hoisting and self._is_constant(d)
                                                 for _, d in action.params[depth + 1:]):
                break
            guards[depth].append(cond)
            body.pop(0)
        plain = {k for k, conds in guards.items()
                 if not any(self._may_fault(c) or _expr_reads(c, self.reads) & assigned for c in conds)}
        return body, guards, plain

    def _hoisted_guards(self, indent: int, action: ir.Action, depth: int, conds: list, assigned: set[int],
                        abort: str) -> None:
        """The guards _hoist_guards moved to right after the loop of parameter `depth` (-1: before
        the loops): the slots they read that the action assigns are reset first (inside a loop); a
        guard that may fault is evaluated only if the sets of the loops it left are not empty."""
        if not conds:
            return
        reads = set().union(*(_expr_reads(c, self.reads) for c in conds)) & assigned
        if depth >= 0 and reads:
            self._reset(indent, reads)
        for cond in conds:
            self.at = cond.span
            test = f"not {self.ex(cond)}"
            if self._may_fault(cond):
                inner = [self._domain_parts(d)[0] for _, d in action.params[depth + 1:]]
                self.at = cond.span
                test = " and ".join(inner + [f"({test})"])
            self.emit(indent, f"if {test}:")
            self.emit(indent + 1, abort)

    def _reset(self, indent: int, slots) -> None:
        """The assigned slots back to the state's values (and their hashes' changes to none)."""
        for slot in sorted(slots):
            self.emit(indent, f"v{slot} = s[{slot}]")
            if slot in self.deltas:
                self.emit(indent, f"{self.deltas[slot]} = 0")

    def _return(self) -> str:
        """How an action function ends: the n form returns its two lists."""
        if self.args_into:
            return f"return {self.into}, {self.fps[0]}, {self.args_into}"
        return f"return {self.into}, {self.fps[0]}" if self.into else "return"

    def _finish(self, indent: int, args: str) -> None:
        if not self.into:
            self.emit(indent, f"yield {args}, {self._state_tuple()}")
            return
        self.emit(indent, f"{self.into}.append({self._state_tuple()})")
        if self.args_into:
            self.emit(indent, f"{self.args_into}.append({args})")
        fps, base, slots = self.fps
        if slots:
            self.emit(indent, f"if {base} is None:")
            self.emit(indent + 1, f"{base} = fp" + "".join(f" ^ M[{i}][s[{i}]]" for i in slots))
        terms = [base if slots else "fp"] + [f"M[{i}][v{i}]" for i in slots]
        terms += [f"({d} if {d} is not None else M[{i}][s[{i}]] ^ M[{i}][v{i}])" for i, d in self.deltas.items()]
        self.emit(indent, f"{fps}.append(({' ^ '.join(terms)}) or 1)" if len(terms) > 1 else f"{fps}.append(fp or 1)")

    def _stmts(self, stmts: list, indent: int, abort: str, args: str) -> None:
        for i, st in enumerate(stmts):
            self.at = st.span
            rest = stmts[i + 1:]
            if isinstance(st, ir.RequireS):
                self.emit(indent, f"if not {self.ex(st.cond)}:")
                self.emit(indent + 1, abort)
            elif isinstance(st, ir.LetS):
                self.emit(indent, f"l{st.local.id} = {self.ex(st.value)}")
            elif isinstance(st, ir.AssignS):
                self._assign(st, indent)
            elif isinstance(st, ir.IfS) and not _nondeterministic(st):
                self._if(st, indent, abort, args, tail=None)
            elif isinstance(st, ir.IfS):
                self._if(st, indent, abort, args, tail=rest)
                return
            elif isinstance(st, ir.EitherS):
                self._either(st, rest, indent, args)
                return
            elif isinstance(st, ir.WithS):
                self._with(st, rest, indent, args)
                return
            else:  # pragma: no cover
                raise AssertionError(st)
        self._finish(indent, args)

    def _if(self, st: ir.IfS, indent: int, abort: str, args: str, tail) -> None:
        """A deterministic `if` (tail None: the rest follows it) or one containing choices
        (the rest is emitted inside every branch)."""
        def body(stmts):
            if tail is None:
                self._plain(list(stmts), indent + 1, abort)
            else:
                self._stmts(list(stmts) + tail, indent + 1, abort, args)

        if not st.branches:
            if tail is not None:
                self._stmts(list(tail), indent, abort, args)
            return
        for n, (cond, stmts) in enumerate(st.branches):
            self.emit(indent, f"{'if' if n == 0 else 'elif'} {self.ex(cond)}:")
            body(stmts)
        if st.orelse or tail is not None:
            self.emit(indent, "else:")
            body(st.orelse)

    def _plain(self, stmts: list, indent: int, abort: str) -> None:
        """Deterministic statements with no final yield (inside a deterministic `if`)."""
        before = len(self.out)
        self._plain_body(stmts, indent, abort)
        if len(self.out) == before:  # only `skip`s
            self.emit(indent, "pass")

    def _plain_body(self, stmts: list, indent: int, abort: str) -> None:
        for st in stmts:
            self.at = st.span
            if isinstance(st, ir.RequireS):
                self.emit(indent, f"if not {self.ex(st.cond)}:")
                self.emit(indent + 1, abort)
            elif isinstance(st, ir.LetS):
                self.emit(indent, f"l{st.local.id} = {self.ex(st.value)}")
            elif isinstance(st, ir.AssignS):
                self._assign(st, indent)
            elif isinstance(st, ir.IfS):
                self._if(st, indent, abort, "", tail=None)
            else:  # pragma: no cover
                raise AssertionError(st)

    def _save_restore(self, rest_stmts: list, indent: int) -> tuple[str, list[str]]:
        slots = sorted(_assigned_slots(rest_stmts))
        if not slots:
            return "", []
        names = [f"v{s}" for s in slots] + [self.deltas[s] for s in slots if s in self.deltas]
        names = ", ".join(names) + ("," if len(names) == 1 else "")
        saved = self.fresh()
        self.emit(indent, f"{saved} = ({names})")
        return saved, [f"{names} = {saved}"]

    def _either(self, st: ir.EitherS, rest: list, indent: int, args: str) -> None:
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
                self._stmts(list(branch) + rest, indent + 2, "continue", args)
        if deterministic:
            self._stmts(rest, indent + 1, "continue", args)

    def _with(self, st: ir.WithS, rest: list, indent: int, args: str) -> None:
        """`with a in S, b in T:` as nested loops. Each choice starts from the values before the
        `with`, restored in every loop: a later binder's set (T may read the state and `a`) is
        evaluated in the state the `with` began in, not after the previous choice's statements."""
        saved, restore = self._save_restore(list(st.body) + rest, indent)
        for local, domain in st.binders:
            self.emit(indent, f"for {self._binder(local, domain)[0]}:")
            indent += 1
            for line in restore:
                self.emit(indent, line)
        self._stmts(list(st.body) + rest, indent, "continue", args)
        for local, _ in st.binders:
            self.positions.pop(local.id, None)

    def _assign(self, st: ir.AssignS, indent: int) -> None:
        """`v = e`, `v[k] = e`, `v.f[k] = e`, ... as statements. A map entry read by position is
        replaced in a list copy of the value tuple: one copy and one tuple instead of two slices
        and two concatenations (flags_16: 10% of the search's time)."""
        current, steps = f"v{st.slot}", st.steps
        fast = self._position(steps[0].index, current) if steps and steps[0].kind == "map" else None
        delta = self.deltas.get(st.slot)
        if fast is None:
            if delta is not None and steps and steps[0].kind == "map":
                self._assign_entry(st, indent, delta)
            else:
                self.emit(indent, f"{current} = {self._update(current, steps, st.value)}")
                if delta is not None:  # its hash: looked up whole in the fingerprint
                    self.emit(indent, f"{delta} = None")
            self.dirty.add(current)
            return
        pos, dom = fast
        old = self._values_of(current)
        self.canonical.add((current, dom))
        try:
            inner = self._update(f"{old}[{pos}]", steps[1:], st.value)
        finally:
            self.canonical.discard((current, dom))
        values = self.fresh()
        self.emit(indent, f"if {self._keys_are(current, dom)}:")
        self.emit(indent + 1, f"{values} = [*{old}]")
        self.emit(indent + 1, f"{values}[{pos}] = {inner}")
        if delta is not None:  # one entry changed: its hash's change (`old` may read `current`: first)
            key = self.ex(steps[0].index)
            self.emit(indent + 1, f"if {delta} is not None:")
            self.emit(indent + 2, f"{delta} ^= E[{st.slot}][({key}, {old}[{pos}])] ^ E[{st.slot}][({key}, {values}[{pos}])]")
        self.emit(indent + 1, f"{current} = ({dom}, tuple({values}))")
        self.emit(indent, "else:")
        if delta is not None:
            self._assign_entry(st, indent + 1, delta)
        else:
            self.emit(indent + 1, f"{current} = {self._update_by_key(current, steps[0], steps[1:], st.value)}")
        self.dirty.add(current)

    def _assign_entry(self, st: ir.AssignS, indent: int, delta: str) -> None:
        """`m[k] = e` or `m[k]... = e` for a map slot whose hash's change is tracked (`delta`), by
        key: the old and new values of the entry update the change. Evaluated in the order of
        the expression _update_by_key builds (the key, then for `m[k] = e` the value and the
        lookup, for a longer path the lookup first), so errors come in the same order in the
        generator form, which uses that expression."""
        current, step, more = f"v{st.slot}", st.steps[0], st.steps[1:]
        key, old, new = self.fresh(), self.fresh(), self.fresh()
        w = self.where(step.span, "lookup", (step.container,))
        self.emit(indent, f"{key} = {self.ex(step.index)}")
        if more:
            self.emit(indent, f"{old} = _lookup({current}, {key}, {w})")
            self.emit(indent, f"{new} = {self._update(old, more, st.value)}")
            self.emit(indent, f"{current} = _map_set({current}, {key}, {new}, {w})")
        else:
            self.emit(indent, f"{new} = {self.ex(st.value)}")
            self.emit(indent, f"{current}, {old} = _map_update({current}, {key}, {new}, {w})")
        self.emit(indent, f"if {delta} is not None:")
        self.emit(indent + 1, f"{delta} ^= E[{st.slot}][({key}, {old})] ^ E[{st.slot}][({key}, {new})]")

    def _keys_are(self, m: str, dom: str) -> str:
        """The test "map `m`'s key tuple is the interned domain `dom`". For a variable not yet
        assigned in this action it is the same for every parameter value and choice: computed
        once, in the action's prologue."""
        test = f"{m}[0] is {dom} or {m}[0] == {dom}"
        return self._once(test) if self._unassigned(m) else test

    def _values_of(self, m: str) -> str:
        """The value tuple of map `m`: for a variable not assigned yet in this action, read once,
        in the prologue (every parameter value and choice reads the same tuple)."""
        return self._once(f"{m}[1]") if self._unassigned(m) else f"{m}[1]"

    def _unassigned(self, m: str) -> bool:
        """Whether `m` is a state variable this action has not assigned before this point."""
        return self.prologue is not None and m not in self.dirty and _SIMPLE_NAME.match(m) and m.startswith("v")

    def _once(self, code: str) -> str:
        """A name for `code`, computed once per action call, in the prologue."""
        name = self.once.get(code)
        if name is None:
            name = self.once[code] = self.fresh()
            self.out.insert(self.prologue, f"    {name} = {code}")
            self.spans.insert(self.prologue, (self.at, self.owner))
            self.prologue += 1
        return name

    def _update(self, current: str, steps, value: ir.Expr) -> str:
        """The expression for `current` with the value at the end of `steps` replaced."""
        if not steps:
            return self.ex(value)
        step, more = steps[0], steps[1:]
        if step.kind == "field":
            inner = self._update(f"{current}[{step.index}]", more, value)
            return f"_put({current}, {step.index}, {inner})"
        fast = self._position(step.index, current) if step.kind == "map" else None
        if fast is not None:
            pos, dom = fast
            self.canonical.add((current, dom))
            try:
                inner = self._update(f"{current}[1][{pos}]", more, value) if more else self.ex(value)
            finally:
                self.canonical.discard((current, dom))
            slow = self._update_by_key(current, step, more, value)
            return (f"(({dom}, {current}[1][:{pos}] + ({inner},) + {current}[1][{pos} + 1:]) "
                    f"if {self._keys_are(current, dom)} else {slow})")
        return self._update_by_key(current, step, more, value)

    def _update_by_key(self, current: str, step, more, value: ir.Expr) -> str:
        key = self.ex(step.index)
        w = self.where(step.span, "lookup" if step.kind == "map" else "at", (step.container,))
        if more:
            k = self.fresh()
            getter = "_lookup" if step.kind == "map" else "_at"
            inner = self._update(f"{getter}({current}, {k}, {w})", more, value)
            setter = "_map_set" if step.kind == "map" else "_seq_set"
            return f"(lambda {k}: {setter}({current}, {k}, {inner}, {w}))({key})"
        setter = "_map_set" if step.kind == "map" else "_seq_set"
        return f"{setter}({current}, {key}, {self.ex(value)}, {w})"

    # ---------------------------------------------------------------- expressions
    def _keys_table(self, key: T.Type) -> str:
        """The name of the table interning key tuples of maps with keys of type `key`."""
        name = self.keys_tables.get(key)
        if name is None:
            name = self.keys_tables[key] = self.fresh()
        return name

    def domain(self, e: ir.Expr) -> str:
        """A set expression, iterated in canonical order (a hoisted tuple when it is constant)."""
        code, elements = self._domain_parts(e)
        return code if elements is None else code.format(elements)

    def _domain_parts(self, e: ir.Expr) -> tuple[str, str | None]:
        """domain(e) as (code, None) for a set in order already or computed once (hoisted,
        memoised, lifted, a range), or as (`sorted({}, key=...)`, the set's code) for a set put
        in canonical order where it is iterated, whose elements may then be filtered first
        (_binder)."""
        assert isinstance(e.type, T.SetT)
        key = self._sort_key(e.type.element)
        order = "sorted({})" if key is None else f"sorted({{}}, key={key})"
        option = isinstance(e.type.element, T.OptionT) and T.naturally_ordered(e.type.element.inner)
        if option:
            order = "_sorted_option({})"  # no key to compute: `none` first, then the others' own order
        if self.hoisting and self._is_constant(e):
            name = self._hoist(lambda: f"_keys_tuple(tuple({order.format(self._ex(e))}))")
            self.domain_names[name] = e.type.element
            return name, None
        if self.hoisting and self._lazy_constant(e):
            return self._hoist(lambda: f"_memo(lambda: tuple({order.format(self._ex(e))}))") + "()", None
        if isinstance(e, ir.Prim) and e.op == "range":  # in order already, and not built
            lo, hi = (self.ex(a) for a in e.args)
            return f"_range_domain({lo}, {hi}, {self.where(e.span, e.op, None)})", None
        if self._liftable(e):  # mailboxes_3's `elems(inbox)`, sorted once per check, not per client
            return self._lifted(lambda: order.format(self._ex(e))), None
        if option:  # (_sorted_option takes the set itself)
            return order.format(self.ex(e)), None
        return order, self.ex(e)

    def _sort_key(self, t: T.Type) -> str | None:
        """The name of a generated function from the values of type `t` to keys that order them
        as runtime.canon_key does (the canonical order), or None when `t` is naturally ordered
        (its values are their own keys). canon_key tags every value with its kind and recurses
        through the value in Python; knowing the type, most of that is not needed."""
        if T.naturally_ordered(t):
            return None
        name = self.sort_keys.get(t)
        if name is None:
            name = self.sort_keys[t] = f"ck{len(self.sort_keys)}"
            x = self.fresh()
            self.sort_key_lines.append(f"def {name}({x}): return {_key_code(t, x, self._sort_key)}")
        return name

    def _binder(self, local: ir.Local, domain: ir.Expr, conds: list = ()) -> tuple[str, bool]:
        """`l3 in D`, or `t7, l3 in enumerate(D)` for a map key ranging over a hoisted domain;
        and whether `conds` are in it: `l3 in sorted([l3 for l3 in D if G], key=...)` where D is
        put in canonical order per state, which then sorts only what passes G, in the same order
        (MultiPaxos's HandleAccept sorted every message to keep the accepts). `conds`: a
        parameter's guards, which _hoist_guards placed right after its loop (they cannot fault
        and read no variable the action assigns); where they are not in the binder, the loop
        tests them."""
        code, elements = self._domain_parts(domain)
        name = f"l{local.id}"
        if elements is not None and conds:
            tests = []
            for cond in conds:
                self.at = cond.span
                tests.append(self.ex(cond))
            self.at = domain.span
            listed = f"[{name} for {name} in {elements} if {' and '.join(tests)}]"
            return f"{name} in {code.format(listed)}", True
        d = code if elements is None else code.format(elements)
        if local.id in self.keyed and d in self.domain_names:
            pos = self.fresh()
            self.positions[local.id] = (pos, d)
            return f"{pos}, {name} in enumerate({d})", False
        return f"{name} in {d}", False

    def _position(self, key: ir.Expr, current: str) -> tuple[str, str] | None:
        """(position name, domain name) when map `current[key]` can be read by position."""
        if isinstance(key, ir.LocalRef) and key.local.id in self.positions and _SIMPLE_NAME.match(current):
            return self.positions[key.local.id]
        return None

    def _is_constant(self, e: ir.Expr) -> bool:
        known = self.constant.get(id(e))
        if known is None:
            known = _static(e, self.function_reads) and not self._may_fault(e)
            self.constant[id(e)] = known
        return known

    def _hoist(self, generate) -> str:
        """The name of a module global computed once in `_constants()` by the code `generate()` returns."""
        self.hoisting = False
        try:
            code = generate()
        finally:
            self.hoisting = True
        name = self.hoisted.get(code)
        if name is None:
            name = self.fresh()
            self.hoisted[code] = name
            self.hoisted_lines.append(f"{name} = {code}")
            self.hoisted_at.append((self.at, self.owner))
        return name

    def ex(self, e: ir.Expr) -> str:
        if self.hoisting and not isinstance(e, _TRIVIAL) and self._is_constant(e):
            return self._hoist(lambda: self._ex(e))
        if self.hoisting and self._lazy_constant(e):
            return self._hoist(lambda: f"_memo(lambda: {self._ex(e)})") + "()"
        if self._liftable(e):
            return self._lifted(lambda: self._ex(e))  # flags_16: `(shared + 1) % 7` once per state
        return self._ex(e)

    def _lazy_constant(self, e: ir.Expr) -> bool:
        """Whether `e` is computed once, when first needed (a `_memo` of it): it reads no state
        and no bound name, but may fault, so it cannot be computed with the constants, and it
        builds something (a comprehension, a call, a set of subsets or maps), so the call of the
        memo costs less than computing it again. A fault is not memoised: every evaluation
        raises it again, as the expression would (SimpleRegular's `powerset({0, 1}) - {{}}`)."""
        return not _cheap(e) and _static(e, self.function_reads)

    def _may_fault(self, e: ir.Expr) -> bool:
        return _may_fault(e, self.function_reads, self.faulting)

    def _liftable(self, e: ir.Expr) -> bool:
        """Whether `e` is to be computed once, in the prologue: inside an action's parameter
        loops or a predicate's comprehensions, and the same for every parameter value, choice and
        element (_loop_invariant)."""
        return ((self.loops or (self.predicate and self.comps)) and self.hoisting and not self.lifting
                and not isinstance(e, _TRIVIAL) and self._loop_invariant(e))

    def _lifted(self, generate) -> str:
        """The name of the code `generate()` returns (as a whole), computed in the prologue."""
        self.lifting = True
        try:
            code = generate()
        finally:
            self.lifting = False
        return self._once(code)

    def _loop_invariant(self, e: ir.Expr) -> bool:
        """Whether `e`, inside an action's parameter loops, has the same value for every
        parameter value and choice, and may be computed before the loops: it reads no bound name
        and no variable assigned so far, and cannot fault (so evaluating it once, early, is not
        observable). Cheap expressions only: one that builds a collection from a range or by a
        comprehension could cost more, computed for a call where no parameter passes its guards,
        than it saves."""
        if _free_locals(e) or not _cheap(e):
            return False
        dirty = {int(m[1:]) for m in self.dirty}
        return not (_expr_reads(e, self.reads) & dirty) and not self._may_fault(e)

    def _ex(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Lit):
            if e.value is None or isinstance(e.value, (bool, int)):
                return repr(e.value)
            return "NONE"
        if isinstance(e, ir.VarRef):
            return f"v{e.slot}"
        if isinstance(e, ir.ConstRef):
            return f"K{e.index}"
        if isinstance(e, ir.LocalRef):
            return self.substitutes.get(e.local.id) or f"l{e.local.id}"
        if isinstance(e, ir.Prim):
            return self._prim(e)
        if isinstance(e, ir.IfE):
            return f"({self.ex(e.then)} if {self.ex(e.cond)} else {self.ex(e.orelse)})"
        if isinstance(e, ir.LetE) and _duplicable(e.value):
            # a name, a literal or a part of one: written where it is used, with no function call
            self.substitutes[e.local.id] = self.ex(e.value)
            try:
                return self.ex(e.body)
            finally:
                del self.substitutes[e.local.id]
        if isinstance(e, ir.LetE):
            return f"(lambda l{e.local.id}: {self.ex(e.body)})({self.ex(e.value)})"
        if isinstance(e, ir.CallDef) and e.index in self.inlined:
            inline = self._inline(e)
            if inline is not None:
                return inline
        if isinstance(e, ir.CallDef):
            args = [self.ex(a) for a in e.args] + [f"v{s + e.shift}" for s in self.reads[e.index]]
            return f"f{e.index}({', '.join(args)})"
        if isinstance(e, ir.Build):
            return self._build(e)
        if isinstance(e, ir.Comp):
            return self._comp(e)
        raise AssertionError(e)  # pragma: no cover

    def _inline(self, e: ir.CallDef) -> str | None:
        """The body of the small `def` that `e` calls (_inlined_functions), with its parameters
        replaced by the arguments' code, when that computes what the call does: each argument is
        _duplicable, or cannot fault and is used once at most (the body has no comprehension, so
        it is then evaluated once at most). Otherwise None (a call)."""
        f = self.spec.functions[e.index]
        uses = [sum(isinstance(x, ir.LocalRef) and x.local == p for x in walk(f.body)) for p in f.params]
        if not all(_duplicable(a) or (n <= 1 and not self._may_fault(a)) for a, n in zip(e.args, uses)):
            return None
        saved = self.substitutes
        self.substitutes = saved | {p.id: self.ex(a) for p, a in zip(f.params, e.args)}
        try:
            return self.ex(f.body)
        finally:
            self.substitutes = saved

    def _member(self, x: str, s: ir.Expr) -> str:
        """Code for `x in s` that builds no set of maps, subsets or range, however nested: `x in
        maps(D, maps(E, R))` tests each value of x against maps(E, R) as it tests x against the
        outer set (TLC decides membership in [D -> [E -> R]] so too). `x` is evaluated once."""
        if not _lazy_set(s):
            return f"({x} in {self.ex(s)})"
        if s.op == "range":
            lo, hi = (self.ex(a) for a in s.args)
            return f"({lo} <= {x} <= {hi})"
        inner = s.args[1] if s.op == "maps" else s.args[0]
        if s.op == "maps" and not _lazy_set(inner):
            return f"_in_maps({x}, {self.ex(s.args[0])}, {self.ex(inner)})"
        if s.op == "powerset" and not _lazy_set(inner):
            return f"({x} <= {self.ex(inner)})"
        v = self.fresh()
        test = f"lambda {v}: {self._member(v, inner)}"
        if s.op == "maps":
            return f"_in_maps_where({x}, {self.ex(s.args[0])}, {test})"
        return f"_in_powerset_where({x}, {test})"

    def _prim(self, e: ir.Prim) -> str:
        if (e.op in ("eq", "ne") and isinstance(e.args[0], ir.Prim) and e.args[0].op == "domain"
                and self.hoisting and self._is_constant(e.args[1])):
            # domain(m) == S: true at once when m's key tuple is S's canonical tuple (interned).
            m = self.ex(e.args[0].args[0])
            if _SIMPLE_NAME.match(m):
                test = f"({m}[0] is {self.domain(e.args[1])} or frozenset({m}[0]) == {self.ex(e.args[1])})"
                return test if e.op == "eq" else f"(not {test})"
        if e.op in ("eq", "ne") and any(_is_none(a) for a in e.args):
            # `none` is a singleton (also after pickling) that equals nothing else: a test by
            # identity instead of an equality that asks both sides' __eq__ before giving up
            other = self.ex(e.args[1] if _is_none(e.args[0]) else e.args[0])
            return f"({other} {'is' if e.op == 'eq' else 'is not'} NONE)"
        if e.op in ("in", "notin") and _lazy_set(e.args[1]) and e.args[1].op != "range":
            # Membership in [D -> R] or SUBSET S is decided without building the set, at any depth.
            test = self._member(self.ex(e.args[0]), e.args[1])
            return test if e.op == "in" else f"(not {test})"
        if e.op in ("in", "notin") and isinstance(e.args[1], ir.Prim) and e.args[1].op == "range":
            # x in a..b is a comparison: the range is not built, whatever its size
            lo, hi = (self.ex(a) for a in e.args[1].args)
            test = f"({lo} <= {self.ex(e.args[0])} <= {hi})"
            return test if e.op == "in" else f"(not {test})"
        if e.op == "enabled" and e.args:  # with arguments: a step of the action with those
            return f"_enabled_with(a{e.info[0]}, s, ({', '.join(self.ex(x) for x in e.args)},))"
        if e.op == "enabled":  # the action's successors from the state `s`, until the first
            return f"_enabled(a{e.info[0]}, s)"
        if e.op == "step_of":  # in a step property (s, t): t among the action's successors of s
            given = f"({', '.join(self.ex(x) for x in e.args)},)" if e.args else "None"
            return f"_step_of(a{e.info[0]}, s, t, {given})"
        args = [self.ex(a) for a in e.args]
        if e.op == "range":
            return f"_int_range({args[0]}, {args[1]}, {self.where(e.span, e.op, None)})"
        if e.op == "mul" and not any(_static(a, self.function_reads) for a in e.args):
            return f"_mul({args[0]}, {args[1]}, {self.where(e.span, e.op, None)})"
        if e.op == "item":
            return f"{args[0]}[{e.info}]"
        if e.op in _INFIX:
            return _INFIX[e.op].format(*args)
        if e.op in ("div", "mod") and _nonzero_int(e.args[1]):
            return f"({args[0]} {'//' if e.op == 'div' else '%'} {args[1]})"
        if e.op == "check_bounds":  # a value assigned to a bounded variable; info: the target's text
            return f"_check_bounds({args[0]}, {args[1]}, {self.where(e.span, e.op, e.info)})"
        if e.op in _FAULTING:
            w = self.where(e.span, e.op, tuple(a.type for a in e.args))
            fast = self._position(e.args[1], args[0]) if e.op == "lookup" else None
            if fast is not None:
                pos, dom = fast
                m = args[0]
                if (m, dom) in self.canonical:  # inside the fast branch of an update of this map
                    return f"{self._values_of(m)}[{pos}]"
                return f"({self._values_of(m)}[{pos}] if {self._keys_are(m, dom)} else _lookup({m}, {args[1]}, {w}))"
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
            return (f"_mkmap(({pairs}{',' if pairs else ''}), {T.naturally_ordered(e.type.key)}, {w}, "
                    f"{self._keys_table(e.type.key)})")
        raise AssertionError(e.kind)  # pragma: no cover

    def _comp(self, e: ir.Comp) -> str:
        # Which element is met first matters only to a choice, a sequence, or to what may fault for
        # one element (then the canonical order decides which fault is reported). The first
        # generator's set is evaluated once, before any element.
        per_element = [d for _, d in e.generators[1:]] + [x for x in (e.cond, e.key, e.body) if x is not None]
        faults = any(map(self._may_fault, per_element))
        if (faults and e.kind in ("set", "sum") and not self.retrying
                and not all(self.hoisting and self._is_constant(d) for _, d in e.generators)):
            # A set or a sum is the same in every order when no element faults: iterate as the
            # sets lie, and only after a fault again in canonical order, to report the first one.
            self.retrying = True
            try:
                return f"_retry_canonical(lambda: {self._loops(e, False)}, lambda: {self._loops(e, True)})"
            finally:
                self.retrying = False
        return self._loops(e, e.kind in ("choose", "seq", "map") or faults)

    def _loops(self, e: ir.Comp, canonical: bool) -> str:
        """The comprehension `e`, its sets iterated in canonical order or as they lie."""
        loops = []
        outside = self.comps
        try:
            for n, (local, dom) in enumerate(e.generators):
                self.comps = outside + (n > 0)  # a later generator's set: once per earlier element
                if canonical or (local.id in self.keyed and self.hoisting and self._is_constant(dom)):
                    loops.append(f"for {self._binder(local, dom)[0]}")
                else:
                    loops.append(f"for l{local.id} in {self.ex(dom)}")
            self.comps = outside + 1
            return self._comp_body(e, " ".join(loops))
        finally:
            self.comps = outside
            for local, _ in e.generators:
                self.positions.pop(local.id, None)

    def _comp_body(self, e: ir.Comp, gen: str) -> str:
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
            natural = T.naturally_ordered(e.type.key)
            return f"_mkmap((({self.ex(e.key)}, {body}) {gen}), {natural}, {w}, {self._keys_table(e.type.key)})"
        if e.kind == "seq":
            return f"tuple({body} {gen})"
        if e.kind == "choose":
            w = self.where(e.span, "choose", None)
            return f"_choose(({body} {gen}), {w})"
        raise AssertionError(e.kind)  # pragma: no cover


# ---------------------------------------------------------------- analyses

_TRIVIAL = (ir.Lit, ir.ConstRef, ir.VarRef, ir.LocalRef)  # never worth hoisting
_SIMPLE_NAME = re.compile(r"[vl]\d+$")  # a state slot or bound name: safe to evaluate twice
_GLOBAL_NAME = re.compile(r"\b[Ktf]\d+\b")  # a constant, a hoisted value or a `def`, in generated code


def _in_dependency_order(lines: list[tuple[str, str, object]], functions: dict[str, str]) -> list:
    """The lines of `_constants()`, each (the name it defines, its code, its span), in the order
    given except that each comes after the lines defining what it reads: directly, or through the
    `def`s it calls and those they call (`functions`: their generated text, by name). The typecheck
    guarantees an order exists (E111: a constant depends only on earlier ones)."""
    defined = {name for name, _, _ in lines}
    reads = {f: set(_GLOBAL_NAME.findall(code)) for f, code in functions.items()}
    closure: dict[str, set] = {}

    def through(f: str) -> set:  # the lines' names f reads, through the defs it calls too
        found = closure.get(f)
        if found is None:
            found = closure[f] = set()
            seen, todo = {f}, [f]
            while todo:
                for x in reads.get(todo.pop(), ()):
                    if x in reads and x not in seen:
                        seen.add(x)
                        todo.append(x)
                    elif x in defined:
                        found.add(x)
        return found

    by_name = {name: (name, code, at) for name, code, at in lines}
    position = {name: i for i, name in enumerate(by_name)}
    out: list = []
    placed: set[str] = set()

    def place(name: str) -> None:
        if name in placed:
            return
        placed.add(name)  # (before its dependencies: a cycle, which E111 excludes, ends here)
        _, code, _ = by_name[name]
        needs = set()
        for x in _GLOBAL_NAME.findall(code):
            needs |= through(x) if x in reads else {x} if x in defined else set()
        for x in sorted(needs - {name}, key=position.__getitem__):
            place(x)
        out.append(by_name[name])

    for name, _, _ in lines:
        place(name)
    return out


def _key_code(t: T.Type, x: str, sort_key) -> str:
    """Code for the canonical sort key of the value `x` (code without side effects, which may be
    evaluated twice) of type `t`: keys of values of one type compare as runtime.canon_key's do.
    Within one type canon_key's tags are equal and can go: a naturally ordered value is its own
    key, `none` in an option of a scalar is -infinity (below every int, bool and member; equal only
    to itself) and in an option of a map, tuple or record the empty tuple (below their keys, which
    are tuples of one item or more), a tuple or record is the tuple of its parts' keys, a set the
    sorted tuple of its elements' keys. `sort_key(t)` names the key function of another type
    (None: natural)."""
    if T.naturally_ordered(t):
        return x
    if isinstance(t, T.OptionT):
        if isinstance(t.inner, (T.BoolT, T.IntT, T.SortT)):
            return f"(_NINF if {x} is NONE else {x})"
        if isinstance(t.inner, T.MapT) or (isinstance(t.inner, (T.TupleT, T.RecordT)) and _parts(t.inner)):
            # a map's, tuple's or record's key is a tuple of one item or more: `none` is ()
            return f"(() if {x} is NONE else {_key_code(t.inner, x, sort_key)})"
        return f"((0,) if {x} is NONE else (1, {_key_code(t.inner, x, sort_key)}))"
    if isinstance(t, (T.TupleT, T.RecordT)):
        keys = [_key_code(p, f"{x}[{i}]", sort_key) for i, p in enumerate(_parts(t))]
        return f"({', '.join(keys)}{',' if len(keys) == 1 else ''})"
    if isinstance(t, T.SeqT):
        return f"tuple(map({sort_key(t.element)}, {x}))"
    if isinstance(t, T.SetT):
        key = sort_key(t.element)
        return f"tuple(sorted({x}))" if key is None else f"tuple(sorted(map({key}, {x})))"
    if isinstance(t, T.MapT):
        return f"({_key_code(T.SeqT(t.key), f'{x}[0]', sort_key)}, {_key_code(T.SeqT(t.value), f'{x}[1]', sort_key)})"
    return f"_canon_key({x})"  # AnyT: the elements of an empty literal's type


def _parts(t: T.TupleT | T.RecordT) -> list[T.Type]:
    return list(t.elements) if isinstance(t, T.TupleT) else [f for _, f in t.fields]


def _duplicable(e: ir.Expr) -> bool:
    """Whether `e` is a name, a literal or a part of one (a field, an item): code that cannot fault,
    costs less than a call, and may be evaluated where it is used, as often as it is."""
    if isinstance(e, ir.Prim) and e.op in ("item", "unwrap"):
        return _duplicable(e.args[0])
    return isinstance(e, _TRIVIAL)


def _is_none(e: ir.Expr) -> bool:
    return isinstance(e, ir.Lit) and e.value is NONE


def _nonzero_int(e: ir.Expr) -> bool:
    return isinstance(e, ir.Lit) and type(e.value) is int and e.value != 0


def _keyed_locals(spec: ir.Spec) -> set[int]:
    """Ids of the bound names used directly as a map key (`m[k]` read or `m[k] = v` written)."""
    out: set[int] = set()
    exprs = [d for a in spec.actions for _, d in a.params]
    for a in spec.actions:
        for st in ir.statements(a.body):
            exprs += ir.stmt_exprs(st)
            if isinstance(st, ir.AssignS):
                out.update(s.index.local.id for s in st.steps if s.kind == "map" and isinstance(s.index, ir.LocalRef))
    exprs += [f.body for f in spec.functions] + [p.expr for p in (*spec.invariants, *spec.constraints, *spec.reachables,
                                                                  *spec.steps, *spec.derived,
                                                                  *(r.state for r in spec.refinements))]
    for e in exprs:
        for x in walk(e):
            if isinstance(x, ir.Prim) and x.op == "lookup" and isinstance(x.args[1], ir.LocalRef):
                out.add(x.args[1].local.id)
    return out


def _free_locals(e: ir.Expr) -> set:
    """Locals referenced in `e` but bound outside it."""
    refs: set = set()
    bound: set = set()
    for x in walk(e):
        if isinstance(x, ir.LocalRef):
            refs.add(x.local)
        elif isinstance(x, ir.Comp):
            bound.update(l for l, _ in x.generators)
        elif isinstance(x, ir.LetE):
            bound.add(x.local)
    return refs - bound


def _static(e: ir.Expr, function_reads) -> bool:
    """Whether `e` reads neither the state (through calls too: ir.function_reads's table) nor a
    bound name: the same value on every state."""
    return not ir.reads_state(e, function_reads) and not _free_locals(e)


def _calls(f: ir.Function) -> set[int]:
    return {x.index for x in walk(f.body) if isinstance(x, ir.CallDef)}


def _recursive_functions(functions) -> frozenset[int]:
    """The functions that call themselves, directly or through others."""
    calls = [_calls(f) for f in functions]
    reached = [set(c) for c in calls]
    changed = True
    while changed:  # the transitive closure of the call graph
        changed = False
        for r in reached:
            more = set().union(*(calls[j] for j in r)) - r
            if more:
                r |= more
                changed = True
    return frozenset(i for i, r in enumerate(reached) if i in r)


# The most expression nodes a `def` written where it is called may have, those of the defs it calls
# in turn included: a call costs about as much as evaluating a few nodes, and the code grows.
INLINE_NODES = 16


def _inlined_functions(functions, function_reads, recursive: frozenset[int]) -> frozenset[int]:
    """The `def`s whose calls are written as their body (CodeGen._inline): not recursive, with
    parameters, reading no state (their body means the same wherever it is written), with no
    comprehension nor anything that may build a large collection but in what reads no parameter
    (computed once: a name), and of INLINE_NODES nodes at most, counting the inlined defs they call."""
    sizes: dict[int, int | None] = {}

    def nodes(x: ir.Expr) -> int | None:
        if not isinstance(x, _TRIVIAL) and _static(x, function_reads):
            return 1  # computed once, with the constants or when first needed: one name
        if isinstance(x, ir.Comp) or (isinstance(x, ir.Prim) and x.op in _BUILDERS):
            return None
        inner = [nodes(c) for c in x.children()]
        if None in inner:
            return None
        return sum(inner) + ((size(x.index) or 1) if isinstance(x, ir.CallDef) else 1)

    def size(i: int) -> int | None:
        if i not in sizes:
            f = functions[i]
            sizes[i] = None  # not recursive, so never read before it is set below
            if i in recursive or not f.params or function_reads[i][0]:
                return None
            total = nodes(f.body)
            sizes[i] = total if total is not None and total <= INLINE_NODES else None
        return sizes[i]

    return frozenset(i for i in range(len(functions)) if size(i) is not None)


def _faulting_functions(functions, function_reads, recursive: frozenset[int]) -> frozenset[int]:
    """The functions whose call may fail: those whose body may fault (through calls too), and
    every recursive one (E406 when it recurses too deep)."""
    faulting = set(recursive)
    changed = True
    while changed:  # the others are not recursive: a call faults when the body it runs may
        changed = False
        for i, f in enumerate(functions):
            if i not in faulting and _may_fault(f.body, function_reads, faulting):
                faulting.add(i)
                changed = True
    return frozenset(faulting)


def _may_fault(e: ir.Expr, function_reads, faulting: frozenset[int]) -> bool:
    """Whether evaluating `e` can raise a Fault (then comprehensions iterate canonically,
    so which element faults first does not depend on set layout), a RecursionError included.
    `faulting`: the functions whose call may (_faulting_functions). A range with static bounds
    and a product with a static factor do not count: the first is computed once, with the
    constants (its E408 is reported then), and the second grows by a bounded size per step."""
    return any(_faults_itself(x, function_reads, faulting) for x in walk(e))


def _faults_itself(e: ir.Expr, function_reads, faulting: frozenset[int]) -> bool:
    """Whether the operation of `e` itself (not of its sub-expressions) may fault (_may_fault)."""
    if isinstance(e, ir.Prim) and e.op in _FAULTING and not (e.op in ("div", "mod") and _nonzero_int(e.args[1])):
        return True  # (`//` and `%` by a non-zero literal are inlined and cannot fail)
    if isinstance(e, ir.Prim) and e.op == "range" and not all(_static(a, function_reads) for a in e.args):
        return True
    if isinstance(e, ir.Prim) and e.op == "mul" and not any(_static(a, function_reads) for a in e.args):
        return True
    if isinstance(e, ir.CallDef) and e.index in faulting:
        return True
    if isinstance(e, ir.Prim) and e.op in ("enabled", "step_of"):  # the action's statements may fault
        return True
    if isinstance(e, ir.Comp) and e.kind in ("map", "choose"):
        return True
    return isinstance(e, ir.Build) and e.kind == "map"


# Operations that may build a large collection: never computed ahead of need (see _loop_invariant).
_BUILDERS = {"range", "powerset", "orderings", "maps", "bigunion"}


def _lazy_set(e: ir.Expr) -> bool:
    """Whether membership in `e` is decided without building it (CodeGen._member)."""
    return isinstance(e, ir.Prim) and e.op in ("maps", "powerset", "range")


def _cheap(e: ir.Expr) -> bool:
    """Whether `e` has no comprehension, call or operation that may build a large collection."""
    return not any(isinstance(x, (ir.Comp, ir.CallDef)) or (isinstance(x, ir.Prim) and (x.op in _BUILDERS or x.op in ("enabled", "step_of")))
                   for x in walk(e))


def _expr_reads(e: ir.Expr, function_reads) -> set[int]:
    """State slots `e` reads, through calls too (`function_reads`: slots per function)."""
    return ir.reads(e, [(r, ()) for r in function_reads])[0]


def _initial_tests(spec: ir.Spec, function_reads) -> dict[int, list[ir.Expr]]:
    """The conjuncts of the `init:` predicate (its top-level `and`s, in order) by the slot of the
    variable after whose value each is tested (-1: before the first): the last slot it reads, or a
    conjunct before it reads, so that they are still evaluated left to right, as `and` does."""
    if spec.initially is None:
        return {}
    conjuncts: list[ir.Expr] = []

    def split(e: ir.Expr) -> None:
        if isinstance(e, ir.Prim) and e.op == "and":
            split(e.args[0])
            split(e.args[1])
        else:
            conjuncts.append(e)

    split(spec.initially.expr)
    out: dict[int, list[ir.Expr]] = {}
    at = -1
    for c in conjuncts:
        at = max([at, *_expr_reads(c, function_reads)])
        out.setdefault(at, []).append(c)
    return out


def _assigned_slots(stmts) -> set[int]:
    return {st.slot for st in ir.statements(stmts) if isinstance(st, ir.AssignS)}


def _nondeterministic(st: ir.Stmt) -> bool:
    return any(isinstance(s, (ir.EitherS, ir.WithS)) for s in ir.statements((st,)))


def _nondeterministic_block(stmts) -> bool:
    return any(_nondeterministic(s) for s in stmts)
