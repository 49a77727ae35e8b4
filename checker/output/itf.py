"""The Informal Trace Format (ITF, Apalache ADR-015): what Apalache and Quint read and write.

Writing (`trace_itf`): every state lists every variable; ints are always
`{"#bigint": "..."}` (as Apalache and Quint write them, so no reader loses
precision); sets are `{"#set": [...]}` in canonical order (stable diffs); maps
are `{"#map": [[k, v], ...]}`; tuples `{"#tup": [...]}`; sequences plain lists;
records plain objects; enum members and model values their names as strings;
options Quint's variant `{"tag": "Some", "value": x}` / `{"tag": "None",
"value": {"#tup": []}}`. The trace `#meta` carries `varTypes` (ADR-002 type
strings, which Apalache needs to read a trace back), the source, the status
and the violated property; each state's `#meta` carries its index, the action
that reached it and that action's arguments (ITF readers ignore unknown
`#meta` keys). A lasso writes `loop`, and in the trace `#meta` the action
that closes the loop (`closing`, null when the last state stutters). No
timestamp is written: the same run gives a byte-identical file. Variable
names are identifiers, as Apalache and Quint require: a process's `P.pc` is
written `P__pc`, and `#meta.varNames` maps it back (`itf_names`, `read_names`).

Reading (`value_from_itf`): accepts plain numbers and `#bigint`, `#tup` and
lists, sets in any order, both spellings of unit variants, and gives values
in tlacheck's run-time representation, guided by the spec's static types.
Known limit: a record whose fields are exactly `tag` and `value` is read as a
variant by other ITF tools (the format cannot tell them apart).
"""

from __future__ import annotations

from tlacheck import __version__
from tlacheck.core import types as T
from tlacheck.core.result import Check
from tlacheck.core.runtime import NONE, canon, canon_key
from tlacheck.core.values import format_int, format_value, int_from_text, int_text


FORMAT_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"


class ItfError(ValueError):
    """A JSON value that does not fit the expected type (the message says where and why)."""


# ---------------------------------------------------------------- writing

def to_itf(v, t: T.Type):
    """One run-time value as an ITF expression."""
    if isinstance(t, T.OptionT):
        if v is NONE:
            return {"tag": "None", "value": {"#tup": []}}
        return {"tag": "Some", "value": to_itf(v, t.inner)}
    if isinstance(t, T.BoolT):
        return bool(v)
    if isinstance(t, T.IntT):
        return {"#bigint": int_text(v)}  # every digit, at any size
    if isinstance(t, T.SortT):
        return format_value(v, t)
    if isinstance(t, T.SetT):
        return {"#set": [to_itf(x, t.element) for x in canon(v)]}
    if isinstance(t, T.SeqT):
        return [to_itf(x, t.element) for x in v]
    if isinstance(t, T.TupleT):
        return {"#tup": [to_itf(x, et) for x, et in zip(v, t.elements)]}
    if isinstance(t, T.RecordT):
        return {n: to_itf(x, ft) for (n, ft), x in zip(t.fields, v)}
    if isinstance(t, T.MapT):
        keys, vals = v
        return {"#map": [[to_itf(k, t.key), to_itf(x, t.value)] for k, x in zip(keys, vals)]}
    if isinstance(t, T.AnyT):  # an empty collection whose element type is unknown
        return {"#set": []} if isinstance(v, frozenset) else []
    raise AssertionError(t)  # pragma: no cover


def type_string(t: T.Type) -> str:
    """The ADR-002 type string Apalache expects in `#meta.varTypes`."""
    if isinstance(t, T.BoolT):
        return "Bool"
    if isinstance(t, T.IntT):
        return "Int"
    if isinstance(t, T.SortT):
        return "Str"  # members are written as plain strings
    if isinstance(t, T.SetT):
        return f"Set({type_string(t.element)})"
    if isinstance(t, T.SeqT):
        return f"Seq({type_string(t.element)})"
    if isinstance(t, T.TupleT):
        return "<<" + ", ".join(type_string(e) for e in t.elements) + ">>"
    if isinstance(t, T.RecordT):
        return "{ " + ", ".join(f"{n}: {type_string(ft)}" for n, ft in t.fields) + " }"
    if isinstance(t, T.MapT):
        return f"{type_string(t.key)} -> {type_string(t.value)}"
    if isinstance(t, T.OptionT):
        return f"Some({type_string(t.inner)}) | None(UNIT)"
    return "Str"  # AnyT: never the declared type of a variable


