"""What an editor asks of a spec, without any protocol (servers/lsp_server.py speaks it): the
spec's problems, and an index of the names it declares and where each is written, for hover,
definition, references, rename, completion, the outline and highlighting.

`analyse` never raises for a spec, however broken its text: every problem is a Problem, and an
internal error of the front end on a half-typed text becomes one too (with its code `internal`).

Problems: the syntax errors (lang.parser.parse_recovering: the first of every top-level
declaration), then, when there is none, the errors and warnings of the front end for the base
spec and for each variant (each once; one that a variant alone has says so), the unknown
variants of `expect` lines, and the actions whose guard can never hold (prove.smt's W211, with a
short time budget). A problem in another file (an imported spec, an abstract spec) is placed on
the `import` or `refines` line that brings it in, its own place in `origin`.

The index is built from the syntax tree alone (the declarations that parse, and the files it
imports), so that a file with syntax errors still has one. Names are resolved by the scopes of
the language: a `let`, a parameter, a `with` binder, a generator or a theorem's variable is seen
in its declaration or expression only and shadows the spec's declarations; a process's `self`,
locals and labels inside the process (a local is `P.x` outside it, and a label is also its
process's step, an action); a variant's additions inside that variant; every other declaration
and every enum member everywhere. A name that resolves to nothing (a builtin such as `len`, a
record's field, a typo) is not in the index; the typo is a problem.

Lines and columns are 1-based, as in spans; a column at the end of a name (where an editor's
cursor stands after typing it) is on the name.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import re
from dataclasses import dataclass, field

from tlacheck.compile.model import Model
from tlacheck.core import types as T
from tlacheck.core.errors import Diagnostic, EvalError, SpecError, TlacheckError
from tlacheck.core.files import beside, doc, read_source
from tlacheck.core.source import Source, Span
from tlacheck.core.values import format_value
from tlacheck.ir import nodes as ir
from tlacheck.lang import syntax as S
from tlacheck.lang.parser import KEYWORDS, lexemes, parse_recovering
from tlacheck.lang.typecheck import BUILTINS
from tlacheck.lang.variants import BASE, expectations
from tlacheck.pipeline.driver import Pipeline
from tlacheck.prove.smt import guard_warnings

# The time W211's check may take per action and model: an editor asks on every change.
GUARD_TIMEOUT_S = 0.5

# Kinds of symbol seen everywhere in the spec (unless a variant adds them: then in the variant).
GLOBAL_KINDS = ("constant", "variable", "enum", "member", "action", "def", "block", "type", "invariant",
                "derived", "constraint", "property", "reachable", "theorem", "process", "variant", "refines")
# The other kinds: `label` (a process's step), `local` (a process's variable), `let`, `parameter`
# (of an action, def, block or theorem, a generator's or binder's name, a process's `self`),
# `file` (an `import` or `refines` path: its definition is the file).

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DID_YOU_MEAN = re.compile(r"did you mean `([^`]+)`\?")

_DECL_KINDS = {
    S.ConstDecl: "constant", S.VarDecl: "variable", S.EnumDecl: "enum", S.ActionDecl: "action", S.DefDecl: "def",
    S.BlockDecl: "block", S.TypeDecl: "type", S.InvariantDecl: "invariant", S.DerivedDecl: "derived",
    S.ConstraintDecl: "constraint", S.PropertyDecl: "property", S.ReachableDecl: "reachable",
    S.TheoremDecl: "theorem", S.ProcessDecl: "process", S.VariantDecl: "variant", S.RefinesDecl: "refines",
}


@dataclass(frozen=True)
class Symbol:
    """A declared name: its kind, where its name is written (`span`) and the whole declaration
    (`extent`), the declaration's first line as written (`detail`) and the comment above it or
    on its line (`doc`); `container`: the enum of a member, the process of a label or local, the
    variant that adds a declaration, the declaration a parameter or `let` belongs to. A `file`'s
    `target` is the file it names."""

    name: str
    kind: str
    span: Span
    extent: Span
    detail: str
    doc: str = ""
    container: str | None = None
    target: str | None = None


@dataclass(frozen=True)
class Problem:
    """A diagnostic placed in the analysed file; `origin`: where it really is, when that is
    another file."""

    diagnostic: Diagnostic
    origin: Span | None = None


class Index:
    """The symbols of a spec and every place each is written (the declaration's own name too)."""

    def __init__(self) -> None:
        self.symbols: list[Symbol] = []
        self._by_line: dict[tuple[str, int], list[tuple[Span, Symbol]]] = {}
        self._uses: dict[Symbol, list[Span]] = {}
        # where each local is seen: (its declaration's or expression's span, the symbol, whether
        # that is a whole top-level declaration, whose blank lines after it count too)
        self.scopes: list[tuple[Span, Symbol, bool]] = []

    def add(self, span: Span, symbol: Symbol) -> None:
        self._by_line.setdefault((span.file, span.line), []).append((span, symbol))
        self._uses.setdefault(symbol, []).append(span)

    def at(self, file: str, line: int, column: int) -> tuple[Span, Symbol] | None:
        """The symbol whose name is written at this place, and where (a name the column is
        inside before one it ends at)."""
        found = [(span, s) for span, s in self._by_line.get((file, line), ())
                 if span.column <= column <= span.end_column]
        found.sort(key=lambda x: x[0].end_column == column)
        return found[0] if found else None

    def references(self, symbol: Symbol) -> list[Span]:
        """Every place the symbol's name is written, its declaration first, then in the order of
        the files."""
        return sorted(set(self._uses.get(symbol, ())), key=lambda s: (s != symbol.span, s.file, s.line, s.column))

    def occurrences(self, file: str) -> list[tuple[Span, Symbol]]:
        """Every name of one file that resolves, in the order of the text."""
        out = [x for (f, _), xs in self._by_line.items() if f == file for x in xs]
        return sorted(out, key=lambda x: (x[0].line, x[0].column))


@dataclass
class Analysis:
    """A spec as an editor sees it."""

    source: Source
    problems: list[Problem]
    index: Index
    tree: S.SpecFile | None  # the declarations that parse (None: none does)
    syntax: list[Diagnostic] = field(default_factory=list)  # the syntax errors (their declarations are not in `tree`)
    models: dict[str, Model] = field(default_factory=dict)  # the variants that built, base first
    types: dict[Span, T.Type] = field(default_factory=dict)  # the type of each expression, by its span


def analyse(source: Source) -> Analysis:
    """The problems and the index of a spec's text (`source.name` is its path: imports and
    abstract specs are read beside it, from the disk)."""
    try:
        return _analyse(source)
    except Exception as exc:  # a bug of the front end on a half-typed text must not reach the editor
        problem = Problem(_internal(source, exc))
        return Analysis(source, [problem], Index(), None)


def _internal(source: Source, exc: Exception) -> Diagnostic:
    return Diagnostic("internal", f"internal error (a bug in tlacheck): {type(exc).__name__}: {exc}",
                      source.span(1, 1), "please report it, with the spec")


def _analyse(source: Source) -> Analysis:
    pipeline = Pipeline()  # a file imported by the spec and its variants is read once
    tree, syntax = parse_recovering(source)
    found: list[Diagnostic] = list(syntax)
    resolved = tree
    if tree is not None:
        try:
            resolved = pipeline.resolve(tree, source)
        except TlacheckError as exc:
            found += _diagnostics(exc)
    index = Index()
    if resolved is not None:
        _Indexer(source, index).spec(resolved, tree)
    analysis = Analysis(source, [], index, tree, syntax)
    if not found and tree is not None:
        found += _front_end(pipeline, source, tree, analysis)
    analysis.problems = _placed(source, tree, found)
    return analysis


def _front_end(pipeline: Pipeline, source: Source, tree: S.SpecFile, analysis: Analysis) -> list[Diagnostic]:
    """The errors and warnings of the base spec and of every variant (each once: one that a
    variant alone has says so), the `expect` lines' unknown variants, and W211."""
    out: dict[tuple, Diagnostic] = {}
    try:
        expectations(tree)
    except SpecError as exc:
        for d in exc.diagnostics:
            out.setdefault(_key(d), d)
    names = [BASE] + list(dict.fromkeys(d.name for d in tree.declarations if isinstance(d, S.VariantDecl)))
    for variant in names:
        try:
            model = pipeline.build(source, None, variant)
            diagnostics = list(model.warnings) + guard_warnings(model, GUARD_TIMEOUT_S)
            analysis.models[variant] = model
            _expression_types(model.ir, analysis.types)
        except TlacheckError as exc:
            diagnostics = _diagnostics(exc)
        for d in diagnostics:
            if _key(d) not in out:
                out[_key(d)] = d if variant == BASE else dataclasses.replace(
                    d, message=f"{d.message} (in variant `{variant}`)")
    return list(out.values())


def _key(d: Diagnostic) -> tuple:
    return (d.code, d.message, d.span)


def _diagnostics(exc: TlacheckError) -> list[Diagnostic]:
    if isinstance(exc, SpecError):
        return list(exc.diagnostics)
    if isinstance(exc, EvalError):
        return [exc.diagnostic()]
    return [Diagnostic("", getattr(exc, "message", str(exc)), None, getattr(exc, "hint", None))]


def _placed(source: Source, tree: S.SpecFile | None, diagnostics: list[Diagnostic]) -> list[Problem]:
    """Each diagnostic at a place in this file, in the order of the text: one of another file on
    the `import` or `refines` line that brings that file in (the first one, when none names it
    directly), or else on the first line; one without a place on the first line."""
    here = os.path.abspath(source.name)
    gates: list[tuple[str, Span]] = []
    if tree is not None:
        gates = [(os.path.abspath(beside(source.name, i.path)), i.path_span) for i in tree.imports]
        gates += [(os.path.abspath(beside(source.name, d.path)), d.path_span)
                  for d in tree.declarations if isinstance(d, S.RefinesDecl)]
    out = []
    for d in diagnostics:
        if d.span is not None and os.path.abspath(d.span.file) == here:
            out.append(Problem(d))
            continue
        origin = d.span
        gate = None
        if origin is not None:
            gate = next((span for path, span in gates if path == os.path.abspath(origin.file)), None)
        if gate is None:
            gate = gates[0][1] if gates and origin is not None else source.span(1, 1)
        message = f"{origin}: {d.message}" if origin is not None else d.message
        out.append(Problem(dataclasses.replace(d, message=message, span=gate), origin))
    return sorted(out, key=lambda p: (p.diagnostic.span.line, p.diagnostic.span.column))


def _expression_types(spec: ir.Spec, types: dict[Span, T.Type]) -> None:
    """The type of every expression of the IR, by its span (the outermost where several share
    one), added to `types` where it has none yet."""
    seen: set[int] = set()

    def walk(node) -> None:
        if isinstance(node, (tuple, list)):
            for x in node:
                walk(x)
            return
        if not dataclasses.is_dataclass(node) or type(node).__module__ != ir.__name__ or id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, ir.Expr):
            types.setdefault(node.span, node.type)
        for f in dataclasses.fields(node):
            walk(getattr(node, f.name))

    walk(spec)


