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
in this process. The table then holds the initial states' ids only: each state
seen gets an id in the store's dict of states (ExactStore), and the worker tells
new states by the set of ids it has seen, so no two states can be merged. With temporal properties
(either storage, any number of workers) each worker records its part of the
behaviour graph (liveness.Recorder) while it expands a level: the atoms of the
states it stores, the fairness conditions of the states it expands, each
transition's successor key and the conditions it takes; it ships that part with
its expansion, and the coordinator appends the parts in worker order, the keys
made numbers (`_add_level`); the liveness checker reads the graph and the
states' depths after the search. In
collect mode (`tlacheck verify`) a check found false is not an event: the worker
collects it and does not evaluate it again, and the coordinator rebuilds each
such violation from its key (`_collected`), as it does an event.

The workers (worker.py) expand; each successor not seen before goes through the
one admission sequence (admission.py); what they report are messages.py's.

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
A MemoryError or a RecursionError in the spec's code is the exception: the
worker places it from its traceback (Model.limit_error), and the coordinator
reports it (E411, E406) there without evaluating again, since it need not
recur (a recursion's room depends on the stack it starts from). Out of memory elsewhere in
a worker ends the run as it does in one process (`tlacheck: out of memory`).
A level without events is added up while the workers expand the next one.

The table grows (4x) when a level would fill more than half of it; the
coordinator grows it ahead, while the workers expand the level before, when
it expects the next level to need it. The workers read the old table
meanwhile, which nobody writes then, and get the new one with the next "go".
Under --memory-budget, a table that would fill past its share is spilled
instead (fingerprints.SortedRun): its fingerprints merged into a sorted file,
the table emptied. That is done only when no worker reads the table (with
forked workers, while they look up and take their states; with the
in-process one, after it expanded); the workers get the new file's path and
index with the next "go", and look a successor up there as the in-process
worker does.

With one worker, there is nothing to look up, hand over or wait for: the
worker expands the level when the coordinator calls it, and puts each
candidate's fingerprint into the table (a private one) as it finds it
(Worker.direct): the table, not a set of the level's candidates, tells the
duplicates of the level, at 8 bytes a slot instead of a set's ~75 bytes a
candidate. When the table is half full in the middle of a level, the worker
asks the coordinator (`_room`) to grow it, or under --memory-budget to spill
it, and goes on with the new one. Under --memory-budget without a behaviour
graph, the store's parents and fingerprints (12 bytes a state) are written to
disk as they fill (stores.FingerprintStore.to_disk): they are read only to
rebuild a trace.

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

import multiprocessing
import mmap
import os
import sys
import time
from array import array
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain, compress
from multiprocessing import reduction
from multiprocessing.connection import wait
from operator import not_

from tlacheck.compile.model import Model
from tlacheck.core.result import Check, Result, Step as TraceStep, SymmetryStats, Verdict
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.admission import Admission, Failure
from tlacheck.engine.fingerprints import (FingerprintTable, NumberTable, Fingerprinter, SortedRun,
                                          collision_probability, slots_for)
from tlacheck.engine.graphstore import GraphStore
from tlacheck.engine.limits import MemoryWatch, limit_reached, resident_mb
from tlacheck.engine.liveness import Recorder
from tlacheck.engine.messages import (UNSTORED, Admitted, Copy, Event, EventKind, Expansion, Failed, Go, Holding,
                                      Incoming, Init, LookedUp, Lookup, Moved, Own, Report, Step, Stepped, Stop, Take,
                                      nothing_admitted)
from tlacheck.engine.options import Options, Progress, unreduced_cause
from tlacheck.engine.search import Search, summed_cache_counts
from tlacheck.engine.statequeue import make_root, remove_root
from tlacheck.engine.stores import ExactStore, FingerprintStore
from tlacheck.engine.successors import nth_step
from tlacheck.engine.worker import LIVE, ORDINAL_BITS, ORDINAL_MASK, Worker, worker_main


_FLIP = bytes([1, 0]) + bytes(254)  # bytes.translate table: 0 <-> 1
_CHUNK = 1 << 12  # fingerprints inserted between two looks at the workers' answers
_WATCH_S = 0.1  # how often the limits are checked while the workers expand
_MIN_CPU_S = 0.05  # a step this short says nothing about the workers' speeds
_TABLE_SLOTS = 1 << 10  # the smallest table under --memory-budget (it spills when half full)


class WorkerError(RuntimeError):
    """A worker process failed (a bug in tlacheck, or the process was killed). The message is
    one line; `details` holds the worker's traceback, if any."""

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


@dataclass
class Settled:
    """A level found by the workers, settled: who owns each candidate (`masks`, per worker 1 for
    each of its own new states, None: all), how many are new (`total`), who holds which next
    (`holdings`), whether the search goes on; once numbered (`Coordinator._won`), the keys and
    fingerprints of its new states in global order and one Report per worker."""

    parts: list  # per worker, (Expansion, Admitted)
    masks: list
    total: int
    base: int  # the number of the level's first new state
    start: int  # the index of the level's first parent
    insertion: object  # the rest of the insertion of its fingerprints into the table (a generator)
    witnessed: set = field(default_factory=set)
    go_on: bool = True
    holdings: list = field(default_factory=list)
    keys: array | None = None
    fps: array | None = None
    reports: list = field(default_factory=list)


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
        self.expanded = 0  # states expanded, in index order
        self.workers = workers
        self.local: Worker | None = None  # the one worker, when it runs in this process
        self.distinct = 0  # states stored (numbered) so far
        # With symmetry: the states of the orbits of the states stored so far, and the seconds
        # the workers spent computing orbit keys (Result.symmetry)
        self.orbit_states = 0
        self.keying = 0.0
        # The seen-set: the initial states' keys, then every stored state's (exact storage: the
        # initial states' ids only; the worker's set of ids seen tells the rest: worker.py)
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
        self.spill_root: str | None = None  # with --memory-budget: where the queues spill (statequeue.py)
        # With --memory-budget: the table's fingerprints beyond its share of the budget, sorted on
        # disk (fingerprints.SortedRun), the slots the table may have, and the version of the file
        # the forked workers have (SortedRun.files; they get a new one with Go)
        self.spilled: SortedRun | None = None
        self.max_slots = 0
        # With --memory-budget and no behaviour graph: the store's parents and fingerprints on disk
        # (stores.FingerprintStore.to_disk)
        self.columns: GraphStore | None = None
        self.run_sent = 0
        # Per worker in another process, its transition caches' counts, as of its last expansion
        # (Expansion.cache; None: this process's, the in-process worker's, count)
        self.worker_caches: list | None = None

    def _new_store(self):
        return self.exact if self.exact is not None else FingerprintStore(self.key)

    # ---------------------------------------------------------------- the initial states
    def _initial_states(self) -> tuple[list[tuple], list[int]]:
        """Admit the initial states (admission.py, with the initial properties) and store those in
        the model; returns them, in index order, and their fingerprints."""
        recorder = None if self.graph is None else Recorder(self.graph.plan)
        admission = Admission(self.model, self.checks, recorder=recorder)
        admission.begin(tuple(name for name, _ in self.reachables))
        try:
            for state in self.model.init():
                self.generated += 1
                fp = self.key(state)
                slot = self.table.find(fp)
                if slot < 0:
                    self._initial(admission, state, fp, slot)
        except EVAL_FAILURES as fault:
            raise self._fault(fault, -1, "computing the initial states", self.model.span_of("initial")) from None
        if recorder is not None:
            self.graph.values.extend(recorder.values())
        return admission.kept.states, list(admission.kept.fps)

    def _initial(self, admission: Admission, state: tuple, fp: int, slot: int) -> None:
        """One initial state not seen before, whose fingerprint `fp` is not in the table, where a
        probe ended at the empty ~`slot`: admitted, and stored if it is in the model (also when a
        check fails on it: the trace ends there); an error in a reachable check is met before the
        initial state's other checks, as one process evaluates them. (One call per initial state:
        the store is written here, not in a method of its own.)"""
        i = self.distinct
        witnessed = len(admission.witnesses)  # each reachable check is witnessed once: the new ones follow
        failed = None
        try:
            stored = admission.admit_initial(i, state, fp)
        except Failure as failure:
            if failure.unstored or failure.kind == Check.CONSTRAINT:
                self._failed(failure, -1, state)
            stored, failed = True, failure
        if stored:
            table = self.table
            table.put(fp, ~slot)
            self.distinct = i + 1
            self.parents.append(-1)
            self.fps.append(fp)
            state = admission.kept.states[-1]
            if self.exact is not None:
                self.states.append(state)
            if len(admission.witnesses) > witnessed:
                self.witnesses.update((name, i) for name, k in admission.witnesses.items() if k == i)
            if self.symmetric:
                self.orbit_states += self.model.symmetry.orbit_size(state, self.fingerprint)
            if not table.room(1):
                self.table = table.grown(table.count + 1)
            if admission.faults:
                self._check_reachables(i, state)
            if failed is not None:
                self._failed(failed, i, state)
        if self.checks.collect:
            for _, failure in self.checks.take_collected():
                self._violated(i if stored else -1, state, failure.unstored, failure.kind, failure.name,
                               failure.initial)

    def _counts(self) -> tuple[int, int]:
        return self.distinct, self.distinct - self.expanded

    def _protected(self) -> list:
        return super()._protected() + [f.__code__ for f in (Coordinator._stop_at_event, Coordinator._emulate,
                                                            Coordinator._collected, Coordinator._finish)]

    def _collision(self) -> float | None:
        return None if self.exact is not None else collision_probability(self._counts()[0], self.generated)

    def _symmetry(self) -> SymmetryStats | None:
        return (SymmetryStats(self._counts()[0], self.orbit_states, self.keying, self._processes())
                if self.symmetric else None)

    def _processes(self) -> int:
        """The processes that expand states (SymmetryStats.processes)."""
        return self.workers

    def _cache_counts(self):
        """Summed over the workers in other processes, in worker order, once they reported (each
        process has caches of its own); else this process's."""
        reported = [c for c in self.worker_caches or () if c is not None]
        return summed_cache_counts(reported) if reported else super()._cache_counts()

    # ---------------------------------------------------------------- the workers
    def _run(self) -> Result:
        try:
            initial, initial_fps = self._initial_states()
            # The number of each stored state's key, for the behaviour graph's successors
            self.numbers = NumberTable(self.fps) if self.graph is not None else None
            if not initial:
                return self._finish()
            return self._search(initial, initial_fps)
        finally:
            self._shutdown()

    def _search(self, initial: list, initial_fps: list) -> Result:
        """Start the workers with the initial states, and search level by level."""
        plan = None if self.graph is None else self.graph.plan
        if self.options.memory_budget_mb is not None:
            self.spill_root = make_root()
            if self.exact is None:  # one table, whatever the workers: its share is one part
                self.spilled = SortedRun(self.spill_root)
                self.max_slots = _TABLE_SLOTS
                while 8 * self.max_slots * 2 <= self._part():
                    self.max_slots <<= 1
            if self.graph is not None:  # its arrays beyond its share, on disk (graphstore.py)
                self.graph.to_disk(GraphStore(self._part(), self.spill_root))
            elif self.exact is None:  # read only to rebuild traces: on disk (a share of none)
                self.columns = GraphStore(0, self.spill_root)
                self.store.to_disk(self.columns)
                self.parents, self.fps = self.store.parents, self.store.fps
        if self.workers == 1:
            # It reads the watchdog's verdict as its stop flag; its counters are its own.
            self.local = Worker(None, self.model, self.table, self.watchdog.hit, self.options.check_deadlock,
                                self.checks, [0] * LIVE, self._tick, self.symmetric, exact=self.exact, plan=plan,
                                budget=self._budget(), spill=self.spill_root)
            self.local.frontier, self.local.frontier_fps = self.local.queue(initial), array("q", initial_fps)
            self.local.spilled = self.spilled
            # Its candidates go into the table as it finds them (the table's one reader)
            self.local.direct = self.exact is None
            self.local.room = self._room
            return self._levels()
        self._fork(plan)
        n = self.workers
        for w, conn in enumerate(self.conns):
            lo, hi = w * len(initial) // n, (w + 1) * len(initial) // n
            conn.send(Init(lo, initial[lo:hi]))
        return self._levels()

    def _fork(self, plan) -> None:
        ctx = multiprocessing.get_context("fork")  # the workers inherit the model and the checks
        self.worker_caches = [None] * self.workers
        for w in range(self.workers):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=worker_main,
                               args=(theirs, self.model, self.table, self.halt, self.options.check_deadlock,
                                     self.checks, self.live_counts, w, self.symmetric, plan, self._budget(),
                                     self.spill_root),
                               daemon=True)
            proc.start()
            theirs.close()
            self.conns.append(mine)
            self.procs.append(proc)
        self.table.close_fd()

    def _shares(self) -> int:
        """The parts --memory-budget is cut into: the workers' queues, the fingerprint table when
        it spills, the behaviour graph when there is one."""
        return 1 + (self.spilled is not None) + (self.graph is not None)

    def _budget(self) -> int | None:
        """Each worker's share of --memory-budget, in bytes, for its queue (statequeue.Spill)."""
        return None if self.options.memory_budget_mb is None else self._part() // self.workers

    def _part(self) -> int:
        """One of the _shares of --memory-budget, in bytes: the table's, the graph's, or the
        workers' queues' together."""
        return self.options.memory_budget_mb * 2**20 // self._shares()

    def _shutdown(self) -> None:
        if self.local is not None:
            self.local.spill.close()  # the queue's segments on disk, if any
        for conn in self.conns:
            try:
                conn.send(Stop())
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
        if self.spilled is not None:
            self.spilled.close()
        if self.graph is not None:
            self.graph.close()
        if self.columns is not None:
            self.columns.close()
        if self.spill_root is not None:  # (also what a worker killed above left)
            remove_root(self.spill_root)
            self.spill_root = None

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
        if isinstance(reply, Failed):
            if reply.out_of_memory:
                raise MemoryError(f"worker process {w + 1}")
            last = reply.details.strip().splitlines()[-1] if reply.details.strip() else "unknown error"
            raise WorkerError(f"worker process {w + 1} failed: {last}", reply.details)
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

    # ---------------------------------------------------------------- the level loop
    def _levels(self) -> Result:
        """The level loop. Each step expands the states the workers hold (the new states of the
        level `settled`, numbered and checked while they were found), then settles the new
        level they found; a level is added up while the workers expand the next one."""
        level = 1  # depth of the states the workers hold
        start, end = 0, self.distinct  # their global indices
        settled = None  # the previous level, not yet added up
        self.next_report = time.perf_counter() + self.progress_every
        while True:
            now = time.perf_counter()
            depth = self.options.max_depth is not None and level >= self.options.max_depth
            reason = self.halted or ("max_depth" if depth else self._limit(now))
            self.watch.check(now - self.start, end, start, end - start)
            expand = reason is None and (settled is None or settled.go_on)
            if expand:
                self._dispatch(settled)
            if settled is not None:  # while the workers expand
                self._link(settled)
                self.expanded = settled.start
                stop = self._number(settled, level - 1)
                if stop is not None:
                    return stop
            if not expand:
                assert reason is not None, "a level with an event ends the search"
                self.expanded = start
                return self._result(Verdict.INCOMPLETE, stop_reason=reason, queue_left=end - start)
            parts = self._collect(end - start)
            if parts is None:  # a limit was reached meanwhile: the level is dropped
                self.expanded = start
                return self._result(Verdict.INCOMPLETE, stop_reason=self.halted, queue_left=end - start)
            settled = self._settle(parts, start)
            if not settled.total:  # no new state: this level's events, or the end
                self._link(settled)
                self.expanded = start
                stop = self._number(settled, level)
                if stop is not None:
                    return stop
                self.expanded = self.distinct
                return self._finish()
            start, end = end, end + settled.total
            level += 1
            self._report(end - start, sum(sum(x.generated) for x, _ in settled.parts), end - start)  # not added up yet

    def _dispatch(self, settled: Settled | None) -> None:
        """Send the workers the next step: what each holds (the level `settled`; None: the initial
        states), the reachable checks still to witness; once the level is in the table, Go."""
        holdings = settled.holdings if settled is not None else [None] * self.workers
        pending = self._pending(settled)
        self.rounds += 1
        if self.local is not None:
            self.local.take(holdings[0], pending, self.rounds)
        for w, conn in enumerate(self.conns):
            conn.send(Step(holdings[w], pending, self.rounds))
        self._relay(holdings)
        if settled is not None:  # once the level is in the table, the workers may expand it
            for _ in settled.insertion:
                pass
        grown, self.grown = self.grown, None
        run = self.spilled
        run = run.shared() if run is not None and run.files != self.run_sent and self.conns else None
        if run is not None:
            self.run_sent = self.spilled.files
        for w, conn in enumerate(self.conns):
            conn.send(Go(grown.mask + 1 if grown else None, run))
            if grown:
                reduction.send_handle(conn, grown.fd, self.procs[w].pid)
        if grown:
            grown.close_fd()

    def _pending(self, settled: Settled | None) -> tuple:
        """The reachable checks still to witness after the level `settled`."""
        return tuple(name for name, _ in self.reachables
                     if name not in self.witnesses and not (settled and name in settled.witnessed))

    def _collect(self, queue: int) -> list | None:
        """The workers' parts of the level of `queue` states, (Expansion, Admitted) each; None if a
        limit dropped it (self.halted)."""
        # The next level is likely to need a larger table: grow it now, while the workers expand
        # (forked workers read the table meanwhile: it is spilled only when they do not, _insertion).
        # (The in-process worker's table makes room for itself as it goes: _room.)
        ahead = iter(()) if self._direct else self._growth(self.table.count + 2 * queue, spill=self.local is not None)
        parts = self._replies(queue, ahead)
        if any(part is None for part in parts):  # a limit was reached meanwhile
            parts = self._before_halt(parts)
            if parts is None:
                return None
        for _ in ahead:
            pass
        if self.exact is not None:  # one worker: its candidates are the level's new states, in order
            self.states.extend(self.local.states)
        return parts

    def _replies(self, queue: int, meanwhile) -> list:
        """The workers' parts of the level, (Expansion, Admitted). Meanwhile: the chunks of work
        `meanwhile` yields, progress reports, and the limits. When one is reached (self.halted),
        the workers drop the level they are expanding (their part is None)."""
        if self.local is not None:  # it expands now, and looks up itself (_tick)
            self.level_size = queue
            self.local.table = self.table
            part = self.local.go()
            for _ in meanwhile:
                pass
            if part[0].halted:
                self.halted = self.watchdog.hit[0]
                return [None]
            return [part]
        replies: list = [None] * self.workers
        speeds: list = [None] * self.workers
        waiting = dict(zip(self.conns, range(self.workers)))
        busy = True
        watch = 0.0  # when to look at the limits next
        while waiting:
            busy = busy and next(meanwhile, False) is not False
            for conn in wait(list(waiting), timeout=0 if busy else _WATCH_S):
                w = waiting.pop(conn)
                stepped: Stepped = self._recv(w)
                self.worker_caches[w] = stepped.expansion.cache
                replies[w] = None if stepped.expansion.halted else (stepped.expansion, stepped.admitted)
                speeds[w] = stepped.held / stepped.cpu if stepped.cpu > _MIN_CPU_S and replies[w] is not None else None
            now = time.perf_counter()
            if waiting and now >= watch:
                watch = now + _WATCH_S
                self._watch_workers(now, queue, replies, set(waiting.values()))
        if None not in speeds:  # the next level's shares: closer to the speeds seen in this one
            n = self.workers
            shares = [min(max((a + v / sum(speeds)) / 2, 0.5 / n), 2 / n) for a, v in zip(self.shares, speeds)]
            self.shares = [v / sum(shares) for v in shares]
        return replies

    def _watch_workers(self, now: float, queue: int, replies: list, expanding: set) -> None:
        """While forked workers expand: the limits (one reached halts them), the memory warning, progress."""
        if self.halted is None:
            self.halted = self._limit(now)
            if self.halted is not None:
                self.halt[0] = 1
        expanded, found, generated = self._in_flight(replies, expanding)
        left = queue - expanded + found
        self.watch.check(now - self.start, self.distinct + found, self.distinct - queue + expanded, left)
        self._report(left, generated, found)

    def _before_halt(self, parts: list) -> list | None:
        """When a limit halted some workers in the middle of a level (their part is None): the level
        as far as one process gets before its first event, if the workers before the first halted
        one found an event (everything before it in key order was expanded, as one process would
        have done before finding it), with nothing from the later workers; else None."""
        halted = parts.index(None)
        done = parts[:halted]
        if self._first_event(_events(done), [a for _, a in done]) is None:
            return None
        a_count = len(self.coverage)
        nothing = (Expansion(array("q"), array("I"), [0] * a_count, [0] * a_count, [], {}), nothing_admitted())
        return done + [nothing] * (len(parts) - halted)

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
                e, f, g = len(reply[0].parents), len(reply[1].fps), sum(reply[0].generated)
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
        leaves the table alone (the worker tells new states by their ids: worker.py)."""
        if self.exact is not None:
            return
        yield from self._growth(needed)
        table = self.table
        for more in fps:
            more = more if isinstance(more, array) else array("q", more)
            for i in range(0, len(more), _CHUNK):
                table.insert(more[i:i + _CHUNK])
                yield

    def _growth(self, needed: int, spill: bool = True):
        """Grow the table, a chunk at a time, if it would hold more than `needed`; the new table
        is left in `self.grown` for the workers. Also run while the workers expand, for the
        level they will find: they read the old table meanwhile, which nobody writes then.
        Under a budget, a table that would hold more than its share is spilled instead (its
        fingerprints merged into the sorted run on disk, and emptied), if `spill` (no worker
        reads the table now); if not, it is left as it is until then."""
        table = self.table
        if self.exact is not None:
            return
        if self.spilled is not None and table.count and 2 * needed > self.max_slots:
            if not spill:
                return
            needed -= table.count  # over its share of the budget: its fingerprints to the sorted run on disk
            self.spilled.merge(table.fingerprints())
            if table.mask + 1 > self.max_slots:
                table.close()
                self.table = table = FingerprintTable(self.max_slots, shared=self.workers > 1)
                if self.workers > 1:  # (it replaces a table grown meanwhile, if any)
                    self.grown = table
            else:
                table.clear()  # (forked workers map it: they see it empty)
        if table.room(needed - table.count):
            return
        # 4x at a time (less rehashing); under a budget only as large as the level needs
        self.grown = grown = FingerprintTable(slots_for(needed if self.spilled is not None else 2 * needed),
                                              shared=True)
        yield from table.copy_into(grown, _CHUNK)
        table.close()
        self.table = grown

    @property
    def _direct(self) -> bool:
        """Whether the in-process worker puts its candidates into the table itself (Worker.direct)."""
        return self.local is not None and self.local.direct

    def _room(self) -> FingerprintTable:
        """The in-process worker's table is half full in the middle of a level (Worker.direct): it
        grows, or under a budget spills, as between levels (no other process reads it)."""
        for _ in self._growth(2 * self.table.count):
            pass
        return self.table

    def _link(self, settled: Settled) -> None:
        """Append the parent links and fingerprints of a level's new states (in index order): what
        traces are rebuilt from (traces.py)."""
        won = self._won(settled)
        halves = array("I", won.keys.tobytes())  # each key as (low 32 bits, high 32 bits) in memory order
        high = 1 if sys.byteorder == "little" else 0
        parents = array("i")
        parents.frombytes(halves[high::2].tobytes())  # indices < 2**31
        self.parents.extend(parents)
        self.fps.extend(won.fps)

    def _relay(self, holdings: list) -> None:
        """Pass the states handed over between workers (each sender sends them first)."""
        for w, holding in enumerate(holdings):
            if holding is not None and holding.send and self.conns:
                moved: Moved = self._recv(w)
                for dest, data in moved.data.items():
                    self.conns[dest].send(Incoming(w, data))

    # ---------------------------------------------------------------- settling a level
    def _settle(self, parts: list, start: int) -> Settled:
        """Which worker owns each candidate, the level's new states in global order, and who
        holds them next."""
        n = len(parts)
        fps = [a.fps for _, a in parts]
        # has[t][h]: 1 for each candidate of worker h that worker t found too
        has: list = [{} for _ in range(n)]
        # Worker 0's candidates are all new states: into the table while the workers look up (the
        # in-process worker put them there itself, Worker.direct: then only, under a budget, a table
        # above its share, the first one, is spilled and replaced by one of its share: _growth).
        if self._direct:
            insertion = self._growth(self.table.count)
        else:
            insertion = self._insertion(fps[:1], self.table.count + sum(map(len, fps)))
        if n > 1:
            for w in range(n):
                self.conns[w].send(Lookup({h: fps[h] for h in range(n) if h != w}))
            for _ in insertion:  # meanwhile, until the answers are there
                if all(conn.poll() for conn in self.conns):
                    break
            for w in range(n):
                looked: LookedUp = self._recv(w)
                has[w] = looked.has
        # Worker w's candidates that an earlier worker found too are the earlier worker's.
        masks: list = [None] * n  # per worker, 1 for each of its own new states (None: all)
        for w in range(1, n):
            found = 0
            for v in range(w):
                found |= int.from_bytes(has[v][w], "little")
            masks[w] = found.to_bytes(len(fps[w]), "little").translate(_FLIP)
        own = [len(f) if m is None else m.count(1) for f, m in zip(fps, masks)]
        insertion = chain(insertion, self._insertion([compress(f, m) for f, m in zip(fps[1:], masks[1:])], 0))
        settled = self._settled(parts, masks, sum(own), start, insertion)
        settled.holdings = self._holdings(own, masks, fps, has)
        return settled

    def _settled(self, parts: list, masks: list, total: int, start: int, insertion=()) -> Settled:
        """The level of `parts`, whose new states are numbered from the stored ones: whether the
        search goes on after it (no event in it, --max-states not reached)."""
        settled = Settled(parts, masks, total, self.distinct, start, insertion)
        settled.witnessed = set().union(*(a.witnesses for _, a in parts))
        settled.go_on = self._first_event(_events(parts), [a for _, a in parts]) is None
        if settled.go_on and self.options.max_states is not None:
            settled.go_on = self._max_states_parent(self._won(settled).keys, start) is None
        return settled

    def _won(self, settled: Settled) -> Settled:
        """The keys of a level's new states in global order, and per worker its Report: computed
        when first needed (mostly while the workers check and expand the next level)."""
        if settled.keys is not None:
            return settled
        keys, fps = array("q"), array("q")
        for (expansion, admitted), m in zip(settled.parts, settled.masks):
            if m is not None:  # its own new states only
                admitted = Admitted(array("q", compress(admitted.keys, m)), array("q", compress(admitted.fps, m)),
                                    array("H", compress(admitted.acts, m)), admitted.witnesses, admitted.faults,
                                    admitted.events, admitted.placed,
                                    None if admitted.values is None else compress(admitted.values, m),
                                    None if admitted.sizes is None else array("q", compress(admitted.sizes, m)),
                                    admitted.collected)
            keys.extend(admitted.keys)
            fps.extend(admitted.fps)
            distinct = [0] * len(self.coverage)
            for ai, c in Counter(admitted.acts).items():
                distinct[ai] = c
            settled.reports.append(Report(expansion, admitted, distinct, m))
        settled.keys, settled.fps = keys, fps
        return settled

    def _holdings(self, own: list[int], masks: list, fps: list, has: list) -> list[Holding]:
        """Split the new level into contiguous ranges, one per worker, by the workers' recent speed
        (messages.Holding says what a range is made of)."""
        n = len(own)
        bounds = [0]  # the new states of worker h are [bounds[h], bounds[h + 1]) in the level
        for c in own:
            bounds.append(bounds[-1] + c)
        total = bounds[-1]
        cuts = [0]  # worker t holds [cuts[t], cuts[t + 1])
        for share in self.shares:
            cuts.append(min(total, cuts[-1] + round(share * total)))
        cuts[-1] = total
        holdings = [Holding(self.distinct + cuts[t], masks[t]) for t in range(n)]
        for t in range(n):
            lo, hi = cuts[t], cuts[t + 1]
            for h in range(n):
                a, b = max(lo, bounds[h]), min(hi, bounds[h + 1])
                if a >= b:
                    continue
                if h == t:
                    holdings[t].segments.append(Own(a - bounds[h], b - bounds[h]))
                    continue
                # positions of those states in h's candidates
                theirs = range(a - bounds[h], b - bounds[h]) if masks[h] is None else \
                    list(compress(range(len(masks[h])), masks[h]))[a - bounds[h]:b - bounds[h]]
                if h < t:
                    holdings[t].segments.append(Copy(h, array("q", map(fps[h].__getitem__, theirs))))
                    handed = array("q", compress(theirs, map(not_, map(has[t][h].__getitem__, theirs))))
                else:  # a later worker's own states: no earlier worker found them
                    holdings[t].segments.append(Take(h, len(theirs)))
                    handed = array("q", theirs)
                if handed:
                    holdings[h].send[t] = handed
        return holdings

    # ---------------------------------------------------------------- one level's results
    def _number(self, settled: Settled, level: int) -> Result | None:
        """Add up a level whose new states are numbered; return the Result if the search stops
        in this level."""
        settled = self._won(settled)
        reports, keys, base = settled.reports, settled.keys, settled.base
        admitted = [r.admitted for r in reports]  # the checks' results, by key
        placed = {e: where for r in reports for part in (r.expansion, r.admitted) for e, where in part.placed.items()}
        event = self._first_event(_events([(r.expansion, r.admitted) for r in reports]), admitted)
        limit = self._max_states_parent(keys, settled.start) if self.options.max_states is not None else None
        collected = [c for r in reports for part in (r.expansion, r.admitted) for c in part.collected]
        if collected:  # collect mode: the violations found before the level's end, its event, or the limit
            last = limit if limit is not None else (1 << 62)
            self._collected([c for c in collected if c[0] >> ORDINAL_BITS <= last], keys, base)
        if event is not None and (limit is None or event.key >> ORDINAL_BITS <= limit):
            return self._stop_at_event(event, reports, keys, base, level, placed.get(event))
        if limit is not None:
            self._emulate(reports, keys, level, limit, (limit + 1) << ORDINAL_BITS, None)
            self.generated += sum(self._row(reports, limit))
            return self._result(Verdict.INCOMPLETE, stop_reason="max_states", queue_left=self.distinct - self.expanded)
        self._add_level(reports, keys, base, level)
        return None

    def _collected(self, collected: list, keys, base: int) -> None:
        """Keep the violations a worker collected (collect mode), in key order: (key, Failure) for a
        check false at the successor with that key (at a state stored there, or not stored: it fails
        a constraint; a step property on the step to it), a deadlock at a parent without successors.
        Each is rebuilt here from the key, as one process would have reported it."""
        model = self.model
        for key, failure in sorted(collected, key=lambda c: c[0]):
            parent, ordinal = key >> ORDINAL_BITS, key & ORDINAL_MASK
            if failure.kind == Check.DEADLOCK:
                self._keep(self._deadlock(parent))
            elif failure.kind == Check.STEP:
                self._step_violated(parent, nth_step(model, self._state(parent), ordinal), failure.name)
            elif failure.unstored:
                self._violated(parent, nth_step(model, self._state(parent), ordinal).state, True, failure.kind,
                               failure.name)
            else:
                i = base + bisect_left(keys, key)
                self._violated(i, self._state(i), False, failure.kind, failure.name)

    def _add_level(self, reports: list[Report], keys, base: int, level: int) -> None:
        """Add up a whole level: its expansion's counts, the witnesses its checks found, and its
        part of the behaviour graph (its parents' transitions, in parent order)."""
        a_count = len(self.coverage)
        if self.graph is not None:
            self.numbers.extend()  # the level's new states are linked: their successors are numbered now
            for r in reports:
                if r.expansion.graph is not None:
                    self.graph.add(r.expansion.graph, r.expansion.counts, a_count, r.admitted.values,
                                   self.numbers.number)
        for r in reports:
            x = r.expansion
            self.generated += sum(x.generated)
            if r.admitted.sizes is not None:
                self.orbit_states += sum(r.admitted.sizes)
            self.keying += x.keying
            for ai, cov in enumerate(self.coverage):
                cov.enabled += x.enabled[ai]
                cov.generated += x.generated[ai]
                cov.distinct += r.distinct[ai]
        self._witnessed([r.admitted for r in reports], keys, base, 1 << 62)
        self.distinct = base + len(keys)
        if keys:
            self.depth = level + 1

    def _witnessed(self, admitted: list[Admitted], keys, base: int, before: int) -> None:
        """Record the first witness of each reachable check found at a key below `before`."""
        for a in admitted:
            for name, key in a.witnesses.items():
                i = base + bisect_left(keys, key)
                if key < before and (name not in self.witnesses or i < self.witnesses[name]):
                    self.witnesses[name] = i

    @staticmethod
    def _first_event(events: list[Event], admitted: list[Admitted]) -> Event | None:
        """The first event in single-process order, or None."""
        # A reachable check's evaluation error counts only if no state before it witnessed the check.
        witnessed = {}
        for a in admitted:
            for name, key in a.witnesses.items():
                witnessed[name] = min(key, witnessed.get(name, key))
        for a in admitted:
            for name, key in a.faults.items():
                if key < witnessed.get(name, key + 1):
                    events.append(Event(key, EventKind.REACHABLE_FAULT, name))
        return min(events, default=None, key=lambda e: (e.key, e.kind))

    def _max_states_parent(self, keys, level_start: int) -> int | None:
        """The first parent after whose expansion one process stops for --max-states."""
        j = 0
        for p in range(level_start, self.distinct):
            while j < len(keys) and keys[j] >> ORDINAL_BITS <= p:
                j += 1
            d = self.distinct + j
            if d >= self.options.max_states and p + 1 < d:
                return p
        return None

    def _emulate(self, reports: list[Report], keys, level: int, parent: int, key: int, action: int | None,
                 stored_self: bool = False, covered_self: bool = False) -> None:
        """Set the counts to a single process's when it reaches `key` while expanding `parent`:
        parents before it fully counted (states generated and coverage), the coverage of the
        actions of `parent` before `action` (None: all of them), the new states with a smaller
        key; the state at `key` is in the distinct count when `stored_self`, and also in the
        coverage and depth when `covered_self`. The caller adds `parent`'s own successors to
        the states generated."""
        a_count = len(self.coverage)
        for r in reports:
            parents, counts = r.expansion.parents, r.expansion.counts
            cut = bisect_left(parents, parent)
            for i in range(cut):
                self._count_row(counts[i * a_count:(i + 1) * a_count], a_count, True)
            if cut < len(parents) and parents[cut] == parent:
                self._count_row(counts[cut * a_count:(cut + 1) * a_count], a_count if action is None else action)
            found = r.admitted
            j = bisect_left(found.keys, key)
            at_key = j < len(found.keys) and found.keys[j] == key
            if found.sizes is not None:
                self.orbit_states += sum(found.sizes[:j + (stored_self and at_key)])
            self.keying += r.expansion.keying
            if covered_self and at_key:
                j += 1
            for ai in found.acts[:j]:
                self.coverage[ai].distinct += 1
        below = bisect_left(keys, key)
        self.distinct += below + (1 if stored_self else 0)
        if below or covered_self:
            self.depth = level + 1
        self.expanded = parent + 1

    def _count_row(self, row, actions: int, generated: bool = False) -> None:
        """Count a parent's successors by its first `actions` actions in the coverage (and, with
        `generated`, all of them in the states generated)."""
        if generated:
            self.generated += sum(row)
        for ai in range(min(actions, len(row))):
            if row[ai]:
                self.coverage[ai].enabled += 1
                self.coverage[ai].generated += row[ai]

    def _finish(self) -> Result:
        """The search is complete. With the behaviour graph, what told new states and numbered
        them is freed before the liveness checker runs, and the states' depths are computed."""
        if self.graph is not None:
            self.numbers = None
            if self.exact is not None:
                self.exact.release()
            if self.table is not None:
                self.table.close()
                self.table = None
            if self.local is not None:
                self.local.table = None
            depths = self.depths = array("i")
            for p in self.parents:
                depths.append(0 if p < 0 else depths[p] + 1)
        return super()._finish()

    def _row(self, reports: list[Report], parent: int) -> list[int]:
        a_count = len(self.coverage)
        for r in reports:
            parents = r.expansion.parents
            cut = bisect_left(parents, parent)
            if cut < len(parents) and parents[cut] == parent:
                return list(r.expansion.counts[cut * a_count:(cut + 1) * a_count])
        raise AssertionError("no worker expanded the parent")  # pragma: no cover

    def _state(self, i: int) -> tuple:
        return self.states[i] if self.exact is not None else self.trace_to(i).steps[-1].state

    # ---------------------------------------------------------------- an event: as one process meets it
    def _stop_at_event(self, event: Event, reports: list[Report], keys, base: int, level: int,
                       placed=None) -> Result:
        """`placed`: where a MemoryError or RecursionError a worker met at the event is placed, and
        its message (admission.placement)."""
        key, kind, detail = event
        parent, ordinal = key >> ORDINAL_BITS, key & ORDINAL_MASK
        row = self._row(reports, parent)
        # the action producing successor number `ordinal` of `parent`
        action, before = 0, 0
        while action < len(row) and before + row[action] <= ordinal:
            before += row[action]
            action += 1
        self._witnessed([r.admitted for r in reports], keys, base, key)
        if kind == EventKind.DEADLOCK:
            self._emulate(reports, keys, level, parent, key, None)
            return self._result(Verdict.DEADLOCK, self._deadlock(parent))
        if kind == EventKind.ACTION_FAULT:
            self._emulate(reports, keys, level, parent, key, detail)
            self.generated += ordinal
            self._placed(placed, parent)
            self._action_fault_again(parent, detail)
        j = bisect_left(keys, key)
        stored = j < len(keys) and keys[j] == key and kind != EventKind.CONSTRAINT_FAULT and detail != UNSTORED
        if kind == EventKind.CONSTRAINT_FAULT:
            # One process adds a successor to the count when it stores a state or finishes an action.
            last = keys[j - 1] & ORDINAL_MASK if j > 0 and keys[j - 1] >> ORDINAL_BITS == parent else -1
            counted = max(last + 1, before)
        else:
            counted = ordinal + 1
        self._emulate(reports, keys, level, parent, key, action, stored_self=stored,
                      covered_self=stored and kind != EventKind.REACHABLE_FAULT)
        self.generated += counted
        self._cover(action, counted - before)
        if stored and kind != EventKind.STEP:  # (a step's trace goes through its parent)
            i = base + j
            self._placed(placed, i)
            self._again(event, i, self._state(i))
        state = self._state(parent)
        step = nth_step(self.model, state, ordinal)
        self._placed(placed, parent, step.state)
        self._again(event, parent, step.state, state, step)

    def _again(self, event: Event, at: int, succ: tuple, state: tuple | None = None,
               step: TraceStep | None = None) -> None:
        """Evaluate again what `event` found, at stored state `at` (`succ`), or at `succ`, the
        successor of stored state `at` (`state`) by `step`, which is not stored (or a step's
        property), and report it (admission.Checks: the same checks, in the same order)."""
        checks = self.checks
        try:
            if event.kind == EventKind.CONSTRAINT_FAULT:
                checks.in_model(succ)
            elif event.kind == EventKind.REACHABLE_FAULT:
                self._check_reachables(at, succ)
            elif event.kind == EventKind.STEP:
                checks.check_step(state, succ)
            else:
                checks.check(succ, checks.state, unstored=step is not None)
        except Failure as failure:
            self._failed(failure, at, succ, step)
        raise AssertionError("the event did not happen again")  # pragma: no cover

    def _action_fault_again(self, parent: int, ai: int) -> None:
        state = self._state(parent)
        info = self.model.action_info[ai]
        try:
            for _ in self.model.actions[ai](state):
                pass
        except EVAL_FAILURES as fault:
            raise self._fault(fault, parent, f"computing action {info.name}", info.span) from None
        raise AssertionError("the action did not fail again")  # pragma: no cover

    def _cover(self, action: int, generated: int) -> None:
        """Count in the coverage the successors of the action a single process was computing
        when the event stopped it (as its explorer does when a check ends the run there)."""
        if generated > 0:
            self.coverage[action].enabled += 1
            self.coverage[action].generated += generated

    def _placed(self, placed: tuple | None, at: int, unstored: tuple | None = None) -> None:
        """End with E411 or E406 in stored state `at` (or in its successor `unstored`) if a worker
        met a MemoryError or a RecursionError there (`placed`: admission.placement's)."""
        if placed is not None:  # no traceback: placed at the position given, with its message
            note, span, recursion, message = placed
            raise self._fault(RecursionError() if recursion else MemoryError(), at, note, span,
                              unstored=unstored, message=message)


def _events(parts: list) -> list[Event]:
    """The events of the workers' parts of a level, (Expansion, Admitted) each."""
    return [e for x, a in parts for e in chain(x.events, a.events)]
