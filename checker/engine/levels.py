"""The search, level by level: the one driver, for one process and for `--workers N`.

Every search runs here (explore.py): with one worker, the worker is an object in
this process that the coordinator calls directly; with `--workers N`, N forked
processes. Either way the counts, the coverage and the events are added up by the
same code (`_add_level`, `_emulate`, `_stop_at_event`), so what a count means is
defined once for every search.

Guarantee: the same Result for every worker count and both storages — verdict,
distinct and generated counts, depth, coverage, witnesses, evaluation errors and
the same shortest counterexample (the meanings: explore.py's docstring). Traces
are rebuilt from the stored keys (traces.py), as for every store.

Exact storage (`exact`: `--storage exact`, collect mode) runs with one worker
in this process. The table then stays empty: each state seen gets an id in the
store's dict of states (ExactStore), and the worker tells new states by the set
of ids it has seen, so no two states can be merged. With temporal properties
(either storage, any number of workers) each worker records its part of the
behaviour graph (liveness.Graph) while it expands a level: the atoms of the
states it stores, the fairness conditions of the states it expands, each
transition's successor key and the conditions it takes; it ships that part with
its expansion, and the coordinator appends the parts in worker order, the keys
made numbers (`_add_level`); the liveness checker reads the graph and the
states' depths after the search. In
collect mode (`tlacheck verify`) a check found false is not an event: the worker
collects it and does not evaluate it again, and the coordinator rebuilds each
such violation from its key (`_collected`), as it does an event.

How. The search is level-synchronous. Worker w holds a contiguous range of the
current BFS level, in single-process order: worker 0 the first states, worker
1 the next ones, and so on. Every successor has a key, (global index of its
parent << 32) | ordinal: its position in the single-process BFS, whose first
successor to reach a state is the one that stores it. So every key of worker
v is smaller than every key of a later worker w, and a state that several
workers found belongs to the first of them: no keys are compared across
workers, and the level's new states are numbered by prefix sums. States stay
in the worker that found them unless the ranges need them elsewhere.

The fingerprints of the stored states are in one open-addressing table
(fingerprints.FingerprintTable) in
shared memory. Only the coordinator (this process) writes it, and only while
the workers do not read it. Per level:

1. step: each worker takes the states it now holds (some handed over by
   other workers), waits for the coordinator's "go" (the level is in the
   table), then expands them in global order. A successor is a candidate
   unless its fingerprint is in the table or among this level's candidates
   so far (a set: most duplicate successors are states found earlier in the
   same level, and a set lookup is cheaper than probing the table). Candidates
   are checked as one process checks the states it stores: the state
   constraints, the reachable checks, then the invariants the action may have
   broken; step properties are checked on every successor that differs
   from its parent, a candidate or not (after a candidate's invariants), as
   one process checks them. The values a candidate's action wrote are interned as one
   process interns the states it queues (the others are its parent's, shared
   already). The worker keeps the candidate states and reports their
   fingerprints, keys and actions as arrays, its successor counts per parent
   and action, the first witness and evaluation error of each reachable check,
   and its events (an invariant violated, evaluation errors in actions,
   constraints and invariants, deadlocks); it stops at its first event.
2. lookup: each worker says which candidates of the other workers it found
   too. A candidate of worker w found by an earlier worker is not w's own;
   that worker found and checked it at a smaller key, so the first event and
   the first witnesses over all workers are at new states. Meanwhile the
   coordinator starts inserting the candidates' fingerprints into the table
   (and finishes while the workers take their states, in the next step).
3. settle: the coordinator numbers the new states (worker 0's candidates,
   then worker 1's own ones, ...) and splits the new level into contiguous
   ranges, by the workers' recent speeds. A worker holds a state of another
   worker's numbering if it found it too; otherwise the state is handed over
   (pickled): 0 to 3.4% of the states on the benchmark models.

The first event in key order is the one a single process meets first. The
coordinator sets the counts to what a single process has at that point (from
the per-parent successor counts the workers report), then evaluates the event
again itself, so the Result is built by the same code as with one process.
A MemoryError in the spec's code is the exception: the worker places it from
its traceback (Model.limit_error), and the coordinator reports it (E411) there
without evaluating again, since it need not recur. Out of memory elsewhere in
a worker ends the run as it does in one process (`tlacheck: out of memory`).
A level without events is added up while the workers expand the next one.

The table grows (4x) when a level would fill more than half of it; the
coordinator grows it ahead, while the workers expand the level before, when
it expects the next level to need it. The workers read the old table
meanwhile, which nobody writes then, and get the new one with the next "go".

With one worker, there is nothing to look up, hand over or wait for: the
worker expands the level when the coordinator calls it, and the level's
fingerprints go into the table (a private one) after it.

Limits: collect mode (`tlacheck verify`) and exact storage run with one worker
in this process. Workers are forked, so the compiled model is inherited rather
than pickled; where "fork" is unavailable the search runs with one worker. The
`--time-limit`, `--memory-limit` (this process and its workers) and a stop
request (Ctrl-C) are checked between levels and, while the workers expand,
every 0.1 s (forked workers; then they drop the level: a shared flag they read
every 1024 states) or every 1024 states (the in-process worker, which also
stops inside a long step: watchdog.py); the search then stops where
--max-depth before that level would, unless the workers before the first
halted one found an event: everything before it in key order was expanded, so
it is reported as one process reports it.
"""

from __future__ import annotations

import gc
import mmap
import multiprocessing
import os
import pickle
import sys
import time
import traceback
from array import array
from bisect import bisect_left
from collections import Counter
from itertools import chain, compress, repeat
from multiprocessing import reduction
from multiprocessing.connection import wait
from operator import itemgetter, not_
from typing import Callable

from tlacheck.compile.model import Model
from tlacheck.core.result import Check, Result, SymmetryStats, Verdict
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.search import Search
from tlacheck.engine.fingerprints import (Fingerprinter, FingerprintTable, NumberTable, collision_probability,
                                         slots_for)
from tlacheck.engine.limits import MemoryWatch, limit_reached, resident_mb
from tlacheck.engine.liveness import EvaluationFailed, Graph
from tlacheck.engine.options import Options, Progress, unreduced_cause
from tlacheck.engine.pools import ValuePools
from tlacheck.engine.stores import ExactStore, FingerprintStore
from tlacheck.engine.successors import nth_step, until_fault
from tlacheck.engine.watchdog import StepInterrupted, Watchdog


ORDINAL_BITS = 32
ORDINAL_MASK = (1 << ORDINAL_BITS) - 1

# Event kinds. At one key, a constraint is checked first, then reachable checks, then invariants,
# then step properties.
CONSTRAINT_FAULT, REACHABLE_FAULT, INVARIANT, STEP, ACTION_FAULT, DEADLOCK = range(6)
UNSTORED = "unstored"  # an INVARIANT or STEP event's detail: at a successor not stored
STORED = "stored"  # a STEP event's detail: at a successor stored there (a new state)

_FLIP = bytes([1, 0]) + bytes(254)  # bytes.translate table: 0 <-> 1
_CHUNK = 1 << 12  # fingerprints inserted between two looks at the workers' answers
_WATCH_S = 0.1  # how often the limits are checked while the workers expand
HALT_EVERY = 0x3FF  # workers look at the stop flag before each state whose index & this is 0
_MIN_CPU_S = 0.05  # a step this short says nothing about the workers' speeds
LIVE = 4  # shared counters per worker
_first, _second = itemgetter(0), itemgetter(1)  # a successor's arguments and state, of an (arguments, state) pair


class WorkerError(RuntimeError):
    """A worker process failed (a bug in tlacheck, or the process was killed). The message is
    one line; `details` holds the worker's traceback, if any."""

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


def worker_checks(invariants: tuple, always: tuple, steps: tuple) -> tuple:
    """What a worker checks, (name, predicate, kind): the selected invariants, then the safety
    properties, on the states it stores; then the step properties, on every step."""
    return (tuple((n, f, Check.INVARIANT) for n, f in invariants) + tuple((n, f, Check.PROPERTY) for n, f in always)
            + tuple((n, f, Check.STEP) for n, f in steps))


# -------------------------------------------------------------------- coordinator