def itf_names(var_names) -> dict[str, str]:
    """The ITF name of each variable (spec name -> ITF name). Apalache and Quint accept only
    identifiers, and a process's variables are named `P.pc`, `P.x`: those become `P__pc`, `P__x`
    (with `_` appended while the name is another variable's); every other name is kept. The
    trace's `#meta.varNames` maps each name changed back (`read_names` undoes it)."""
    taken = {n for n in var_names if "." not in n}
    out = {}
    for n in var_names:
        if "." not in n:
            out[n] = n
            continue
        name = n.replace(".", "__")
        while name in taken:
            name += "_"
        taken.add(name)
        out[n] = name
    return out


def read_names(data: dict, var_names) -> dict[str, str]:
    """ITF name -> the spec's name, for the variables of `var_names` (a model's) that an ITF trace
    names otherwise: as its `#meta.varNames` says, else as `itf_names` would have named them. A
    name it does not map is the spec's own (or a variable the spec does not have)."""
    meta = data.get("#meta") if isinstance(data.get("#meta"), dict) else {}
    recorded = meta.get("varNames")
    if isinstance(recorded, dict):
        return {k: v for k, v in recorded.items() if isinstance(k, str) and isinstance(v, str)}
    return {itf: n for n, itf in itf_names(var_names).items() if itf != n}


def trace_itf(model, trace, *, source: str, status: str, kind: Check | None = None, name: str | None = None,
              variant: str = "base", mbt: bool = False) -> dict:
    """A whole trace as an ITF object (see the module docstring for what goes where). `mbt`: each
    state also carries Quint's model-based-testing variables, `mbt::actionTaken` (the action's name,
    `init` for the initial state) and `mbt::nondetPicks` (its arguments, each `Some(value)`), as
    `quint run --mbt` writes them; listed in `vars` after the spec's."""
    names = itf_names(model.var_names)
    meta = {
        "format": "ITF",
        "format-description": FORMAT_DESCRIPTION,
        "source": source,
        "status": status,
        "description": f"Created by tlacheck {__version__}",
        "spec": model.name,
        "variant": variant,
        "varTypes": {names[n]: type_string(t) for n, t in zip(model.var_names, model.var_types)},
    }
    renamed = {itf: n for n, itf in names.items() if itf != n}
    if renamed:
        meta["varNames"] = renamed
    if kind is not None:
        meta["violation"] = {"kind": kind.value, "name": name, "state": len(trace.steps) - 1}
    if trace.loop_index is not None:
        meta["closing"] = None if trace.closing is None else _step_meta(model, trace.closing)
    states = []
    previous = None
    for i, step in enumerate(trace.steps):
        smeta: dict = {"index": i}
        smeta.update(_step_meta(model, step))
        if previous is not None:
            smeta["changed"] = [names[n] for n, a, b in zip(model.var_names, previous, step.state) if a != b]
        if model.derived:  # `derived` values: shown, not state (a value that cannot be computed is left out)
            smeta["derived"] = {d.name: to_itf(d.value, d.type) for d in model.derived_values(step.state)
                                if d.error is None}
        state = {"#meta": smeta}
        state.update({names[n]: to_itf(v, t) for n, v, t in zip(model.var_names, step.state, model.var_types)})
        if mbt:
            state["mbt::actionTaken"] = smeta["action"]
            state["mbt::nondetPicks"] = {n: {"tag": "Some", "value": v} for n, v in smeta.get("params", {}).items()}
        states.append(state)
        previous = step.state
    names_written = [names[n] for n in model.var_names] + (["mbt::actionTaken", "mbt::nondetPicks"] if mbt else [])
    out = {"#meta": meta, "vars": names_written, "states": states}
    if trace.loop_index is not None:
        out["loop"] = trace.loop_index
    return out


def _step_meta(model, step) -> dict:
    if step.action is None:
        return {"action": "init"}
    info = model.action_info[step.action]
    return {"action": info.name,
            "params": {n: to_itf(a, pt) for n, a, pt in zip(info.param_names, step.args, info.param_types)}}


# ---------------------------------------------------------------- reading

def is_itf(data) -> bool:
    """Whether a parsed JSON document looks like an ITF trace (rather than tlacheck's `--json`)."""
    return isinstance(data, dict) and "states" in data and "vars" in data


def _int(x, where: str) -> int:
    if isinstance(x, bool):
        raise ItfError(f"{where}: expected an integer, found {x!r}")
    if isinstance(x, int):
        return x
    if isinstance(x, dict) and set(x) == {"#bigint"} and isinstance(x["#bigint"], str):
        try:
            return int_from_text(x["#bigint"])
        except ValueError:
            pass
    raise ItfError(f"{where}: expected an integer, found {shown(x)}")


def shown(x) -> str:
    import json

    text = json.dumps(_shown_ints(x))
    return text if len(text) <= 60 else text[:57] + "..."


