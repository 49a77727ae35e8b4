"""Saved counterexamples read back: tlacheck's `--json` output or an ITF trace, for `render` and `replay`.

A saved trace is decoded against a Model (possibly another variant of the spec
than the one that produced it): values are read with the model's static types
into the run-time representation. Variables the trace has but the model does
not are dropped (`extra_vars`); variables the model has but the trace lacks
(a fix that adds a variable) are simply absent from each step's `state`
(`missing_vars`), so replay compares only what both know.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tlacheck import SCHEMA_VERSION, __version__
from tlacheck.core import types as T
from tlacheck.core.result import Check, Step, Trace
from tlacheck.core.runtime import NONE
from tlacheck.core.source import Span
from tlacheck.core.values import int_from_text
from tlacheck.output import itf


class TraceFileError(ValueError):
    """A trace file that cannot be read against this spec (the message says why)."""


@dataclass(frozen=True)
class SavedStep:
    """One recorded state. `action` is None for the initial state, and for later states of an ITF
    trace written by a tool that does not record actions (`action_known` is then False)."""

    action: str | None
    args: dict  # parameter name -> JSON value as saved (decoded by replay against the action found)
    state: dict  # variable name -> run-time value, for the variables the model knows
    action_known: bool = True


@dataclass(frozen=True)
class SavedTrace:
    format: str  # "tlacheck" or "itf"
    steps: tuple[SavedStep, ...]
    loop_index: int | None
    kind: Check | None = None  # what the trace violates (None: nothing said, or a kind unknown here)
    name: str | None = None  # the violated property
    spec_file: str | None = None
    variant: str = "base"
    defines: dict = field(default_factory=dict)
    extra_vars: tuple[str, ...] = ()
    missing_vars: tuple[str, ...] = ()
    closing: SavedStep | None = None  # a lasso's step from the last state back to steps[loop_index]
    fault: Span | None = None  # an evaluation error: where it occurred, as `check --json` records it


# ---------------------------------------------------------------- tlacheck JSON values

def value_from_json(x, t: T.Type, where: str = "value", names: dict | None = None):
    """A value as `values.to_json` writes it, back in the run-time representation. `names`: per
    enum or set of model values (its name), texts that stand for its members (a `conform:`
    section's `values` lines) besides the members' own names."""
    if isinstance(t, T.OptionT):
        return NONE if x is None else value_from_json(x, t.inner, where, names)
    if isinstance(t, T.BoolT):
        if isinstance(x, bool):
            return x
    elif isinstance(t, T.IntT):
        if isinstance(x, int) and not isinstance(x, bool):
            return x
        if isinstance(x, str):  # an int too long for a JSON number (values.json_int)
            try:
                return int_from_text(x)
            except ValueError:
                pass
    elif isinstance(t, T.SortT):
        return itf.member(x, t, where, names)
    elif isinstance(t, T.SetT):
        if isinstance(x, list):
            return frozenset(value_from_json(e, t.element, where, names) for e in x)
    elif isinstance(t, T.SeqT):
        if isinstance(x, list):
            return tuple(value_from_json(e, t.element, where, names) for e in x)
    elif isinstance(t, T.TupleT):
        if isinstance(x, list) and len(x) == len(t.elements):
            return tuple(value_from_json(e, et, where, names) for e, et in zip(x, t.elements))
    elif isinstance(t, T.RecordT):
        if isinstance(x, dict) and set(x) == {n for n, _ in t.fields}:
            return tuple(value_from_json(x[n], ft, f"{where}.{n}", names) for n, ft in t.fields)
    elif isinstance(t, T.MapT):
        if isinstance(x, dict):  # scalar keys, written as strings
            return itf.make_map({_key_from_text(k, t.key, where, names): value_from_json(v, t.value, where, names)
                                 for k, v in x.items()}, t)
        if isinstance(x, list) and all(isinstance(p, list) and len(p) == 2 for p in x):
            return itf.make_map({value_from_json(k, t.key, where, names): value_from_json(v, t.value, where, names)
                                 for k, v in x}, t)
    raise itf.ItfError(f"{where}: {itf.shown(x)} is not a value of type {t}")


def _key_from_text(k: str, t: T.Type, where: str, names: dict | None):
    if isinstance(t, T.SortT):
        return itf.member(k, t, where, names)
    if isinstance(t, T.BoolT) and k in ("true", "false"):
        return k == "true"
    if isinstance(t, T.IntT):
        try:
            return int_from_text(k)
        except ValueError:
            pass
    raise itf.ItfError(f"{where}: map key {k!r} is not a value of type {t}")


# ---------------------------------------------------------------- loading

def load(data, model) -> SavedTrace:
    """Decode a parsed JSON document (tlacheck `--json` output, a bare tlacheck violation, or ITF)."""
    _readable_version(data)
    try:
        if itf.is_itf(data):
            return _load_itf(data, model)
        if isinstance(data, dict) and isinstance(data.get("violation"), dict):
            return _load_tlacheck(data, data["violation"], model)
        if isinstance(data, dict) and "trace" in data:
            return _load_tlacheck({}, data, model)
    except itf.ItfError as exc:
        raise TraceFileError(str(exc)) from None
    if isinstance(data, dict) and "verdict" in data and data.get("violation") is None:
        raise TraceFileError(f"the saved run has verdict `{data['verdict']}` and no counterexample")
    raise TraceFileError("not a trace: expected the output of `tlacheck check --json` or an ITF trace")


def _readable_version(data) -> None:
    """A `--json` object of a later MAJOR schema version than this tlacheck's may mean anything:
    refused, with the versions (one without `schema_version` is from before it, 1.0's shape)."""
    written = data.get("schema_version") if isinstance(data, dict) else None
    if not isinstance(written, str):
        return
    major = written.split(".")[0]
    if not major.isdigit() or int(major) > int(SCHEMA_VERSION.split(".")[0]):
        raise TraceFileError(f"it was written with JSON schema version {written}, which this tlacheck "
                             f"({__version__}, schema {SCHEMA_VERSION}) cannot read: use a later tlacheck")


def _split_vars(names, model) -> tuple[tuple[str, ...], tuple[str, ...]]:
    extra = tuple(n for n in names if n not in model.var_names)
    missing = tuple(n for n in model.var_names if n not in names)
    return extra, missing


def _decode_state(raw: dict, model, where: str) -> dict:
    if not isinstance(raw, dict):
        raise itf.ItfError(f"{where}: a state must be an object")
    return {n: value_from_json(raw[n], t, f"{where}: {n}")
            for n, t in zip(model.var_names, model.var_types) if n in raw}


def _load_tlacheck(run: dict, violation: dict, model) -> SavedTrace:
    raw_steps = violation.get("trace")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise TraceFileError("the counterexample has no trace")
    names = list(raw_steps[0].get("state", {}))
    steps = []
    for i, raw in enumerate(raw_steps):
        action = raw.get("action")
        steps.append(SavedStep(action, dict(raw.get("args") or {}),
                               _decode_state(raw.get("state"), model, f"state {i + 1}")))
    extra, missing = _split_vars(names, model)
    loop = violation.get("loop_index") if isinstance(violation.get("loop_index"), int) else None
    return SavedTrace("tlacheck", tuple(steps), loop, _kind(violation.get("kind")), violation.get("name"),
                      run.get("file"), run.get("variant") or "base", dict(run.get("defines") or {}), extra, missing,
                      _closing(violation.get("closing"), steps, loop), _fault(run.get("error")))


def _fault(error) -> Span | None:
    """The place of a saved evaluation error (`check --json`'s `error`), when it has one."""
    if not isinstance(error, dict) or not isinstance(error.get("file"), str):
        return None
    line, column = error.get("line"), error.get("column")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        return None
    column = column if isinstance(column, int) and not isinstance(column, bool) and column > 0 else 1
    return Span(error["file"], line, column, line, column)


def _closing(raw, steps: list, loop: int | None) -> SavedStep | None:
    if loop is None or not isinstance(raw, dict) or not isinstance(raw.get("action"), str):
        return None
    if not 0 <= loop < len(steps):
        raise TraceFileError(f"the loop index {loop} is outside the trace")
    params = raw.get("args", raw.get("params"))
    return SavedStep(raw["action"], dict(params) if isinstance(params, dict) else {}, steps[loop].state)


def _load_itf(data: dict, model) -> SavedTrace:
    spec_names = itf.read_names(data, model.var_names)
    names = [spec_names.get(n, n) for n in itf.state_vars(data)]
    written = {spec: name for name, spec in spec_names.items()}  # the spec's name -> the trace's
    raw_states = data.get("states")
    if not isinstance(raw_states, list) or not raw_states:
        raise TraceFileError("the ITF trace has no states")
    steps = []
    for i, raw in enumerate(raw_states):
        if not isinstance(raw, dict):
            raise itf.ItfError(f"state {i + 1} (`states[{i}]`): a state must be an object")
        meta = raw.get("#meta") if isinstance(raw.get("#meta"), dict) else {}
        action = meta.get("action", raw.get("mbt::actionTaken"))
        keys = {n: written[n] if written.get(n) in raw else n for n in model.var_names}  # or as the spec names it
        state = {n: itf.value_from_itf(raw[keys[n]], t, f"state {i + 1} (`states[{i}]`): {n}")
                 for n, t in zip(model.var_names, model.var_types) if keys[n] in raw}
        if i == 0 or action == "init":
            steps.append(SavedStep(None, {}, state))
        elif isinstance(action, str):
            params = meta.get("params") if isinstance(meta.get("params"), dict) else {}
            steps.append(SavedStep(action, dict(params), state))
        else:
            steps.append(SavedStep(None, {}, state, action_known=False))
    meta = data.get("#meta") if isinstance(data.get("#meta"), dict) else {}
    violation = meta.get("violation") if isinstance(meta.get("violation"), dict) else {}
    loop = data.get("loop") if isinstance(data.get("loop"), int) else None
    extra, missing = _split_vars(names, model)
    return SavedTrace("itf", tuple(steps), loop, _kind(violation.get("kind")), violation.get("name"),
                      meta.get("source"),
                      meta.get("variant") or "base", {}, extra, missing, _closing(meta.get("closing"), steps, loop))


def decode_args(saved_args: dict, info, fmt: str) -> tuple:
    """The saved arguments of a step as run-time values for the action `info` (an ActionInfo).
    Raises TraceFileError when they do not match the action's parameters."""
    if set(saved_args) != set(info.param_names):
        raise TraceFileError(f"{info.name} takes ({', '.join(info.param_names)}), "
                             f"the trace gives ({', '.join(sorted(saved_args))})")
    read = itf.value_from_itf if fmt == "itf" else value_from_json
    try:
        return tuple(read(saved_args[n], t, f"{info.name}: {n}") for n, t in zip(info.param_names, info.param_types))
    except itf.ItfError as exc:
        raise TraceFileError(str(exc)) from None


def to_trace(saved: SavedTrace, model) -> Trace:
    """The saved trace as a Trace of this model, for rendering. Every variable and action must exist."""
    if saved.missing_vars:
        raise TraceFileError(f"the trace has no value for {', '.join(saved.missing_vars)}: "
                             "it was saved from another version of the spec")
    by_name = {info.name: i for i, info in enumerate(model.action_info)}
    steps = []
    for i, s in enumerate(saved.steps):
        state = tuple(s.state[n] for n in model.var_names)
        if i == 0 or not s.action_known:
            steps.append(Step(None, (), state))
            continue
        if s.action not in by_name:
            raise TraceFileError(f"state {i + 1}: the spec has no action `{s.action}`")
        a = by_name[s.action]
        steps.append(Step(a, decode_args(s.args, model.action_info[a], saved.format), state))
    closing = None
    if saved.closing is not None and saved.loop_index is not None:
        if saved.closing.action not in by_name:
            raise TraceFileError(f"the loop: the spec has no action `{saved.closing.action}`")
        a = by_name[saved.closing.action]
        closing = Step(a, decode_args(saved.closing.args, model.action_info[a], saved.format),
                       steps[saved.loop_index].state)
    return Trace(tuple(steps), saved.loop_index, closing)


def _kind(value) -> Check | None:
    """The kind of check a saved trace says it violates (None: none, or one this version does not know)."""
    try:
        return Check(value)
    except ValueError:
        return None
