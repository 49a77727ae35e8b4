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


class Check(Enum):
    """The kinds of check: what a Violation is of (`kind`, its value in the JSON), what a search
    evaluates, and what an expectation names. The one owner of their verdicts, of how a violation
    of each is told, and of what evaluating one is called in an error's note."""

    INVARIANT = "invariant"
    PROPERTY = "property"  # the safety part of a temporal property: `always P`, or P of the initial states
    STEP = "step"  # a step property (P reads x')
    LIVENESS = "liveness"  # the liveness part of a temporal property, decided on the behaviour graph
    REACHABLE = "reachable"  # a reachable check (evaluated; a witness shown by `verify`)
    UNREACHABLE = "unreachable"  # a reachable check that no reachable state satisfies
    CONSTRAINT = "constraint"  # a state constraint (never violated: only its evaluation fails)
    DEADLOCK = "deadlock"
    ERROR = "error"  # an evaluation error (the Violation's name is its code)
    THEOREM = "theorem"  # decided by `prove`, named by an expectation
    REFINEMENT = "refinement"  # a `refines` declaration, named by an expectation
    TRACE = "trace"  # no check: a behaviour read back or recorded (replay, conform)

    @property
    def verdict(self) -> Verdict:
        """The verdict of a search that ends with a violation of this kind."""
        return _CHECK_VERDICTS[self]

    def violated(self, initial: bool = False) -> str:
        """How a violation of this kind is told (`initial`: a property false in an initial state)."""
        if initial:
            return "an initial state does not satisfy the property"
        return _CHECK_VIOLATED[self]

    @property
    def noun(self) -> str:
        """What evaluating a check of this kind is called: "while evaluating {noun} NAME"."""
        return _CHECK_NOUNS.get(self, self.value)


_CHECK_VERDICTS = {Check.INVARIANT: Verdict.INVARIANT_VIOLATED, Check.PROPERTY: Verdict.INVARIANT_VIOLATED,
                   Check.STEP: Verdict.INVARIANT_VIOLATED, Check.DEADLOCK: Verdict.DEADLOCK,
                   Check.LIVENESS: Verdict.LIVENESS_VIOLATED, Check.UNREACHABLE: Verdict.UNREACHABLE,
                   Check.ERROR: Verdict.ERROR}
_CHECK_VIOLATED = {Check.INVARIANT: "the invariant is false in the last state",
                   Check.PROPERTY: "a reachable state does not satisfy it",
                   Check.STEP: "the last step does not satisfy it",
                   Check.DEADLOCK: "a state with no successor",
                   Check.UNREACHABLE: "no reachable state satisfies it"}
_CHECK_NOUNS = {Check.STEP: "step property", Check.REACHABLE: "reachable check"}


class Expectation(Enum):
    """What an `expect` line asks of a variant (lang/syntax.ExpectDecl.outcome)."""

    HOLDS = "holds"
    VIOLATES = "violates"
    PROVES = "proves"  # a theorem's `holds`
    REFUTES = "refutes"  # a theorem's `violates`
    DEADLOCKS = "deadlocks"

    @property
    def positive(self) -> bool:
        """Met when the check holds (else: when it is violated)."""
        return self in (Expectation.HOLDS, Expectation.PROVES)


class Answer(Enum):
    """What deciding an expectation's check gave (`tlacheck verify`'s `got`)."""

    HOLDS = "holds"
    VIOLATES = "violates"
    UNKNOWN = "unknown"  # the SMT solver could not tell
    UNCHECKED = "unchecked"  # simulation does not decide it (a reachable check, liveness)

    def meets(self, expected: Expectation) -> bool:
        return self == (Answer.HOLDS if expected.positive else Answer.VIOLATES)


@dataclass(frozen=True)
class Violation:
    kind: Check
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
class CacheStats:
    """What one action's transition cache did in a search (compile/codegen.py, `_Gen._cache_lookup`):
    the instances answered from it, those evaluated and remembered, how often it was emptied on
    reaching its bound, and whether it turned itself off (too few hits). Counted by the searching
    processes: with forked workers or Ray actors, each has its own caches, and the counts are
    their sums (levels.Coordinator._cache_counts)."""

    action: int
    hits: int
    misses: int
    clears: int
    gave_up: bool = False  # turned off after runtime.CACHE_TRIAL misses, having answered fewer

    @property
    def hit_rate(self) -> float:
        return self.hits / (self.hits + self.misses) if self.hits + self.misses else 0.0


@dataclass(frozen=True)
class SymmetryStats:
    """What the symmetry reduction of a search did (engine/levels.py): the states it expanded,
    one per orbit; the states of those orbits, which a search without the reduction would have
    expanded (the same count when the search is complete); the seconds computing orbit keys,
    summed over the `processes` that expanded states (the workers, or a cluster's actors)."""

    orbits: int
    states: int
    keys_s: float
    processes: int = 1

    @property
    def reduction(self) -> float:
        """How many times fewer states the reduced search expanded."""
        return self.states / self.orbits if self.orbits else 1.0

    def keys_share(self, elapsed_s: float) -> float:
        """The share of a search of `elapsed_s` seconds (its processes' time together) that went
        to the orbit keys."""
        total = elapsed_s * self.processes
        return min(self.keys_s / total, 1.0) if total > 0 else 0.0

    def pays(self, elapsed_s: float) -> bool:
        """Whether the reduction probably saved more time than the keys cost, estimated: the
        search without it spends the time not spent in the keys on `reduction` times as many
        states (each state it does not store is a successor it does not expand), so it pays
        while reduction x (1 - the keys' share) exceeds 1."""
        return self.reduction * (1.0 - self.keys_share(elapsed_s)) > 1.0


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
    # Per action with a transition cache, what it did (in action order); None: caching was off
    cache: tuple[CacheStats, ...] | None = None
