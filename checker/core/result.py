"""Results of a check: verdicts, steps, traces and statistics."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Verdict(Enum):
    OK = "ok"
    INVARIANT_VIOLATED = "invariant_violated"
    DEADLOCK = "deadlock"
    LIVENESS_VIOLATED = "liveness_violated"
    ERROR = "error"
    INCOMPLETE = "incomplete"
    UNREACHABLE = "unreachable"

    @property
    def exit_code(self) -> int:
        return {
            Verdict.OK: 0, Verdict.INVARIANT_VIOLATED: 12, Verdict.DEADLOCK: 11,
            Verdict.LIVENESS_VIOLATED: 13, Verdict.ERROR: 4, Verdict.INCOMPLETE: 5, Verdict.UNREACHABLE: 12,
        }[self]


@dataclass(frozen=True)
class Step:
    """One state of a trace and the action that reached it (None for an initial state)."""

    action: int | None
    args: tuple
    state: tuple


@dataclass(frozen=True)
class Trace:
    """A finite trace, or a lasso: after the last state the behaviour returns to
    `steps[loop_index]` by `closing` (None: it stutters there forever, when the
    loop index is the last state)."""

    steps: tuple[Step, ...]
    loop_index: int | None = None
    closing: Step | None = None


@dataclass(frozen=True)
class Violation:
    kind: str  # "invariant", "deadlock", "error", "property" (a safety property), "liveness", "unreachable"
    name: str | None
    trace: Trace
    message: str | None = None


@dataclass
class ActionCoverage:
    enabled: int = 0  # states in which at least one instance of the action had a successor
    generated: int = 0
    distinct: int = 0


@dataclass(frozen=True)
class SimulationStats:
    """What a simulation (`tlacheck simulate`, engine/simulate.py) did, beyond a Result's counts."""

    seed: int
    behaviours: int  # behaviours started (the one a violation was found in is the last)
    states_visited: int  # states on the behaviours, initial states included, repeats counted
    longest: int  # steps of the longest behaviour
    taken: tuple[int, ...]  # per action: the steps that took it
    # Why the run ended: "traces" (the --traces bound), "time_limit", "no_initial_state",
    # "violation", "error", "interrupted" or "memory_limit" (these two: Verdict.INCOMPLETE)
    ended: str
    depth_bound: int  # steps per behaviour at most
    traces_bound: int | None  # behaviours at most (None: until the time limit)
    found_steps: int | None = None  # steps of the behaviour to the violation, before shrinking
    shrunk_steps: int | None = None  # steps of the trace reported, when shrinking shortened it
    # "cycles" (cut out), "search" (over the expanded states), "instances" (over the behaviours
    # taking only the trace's action instances) or "steps" (dropped): simulate.py's docstring
    shrink_method: str | None = None


@dataclass(frozen=True)
class SymmetryStats:
    """What the symmetry reduction of a search did (engine/levels.py): the states it expanded,
    one per orbit; the states of those orbits, which a search without the reduction would have
    expanded (the same count when the search is complete); the seconds computing orbit keys."""

    orbits: int
    states: int
    keys_s: float

    @property
    def reduction(self) -> float:
        """How many times fewer states the reduced search expanded."""
        return self.states / self.orbits if self.orbits else 1.0


@dataclass
class Result:
    verdict: Verdict
    distinct_states: int
    states_generated: int
    depth: int
    elapsed_s: float
    coverage: list[ActionCoverage] = field(default_factory=list)
    violation: Violation | None = None
    error: object = None  # EvalError for Verdict.ERROR
    stop_reason: str | None = None  # for Verdict.INCOMPLETE
    queue_left: int = 0
    witnesses: dict = field(default_factory=dict)  # reachable check name -> Trace to a shortest witness
    violations: list = field(default_factory=list)  # every failed check (one unless Options.collect)
    # Temporal properties left undecided: the search was complete, but the liveness analysis was
    # stopped (an interrupt, a limit); the verdict is then INCOMPLETE.
    undecided: tuple[str, ...] = ()
    # Fingerprint storage: TLC's optimistic estimate of the probability that two distinct
    # states shared a fingerprint (one was then never explored). None: states stored exactly.
    fingerprint_collision: float | None = None
    simulation: SimulationStats | None = None  # a simulation's statistics (None: an exhaustive search)
    symmetry: SymmetryStats | None = None  # None: no symmetry reduction
