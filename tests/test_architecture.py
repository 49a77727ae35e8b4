"""The architecture as rules: stage packages that import one way, no cycles, no private names
across modules, one owner per third-party dependency (STYLE.md, docs/architecture.md)."""

import ast
from pathlib import Path


PACKAGE = Path(__file__).resolve().parent.parent / "checker"

# The stages, in pipeline order (docs/architecture.md). A module may import modules of its own
# package and of packages of a lower rank; two packages of one rank are independent.
RANKS = {"core": 0, "ir": 1, "lang": 2, "compile": 3, "pipeline": 4, "engine": 5, "prove": 5, "output": 6, "conform": 7,
         "editing": 7, "testing": 8, "servers": 8, "app": 9}

# Each third-party dependency is imported by exactly these modules.
OWNERS = {"lark": {"lang.parser"}, "z3": {"prove.smt"}, "graphviz": {"output.render"},
          "networkx": {"engine.stategraph"}, "mcp": {"servers.mcp_server"},
          "pygls": {"servers.lsp_server"}, "lsprotocol": {"servers.lsp_server"}}


def module_name(path: Path) -> str:
    """`engine.explore` for checker/engine/explore.py; `__main__` for checker/__main__.py."""
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts) or "__init__"


def sources() -> dict[str, ast.Module]:
    return {module_name(p): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(tree: ast.Module) -> list[tuple[str, list[str]]]:
    """Every import in the module, function-level ones too: (module, names imported from it)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.module, [a.name for a in node.names]))
    return out


def checker_imports(tree: ast.Module, known: set[str]) -> set[str]:
    """The checker modules a module imports (`from tlacheck.engine import explore` is
    engine.explore; `from tlacheck.engine.explore import X` too)."""
    found = set()
    for module, names in imports_of(tree):
        if module != "tlacheck" and not module.startswith("tlacheck."):
            continue
        base = module.removeprefix("tlacheck").removeprefix(".")
        for name in names or [""]:
            sub = f"{base}.{name}" if base else name
            found.add(sub if sub in known else base or "__init__")
    return found


def modules() -> dict[str, set[str]]:
    trees = sources()
    return {name: checker_imports(tree, set(trees)) for name, tree in trees.items()}


def package_of(module: str) -> str | None:
    head = module.split(".")[0]
    return head if head in RANKS else None


def test_every_module_belongs_to_a_stage():
    loose = [m for m in modules() if package_of(m) is None and m not in ("__init__", "__main__")]
    assert loose == [], f"modules outside the stage packages: {loose}"
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(RANKS)


def test_each_dependency_has_one_owner():
    for name, tree in sources().items():
        for module, _ in imports_of(tree):
            for dep, owners in OWNERS.items():
                if module == dep or module.startswith(dep + "."):
                    assert name in owners, f"{name} imports {dep}; only {owners} may"


def test_stages_import_one_way():
    for name, imports in modules().items():
        mine = package_of(name)
        if mine is None:
            continue
        for target in imports:
            theirs = package_of(target)
            if theirs is None or theirs == mine:
                assert theirs is not None or target == "__init__", f"{name} imports {target}"
                continue
            assert RANKS[theirs] < RANKS[mine], f"{name} imports {target}: {theirs} is not a stage below {mine}"


def test_issue_34_output_only_writes_what_others_computed():
    """output/ turns results into text, JSON, DOT and HTML: no module of it imports the engine, or
    the front end's passes, the compiler or the pipeline that run them (a module that parses,
    builds or explores is a driver: app/, conform/)."""
    allowed = {"compile.model"}  # the Model: what output reads to print states, actions and errors
    found = []
    for name, imports in modules().items():
        if package_of(name) != "output":
            continue
        for target in imports:
            if package_of(target) in ("engine", "lang", "pipeline") or (
                    package_of(target) == "compile" and target not in allowed):
                found.append(f"{name} imports {target}")
    assert found == []


def test_issue_34_one_driver_runs_the_front_end():
    """The front end's passes are called by pipeline/driver.py alone: no other module calls the
    parser, the imports, the variants, the refinements' loading, the processes, the aliases or
    the type checker (lang/ calls none of them either, but the parser inside `parse_expression`
    for -D values)."""
    passes = {"lang.parser": {"parse"}, "lang.modules": {"resolve"}, "lang.variants": {"apply_variant"},
              "lang.refinement": {"load"}, "lang.processes": {"desugar"}, "lang.aliases": {"resolve"},
              "lang.typecheck": {"check"}, "compile.model": {"compile_spec"}}
    callers = {"pipeline.driver", "compile.instrument"}  # the last compiles an IR it made (the replay's)
    found = []
    for name, tree in sources().items():
        if name in callers or name in passes:
            continue
        for module, names in imports_of(tree):
            base = module.removeprefix("tlacheck.")
            if base in passes and set(names) & passes[base]:
                found.append(f"{name} imports {set(names) & passes[base]} from {base}")
            if base == "lang" and {"parser", "modules", "variants", "refinement", "processes", "aliases",
                                   "typecheck"} & set(names):
                found.append(f"{name} imports a pass module from lang")
    assert found == []


# The modules outside compile/ and pipeline/ that read a Model's IR (Model.ir) rather than its
# compiled functions, records and methods, and what for: each analyses expressions themselves.
IR_READERS = {"engine.liveness": "the tableau of the temporal formulas and the fairness conditions",
              "prove.smt": "the translation of expressions into SMT formulas",
              "testing.guards": "which variables decide each action's guard (ir.guard_reads)",
              "editing.analysis": "the type of each expression, a constant's and a variable's declared type (hover)",
              "app.explain": "the guards and branches of each step's action, read in its body"}


def test_issue_34_the_ir_is_reached_through_the_model_in_one_place():
    """A Model's IR is `Model.ir` (it has no `spec` any more), read only by IR_READERS: every other
    stage reads the compiled functions, the records (ActionInfo, PropertyInfo) and the methods."""
    from tests.conftest import model_of

    model = model_of("var x: bool = true\naction A:\n    x = not x\n")
    assert model.ir.name == model.name and not hasattr(model, "spec")
    found = []
    for name, tree in sources().items():
        if package_of(name) in ("compile", "pipeline") or name in IR_READERS:
            continue
        found += [f"{name}:{node.lineno}" for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                  and node.attr == "ir"]
    assert found == []


def test_no_import_cycles():
    graph = {name: {t for t in imports if t != name and t != "__init__"} for name, imports in modules().items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == [], f"import cycles: {cycles}"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_module_uses_another_modules_private_names():
    """`from tlacheck.x import _y`, or `x._y` on an imported checker module, couples two modules
    through a name the owner may change at will (parallel.py once subclassed explore's private
    explorer)."""
    found = []
    for name, tree in sources().items():
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tlacheck"):
                found += [f"{name}: {node.module}.{a.name}" for a in node.names if _private(a.name)]
                aliases |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                aliases |= {a.asname or a.name for a in node.names if a.name.startswith("tlacheck.")}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases and _private(node.attr):
                found.append(f"{name}: {node.value.id}.{node.attr}")
    assert found == [], found


# Parameters a signature must have although the body does not read them: Lark's transformer
# callbacks (meta, children), dispatch tables of one signature, signal handlers, __exit__.
_BOUND_BY_AN_INTERFACE = {
    "lang.parser": lambda fn, p: p in ("meta", "c"),
    "lang.typecheck": lambda fn, p: fn.startswith(("_e_", "_b_")) and p == "expected",
    "prove.smt": lambda fn, p: p == "env",
    # a command's signature (args, sources): `tlacheck mcp` takes no argument and reads no spec
    "app.cli": lambda fn, p: (fn == "handler" and p in ("signum", "frame")) or fn in ("_mcp", "_lsp"),
    "engine.watchdog": lambda fn, p: (fn, p) in (("__exit__", "exc"), ("_tick", "signum")),
    "conform.recorder": lambda fn, p: (fn, p) == ("__exit__", "exc"),
    # a successor function `n{i}`'s signature (state, raw, memos, entries): the keyed one needs the state alone
    "engine.worker": lambda fn, p: fn == "nexts" and p in ("raw", "memos", "entries"),
    # a worker's tick (expanded, found, generated): a Ray partition's looks at its memory alone
    "engine.cluster": lambda fn, p: fn == "_watch_memory",
}


def test_every_function_reads_its_parameters():
    """A parameter nobody reads is a sign of a change half made (explore._record's parent,
    liveness._search's leaf, report._headline's model, ... were removed in session 3)."""
    from tests.test_codegen import unread_parameters

    for path in sorted(PACKAGE.rglob("*.py")):
        bound = _BOUND_BY_AN_INTERFACE.get(module_name(path), lambda fn, p: False)
        unread = [f for f in unread_parameters(str(path)) if not bound(*f.rstrip(")").split("("))]
        assert unread == [], f"{path.name}: {unread}"


# Code that looks at a state-variable reference in the IR: the analyses in ir.py, and the
# stages that turn each node into something else (Python source, a Z3 term) node by node.
_TRANSLATES_VAR_REFS = {("compile.codegen", "_ex")}


def test_soundness_5_one_analysis_says_what_an_expression_reads():
    """Whether an expression reads the state is answered by ir.reads (ir.reads_state) only: a
    second walker, in typecheck and in codegen, disagreed with the first about `def` calls
    (soundness issue, item 5). Any other function testing for `ir.VarRef` is such a walker."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if module_name(path).startswith("ir."):
            continue
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            tests = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "isinstance"]
            if any("VarRef" in ast.unparse(t.args[1]) for t in tests if len(t.args) == 2) \
                    and (module_name(path), fn.name) not in _TRANSLATES_VAR_REFS:
                found.append(f"{module_name(path)}.{fn.name}")
    assert found == []