# ---------------------------------------------------------------- building the index

class _Texts:
    """The lines of the files the index quotes (the spec's, and those it imports, read once)."""

    def __init__(self, source: Source):
        self.lines = {source.name: source.text.split("\n")}

    def of(self, file: str) -> list[str]:
        if file not in self.lines:
            try:
                self.lines[file] = read_source(file).text.split("\n")
            except TlacheckError:
                self.lines[file] = []
        return self.lines[file]

    def line(self, span: Span) -> str:
        lines = self.of(span.file)
        return lines[span.line - 1] if 0 < span.line <= len(lines) else ""

    def detail(self, span: Span) -> str:
        """A declaration's first line, without its comment or a trailing `:`."""
        text = _code(self.line(span)).strip()
        return text[:-1].rstrip() if text.endswith(":") else text

    def doc(self, span: Span) -> str:
        """The comment lines right above a declaration and its line's own comment."""
        lines = self.of(span.file)
        above = []
        i = span.line - 2
        while 0 <= i < len(lines) and lines[i].strip().startswith("#"):
            above.append(lines[i].strip().lstrip("#").strip())
            i -= 1
        own = self.line(span)
        trailing = own[len(_code(own)):].strip().lstrip("#").strip()
        return "\n".join(list(reversed(above)) + ([trailing] if trailing else []))

    def name_in(self, span: Span, name: str) -> Span:
        """The span of `name` written first in `span` (a generator's name, after its `for`)."""
        m = re.compile(rf"\b{re.escape(name)}\b").search(self.line(span), span.column - 1)
        if m is None:
            return _name_span(span, name)
        return Span(span.file, span.line, m.start() + 1, span.line, m.end() + 1)

    def name_at_end(self, span: Span, name: str) -> Span:
        """The span of `name` written last in `span` (a field's name in `r.f`)."""
        text = self.line(Span(span.file, span.end_line, 1, span.end_line, 1))[:span.end_column - 1].rstrip()
        end = len(text) + 1
        return Span(span.file, span.end_line, end - len(name), span.end_line, end)


