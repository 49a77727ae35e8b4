"""The pipeline's one driver: a spec's text to its Model, every pass in its order, written once.

    text  --parser.parse-------------> SpecFile            (lang/parser.py: syntax, spans)
          --modules.resolve----------> SpecFile            (the imported files' declarations in front)
          --variants.apply_variant---> SpecFile            (one variant: a plain spec)
          --refinement.load----------> SpecFile, sources   (each `refines` completed; the abstract specs)
          --processes.desugar--------> SpecFile, processes (no `process` left)
          --aliases.resolve----------> SpecFile            (no type alias left)
          --typecheck.check----------> ir.Spec             (names, types, lowering)
          --model.compile_spec-------> Model               (compile/: generated Python, compiled)
          --refinement.checks--------> Model               (compile/: the abstract Models, built by
                                                            this driver again, and the checks)
          --Model.seal---------------> Model               (its Recipe; read-only from here on)

Each pass is a function of the lang/ or compile/ package whose signature says what it takes and
gives; none calls another pass, so their order is this module's alone. `Pipeline` runs them for
the specs one command reads: a file is read and parsed once however many variants, imports and
refinements use it (`tlacheck verify`, the pytest plugin and `tlacheck counterexamples` build
every variant of a spec from one parse), and `build` records the texts a Model was built from as
its `Recipe`, from which a Ray actor builds the same Model without the files (engine/cluster.py).
Errors: SpecError (a bad spec, with spans), UsageError (an unknown variant, a missing file),
EvalError (a constant that fails to evaluate).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tlacheck.compile import refinement as refinement_checks
from tlacheck.compile.model import Model, compile_spec
from tlacheck.core import files
from tlacheck.core.errors import SpecError
from tlacheck.core.source import Source
from tlacheck.ir import nodes as ir
from tlacheck.lang import aliases, modules, processes, refinement, typecheck
from tlacheck.lang import syntax as S
from tlacheck.lang.parser import parse
from tlacheck.lang.variants import BASE, apply_variant, expectations, variants


@dataclass(frozen=True)
class Lowered:
    """A spec's IR, and the sources of the abstract specs its `refines` name (by refinement)."""

    spec: ir.Spec
    abstracts: dict[str, Source]


class Pipeline:
    """The front end and the compilation of the specs one run reads, each file read and parsed
    once (the trees are immutable, so every variant starts from the same one)."""

    def __init__(self):
        self._trees: dict[tuple[str, str], S.SpecFile] = {}  # (file, text) -> its tree as parsed
        self._resolved: dict[tuple[str, str], S.SpecFile] = {}  # ... with its imports resolved
        self._files: dict[str, Source] = {}  # path -> the file read there
        self._builds: list[dict[str, str]] = []  # per build under way: the files it read (its Recipe)

    # ---------------------------------------------------------------- text to AST
    def parse(self, source: Source) -> S.SpecFile:
        """The spec's syntax tree as written (imports not resolved)."""
        key = (source.name, source.text)
        if key not in self._trees:
            self._trees[key] = parse(source)
        return self._trees[key]

    def spec_file(self, source: Source) -> S.SpecFile:
        """The spec's syntax tree with the declarations of the files it imports in front of its own:
        every variant of the spec is made from it."""
        key = (source.name, source.text)
        if key not in self._resolved:
            self._resolved[key] = modules.resolve(self.parse(source), source, self._read)
        return self._resolved[key]

    def resolve(self, tree: S.SpecFile, source: Source) -> S.SpecFile:
        """`tree`, the spec's or the part of it that parses (the language server's recovering
        parse), with the declarations of the files it imports in front of its own."""
        return modules.resolve(tree, source, self._read)

    def variants(self, source: Source) -> list[str]:
        """`base` and the names of the spec's variants, in order."""
        return [BASE] + [v.name for v in variants(self.parse(source))]

    def expectations(self, source: Source) -> list[S.ExpectDecl]:
        """The spec's `expect` lines (each naming a variant it declares)."""
        return expectations(self.parse(source))

    def _read(self, path: str) -> tuple[Source, S.SpecFile]:
        """The file at `path` (read once) and its tree as written; every build under way notes it."""
        if path not in self._files:
            self._files[path] = files.read_source(path)
        source = self._files[path]
        for used in self._builds:
            used[path] = source.text
        return source, self.parse(source)

    def _read_resolved(self, path: str) -> tuple[Source, S.SpecFile]:
        source, _ = self._read(path)
        return source, self.spec_file(source)

    # ---------------------------------------------------------------- AST to IR
    def lower(self, source: Source, overrides: dict[str, str] | None = None, variant: str = BASE) -> Lowered:
        """The IR of the spec (or one of its variants) with the `-D` `overrides`: the front end's
        passes, in order. Raises SpecError (UsageError for an unknown variant)."""
        tree = apply_variant(self.spec_file(source), variant)
        tree, abstracts = refinement.load(tree, source, self._read_resolved)
        tree, made, notes = processes.desugar(tree)
        tree = aliases.resolve(tree)
        return Lowered(typecheck.check(tree, source, overrides, made, notes), abstracts)

    # ---------------------------------------------------------------- IR to Model
    def build(self, source: Source, overrides: dict[str, str] | None = None, variant: str = BASE) -> Model:
        """The Model of the spec (or one of its variants) and of the specs it `refines`. Raises
        SpecError, UsageError or EvalError (in constants). Its `recipe` builds it again."""
        used: dict[str, str] = {}
        self._builds.append(used)
        try:
            model = self._build(source, overrides, variant, ())
        finally:
            self._builds.pop()
        return model.seal(Recipe(source.name, source.text, tuple(sorted((overrides or {}).items())), variant,
                                 tuple(sorted(used.items()))))

    def _build(self, source: Source, overrides, variant: str, refining: tuple[str, ...]) -> Model:
        """build, inside a chain of refinements (`refining`: the absolute paths of the specs refining this one)."""
        lowered = self.lower(source, overrides, variant)
        spec = lowered.spec
        model = compile_spec(spec)
        if spec.refinements:
            chain = refining + (os.path.abspath(source.name),)
            for r in spec.refinements:
                if os.path.abspath(lowered.abstracts[r.name].name) in chain:
                    raise SpecError.single("E130", f"`refines {r.name}` closes a cycle of refinements", r.span,
                                           "a spec cannot refine itself, directly or through others")
            model.attach_refinements(refinement_checks.checks(
                model, lowered.abstracts, lambda src, ov: self._build(src, ov, BASE, chain).seal()))
        return model


@dataclass(frozen=True)
class Recipe:
    """What a model is built from, to build it again elsewhere (the actors of engine/cluster.py):
    the spec's source, the -D overrides, the variant, and the text of every other file the build
    read (imports, abstract specs), by the path it was read with (core/files.py)."""

    name: str
    text: str
    overrides: tuple[tuple[str, str], ...]
    variant: str
    files: tuple[tuple[str, str], ...]

    def build(self) -> Model:
        """The same model, from these texts alone (no file is read)."""
        with files.serving(dict(self.files)):
            return Pipeline().build(Source(self.name, self.text), dict(self.overrides), self.variant)


def build_model(source: Source, overrides: dict[str, str] | None = None, variant: str = BASE) -> Model:
    """The Model of one spec (or variant), for a caller that builds one: Pipeline().build."""
    return Pipeline().build(source, overrides, variant)


def lower(source: Source, overrides: dict[str, str] | None = None, variant: str = BASE) -> ir.Spec:
    """The IR of one spec (or variant), for a caller that needs one: Pipeline().lower's."""
    return Pipeline().lower(source, overrides, variant).spec
