"""Import rules from STYLE.md: one owner per dependency, imports flow one way."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "checker"

# Each third-party dependency is imported by exactly these modules.
OWNERS = {"lark": {"parser"}, "z3": {"smt"}, "graphviz": {"render"}, "networkx": {"graph"}}

# Pipeline order: a module may import only modules at its own layer or before it.
LAYERS = [
    {"source", "errors", "types", "runtime", "syntax", "ir", "result", "fingerprints"},
    {"parser", "values", "proof"},
    {"typecheck", "variants"},
    {"codegen"},
    {"model"},
    {"liveness", "watchdog"},
    {"explore", "parallel", "stategraph", "smt"},
    {"report", "itf", "savedtrace", "render", "replay"},
    {"verify"},
    {"artefacts"},
    {"cli", "__main__", "pytest_plugin"},
]


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            if node.module == "checker":
                names |= {f"checker.{a.name}" for a in node.names}
    return names


def modules():
    return {p.stem: imports_of(p) for p in PACKAGE.glob("*.py") if p.stem != "__init__"}


def test_each_dependency_has_one_owner():
    for name, imports in modules().items():
        for dep, owners in OWNERS.items():
            if any(i == dep or i.startswith(dep + ".") for i in imports):
                assert name in owners, f"{name} imports {dep}; only {owners} may"


def test_imports_flow_one_way():
    layer = {m: i for i, group in enumerate(LAYERS) for m in group}
    for name, imports in modules().items():
        if name not in layer:
            continue
        for imp in imports:
            if imp.startswith("checker."):
                target = imp.split(".")[1]
                if target in layer:
                    assert layer[target] <= layer[name], f"{name} imports {target}, a later stage"


def test_every_module_has_a_layer():
    assert set(modules()) <= {m for group in LAYERS for m in group}


# Parameters a signature must have although the body does not read them: Lark's transformer
# callbacks (meta, children), dispatch tables of one signature, signal handlers, __exit__.
_BOUND_BY_AN_INTERFACE = {
    "parser": lambda fn, p: p in ("meta", "c"),
    "typecheck": lambda fn, p: fn.startswith(("_e_", "_b_")) and p == "expected",
    "smt": lambda fn, p: p == "env",
    "cli": lambda fn, p: fn == "handler" and p in ("signum", "frame"),
    "watchdog": lambda fn, p: (fn, p) in (("__exit__", "exc"), ("_tick", "signum")),
}


def test_every_function_reads_its_parameters():
    """A parameter nobody reads is a sign of a change half made (explore._record's parent,
    liveness._search's leaf, report._headline's model, ... were removed in session 3)."""
    from tests.test_codegen import unread_parameters

    for path in sorted(PACKAGE.glob("*.py")):
        bound = _BOUND_BY_AN_INTERFACE.get(path.stem, lambda fn, p: False)
        unread = [f for f in unread_parameters(str(path)) if not bound(*f.rstrip(")").split("("))]
        assert unread == [], f"{path.name}: {unread}"


# Code that looks at a state-variable reference in the IR: the analyses in ir.py, and the
# stages that turn each node into something else (Python source, a Z3 term) node by node.
_TRANSLATES_VAR_REFS = {("codegen", "_ex")}


def test_soundness_5_one_analysis_says_what_an_expression_reads():
    """Whether an expression reads the state is answered by ir.reads (ir.reads_state) only: a
    second walker, in typecheck and in codegen, disagreed with the first about `def` calls
    (soundness issue, item 5). Any other function testing for `ir.VarRef` is such a walker."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.stem == "ir":
            continue
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            tests = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "isinstance"]
            if any("VarRef" in ast.unparse(t.args[1]) for t in tests if len(t.args) == 2) \
                    and (path.stem, fn.name) not in _TRANSLATES_VAR_REFS:
                found.append(f"{path.stem}.{fn.name}")
    assert found == []