def _code(line: str) -> str:
    """A line without its trailing comment (a `#` inside a string stays)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i].rstrip()
    return line.rstrip()


def _name_span(span: Span, name: str) -> Span:
    """The span of a name written at the start of `span`."""
    return Span(span.file, span.line, span.column, span.line, span.column + len(name))


Scope = dict  # name -> Symbol


class _Indexer:
    def __init__(self, source: Source, index: Index):
        self.source = source
        self.index = index
        self.texts = _Texts(source)
        self.globals: Scope = {}
        # a process's locals and labels, by (the variant that replaces it or None, its name)
        self.process_scopes: dict[tuple[str | None, str], Scope] = {}

    # -- symbols
    def declare(self, name: str, kind: str, span: Span, extent: Span, container: str | None = None,
                detail: str | None = None, target: str | None = None) -> Symbol:
        symbol = Symbol(name, kind, span, extent, detail if detail is not None else self.texts.detail(extent),
                        self.texts.doc(extent) if kind not in ("parameter", "file") else "", container, target)
        self.index.symbols.append(symbol)
        self.index.add(span, symbol)
        return symbol

    def use(self, name: str, span: Span | None, scope: Scope) -> Symbol | None:
        symbol = scope.get(name) or self.globals.get(name)
        if symbol is not None and span is not None:
            self.index.add(span, symbol)
        return symbol

    def local(self, name: str, span: Span, kind: str, seen: Span, scope: Scope, container: str | None,
              whole: bool, detail: str | None = None) -> Scope:
        symbol = self.declare(name, kind, span, span, container, detail or self.texts.detail(span))
        self.index.scopes.append((seen, symbol, whole))
        return {**scope, name: symbol}

    # -- the spec
    def spec(self, tree: S.SpecFile, own: S.SpecFile | None) -> None:
        """Index `tree` (the spec with its imports' declarations); `own` (the spec as parsed)
        gives the `import` lines."""
        for imp in (own.imports if own is not None else ()):
            self.declare(imp.path, "file", imp.path_span, imp.span, detail=f'import "{imp.path}"',
                         target=beside(self.source.name, imp.path))
        for d in tree.declarations:
            self.top(d, None, self.globals)
        for d in tree.declarations:
            self.body(d, {}, None)

    def top(self, d: S.Decl, container: str | None, names: Scope) -> None:
        """Declare a declaration's names (before any body is read: order does not matter)."""
        kind = _DECL_KINDS.get(type(d))
        if kind is None:
            return
        symbol = self.declare(d.name, kind, d.name_span, d.span, container)
        names.setdefault(d.name, symbol)
        if isinstance(d, S.EnumDecl):
            for member, span in d.members:
                names.setdefault(member, self.declare(member, "member", span, d.span, d.name))
        elif isinstance(d, S.ConstDecl) and isinstance(d.type, S.SetType) and isinstance(d.type.element, S.ModelType) \
                and isinstance(d.default, S.SetLit):  # `const T: set[model] = {t1, t2}` declares t1 and t2
            for value in d.default.elements:
                if isinstance(value, S.Name):
                    names.setdefault(value.name, self.declare(value.name, "member", value.span, d.span, d.name))
        elif isinstance(d, S.ProcessDecl):
            for label in self.process_names(d, container).values():
                if label.kind == "label":  # its step, an action, and a member of the process's enum
                    names.setdefault(label.name, label)
        elif isinstance(d, S.VariantDecl):
            for how, item in d.items:
                if how == "add":
                    self.top(item, d.name, {})  # seen in the variant only
        elif isinstance(d, S.RefinesDecl):
            self.declare(d.path, "file", d.path_span, d.span, detail=f'refines {d.name} "{d.path}"',
                         target=beside(d.path_span.file, d.path))

    def process_names(self, d: S.ProcessDecl, variant: str | None) -> Scope:
        """Declare a process's locals and labels."""
        inner: Scope = {}
        for v in d.locals:
            inner[v.name] = self.declare(v.name, "local", v.name_span, v.span, d.name)
        for label in _labels(d.body):
            inner.setdefault(label.label, self.declare(label.label, "label", label.label_span, label.label_span,
                                                       d.name))
        self.process_scopes[(variant, d.name)] = inner
        return inner

    def body(self, d: S.Decl, scope: Scope, variant: str | None) -> None:
        """Resolve the names a declaration uses."""
        if isinstance(d, (S.ConstDecl, S.VarDecl)):
            self.type(d.type, scope)
            value = d.default if isinstance(d, S.ConstDecl) else d.init
            if value is not None:
                self.expr(value, scope)
        elif isinstance(d, S.TypeDecl):
            self.type(d.type, scope)
        elif isinstance(d, S.ActionDecl):
            inner = self.generators(d.params, scope, d.span, d.name, True)
            if d.actor is not None:
                self.use(d.actor, d.actor_span, inner)
            if d.sends_to is not None:
                self.expr(d.sends_to, inner)
            self.block(d.body, inner, d.span, d.name)
        elif isinstance(d, (S.DefDecl, S.BlockDecl, S.TheoremDecl)):
            inner = scope
            for name, span, t in d.params:
                if t is not None:
                    self.type(t, scope)
                written = self.texts.line(span)[span.column - 1:t.span.end_column - 1] \
                    if t is not None and t.span.line == span.line else name
                inner = self.local(name, span, "parameter", d.span, inner, d.name, True, written)
            if isinstance(d, S.DefDecl):
                self.type(d.returns, scope)
            if isinstance(d, S.BlockDecl):
                self.block(d.body, inner, d.span, d.name)
            else:
                self.expr(d.body, inner)
        elif isinstance(d, (S.InvariantDecl, S.DerivedDecl, S.ConstraintDecl, S.PropertyDecl, S.ReachableDecl,
                            S.InitDecl)):
            self.expr(d.body, scope)
        elif isinstance(d, S.FairDecl):
            inner = self.generators(d.generators, scope, d.span, None, True)
            for t in d.targets:
                self.use(t.action, _name_span(t.span, t.action), scope)
                for a in t.args or ():
                    if a is not None:
                        self.expr(a, inner)
        elif isinstance(d, S.ProcessDecl):
            inner = {**scope, **self.process_scopes.get((variant, d.name), self.process_scopes.get((None, d.name), {}))}
            if d.domain is not None:
                self.expr(d.domain, scope)
            if d.self_name is not None and d.self_span is not None:
                inner = self.local(d.self_name, d.self_span, "parameter", d.span, inner, d.name, True,
                                   self.texts.line(d.self_span)[d.self_span.column - 1:d.domain.span.end_column - 1]
                                   if d.domain is not None and d.domain.span.line == d.self_span.line else None)
            for v in d.locals:
                self.body(v, inner, variant)
            self.block(d.body, inner, d.span, d.name)
        elif isinstance(d, S.VariantDecl):
            self.variant(d)
        elif isinstance(d, S.ExpectDecl):
            if d.name != BASE:
                self.use(d.name, d.name_span, scope)
            if d.check is not None:
                self.use(d.check, d.check_span, scope)
        elif isinstance(d, S.RefinesDecl):
            self.refines(d, scope)
        elif isinstance(d, S.ConformDecl):
            self.conform(d, scope)
        elif isinstance(d, (S.RemoveAction, S.ExtendAction)):
            self.use(d.name, d.name_span, scope)
            if isinstance(d, S.ExtendAction):
                base = self.globals.get(d.name)
                inner = dict(scope)
                if base is not None:  # the extended action's parameters are seen in its parts
                    inner.update({s.name: s for seen, s, _ in self.index.scopes
                                  if s.container == d.name and seen == base.extent})
                self.block(d.before + d.after, inner, d.span, d.name)

    def variant(self, d: S.VariantDecl) -> None:
        own = {s.name: s for s in self.index.symbols if s.container == d.name and s.kind in GLOBAL_KINDS}
        for how, item in d.items:
            if how == "replace" and isinstance(item, S.Decl) and not isinstance(item, (S.ExpectDecl, S.FairDecl)):
                self.use(item.name, item.name_span, {})
            if how == "replace" and isinstance(item, S.ProcessDecl):
                self.process_names(item, d.name)
            self.body(item, own, d.name)

    def refines(self, d: S.RefinesDecl, scope: Scope) -> None:
        """The mapping's names are the abstract spec's variables and constants: declared in its
        file (read beside this one) when it parses."""
        path = beside(d.path_span.file, d.path)
        abstract: Scope = {}
        try:
            tree, _ = parse_recovering(read_source(path))
        except TlacheckError:
            tree = None
        for a in (tree.declarations if tree is not None else ()):
            if isinstance(a, (S.VarDecl, S.ConstDecl)):
                abstract.setdefault(a.name, self.declare(a.name, _DECL_KINDS[type(a)], a.name_span, a.span,
                                                         f"refines {d.name}"))
        for name, span, e in d.mapping:
            if name in abstract:
                self.use(name, span, abstract)
            self.expr(e, scope)

    def conform(self, d: S.ConformDecl, scope: Scope) -> None:
        for line in d.lines:
            for step in line.steps:
                action = self.use(step.action, step.action_span, scope)
                params = {s.name: s for seen, s, _ in self.index.scopes
                          if action is not None and s.container == action.name and seen == action.extent}
                for param, span, _, _ in step.args:
                    if param in params:
                        self.use(param, span, params)
            for name, span in line.names:
                self.use(name, span, scope)
            for _, _, member, span in line.pairs:
                self.use(member, span, scope)

    # -- statements and expressions
    def generators(self, gens, scope: Scope, seen: Span, container: str | None, whole: bool) -> Scope:
        for g in gens:
            self.expr(g.domain, scope)
            for name, span in (g.parts or ((g.name, self.texts.name_in(g.span, g.name)),)):
                scope = self.local(name, span, "parameter", seen, scope, container, whole,
                                   self.texts.line(g.span)[g.span.column - 1:g.domain.span.end_column - 1]
                                   if g.span.line == g.domain.span.end_line else None)
        return scope

    def block(self, stmts, scope: Scope, seen: Span, container: str | None) -> None:
        for s in stmts:
            if isinstance(s, S.Let):
                self.expr(s.value, scope)
                scope = self.local(s.name, s.name_span, "let", seen, scope, container, True,
                                   self.texts.detail(s.span))
            else:
                self.stmt(s, scope, seen, container)

    def stmt(self, s, scope: Scope, seen: Span, container: str | None) -> None:
        if isinstance(s, S.Assign):
            self.use(s.target.name, s.target.name_span, scope)
            for step in s.target.steps:
                if isinstance(step, S.Expr):
                    self.expr(step, scope)
            self.expr(s.value, scope)
        elif isinstance(s, S.If):
            for cond, body in s.branches:
                self.expr(cond, scope)
                self.block(body, scope, seen, container)
            self.block(s.orelse or (), scope, seen, container)
        elif isinstance(s, S.Either):
            for body in s.branches:
                self.block(body, scope, seen, container)
        elif isinstance(s, S.With):
            self.block(s.body, self.generators(s.binders, scope, s.span, container, False), seen, container)
        elif isinstance(s, S.BlockCall):
            self.use(s.name, s.name_span, scope)
            for a in s.args:
                self.expr(a, scope)
        elif isinstance(s, (S.Labelled, S.Scoped)):
            self.block(s.body, scope, seen, container)
        elif isinstance(s, S.While):
            self.expr(s.cond, scope)
            self.block(s.body, scope, seen, container)
        elif isinstance(s, S.Goto):
            self.use(s.label, s.label_span, scope)
        elif isinstance(getattr(s, "cond", None), S.Expr):  # `require`, `await`
            self.expr(s.cond, scope)

    def expr(self, e, scope: Scope) -> None:
        if isinstance(e, S.Name):
            self.use(e.name, e.span, scope)
        elif isinstance(e, S.Call):
            self.use(e.name, e.name_span, scope)
            for a in e.args:
                self.expr(a, scope)
            if e.comprehension is not None:
                self.comprehension(e.comprehension, scope)
        elif isinstance(e, (S.SetComp, S.SeqComp)):
            self.comprehension(e.comprehension, scope)
        elif isinstance(e, S.MapComp):
            inner = self.generators(e.comprehension.generators, scope, e.span, None, False)
            self.expr(e.key, inner)
            self.comprehension(e.comprehension, scope, inner)
        elif isinstance(e, S.LetExpr):
            inner = scope
            for name, span, value in e.bindings:
                self.expr(value, inner)
                inner = self.local(name, span, "let", e.span, inner, None, False)
            self.expr(e.body, inner)
        elif isinstance(e, S.RecordLit):
            for _, _, value in e.fields:
                self.expr(value, scope)
        elif isinstance(e, S.MapLit):
            for k, v in e.entries:
                self.expr(k, scope)
                self.expr(v, scope)
        elif isinstance(e, S.Field):
            self.expr(e.target, scope)
            self.field(e, scope)
        elif isinstance(e, S.Node):
            self.children(e, scope)

    def children(self, node: S.Node, scope: Scope) -> None:
        """Resolve the expressions and types right inside a node (the nodes without names of
        their own: operators, literals, indexes, type constructors)."""
        for value in vars(node).values():
            for child in (value if isinstance(value, tuple) else (value,)):
                if isinstance(child, S.Expr):
                    self.expr(child, scope)
                elif isinstance(child, S.TypeExpr):
                    self.type(child, scope)

    def field(self, e: S.Field, scope: Scope) -> None:
        """`P.x`, `P[i].x`: a process's local; `E.m`: an enum's member."""
        target = e.target.target if isinstance(e.target, S.Index) else e.target
        if not isinstance(target, S.Name):
            return
        owner = scope.get(target.name) or self.globals.get(target.name)
        if owner is None or owner.kind not in ("process", "enum"):
            return
        if owner.kind == "process":
            member = self.process_scopes.get((None, owner.name), {}).get(e.name)
            member = member if member is not None and member.kind == "local" else None
        else:
            member = next((s for s in self.index.symbols if s.kind == "member" and s.container == owner.name
                           and s.name == e.name), None)
        if member is not None:
            self.index.add(self.texts.name_at_end(e.span, e.name), member)

    def comprehension(self, c: S.Comprehension, scope: Scope, inner: Scope | None = None) -> None:
        inner = inner if inner is not None else self.generators(c.generators, scope, c.span, None, False)
        self.expr(c.element, inner)
        if c.cond is not None:
            self.expr(c.cond, inner)

    def type(self, t, scope: Scope) -> None:
        if isinstance(t, S.NamedType):
            self.use(t.name, _name_span(t.span, t.name), scope)
        elif isinstance(t, S.RecordType):
            for _, ft in t.fields:
                self.type(ft, scope)
        elif isinstance(t, S.Node):
            self.children(t, scope)


def _labels(body) -> list[S.Labelled]:
    out = []
    for s in body:
        if isinstance(s, S.Labelled):
            out.append(s)
            out += _labels(s.body)
        elif isinstance(s, (S.While, S.With, S.Scoped)):
            out += _labels(s.body)
        elif isinstance(s, S.If):
            for _, b in s.branches:
                out += _labels(b)
            out += _labels(s.orelse or ())
        elif isinstance(s, S.Either):
            for b in s.branches:
                out += _labels(b)
    return out


# ---------------------------------------------------------------- what an editor asks

def symbol_at(analysis: Analysis, line: int, column: int) -> tuple[Span, Symbol] | None:
    """The symbol whose name is written at this place of the analysed file, and where."""
    return analysis.index.at(analysis.source.name, line, column)


def definition(analysis: Analysis, line: int, column: int) -> Span | None:
    """Where the name at this place is declared (for an `import` or `refines` path: the file)."""
    found = symbol_at(analysis, line, column)
    if found is None:
        return None
    symbol = found[1]
    return Span(symbol.target, 1, 1, 1, 1) if symbol.target is not None else symbol.span


def references(analysis: Analysis, line: int, column: int, declaration: bool = True) -> list[Span]:
    """Every place the name at this place is written (its declaration first, with `declaration`)."""
    found = symbol_at(analysis, line, column)
    if found is None:
        return []
    symbol = found[1]
    return [s for s in analysis.index.references(symbol) if declaration or s != symbol.span]


_KIND_WORDS = {"constant": "constant", "variable": "variable", "enum": "enum", "member": "enum member",
               "action": "action", "def": "function", "block": "block", "type": "type", "invariant": "invariant",
               "derived": "derived value", "constraint": "state constraint", "property": "temporal property",
               "reachable": "reachable check", "theorem": "theorem", "process": "process", "variant": "variant",
               "refines": "refinement", "label": "label", "local": "process variable", "let": "let",
               "parameter": "parameter",
               "file": "file"}


def hover(analysis: Analysis, line: int, column: int) -> tuple[Span, str] | None:
    """What an editor shows over the name at this place, as Markdown: the declaration's line,
    its kind and type (a local's as inferred, a constant's value), and its comment."""
    found = symbol_at(analysis, line, column)
    if found is None:
        return _builtin_hover(analysis, line, column)
    at, symbol = found
    facts = [_KIND_WORDS.get(symbol.kind, symbol.kind)]
    if symbol.kind == "member":
        facts = [f"member of enum {symbol.container}" if symbol.detail.startswith("enum ")
                 else f"model value of {symbol.container}"]
    elif symbol.kind == "label":
        facts = [f"label of process {symbol.container}: its step, the action `{symbol.name}`"]
    elif symbol.kind == "local":
        facts = [f"variable of process {symbol.container}"]
    model = _model_of(analysis, symbol)
    if symbol.kind == "constant" and model is not None:
        for c, value in zip(model.ir.constants, model.constants):
            if c.name == symbol.name:
                facts.append(f"type `{c.type}`")
                facts.append(f"value `{format_value(value, c.type)}`")
    elif symbol.kind in ("variable", "local") and model is not None:
        shown = symbol.name if symbol.kind == "variable" else f"{symbol.container}.{symbol.name}"
        for v in model.ir.variables:
            if v.name == shown:
                facts.append(f"type `{v.type}`" if symbol.kind == "variable" else f"`{shown}`: `{v.type}`")
    elif symbol.kind in ("parameter", "let"):
        t = _local_type(analysis, symbol)
        if t is not None:
            facts.append(f"type `{t}`")
    elif symbol.kind == "file" and symbol.target is not None:
        facts.append(f"`{symbol.target}`")
    text = f"```tlacheck\n{symbol.detail}\n```\n\n" + " · ".join(facts)
    if symbol.doc:
        text += "\n\n---\n\n" + symbol.doc
    return at, text


def _builtin_hover(analysis: Analysis, line: int, column: int) -> tuple[Span, str] | None:
    """A builtin function's name at this place (one that no declaration shadows): what the
    language reference says of it."""
    for tok in lexemes(analysis.source, partial=True):
        if tok.line == line and tok.column <= column < tok.column + len(tok.text):
            text = builtin_help(tok.text) if tok.kind == "NAME" else None
            if text is None:
                return None
            return Span(analysis.source.name, line, tok.column, line, tok.column + len(tok.text)), text
    return None


@functools.cache
def builtin_help(name: str) -> str | None:
    """What docs/language.md says of the builtin NAME, as Markdown: the rows of its tables that
    write `NAME(` (the signature, type and result), else the first sentence of its own section
    (`### `NAME(...)``); None for a name that is no builtin or that the page does not have."""
    page = doc("language.md") if name in BUILTINS else None
    if page is None:
        return None
    lines = page.read_text(encoding="utf-8").splitlines()
    written = re.compile(rf"`{name}\(")
    rows = []
    for row in lines:
        cells = [c.strip() for c in row.strip().strip("|").split("|")] if row.startswith("| `") else []
        if cells and written.search(cells[0]):
            rows.append(" · ".join(c for c in cells if c))
    if not rows:
        heading = next((i for i, text in enumerate(lines) if text.startswith("#") and written.search(text)), None)
        if heading is None:
            return None
        paragraph = []
        for text in lines[heading + 1:]:
            if text.startswith("#") or not text.strip() and paragraph:
                break
            if text.strip():
                paragraph.append(text.strip())
        rows = [re.split(r"(?<=\.) (?=[A-Z`])", " ".join(paragraph))[0]]  # its first sentence
    return f"builtin function `{name}`\n\n" + "\n\n".join(rows)


def _model_of(analysis: Analysis, symbol: Symbol) -> Model | None:
    """The model a declaration is in: the variant's that adds it, else the base's."""
    if symbol.container in analysis.models and symbol.kind in GLOBAL_KINDS:
        return analysis.models[symbol.container]
    if symbol.container is not None and symbol.container.startswith("refines "):
        return None  # an abstract spec's
    return analysis.models.get(BASE) or next(iter(analysis.models.values()), None)


def _local_type(analysis: Analysis, symbol: Symbol) -> T.Type | None:
    """A parameter's or `let`'s type, as inferred where it is used."""
    for span in analysis.index.references(symbol):
        if span in analysis.types:
            return analysis.types[span]
    return None


@dataclass(frozen=True)
class Completion:
    """A word an editor may complete: a name (its symbol's kind), a `keyword` or a `builtin`."""

    label: str
    kind: str
    detail: str = ""


def completions(analysis: Analysis, line: int, column: int) -> list[Completion]:
    """The words to complete at this place (the cursor before `column`): after `P.`, a process's
    locals or an enum's members; elsewhere the names seen there (the innermost first), the
    builtins and the keywords. On a line being typed, the names of the declaration around it
    come from the text without that line when the text with it does not parse."""
    source = analysis.source
    lines = source.text.split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    before = text[:max(column - 1, 0)]
    word = re.search(r"[A-Za-z0-9_]*$", before)
    start = word.start() if word else len(before)
    owner = re.search(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\[\]]*\])?\.$", before[:start])
    if owner is not None:
        return _members(analysis.index, owner.group(1))
    index, tree = _index_around(analysis, line)
    seen = [Completion(s.name, s.kind, s.detail) for s in visible(index, tree, source.name, line, column)]
    seen += [Completion(name, "builtin", f"{name}(...)") for name in sorted(BUILTINS)]
    seen += [Completion(word, "keyword") for word in sorted(KEYWORDS)]
    return seen


