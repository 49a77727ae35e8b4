"""Processes: PlusCal-like `process` declarations, desugared into the core language.

    process Waiter(self in Tasks):
        var got: bool = false
        wait:
            await ready
            got = true
        done:
            ...

becomes, before name resolution (the type checker never sees a process):

- `enum Waiter { wait, done, Done }`: the process's labels and `Done` (where it ends);
- `var Waiter.pc: map[Tasks, Waiter]`, every instance at its first label, and one variable per
  local, `var Waiter.got: map[Tasks, bool]` (for `process P:`, one instance, plain values);
- one action per label, `action wait(self in Tasks) by self`, which requires the instance to be
  at the label and runs the statements from it to the next label on each path, then sets the
  program counter to that label (or to `Done` at the end of the body);
- `Terminating`, a step that changes nothing once every process is `Done` (PlusCal's: the end of
  the algorithm is not a deadlock), when every process can end;
- for `fair process` (`fair strong process`), the fairness of each instance's steps together
  (PlusCal's `WF_vars(P(self))` for each self).

Control: a label's block may begin with `while COND:` (the loop's test is part of the label's
step; the end of the body goes back to the label); `goto L` ends the step at L; a label inside an
`if` or `either` branch ends the step there, and the statements after the branch run in the step
that reaches them. Inside a process a local is named plainly (`got`, meaning this instance's);
anywhere in the spec `Waiter.got` is the map of every instance's, `Waiter[t].got` one instance's
(`Runner.pc` for a single process), and may be assigned to (a message to another process).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from tlacheck.core.errors import Diagnostic, SpecError, Warnings
from tlacheck.core.source import Span
from tlacheck.core.tree import transform, walk
from tlacheck.ir import nodes as ir
from tlacheck.lang import syntax as S


DONE = "Done"
TERMINATING = "Terminating"
PC = "pc"

_CONTROL = (S.Labelled, S.While, S.Goto)


def _err(message: str, span: Span, hint: str | None = None) -> SpecError:
    return SpecError.single("E129", message, span, hint)


def desugar(tree: S.SpecFile) -> tuple[S.SpecFile, tuple[ir.Process, ...], tuple[Diagnostic, ...]]:
    """The spec with every `process` replaced by its enum, variables and actions, what each
    process became, and its warnings. Labels, `while` and `goto` outside a process are errors
    (E129)."""
    processes = [d for d in tree.declarations if isinstance(d, S.ProcessDecl)]
    for d in tree.declarations:
        if isinstance(d, (S.ActionDecl, S.BlockDecl)):
            _no_control(d.body, "an action" if isinstance(d, S.ActionDecl) else "a block")
    warnings = Warnings()
    if not processes:
        return tree, (), ()
    for p in processes:
        if p.unfair_replacement_of is not None:
            base = p.unfair_replacement_of
            warnings.add("W213", f"this variant's process `{p.name}` is not fair, but the base spec's is", p.name_span,
                         f"write `replace fair process {p.name}` to keep its fairness (base declaration at "
                         f"{base.file}:{base.line})")
    qualify = _Qualifier(processes)
    labels: dict[str, Span] = {}
    for p in processes:
        for name, span in _labels(p.body):
            if name == DONE:
                raise _err(f"`{DONE}` is where a process ends: it cannot be a label", span, "choose another name")
            if name in labels:
                first = labels[name]
                raise _err(f"label `{name}` is used twice", span,
                           f"labels name actions, so they are unique in a spec: first at {first.file}:{first.line}:{first.column}")
            labels[name] = span
    decls: list[S.Decl] = []
    infos: list[ir.Process] = []
    translated: dict[str, list[S.Decl]] = {}
    ends: list[bool] = []
    for p in processes:
        out, info, can_end = _Process(p, qualify).translate()
        translated[p.name] = out
        infos.append(info)
        ends.append(can_end)
    for d in tree.declarations:
        if isinstance(d, S.ProcessDecl):
            decls.extend(translated[d.name])
        elif isinstance(d, (S.VariantDecl, S.ExpectDecl)):
            decls.append(d)
        else:
            decls.append(qualify.decl(d))
    if all(ends):
        span = processes[0].span
        done = [_at(p, DONE, p.name_span, every=True) for p in processes]
        cond = done[0]
        for c in done[1:]:
            cond = S.BinOp(span, "and", cond, c)
        decls.append(S.ActionDecl(span, TERMINATING, processes[0].name_span, (),
                                  (S.Require(span, cond), S.Skip(span))))
    return dataclasses.replace(tree, declarations=tuple(decls)), tuple(infos), tuple(warnings.items)


# ---------------------------------------------------------------- structure

def _no_control(stmts, where: str) -> None:
    for s in walk(stmts):
        if isinstance(s, S.Labelled):
            raise _err(f"a label (`{s.label}:`) can only be in a process, not in {where}", s.label_span,
                       "an action is one atomic step already; declare a `process` to write several steps")
        if isinstance(s, S.While):
            raise _err(f"`while` can only be in a process, not in {where}", s.span,
                       "an action is one atomic step: write the loop as a process, or as an action that is "
                       "taken again while its guard holds")
        if isinstance(s, S.Goto):
            raise _err(f"`goto` can only be in a process, not in {where}", s.span)


def _labels(stmts):
    for s in walk(stmts):
        if isinstance(s, S.Labelled):
            yield s.label, s.label_span


def _has_label(s: S.Stmt) -> bool:
    return any(isinstance(x, S.Labelled) for x in walk((s,)))


def _at(p: S.ProcessDecl, label: str, span: Span, every: bool = False, who: S.Expr | None = None) -> S.Expr:
    """`P.pc == label` for a single process; for a set, this instance's (`who`), or every one's."""
    pc: S.Expr = S.Name(span, f"{p.name}.{PC}")
    value = S.Name(span, label)
    if p.domain is None:
        return S.BinOp(span, "==", pc, value)
    if every:
        inst = "_" + (p.self_name or "self")
        gen = S.Generator(span, inst, p.domain)
        comp = S.Comprehension(span, S.BinOp(span, "==", S.Index(span, pc, S.Name(span, inst)), value), (gen,), None)
        return S.Call(span, "all", span, (), comp)
    return S.BinOp(span, "==", S.Index(span, pc, who), value)


# ---------------------------------------------------------------- names

class _Qualifier:
    """`P.x`, `P[i].x` (an instance of a process over a set) and `P.pc` anywhere in the spec: the
    variables the process's locals and program counter became."""

    def __init__(self, processes):
        self.fields = {p.name: {PC} | {v.name for v in p.locals} for p in processes}

    def _var(self, target: S.Expr, field: str):
        if isinstance(target, S.Name) and field in self.fields.get(target.name, ()):
            return target.name
        return None

    def expr(self, e: S.Node):
        if isinstance(e, S.Field):
            var = self._var(e.target, e.name)
            if var is not None:
                return S.Name(e.span, f"{var}.{e.name}")
            t = e.target
            if isinstance(t, S.Index) and self._var(t.target, e.name) is not None:
                return S.Index(e.span, S.Name(t.target.span, f"{t.target.name}.{e.name}"), self.apply(t.index))
        if isinstance(e, S.LValue) and e.name in self.fields and e.steps:
            steps, spans = e.steps, e.step_spans
            if isinstance(steps[0], str) and steps[0] in self.fields[e.name]:
                return dataclasses.replace(e, name=f"{e.name}.{steps[0]}", steps=self.apply(steps[1:]),
                                           step_spans=spans[1:])
            if len(steps) > 1 and not isinstance(steps[0], str) and isinstance(steps[1], str) \
                    and steps[1] in self.fields[e.name]:
                return dataclasses.replace(e, name=f"{e.name}.{steps[1]}",
                                           steps=(self.apply(steps[0]),) + self.apply(steps[2:]),
                                           step_spans=spans[:1] + spans[2:])
        return None

    def apply(self, node):
        return transform(node, self.expr)

    def decl(self, d: S.Decl) -> S.Decl:
        return self.apply(d)


