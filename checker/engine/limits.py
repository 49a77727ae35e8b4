"""When a search must stop or warn: --time-limit, --memory-limit, Ctrl-C, and the early warning
that a run will not fit in memory (an estimate from the growth of the resident size)."""

from __future__ import annotations

from tlacheck.engine.options import MemoryEstimate, Options


def resident_mb() -> float | None:
    """This process's resident memory in MB (Linux /proc; None where unavailable)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def limit_reached(opts: "Options", start: float, now: float, memory: bool = True) -> str | None:
    """The reason to stop now (an interrupt, --time-limit, --memory-limit), or None. Cheap enough
    to call every thousand states; without `memory` (no reading of /proc), at every step."""
    if opts.stop is not None and opts.stop.is_set():
        return "interrupted"
    if opts.time_limit is not None and now - start > opts.time_limit:
        return "time_limit"
    if memory and opts.memory_limit_mb is not None:
        rss = resident_mb()
        if rss is not None and rss > opts.memory_limit_mb:
            return "memory_limit"
    return None


def available_mb() -> float | None:
    """Memory the machine can still give without swapping (Linux /proc/meminfo MemAvailable), in
    MB; None where unavailable."""
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


# Below this many new states since the first reading, bytes per state are mostly allocator noise.
_ESTIMATE_MIN_STATES = 20_000


def memory_estimate(rss_mb: float, ceiling_mb: float, limited: bool, states: int, queue: int,
                    first: tuple[float, int], window: tuple[int, int, float], now: tuple[int, float]
                    ) -> MemoryEstimate | None:
    """The estimate behind the early memory warning, or None when the run looks like it fits.

    `first` is (resident MB, stored states) at the first reading of the run; `window` is
    (stored states, expanded states, seconds) at the start of the recent window and `now`
    (expanded states, seconds) at its end. Memory per state is measured since the first reading,
    the rate of new states and the growth of the search over the window: r new states per expanded
    state. The search cannot know its final size, so it extrapolates from the queue: while the
    frontier grows (r >= 1) it expects at least as many states again as it has (or the next level,
    queue * r, if larger); while it shrinks, the rest of a geometric decline, queue * r / (1 - r).
    The warning is due when that is more than the states that still fit."""
    window_states, window_expanded, window_s = window
    expanded, seconds = now
    grown = states - first[1]
    if grown < _ESTIMATE_MIN_STATES or rss_mb <= first[0] or ceiling_mb <= rss_mb:
        return None
    new, done, elapsed = states - window_states, expanded - window_expanded, seconds - window_s
    if new <= 0 or done <= 0 or elapsed <= 0:
        return None
    bytes_per_state = (rss_mb - first[0]) * 2**20 / grown
    fits = int((ceiling_mb - rss_mb) * 2**20 / bytes_per_state)
    r = new / done
    expected = max(queue * r, states)
    if r < 1:
        expected = min(expected, queue * r / (1 - r))
    if expected <= fits:
        return None
    return MemoryEstimate(bytes_per_state, new / elapsed, ceiling_mb, limited, fits, int(expected), queue)


class MemoryWatch:
    """Takes memory readings every few seconds while exploring and warns once (Options.warn) when
    memory_estimate says the run will not fit: under --memory-limit if given, else in the memory
    the machine still has. Readings come from /proc: without it (not Linux), nothing is said."""

    EVERY_S = 0.25

    def __init__(self, options: Options, reading=resident_mb):
        self.reading = reading  # resident MB now (with workers: of all the processes), or None
        self.warn = options.warn
        self.limit_mb = options.memory_limit_mb
        self.first: tuple[float, int] | None = None
        self.window: tuple[int, int, float] | None = None
        self.next_s = 0.0

    def check(self, seconds: float, states: int, expanded: int, queue: int) -> None:
        if self.warn is None or seconds < self.next_s:
            return
        self.next_s = seconds + self.EVERY_S
        rss = self.reading()
        if rss is None:
            self.warn = None
            return
        if self.first is None:
            self.first = (rss, states)
            self.window = (states, expanded, seconds)
            return
        if self.limit_mb is not None:
            ceiling, limited = float(self.limit_mb), True
        else:
            available = available_mb()
            if available is None:
                self.warn = None
                return
            ceiling, limited = rss + available, False
        estimate = memory_estimate(rss, ceiling, limited, states, queue, self.first, self.window,
                                   (expanded, seconds))
        self.window = (states, expanded, seconds)
        if estimate is not None:
            warn, self.warn = self.warn, None
            warn(estimate)
