"""What the parts of the search tell each other, as typed messages: one vocabulary for the worker
in this process, the forked workers (levels.py, through pipes) and the Ray partitions (cluster.py,
through Ray's object store).

A worker expands its part of a level (`Expansion`: per parent, its successor counts by action, and
the events met while expanding) and admits the new states it found (`Admitted`: their keys,
fingerprints and actions, in key order, and what the checks found among them; the states stay with
it, in a `Batch`); a forked worker does both and sends them with `Stepped`, a Ray partition
(`Setup` says which it is) sends its successors to their owners, a `Batch` each, and the owner
admits them. The coordinator puts each worker's part of the level
into a `Report` (its own new states only) and adds the reports up (levels.Coordinator).

Events (`Event`) are ordered as one process meets them: by key, then at one key by kind (a
constraint is evaluated first, then reachable checks, invariants, step properties; an action's
fault and a deadlock come after its parent's earlier successors).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from enum import IntEnum
from typing import NamedTuple

from tlacheck.engine.options import Options


class EventKind(IntEnum):
    """What stops a search at a key, in the order one process evaluates them there."""

    CONSTRAINT_FAULT = 0  # a state constraint failed to evaluate
    REACHABLE_FAULT = 1  # a reachable check failed to evaluate (an event only if not witnessed before)
    INVARIANT = 2  # an invariant or safety property false or failing to evaluate
    STEP = 3  # a step property false or failing to evaluate
    ACTION_FAULT = 4  # an action failed to evaluate (detail: its index)
    DEADLOCK = 5  # a parent without successors (key: the parent's first)


UNSTORED = "unstored"  # an INVARIANT event's detail: at a successor not stored (it fails a constraint)


class Event(NamedTuple):
    """An event at `key` ((parent index << 32) | ordinal: levels.py), of `kind`; `detail`: the
    action's index (ACTION_FAULT), the check's name (REACHABLE_FAULT), UNSTORED, or None."""

    key: int
    kind: EventKind
    detail: object = None


@dataclass
class Expansion:
    """What a worker's expansion of its parents reports."""

    parents: array  # the parents it expanded, by index, increasing
    counts: array  # per parent, its successor count per action
    enabled: list[int]  # per action, the parents where it had a successor
    generated: list[int]  # per action, the successors computed
    events: list[Event]  # at most one: its first
    placed: dict  # event -> (note, span) of a MemoryError met there (admission.placement)
    graph: tuple | None = None  # its part of the behaviour graph's transitions (liveness.Recorder.transitions)
    collected: list = field(default_factory=list)  # collect mode: (key, Failure), a deadlock found
    keying: float = 0.0  # with symmetry: the seconds its successors' orbit keys took
    halted: str | None = None  # the level was dropped: "halted" (the coordinator's flag), "memory_limit"
    sent: int = 0  # states it sent to other partitions (cluster.py)
    # A worker in another process (forked, a Ray partition): its transition caches' counts so far in
    # the search (Model.cache_counts), which the coordinator sums (Search._cache)
    cache: dict | None = None


def halted(reason: str, actions: int) -> Expansion:
    """The expansion of a worker that dropped its level."""
    return Expansion(array("q"), array("I"), [0] * actions, [0] * actions, [], {}, halted=reason)


@dataclass
class Batch:
    """States found in one level, in key order, each with its key there, its key in the seen-set
    and the action that found it (with symmetry, the size of its orbit): the states a worker
    admitted (admission.Admission.kept), or those a Ray partition sends one owner (cluster.py),
    each there at the smallest key it had."""

    keys: array = field(default_factory=lambda: array("q"))  # their keys ((parent index << 32) | ordinal)
    fps: array = field(default_factory=lambda: array("q"))  # their keys in the seen-set (fingerprint, orbit key or id)
    acts: array = field(default_factory=lambda: array("H"))  # the action that found each
    states: list = field(default_factory=list)
    sizes: array | None = None  # with symmetry: the size of each one's orbit

    def add(self, key: int, ai: int, state: tuple, fp: int, size: int) -> None:
        self.keys.append(key)
        self.fps.append(fp)
        self.acts.append(ai)
        self.states.append(state)
        if self.sizes is not None:
            self.sizes.append(size)


