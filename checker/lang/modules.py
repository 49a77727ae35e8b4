"""Modules: `import "FILE"` at the top of a spec makes FILE's declarations this spec's too, as if
they were written here before its own (TLA+'s EXTENDS).

The rule for names: one namespace. An imported declaration is checked exactly as a declaration
of this spec (its spans stay in its file, so an error in it is reported there); a name declared
twice, here and in an imported file or in two imported files, is E101 with both places. An
imported file's own `import`s come first; a file imported twice (directly or through others) is
included once; an import cycle is E131. The imported files' variants and `expect` lines are
not imported (they are about that file); this spec's variants may `replace`, `extend` or
`remove` imported declarations like its own. Paths are relative to the importing file
(core.files.beside).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Callable

from tlacheck.core.errors import SpecError, TlacheckError
from tlacheck.core.files import beside
from tlacheck.core.source import Source
from tlacheck.lang import syntax as S

# Reads and parses a spec file as it is (its imports not resolved): (its source, its tree).
Read = Callable[[str], tuple[Source, S.SpecFile]]


def _err(message: str, span, hint: str | None = None) -> SpecError:
    return SpecError.single("E131", message, span, hint)


def resolve(tree: S.SpecFile, source: Source, read: Read) -> S.SpecFile:
    """The spec with the declarations of every file it imports (transitively) in front of its own;
    `read` reads and parses an imported file."""
    if not tree.imports:
        return tree
    root = os.path.abspath(source.name)
    included = {root}
    decls: list[S.Decl] = []

    def visit(t: S.SpecFile, src: Source, chain: tuple[str, ...]) -> None:
        for imp in t.imports:
            path = beside(src.name, imp.path)
            key = os.path.abspath(path)
            if key in chain:
                what = "itself" if key == chain[-1] else "a file that imports it"
                raise _err(f"a spec cannot import {what} ({imp.path!r} closes an import cycle)", imp.path_span,
                           "move the shared declarations into a file that both import")
            if key in included:
                continue
            included.add(key)
            try:
                imported, sub = read(path)
            except SpecError:
                raise
            except TlacheckError as exc:
                raise _err(f"cannot import {imp.path!r}: {exc}", imp.path_span,
                           "the path is relative to this spec's file") from None
            visit(sub, imported, chain + (key,))
            decls.extend(d for d in sub.declarations if not isinstance(d, (S.VariantDecl, S.ExpectDecl)))

    visit(tree, source, (root,))
    return dataclasses.replace(tree, declarations=tuple(decls) + tree.declarations, imports=())