def test_generated_functions_are_found_by_role_not_by_a_naming_convention():
    """The Model looks generated functions up through codegen.Entries and the tables of
    codegen.Generated; no one formats a generated name (`namespace[f"a{i}"]`), and only the
    compile stage sees the generated module's namespace at all (issue 13)."""
    found = []
    for name, tree in sources().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.JoinedStr):
                target = ast.unparse(node.value)
                if target.endswith("namespace"):
                    found.append(f"{name}: {ast.unparse(node)}")
            if isinstance(node, ast.Attribute) and node.attr == "namespace" and not name.startswith("compile."):
                found.append(f"{name}: {ast.unparse(node)}")
    assert found == [], found


def test_issue_32_every_package_is_installed_as_tlacheck():
    """pyproject.toml maps the import name `tlacheck` to the source folder and lists every
    package of it: a package left out would be missing from an installed (non-editable) copy."""
    import tomllib

    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    # besides the code, as data: the spec library `tlacheck new` starts from (editing/starter.py)
    # and the docs the servers read (core/files.py doc)
    assert config["package-dir"] == {"tlacheck": "checker", "tlacheck.library": "specs", "tlacheck.docs": "docs"}
    on_disk = {"tlacheck"} | {f"tlacheck.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    assert set(config["packages"]) == on_disk | {"tlacheck.library", "tlacheck.docs"}


def test_issue_32_nothing_imports_the_source_folder_as_checker():
    """`import checker` would load a second copy of every module (or a user's own `checker`)."""
    root = PACKAGE.parent
    found = []
    for folder in ("checker", "tests", "benchmarks"):
        for path in sorted((root / folder).rglob("*.py")):
            for module, _ in imports_of(ast.parse(path.read_text(encoding="utf-8"))):
                if module == "checker" or module.startswith("checker."):
                    found.append(f"{path.relative_to(root)}: {module}")
    assert found == []



# What holds a check kind, an expectation or an answer, by the names the code gives it
_KIND_HOLDERS = {"kind", "outcome", "got", "expected", "what"}


def _named_compared(node: ast.Compare) -> set[str]:
    """The strings a comparison of a kind holder compares it with (`v.kind == "a"`,
    `kind in ("a", "b")`); nothing when neither side is a kind holder."""
    sides = [node.left, *node.comparators]
    holders = [s for s in sides if isinstance(s, ast.Attribute) and s.attr in _KIND_HOLDERS
               or isinstance(s, ast.Name) and s.id in _KIND_HOLDERS]
    if not holders:
        return set()
    out = set()
    for side in sides:
        items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
        out |= {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
    return out


def test_issue_34_check_kinds_expectations_and_answers_are_compared_as_enums():
    """Check kinds, expectations and verify's answers have one owner each (core/result.py: Check,
    Expectation, Answer); no module compares one by its name, which a typo or a new kind would
    silently break. (lang/ is not concerned: its kinds are those of the declarations it types,
    named in its messages, before any check exists.)"""
    from tlacheck.core.result import Answer, Check, Expectation

    names = {m.value for e in (Check, Expectation, Answer) for m in e}
    found = []
    for module, tree in sources().items():
        if module == "core.result" or module.startswith("lang."):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and _named_compared(node) & names:
                found.append(f"{module}:{node.lineno}: {sorted(_named_compared(node) & names)}")
    assert not found, "\n".join(found)


ENGINE_FUNCTION_LINES = 100


def test_issue_34_no_function_of_the_engine_is_over_100_lines():
    """The search is written as parts that say one thing each (issue 34: `Worker._expand` had
    grown to 206 lines with its admission of a successor, its recording of the behaviour graph
    and its events inline). A function of engine/ over 100 lines, nested ones included, wants
    its parts named; docstring and comments count, since they are read too."""
    long = []
    for module, tree in sources().items():
        if not module.startswith("engine."):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > ENGINE_FUNCTION_LINES:
                    long.append(f"{module}.{node.name} (line {node.lineno}): {lines} lines")
    assert not long, "\n".join(long)
