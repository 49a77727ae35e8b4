"""What a recorded run is made of, as the matcher (engine/matcher.py) reads it: `Event`s, each
standing for some spec steps (`Call`s) and recording part of the state after them.

The readers of runs (a saved trace replayed, logs of a real system: output/logs.py,
conform/) build them; the matcher matches them against the spec's behaviours and numbers the
steps of a matched behaviour by the event each matched, or by one of the markers below for a
step no event stands for. Shared vocabulary: the readers and the reports see no engine module.
"""

from __future__ import annotations

from dataclasses import dataclass

# Node.event of an initial state, of an unlogged step filling a gap, of an unlogged lazy step.
INITIAL = -1
GAP = -2
LAZY = -3


@dataclass(frozen=True)
class Call:
    """One spec step an event stands for: an action and the arguments the run recorded,
    (parameter position, value); the others may take any value."""

    action: int
    args: tuple[tuple[int, object], ...] = ()

    def fits(self, args: tuple) -> bool:
        return all(args[p] == v for p, v in self.args)


@dataclass(frozen=True)
class Event:
    """One recorded event. `calls`: the spec steps it stands for, in order (None: one step of
    any action); `state`: (slot, value) of the variables it recorded after them; `initial`: it
    records the initial state (no step). `origin` (where it was read) and `order` (its clock or
    timestamp, for `run_merged`) are carried, never read, by the matcher."""

    calls: tuple[Call, ...] | None
    state: tuple[tuple[int, object], ...] = ()
    initial: bool = False
    origin: object = None
    order: object = None
    process: int = 0

    def agrees(self, state: tuple) -> bool:
        return all(state[i] == v for i, v in self.state)