class Coordinator(Search):
    """The driver: initial states, the level loop, numbering, events, traces. It stores what
    its store keeps per state (stores.py): a parent index and the int the table holds (a
    fingerprint, or with `exact` an id, and then the state), the key traces are rebuilt by
    (traces.py). With one worker, the worker is an object in this process (`self.local`) and is
    called directly; with more, each is a forked process. With `exact` and one worker it also
    records the state graph, when temporal properties need it, and collects every violation
    in collect mode."""

    @staticmethod
    def available() -> bool:
        """Whether worker processes can be forked here (one in-process worker always works)."""
        return "fork" in multiprocessing.get_all_start_methods()

    def __init__(self, model: Model, options: Options, progress, progress_every: float, workers: int = 1,
                 exact: bool = False):
        self.fingerprint = Fingerprinter(model.var_types)
        self.exact = ExactStore() if exact else None
        assert not exact or workers == 1, "exact storage runs in one process (explore.py)"
        # The int a state is told by: its id (exact storage), else its fingerprint, or its orbit's
        # under the declared symmetry, unless the search must keep every state (unreduced_cause)
        self.symmetric = (options.symmetry and bool(model.symmetry) and not exact
                          and unreduced_cause(model, options) is None)
        self.key = (self.exact.id_of() if exact else
                    model.symmetry.key(self.fingerprint) if self.symmetric else self.fingerprint)
        super().__init__(model, options, progress, progress_every)
        self.parents, self.fps = self.store.parents, self.store.fps
        if exact:
            self.states = self.store.states
        self.edges = 0  # transitions recorded in the graph so far
        self.expanded = 0  # states expanded, in index order
        self.workers = workers
        self.local: Worker | None = None  # the one worker, when it runs in this process
        self.distinct = 0  # states stored (numbered) so far
        # With symmetry: the states of the orbits of the states stored so far, and the seconds
        # the workers spent computing orbit keys (Result.symmetry)
        self.orbit_states = 0
        self.keying = 0.0
        # The seen-set: the initial states' keys, then every stored state's (exact storage: the
        # initial states' ids only; the worker's set of ids seen tells the rest: Worker)
        self.table = FingerprintTable(shared=workers > 1)
        self.grown: FingerprintTable | None = None  # the table, grown since the workers last had it
        # Set, it tells the workers to drop the level they are expanding: one shared byte that the
        # coordinator sets; the in-process worker reads the watchdog's verdict instead (run()).
        self.halt = mmap.mmap(-1, 1) if workers > 1 else None
        # Shared counters, four per worker, that it updates every 1024 states of an expansion: the
        # step, then states expanded, candidates found and successors generated in it so far (for
        # progress lines and the memory estimate while the workers expand).
        self.live_counts = mmap.mmap(-1, 8 * LIVE * workers) if workers > 1 else None
        self.live = memoryview(self.live_counts).cast("q") if workers > 1 else None
        self.shown = (0, 0)  # the counts of the last progress line: generated, distinct
        self.rounds = 0  # steps sent to the workers (a step: expand one level)
        self.halted: str | None = None  # the limit that set it
        self.level_size = 0  # states in the level being expanded (progress lines of the in-process worker)
        # Each worker's part of the next level. Equal parts to start with; then closer to the
        # workers' speeds (states checked and expanded per CPU second): the work per state is not
        # the same for all (the later worker loses the states both found; handed-over states).
        self.shares = [1 / workers] * workers
        self.conns: list = []
        self.procs: list = []
        self.watch = MemoryWatch(options, self._memory_mb)  # the early memory warning, for all processes

    def _new_store(self):
        return self.exact if self.exact is not None else FingerprintStore(self.key)

    def _store(self, state: tuple, parent: int, fp: int) -> int:
        """Store an initial state whose fingerprint `fp` the caller has put in the table; returns its index."""
        i = self.distinct
        self.distinct = i + 1
        self.parents.append(parent)
        self.fps.append(fp)
        if self.exact is not None:
            self.states.append(state)
        if self.graph is not None:
            self.graph.values.append(self.graph.plan.bits(state))
        if len(self.witnesses) < len(self.reachables):
            self._check_reachables(i, state)
        return i

    def _initial_states(self) -> tuple[list[tuple], list[int]]:
        """Store and check the initial states; returns the stored ones, in index order, and their
        fingerprints."""
        stored = []
        fps = []
        try:
            for state in self.model.init():
                self.generated += 1
                fp = self.key(state)
                table = self.table
                slot = table.find(fp)
                if slot >= 0:
                    continue
                if not self._in_model(state, -1):
                    self._check_initial(-1, state, unstored=True)
                    continue
                table.put(fp, ~slot)
                i = self._store(state, -1, fp)
                if self.symmetric:
                    self.orbit_states += self.model.symmetry.orbit_size(state, self.fingerprint)
                if not table.room(1):
                    self.table = table.grown(table.count + 1)
                stored.append(state)
                fps.append(fp)
                self._check_initial(i, state)
        except EVAL_FAILURES as fault:
            raise self._fault(fault, -1, "computing the initial states", self.model.span_of("initial")) from None
        return stored, fps

    def _counts(self) -> tuple[int, int]:
        return self.distinct, self.distinct - self.expanded

    def _protected(self) -> list:
        return super()._protected() + [f.__code__ for f in (Coordinator._stop_at_event, Coordinator._emulate,
                                                            Coordinator._collected, Coordinator._finish)]

    def _collision(self) -> float | None:
        return None if self.exact is not None else collision_probability(self._counts()[0], self.generated)

    def _symmetry(self) -> SymmetryStats | None:
        return SymmetryStats(self._counts()[0], self.orbit_states, self.keying) if self.symmetric else None

    def _run(self) -> Result:
        try:
            initial, initial_fps = self._initial_states()
            # The number of each stored state's key, for the behaviour graph's successors
            self.numbers = NumberTable(self.fps) if self.graph is not None else None
            if not initial:
                return self._finish()
            checks = worker_checks(self.invariants, self.always, self.steps)
            if self.workers == 1:
                # It reads the watchdog's verdict as its stop flag; its counters are its own.
                self.local = Worker(None, self.model, self.table, self.watchdog.hit, self.options.check_deadlock,
                                     checks, [0] * LIVE, self._tick, self.symmetric,
                                     exact=self.exact, plan=None if self.graph is None else self.graph.plan,
                                     collect=self.options.collect)
                self.local.frontier, self.local.frontier_fps = initial, initial_fps
                return self._levels()
            ctx = multiprocessing.get_context("fork")  # the workers inherit the model and the checks
            for w in range(self.workers):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=_worker_main,
                                   args=(theirs, self.model, self.table, self.halt, self.options.check_deadlock,
                                         checks, self.live_counts, w, self.symmetric,
                                         None if self.graph is None else self.graph.plan),
                                   daemon=True)
                proc.start()
                theirs.close()
                self.conns.append(mine)
                self.procs.append(proc)
            self.table.close_fd()
            n = self.workers
            for w, conn in enumerate(self.conns):
                lo, hi = w * len(initial) // n, (w + 1) * len(initial) // n
                conn.send(("init", lo, initial[lo:hi]))
            return self._levels()
        finally:
            self._shutdown()

    def _shutdown(self) -> None:
        for conn in self.conns:
            try:
                conn.send(("stop",))
            except OSError:
                pass
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        for conn in self.conns:
            conn.close()
        for table in {id(t): t for t in (self.table, self.grown) if t is not None}.values():
            table.close()
        if self.halt is not None:
            self.halt.close()
            self.live.release()
            self.live_counts.close()

    def _tick(self, expanded: int, found: int, generated: int) -> None:
        """The in-process worker's look up, every 1024 states it expands (forked workers are watched
        from here while they expand: _replies): the limits, the memory warning, progress. A limit
        reached is left in the watchdog's verdict, the worker's stop flag."""
        now = time.perf_counter()
        hit = self.watchdog.hit
        if hit[0] is None:
            hit[0] = self._limit(now)
        left = self.level_size - expanded + found
        self.watch.check(now - self.start, self.distinct + found, self.distinct - self.level_size + expanded, left)
        self._report(left, generated, found)

    def _recv(self, w: int):
        try:
            reply = self.conns[w].recv()
        except (EOFError, OSError):
            proc = self.procs[w]
            proc.join(timeout=1)
            raise WorkerError(f"worker process {w + 1} stopped unexpectedly (exit code {proc.exitcode})") from None
        if reply[0] == "out of memory":
            raise MemoryError(f"worker process {w + 1}")
        if reply[0] == "error":
            last = reply[1].strip().splitlines()[-1] if reply[1].strip() else "unknown error"
            raise WorkerError(f"worker process {w + 1} failed: {last}", reply[1])
        return reply

    def _memory_mb(self) -> float | None:
        """Resident memory of this process and its workers."""
        total = resident_mb()
        if total is None:
            return None
        page = os.sysconf("SC_PAGE_SIZE") / 2**20
        for proc in self.procs:
            try:
                with open(f"/proc/{proc.pid}/statm", "rb") as fh:
                    total += int(fh.read().split()[1]) * page
            except (OSError, ValueError, IndexError):
                pass
        return total

    def _limit(self, now: float) -> str | None:
        opts = self.options
        reason = limit_reached(Options(stop=opts.stop, time_limit=opts.time_limit), self.start, now)
        if reason is None and opts.memory_limit_mb is not None:
            rss = self._memory_mb()
            if rss is not None and rss > opts.memory_limit_mb:
                reason = "memory_limit"
        return reason

    def _levels(self) -> Result:
        """The level loop. Each step expands the states the workers hold (the new states of the
        level `settled`, numbered and checked while they were found), then settles the new
        level they found; a level is added up while the workers expand the next one."""
        opts = self.options
        n = self.workers
        level = 1  # depth of the states the workers hold
        start, end = 0, self.distinct  # their global indices
        settled = None  # the previous level, not yet added up
        plans = [None] * n  # what each worker holds (None: the initial states it was sent)
        self.next_report = time.perf_counter() + self.progress_every
        while True:
            now = time.perf_counter()
            reason = self.halted or ("max_depth" if opts.max_depth is not None and level >= opts.max_depth
                                     else self._limit(now))
            self.watch.check(now - self.start, end, start, end - start)
            expand = reason is None and (settled is None or settled["go_on"])
            if expand:
                pending = tuple(name for name, _ in self.reachables
                                if name not in self.witnesses and not (settled and name in settled["witnessed"]))
                self.rounds += 1
                if self.local is not None:
                    self.local.take(plans[0], pending, self.rounds)
                for w, conn in enumerate(self.conns):
                    conn.send(("step", plans[w], pending, self.rounds))
                self._relay(plans)
                if settled is not None:  # once the level is in the table, the workers may expand it
                    for _ in settled["insertion"]:
                        pass
                grown, self.grown = self.grown, None
                for w, conn in enumerate(self.conns):
                    conn.send(("go", grown.mask + 1 if grown else None))
                    if grown:
                        reduction.send_handle(conn, grown.fd, self.procs[w].pid)
                if grown:
                    grown.close_fd()
            if settled is not None:  # while the workers expand
                self._link(settled)
                self.expanded = settled["start"]
                stop = self._number(settled, level - 1)
                if stop is not None:
                    return stop
            if not expand:
                assert reason is not None, "a level with an event ends the search"
                self.expanded = start
                return self._result(Verdict.INCOMPLETE, stop_reason=reason, queue_left=end - start)
            # The next level is likely to need a larger table: grow it now, while the workers expand.
            ahead = self._growth(self.table.count + 2 * (end - start))
            expansions = self._replies(end - start, ahead)
            if any(e is None for e in expansions):  # a limit was reached meanwhile
                expansions = self._before_halt(expansions)
                if expansions is None:
                    self.expanded = start
                    return self._result(Verdict.INCOMPLETE, stop_reason=self.halted, queue_left=end - start)
            for _ in ahead:
                pass
            if self.exact is not None:  # one worker: its candidates are the level's new states, in order
                self.states.extend(self.local.states)
            settled = self._settle(expansions, start)
            if not settled["total"]:  # no new state: this level's events, or the end
                self._link(settled)
                self.expanded = start
                stop = self._number(settled, level)
                if stop is not None:
                    return stop
                self.expanded = self.distinct
                return self._finish()
            plans = settled["plans"]
            start, end = end, end + settled["total"]
            level += 1
            self._report(end - start, sum(sum(e["generated"]) for e in expansions), end - start)  # not added up yet

    def _replies(self, queue: int, meanwhile) -> list:
        """The workers' expansions. Meanwhile: the chunks of work `meanwhile` yields, progress
        reports, and the limits. When one is reached (self.halted), the workers drop the level
        they are expanding (their expansion is None)."""
        if self.local is not None:  # it expands now, and looks up itself (_tick)
            self.level_size = queue
            self.local.table = self.table
            expansion = self.local.go()
            for _ in meanwhile:
                pass
            if expansion.get("halted"):
                self.halted = self.watchdog.hit[0]
                return [None]
            return [expansion]
        replies: list = [None] * self.workers
        speeds: list = [None] * self.workers
        waiting = dict(zip(self.conns, range(self.workers)))
        busy = True
        watch = 0.0  # when to look at the limits next
        while waiting:
            busy = busy and next(meanwhile, False) is not False
            for conn in wait(list(waiting), timeout=0 if busy else _WATCH_S):
                w = waiting.pop(conn)
                expansion, held, cpu = self._recv(w)[1:]
                replies[w] = None if expansion.get("halted") else expansion
                speeds[w] = held / cpu if cpu > _MIN_CPU_S and replies[w] is not None else None
            now = time.perf_counter()
            if waiting and now >= watch:
                watch = now + _WATCH_S
                if self.halted is None:
                    self.halted = self._limit(now)
                    if self.halted is not None:
                        self.halt[0] = 1
                expanded, found, generated = self._in_flight(replies, set(waiting.values()))
                left = queue - expanded + found
                self.watch.check(now - self.start, self.distinct + found, self.distinct - queue + expanded, left)
                self._report(left, generated, found)
        if None not in speeds:  # the next level's shares: closer to the speeds seen in this one
            n = self.workers
            shares = [min(max((a + v / sum(speeds)) / 2, 0.5 / n), 2 / n) for a, v in zip(self.shares, speeds)]
            self.shares = [v / sum(shares) for v in shares]
        return replies

    def _before_halt(self, expansions: list) -> list | None:
        """When a limit halted some workers in the middle of a level (their expansion is None):
        the level as far as one process gets before its first event, if the workers before the
        first halted one found an event (everything before it in key order was expanded, as one
        process would have done before finding it), with nothing from the later workers; else None."""
        halted = expansions.index(None)
        done = expansions[:halted]
        events = [x for e in done for x in e["events"]]
        if self._first_event(events, [(e["witnesses"], e["faults"]) for e in done]) is None:
            return None
        a_count = len(self.coverage)
        nothing = {"fps": array("q"), "keys": array("q"), "acts": array("H"), "parents": array("q"),
                   "counts": array("I"), "enabled": [0] * a_count, "generated": [0] * a_count, "witnesses": {},
                   "faults": {}, "events": [], "placed": {}, "sizes": None, "keying": 0.0}
        return done + [nothing] * (len(expansions) - halted)

    def _in_flight(self, replies: list, expanding: set) -> tuple[int, int, int]:
        """The current expansion so far, summed over the workers: states expanded, candidates
        found (a state several workers found counts once per worker), successors generated."""
        expanded = found = generated = 0
        for w, reply in enumerate(replies):
            if w in expanding:
                step, e, f, g = self.live[LIVE * w:LIVE * (w + 1)]
                if step != self.rounds:  # not yet started on this step
                    continue
            elif reply is not None:
                e, f, g = len(reply["parents"]), len(reply["fps"]), sum(reply["generated"])
            else:
                continue
            expanded, found, generated = expanded + e, found + f, generated + g
        return expanded, found, generated

    def _report(self, queue: int, generated: int = 0, found: int = 0) -> None:
        """A progress line if one is due; `generated` and `found`: the expansion in flight so far.
        The states found by several workers count once per worker until the level is settled, and
        the counters are read while the workers write them: the counts shown never go below those
        of the line before."""
        now = time.perf_counter()
        if self.progress is not None and now >= self.next_report:
            self.next_report = now + self.progress_every
            self.shown = (max(self.shown[0], self.generated + generated), max(self.shown[1], self.distinct + found))
            self.progress(Progress(*self.shown, queue, self.depth, now - self.start))

    def _insertion(self, fps: list, needed: int):
        """Insert new, distinct fingerprints into the table, a chunk at a time: the coordinator
        does this while the workers look up and take their states (they read the table only to
        expand). The table grows first if it would hold more than `needed`. Exact storage
        leaves the table empty (the worker tells new states by their ids: Worker)."""
        if self.exact is not None:
            return
        yield from self._growth(needed)
        table = self.table
        for more in fps:
            more = more if isinstance(more, array) else array("q", more)
            for i in range(0, len(more), _CHUNK):
                table.insert(more[i:i + _CHUNK])
                yield

    def _growth(self, needed: int):
        """Grow the table, a chunk at a time, if it would hold more than `needed`; the new table
        is left in `self.grown` for the workers. Also run while the workers expand, for the
        level they will find: they read the old table meanwhile, which nobody writes then."""
        table = self.table
        if table.room(needed - table.count) or self.exact is not None:
            return
        self.grown = grown = FingerprintTable(slots_for(2 * needed), shared=True)  # 4x at a time: less rehashing
        yield from table.copy_into(grown, _CHUNK)
        table.close()
        self.table = grown

    def _link(self, settled: dict) -> None:
        """Append the parent links and fingerprints of a level's new states (in index order): what
        traces are rebuilt from (traces.py)."""
        won = self._won(settled)
        halves = array("I", won["all_keys"].tobytes())  # each key as (low 32 bits, high 32 bits) in memory order
        high = 1 if sys.byteorder == "little" else 0
        self.parents.frombytes(halves[high::2].tobytes())  # indices < 2**31
        self.fps.extend(won["all_fps"])

    def _relay(self, plans: list) -> None:
        """Pass the states handed over between workers (each sender sends them first)."""
        for w, plan in enumerate(plans):
            if plan is not None and plan["send"]:
                for dest, data in self._recv(w)[1].items():
                    self.conns[dest].send(("incoming", w, data))

    # ---------------------------------------------------------------- settling a level
    def _settle(self, expansions: list[dict], start: int) -> dict:
        """Which worker owns each candidate, the level's new states in global order, and who
        holds them next."""
        n = len(expansions)
        fps = [e["fps"] for e in expansions]
        # has[t][h]: 1 for each candidate of worker h that worker t found too
        has: list = [{} for _ in range(n)]
        # Worker 0's candidates are all new states: into the table while the workers look up.
        insertion = self._insertion(fps[:1], self.table.count + sum(map(len, fps)))
        if n > 1:
            for w in range(n):
                self.conns[w].send(("lookup", {h: fps[h] for h in range(n) if h != w}))
            for _ in insertion:  # meanwhile, until the answers are there
                if all(conn.poll() for conn in self.conns):
                    break
            for w in range(n):
                has[w] = self._recv(w)[1]
        # Worker w's candidates that an earlier worker found too are the earlier worker's.
        masks: list = [None] * n  # per worker, 1 for each of its own new states (None: all)
        for w in range(1, n):
            found = 0
            for v in range(w):
                found |= int.from_bytes(has[v][w], "little")
            masks[w] = found.to_bytes(len(fps[w]), "little").translate(_FLIP)
        own = [len(f) if m is None else m.count(1) for f, m in zip(fps, masks)]
        insertion = chain(insertion, self._insertion([compress(f, m) for f, m in zip(fps[1:], masks[1:])], 0))
        settled = {"expansions": expansions, "masks": masks, "total": sum(own), "base": self.distinct,
                   "start": start, "insertion": insertion}
        settled["witnessed"] = set().union(*(e["witnesses"] for e in expansions))
        go_on = self._first_event([x for e in expansions for x in e["events"]],
                                  [(e["witnesses"], e["faults"]) for e in expansions]) is None
        if go_on and self.options.max_states is not None:
            go_on = self._max_states_parent(self._won(settled)["all_keys"], start) is None
        settled["go_on"] = go_on
        settled["plans"] = self._plans(own, masks, fps, has)
        return settled

    def _won(self, settled: dict) -> dict:
        """The keys of a level's new states in global order, and per worker its own new states'
        keys and actions with its counts: computed when first needed (mostly while the workers
        check and expand the next level)."""
        if "all_keys" in settled:
            return settled
        all_keys = array("q")
        all_fps = array("q")
        reports = []
        for e, m in zip(settled["expansions"], settled["masks"]):
            all_fps.extend(e["fps"] if m is None else compress(e["fps"], m))
            keys = e["keys"] if m is None else array("q", compress(e["keys"], m))
            acts = e["acts"] if m is None else array("H", compress(e["acts"], m))
            sizes = e["sizes"] if m is None or e["sizes"] is None else array("q", compress(e["sizes"], m))
            all_keys.extend(keys)
            distinct = [0] * len(self.coverage)
            for ai, c in Counter(acts).items():
                distinct[ai] = c
            reports.append({"keys": keys, "acts": acts, "distinct": distinct, "parents": e["parents"],
                            "counts": e["counts"], "enabled": e["enabled"], "generated": e["generated"],
                            "witnesses": e["witnesses"], "faults": e["faults"], "events": e["events"],
                            "placed": e["placed"], "collected": e.get("collected", ()),
                            "graph": e.get("graph"), "mask": m, "sizes": sizes, "keying": e["keying"]})
        settled["all_keys"], settled["all_fps"], settled["reports"] = all_keys, all_fps, reports
        return settled

    def _plans(self, own: list[int], masks: list, fps: list, has: list) -> list[dict]:
        """Split the new level into contiguous ranges, one per worker. A worker's range is
        a list of segments, one per worker whose new states it covers: ("own", a, b), the a-th to
        b-th of its own; ("copy", h, fingerprints), states of an earlier worker h, which it
        found too unless h hands them over; ("take", h, count), states a later worker h hands
        over."""
        n = len(own)
        bounds = [0]  # the new states of worker h are [bounds[h], bounds[h + 1]) in the level
        for c in own:
            bounds.append(bounds[-1] + c)
        total = bounds[-1]
        cuts = [0]  # worker t holds [cuts[t], cuts[t + 1]): shares by the workers' recent speed
        for share in self.shares:
            cuts.append(min(total, cuts[-1] + round(share * total)))
        cuts[-1] = total
        plans = [{"first": self.distinct + cuts[t], "own": masks[t], "segments": [], "send": {}} for t in range(n)]
        for t in range(n):
            lo, hi = cuts[t], cuts[t + 1]
            for h in range(n):
                a, b = max(lo, bounds[h]), min(hi, bounds[h + 1])
                if a >= b:
                    continue
                if h == t:
                    plans[t]["segments"].append(("own", a - bounds[h], b - bounds[h]))
                    continue
                # positions of those states in h's candidates
                theirs = range(a - bounds[h], b - bounds[h]) if masks[h] is None else \
                    list(compress(range(len(masks[h])), masks[h]))[a - bounds[h]:b - bounds[h]]
                if h < t:
                    plans[t]["segments"].append(("copy", h, array("q", map(fps[h].__getitem__, theirs))))
                    handed = array("q", compress(theirs, map(not_, map(has[t][h].__getitem__, theirs))))
                else:  # a later worker's own states: no earlier worker found them
                    plans[t]["segments"].append(("take", h, len(theirs)))
                    handed = array("q", theirs)
                if handed:
                    plans[h]["send"][t] = handed
        return plans

    # ---------------------------------------------------------------- one level's results
    def _number(self, settled: dict, level: int) -> Result | None:
        """Add up a level whose new states are numbered; return the Result if the search stops
        in this level."""
        settled = self._won(settled)
        reports = settled["reports"]
        all_keys = settled["all_keys"]
        base = settled["base"]
        level_start = settled["start"]
        passes = [(r["witnesses"], r["faults"]) for r in reports]  # the checks' results, by key
        events = [e for r in reports for e in r["events"]]
        placed = {e: where for r in reports for e, where in r["placed"].items()}
        event = self._first_event(events, passes)
        limit_parent = self._max_states_parent(all_keys, level_start) if self.options.max_states is not None else None
        collected = [c for r in reports for c in r["collected"]]
        if collected:  # collect mode: the violations found before the level's end, its event, or the limit
            last = limit_parent if limit_parent is not None else (1 << 62)
            self._collected([c for c in collected if c[0] >> ORDINAL_BITS <= last], all_keys, base)
        if event is not None and (limit_parent is None or event[0] >> ORDINAL_BITS <= limit_parent):
            return self._stop_at_event(event, reports, passes, all_keys, base, level, placed.get(event))
        if limit_parent is not None:
            self._emulate(reports, all_keys, level, limit_parent, (limit_parent + 1) << ORDINAL_BITS, None)
            self.generated += sum(self._row(reports, limit_parent))
            return self._result(Verdict.INCOMPLETE, stop_reason="max_states", queue_left=self.distinct - self.expanded)
        self._add_level(reports, passes, all_keys, base, level)
        return None

    def _collected(self, collected: list, all_keys, base: int) -> None:
        """Keep the violations a worker collected (collect mode), in key order: (key, kind, unstored,
        check kind, name) for a check false at the successor with that key (at a state stored
        there, or not stored: it fails a constraint), (key, DEADLOCK, ...) at a parent without
        successors. Each is rebuilt here from the key, as one process would have reported it."""
        model = self.model
        for key, kind, unstored, what, name in sorted(collected, key=lambda c: c[0]):
            parent, ordinal = key >> ORDINAL_BITS, key & ORDINAL_MASK
            if kind == DEADLOCK:
                self._keep(self._deadlock(parent))
            elif kind == STEP:
                self._step_violated(parent, nth_step(model, self._state(parent), ordinal), name)
            elif unstored:
                self._violated(parent, nth_step(model, self._state(parent), ordinal).state, True, what, name)
            else:
                i = base + bisect_left(all_keys, key)
                self._violated(i, self._state(i), False, what, name)

    def _add_level(self, reports: list, passes: list, all_keys, base: int, level: int) -> None:
        """Add up a whole level: its expansion's counts, the witnesses its checks found, and the
        start of each parent's transitions in the graph (they were recorded in parent order)."""
        if self.graph is not None:
            graph = self.graph
            numbers = self.numbers
            numbers.extend()  # the level's new states are linked: their successors are numbered now
            number = numbers.number
            a_count, starts, edges = len(self.coverage), graph.edge_start, self.edges
            for r in reports:
                counts = r["counts"]
                for p in range(len(r["parents"])):
                    starts.append(edges)
                    edges += sum(counts[p * a_count:(p + 1) * a_count])
                part = r["graph"]
                if part is not None:  # a worker's: its parents' transitions, its own new states
                    succ, values, enabled, take, fault, steps = part
                    graph.succ.extend(map(number, succ, repeat(-1)))  # keys -> numbers (-1: not stored)
                    graph.steps.extend(steps)
                    graph.values.extend(values if r["mask"] is None else compress(values, r["mask"]))
                    graph.enabled.extend(enabled)
                    graph.take.extend(take)
                    if fault >= 0 and (graph.fairness_fault < 0 or fault < graph.fairness_fault):
                        graph.fairness_fault = fault
            self.edges = edges
        for r in reports:
            self.generated += sum(r["generated"])
            if r["sizes"] is not None:
                self.orbit_states += sum(r["sizes"])
            self.keying += r["keying"]
            for ai, cov in enumerate(self.coverage):
                cov.enabled += r["enabled"][ai]
                cov.generated += r["generated"][ai]
                cov.distinct += r["distinct"][ai]
        for witnesses, _ in passes:
            for name, key in witnesses.items():
                i = base + bisect_left(all_keys, key)
                if name not in self.witnesses or i < self.witnesses[name]:
                    self.witnesses[name] = i
        self.distinct = base + len(all_keys)
        if all_keys:
            self.depth = level + 1

    @staticmethod
    def _first_event(events: list, passes: list) -> tuple | None:
        """The first event in single-process order: (key, kind, detail), or None."""
        # A reachable check's evaluation error counts only if no state before it witnessed the check.
        witnessed = {}
        for witnesses, _ in passes:
            for name, key in witnesses.items():
                witnessed[name] = min(key, witnessed.get(name, key))
        for _, faults in passes:
            for name, key in faults.items():
                if key < witnessed.get(name, key + 1):
                    events.append((key, REACHABLE_FAULT, name))
        return min(events, default=None, key=lambda e: (e[0], e[1]))

    def _max_states_parent(self, all_keys, level_start: int) -> int | None:
        """The first parent after whose expansion one process stops for --max-states."""
        j = 0
        for p in range(level_start, self.distinct):
            while j < len(all_keys) and all_keys[j] >> ORDINAL_BITS <= p:
                j += 1
            d = self.distinct + j
            if d >= self.options.max_states and p + 1 < d:
                return p
        return None

    def _emulate(self, reports, all_keys, level: int, parent: int, key: int, action: int | None,
                 stored_self: bool = False, covered_self: bool = False) -> None:
        """Set the counts to a single process's when it reaches `key` while expanding `parent`:
        parents before it fully counted (states generated and coverage), the coverage of the
        actions of `parent` before `action` (None: all of them), the new states with a smaller
        key; the state at `key` is in the distinct count when `stored_self`, and also in the
        coverage and depth when `covered_self`. The caller adds `parent`'s own successors to
        the states generated."""
        a_count = len(self.coverage)
        for r in reports:
            parents = r["parents"]
            counts = r["counts"]
            cut = bisect_left(parents, parent)
            for i in range(cut):
                row = counts[i * a_count:(i + 1) * a_count]
                self.generated += sum(row)
                for ai, c in enumerate(row):
                    if c:
                        self.coverage[ai].enabled += 1
                        self.coverage[ai].generated += c
            if cut < len(parents) and parents[cut] == parent:
                row = counts[cut * a_count:(cut + 1) * a_count]
                for ai in range(a_count if action is None else action):
                    if ai < len(row) and row[ai]:
                        self.coverage[ai].enabled += 1
                        self.coverage[ai].generated += row[ai]
            keys, acts = r["keys"], r["acts"]
            j = bisect_left(keys, key)
            at_key = j < len(keys) and keys[j] == key
            if r["sizes"] is not None:
                self.orbit_states += sum(r["sizes"][:j + (stored_self and at_key)])
            self.keying += r["keying"]
            if covered_self and at_key:
                j += 1
            for ai in acts[:j]:
                self.coverage[ai].distinct += 1
        below = bisect_left(all_keys, key)
        self.distinct += below + (1 if stored_self else 0)
        if below or covered_self:
            self.depth = level + 1
        self.expanded = parent + 1

    def _finish(self) -> Result:
        """The search is complete. With the behaviour graph, what told new states and numbered
        them is freed before the liveness checker runs, and the states' depths are computed."""
        graph = self.graph
        if graph is not None:
            self.numbers = None
            if self.exact is not None:
                self.exact.release()
            if self.table is not None:  # (none when no initial state is in the model)
                self.table.close()
                self.table = None
            if self.local is not None:
                self.local.table = None
            depths = self.depths = array("i")
            for p in self.parents:
                depths.append(0 if p < 0 else depths[p] + 1)
        return super()._finish()

    def _row(self, reports, parent: int) -> list[int]:
        a_count = len(self.coverage)
        for r in reports:
            cut = bisect_left(r["parents"], parent)
            if cut < len(r["parents"]) and r["parents"][cut] == parent:
                return list(r["counts"][cut * a_count:(cut + 1) * a_count])
        raise AssertionError("no worker expanded the parent")  # pragma: no cover

    def _state(self, i: int) -> tuple:
        return self.states[i] if self.exact is not None else self.trace_to(i).steps[-1].state

    def _stop_at_event(self, event, reports, passes, all_keys, base: int, level: int, memory=None) -> Result:
        """`memory`: the note and position of a MemoryError a worker met at the event (Worker._place)."""
        key, kind, detail = event
        parent, ordinal = key >> ORDINAL_BITS, key & ORDINAL_MASK
        model = self.model
        row = self._row(reports, parent)
        # the action producing successor number `ordinal` of `parent`
        action, before = 0, 0
        while action < len(row) and before + row[action] <= ordinal:
            before += row[action]
            action += 1
        for witnesses, _ in passes:
            for name, k in witnesses.items():
                i = base + bisect_left(all_keys, k)
                if k < key and (name not in self.witnesses or i < self.witnesses[name]):
                    self.witnesses[name] = i
        if kind == DEADLOCK:
            self._emulate(reports, all_keys, level, parent, key, None)
            return self._result(Verdict.DEADLOCK, self._deadlock(parent))
        if kind == ACTION_FAULT:
            self._emulate(reports, all_keys, level, parent, key, detail)
            self.generated += ordinal
            self._out_of_memory(memory, parent)
            state = self._state(parent)
            info = model.action_info[detail]
            try:
                for _ in model.actions[detail](state):
                    pass
            except EVAL_FAILURES as fault:
                raise self._fault(fault, parent, f"computing action {info.name}", info.span) from None
            raise AssertionError("the action did not fail again")  # pragma: no cover
        if kind == INVARIANT and detail == UNSTORED:  # one process counts it, checks it, stores nothing
            self._emulate(reports, all_keys, level, parent, key, action)
            self.generated += ordinal + 1
            self._cover(action, ordinal + 1 - before)
            succ = nth_step(model, self._state(parent), ordinal).state
            self._out_of_memory(memory, parent, succ)
            self._check_invariants(parent, succ, unstored=True)
            raise AssertionError("the event did not happen again")  # pragma: no cover
        if kind == STEP:  # on a step to a state stored there (a new state) or not
            j = bisect_left(all_keys, key)
            stored = j < len(all_keys) and all_keys[j] == key
            self._emulate(reports, all_keys, level, parent, key, action, stored_self=stored, covered_self=stored)
            self.generated += ordinal + 1
            self._cover(action, ordinal + 1 - before)
            state = self._state(parent)
            step = nth_step(model, state, ordinal)
            self._out_of_memory(memory, parent, step.state)
            self._check_steps(parent, step.action, step.args, step.state, state)
            raise AssertionError("the step property did not fail again")  # pragma: no cover
        if kind == CONSTRAINT_FAULT:
            self._emulate(reports, all_keys, level, parent, key, action)
            # One process adds a successor to the count when it stores a state or finishes an action.
            j = bisect_left(all_keys, key) - 1
            last = all_keys[j] & ORDINAL_MASK if j >= 0 and all_keys[j] >> ORDINAL_BITS == parent else -1
            self.generated += max(last + 1, before)
            self._cover(action, max(last + 1, before) - before)
            succ = nth_step(model, self._state(parent), ordinal).state
            self._out_of_memory(memory, parent, succ)
            self._in_model(succ, parent)
            raise AssertionError("the constraint did not fail again")  # pragma: no cover
        # A stored state: reachable checks (while storing it), then invariants.
        self._emulate(reports, all_keys, level, parent, key, action, stored_self=True,
                      covered_self=kind == INVARIANT)
        self.generated += ordinal + 1
        self._cover(action, ordinal + 1 - before)
        i = base + bisect_left(all_keys, key)
        self._out_of_memory(memory, i)
        state = self._state(i)
        if kind == REACHABLE_FAULT:
            self._check_reachables(i, state)
        else:
            self._check_invariants(i, state)
        raise AssertionError("the event did not happen again")  # pragma: no cover

    def _cover(self, action: int, generated: int) -> None:
        """Count in the coverage the successors of the action a single process was computing
        when the event stopped it (as its explorer does when a check ends the run there)."""
        if generated > 0:
            self.coverage[action].enabled += 1
            self.coverage[action].generated += generated

    def _out_of_memory(self, memory: tuple | None, at: int, unstored: tuple | None = None) -> None:
        """End with E411 in stored state `at` (or in its successor `unstored`) if a worker met a
        MemoryError (`memory`: note, position)."""
        if memory is not None:  # no traceback: placed at the position given
            raise self._fault(MemoryError(), at, *memory, unstored=unstored)