def _shown_ints(x):
    """`x` (parsed JSON) with its ints too long for json.dumps as their abbreviated text."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x if -10 ** 100 < x < 10 ** 100 else format_int(x)
    if isinstance(x, list):
        return [_shown_ints(e) for e in x]
    if isinstance(x, dict):
        return {k: _shown_ints(v) for k, v in x.items()}
    return x


def _items(x, key: str, where: str, what: str) -> list:
    if isinstance(x, dict) and set(x) == {key} and isinstance(x[key], list):
        return x[key]
    if key == "#tup" and isinstance(x, list):
        return x
    raise ItfError(f"{where}: expected {what}, found {shown(x)}")


def member(name, t: T.SortT, where: str, names: dict | None = None) -> int:
    """The run-time value (index) of an enum member or model value given by name (or by a text
    that `names[t.name]` maps to a member's index)."""
    if isinstance(name, str):
        if names and t.name in names and name in names[t.name]:
            return names[t.name][name]
        # Apalache writes model values as "c1_OF_PERSON"
        for candidate in (name, name.split("_OF_")[0]):
            if candidate in t.members:
                return t.members.index(candidate)
    raise ItfError(f"{where}: {shown(name)} is not a member of {t.name} ({', '.join(t.members)})")


def value_from_itf(x, t: T.Type, where: str = "value", names: dict | None = None):
    """An ITF expression as a run-time value of type `t`. Raises ItfError when it does not fit.
    `names`: texts that stand for members, as for savedtrace.value_from_json."""
    if isinstance(t, T.OptionT):
        if isinstance(x, dict) and "tag" in x and set(x) <= {"tag", "value"}:
            if x["tag"] == "None":
                return NONE
            if x["tag"] == "Some" and "value" in x:
                return value_from_itf(x["value"], t.inner, where, names)
        if x is None:
            return NONE
        raise ItfError(f"{where}: expected Some(...) or None, found {shown(x)}")
    if isinstance(t, T.BoolT):
        if isinstance(x, bool):
            return x
        raise ItfError(f"{where}: expected a boolean, found {shown(x)}")
    if isinstance(t, T.IntT):
        return _int(x, where)
    if isinstance(t, T.SortT):
        return member(x, t, where, names)
    if isinstance(t, T.SetT):
        items = _items(x, "#set", where, "a set {\"#set\": [...]}")
        return frozenset(value_from_itf(e, t.element, where, names) for e in items)
    if isinstance(t, T.SeqT):
        if not isinstance(x, list):
            raise ItfError(f"{where}: expected a list, found {shown(x)}")
        return tuple(value_from_itf(e, t.element, where, names) for e in x)
    if isinstance(t, T.TupleT):
        items = _items(x, "#tup", where, "a tuple {\"#tup\": [...]}")
        if len(items) != len(t.elements):
            raise ItfError(f"{where}: expected a tuple of {len(t.elements)} elements, found {len(items)}")
        return tuple(value_from_itf(e, et, where, names) for e, et in zip(items, t.elements))
    if isinstance(t, T.RecordT):
        if not isinstance(x, dict) or set(x) != {n for n, _ in t.fields}:
            raise ItfError(f"{where}: expected a record with fields {', '.join(n for n, _ in t.fields)}, "
                           f"found {shown(x)}")
        return tuple(value_from_itf(x[n], ft, f"{where}.{n}", names) for n, ft in t.fields)
    if isinstance(t, T.MapT):
        pairs = _items(x, "#map", where, "a map {\"#map\": [[key, value], ...]}")
        out = {}
        for p in pairs:
            if not isinstance(p, list) or len(p) != 2:
                raise ItfError(f"{where}: a map entry must be [key, value], found {shown(p)}")
            out[value_from_itf(p[0], t.key, where, names)] = value_from_itf(p[1], t.value, where, names)
        return make_map(out, t)
    raise ItfError(f"{where}: cannot read a value of type {t}")


def make_map(entries: dict, t: T.MapT):
    """tlacheck's run-time map (keys in canonical order, values alongside)."""
    keys = sorted(entries) if T.naturally_ordered(t.key) else sorted(entries, key=canon_key)
    return (tuple(keys), tuple(entries[k] for k in keys))


def state_vars(data: dict) -> list[str]:
    """The variable names of an ITF trace, without Apalache's internal `__*` and Quint's `mbt::*`
    variables, and without duplicates (Quint's `--mbt` lists some twice)."""
    names = data.get("vars")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ItfError("`vars` must be a list of variable names")
    out = []
    for n in names:
        if n.startswith("__") or n.startswith("mbt::") or n in out:
            continue
        out.append(n)
    return out