def _members(index: Index, owner: str) -> list[Completion]:
    kinds = {s.kind for s in index.symbols if s.name == owner and s.container is None}
    if "process" in kinds:
        return [Completion(s.name, s.kind, s.detail) for s in index.symbols
                if s.container == owner and s.kind == "local"]
    if "enum" in kinds:
        return [Completion(s.name, s.kind, s.detail) for s in index.symbols
                if s.container == owner and s.kind == "member"]
    return []


def _index_around(analysis: Analysis, line: int) -> tuple[Index, S.SpecFile | None]:
    """An index that has the declaration around `line`: the analysis's when it does, else the one
    of the text with that line made `skip` or blank (it is being typed), else the analysis's."""
    lines = analysis.source.text.split("\n")
    chunk = _chunk(lines, line)
    if not any(d.span is not None and d.span.line in chunk for d in analysis.syntax):
        return analysis.index, analysis.tree
    if 0 < line <= len(lines):
        indent = lines[line - 1][:len(lines[line - 1]) - len(lines[line - 1].lstrip())]
        for replacement in (indent + "skip", ""):
            text = "\n".join(lines[:line - 1] + [replacement] + lines[line:])
            source = Source(analysis.source.name, text)
            tree, _ = parse_recovering(source)
            if tree is not None and _declaration_at(tree, source.name, line) is not None:
                return _index_of(source, tree), tree
    return analysis.index, analysis.tree


