"""Value pools: queued states share equal variable values (docs/performance.md, changes 12 and 17)."""

from __future__ import annotations

from tlacheck.compile.model import Model
from tlacheck.core import types as T


# Entries per variable in the fingerprint explorer's pools of queued values, before the pool is
# emptied (it then fills again with the values of the current levels).
POOL_LIMIT = 1 << 14


# A pool is given up when, over this many new states, more than nine in ten of its variable's
# values were new to it (flags_16's map of 16 flags: 97%).
POOL_WINDOW = 1 << 13


class ValuePools:
    """Queued states share equal variable values: a successor's unchanged values are its
    parent's objects anyway, and interning every new state's values per variable makes the BFS
    queue 2-3 times smaller (notify_race_4: 125 -> 45 bytes per state; docs/performance.md,
    changes 12 and 17). The unchanged values go through the pools too: that refills an emptied
    pool with the values the queue holds, which later states then share.

    A pool is bounded (emptied past POOL_LIMIT entries). It is given up when its variable's
    values rarely repeat (it would cost time and hold memory for nothing); then the pools of
    variables of scalar types go too (Python shares small ints and bools already), and the
    remaining ones are used one by one (`share`; None while every pool is used, in C)."""

    def __init__(self, model: Model):
        self.pools: list[dict | None] = [{} for _ in model.var_types]
        self.scalar = [not _poolable(t) for t in model.var_types]
        self.window = [(0, 0)] * len(self.pools)  # per pool: (states stored, its size) at the start
        self.share: tuple[int, ...] | None = None

    def review(self, stored: int) -> bool:
        """Empty the pools that grew past their bound, give up those that do not pay; True if
        `share` changed. `stored`: the states stored so far (each went through every pool)."""
        dropped = False
        for q, pool in enumerate(self.pools):
            if pool is None:
                continue
            start, size = self.window[q]
            if stored - start >= POOL_WINDOW:
                if len(pool) - size > 0.9 * (stored - start):
                    self.pools[q] = None
                    dropped = True
                    continue
                self.window[q] = stored, len(pool)
            if len(pool) > POOL_LIMIT:
                pool.clear()
                self.window[q] = (stored, 0)
        if dropped:
            self.pools[:] = [None if scalar else pool for pool, scalar in zip(self.pools, self.scalar)]
            self.share = tuple(q for q, pool in enumerate(self.pools) if pool is not None)
        return dropped


def _poolable(t: T.Type) -> bool:
    if isinstance(t, T.OptionT):
        return _poolable(t.inner)
    return not isinstance(t, (T.BoolT, T.IntT, T.SortT))
