"""Variants: a base spec plus declarations that add to it, replace parts of it, extend actions or
remove them.

`apply_variant` turns one variant into a plain SpecFile that the rest of the
pipeline checks like any other spec; `expectations` lists the `expect` lines.
Both work on the AST, before name resolution.
"""

from __future__ import annotations

import dataclasses

from tlacheck.core.errors import SpecError, UsageError, suggest
from tlacheck.lang import syntax as S


BASE = "base"


def variants(tree: S.SpecFile) -> list[S.VariantDecl]:
    """The spec's variants, in order; E101 for a name given twice or `base`, E100 for a parent
    (`extends P`) that is not a variant, E125 for a variant that extends itself through others."""
    found: dict[str, S.VariantDecl] = {}
    for d in tree.declarations:
        if isinstance(d, S.VariantDecl):
            if d.name == BASE:
                raise SpecError.single("E101", "a variant cannot be called `base`", d.name_span,
                                       "`base` names the spec without any variant")
            if d.name in found:
                first = found[d.name].name_span
                raise SpecError.single("E101", f"variant `{d.name}` is declared twice", d.name_span,
                                       f"first declared at {first}")
            found[d.name] = d
    for d in found.values():
        _lineage(d, found)
    return list(found.values())


def _lineage(variant: S.VariantDecl, found: dict[str, S.VariantDecl]) -> list[S.VariantDecl]:
    """The variants whose items make `variant`, in the order they are applied: its farthest parent
    first, itself last."""
    chain = [variant]
    while chain[-1].parent is not None:
        child = chain[-1]
        if child.parent == BASE:
            raise SpecError.single("E100", f"variant `{child.name}` extends `base`", child.parent_span,
                                   "every variant builds on the base spec: drop `extends base`")
        parent = found.get(child.parent)
        if parent is None:
            hint = suggest(child.parent, [n for n in found if n != child.name])
            raise SpecError.single("E100", f"unknown variant `{child.parent}`", child.parent_span,
                                   f"did you mean `{hint}`?" if hint else
                                   "`extends` names another variant of this spec, declared with `variant`")
        if parent in chain:
            names = [v.name for v in chain[chain.index(parent):]] + [parent.name]
            raise SpecError.single("E125", f"variant `{parent.name}` extends itself ({' -> '.join(names)})",
                                   child.parent_span, "a variant builds on the base spec and on the variants "
                                   "it extends: one of them must extend none")
        chain.append(parent)
    return chain[::-1]


def expectations(tree: S.SpecFile) -> list[S.ExpectDecl]:
    names = {v.name for v in variants(tree)} | {BASE}
    out = []
    for d in tree.declarations:
        if isinstance(d, S.ExpectDecl):
            if d.name not in names:
                hint = suggest(d.name, names)
                raise SpecError.single("E100", f"unknown variant `{d.name}`", d.name_span,
                                       f"did you mean `{hint}`?" if hint else "declare it with `variant`")
            out.append(d)
    return out


def _kind(d: S.Decl) -> str:
    return type(d).__name__.replace("Decl", "").lower()


def _described(d: S.Decl) -> tuple[str, str]:
    """A declaration in messages: as prose (invariant `Safe`) and as written (`invariant Safe`);
    a declaration a spec makes at most once, `deadlock:` or `init:`, by its keyword."""
    if d.name in (S.DEADLOCK, S.INIT, S.CONFORM):
        return f"`{d.name}` declaration", f"{d.name} ..."
    return f"{_kind(d)} `{d.name}`", f"{_kind(d)} {d.name}"