def _chunk(lines: list[str], line: int) -> range:
    """The 1-based lines of the top-level declaration around `line`, as the parser's recovery
    cuts them: from the line at column 0 that starts it to the next one."""
    def starts(i: int) -> bool:
        return bool(lines[i - 1]) and not lines[i - 1][0].isspace() and not lines[i - 1].startswith("#")

    first = next((i for i in range(min(line, len(lines)), 0, -1) if starts(i)), 1)
    end = next((i for i in range(line + 1, len(lines) + 1) if starts(i)), len(lines) + 1)
    return range(first, end)


def _index_of(source: Source, tree: S.SpecFile) -> Index:
    try:
        resolved = Pipeline().resolve(tree, source)
    except TlacheckError:
        resolved = tree
    index = Index()
    _Indexer(source, index).spec(resolved, tree)
    return index


def _declaration_at(tree: S.SpecFile, file: str, line: int) -> S.Decl | None:
    """The top-level declaration of this file whose lines hold `line`: from its first line to the
    line before the next declaration (the blank lines after a block are where it goes on)."""
    decls = sorted((d for d in tree.declarations if d.span.file == file), key=lambda d: d.span.line)
    for d, after in zip(decls, decls[1:] + [None]):
        last = after.span.line - 1 if after is not None else max(d.span.end_line, line)
        if d.span.line <= line <= last:
            return d
    return None


