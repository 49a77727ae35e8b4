"""Refinement, the front end's pass: `refines NAME "FILE":` completed on the syntax tree.

`load` reads each abstract spec (beside the file that names it), with the files it imports,
and completes the declaration: the abstract spec's variables and constants, and the mapping of
each abstract name that has no mapping line to the name it has in this spec (TLA+'s implicit
substitution: this spec's variable or constant of that name, or its `def` of that name without
parameters; an abstract constant without one keeps its own value). What a refinement means and
how it is checked: compile/refinement.py, which builds the abstract models.
"""

from __future__ import annotations

import dataclasses
import os

from tlacheck.core.errors import SpecError, TlacheckError
from tlacheck.core.files import beside
from tlacheck.core.source import Source
from tlacheck.lang import syntax as S
from tlacheck.lang.modules import Read


def _err(message: str, span, hint: str | None = None) -> SpecError:
    return SpecError.single("E130", message, span, hint)


def load(tree: S.SpecFile, source: Source, read: Read) -> tuple[S.SpecFile, dict[str, Source]]:
    """The tree with each `refines` completed (the abstract spec's variables and constants, and
    the implicit mappings), and the abstract specs' sources by refinement name. `read` reads and
    parses a file, and resolves its imports (the abstract spec's variables and constants include
    those of the files it imports)."""
    found = [d for d in tree.declarations if isinstance(d, S.RefinesDecl)]
    if not found:
        return tree, {}
    names = _concrete_names(tree)
    sources: dict[str, Source] = {}
    completed: dict[int, S.RefinesDecl] = {}
    for d in found:
        path = beside(d.path_span.file, d.path)  # beside the file that says it
        if os.path.abspath(path) == os.path.abspath(source.name):
            raise _err("a spec cannot refine itself", d.path_span, "name the abstract spec's file")
        try:
            abstract_source, abstract = read(path)
        except TlacheckError as exc:
            if isinstance(exc, SpecError):
                raise
            raise _err(f"cannot read the abstract spec {d.path!r}: {exc}", d.path_span,
                       "the path is relative to this spec's file") from None
        variables = tuple(x.name for x in abstract.declarations if isinstance(x, S.VarDecl))
        constants = tuple(x.name for x in abstract.declarations if isinstance(x, S.ConstDecl))
        mapping = list(d.mapping)
        given = set()
        for n, span, _ in d.mapping:
            if n in given:
                raise _err(f"`{n}` is mapped twice", span)
            if n not in variables and n not in constants:
                raise _err(f"the abstract spec has no variable or constant `{n}`", span,
                           "its variables: " + ", ".join(f"`{v}`" for v in variables))
            given.add(n)
        for n in variables + constants:
            if n in given:
                continue
            implicit = names.get(n)
            if implicit is None and n in variables:
                raise _err(f"the abstract variable `{n}` has no mapping", d.name_span,
                           f"add a line `{n} = EXPR` under `refines {d.name}`: what `{n}` is in this spec's state")
            if implicit is not None:
                mapping.append((n, d.name_span, implicit(d.name_span)))
        order = {n: i for i, n in enumerate(variables + constants)}
        mapping.sort(key=lambda m: order[m[0]])
        mapped = {n for n, _, _ in mapping}
        completed[id(d)] = dataclasses.replace(d, mapping=tuple(mapping), variables=variables,
                                               constants=tuple(c for c in constants if c in mapped))
        sources[d.name] = abstract_source
    decls = tuple(completed.get(id(d), d) for d in tree.declarations)
    return dataclasses.replace(tree, declarations=decls), sources


def _concrete_names(tree: S.SpecFile) -> dict:
    """This spec's names an abstract name may map to implicitly: variables, constants, defs
    without parameters (each as a function of the span to give the expression)."""
    out = {}
    for d in tree.declarations:
        if isinstance(d, (S.VarDecl, S.ConstDecl)):
            out[d.name] = lambda span, n=d.name: S.Name(span, n)
        elif isinstance(d, S.DefDecl) and not d.params:
            out[d.name] = lambda span, n=d.name: S.Call(span, n, span, ())
    return out