def apply_variant(tree: S.SpecFile, name: str) -> S.SpecFile:
    """The spec as the variant `name` describes it (`base`: the spec without variants)."""
    base = [d for d in tree.declarations if not isinstance(d, (S.VariantDecl, S.ExpectDecl))]
    if name == BASE:
        variants(tree)  # the variants' names and parents are checked whichever is chosen
        return dataclasses.replace(tree, declarations=tuple(base))
    chosen = {v.name: v for v in variants(tree)}.get(name)
    if chosen is None:
        # Only a command line names a variant this way (`expect` lines are checked by `expectations`):
        # a usage error, like an unknown `--invariant`.
        names = [v.name for v in variants(tree)]
        hint = suggest(name, names + [BASE])
        raise UsageError(f"the spec has no variant `{name}`",
                         f"did you mean `{hint}`?" if hint else
                         f"its variants: {', '.join([BASE] + names)}" if names else
                         "it has none: variants are declared with `variant NAME:`")
    found = {v.name: v for v in variants(tree)}
    decls = list(base)
    origin = {id(d): "the base spec" for d in decls}  # where each declaration comes from, for messages
    applied: list[str] = []
    for variant in _lineage(chosen, found):
        decls = _apply_items(variant, decls, origin, _spec_with(applied))
        applied.append(f"`{variant.name}`")
    return dataclasses.replace(tree, declarations=tuple(decls))


def _spec_with(applied: list[str]) -> str:
    """The spec a variant's items apply to, in messages: the base spec with the variants it extends."""
    if not applied:
        return "the base spec"
    names = applied[0] if len(applied) == 1 else ", ".join(applied[:-1]) + " and " + applied[-1]
    return f"the base spec with variant{'s' if len(applied) > 1 else ''} {names}"


def _apply_items(variant: S.VariantDecl, decls: list[S.Decl], origin: dict[int, str],
                 builds_on: str) -> list[S.Decl]:
    """`decls` (the base spec with the variants `variant` extends: `builds_on`) with the items of
    `variant`; `origin` says which of them declared each declaration."""
    decls = list(decls)
    for how, item in variant.items:
        position = next((i for i, d in enumerate(decls)
                         if d.name == item.name and not isinstance(d, S.FairDecl)), None)
        if how == "add":
            if isinstance(item, S.FairDecl) or position is None:
                decls.append(item)
                origin[id(item)] = f"variant `{variant.name}`"
            else:
                raise SpecError.single("E101", f"`{item.name}` is already declared in {origin[id(decls[position])]}",
                                       item.name_span, f"write `replace {_described(item)[1]}` to change it")
        elif how == "replace":
            if position is None or type(decls[position]) is not type(item):
                raise SpecError.single("E100", f"{builds_on} has no {_described(item)[0]} to replace",
                                       item.name_span, "drop `replace` to add a new declaration")
            if isinstance(item, S.ProcessDecl) and decls[position].fair and not item.fair:
                item = dataclasses.replace(item, unfair_replacement_of=decls[position].name_span)
            decls[position] = item
            origin[id(item)] = f"variant `{variant.name}`"
        elif how == "extend":
            if position is None or not isinstance(decls[position], S.ActionDecl):
                actions = [d.name for d in decls if isinstance(d, S.ActionDecl)]
                hint = suggest(item.name, actions)
                raise SpecError.single("E100", f"{builds_on} has no action `{item.name}` to extend",
                                       item.name_span, f"did you mean `{hint}`?" if hint else
                                       "`extend` adds statements to an action declared with `action`")
            decls[position] = _extended(decls[position], item)
            origin[id(decls[position])] = f"variant `{variant.name}`"
        else:  # remove
            if position is None or not isinstance(decls[position], S.ActionDecl):
                raise SpecError.single("E100", f"{builds_on} has no action `{item.name}` to remove",
                                       item.name_span)
            removed = decls.pop(position)
            decls = [_drop_fairness_on(d, removed.name) for d in decls]
            decls = [d for d in decls if d is not None]
    return decls


def _extended(action: S.ActionDecl, item: S.ExtendAction) -> S.ActionDecl:
    """The action with `before:` in front of its body and `after:` behind it, each part in a scope
    of its own: a part sees the action's parameters, and no `let` name of another part."""
    parts = [p for p in (item.before, action.body, item.after) if p]
    return dataclasses.replace(action, body=tuple(S.Scoped(p[0].span, p) for p in parts))


def _drop_fairness_on(d: S.Decl, action: str):
    """Fairness naming a removed action loses that target (and disappears when none is left)."""
    if not isinstance(d, S.FairDecl):
        return d
    targets = tuple(t for t in d.targets if t.action != action)
    if not targets:
        return None
    return dataclasses.replace(d, targets=targets)
