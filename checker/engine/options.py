"""What a search is asked to do: its options, its progress reports, and which checks it runs.

One owner for the meaning of each option; the search (levels.py, search.py) and the command
line read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable

from tlacheck.compile.model import Model


class Storage(Enum):
    FINGERPRINT = "fingerprint"  # 64-bit fingerprints in a table, parent links and fingerprints in arrays
    EXACT = "exact"  # every state in a dict: no collision possible, ~10x the memory


@dataclass(frozen=True)
class Options:
    check_deadlock: bool = True
    max_states: int | None = None
    max_depth: int | None = None
    time_limit: float | None = None
    memory_limit_mb: int | None = None  # resident memory of this process, checked every 1024 states
    # The queue's memory (its sealed segments, estimated) beyond which it writes segments to disk,
    # shared out between the workers (engine/statequeue.py); None: never; 0: every segment.
    memory_budget_mb: int | None = None
    stop: object = None  # a threading.Event (or anything with is_set()): set it to stop cleanly
    # Called once with a MemoryEstimate when the memory growth says the run will not fit (None: no watch).
    warn: Callable[["MemoryEstimate"], None] | None = None
    invariants: tuple[str, ...] | None = None  # None: all of the spec's invariants
    properties: tuple[str, ...] | None = None  # None: all temporal properties
    reachables: tuple[str, ...] | None = None  # None: all reachable checks
    check_properties: bool = True  # temporal properties and reachable checks
    # Keep exploring after an invariant violation (each invariant is reported once, with a
    # shortest trace); the result lists every check that failed. For `tlacheck verify`.
    collect: bool = False
    storage: Storage = Storage.FINGERPRINT  # EXACT anyway in collect mode
    # > 1: that many forked workers (checker/engine/levels.py), with the same result. One process
    # anyway for exact storage, temporal and step properties and collect mode.
    workers: int = 1
    # Store one state per orbit of the sets declared `symmetric` (compile/symmetry.py); False:
    # every state (--no-symmetry). Temporal properties, exact storage and collect mode never reduce.
    symmetry: bool = True
    # On a Ray cluster (engine/cluster.py), with the same result: `ray` set, the address of a
    # running cluster ("": start a local one), with `ray_actors` partitions (None: one per CPU).
    ray: str | None = None
    ray_actors: int | None = None
    # The transition caches of the actions that enumerate (compile/codegen.py, `_Gen._cache_lookup`);
    # False: every instance evaluated (--no-cache). The same result either way.
    cache: bool = True


@dataclass(frozen=True)
class MemoryEstimate:
    """Why the run looks set to outgrow its memory: the figures behind the warning."""

    bytes_per_state: float  # resident memory added per stored state
    states_per_s: float  # new distinct states per second, lately
    ceiling_mb: float  # --memory-limit, or what the machine has (resident + available)
    limited: bool  # the ceiling is --memory-limit (else the machine's available memory)
    fits: int  # states that still fit under the ceiling at that rate
    expected: int  # states the search is expected to add at least (from the queue and its growth)
    queue: int

    @property
    def seconds(self) -> float:
        return self.fits / self.states_per_s

    def message(self) -> str:
        where = (f"the {self.ceiling_mb:,.0f} MB memory limit" if self.limited
                 else f"the machine's memory ({self.ceiling_mb:,.0f} MB for this process)")
        return (f"this run will probably not fit in {where}: at {self.bytes_per_state:,.0f} bytes per state "
                f"and {_amount(self.states_per_s * 60)} new states a minute it gets there in "
                f"{_duration(self.seconds)}, after about {_amount(self.fits)} more states, while "
                f"the {_amount(self.queue)} states on the queue are expected to add at least "
                f"{_amount(self.expected)}")

    hint = "consider --max-states, a state constraint or smaller constants"


def _amount(n: float) -> str:
    if n >= 10_000_000:
        return f"{n / 1e6:,.0f}M"
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    if n >= 100_000:
        return f"{n / 1e3:,.0f}K"
    return f"{n:,.0f}"


def _duration(s: float) -> str:
    if s < 1.5:
        return "about a second"
    if s < 90:
        return f"about {round(s)} seconds"
    if s < 90 * 60:
        return f"about {round(s / 60)} minutes"
    return f"about {s / 3600:.1f} hours"


@dataclass(frozen=True)
class Progress:
    generated: int
    distinct: int
    queue: int
    depth: int
    elapsed_s: float
    # "explore", or "liveness" while the temporal properties are checked after a complete search
    # (`generated` then counts the transitions of the graph)
    phase: str = "explore"


ProgressCallback = Callable[[Progress], None]


def selected_properties(model: Model, options: Options) -> tuple[str, ...]:
    """The names of the temporal properties a search checks (Options.properties; None: all)."""
    return tuple(p.name for p in model.properties if options.properties is None or p.name in options.properties)


def liveness_properties(model: Model, options: Options) -> tuple[str, ...]:
    """The selected properties decided on the state graph after the search (their liveness part)."""
    if not options.check_properties:
        return ()
    chosen = set(selected_properties(model, options))
    # and the refinements whose abstract spec has fairness (its conditions are decided there too)
    fair = tuple(c.name for c in model.refinements
                 if c.abstract.fairness and (options.properties is None or c.name in options.properties))
    return tuple(p.name for p in model.properties if p.name in chosen and p.has_liveness) + fair


def unreduced_cause(model: Model, options: Options) -> str | None:
    """Why the search stores every state rather than one per orbit of the symmetric sets (None: it
    may reduce): "temporal" (the behaviour graph of the temporal properties needs them: a lasso
    through renamed states is no behaviour), "exact" (exact storage), "collect" (collect mode)."""
    if liveness_properties(model, options):
        return "temporal"
    if options.storage != Storage.FINGERPRINT:
        return "exact"
    if options.collect:
        return "collect"
    return None


def step_properties(model: Model, options: Options) -> tuple:
    """The selected step properties, (name, (s, t) -> bool): checked on every step the search
    computes (Options.properties selects them too)."""
    return select(model.steps, options.properties) if options.check_properties else ()


def select(named: tuple, wanted: tuple[str, ...] | None) -> tuple:
    return named if wanted is None else tuple((n, f) for n, f in named if n in wanted)
