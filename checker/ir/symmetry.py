"""What breaks a declared symmetry (`symmetric const S: set[model]`), found on the IR.

Symmetry reduction is sound when renaming S's members changes nothing the spec can tell
apart. The spec can tell them apart where it names one (`n1` in an action, a `def`, a check,
an initial value, the `init:` predicate) and where a result depends on their order: `choose`
over values that hold members (it takes the first in canonical order) and a sequence built from
a set of them (in canonical order). Each is reported, with its span. Constants may name members (`Quorum =
{{a1, a2}, ...}`): their values are checked after evaluation, by renaming them
(compile/symmetry.py). Comparisons other than == and != do not typecheck on members.
"""

from __future__ import annotations

from tlacheck.core import types as T
from tlacheck.core.source import Span
from tlacheck.core.tree import Node, walk
from tlacheck.ir import nodes as ir


def mentions(t: T.Type, sorts: frozenset[str]) -> bool:
    """Whether values of type `t` can hold a member of one of `sorts` (SortT names)."""
    if isinstance(t, T.SortT):
        return t.name in sorts
    return any(mentions(x, sorts) for x in _parts(t))


def _parts(t: T.Type) -> tuple:
    if isinstance(t, (T.SetT, T.SeqT)):
        return (t.element,)
    if isinstance(t, T.MapT):
        return (t.key, t.value)
    if isinstance(t, T.TupleT):
        return tuple(t.elements)
    if isinstance(t, T.RecordT):
        return tuple(e for _, e in t.fields)
    if isinstance(t, T.OptionT):
        return (t.inner,)
    return ()


def _sort_of(t: T.Type, sorts: frozenset[str]) -> str:
    """The name of a symmetric sort `t` mentions (for messages)."""
    if isinstance(t, T.SortT) and t.name in sorts:
        return t.name
    return next(_sort_of(x, sorts) for x in _parts(t) if mentions(x, sorts))


def breaks(spec: ir.Spec) -> list[tuple[str, Span, str, str]]:
    """Every place that breaks, or may break, the symmetry of `spec.symmetric`: (severity,
    span, message, hint). Naming a member is an error; an order-dependent result a warning,
    since it is symmetric when the choice is unique (TLC's SYMMETRY does not check either)."""
    sorts = frozenset(spec.symmetric)
    if not sorts:
        return []
    found: list[tuple[Span, str, str]] = []
    seen: set[Span] = set()
    for x in walk(_roots(spec)):
        problem = _problem(x, sorts)
        if problem is not None and x.span not in seen:
            seen.add(x.span)
            found.append((problem[0], x.span, *problem[1:]))
    return found


def _problem(x: Node, sorts: frozenset[str]) -> tuple[str, str, str] | None:
    if isinstance(x, ir.Lit) and isinstance(x.type, T.SortT) and x.type.name in sorts:
        name = x.type.members[x.value]
        return ("error", f"`{name}` names a member of the symmetric set {x.type.name}: this breaks the symmetry",
                f"a symmetric set's members must be interchangeable: quantify over {x.type.name} instead, "
                f"or drop `symmetric`")
    if isinstance(x, ir.Comp) and x.kind in (ir.CompKind.choose, ir.CompKind.seq):
        for _, domain in x.generators:
            if mentions(domain.type, sorts):
                sort = _sort_of(domain.type, sorts)
                what = "`choose` takes the first" if x.kind == ir.CompKind.choose else "the sequence is built"
                hint = ("make the choice unique (or the order irrelevant), or " if x.kind == ir.CompKind.choose else
                        "take every order instead, `with q in orderings(S):` (sound under symmetry), or ")
                return ("warning", f"{what} in canonical order, which depends on how the members of the "
                                   f"symmetric set {sort} are numbered: the reduction is sound only if the result "
                                   f"does not depend on it", hint + "drop `symmetric` (check with --no-symmetry "
                                   "that the counts of violations agree)")
    return None


def _roots(spec: ir.Spec) -> tuple:
    """The parts of the spec the search evaluates, but its constants' values (checked once
    evaluated) and the variables' bounds: the initial values, the functions, the actions'
    parameters and bodies, the checks, the `init:` predicate, the properties and the fairness."""
    return (tuple(v.init for v in spec.variables), tuple(f.body for f in spec.functions),
            tuple(d for a in spec.actions for _, d in a.params), tuple(a.body for a in spec.actions),
            tuple(p.expr for p in (*spec.invariants, *spec.constraints, *spec.reachables, *spec.steps)),
            spec.initially, spec.properties, spec.fairness)
