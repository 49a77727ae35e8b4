"""Trees whose nodes declare their children, and the generic walks over them (pycparser's way).

A node class of the syntax tree (lang/syntax.py) or of the IR (ir/nodes.py) names, in `CHILDREN`,
the fields that hold its sub-nodes, in order; such a field holds a node, None, or a tuple (nested
tuples too) that mixes nodes with plain data (names, spans, the IR's `Local`s), which the walks
skip (a list is taken as a tuple, for the roots callers pass). Every other field holds no node: tests/test_tree.py checks the declarations against the
fields' annotations and against the trees of every bundled spec.

One declaration serves every walk: `children()`, `walk` (every node, pre-order), `Visitor`
(a method per node class, `generic_visit` for the others) and `transform` (a tree with some
nodes replaced). A walk that is more than a traversal (one that translates each node into
something else, or decides what to visit next from what it has seen) stays a function of its own.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, ClassVar, Iterator


class Node:
    """A node of a tree: `CHILDREN` names the fields that hold its sub-nodes (see the module)."""

    __slots__ = ()
    CHILDREN: ClassVar[tuple[str, ...]] = ()

    def children(self) -> tuple["Node", ...]:
        """The direct sub-nodes, field by field in CHILDREN's order, each field's in its order."""
        out: list[Node] = []
        for name in self.CHILDREN:
            _collect(getattr(self, name), out)
        return tuple(out)


def _collect(value, out: list) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for item in value:
            _collect(item, out)


def walk(*roots) -> Iterator[Node]:
    """Every node of the trees `roots` (nodes, or tuples or lists of them), each before its
    children, in order. Iterative: no recursion limit, however deep the tree."""
    todo: list[Node] = []
    _collect(roots, todo)
    todo.reverse()
    while todo:
        node = todo.pop()
        yield node
        todo.extend(reversed(node.children()))


class Visitor:
    """`visit(node)` calls the method `visit_<class name>` of the node's class, else `generic_visit`,
    which visits the node's children in order; a `visit_X` method that should look inside its node
    calls `generic_visit` itself. The methods' results are `visit`'s."""

    def visit(self, node: Node):
        method = getattr(self, "visit_" + type(node).__name__, None)
        return self.generic_visit(node) if method is None else method(node)

    def generic_visit(self, node: Node) -> None:
        for child in node.children():
            self.visit(child)


def transform(root, replace: Callable[[Node], "Node | None"]):
    """`root` (a node, or a tuple of them) with every node n for which `replace(n)` is not None
    replaced by that (which is not looked into), outermost first; a node none of whose
    descendants changes is returned as it is (the same object)."""
    if isinstance(root, tuple):
        items = tuple(transform(x, replace) for x in root)
        return root if all(a is b for a, b in zip(items, root)) else items
    if not isinstance(root, Node):
        return root
    new = replace(root)
    if new is not None:
        return new
    changes = {}
    for name in root.CHILDREN:
        value = getattr(root, name)
        changed = transform(value, replace)
        if changed is not value:
            changes[name] = changed
    return dataclasses.replace(root, **changes) if changes else root
