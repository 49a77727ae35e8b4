"""What a step changed, entry by entry: the one diff every output of a trace shows.

`changes(old, new, names, types)` compares two states (tuples of run-time
values, see core/runtime.py) and returns a list of `Change`s, guided by the
variables' static types:

- a map entry whose value changed: `pc[c1]`, CHANGED, old `Ready`, new
  `Waiting`; an entry added or removed: ADDED/REMOVED at the map (`pc`) with
  the entry `c3 -> Waiting` as the element;
- a record field (`tasks[t1].state`) or a tuple position (`pair[2]`): CHANGED
  at that path;
- a set element added or removed: ADDED/REMOVED at the set, the element;
- a sequence: positions that changed (`log[2]`) when the length is the same;
  elements appended at the end, removed from the head or the end, or both (a
  queue that is popped and pushed in one step): ADDED/REMOVED at the
  sequence, with the element's 1-based position (`index`);
- an option (`T?`) is diffed as its value when it has one both times, else
  whole.

Nested values are diffed recursively, at most MAX_DEPTH levels below the
variable. The rule for showing a value whole instead (one CHANGED at its
path, as before): it is a scalar (bool, int, enum member, model value); or it
is small, its old and new forms both print in at most SMALL characters
(`{r1, r2}`, `[Old]`); or most of it changed, more than half of its entries
(map keys, fields, positions, elements of either side), or more than
MAX_CHANGES of them; or the variable's entry-wise diff would take more than
MAX_CHANGES lines. (So the work is bounded: a diff stops counting a large
value's changes past MAX_CHANGES.)

A Change keeps run-time values and their types; `old_text`, `new_text`,
`element_text` and `change_json` turn them into text and JSON with
core/values.py, so every output prints a change the same way. `wrap` breaks a
long value at its commas for text and diagrams.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

from tlacheck.core import types as T
from tlacheck.core.runtime import NONE, canon, canon_key
from tlacheck.core.values import format_value, to_json


SMALL = 16  # a value whose old and new forms both print in at most this many characters is shown whole
MAX_DEPTH = 3  # levels below a variable that are diffed entry by entry (`a[k].f[2]`)
MAX_CHANGES = 12  # a variable whose entry-wise diff takes more lines than this is shown whole
WIDTH = 100  # text lines are wrapped at this width (values break after a comma)


class Op(Enum):
    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"


@dataclass(frozen=True)
class Change:
    """One change of a step. CHANGED: the value at `path` went from `old` to `new` (both of type
    `type`). ADDED/REMOVED: `path` is a set, sequence or map that gained or lost the element `value`
    (of type `type`; for a map, the entry `key -> value`, the key of type `key_type`; for a sequence,
    `index` is the element's 1-based position in the new sequence, or in the old one when removed)."""

    variable: str
    path: str  # in the spec's syntax: `pc`, `pc[c1]`, `tasks[t1].state`, `log[2]`
    op: Op
    type: T.Type
    old: object = None
    new: object = None
    value: object = None
    key: object = None
    key_type: T.Type | None = None
    index: int | None = None

    @property
    def whole(self) -> bool:
        """The variable's whole value changed (no entry-wise diff)."""
        return self.op is Op.CHANGED and self.path == self.variable

    @property
    def old_text(self) -> str:
        return format_value(self.old, self.type)

    @property
    def new_text(self) -> str:
        return format_value(self.new, self.type)

    @property
    def element_text(self) -> str:
        """ADDED/REMOVED: the element as the spec writes it (a map entry as `key -> value`)."""
        shown = format_value(self.value, self.type)
        return shown if self.key_type is None else f"{format_value(self.key, self.key_type)} -> {shown}"

    @property
    def sign(self) -> str:
        return "+" if self.op is Op.ADDED else "-"


def changes(old: tuple, new: tuple, names, types) -> list[Change]:
    """The changes from state `old` to state `new`, variable by variable in declaration order,
    entries in canonical order (see the module docstring for the rule)."""
    out: list[Change] = []
    for name, t, a, b in zip(names, types, old, new):
        if a == b:
            continue
        found: list[Change] = []
        _diff(name, name, a, b, t, 0, found)
        if len(found) > MAX_CHANGES:
            found = [Change(name, name, Op.CHANGED, t, old=a, new=b)]
        out += found
    return out


def step_changes(model, old: tuple, new: tuple) -> list[Change]:
    """`changes` of a model's step, each path as written in expressions: `Waiter[t1].pc` for an
    instance of a process over a set (Model.change_path), every other path as it is."""
    return [dataclasses.replace(c, path=model.change_path(c.variable, c.path))
            for c in changes(old, new, model.var_names, model.var_types)]


def row_changed(label: str, variable: str, found) -> bool:
    """Whether the changes `found` touch the state row `label` of `variable` (Model.state_rows:
    the variable itself, or one instance's variable of a process, `Waiter[t1].pc`)."""
    if label == variable:
        return any(c.variable == variable for c in found)
    return any(c.path == label or c.path.startswith((label + "[", label + ".")) for c in found
               if c.variable == variable)


@dataclass(frozen=True)
class TextChange(Change):
    """A derived value that could not be computed on one side of a step: changed whole, each side
    as text (`(error: ...)` or the value)."""

    old_shown: str = ""
    new_shown: str = ""

    @property
    def old_text(self) -> str:
        return self.old_shown

    @property
    def new_text(self) -> str:
        return self.new_shown


def derived_changes(before: list, after: list) -> list[Change]:
    """What a step changed in the derived values (compile/model.py Derived, one list per state),
    entry by entry as for variables (paths start with the derived value's name). A value that
    could not be computed on one side and differs is one TextChange."""
    out: list[Change] = []
    for a, b in zip(before, after):
        if a.error is None and b.error is None:
            out += changes((a.value,), (b.value,), (a.name,), (a.type,))
        elif a.text != b.text:
            out.append(TextChange(a.name, a.name, Op.CHANGED, a.type, old_shown=a.text, new_shown=b.text))
    return out


DERIVED_MARK = "~ "  # the diagrams and the HTML report mark a derived value's path so


def marked_derived_changes(model, before: tuple, after: tuple) -> list[Change]:
    """What the step from state `before` to `after` changed in the model's derived values, each
    path marked DERIVED_MARK (`~ pending`): the diagrams' and the HTML report's rows."""
    if not model.derived:
        return []
    return [dataclasses.replace(c, path=DERIVED_MARK + c.path)
            for c in derived_changes(model.derived_values(before), model.derived_values(after))]


def _diff(variable: str, path: str, a, b, t: T.Type, depth: int, out: list[Change]) -> None:
    """Append the changes from `a` to `b` (which differ) at `path`."""
    if isinstance(t, T.OptionT):
        if a is NONE or b is NONE:
            out.append(Change(variable, path, Op.CHANGED, t, old=a, new=b))
            return
        t = t.inner
    parts = None
    if depth < MAX_DEPTH and not _small(a, b, t):
        parts = _entries(variable, path, a, b, t, depth)
    if parts is None:
        out.append(Change(variable, path, Op.CHANGED, t, old=a, new=b))
        return
    found, changed, total = parts
    if 2 * changed > total:  # most of it changed: whole
        out.append(Change(variable, path, Op.CHANGED, t, old=a, new=b))
    else:
        out += found


def _small(a, b, t: T.Type) -> bool:
    if isinstance(t, (T.SetT, T.SeqT, T.MapT)):
        if max(len(a[0] if isinstance(t, T.MapT) else a), len(b[0] if isinstance(t, T.MapT) else b)) > SMALL:
            return False  # too many elements to print in SMALL characters; spares formatting a large value
    return len(format_value(a, t)) <= SMALL and len(format_value(b, t)) <= SMALL


def _entries(variable: str, path: str, a, b, t: T.Type, depth: int):
    """(changes, entries changed, entries in all) of a composite value, or None for a value that is
    not diffed entry by entry (scalars, and sequences changed in the middle)."""
    found: list[Change] = []
    if isinstance(t, (T.RecordT, T.TupleT)):
        labels = ([f".{n}" for n, _ in t.fields] if isinstance(t, T.RecordT)
                  else [f"[{i}]" for i in range(1, len(t.elements) + 1)])
        elements = [ft for _, ft in t.fields] if isinstance(t, T.RecordT) else list(t.elements)
        changed = 0
        for label, et, x, y in zip(labels, elements, a, b):
            if x != y:
                changed += 1
                _diff(variable, path + label, x, y, et, depth + 1, found)
        return found, changed, len(elements)
    if isinstance(t, T.MapT):
        if abs(len(a[0]) - len(b[0])) > MAX_CHANGES:
            return None
        old = dict(zip(*a))
        new = dict(zip(*b))
        changed = 0
        for k in sorted(old.keys() | new.keys(), key=canon_key):
            if k not in new:
                found.append(Change(variable, path, Op.REMOVED, t.value, value=old[k], key=k, key_type=t.key))
            elif k not in old:
                found.append(Change(variable, path, Op.ADDED, t.value, value=new[k], key=k, key_type=t.key))
            elif old[k] != new[k]:
                _diff(variable, f"{path}[{format_value(k, t.key)}]", old[k], new[k], t.value, depth + 1, found)
            else:
                continue
            changed += 1
            if changed > MAX_CHANGES:
                return None
        return found, changed, len(old.keys() | new.keys())
    if isinstance(t, T.SetT):
        if abs(len(a) - len(b)) > MAX_CHANGES:
            return None  # would be shown whole anyway: spares sorting a large difference
        removed, added = a - b, b - a
        if len(removed) + len(added) > MAX_CHANGES:
            return None
        removed, added = canon(removed), canon(added)
        found += [Change(variable, path, Op.REMOVED, t.element, value=x) for x in removed]
        found += [Change(variable, path, Op.ADDED, t.element, value=x) for x in added]
        return found, len(removed) + len(added), len(a | b)
    if isinstance(t, T.SeqT):
        return _sequence(variable, path, a, b, t, depth)
    return None


def _sequence(variable: str, path: str, a: tuple, b: tuple, t: T.SeqT, depth: int):
    """Positions changed in place (same length), unless elements were appended, removed from the end,
    or removed from the head and others appended (a queue popped and pushed in one step), which
    explains the step with fewer changes; None when none of these fits."""
    total = max(len(a), len(b))
    if abs(len(a) - len(b)) > MAX_CHANGES:
        return None
    positional = None
    if len(a) == len(b):
        found: list[Change] = []
        changed = 0
        for i, (x, y) in enumerate(zip(a, b), start=1):
            if x != y:
                changed += 1
                if changed > MAX_CHANGES:
                    break
                _diff(variable, f"{path}[{i}]", x, y, t.element, depth + 1, found)
        else:
            positional = found, changed, total
            if 2 * changed <= total:
                return positional

    def removed(xs, first):
        return [Change(variable, path, Op.REMOVED, t.element, value=x, index=i) for i, x in enumerate(xs, first)]

    def added(xs, first):
        return [Change(variable, path, Op.ADDED, t.element, value=x, index=i) for i, x in enumerate(xs, first)]

    if len(b) > len(a) and b[:len(a)] == a:
        shifted = added(b[len(a):], len(a) + 1)
    elif len(b) < len(a) and a[:len(b)] == b:
        shifted = removed(a[len(b):], len(b) + 1)
    else:
        for k in range(1, min(len(a), MAX_CHANGES + 1)):  # the fewest removed from the head
            kept = len(a) - k
            if kept <= len(b) and a[k:] == b[:kept]:
                shifted = removed(a[:k], 1) + added(b[kept:], kept + 1)
                break
        else:
            return positional
    return shifted, len(shifted), total


# ---------------------------------------------------------------- JSON and text

def change_json(c: Change) -> dict:
    """`{variable, path, op, old, new}` for CHANGED; `{variable, path, op, value}` plus `key` (a
    map entry) or `index` (a sequence element) for ADDED and REMOVED. Values as in `state`."""
    out = {"variable": c.variable, "path": c.path, "op": c.op.value}
    if isinstance(c, TextChange):
        out["old"], out["new"] = c.old_text, c.new_text
        return out
    if c.op is Op.CHANGED:
        out["old"] = to_json(c.old, c.type)
        out["new"] = to_json(c.new, c.type)
        return out
    if c.key_type is not None:
        out["key"] = to_json(c.key, c.key_type)
    if c.index is not None:
        out["index"] = c.index
    out["value"] = to_json(c.value, c.type)
    return out


def wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` characters, broken after `, ` where it can (a value's
    elements stay whole), else cut at `width`. One line when it fits."""
    if len(text) <= width:
        return [text]
    pieces = text.split(", ")
    lines: list[str] = []
    line = ""
    for k, piece in enumerate(pieces):
        piece += "," if k < len(pieces) - 1 else ""
        candidate = f"{line} {piece}" if line else piece
        if len(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while len(piece) > width:
            lines.append(piece[:width])
            piece = piece[width:]
        line = piece
    if line:
        lines.append(line)
    return lines