# -------------------------------------------------------------------- worker side

def _keyed(act, key: Callable[[tuple], int], keying: list):
    """A successor function giving each successor's orbit key (symmetry) instead of its
    fingerprint, adding the time the keys took to keying[0] (`key` leaves the size of each
    successor's orbit in Worker.sizes: the summary's `symmetry` line)."""
    clock = time.perf_counter
    sizes = keying[1]

    def nexts(state, raw, memos, entries):
        succs = [*map(_second, act(state))]
        sizes.clear()
        start = clock()
        keys = [*map(key, succs)]
        keying[0] += clock() - start
        return succs, keys
    return nexts


def _with_args(act, key: Callable[[tuple], int], args: list):
    """A successor function that also leaves the arguments of each successor's action instance
    in `args` (the behaviour graph's fairness conditions that depend on them: liveness.Fairness)."""
    def nexts(state, raw, memos, entries):
        steps = [*act(state)]
        args[0] = [*map(_first, steps)]
        succs = [*map(_second, steps)]
        return succs, [*map(key, succs)]
    return nexts


def _args_kept(nexts_with_args, args: list):
    """The generated successor function that also gives the arguments (w{i}), leaving them in
    `args` as _with_args does."""
    def nexts(state, raw, memos, entries):
        succs, fps, args[0] = nexts_with_args(state, raw, memos, entries)
        return succs, fps
    return nexts