@dataclass
class Admitted:
    """The new states a worker admitted in one level, in key order, and what the checks found there."""

    keys: array  # their keys
    fps: array  # their keys in the seen-set (fingerprint, orbit key or id)
    acts: array  # the action that found each
    witnesses: dict  # reachable check -> the key of its first witness here
    faults: dict  # reachable check -> the key of its first evaluation error here
    events: list[Event]  # at most one: the first among them
    placed: dict
    values: object = None  # the behaviour graph's atoms of each (None: no graph)
    sizes: array | None = None  # with symmetry: the size of each one's orbit
    collected: list = field(default_factory=list)  # collect mode: (key, Failure) of the checks found false


def nothing_admitted() -> Admitted:
    return Admitted(array("q"), array("q"), array("H"), {}, {}, [], {})


@dataclass
class Report:
    """One worker's part of a level as the coordinator adds it up: its expansion, and its own new
    states (those no earlier worker found: `mask`, None for all) with their count per action."""

    expansion: Expansion
    admitted: Admitted  # its own new states only
    distinct: list[int]  # per action, its own new states found by it
    mask: bytes | None = None


@dataclass
class Holding:
    """The part of the next level a forked worker holds, in global order from index `first`: a list
    of segments, one per worker whose new states it covers: Own(a, b), the a-th to b-th of its own
    new states (`own`: 1 for each of its candidates that is its own, None: all); Copy(h, fps),
    states an earlier worker h found, which it found too unless h hands them over; Take(h, count),
    states a later worker h hands over. `send`: receiving worker -> positions of its own states to
    hand over to it."""

    first: int
    own: bytes | None
    segments: list = field(default_factory=list)
    send: dict = field(default_factory=dict)


class Own(NamedTuple):
    start: int
    stop: int


class Copy(NamedTuple):
    worker: int
    fps: array


class Take(NamedTuple):
    worker: int
    count: int


# ---------------------------------------------------------------- the Ray partitions (cluster.py)

@dataclass(frozen=True)
class Setup:
    """driver -> a Ray partition, when it starts, besides the recipe: its index, and what the search
    checks."""

    index: int
    partitions: int
    options: Options  # without the stop event and the warning callback (not sent)
    symmetric: bool
    code: str = ""  # the driver's cluster.code_id(): an actor running other code refuses to start


# ---------------------------------------------------------------- the pipes of forked workers

@dataclass(frozen=True)
class Init:
    """coordinator -> worker: the initial states it holds, from global index `first`."""

    first: int
    states: list


@dataclass(frozen=True)
class Step:
    """coordinator -> worker: take the states of `holding` (None: keep those it holds), then wait for
    Go and expand them; `pending`: the reachable checks still to witness; `round`: the step's number."""

    holding: Holding | None
    pending: tuple
    round: int


@dataclass(frozen=True)
class Go:
    """coordinator -> worker: the level is in the table; `slots`: the size of the grown table, whose
    descriptor follows (None: the same table); `run`: the table's part spilled to disk since the
    worker last had it, a `fingerprints.SortedRun.shared()` (None: the same, or none)."""

    slots: int | None
    run: tuple | None = None


@dataclass(frozen=True)
class Lookup:
    """coordinator -> worker: the other workers' candidates, by worker."""

    others: dict


@dataclass(frozen=True)
class Incoming:
    """coordinator -> worker: the states `sender` hands over to it (pickled)."""

    sender: int
    data: bytes


@dataclass(frozen=True)
class Stop:
    """coordinator -> worker: end."""


@dataclass(frozen=True)
class Stepped:
    """worker -> coordinator: its expansion, the states it admitted, how many it held, the CPU seconds."""

    expansion: Expansion
    admitted: Admitted
    held: int
    cpu: float


@dataclass(frozen=True)
class LookedUp:
    """worker -> coordinator: per other worker, 1 for each of its candidates this one found too."""

    has: dict


@dataclass(frozen=True)
class Moved:
    """worker -> coordinator: the states it hands over, pickled, by receiving worker."""

    data: dict


@dataclass(frozen=True)
class Failed:
    """worker -> coordinator: a bug (the traceback), or out of memory outside the spec's code."""

    details: str
    out_of_memory: bool = False
