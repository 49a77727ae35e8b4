"""core/tree.py: the nodes of the syntax tree and of the IR declare their children, and the
generic walks (`walk`, `Visitor`, `transform`) visit exactly what the declarations say (issue 34
item 5)."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest

from tlacheck.core.source import Source
from tlacheck.core.tree import Node, Visitor, transform, walk
from tlacheck.ir import nodes as ir
from tlacheck.lang import syntax as S
from tlacheck.lang.parser import parse
from tlacheck.lang.variants import BASE, variants
from tests.conftest import ROOT, SPECS
from tests.test_ir_verify import lowered

SPEC_FILES = sorted(SPECS.rglob("*.spec")) + sorted((ROOT / "benchmarks" / "models").glob("*.spec"))


def node_classes(module) -> list[type]:
    return [c for _, c in inspect.getmembers(module, inspect.isclass)
            if issubclass(c, Node) and c is not Node and c.__module__ == module.__name__]


def node_class_names(module) -> set[str]:
    return {c.__name__ for c in node_classes(module)}




@pytest.mark.parametrize("module", [S, ir], ids=["syntax", "ir"])
def test_issue_34_every_field_that_may_hold_a_node_is_declared_a_child(module):
    """By the annotations: a field whose type names a node class is in CHILDREN, and CHILDREN
    names fields only."""
    names = node_class_names(module) | {"Bound"}
    for cls in node_classes(module):
        fields = {f.name for f in dataclasses.fields(cls)}
        assert set(cls.CHILDREN) <= fields, f"{cls.__name__}: {set(cls.CHILDREN) - fields}"
        for name, annotation in ((f.name, str(f.type)) for f in dataclasses.fields(cls)):
            words = set(annotation.replace("[", " ").replace("]", " ").replace(",", " ").replace("|", " ")
                        .replace('"', " ").replace("'", " ").split())
            holds_nodes = bool(words & names) and name != "span"
            if holds_nodes:
                assert name in cls.CHILDREN, f"{cls.__name__}.{name} ({annotation}) is not declared a child"


def _nodes_inside(value) -> bool:
    if isinstance(value, Node):
        return True
    return isinstance(value, tuple) and any(_nodes_inside(x) for x in value)


def _check_tree(root) -> int:
    """Every node of `root`: no node hides in a field not declared a child; walk's order is a
    recursion's over children(). Returns the number of nodes."""
    count = 0
    for node in walk(root):
        count += 1
        for f in dataclasses.fields(node):
            if f.name not in node.CHILDREN:
                assert not _nodes_inside(getattr(node, f.name)), f"{type(node).__name__}.{f.name} holds a node"

    def naive(n):
        return [n] + [x for c in n.children() for x in naive(c)]

    assert list(walk(root)) == naive(root)
    return count


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.name)
def test_issue_34_the_declared_children_are_all_a_tree_holds(path: Path):
    """On the syntax tree and on the IR of every variant of every bundled spec."""
    source = Source(str(path), path.read_text(encoding="utf-8"))
    assert _check_tree(parse(source)) > 1
    for _, spec in lowered(path):
        assert _check_tree(spec) > 1


def test_issue_34_walk_is_pre_order_in_field_order_and_takes_several_roots():
    a, b, c = (S.Name(None, n) for n in "abc")
    e = S.IfExpr(None, S.Not(None, a), b, c)
    assert list(walk(e)) == [e, e.cond, a, b, c]
    assert list(walk((a, [b]), c)) == [a, b, c]
    assert list(walk()) == []


def test_issue_34_an_ir_comprehension_lists_its_sets_then_body_condition_and_key():
    """codegen numbers the nodes it memoises in this order: the generated code depends on it."""
    from tlacheck.core import types as T

    lit = [ir.Lit(T.INT, None, k) for k in range(4)]
    local = ir.Local(1, "x", T.INT)
    comp = ir.Comp(T.MapT(T.INT, T.INT), None, "map", ((local, lit[0]),), lit[1], lit[2], lit[3])
    assert comp.children() == (lit[0], lit[2], lit[1], lit[3])  # the domain, the body, the condition, the key
    assert ir.Comp(T.BOOL, None, "all", ((local, lit[0]),), None, lit[2]).children() == (lit[0], lit[2])


def test_issue_34_transform_replaces_outermost_first_and_keeps_what_does_not_change():
    tree = parse(Source("t.spec", "var x: int = 0\naction A:\n    x = x + y\n"))
    renamed = transform(tree, lambda n: S.Name(n.span, "z") if isinstance(n, S.Name) and n.name == "y" else None)
    names = [n.name for n in walk(renamed) if isinstance(n, S.Name)]
    assert names == ["x", "z"]
    assert renamed.declarations[0] is tree.declarations[0]  # untouched: the same object
    assert transform(tree, lambda n: None) is tree
    # outermost first: a replaced node is not looked into
    whole = transform(tree, lambda n: S.Name(n.span, "w") if isinstance(n, S.BinOp) else None)
    assert [n.name for n in walk(whole) if isinstance(n, S.Name)] == ["w"]


def test_issue_34_a_visitor_dispatches_by_class_and_visits_the_rest_generically():
    class Names(Visitor):
        def __init__(self):
            self.seen = []

        def visit_Name(self, node):
            self.seen.append(node.name)

        def visit_Not(self, node):  # not looked into unless it asks
            self.seen.append("not")

    tree = parse(Source("t.spec", "var x: bool = true\nvar y: bool = false\ninvariant I: x or not y\n"))
    v = Names()
    v.visit(tree)
    assert v.seen == ["x", "not"]


def test_issue_34_variants_are_walked_too():
    text = "var x: int = 0\naction A:\n    x = 1\nvariant V:\n    replace action A:\n        x = y\n"
    tree = parse(Source("t.spec", text))
    assert [v.name for v in variants(tree)] == ["V"] and BASE == "base"
    assert "y" in [n.name for n in walk(tree) if isinstance(n, S.Name)]