class _Stopped(Exception):
    """The coordinator ended the search in the middle of a step."""


def _worker_main(conn, model: Model, table: FingerprintTable, halt: mmap.mmap, check_deadlock: bool,
                 checks: tuple, live: mmap.mmap, w: int, symmetric: bool, plan) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    gc.disable()  # as in explore(): no reference cycles here
    # When the coordinator halts the search, a long expansion is cut short, but never the
    # exchange of states between workers before it.
    watchdog = Watchdog(lambda: "halted" if halt[0] else None, model.code_name,
                        protected=[Worker._hold.__code__])
    try:
        with watchdog:
            Worker(conn, model, table, halt, check_deadlock, checks,
                    memoryview(live).cast("q")[LIVE * w:LIVE * (w + 1)], None, symmetric,
                    plan=plan).serve()
    except (_Stopped, EOFError, BrokenPipeError, KeyboardInterrupt):
        pass
    except MemoryError:  # outside the spec's code (there it is an event): the worker's own tables
        try:
            conn.send(("out of memory",))
        except (OSError, MemoryError):
            pass
    except BaseException:  # a bug: report it to the coordinator, which raises it
        try:
            conn.send(("error", traceback.format_exc()))
        except OSError:
            pass


class Worker:
    """Expands its part of each level. A forked worker serves the coordinator's messages
    (`serve`); the in-process one (`conn` None) is called directly (`take`, then `go`) and
    calls `tick` every 1024 states it expands. `halt`: the stop flag (true: drop the level)."""

    def __init__(self, conn, model: Model, table: FingerprintTable, halt, check_deadlock: bool,
                 checks: tuple, live, tick: Callable[[int, int, int], None] | None = None, symmetric: bool = False,
                 exact: ExactStore | None = None, plan=None, collect: bool = False):
        self.conn = conn
        self.live = live  # its shared counters: step, expanded, candidates, generated in this expansion
        self.tick = tick
        self.step = 0  # the number of the step it is in (the coordinator's count)
        self.model = model
        self.table = table
        self.halt = halt
        self.check_deadlock = check_deadlock
        # (name, predicate, kind) in the order one process checks them: the invariants and safety
        # properties on the states it stores, then the step properties (predicate (s, t)) on every step
        self.checks = tuple(c for c in checks if c[2] != Check.STEP)
        self.step_checks = tuple((name, f) for name, f, kind in checks if kind == Check.STEP)
        # The candidates share equal values, as one process's queue does (explore.ValuePools): only the
        # values an action writes go through the pools, since the others are its parent's.
        self.pools = ValuePools(model)
        self.stored = 0  # candidates so far, for the pools' review
        self.fingerprint = Fingerprinter(model.var_types)
        # The key of a successor: its fingerprint (computed from its parent's by the successor
        # functions), or, with symmetry, its orbit's (compile/symmetry.py)
        # (exact storage: the successor's id in the store; `id_draw` gives those of a list of states)
        self.key = exact.id_of() if exact else model.symmetry.key(self.fingerprint) if symmetric else None
        # With symmetry: the seconds spent computing successors' orbit keys, and the sizes of the
        # orbits of the last successors keyed (_keyed); those of the candidates go with them
        self.keying: list = [0.0, []]
        self.sized = model.symmetry.key(self.fingerprint, self.keying[1]) if symmetric and not exact else None
        self.id_draw = exact.draw() if exact else None
        self.exact = exact is not None  # the stored states are kept: no pools, no clearing
        # This level's part of the behaviour graph of temporal properties (liveness.Graph), shipped
        # with the expansion: the atoms of each state it stores, the successors' keys, the fairness
        # conditions each state enables and each transition takes
        self.graph = None if plan is None else Graph(plan, succ=array("q"))
        self.fair = plan.fairness if plan is not None and plan.fairness.count else None
        self.args: list = [None]  # [the arguments of the last successors of an action in fair.by_args]
        # Collect mode: a check found false is not an event; it is collected (key, kind, unstored,
        # check kind, name) and not evaluated again; so is the first deadlock.
        self.collect = collect
        self.dropped: set[str] = set()
        self.deadlocked = False
        self.collected: list[tuple] = []
        self._replan()
        self.frontier: list[tuple] = []  # the states it holds, in order
        self.frontier_fps: list[int] = []  # and their fingerprints
        self.first = 0  # the global index of the first
        # This level's candidates: their fingerprints, with those of the successors rejected by a
        # constraint, as a set; their fingerprints and states in key order.
        self.recent: set = set()
        self.fps = array("q")
        self.states: list[tuple] = []

    def _replan(self) -> None:
        """Per action: its index, successor function, generator (to find a fault), the invariants
        it may break and the slots of the values it writes that go through a pool."""
        model, pools = self.model, self.pools
        self.plan = []
        for ai, nexts in enumerate(model.next_states):
            writes = model.action_writes[ai]
            invs = tuple((name, f, kind) for name, f, kind in self.checks
                         if kind != Check.INVARIANT or model.invariant_reads[name] & writes)
            interned = () if self.exact else \
                tuple(sorted(q for q in writes if pools.pools[q] is not None and not pools.scalar[q]))
            if self.fair is not None and ai in self.fair.by_args:
                with_args = model.next_states_with_args[ai]
                nexts = (_with_args(model.actions[ai], self.key or self.fingerprint, self.args)
                         if self.key is not None or with_args is None
                         else _args_kept(with_args, self.args))
            elif self.exact:
                nexts = None  # inline in _expand: the action, then the successors' ids
            elif self.key is not None:
                nexts = _keyed(model.actions[ai], self.sized, self.keying)
            self.plan.append((ai, nexts, model.actions[ai], invs, interned))

    def serve(self) -> None:
        conn = self.conn
        while True:
            msg = conn.recv()
            op = msg[0]
            if op == "stop":
                return
            if op == "init":
                self.first, self.frontier = msg[1:]
                self.frontier_fps = list(map(self.fingerprint, self.frontier))
            elif op == "step":
                conn.send(("stepped",) + self._step(*msg[1:]))
            elif op == "lookup":
                conn.send(("looked up",) + self._lookup(msg[1]))
            else:
                raise AssertionError(f"unexpected message {op!r}")

    def _step(self, plan: dict | None, pending: tuple, step: int) -> tuple:
        """Take the states of the plan and expand them: (expansion, the number of states, the
        CPU time it took, without the wait for "go")."""
        start = time.process_time()
        held = self.take(plan, pending, step)
        cpu = time.process_time() - start
        slots, = self._expect("go")  # the level is in the table now
        start = time.process_time()
        if slots is not None:
            self._attach(slots)
        expansion = self.go()
        return expansion, held, cpu + time.process_time() - start

    def take(self, plan: dict | None, pending: tuple, step: int) -> int:
        """Take the states of the plan (None: keep the initial states it holds); returns how many
        it holds. `pending`: the reachable checks still to witness; `step`: the step's number,
        which the shared counters carry."""
        self.step = step
        self.pending = pending
        if plan is not None:
            self._hold(plan)
        return len(self.frontier)

    def go(self) -> dict:
        """Expand the states it holds (the level is in the table now)."""
        try:
            return self._expand(self.pending)
        except StepInterrupted:  # the coordinator halted the search in the middle of a step
            self.frontier = self.frontier_fps = []
            return {"halted": True}

    def _expect(self, op: str) -> tuple:
        msg = self.conn.recv()
        if msg[0] == "stop":
            raise _Stopped
        if msg[0] != op:
            raise AssertionError(f"expected {op!r}, got {msg[0]!r}")
        return msg[1:]

    def _attach(self, slots: int) -> None:
        table = FingerprintTable.attach(slots, reduction.recv_handle(self.conn))
        self.table.close()
        self.table = table

    def _expand(self, pending: tuple) -> dict:
        """Expand the states it holds, in order. The candidates (successors not yet stored that
        satisfy the constraints) are checked as one process checks the states it stores: the
        reachable checks in `pending`, then the invariants the action may have broken. A
        candidate another worker found first is checked there too, at a smaller key, so the
        coordinator's first event and first witnesses are never at a candidate that is not new."""
        table, mask = self.table.table, self.table.mask
        constraints = self.model.constraints
        reach = [(name, pred) for name, pred in self.model.reachables if name in pending]
        # This level's candidates, and the successors rejected by a constraint. On exact storage,
        # every id seen so far (stored, or rejected by a constraint: rejected again, a state
        # would only be checked again with the same outcome), and the table stays empty: a
        # set look-up of an int per successor, as the dict of states already tells new ones.
        recent = self.recent if self.exact else set()
        add = recent.add
        fps = array("q")
        keys = array("q")
        acts = array("H")
        states: list[tuple] = []
        a_count = len(self.plan)
        parents = array("q")
        counts = array("I")
        enabled = [0] * a_count
        generated = [0] * a_count
        witnesses: dict[str, int] = {}  # reachable check -> key of its first witness here
        faults: dict[str, int] = {}  # reachable check -> key of its first evaluation error here
        events = []
        placed = {}  # event -> where its MemoryError was placed (Worker._place)
        check_deadlock = self.check_deadlock
        event = None
        halt = self.halt
        every = HALT_EVERY
        live = self.live
        tick = self.tick
        stepping = bool(self.step_checks)
        step = self.step
        live[1] = live[2] = live[3] = 0
        live[0] = step
        shared = self.pools
        pools = shared.pools
        fingerprint = self.fingerprint
        key = self.key or fingerprint
        # Exact storage without the graph: each successor's id, one C call each (ExactStore.ids)
        setdefault, numbers = self.id_draw if self.id_draw is not None else (None, None)
        memos, entries, raw_of = fingerprint.memos, fingerprint.entries, fingerprint.raw
        graph, fair = self.graph, None
        if graph is not None:  # the behaviour graph (liveness.Graph)
            gsucc, gvalues, bits = graph.succ, graph.values, graph.plan.bits
            fair = self.fair
            gsteps, step_bits = graph.steps, graph.plan.step_bits if graph.plan.step_atoms else None
            by_args = fair.by_args if fair is not None else ()
            held = self.args
            transitions = []
        # with symmetry, the size of each candidate's orbit (levels: in `fps` order)
        sizes, keying, spent = (array("q"), self.keying, self.keying[0]) if self.sized is not None else (None, None, 0.0)
        frontier, self.frontier = self.frontier, []
        frontier_fps, self.frontier_fps = self.frontier_fps, []
        frontier.reverse()  # expanded from the end: each state is freed once expanded
        frontier_fps.reverse()
        pop = frontier.pop
        pop_fp = frontier_fps.pop
        g = self.first - 1
        while frontier:
            state = pop()
            pfp = pop_fp()
            g += 1
            if not g & every:
                if tick is not None:
                    tick(g - self.first, len(fps), sum(generated))
                if halt[0]:  # the coordinator stops the search: drop the level
                    return {"halted": True}
                live[1], live[2], live[3] = g - self.first, len(fps), sum(generated)
                live[0] = step
                if shared.review(self.stored + len(fps)):  # between two states: no plan in use
                    self._replan()
            base = g << ORDINAL_BITS
            k = base - 1  # the key of the successor
            parents.append(g)
            raw = pfp if pfp != 1 else raw_of(state)  # the XOR of its slots' hashes (fingerprints.py)
            for ai, nexts, act, invs, interned in self.plan:
                fault = None
                try:
                    if nexts is not None:
                        succs, fps_of = nexts(state, raw, memos, entries)
                    else:
                        succs = [*map(_second, act(state))]
                        fps_of = [*map(setdefault, succs, numbers)]
                except EVAL_FAILURES as first:
                    succs, fps_of, fault = until_fault(act, state, first, key)
                    if sizes is not None:  # (the sizes of the successors before the fault)
                        keying[1].clear()
                        for succ in succs:
                            self.sized(succ)
                first_k = k + 1  # the key of the first of these successors
                if graph is not None:
                    gsucc.extend(fps_of)
                    if step_bits is not None:
                        gsteps.extend(map(step_bits, repeat(state, len(succs)), succs))
                    if fair is not None:
                        transitions.append((ai, held[0] if ai in by_args else None, fps_of))
                for succ, fp in zip(succs, fps_of):
                    k += 1
                    if fp in recent:  # a step to a state seen (or not stored) before is checked too
                        # (not a step that changes nothing: on exact storage `recent` holds the parent)
                        if stepping and succ != state and self._steps_fail(state, succ, (k, STEP, None), placed):
                            event = (k, STEP, None)
                            break
                        continue
                    j = fp & mask
                    x = table[j]
                    while x:
                        if x == fp:
                            break
                        j = (j + 1) & mask
                        x = table[j]
                    else:
                        add(fp)
                        if constraints:
                            try:
                                ok = True
                                for name, con in constraints:
                                    if not con(succ):
                                        ok = False
                                        break
                            except EVAL_FAILURES as exc:
                                event = (k, CONSTRAINT_FAULT, None)
                                self._place(placed, event, exc, Check.CONSTRAINT, name)
                                break
                            if not ok:  # not stored, but checked as one process checks it
                                if invs and self._fails(invs, succ, (k, INVARIANT, UNSTORED), placed):
                                    event = (k, INVARIANT, UNSTORED)
                                    break
                                if stepping and self._steps_fail(state, succ, (k, STEP, None), placed):
                                    event = (k, STEP, None)
                                    break
                                continue
                        if interned:  # as FingerprintExplorer._run interns, inline: a call per state costs
                            values = [*succ]
                            for q in interned:
                                v = values[q]
                                values[q] = pools[q].setdefault(v, v)
                            succ = tuple(values)
                        fps.append(fp)
                        keys.append(k)
                        acts.append(ai)
                        states.append(succ)
                        if sizes is not None:
                            sizes.append(keying[1][k - first_k])
                        if graph is not None:
                            gvalues.append(bits(succ))
                        if reach:
                            resolved = False
                            for name, pred in reach:
                                try:
                                    if pred(succ):
                                        witnesses[name] = k
                                        resolved = True
                                except EVAL_FAILURES as exc:
                                    faults[name] = k
                                    self._place(placed, (k, REACHABLE_FAULT, name), exc, Check.REACHABLE, name)
                                    resolved = True
                            if resolved:  # a check is decided by its first witness or evaluation error
                                reach = [(n, p) for n, p in reach if n not in witnesses and n not in faults]
                        if invs and self._fails(invs, succ, (k, INVARIANT, None), placed):
                            event = (k, INVARIANT, None)
                            break
                        if stepping and self._steps_fail(state, succ, (k, STEP, None), placed):
                            event = (k, STEP, None)
                            break
                        continue
                    if stepping and succ != state and self._steps_fail(state, succ, (k, STEP, None), placed):
                        event = (k, STEP, None)
                        break
                c = len(succs)
                counts.append(c)
                if c:
                    enabled[ai] += 1
                    generated[ai] += c
                if fault is not None and event is None:
                    event = (k + 1, ACTION_FAULT, ai)
                    self._place(placed, event, fault, None, ai)
                if event is not None:
                    counts.extend([0] * (a_count - ai - 1))
                    break
            if event is not None:
                events.append(event)
                break  # later parents cannot hold an earlier event
            if fair is not None:
                self._record_fairness(state, pfp, transitions, g, k + 1 - base)
                transitions = []
            if k < base and check_deadlock:
                if not self.collect:
                    events.append((base, DEADLOCK, None))
                    break
                if not self.deadlocked:
                    self.deadlocked = True
                    self.collected.append((base, DEADLOCK, False, Check.DEADLOCK, None))
        if placed and self.conn is None and not self.exact:  # out of memory here: room to rebuild the trace
            frontier.clear()  # the search ends at this level's first event, which is the MemoryError's
            states.clear()
            recent.clear()
            pools.clear()
            state = succs = succ = None
        self.stored += len(fps)
        self.recent = recent
        self.fps = fps
        self.states = states
        collected, self.collected = self.collected, []
        part = None
        if graph is not None:  # its part of the behaviour graph goes with its expansion
            part = (graph.succ, graph.values, graph.enabled, graph.take, graph.fairness_fault, graph.steps)
            self.graph = Graph(graph.plan, succ=array("q"))
        return {"fps": fps, "keys": keys, "acts": acts, "parents": parents, "counts": counts,
                "enabled": enabled, "generated": generated, "witnesses": witnesses, "faults": faults,
                "events": events, "placed": placed, "collected": collected, "graph": part,
                "sizes": sizes, "keying": self.keying[0] - spent}

    def _record_fairness(self, state: tuple, pfp: int, transitions: list, g: int, successors: int) -> None:
        """Record in the graph the fairness conditions that parent `state` (number `g`, key `pfp`)
        enables and those its `successors` transitions take (`transitions`: per action, its index,
        its successors' arguments, their keys). A condition's arguments that fail to evaluate are
        reported after the search, if nothing is found before (Graph.fairness_fault)."""
        graph = self.graph
        take = graph.take
        mark = len(take)
        try:
            graph.enabled.append(self.fair.masks(state, pfp, transitions, take))
        except EvaluationFailed:
            del take[mark:]
            take.extend(repeat(0, successors))
            graph.enabled.append(0)
            if graph.fairness_fault < 0:
                graph.fairness_fault = g

    def _fails(self, checks: tuple, state: tuple, event: tuple, placed: dict) -> bool:
        """Whether one of `checks` (name, predicate, kind) is false or fails to evaluate in `state`;
        `event` is the event that makes, where a MemoryError is placed (_place)."""
        dropped = self.dropped  # collect mode: the checks found false before, not evaluated again
        for name, pred, kind in checks:
            if dropped and name in dropped:
                continue
            try:
                ok = pred(state)
            except EVAL_FAILURES as exc:
                self._place(placed, event, exc, kind, name)
                return True
            if not ok:
                if not self.collect:
                    return True
                dropped.add(name)
                self.collected.append((event[0], INVARIANT, event[2] == UNSTORED, kind, name))
        return False

    def _steps_fail(self, state: tuple, succ: tuple, event: tuple, placed: dict) -> bool:
        """Whether a step property is false or fails to evaluate on the step from `state` to `succ`."""
        dropped = self.dropped
        for name, pred in self.step_checks:
            if dropped and name in dropped:
                continue
            try:
                ok = pred(state, succ)
            except EVAL_FAILURES as exc:
                self._place(placed, event, exc, Check.STEP, name)
                return True
            if not ok:
                if not self.collect:
                    return True
                dropped.add(name)
                self.collected.append((event[0], STEP, False, Check.STEP, name))
        return False

    def _lookup(self, others: dict) -> tuple:
        """For each other worker's candidates, 1 for each this worker found too."""
        recent = self.recent
        return ({h: bytes(map(recent.__contains__, fps)) for h, fps in others.items()},)

    def _hold(self, plan: dict) -> None:
        """Take the states of the new level this worker holds, in global order, handing over
        those another worker holds."""
        states, fps = self.states, self.fps
        self.states, self.fps = [], array("q")
        if not self.exact:
            self.recent = set()
        if plan["send"]:  # first, so that the receivers can go on
            self.conn.send(("moved", {dest: pickle.dumps(list(map(states.__getitem__, pos)), pickle.HIGHEST_PROTOCOL)
                                      for dest, pos in plan["send"].items()}))
        own = range(len(states)) if plan["own"] is None else list(compress(range(len(states)), plan["own"]))
        copied = [segment[2] for segment in plan["segments"] if segment[0] == "copy"]
        if copied:  # positions of the states it holds for earlier workers
            wanted = set().union(*copied)
            here = list(map(wanted.__contains__, fps))
            position = dict(zip(compress(fps, here), compress(range(len(fps)), here)))
        states.append(None)  # position -1: a state handed over by another worker, still to arrive
        frontier = []
        frontier_fps = []  # their fingerprints (those of states handed over: computed on arrival)
        awaited = {}  # worker handing states over -> their positions in the frontier
        for segment in plan["segments"]:
            if segment[0] == "own":
                mine = own[segment[1]:segment[2]]
                frontier_fps.extend(map(fps.__getitem__, mine))
            else:
                if segment[0] == "copy":
                    mine = array("q", map(position.get, segment[2], repeat(-1)))
                    frontier_fps.extend(segment[2])
                else:
                    mine = array("q", [-1]) * segment[2]
                    frontier_fps.extend(mine)
                if -1 in mine:
                    g = len(frontier)
                    awaited[segment[1]] = compress(range(g, g + len(mine)), map((-1).__eq__, mine))
            frontier.extend(map(states.__getitem__, mine))
        del states, own, fps
        canonical = self.model.canonical_keys
        fingerprint = self.fingerprint
        for _ in awaited:
            sender, data = self._expect("incoming")
            for i, state in zip(awaited[sender], map(canonical, pickle.loads(data))):
                frontier[i] = state
                frontier_fps[i] = fingerprint(state)
        self.first = plan["first"]
        self.frontier = frontier
        self.frontier_fps = frontier_fps

    def _place(self, placed: dict, event: tuple, exc: BaseException, kind: Check | None, name) -> None:
        """Record in `placed` the note and position of `exc` if it is a MemoryError, found here
        from its traceback as one process finds them (Model.limit_error; `kind` and `name` say
        what was being evaluated: an action by index (kind None), else a declaration by name). The
        coordinator reports it without evaluating again: it need not recur there."""
        if not isinstance(exc, MemoryError):
            return
        model = self.model
        if kind is None:
            info = model.action_info[name]
            note, span = f"computing action {info.name}", info.span
        else:
            note = f"evaluating {kind.noun} {name}"
            span = model.span_of(kind.value, name)
        placed[event] = (note, model.limit_error(exc, note, span).span)