class _Process:
    """One process's translation."""

    def __init__(self, p: S.ProcessDecl, qualify: _Qualifier):
        self.p = p
        self.qualify = qualify
        self.locals = {v.name: v for v in p.locals}
        self.steps: list[S.ActionDecl] = []
        self.can_end = False

    # -- names inside the process
    def _self(self, span: Span) -> S.Expr:
        return S.Name(span, self.p.self_name)

    def _local(self, e: S.Node):
        p = self.p
        if isinstance(e, S.Name) and e.name in self.locals:
            var = S.Name(e.span, f"{p.name}.{e.name}")
            return var if p.domain is None else S.Index(e.span, var, self._self(e.span))
        if isinstance(e, S.LValue) and e.name in self.locals:
            rest = self.inside(e.steps)
            if p.domain is None:
                return dataclasses.replace(e, name=f"{p.name}.{e.name}", steps=rest)
            return dataclasses.replace(e, name=f"{p.name}.{e.name}", steps=(self._self(e.name_span),) + rest,
                                       step_spans=(e.name_span,) + e.step_spans)
        return self.qualify.expr(e)

    def inside(self, node):
        return transform(node, self._local)

    def _check_shadowing(self) -> None:
        reserved = dict.fromkeys(self.locals, "a local variable")
        if self.p.self_name:
            reserved[self.p.self_name] = "the process's instance"
        if not reserved:
            return

        for n in walk(self.p.body):
            bound = []
            if isinstance(n, S.Generator):
                bound = [(x, n.span) for x, _ in n.parts] if n.parts else [(n.name, n.span)]
            elif isinstance(n, (S.Let,)):
                bound = [(n.name, n.name_span)]
            elif isinstance(n, S.LetExpr):
                bound = [(x, sp) for x, sp, _ in n.bindings]
            for x, sp in bound:
                if x in reserved:
                    raise _err(f"`{x}` is {reserved[x]} of process `{self.p.name}`: it cannot be bound again here",
                               sp, "choose another name")

    # -- control
    def _goto(self, label: str, span: Span) -> S.Stmt:
        p = self.p
        target = S.LValue(span, f"{p.name}.{PC}", span, (), ())
        if p.domain is not None:
            target = S.LValue(span, f"{p.name}.{PC}", span, (self._self(span),), (span,))
        return S.Assign(span, target, S.Name(span, label))

    def _seq(self, stmts, i: int, after: Callable[[], list]) -> list:
        """stmts[i:] run in the current step, then `after` (the rest of the enclosing lists)."""
        if i == len(stmts):
            return after()
        s = stmts[i]
        if isinstance(s, S.Labelled):
            return [self._goto(s.label, s.label_span)]
        if isinstance(s, S.Goto):
            if i + 1 < len(stmts):
                raise _err("statements after `goto` are never run", stmts[i + 1].span,
                           "`goto` ends the step: remove them, or label them")
            return [self._goto(s.label, s.label_span)]
        if isinstance(s, S.While):
            raise _err("`while` must be the first statement of a label's block", s.span,
                       "its test is part of the labelled step, and the end of its body goes back to the "
                       "label: write `L:` and the loop under it")
        rest = lambda: self._seq(stmts, i + 1, after)  # noqa: E731
        if not any(isinstance(x, _CONTROL) for x in walk((s,))):  # an ordinary statement
            return [self.inside(s)] + rest()
        # a compound statement with labels or `goto` inside: each branch goes on with the rest
        if isinstance(s, S.With):
            if _has_label(s):
                label = next(_labels(s.body))
                raise _err("a label cannot be inside `with`", label[1],
                           "the value `with` chose is gone in the next step: keep it in a local variable, "
                           "and label the statement after the `with`")
            return [dataclasses.replace(s, binders=self.inside(s.binders), body=tuple(self._seq(s.body, 0, rest)))]
        if isinstance(s, S.If):
            branches = tuple((self.inside(c), tuple(self._seq(b, 0, rest))) for c, b in s.branches)
            orelse = tuple(self._seq(s.orelse or (), 0, rest))
            return [S.If(s.span, branches, orelse)]
        if isinstance(s, S.Either):
            return [S.Either(s.span, tuple(tuple(self._seq(b, 0, rest)) for b in s.branches))]
        raise AssertionError(s)  # pragma: no cover

    def _step_body(self, label: S.Labelled, after: Callable[[], list]) -> list:
        body = label.body
        if body and isinstance(body[0], S.While):
            loop = body[0]
            again = lambda: [self._goto(label.label, loop.span)]  # noqa: E731
            if isinstance(loop.cond, S.BoolLit) and loop.cond.value:  # `while true`: never left
                if len(body) > 1:
                    raise _err("statements after `while true` are never run", body[1].span,
                               "remove them, or give the loop a condition that can become false")
                return self._seq(loop.body, 0, again)
            exit_ = tuple(self._seq(body, 1, after))
            return [S.If(loop.span, ((self.inside(loop.cond), tuple(self._seq(loop.body, 0, again))),), exit_)]
        return self._seq(body, 0, after)

    def _collect(self, stmts, after: Callable[[], list]) -> None:
        """A step for every label in stmts (and nested in them), with what follows each list."""
        for i, s in enumerate(stmts):
            rest = (lambda i=i: self._seq(stmts, i + 1, after))
            if isinstance(s, S.Labelled):
                self._step(s, rest)
                body = s.body
                if body and isinstance(body[0], S.While):
                    label = s
                    self._collect(body[0].body, lambda label=label: [self._goto(label.label, label.label_span)])
                    self._collect(body[1:], rest)
                else:
                    self._collect(body, rest)
            elif isinstance(s, S.If):
                for _, b in s.branches:
                    self._collect(b, rest)
                if s.orelse:
                    self._collect(s.orelse, rest)
            elif isinstance(s, S.Either):
                for b in s.branches:
                    self._collect(b, rest)

    def _step(self, label: S.Labelled, after) -> None:
        p = self.p
        span = label.label_span
        guard = S.Require(span, _at(p, label.label, span, who=self._self(span) if p.domain is not None else None))
        body = (guard,) + tuple(self._step_body(label, after))
        params = (S.Generator(p.self_span, p.self_name, p.domain),) if p.domain is not None else ()
        actor = p.self_name if p.domain is not None else p.name
        self.steps.append(S.ActionDecl(label.span, label.label, span, params, body, actor, None, p.name_span))

    def translate(self) -> tuple[list[S.Decl], ir.Process, bool]:
        p = self.p
        if not p.body or not isinstance(p.body[0], S.Labelled):
            first = p.body[0].span if p.body else p.name_span
            raise _err(f"process `{p.name}` must begin with a label", first,
                       "write `NAME:` and the first step's statements indented under it")
        self._check_shadowing()
        labels = [name for name, _ in _labels(p.body)]
        for s in walk(p.body):
            if isinstance(s, S.Goto) and s.label not in labels:
                raise _err(f"`goto {s.label}`: process `{p.name}` has no label `{s.label}`", s.label_span,
                           "a process can only go to its own labels: " + ", ".join(f"`{x}`" for x in labels))

        def end():
            self.can_end = True
            return [self._goto(DONE, p.name_span)]

        self._collect(p.body, end)
        span, nspan = p.span, p.name_span
        members = tuple((x, sp) for x, sp in _labels(p.body)) + ((DONE, nspan),)
        out: list[S.Decl] = [S.EnumDecl(span, p.name, nspan, members)]
        first = S.Name(nspan, labels[0])
        key = S.ElementType(p.domain.span, p.domain) if p.domain is not None else None

        def per_instance(t: S.TypeExpr) -> S.TypeExpr:
            return t if key is None else S.MapType(t.span, key, t)

        def every(value: S.Expr, sp: Span) -> S.Expr:
            if key is None:
                return value
            gen = S.Generator(sp, p.self_name, p.domain)
            return S.MapComp(sp, S.Name(sp, p.self_name), S.Comprehension(sp, value, (gen,), None))

        out.append(S.VarDecl(nspan, f"{p.name}.{PC}", nspan, per_instance(S.NamedType(nspan, p.name)),
                             every(first, nspan), False))
        for v in p.locals:
            if v.init is None:
                raise _err(f"local variable `{v.name}` has no initial value", v.name_span,
                           f"give it one: `var {v.name}: T = VALUE` (or `in SET`, one initial state per value)")
            init = self.qualify.apply(v.init)
            if v.choice and key is not None:
                init = S.Call(v.init.span, "maps", v.init.span, (p.domain, init))
            elif not v.choice:
                init = every(init, v.init.span)
            out.append(S.VarDecl(v.span, f"{p.name}.{v.name}", v.name_span, per_instance(v.type), init, v.choice))
        out.extend(self.steps)
        if p.fair:
            targets = tuple(S.FairTarget(a.name_span, a.name, (self._self(a.name_span),) if key is not None else None)
                            for a in self.steps)
            gens = (S.Generator(p.self_span, p.self_name, p.domain),) if key is not None else ()
            out.append(S.FairDecl(span, f"fair@{span.line}:{p.name}", nspan, p.fair == "strong", targets, gens))
        info = ir.Process(p.name, span, key is not None, f"{p.name}.{PC}",
                          tuple((v.name, f"{p.name}.{v.name}") for v in p.locals), tuple(labels))
        return out, info, self.can_end
