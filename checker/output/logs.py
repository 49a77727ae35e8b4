"""Logs of a real system read as events for the matcher (engine/matcher.py): NDJSON and ITF.

NDJSON: one JSON object per line, in the shape of a step of a `--json` trace,
every key optional:

    {"action": "SendDone", "args": {"t": "t1"}, "state": {"sent": true}}

- `action`: the event's name, an action of the spec or an `event` of its `conform:` section
  (which may stand for several steps); absent: the line does not say which action (any one);
  `null` (as `--json` prints the initial state), or `"init": true`: the initial state (first line
  only);
- `args`: the action's arguments, by parameter name (or as the `conform:` section maps them),
  any subset; the others take any value;
- `state`: some variables' values after the step (a partial state), by variable name (or as the
  section's `field` lines map them);
- `clock` (an int, Lamport's, or an object of ints per process, a vector clock) or `time` (seconds):
  how the events of several processes are ordered (`order_of`); `process`: a label;
- `changes`, `derived`, `derived_changes` (what `--json` adds to a step) are ignored, and so is any
  name the section lists in `ignore`, wherever it appears. Anything else is an error.

Values are written as `--json` writes them (output/savedtrace.py value_from_json: enum members
and model values by name, or by a text the section's `values` lines map; sets and sequences as
lists; records as objects; maps as objects or lists of pairs; an option as null or its value).

ITF (an object with `vars` and `states`, from any tool): the first state is the initial one;
a state's action comes from its `#meta.action` (tlacheck) or `mbt::actionTaken` (Quint), with
`#meta.params`; a state may hold a subset of the variables.

Every line is read when the matcher asks for it: a log is never loaded whole. A line that cannot
be read is a LogError `FILE:LINE:COL: error[E5xx]: ...` saying what was expected (the codes are in
docs/errors.md).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

from tlacheck.core.errors import Diagnostic, TlacheckError, suggest
from tlacheck.core.events import Call, Event
from tlacheck.core.source import Span
from tlacheck.ir import nodes as ir
from tlacheck.output import itf
from tlacheck.output.savedtrace import value_from_json


# What a `--json` trace step adds that a log line may carry and the matcher does not read.
_TRACE_EXTRAS = ("changes", "derived", "derived_changes")
_KEYS = ("action", "args", "state", "init", "clock", "time", "process") + _TRACE_EXTRAS
_SHOWN = 200  # characters of a log line kept for a report


class LogError(TlacheckError):
    """A log line that cannot be read (exit 2): `diagnostic` places it (a Span in the log file,
    the column of the offending text when known) and `text` is the line."""

    exit_code = 2

    def __init__(self, code: str, message: str, file: str, line: int, text: str = "", column: int = 0,
                 width: int = 0, hint: str | None = None):
        self.diagnostic = Diagnostic(code, message, Span(file, line, column, line, column + width) if column
                                     else None, hint)
        self.file = file
        self.line = line
        self.text = text
        super().__init__(message)

    def render(self) -> str:
        d = self.diagnostic
        where = f"{d.span}" if d.span is not None else f"{self.file}:{self.line}" if self.line else self.file
        out = [f"{where}: error[{d.code}]: {d.message}"]
        if self.text:
            gutter = f"{self.line:>4} | "
            shown = self.text if len(self.text) <= 150 else self.text[:147] + "..."
            out.append(gutter + shown)
            if d.span is not None:
                column = min(d.span.column, len(shown) + 1)  # a JSON error at the end of the line
                width = max(1, min(d.span.end_column - d.span.column, len(shown) - column + 1))
                out.append(" " * (len(gutter) + column - 1) + "^" * width)
        if d.hint:
            out.append(f"  = hint: {d.hint}")
        return "\n".join(out)

    def to_json(self) -> dict:
        data = self.diagnostic.to_json()
        data["file"], data["line"] = self.file, self.line
        return data


@dataclass(frozen=True)
class Origin:
    """Where an event was read: the file, the line (NDJSON) or state number (ITF), the text."""

    file: str
    line: int
    text: str
    itf: bool = False

    def __str__(self) -> str:
        return f"{self.file}: state {self.line}" if self.itf else f"{self.file}:{self.line}"


class Mapping:
    """What a log may name, from the spec's `conform:` section (model.conform) and its own
    names: events (a mapped name, else an action's name), arguments, state fields, values."""

    def __init__(self, model):
        self.model = model
        section = model.conform or ir.Conform()
        self.events: dict[str, tuple] = {e.name: e.steps for e in section.events}
        for a, info in enumerate(model.action_info):
            self.events.setdefault(info.name, ((a, ()),))
        self.fields: dict[str, int] = dict(section.fields)
        for slot, name in enumerate(model.var_names):
            self.fields.setdefault(name, slot)
        self.values = {sort: dict(pairs) for sort, pairs in section.values} or None
        self.ignore = frozenset(section.ignore)

    def call_fields(self, steps) -> list[list[tuple[int, str]]]:
        """Per step of an event, (parameter position, the event argument it takes)."""
        out = []
        for action, given in steps:
            taken = dict(given)
            names = self.model.action_info[action].param_names
            out.append([(p, taken.get(p, name)) for p, name in enumerate(names)])
        return out


def read_ndjson(path: str, mapping: Mapping, lines=None):
    """The events of an NDJSON log, one per non-blank line, read as the caller iterates (`lines`:
    the file's lines, else the file is opened here). Raises LogError."""
    handle = None
    if lines is None:
        handle = open_log(path)
        lines = handle
    try:
        for number, raw in enumerate(lines, start=1):
            text = raw.rstrip("\r\n")
            if not text.strip():
                continue
            event = event_from_line(path, number, text, mapping)
            if event is not None:  # an event the `conform:` section maps to `skip`: no spec step
                yield event
    except UnicodeDecodeError as exc:
        raise LogError("E507", f"the log is not UTF-8 text ({exc.reason})", path, 0,
                       hint="write logs as UTF-8") from None
    finally:
        if handle is not None:
            handle.close()


def open_log(path: str):
    try:
        return open(path, encoding="utf-8", newline="")
    except OSError as exc:
        raise LogError("E507", f"cannot read the log: {exc.strerror or exc}", path, 0,
                       hint="give the path of an NDJSON or ITF log") from None


def event_from_line(path: str, number: int, text: str, mapping: Mapping) -> Event | None:
    """The event of one NDJSON line (`number` of the log `path`), None for an event the
    `conform:` section maps to `skip`. Raises LogError."""
    def fail(code: str, message: str, hint: str | None = None, needle: str | None = None,
             within: str | None = None) -> LogError:
        """The error, its caret under `needle` (after the key `within`, when given)."""
        start = 0
        if within is not None and text.find(f'"{within}"') >= 0:
            start = text.find(f'"{within}"') + len(within) + 2
        column = text.find(needle, start) + 1 if needle else 0
        return LogError(code, message, path, number, text, column, len(needle) if needle and column else 0, hint)

    try:
        data = json.loads(text)
    except ValueError as exc:
        msg = getattr(exc, "msg", str(exc))
        col = getattr(exc, "colno", 0)
        raise LogError("E501", f"not JSON: {msg}", path, number, text, col, 1,
                       "each line of an NDJSON log is one JSON object, e.g. "
                       '{"action": "Send", "args": {...}, "state": {...}}') from None
    if not isinstance(data, dict):
        raise fail("E501", f"expected a JSON object, found {_kind(data)}",
                   'each line is one object: {"action": ..., "args": {...}, "state": {...}}')
    origin = Origin(path, number, text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "...")
    for key in data:
        if key not in _KEYS and key not in mapping.ignore:
            close = suggest(key, _KEYS)
            raise fail("E502", f"unknown key `{key}`", f"did you mean `{close}`?" if close else
                       "a line has the keys action, args, state (and init, clock, time, process); list other "
                       "keys in the spec's `conform:` section with `ignore`", json.dumps(key))
    initial = data.get("init") is True or ("action" in data and data["action"] is None)
    if "init" in data and not isinstance(data["init"], bool):
        raise fail("E502", f"`init` must be true or false, found {_kind(data['init'])}", None, '"init"')
    state = _state(data.get("state", {}), mapping, fail)
    order = _order(data, fail)
    if initial:
        if data.get("args"):
            raise fail("E502", "the initial state has no arguments", "drop `args` from the initial state's line",
                       '"args"')
        return Event(None, state, True, origin, order)
    if "action" not in data:
        calls = None
        if data.get("args"):
            raise fail("E502", "arguments without an action", "name the action (`\"action\": ...`) or drop `args`",
                       '"args"')
    else:
        calls = _calls(data["action"], data.get("args", {}), mapping, fail)
        if not calls:
            return None
    return Event(calls, state, False, origin, order)


def _kind(x) -> str:
    if isinstance(x, bool):
        return "a boolean"
    if isinstance(x, (int, float)):
        return "a number"
    if isinstance(x, str):
        return "a string"
    if isinstance(x, list):
        return "a list"
    if isinstance(x, dict):
        return "an object"
    return "null"


def _state(raw, mapping: Mapping, fail) -> tuple:
    if not isinstance(raw, dict):
        raise fail("E502", f"`state` must be an object of variables, found {_kind(raw)}", None, '"state"')
    model = mapping.model
    out = []
    for name, value in raw.items():
        if name in mapping.ignore:
            continue
        slot = mapping.fields.get(name)
        if slot is None:
            close = suggest(name, mapping.fields)
            raise fail("E504", f"the spec has no variable `{name}`",
                       f"did you mean `{close}`?" if close else
                       "map the log's name to a variable with `field` in the spec's `conform:` section, or `ignore` it",
                       json.dumps(name), "state")
        try:
            out.append((slot, value_from_json(value, model.var_types[slot], name, mapping.values)))
        except itf.ItfError as exc:
            raise fail("E505", str(exc), _value_hint(exc), json.dumps(name), "state") from None
    out.sort()
    return tuple(out)


def _value_hint(exc: itf.ItfError) -> str:
    if "is not a member of" in str(exc):
        return ("write a member's name, or map the log's text to one with `values` in the spec's "
                "`conform:` section")
    return "write values as `tlacheck check --json` prints them (sets and sequences as lists, records as objects)"


def _calls(name, raw_args, mapping: Mapping, fail) -> tuple[Call, ...]:
    if not isinstance(name, str):
        raise fail("E502", f"`action` must be a string (or null for the initial state), found {_kind(name)}",
                   None, '"action"')
    steps = mapping.events.get(name)
    if steps is None:
        close = suggest(name, mapping.events)
        raise fail("E503", f"unknown event `{name}`: not an action of the spec nor an `event` of its `conform:` "
                   "section", f"did you mean `{close}`?" if close else
                   f"the spec's actions: {', '.join(i.name for i in mapping.model.action_info)}", json.dumps(name))
    if not isinstance(raw_args, dict):
        raise fail("E502", f"`args` must be an object, found {_kind(raw_args)}", None, '"args"')
    model = mapping.model
    args = {k: v for k, v in raw_args.items() if k not in mapping.ignore}
    used: set[str] = set()
    calls = []
    for (action, _), fields in zip(steps, mapping.call_fields(steps)):
        info = model.action_info[action]
        given = []
        for p, field in fields:
            if field in args:
                used.add(field)
                try:
                    given.append((p, value_from_json(args[field], info.param_types[p], f"{info.name}: {field}",
                                                     mapping.values)))
                except itf.ItfError as exc:
                    raise fail("E505", str(exc), _value_hint(exc), json.dumps(field), "args") from None
        calls.append(Call(action, tuple(given)))
    for k in args:
        if k not in used:
            known = sorted({f for fields in mapping.call_fields(steps) for _, f in fields})
            close = suggest(k, known)
            raise fail("E504", f"`{name}` has no argument `{k}`",
                       f"did you mean `{close}`?" if close else
                       f"its arguments: {', '.join(known) or 'none'}", json.dumps(k), "args")
    return tuple(calls)


def _order(data: dict, fail):
    """The event's clock (an int, or a vector: a dict of ints) or time (a number), or None."""
    if "clock" in data:
        c = data["clock"]
        if isinstance(c, int) and not isinstance(c, bool):
            return c
        if isinstance(c, dict) and c and all(isinstance(v, int) and not isinstance(v, bool) for v in c.values()):
            return tuple(sorted(c.items()))
        raise fail("E506", f"`clock` must be an int (a Lamport clock) or an object of ints (a vector clock), "
                   f"found {_kind(c)}", None, '"clock"')
    if "time" in data:
        t = data["time"]
        if isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t):
            return float(t)
        raise fail("E506", f"`time` must be a number of seconds, found {_kind(t)}", None, '"time"')
    return None