def visible(index: Index, tree: S.SpecFile | None, file: str, line: int, column: int) -> list[Symbol]:
    """The names seen at a place, each once, the innermost first: the bound names whose scope
    holds it, a process's locals and labels inside it, a variant's additions inside it, then the
    spec's declarations."""
    around = _declaration_at(tree, file, line) if tree is not None else None
    seen: dict[str, Symbol] = {}
    inner = []
    for scope, symbol, whole in index.scopes:
        if scope.file != file:
            continue
        if (scope.line, scope.column) <= (line, column) <= (scope.end_line, scope.end_column) or (
                whole and around is not None and scope.line == around.span.line):
            inner.append((scope.line, scope.column, symbol))
    for _, _, symbol in sorted(inner, key=lambda x: (x[0], x[1]), reverse=True):
        seen.setdefault(symbol.name, symbol)
    if around is not None:
        for symbol in index.symbols:
            if symbol.container == around.name and symbol.kind in ("local", "label") + GLOBAL_KINDS \
                    and symbol.kind != "member":
                seen.setdefault(symbol.name, symbol)
    for symbol in index.symbols:
        if symbol.kind in GLOBAL_KINDS and (symbol.container is None or symbol.kind == "member"):
            seen.setdefault(symbol.name, symbol)
    return list(seen.values())


