"""A compiled model: the one interface between a spec and the explorers.

`compile_spec` turns a spec's IR into a `Model` with initial states, actions, invariants and
constraints as Python callables over tuple states, plus the tables needed to print states and
errors (the pipeline's driver, pipeline/driver.py, runs the front end before it). The driver
attaches the refinements' checks, then seals the Model with the recipe it was built from: from
then on assigning an attribute raises, and the stages after compilation only read it.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from tlacheck.compile import codegen
from tlacheck.compile.symmetry import Symmetry
from tlacheck.core import runtime
from tlacheck.core import types as T
from tlacheck.core.errors import Diagnostic, EvalError, SpecError
from tlacheck.core.source import Span
from tlacheck.core.values import format_int, format_value, to_json
from tlacheck.ir import nodes as ir
from tlacheck.ir.symmetry import mentions


_MESSAGES = {
    "E401": "key {1} is not in the domain of the map {0}",
    "E402": "value {0} {of} `{name}` is outside its declared range {1}..{2}",
    "E403": "no element satisfies the condition of `choose`",
    "E404": "{op} of an empty {what}",
    "E405": "index {1} is out of range for the sequence {0}",
    "E407": "division by zero: {0} // {1}",
    "E408": "the set is too large to build (over 2^20 elements)",
    "E412": "the product has {0:,} bits, more than an int may have (2^16 bits, about 19,700 digits)",
    "E409": "the map gives key {0} two values: {1} and {2}",
    "E410": "{what} `{name}` would hold {0} elements, more than its declared bound {1}",
}


@dataclass(frozen=True)
class ActionInfo:
    name: str
    param_names: tuple[str, ...]
    param_types: tuple[T.Type, ...]
    span: object
    actor: str | None = None  # `by Runner`: who takes the step (a swimlane in diagrams)
    sends_to: str | None = None  # `by Runner -> Parent`: who the step sends something to (a label)
    sends_computed: bool = False  # `-> EXPR`: Model.send_targets computes whom, per step
    process: str | None = None  # a step of this `process` (its label is the action's name)
    indexed: bool = False  # of a process over a set: the action's one parameter is the instance

    @property
    def shown(self) -> str:
        """The action's name for people: a process step's with its process (`Waiter: wait`)."""
        return f"{self.process}: {self.name}" if self.process else self.name

    def who(self, args_shown) -> str | None:
        """A process step's instance, as written in expressions: `Waiter[t1]`, `Runner`."""
        if self.process is None:
            return None
        return f"{self.process}[{args_shown[0]}]" if self.indexed else self.process


_RECURSION_HINT = ("a recursive `def` must reach its base case within about 900 nested calls (Python's "
                   "recursion limit)")
_MEMORY_HINT = ("a value computed here does not fit in the memory this process may use (a huge range or set, a "
                "sequence that keeps doubling): bound it with a guard or a constraint, or allow more memory")


def _code_name(spec: ir.Spec) -> str:
    """The file name the generated module is compiled under (its frames carry it)."""
    return f"<tlacheck model {spec.name}>"


def _count(n: int) -> str:
    """n with thousands separators (or shortened, when it has over 100 digits)."""
    return f"{n:,}" if n < 10**100 else format_int(n)


@dataclass(frozen=True)
class Derived:
    """A derived value of one state: `value` (of type `type`), or `error` (why it could not be
    computed there)."""

    name: str
    type: T.Type
    value: object
    error: str | None = None

    @property
    def text(self) -> str:
        return f"(error: {self.error})" if self.error is not None else format_value(self.value, self.type)

    def json(self):
        return {"error": self.error} if self.error is not None else to_json(self.value, self.type)


@dataclass(frozen=True)
class PropertyInfo:
    """A temporal property, as the stages after compilation see it (its formula is the IR's:
    Model.ir, which the liveness checker reads)."""

    name: str
    span: Span
    has_liveness: bool  # an `eventually` or `leads_to` part, decided on the behaviour graph