# ---------------------------------------------------------------- ITF

def read_itf(path: str, data: dict, mapping: Mapping):
    """The events of an ITF trace (already parsed): the first state is the initial one."""
    model = mapping.model

    def fail(code: str, message: str, i: int, hint: str | None = None) -> LogError:
        return LogError(code, f"state {i}: {message}", path, 0, "", 0, 0, hint)

    try:
        names = itf.state_vars(data)
    except itf.ItfError as exc:
        raise LogError("E507", f"not an ITF trace: {exc}", path, 0) from None
    states = data.get("states")
    if not isinstance(states, list) or not states:
        raise LogError("E507", "the ITF trace has no states", path, 0)
    spec_names = itf.read_names(data, model.var_names)  # `P__pc` in the trace is the spec's `P.pc`
    for n in names:
        if spec_names.get(n, n) not in mapping.fields and n not in mapping.ignore:
            close = suggest(n, mapping.fields)
            raise LogError("E504", f"the spec has no variable `{n}`", path, 0, "", 0, 0,
                           f"did you mean `{close}`?" if close else "map it with `field` in the spec's `conform:` "
                           "section, or `ignore` it")
    for i, raw in enumerate(states):
        if not isinstance(raw, dict):
            raise fail("E502", "a state must be an object", i)
        meta = raw.get("#meta") if isinstance(raw.get("#meta"), dict) else {}
        state = []
        for n in names:
            if n in raw and n not in mapping.ignore:
                slot = mapping.fields[spec_names.get(n, n)]
                try:
                    state.append((slot, itf.value_from_itf(raw[n], model.var_types[slot], n, mapping.values)))
                except itf.ItfError as exc:
                    raise fail("E505", str(exc), i) from None
        origin = Origin(path, i, json.dumps({k: v for k, v in raw.items() if k != "#meta"})[:_SHOWN], itf=True)
        action = meta.get("action", raw.get("mbt::actionTaken"))
        if i == 0 or action == "init":
            if i != 0:
                raise fail("E506", "only the first state of a trace is an initial state", i)
            yield Event(None, tuple(sorted(state)), True, origin)
            continue
        if not isinstance(action, str):
            yield Event(None, tuple(sorted(state)), False, origin)
            continue
        steps = mapping.events.get(action)
        if steps is None:
            close = suggest(action, mapping.events)
            raise fail("E503", f"unknown event `{action}`", i, f"did you mean `{close}`?" if close else None)
        if not steps:
            continue
        params = meta.get("params") if isinstance(meta.get("params"), dict) else {}
        calls = []
        for (a, _), fields in zip(steps, mapping.call_fields(steps)):
            info = model.action_info[a]
            given = []
            for p, field in fields:
                if field in params:
                    try:
                        given.append((p, itf.value_from_itf(params[field], info.param_types[p], field,
                                                            mapping.values)))
                    except itf.ItfError as exc:
                        raise fail("E505", str(exc), i) from None
            calls.append(Call(a, tuple(given)))
        yield Event(tuple(calls), tuple(sorted(state)), False, origin)