class RenameRefused(Exception):
    """Why the name at a place cannot be renamed, or not to that name."""


def rename(analysis: Analysis, line: int, column: int, new_name: str) -> dict[str, list[Span]]:
    """The places to write `new_name` at, by file, to rename the name at this place everywhere
    it is written (in this spec and the files it imports). Raises RenameRefused."""
    found = symbol_at(analysis, line, column)
    if found is None or found[1].kind == "file":
        raise RenameRefused("there is no name to rename here")
    symbol = found[1]
    if not _NAME.fullmatch(new_name) or new_name in KEYWORDS:
        raise RenameRefused(f"`{new_name}` is not a name (a letter or `_`, then letters, digits and `_`; "
                            "not a keyword)")
    if new_name != symbol.name:
        clash = next((s for s in analysis.index.symbols if s.name == new_name and s.kind != "file" and (
            (s.kind in GLOBAL_KINDS and s.container is None) or s.container == symbol.container)), None)
        if clash is not None:
            raise RenameRefused(f"`{new_name}` is already declared at {clash.span}")
    out: dict[str, list[Span]] = {}
    for span in analysis.index.references(symbol):
        out.setdefault(span.file, []).append(span)
    return out


def quick_fixes(source: Source, diagnostic: Diagnostic) -> list[tuple[str, Span]]:
    """The edits a diagnostic's did-you-mean hint offers: (the name to write, the span of the
    misspelt name it replaces), the name of the diagnostic's range closest to the hint (its
    first line's, for a range of several lines)."""
    span = diagnostic.span
    if span is None or not diagnostic.hint:
        return []
    text = source.line_text(span.line)
    end = span.end_column if span.end_line == span.line else len(text) + 1
    fixes = []
    for wanted in _DID_YOU_MEAN.findall(diagnostic.hint):
        words = [m for m in _NAME.finditer(text, span.column - 1, max(end - 1, span.column - 1)) if m.group() != wanted]
        if not words:
            continue
        best = max(words, key=lambda m: (difflib.SequenceMatcher(None, m.group().lower(), wanted.lower()).ratio(),
                                          m.start()))
        fixes.append((wanted, Span(span.file, span.line, best.start() + 1, span.line, best.end() + 1)))
    return fixes


