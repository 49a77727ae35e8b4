"""The spec's actions instrumented to explain a step that a recorded run cannot take.

When a recorded step (a replayed counterexample, a logged event) matches no successor, the one
matcher (engine/matcher.py) asks which `require` is false, or which assignment wrote a value other
than the recorded one. Two approaches were possible: (1) an IR interpreter that evaluates guards
one by one, which would duplicate every operation of the code generator and could drift from it;
(2) compiling an *instrumented variant* of the actions and reusing the code generator unchanged.
This module does (2): an IR-to-IR rewrite (`_Instrument`) turns each `require c; rest` into
`if c: rest else: __fail = k` (and each `with x in S` into a check that S is not empty), records
after every assignment to variable v which assignment wrote it last (`__wrote_v = j`), and drops
range bounds (a failing path may hold out-of-range values). The instrumented model therefore
yields one successor per control path and parameter value, never aborts, and its extra slots say
which guard failed or which assignment wrote what. The real model decides enabledness and
successors; the instrumented one only explains.

Limits: the "first" failing guard is the first along the first path in canonical order (for an
`either`, other branches may fail elsewhere); an evaluation fault inside a guard is raised as the
real model raises it.
"""

from __future__ import annotations

import dataclasses

from tlacheck.compile.model import Model, compile_spec
from tlacheck.core import types as T
from tlacheck.core.source import Span
from tlacheck.ir import nodes as ir


class Instrumented:
    """The spec's actions rewritten so every control path yields a state that records which guard
    failed (`__fail`, 0 if none) and which assignment last wrote each variable (`__wrote_v`)."""

    def __init__(self, model: Model):
        spec = model.ir
        n = len(spec.variables)
        self.n = n
        rewrite = _Instrument(n)
        span = spec.variables[0].span if spec.variables else None
        zero = ir.Lit(T.INT, span, 0)
        extra = [ir.Variable("__fail", T.INT, zero, False, None, span)]
        extra += [ir.Variable(f"__wrote_{i}", T.INT, zero, False, None, span) for i in range(n)]
        variables = tuple(dataclasses.replace(v, bounds=None) for v in spec.variables) + tuple(extra)
        # `enabled(B)` in an action asks the real B, appended after the instrumented actions (an
        # instrumented action has a step on every path, so it would always be enabled)
        real = len(spec.actions)
        actions = tuple(dataclasses.replace(a, params=_asking(a.params, real), body=_asking(rewrite.block(list(a.body)), real))
                        for a in spec.actions) + spec.actions
        instrumented = dataclasses.replace(spec, variables=variables, actions=actions, invariants=(),
                                           constraints=(), properties=(), reachables=(), fairness=(),
                                           theorems=(), steps=())
        self.model = compile_spec(instrumented)
        self.guards = rewrite.guards
        self.assignments = rewrite.assignments

    def run(self, action: int, state: tuple):
        """(args, failed guard number or 0, wrote numbers per variable, full state) for each path."""
        extended = tuple(state) + (0,) * (self.n + 1)
        for args, s in self.model.actions[action](extended):
            yield args, s[self.n], s[self.n + 1:], s


def _asking(node, offset: int):
    """`node` (an IR expression or statement, or a tuple of them) with every `enabled(B)` asking
    action number B + offset instead."""
    if isinstance(node, tuple):
        return tuple(_asking(x, offset) for x in node)
    if isinstance(node, ir.Prim) and node.op == "enabled":
        return dataclasses.replace(node, args=_asking(node.args, offset), info=(node.info[0] + offset, node.info[1]))
    if isinstance(node, (ir.Expr, ir.Stmt, ir.PathStep)):
        changed = {f.name: _asking(getattr(node, f.name), offset) for f in dataclasses.fields(node)
                   if isinstance(getattr(node, f.name), (tuple, ir.Expr, ir.Stmt, ir.PathStep))}
        return dataclasses.replace(node, **changed)
    return node


class _Instrument:
    def __init__(self, n: int):
        self.fail_slot = n
        self.guards: list[tuple[str, Span]] = []  # (kind, span), numbered from 1
        self.assignments: list[Span] = []  # numbered from 1

    def _lit(self, value: int, span) -> ir.Lit:
        return ir.Lit(T.INT, span, value)

    def _set_fail(self, kind: str, span) -> ir.AssignS:
        self.guards.append((kind, span))
        return ir.AssignS(span, self.fail_slot, (), self._lit(len(self.guards), span))

    def _ok(self, span) -> ir.Expr:
        return ir.Prim(T.BOOL, span, "eq", (ir.VarRef(T.INT, span, self.fail_slot), self._lit(0, span)))

    def block(self, stmts: list) -> tuple:
        out: list = []
        for i, st in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(st, ir.RequireS):
                fail = self._set_fail("require", st.span)
                out.append(ir.IfS(st.span, ((st.cond, self.block(rest)),), (fail,)))
                return tuple(out)
            if isinstance(st, ir.AssignS):
                self.assignments.append(st.span)
                out.append(st)
                out.append(ir.AssignS(st.span, self.fail_slot + 1 + st.slot, (),
                                      self._lit(len(self.assignments), st.span)))
                continue
            guards_before = len(self.guards)
            if isinstance(st, ir.IfS):
                new = ir.IfS(st.span, tuple((c, self.block(list(b))) for c, b in st.branches),
                             self.block(list(st.orelse)))
            elif isinstance(st, ir.EitherS):
                new = ir.EitherS(st.span, tuple(self.block(list(b)) for b in st.branches))
            elif isinstance(st, ir.WithS):
                new = self._with(st.span, list(st.binders), list(st.body))
            else:  # LetS, and statement kinds this rewrite does not know: unchanged
                out.append(st)
                continue
            out.append(new)
            if rest and len(self.guards) > guards_before:
                out.append(ir.IfS(st.span, ((self._ok(st.span), self.block(rest)),), ()))
                return tuple(out)
        return tuple(out)

    def _with(self, span, binders: list, body: list) -> ir.Stmt:
        (local, domain), more = binders[0], binders[1:]
        inner = (self._with(span, more, body),) if more else self.block(body)
        fail = self._set_fail("with", span)
        nonempty = ir.Prim(T.BOOL, span, "gt", (ir.Prim(T.INT, span, "card", (domain,)), self._lit(0, span)))
        return ir.IfS(span, ((nonempty, (ir.WithS(span, ((local, domain),), inner),)),), (fail,))
