"""Type aliases: `type Msg = {reply: Reply, toolUse: ToolUse}`.

`resolve` replaces every use of an alias in a type (of a constant, a variable, a `def` or `block`
parameter or result, a theorem variable), at any depth, by the aliased type, before type checking:
the checker never sees an alias, so a use means exactly what writing the type out there would
mean (a range alias bounds a variable, a `def` parameter, a theorem variable). A replaced type
keeps the spans of the alias's declaration, so an error inside it points there. An alias that
refers to itself, directly or through other aliases, is E125. Works on the AST after the variant
is applied (a variant may add an alias or replace one), before name resolution.
"""

from __future__ import annotations

import dataclasses

from tlacheck.core.errors import SpecError
from tlacheck.core.tree import transform
from tlacheck.lang import syntax as S


def resolve(tree: S.SpecFile) -> S.SpecFile:
    """The spec with every alias use replaced by its type (the TypeDecls stay, for duplicate names)."""
    aliases = {d.name: d for d in tree.declarations if isinstance(d, S.TypeDecl)}
    if not aliases:
        return tree
    resolved: dict[str, S.TypeExpr] = {}

    def expand(t: S.TypeExpr, path: tuple[str, ...]) -> S.TypeExpr:
        def replace(n: S.Node) -> S.TypeExpr | None:
            if not isinstance(n, S.NamedType) or n.name not in aliases:
                return None
            if n.name in path:
                cycle = " -> ".join(path[path.index(n.name):] + (n.name,))
                raise SpecError.single("E125", f"type `{n.name}` is defined in terms of itself ({cycle})", n.span,
                                       "a type cannot contain itself: bound the nesting by hand, or use a map "
                                       "from ids to values")
            if n.name not in resolved:
                resolved[n.name] = expand(aliases[n.name].type, path + (n.name,))
            return resolved[n.name]

        return transform(t, replace)

    def params(ps):
        return tuple((n, span, expand(t, ()) if t is not None else None) for n, span, t in ps)

    decls = []
    for d in tree.declarations:
        if isinstance(d, S.TypeDecl):
            expand(S.NamedType(d.name_span, d.name), ())  # a cycle is an error even when unused
        elif isinstance(d, (S.ConstDecl, S.VarDecl)):
            d = dataclasses.replace(d, type=expand(d.type, ()))
        elif isinstance(d, S.DefDecl):
            d = dataclasses.replace(d, params=params(d.params), returns=expand(d.returns, ()))
        elif isinstance(d, (S.BlockDecl, S.TheoremDecl)):
            d = dataclasses.replace(d, params=params(d.params))
        decls.append(d)
    return dataclasses.replace(tree, declarations=tuple(decls))