# ---------------------------------------------------------------- outline and highlighting

@dataclass(frozen=True)
class Outline:
    """A declaration of the file, and those inside it (an enum's members, a process's variables
    and labels, what a variant adds, replaces, extends or removes)."""

    name: str
    kind: str  # a symbol's kind (GLOBAL_KINDS, `local`, `label`, `file`)
    span: Span
    extent: Span
    detail: str
    children: tuple["Outline", ...] = ()


def outline(analysis: Analysis) -> list[Outline]:
    """The declarations of the analysed file that parse, in the order of the text."""
    tree = analysis.tree
    if tree is None:
        return []
    texts = _Texts(analysis.source)
    out = [Outline(i.path, "file", i.path_span, i.span, f'import "{i.path}"') for i in tree.imports]
    return out + [o for d in tree.declarations if (o := _outlined(d, texts)) is not None]


def _outlined(d: S.Decl, texts: _Texts) -> Outline | None:
    kind = "action" if isinstance(d, (S.ExtendAction, S.RemoveAction)) else _DECL_KINDS.get(type(d))
    if kind is None:
        return None
    children: list[Outline] = []
    if isinstance(d, S.EnumDecl):
        children = [Outline(m, "member", span, span, f"a member of enum {d.name}") for m, span in d.members]
    elif isinstance(d, S.ProcessDecl):
        children = [Outline(v.name, "local", v.name_span, v.span, texts.detail(v.span)) for v in d.locals]
        children += [Outline(label.label, "label", label.label_span, label.span, f"{label.label}:")
                     for label in _labels(d.body)]
    elif isinstance(d, S.VariantDecl):
        children = [o for _, item in d.items if (o := _outlined(item, texts)) is not None]
    return Outline(d.name, kind, d.name_span, d.span, texts.detail(d.span), tuple(children))


# Semantic token types and modifiers (LSP's standard names; a type's or modifier's number is its
# position here).
TOKEN_TYPES = ("keyword", "variable", "parameter", "enum", "enumMember", "function", "type", "property",
               "namespace", "label", "comment", "string", "number", "operator")
TOKEN_MODIFIERS = ("declaration", "readonly", "defaultLibrary")
_SYMBOL_TOKENS = {"constant": "variable", "variable": "variable", "local": "variable", "let": "variable",
                  "parameter": "parameter",
                  "enum": "enum", "member": "enumMember", "action": "function", "def": "function",
                  "block": "function", "type": "type", "process": "namespace", "variant": "namespace",
                  "label": "label", "file": "string"}


def highlights(analysis: Analysis) -> list[tuple[int, int, int, str, tuple[str, ...]]]:
    """(line, column, length, token type, modifiers) of every token of the analysed file, in
    order, names by what they resolve to (a name that resolves to nothing but a builtin is left
    to the editor's grammar). A text that does not lex is highlighted up to where it stops."""
    source = analysis.source
    names = {(span.line, span.column): (span, symbol) for span, symbol in analysis.index.occurrences(source.name)}
    out = []
    for tok in lexemes(source, partial=True):
        kind, modifiers = None, ()
        if tok.kind == "COMMENT":
            kind = "comment"
        elif tok.kind == "STRING":
            kind = "string"
        elif tok.kind == "INT":
            kind = "number"
        elif tok.kind == "NAME":
            found = names.get((tok.line, tok.column))
            if found is not None:
                span, symbol = found
                kind = _SYMBOL_TOKENS.get(symbol.kind, "property")
                modifiers = (("declaration",) if span == symbol.span else ()) + \
                    (("readonly",) if symbol.kind in ("constant", "member") else ())
            elif tok.text in BUILTINS:
                kind, modifiers = "function", ("defaultLibrary",)
        elif tok.text in KEYWORDS:
            kind = "keyword"
        elif tok.kind != "BACKSLASH":
            kind = "operator"
        if kind is not None:
            out.append((tok.line, tok.column, len(tok.text), kind, modifiers))
    return out