# ---------------------------------------------------------------- a log file, whatever its format

def read_log(path: str, mapping: Mapping):
    """The events of the log at `path`: an ITF trace (a JSON object with `vars` and `states`, on
    one line or many), else NDJSON. Raises LogError (lazily, as the events are read)."""
    data = _itf_document(path)
    if data is not None:
        yield from read_itf(path, data, mapping)
    else:
        yield from read_ndjson(path, mapping)


def _itf_document(path: str):
    """The file's ITF trace, or None when it is not one (then it is read as NDJSON)."""
    with open_log(path) as handle:
        try:
            first = ""
            while not first.strip():
                first = handle.readline()
                if not first:
                    return None
            try:
                data = json.loads(first)
            except ValueError:  # not one object on a line: maybe one document over many
                handle.seek(0)
                try:
                    data = json.load(handle)
                except ValueError:
                    return None
        except UnicodeDecodeError as exc:
            raise LogError("E507", f"the log is not UTF-8 text ({exc.reason})", path, 0,
                           hint="write logs as UTF-8") from None
    return data if itf.is_itf(data) else None


def process_files(folder: str) -> list[str]:
    """The logs of a run with one file per process: the files of `folder`, by name."""
    try:
        names = sorted(n for n in os.listdir(folder) if not n.startswith("."))
    except OSError as exc:
        raise LogError("E507", f"cannot read the folder: {exc.strerror or exc}", folder, 0) from None
    files = [os.path.join(folder, n) for n in names if os.path.isfile(os.path.join(folder, n))]
    if not files:
        raise LogError("E507", "the folder holds no log", folder, 0, hint="one file per process")
    return files