class Model:
    """A spec compiled for exploration. What the stages after compilation read of a spec: the
    compiled functions, the records (ActionInfo, PropertyInfo) and the methods below; the IR
    itself only through `ir`, by the few that analyse its expressions."""

    def __init__(self, spec: ir.Spec, generated: codegen.Generated, namespace: dict, constants: list):
        self._ir = spec
        self.namespace = namespace
        self.name = spec.name
        self.file = spec.file  # the spec's file, as its spans name it
        self.generated = generated
        self.code_name = _code_name(spec)  # the file name its frames carry
        self.constants = constants
        self.var_names = tuple(v.name for v in spec.variables)
        self.var_types = tuple(v.type for v in spec.variables)
        # The renamings of the sets declared `symmetric` (empty: none, or each has one member)
        self.symmetry = Symmetry(self.var_types, tuple(s for s in spec.sorts if s.name in spec.symmetric))
        entries = generated.entries
        self.init = namespace[entries.init]
        self.actions = tuple(namespace[name] for name in entries.actions)
        # The same successors as lists of next states, without arguments (the explorers' hot loop).
        self.next_states = tuple(namespace[name] for name in entries.next_states)
        # And with each successor's arguments, for the actions a fairness condition with arguments
        # targets (None for the others): the behaviour graph of temporal properties.
        self.next_states_with_args = tuple(None if name is None else namespace[name]
                                           for name in entries.next_states_with_args) or (None,) * len(self.actions)
        # An equal state whose maps share the model's interned key tuples (after unpickling).
        self.canonical_keys = namespace[entries.canonical_keys]
        steps = {step: p for p in spec.processes for step in p.steps}
        # The variables of each process over a set, by the slot of the first (state_rows)
        self._process_slots: dict[int, tuple[str, tuple[int, ...]]] = {}
        for p in spec.processes:
            if p.indexed:
                slots = tuple(self.var_names.index(v) for v in (p.pc,) + tuple(v for _, v in p.locals))
                self._process_slots[slots[0]] = (p.name, slots)
        self._process_vars = {self.var_names[i] for _, slots in self._process_slots.values() for i in slots}
        # The variables of every process (its program counter and locals): variable -> process
        self.process_variables = {v: p.name for p in spec.processes for v in (p.pc,) + tuple(v for _, v in p.locals)}
        self.action_info = tuple(
            ActionInfo(a.name, tuple(l.name for l, _ in a.params), tuple(l.type for l, _ in a.params), a.span,
                       a.actor, a.sends_to, a.sends_expr is not None,
                       steps[a.name].name if a.name in steps else None, a.name in steps and steps[a.name].indexed)
            for a in spec.actions)
        self.invariants = tuple((p.name, namespace[n]) for p, n in zip(spec.invariants, entries.invariants))
        self.properties = tuple(PropertyInfo(p.name, p.span, p.has_liveness) for p in spec.properties)
        self.theorems = tuple(t.name for t in spec.theorems)  # `tlacheck prove` decides them
        # `derived NAME: EXPR`: (name, type, function of a state), shown along traces (derived_values)
        self.derived = tuple((p.name, p.expr.type, namespace[n]) for p, n in zip(spec.derived, entries.derived))
        self.constraints = tuple((p.name, namespace[n]) for p, n in zip(spec.constraints, entries.constraints))
        self.reachables = tuple((p.name, namespace[n]) for p, n in zip(spec.reachables, entries.reachables))
        # Step properties: (name, (s, t) -> bool), checked on every step the search computes.
        self.steps = tuple((p.name, namespace[n]) for p, n in zip(spec.steps, entries.steps))
        # Temporal properties' state predicates and quantifier domains (ir.Expr -> (function, the
        # ids of the free locals it takes after the state)), and per fairness declaration (the
        # function yielding its bindings, per target None or (its fixed arguments' function,
        # their positions)): liveness.py calls these.
        self.temporal_predicates = {e: (namespace[n], ids) for e, (n, ids) in generated.predicates.items()}
        self.temporal_domains = {e: (namespace[n], ids) for e, (n, ids) in generated.domains.items()}
        # per action: the `-> EXPR` target as (function of the state and the arguments, or None)
        self._sends = tuple(None if fn is None else (namespace[fn[0]], fn[1]) for fn in generated.sends)
        self.fairness = tuple((namespace[bindings], tuple(None if fn is None else (namespace[fn[0]], *fn[1:]) for fn in args))
                              for bindings, args in generated.fairness)
        # Slots each action may assign, slots each invariant reads (by name): see codegen.Generated.
        self.action_writes = tuple(generated.action_writes)
        self.invariant_reads = {p.name: r for p, r in zip(spec.invariants, generated.invariant_reads)}
        self.warnings = spec.warnings
        # `deadlock: allowed`: the spec says a state without successors is not an error; the
        # command line turns that into Options(check_deadlock=False) unless told otherwise.
        self.deadlock_allowed = spec.deadlock_allowed
        # `conform:`: how a real system's logs name the actions, variables and values (ir.Conform; None: no section)
        self.conform = spec.conform
        # `refines NAME "FILE"` (compile/refinement.py Check), attached by the pipeline: each is
        # checked on the initial states (refinement_initial) and on every step (in `steps`)
        self.refinements: tuple = ()
        self.recipe = None  # what the pipeline built it from (pipeline/driver.py Recipe, by `seal`; None: compiled from an IR)
        self.refinement_initial: tuple = ()

    def __setattr__(self, name: str, value) -> None:
        if self.__dict__.get("_sealed"):
            raise AttributeError(f"a Model does not change once built: `{name}` cannot be set")
        object.__setattr__(self, name, value)

    def seal(self, recipe=None) -> "Model":
        """The last step of building (the pipeline's): the recipe the Model was built from (None:
        the model of an abstract spec, built again with the spec that refines it); from then on
        no attribute may be set."""
        self.recipe = recipe
        self._sealed = True
        return self

    def caching(self, on: bool) -> None:
        """Turn the transition caches of the successor functions on or off (Options.cache;
        `--no-cache`), empty them and zero their counts: what a search does as it starts."""
        for c in self.generated.caches:
            self.namespace[c.table].clear()
            self.namespace[c.counts][:] = [0, 0, 0, int(on), 0]

    def cache_counts(self) -> dict[int, tuple[int, int, int, bool]]:
        """Per action with a transition cache, its (hits, misses, clears, whether it turned itself
        off) since `caching` (this process's: forked workers count their own, and report them with
        each expansion: messages.Expansion.cache)."""
        return {c.action: (*self.namespace[c.counts][:3], bool(self.namespace[c.counts][4]))
                for c in self.generated.caches}

    @property
    def ir(self) -> ir.Spec:
        """The spec's IR, for what analyses its expressions rather than calling the compiled
        functions: the compiler's own passes (compile/), the liveness checker's tableau
        (engine/liveness.py), the prover (prove/smt.py), the runtime guards' read analysis
        (testing/guards.py). tests/test_architecture.py holds the list."""
        return self._ir

    def attach_refinements(self, checks) -> None:
        """Check the refinements `checks` too: their initial condition on the initial states,
        their steps with the step properties (selected by name as those are)."""
        self.refinements = tuple(checks)
        self.refinement_initial = tuple((c.name, c.initially) for c in checks)
        self.steps = self.steps + tuple((c.name, c.step) for c in checks)

    # ---------------------------------------------------------------- display
    def format_state(self, state) -> dict[str, str]:
        return {n: format_value(v, t) for n, v, t in zip(self.var_names, state, self.var_types)}

    def state_rows(self, state) -> list[tuple[int, str, str]]:
        """(variable slot, label, value text) of every variable, in declaration order; the
        variables of a process over a set (maps from its instances) one row per instance and
        variable, instance by instance: `Waiter[t1].pc`, `Waiter[t1].got`, `Waiter[t2].pc`..."""
        rows: list[tuple[int, str, str]] = []
        slot = 0
        groups = self._process_slots
        while slot < len(self.var_names):
            group = groups.get(slot)
            if group is None:
                rows.append((slot, self.var_names[slot], format_value(state[slot], self.var_types[slot])))
                slot += 1
                continue
            process, slots = group
            keys = state[slots[0]][0]
            key_type = self.var_types[slots[0]].key
            for k, key in enumerate(keys):
                who = f"{process}[{format_value(key, key_type)}]"
                for i in slots:
                    field = self.var_names[i].split(".", 1)[1]
                    rows.append((i, f"{who}.{field}", format_value(state[i][1][k], self.var_types[i].value)))
            slot = slots[-1] + 1
        return rows

    def change_path(self, variable: str, path: str) -> str:
        """A change's path as written in expressions: `Waiter.pc[t1]` is `Waiter[t1].pc` (the
        variables of a process over a set), any other path as it is."""
        if variable not in self._process_vars or not path.startswith(variable + "["):
            return path
        depth, i = 0, len(variable)
        for i in range(len(variable), len(path)):  # the key's closing bracket
            if path[i] == "[":
                depth += 1
            elif path[i] == "]":
                depth -= 1
                if depth == 0:
                    break
        process, field = variable.split(".", 1)
        return f"{process}{path[len(variable):i + 1]}.{field}{path[i + 1:]}"

    def state_json(self, state) -> dict:
        return {n: to_json(v, t) for n, v, t in zip(self.var_names, state, self.var_types)}

    def send_targets(self, action: int, args: tuple, state) -> tuple[str, ...]:
        """Whom a step of `action` with `args` from `state` sends to, by its `-> EXPR` (the names
        of the model values or enum members; none when it has no such target, when the value is
        `none`, or when it cannot be computed: a diagram never stops on it)."""
        found = self._sends[action] if action < len(self._sends) else None
        if found is None:
            return ()
        fn, local_ids = found
        params = self._ir.actions[action].params
        position = {local.id: k for k, (local, _) in enumerate(params)}
        try:
            value = fn(state, *(args[position[i]] for i in local_ids))
        except runtime.EVAL_FAILURES:
            return ()
        t = self._ir.actions[action].sends_expr.type
        if isinstance(t, T.SetT):
            return tuple(format_value(v, t.element) for v in runtime.canon(value))
        if value is runtime.NONE:
            return ()
        return (format_value(value, t.inner if isinstance(t, T.OptionT) else t),)

    def derived_values(self, state) -> list[Derived]:
        """The spec's derived values in `state`, in declaration order. One whose evaluation fails
        is reported by its error's message (a trace is still shown whole)."""
        out = []
        for name, t, fn in self.derived:
            try:
                out.append(Derived(name, t, fn(state)))
            except runtime.Fault as fault:
                out.append(Derived(name, t, None, self.eval_error(fault).message))
            except (RecursionError, MemoryError) as exc:
                out.append(Derived(name, t, None, self.limit_error(exc, f"computing derived `{name}`").message))
        return out

    def format_args(self, action: int, args) -> list[str]:
        info = self.action_info[action]
        return [format_value(a, t) for a, t in zip(args, info.param_types)]

    def args_json(self, action: int, args) -> dict:
        info = self.action_info[action]
        return {n: to_json(a, t) for n, a, t in zip(info.param_names, args, info.param_types)}

    def step_label(self, action: int, args) -> str:
        info = self.action_info[action]
        if info.process is not None:
            return f"{info.who(self.format_args(action, args))}: {info.name}"
        if not info.param_names:
            return info.name
        shown = ", ".join(f"{n}={v}" for n, v in zip(info.param_names, self.format_args(action, args)))
        return f"{info.name}({shown})"

    def eval_error(self, fault: runtime.Fault) -> EvalError:
        """An EvalError with a readable message for a Fault raised by generated code."""
        span, kind, detail = self.generated.wheres[fault.where]
        return EvalError(fault.code, self._fault_message(fault, kind, detail), span)

    def _fault_message(self, fault: runtime.Fault, kind: str, detail) -> str:
        raw = fault.values
        vals = tuple(format_int(v) if type(v) is int else v for v in raw)  # ints as text, of any size
        code = fault.code
        if code == "E402":  # values: (value, lo, hi, nested), detail: the variable or assignment target
            return _MESSAGES[code].format(*vals, of="in" if vals[3] else "of", name=detail)
        if code == "E410" and raw[1] < 0:
            return f"the declared bound {vals[1]} of a sequence in `{detail}` is negative"
        if code == "E410":  # values: (length, limit, nested)
            return _MESSAGES[code].format(*vals, what="a sequence in" if vals[2] else "", name=detail).lstrip()
        if code == "E408" and kind == "orderings":  # values: (size,)
            return (f"`orderings` of a set of {vals[0]} elements would build {vals[0]}! sequences, more than the "
                    f"2^20 a set may have (at most 9 elements)")
        if code == "E408" and kind == "range":  # values: (a, b)
            return (f"the range {vals[0]}..{vals[1]} has {_count(raw[1] - raw[0] + 1)} elements, more than "
                    f"the 2^20 a range may have to be built or iterated over")
        if code == "E404":
            what = "set" if kind in ("min", "max") else "sequence"
            return _MESSAGES[code].format(op=f"`{kind}`", what=what)
        if code in ("E401", "E405") and detail:
            ctype = detail[0] if isinstance(detail, tuple) else None
            if code == "E401" and isinstance(ctype, T.MapT):
                return _MESSAGES[code].format(format_value(raw[0], ctype), format_value(raw[1], ctype.key))
            if code == "E405" and isinstance(ctype, T.SeqT):
                index = vals[1] if not isinstance(raw[1], tuple) else f"({', '.join(map(format_int, raw[1]))})"
                return _MESSAGES[code].format(format_value(raw[0], ctype), index)
        if code == "E409" and isinstance(detail, T.MapT):
            return _MESSAGES[code].format(format_value(raw[0], detail.key), format_value(raw[1], detail.value),
                                          format_value(raw[2], detail.value))
        if code == "E401":
            return "the key is not in the domain of the map (a map's domain is fixed when it is built)"
        if code == "E405":
            return "index is out of range for the sequence"
        if code == "E412":
            return _MESSAGES[code].format(*raw)
        return _MESSAGES.get(code, "evaluation failed").format(*vals)

    def action_lines(self, action: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The lines of an action's declaration in its file (ActionInfo.span's), from its header
        to the last line of its simple statements (a compound statement's span can reach the next
        declaration), and those of its `require` statements, sorted."""
        a = self._ir.actions[action]
        last, guards = a.span.line, set()
        for st in ir.statements(a.body):
            if isinstance(st, ir.RequireS):
                guards.update(range(st.span.line, st.span.end_line + 1))
                last = max(last, st.span.end_line)
            elif isinstance(st, (ir.IfS, ir.EitherS, ir.WithS)):
                last = max(last, st.span.line)
            else:
                last = max(last, st.span.end_line)
        return tuple(range(a.span.line, last + 1)), tuple(sorted(guards))

    def span_of(self, kind: str, name: str | None = None) -> Span | None:
        """The declaration of the variable, invariant, constraint, reachable check or property
        `name`, or for kind "initial" the first variable's: where an error without a better
        place goes."""
        if kind == "initial":
            return self._ir.variables[0].span if self._ir.variables else None
        table = {"variable": self._ir.variables, "invariant": self._ir.invariants, "constraint": self._ir.constraints,
                 "reachable": self._ir.reachables, "property": self._ir.properties, "step": self._ir.steps}[kind]
        return next((d.span for d in table if d.name == name), None)

    def limit_error(self, exc: RecursionError | MemoryError, note: str, span: Span | None = None) -> EvalError:
        """E406 (a RecursionError) or E411 (a MemoryError) raised while `note` ("computing action
        A"). Placed at the spec line the innermost frame of generated code was computing (the
        statement, the `def`, the declaration: Generated.line_spans), else at `span` (what was
        being evaluated), else at the top of the file. A recursion names the innermost `def` on
        the stack. The frames in the exception's traceback are cleared, so that the memory their
        locals hold is free before the trace is rebuilt and printed."""
        where, function = self._origin(exc)
        if where is None:
            where = span or Span(self._ir.file, 1, 1, 1, 2)
        if isinstance(exc, RecursionError):
            named = f" in `{self._ir.functions[function].name}`" if function is not None else ""
            return EvalError("E406", f"recursion too deep{named} (while {note})", where, _RECURSION_HINT)
        return EvalError("E411", f"out of memory (while {note})", where, _MEMORY_HINT)

    def _origin(self, exc: BaseException) -> tuple[Span | None, int | None]:
        """The span of the innermost line of generated code in `exc`'s traceback and the index of
        the innermost `def` of the spec on it (Generated.line_owners); then the traceback is dropped."""
        tb = exc.__traceback__
        spans, owners = self.generated.line_spans, self.generated.line_owners
        filename = self.code_name
        where = function = None
        try:
            while tb is not None:
                code = tb.tb_frame.f_code
                if code.co_filename == filename:
                    line = tb.tb_lineno
                    if 0 < line <= len(spans) and spans[line - 1] is not None:
                        where = spans[line - 1]
                    owner = owners[line - 1] if 0 < line <= len(owners) else None
                    if owner is not None and owner[0] == "function":
                        function = owner[1]
                tb = tb.tb_next
        finally:
            traceback.clear_frames(exc.__traceback__)
            exc.__traceback__ = None
        return where, function


def compile_spec(spec: ir.Spec) -> Model:
    """Generate and compile the model's code. Raises E008 when the generated code exceeds one of
    Python's own limits (20 nested loops in a function, 200 nested parentheses, 100 indentation
    levels, the compiler's recursion depth): the parser's nesting limit (E007) keeps expressions
    well inside them, but loops add up across parameters, `with` binders and `either` blocks."""
    for cache in (True, False):  # the transition caches' loop of one turn may be the one too many: none then
        try:
            generated = codegen.generate(spec, cache)
        except RecursionError:
            raise _too_complex(spec, None, None, "nesting too deep for the code generator") from None
        try:
            code = compile(generated.source, _code_name(spec), "exec")
            break
        except SyntaxError as exc:  # IndentationError included
            if cache and generated.caches:
                continue
            raise _too_complex(spec, generated, exc.lineno, exc.msg) from None
        except (RecursionError, MemoryError):
            if cache and generated.caches:
                continue
            raise _too_complex(spec, generated, None, "nesting too deep for Python's compiler") from None
    namespace: dict = {name: getattr(runtime, target) for name, target in codegen.RUNTIME_NAMES.items()}
    namespace["__builtins__"] = {"len": len, "frozenset": frozenset, "sorted": sorted, "all": all, "any": any,
                                 "sum": sum, "range": range, "min": min, "max": max, "tuple": tuple,
                                 "enumerate": enumerate, "map": map}
    exec(code, namespace)  # the source holds generated identifiers and int/bool literals only
    model = Model(spec, generated, namespace, [])
    try:
        model.constants = namespace[generated.entries.constants]()
    except runtime.Fault as fault:
        raise model.eval_error(fault) from None
    except (RecursionError, MemoryError) as exc:
        raise model.limit_error(exc, "evaluating the constants") from None
    _check_symmetric_constants(model)
    _check_assumptions(model)
    return model


def _check_assumptions(model: Model) -> None:
    """E133 for an `assume` that the constants' values do not satisfy (TLA+'s ASSUME), naming the
    values of the constants it reads; an evaluation error in one is reported as in a constant."""
    spec = model.ir
    entries = model.generated.entries.assumptions
    function_reads = ir.function_reads(spec.functions)
    errors = []
    for p, name in zip(spec.assumptions, entries):
        try:
            holds = model.namespace[name](())
        except runtime.Fault as fault:
            raise model.eval_error(fault) from None
        except (RecursionError, MemoryError) as exc:
            raise model.limit_error(exc, f"evaluating assumption `{p.name}`") from None
        if holds:
            continue
        read = sorted(ir.reads(p.expr, function_reads)[1])
        values = ", ".join(f"{spec.constants[i].name} = {format_value(model.constants[i], spec.constants[i].type)}"
                           for i in read)
        errors.append(Diagnostic("E133", f"assumption `{p.name}` is false" + (f" with {values}" if values else ""),
                                 p.expr.span,
                                 "the constants' values (their defaults, or -D on the command line) must satisfy it"
                                 if read else "it reads no constant, so it is false whatever the constants are"))
    if errors:
        raise SpecError(errors)


def _check_symmetric_constants(model: Model) -> None:
    """E123 for a constant whose value a renaming of a symmetric set changes (`Leader = n1`;
    `Quorum = {{a1, a2}, {a1, a3}, {a2, a3}}` is the same under every renaming, so it may stay)."""
    errors = []
    for c, value in zip(model.ir.constants, model.constants):
        if model.symmetry.moves(value, c.type):
            sorts = ", ".join(s.name for s in model.symmetry.sorts if mentions(c.type, frozenset([s.name])))
            errors.append(Diagnostic("E123", f"the value of `{c.name}` changes when the members of the symmetric "
                                             f"set {sorts} are renamed: this breaks the symmetry", c.span,
                                     "a constant may name members only if every renaming gives it back "
                                     "(like a set of all pairs); or drop `symmetric`"))
    if errors:
        raise SpecError(errors)


_LOOPS_HINT = ("Python allows 20 nested loops in a function: each action parameter, `with` binder and enclosing "
               "`either` adds one, as does each `var NAME: T in SET` (or `var NAME: T` without a value) to the initial "
               "states; split the action, or choose a tuple from one set instead of several values")
_DEPTH_HINT = "move parts of the expression or block into a `def`, or split the action"


def _too_complex(spec: ir.Spec, generated: codegen.Generated | None, line: int | None, reason: str) -> SpecError:
    """E008 at the declaration whose generated code broke a limit of Python (the declaration
    codegen generated that line for: Generated.line_owners); at the top of the file when that
    cannot be told."""
    what, span = "the spec", Span(spec.file, 1, 1, 1, 2)
    owners = generated.line_owners if generated is not None else []
    owner = owners[line - 1] if line and 0 < line <= len(owners) else None
    if owner is not None:
        kind, index = owner
        decls = {"constant": spec.constants, "variable": spec.variables, "function": spec.functions,
                 "action": spec.actions, "invariant": spec.invariants, "constraint": spec.constraints,
                 "reachable": spec.reachables, "property": spec.properties, "fairness": spec.fairness,
                 "step": spec.steps, "derived": spec.derived, "initially": (spec.initially,),
                 "refinement": spec.refinements, "assumption": spec.assumptions}[kind]
        decl = decls[index]
        span = decl.span
        what = {"variable": f"the initial states (variable `{getattr(decl, 'name', '')}`)",
                "initially": "the initial states (the `init:` predicate)",
                "fairness": "this fairness condition",
                "reachable": f"reachable check `{getattr(decl, 'name', '')}`",
                "assumption": f"assumption `{getattr(decl, 'name', '')}`"}.get(
            kind, f"{kind} `{getattr(decl, 'name', '')}`")
    hint = _LOOPS_HINT if "nested blocks" in reason else _DEPTH_HINT
    return SpecError.single("E008", f"cannot compile {what}: {reason}", span, hint)
