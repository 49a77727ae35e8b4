"""A behaviour of the spec in the implementation's words: its steps grouped into the events of the
spec's `conform:` section (output/logs.py Mapping), the arguments and states translated.

The section says how the code names things: `event "follow_on.completed" = FollowOnAnswers then
FollowOnNotifies` means the code takes those two spec steps as one (and logs them as one line); an
action that no event names is its own event, by its name. Going from the spec to the code (test
generation, the pytest bridge, schedules) reads the section backwards:

- `events(mapping)`: the events that are spec steps, the section's own first (in its order), then
  each action by its name;
- `group(...)`: at a position of a behaviour, the longest event whose steps are the next steps;
- `bound(mapping)`: the actions the code cannot take on their own, because the section names them
  only inside events of several steps (generated behaviours keep those steps together);
- `args_in_code`, `state_in_code`: spec values written as the code writes them (the section's
  `values` texts, its `field` and argument names), the inverse of reading a log line.
"""

from __future__ import annotations

from dataclasses import dataclass

from tlacheck.conform.recorder import line
from tlacheck.core.events import Event
from tlacheck.core.values import to_json
from tlacheck.output.logs import Mapping, event_from_line


@dataclass(frozen=True)
class EventSteps:
    """An event of the code and the spec actions it takes, in order; `own`: it is an action's own
    name, not an event of the section."""

    name: str
    actions: tuple[int, ...]
    own: bool


def events(mapping: Mapping) -> list[EventSteps]:
    """The events that are steps (not `skip`), the section's first, in the section's order."""
    section = {e.name for e in (mapping.model.conform.events if mapping.model.conform else ())}
    out = []
    for name, steps in mapping.events.items():
        if steps:
            out.append(EventSteps(name, tuple(a for a, _ in steps), name not in section))
    out.sort(key=lambda e: e.own)  # stable: the section's events, then the actions' own names
    return out


def group(all_events: list[EventSteps], actions, start: int, usable=lambda e: True,
          preferred=lambda e: False) -> EventSteps | None:
    """The longest usable event whose actions are `actions[start:...]`; among equally long ones a
    preferred one, then the first in `all_events`' order. None when there is none."""
    best, key = None, None
    for e in all_events:
        n = len(e.actions)
        if usable(e) and tuple(actions[start:start + n]) == e.actions and (key is None or (n, preferred(e)) > key):
            best, key = e, (n, preferred(e))
    return best


def bound(mapping: Mapping) -> tuple[frozenset[int], tuple[tuple[int, ...], ...]]:
    """(the actions the code never takes alone, the action sequences of the section's events of
    several steps). An action is taken alone when the section has an event that is just it, or
    names it in no event (then its own name is its event)."""
    own = {e.actions for e in events(mapping) if not e.own}
    mentioned = {a for seq in own for a in seq}
    composed = tuple(sorted(seq for seq in own if len(seq) > 1))
    alone = {seq[0] for seq in own if len(seq) == 1}
    return frozenset(a for a in mentioned if a not in alone), composed


def texts(mapping: Mapping) -> dict[str, dict[int, str]]:
    """Per enum or set of model values, the code's text of each member the section maps (the first
    text given, when several stand for one member)."""
    out: dict[str, dict[int, str]] = {}
    for sort, pairs in (mapping.values or {}).items():
        for text, member in pairs.items():
            out.setdefault(sort, {}).setdefault(member, text)
    return out


def state_in_code(mapping: Mapping, state: tuple, only=None) -> dict:
    """A spec state as the code names it: each variable under its `field` name (the first that maps
    to it, else its own), each value as `--json` writes it with the section's texts for members.
    `only`: the slots to write (default all)."""
    names = {}
    for name, slot in mapping.fields.items():
        names.setdefault(slot, name)
    model = mapping.model
    shown = texts(mapping)
    return {names[i]: to_json(state[i], model.var_types[i], shown)
            for i in (range(len(state)) if only is None else only)}


def args_in_code(mapping: Mapping, event: EventSteps, steps) -> dict:
    """The arguments of `event` for the spec steps `steps` (core.result.Step, one per action of the
    event), under the names the code gives them (the section's argument names, else the spec's)."""
    model = mapping.model
    shown = texts(mapping)
    out = {}
    given = mapping.events[event.name]
    for (action, _), fields, step in zip(given, mapping.call_fields(given), steps):
        info = model.action_info[action]
        for position, name in fields:
            out.setdefault(name, to_json(step.args[position], info.param_types[position], shown))
    return out


def read_state(mapping: Mapping, where: str, state: dict) -> tuple:
    """The code's state (a dict in its words) as (slot, value) pairs of the spec, read as a log
    line's `state` is read (raises output.logs.LogError: an unknown name, a value of another type)."""
    return read_event(mapping, where, {"action": None, "state": state}).state


def read_event(mapping: Mapping, where: str, data: dict) -> Event:
    """`data` (an object in the shape of a log line) read as the log line it would be."""
    text = line(data.get("action"), data.get("args"), data.get("state"), initial="action" in data
                and data["action"] is None)
    event = event_from_line(where, 0, text, mapping)
    if event is None:
        raise ValueError(f"{where}: `{data.get('action')}` is no step of the spec (`skip` in its conform: section)")
    return event