# ---------------------------------------------------------------- happens-before

def ordered(events, merge: str, path: str):
    """The events of one process's log, each checked to carry what `merge` orders by ("clock" or
    "time"), never going backwards."""
    last = None
    for e in events:
        if e.initial:
            yield e
            continue
        o = e.order
        line = e.origin.line if e.origin is not None else 0
        text = e.origin.text if e.origin is not None else ""
        if merge == "clock" and not isinstance(o, (int, tuple)) or merge == "time" and not isinstance(o, float):
            what = "a `clock` (Lamport or vector)" if merge == "clock" else "a `time`"
            raise LogError("E506", f"merging the logs of several processes by {merge} needs {what} on every "
                           "event", path, line, text, hint="write it with the recorder's clock= or time= "
                           "(docs/conform.md, Several processes)")
        if last is not None and type(o) is type(last) and not _not_before(o, last):
            raise LogError("E506", f"the {merge} goes backwards ({_shown(last)} then {_shown(o)})", path, line, text,
                           hint="a process's own events must be in the order they happened")
        if last is not None and type(o) is not type(last):
            raise LogError("E506", "a log mixes Lamport and vector clocks", path, line, text)
        last = o
        yield e


def _shown(o) -> str:
    return json.dumps(dict(o)) if isinstance(o, tuple) else str(o)


def _not_before(o, last) -> bool:
    if isinstance(o, tuple):
        now, before = dict(o), dict(last)
        return all(now.get(k, 0) >= v for k, v in before.items())
    return o >= last


def precedence(merge: str, tolerance: float = 0.0):
    """`precedes(e, f)`: e happens before f (events of two processes). Lamport clocks: e's clock is
    smaller (events with equal clocks are concurrent); vector clocks: e's is smaller in every
    component and different; times: e's is more than `tolerance` seconds earlier."""
    if merge == "time":
        return lambda e, f: e.order + tolerance < f.order

    def by_clock(e, f) -> bool:
        a, b = e.order, f.order
        if isinstance(a, int) and isinstance(b, int):
            return a < b
        if isinstance(a, tuple) and isinstance(b, tuple):
            da, db = dict(a), dict(b)
            return da != db and all(v <= db.get(k, 0) for k, v in da.items())
        return False
    return by_clock
