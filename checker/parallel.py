"""Multi-process exploration (`--workers N`): the BFS of explore.py, partitioned by fingerprint.

Guarantee: the same Result as one process — verdict, distinct and generated
counts, depth, coverage, witnesses and the same shortest counterexample — for
every worker count. Traces are rebuilt here, by re-execution, exactly as the
single-process fingerprint explorer rebuilds them.

How. Worker w owns the states whose fingerprint has (fp >> 32) % N == w (the
low bits index the worker's own FingerprintSet). Every successor carries a
key, (global index of its parent << 32) | ordinal: its position in the
single-process BFS, whose first successor to reach a state is the one that
stores it. The search is level-synchronous; per level:

1. expand: each worker expands its share of the level in global order. It
   keeps the successors it owns; the others are batched per owner, one entry
   (the smallest key) per state, and pickled.
2. merge: this process (the coordinator) relays the batches as bytes. Each
   owner keeps, per new state, the smallest key, then in key order checks the
   state constraints, stores the state, and checks reachable checks and
   invariants. It reports its new states' keys (sorted), its counts, and
   its events (violations, evaluation errors, deadlocks) by key.
3. number: the coordinator merges the sorted keys, which is the single-process
   order, so a state's global index is its rank; it appends the parent links
   and ordinals and sends every worker the indices of its new states with the
   order to expand the next level.

The first event in key order is the one a single process meets first. The
coordinator sets the counts to what a single process has at that point (from
the per-parent successor counts the workers report), then evaluates the event
again itself, so the Result is built by the same code as with one process.

Limits: temporal properties (the liveness checker needs the whole graph in one
process), collect mode (`tlacheck verify`) and exact storage run in one
process. Workers are forked, so the compiled model is inherited rather than
pickled; where "fork" is unavailable the search runs in one process. The
`--time-limit` is checked between levels.
"""

from __future__ import annotations

import gc
import multiprocessing
import pickle
import time
import traceback
from array import array
from bisect import bisect_left

from checker.explore import Options, Progress, _FingerprintExplorer, _nth_step, _until_fault, limit_reached
from checker.fingerprints import FingerprintSet, collision_probability
from checker.model import Model
from checker.result import Result, Verdict
from checker.runtime import Fault

_ORDINAL_BITS = 32
_ORDINAL_MASK = (1 << _ORDINAL_BITS) - 1

# Event kinds. At one key, a constraint is checked first, then reachable checks, then invariants.
_CONSTRAINT_FAULT, _REACHABLE_FAULT, _INVARIANT, _ACTION_FAULT, _DEADLOCK = range(5)


def owner(fp: int, workers: int) -> int:
    return (fp >> 32) % workers


class WorkerError(RuntimeError):
    """A worker process failed (a bug in tlacheck): the message holds its traceback."""


class Coordinator(_FingerprintExplorer):
    """The coordinating process: initial states, the level loop, numbering, events, traces."""

    @staticmethod
    def available() -> bool:
        return "fork" in multiprocessing.get_all_start_methods()

    def __init__(self, model: Model, options: Options, progress, progress_every: float):
        super().__init__(model, options, progress, progress_every)
        self.workers = options.workers
        self.distinct = 0  # states stored (numbered) so far
        self._new = 0  # states the last level added

    def _counts(self) -> tuple[int, int]:
        return self.distinct, self.distinct - self.expanded

    def _collision(self) -> float | None:
        return collision_probability(self.distinct, self.generated)

    def _run(self) -> Result:
        initial = self._initial_states()
        self.distinct = self.seen.count
        if not initial:
            return self._finish()
        ctx = multiprocessing.get_context("fork")
        conns, procs = [], []
        invariant_names = tuple(n for n, _ in self.invariants)
        for w in range(self.workers):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(theirs, self.model, w, self.workers,
                                                          self.options.check_deadlock, invariant_names),
                               daemon=True)
            proc.start()
            theirs.close()
            conns.append(mine)
            procs.append(proc)
        try:
            for w, conn in enumerate(conns):
                conn.send(("init", [(i, s) for i, s in enumerate(initial) if owner(hash(s) or 1, self.workers) == w]))
            return self._levels(conns)
        finally:
            for conn in conns:
                try:
                    conn.send(("stop",))
                except OSError:
                    pass
            for proc in procs:
                proc.join(timeout=5)
                if proc.is_alive():
                    proc.kill()

    @staticmethod
    def _recv(conn):
        reply = conn.recv()
        if reply[0] == "error":
            raise WorkerError(reply[1])
        return reply

    def _levels(self, conns) -> Result:
        opts = self.options
        n = self.workers
        level = 1  # depth of the states being expanded
        level_start = 0  # global index of the level's first state
        numbering = [None] * n
        next_report = time.perf_counter() + self.progress_every
        while self.distinct > level_start:
            self.expanded = level_start
            if opts.max_depth is not None and level >= opts.max_depth:
                return self._result(Verdict.INCOMPLETE, stop_reason="max_depth", queue_left=self.distinct - level_start)
            now = time.perf_counter()
            reason = limit_reached(opts, self.start, now)
            if reason is not None:
                return self._result(Verdict.INCOMPLETE, stop_reason=reason, queue_left=self.distinct - level_start)
            for conn, idx in zip(conns, numbering):
                conn.send(("expand", idx))
            batches = [self._recv(conn)[1] for conn in conns]
            pending = tuple(name for name, _ in self.reachables if name not in self.witnesses)
            for w, conn in enumerate(conns):
                conn.send(("merge", [batches[v][w] for v in range(n) if v != w], pending))
            reports = [self._recv(conn)[1] for conn in conns]
            stop = self._number(reports, level, level_start)
            if stop is not None:
                return stop
            numbering = [r["indices"] for r in reports]
            level_start = self.distinct - self._new
            level += 1
            if self.progress is not None and now >= next_report:
                next_report = now + self.progress_every
                self.progress(Progress(self.generated, self.distinct, self.distinct - level_start, self.depth,
                                       time.perf_counter() - self.start))
        self.expanded = self.distinct
        return self._finish()

    # ---------------------------------------------------------------- one level's results
    def _number(self, reports: list[dict], level: int, level_start: int) -> Result | None:
        """Number the level's new states; return the Result if the search stops in this level."""
        all_keys = sorted(k for r in reports for k in r["keys"])
        base = self.distinct
        self._new = len(all_keys)
        position = {k: base + i for i, k in enumerate(all_keys)}
        for r in reports:
            r["indices"] = array("q", map(position.__getitem__, r["keys"])).tobytes()
        self.parents.extend(k >> _ORDINAL_BITS for k in all_keys)
        for k in all_keys:
            o = k & _ORDINAL_MASK
            if o > 0xFFFF and self.ordinals.typecode == "H":
                self.ordinals = array("I", self.ordinals)
            self.ordinals.append(o)
        event = self._first_event(reports)
        limit_parent = self._max_states_parent(all_keys, level_start) if self.options.max_states is not None else None
        if event is not None and (limit_parent is None or event[0] >> _ORDINAL_BITS <= limit_parent):
            return self._stop_at_event(event, reports, all_keys, position, level)
        if limit_parent is not None:
            self._emulate(reports, all_keys, level, limit_parent, (limit_parent + 1) << _ORDINAL_BITS, None)
            self.generated += sum(self._row(reports, limit_parent))
            return self._result(Verdict.INCOMPLETE, stop_reason="max_states", queue_left=self.distinct - self.expanded)
        # The whole level: add it up.
        for r in reports:
            self.generated += sum(r["generated"])
            for ai, cov in enumerate(self.coverage):
                cov.enabled += r["enabled"][ai]
                cov.generated += r["generated"][ai]
                cov.distinct += r["distinct"][ai]
            for name, key in r["witnesses"].items():
                if name not in self.witnesses or position[key] < self.witnesses[name]:
                    self.witnesses[name] = position[key]
        self.distinct = base + len(all_keys)
        if all_keys:
            self.depth = level + 1
        return None

    def _first_event(self, reports: list[dict]) -> tuple | None:
        """The first event in single-process order: (key, kind, detail), or None."""
        events = [e for r in reports for e in r["events"]]
        # A reachable check's evaluation error counts only if no state before it witnessed the check.
        witnessed = {}
        for r in reports:
            for name, key in r["witnesses"].items():
                witnessed[name] = min(key, witnessed.get(name, key))
        for r in reports:
            for name, key in r["reachable_faults"].items():
                if key < witnessed.get(name, key + 1):
                    events.append((key, _REACHABLE_FAULT, name))
        return min(events, default=None, key=lambda e: (e[0], e[1]))

    def _max_states_parent(self, all_keys: list[int], level_start: int) -> int | None:
        """The first parent after whose expansion one process stops for --max-states."""
        j = 0
        for p in range(level_start, self.distinct):
            while j < len(all_keys) and all_keys[j] >> _ORDINAL_BITS <= p:
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
            if covered_self and j < len(keys) and keys[j] == key:
                j += 1
            for ai in acts[:j]:
                self.coverage[ai].distinct += 1
        below = bisect_left(all_keys, key)
        self.distinct += below + (1 if stored_self else 0)
        if below or covered_self:
            self.depth = level + 1
        self.expanded = parent + 1

    def _row(self, reports, parent: int) -> list[int]:
        a_count = len(self.coverage)
        for r in reports:
            cut = bisect_left(r["parents"], parent)
            if cut < len(r["parents"]) and r["parents"][cut] == parent:
                return list(r["counts"][cut * a_count:(cut + 1) * a_count])
        raise AssertionError("no worker expanded the parent")  # pragma: no cover

    def _state(self, i: int) -> tuple:
        return self.trace_to(i).steps[-1].state

    def _stop_at_event(self, event, reports, all_keys, position, level: int) -> Result:
        key, kind, detail = event
        parent, ordinal = key >> _ORDINAL_BITS, key & _ORDINAL_MASK
        model = self.model
        row = self._row(reports, parent)
        # the action producing successor number `ordinal` of `parent`
        action, before = 0, 0
        while action < len(row) and before + row[action] <= ordinal:
            before += row[action]
            action += 1
        self._add_witnesses_before(reports, key, position)
        if kind == _DEADLOCK:
            self._emulate(reports, all_keys, level, parent, key, None)
            return self._result(Verdict.DEADLOCK, self._deadlock(parent))
        if kind == _ACTION_FAULT:
            self._emulate(reports, all_keys, level, parent, key, detail)
            self.generated += ordinal
            state = self._state(parent)
            try:
                for _ in model.actions[detail](state):
                    pass
            except (Fault, RecursionError) as fault:
                raise self._fault(fault, parent, f"computing action {model.action_info[detail].name}") from None
            raise AssertionError("the action did not fail again")  # pragma: no cover
        if kind == _CONSTRAINT_FAULT:
            self._emulate(reports, all_keys, level, parent, key, action)
            # One process adds a successor to the count when it stores a state or finishes an action.
            j = bisect_left(all_keys, key) - 1
            last = all_keys[j] & _ORDINAL_MASK if j >= 0 and all_keys[j] >> _ORDINAL_BITS == parent else -1
            self.generated += max(last + 1, before)
            succ = _nth_step(model, self._state(parent), ordinal).state
            self._in_model(succ, parent)
            raise AssertionError("the constraint did not fail again")  # pragma: no cover
        # A stored state: reachable checks (while storing it), then invariants.
        self._emulate(reports, all_keys, level, parent, key, action, stored_self=True,
                      covered_self=kind == _INVARIANT)
        self.generated += ordinal + 1
        i = position[key]
        state = self._state(i)
        if kind == _REACHABLE_FAULT:
            self._check_reachables(i, state)
        else:
            self._check_invariants(i, state)
        raise AssertionError("the event did not happen again")  # pragma: no cover

    def _add_witnesses_before(self, reports, key: int, position) -> None:
        for r in reports:
            for name, k in r["witnesses"].items():
                if k < key and (name not in self.witnesses or position[k] < self.witnesses[name]):
                    self.witnesses[name] = position[k]


# -------------------------------------------------------------------- worker side

def _pack(batch: dict) -> bytes:
    """{fp: (key, action, state)} as bytes: the ints in arrays, the states in one pickle."""
    fps = array("q", batch)
    entries = batch.values()
    keys = array("q", [e[0] for e in entries])
    acts = array("H", [e[1] for e in entries])
    return pickle.dumps((fps.tobytes(), keys.tobytes(), acts.tobytes(), [e[2] for e in entries]),
                        pickle.HIGHEST_PROTOCOL)


def _unpack(data: bytes):
    fps, keys, acts, states = pickle.loads(data)
    a, b, c = array("q"), array("q"), array("H")
    a.frombytes(fps)
    b.frombytes(keys)
    c.frombytes(acts)
    return zip(a, b, c, states)


def _worker_main(conn, model: Model, w: int, n: int, check_deadlock: bool, invariant_names: tuple) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    gc.disable()  # as in explore(): no reference cycles here
    try:
        _Worker(conn, model, w, n, check_deadlock, invariant_names).serve()
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        pass
    except BaseException:  # a bug: report it to the coordinator, which raises it
        try:
            conn.send(("error", traceback.format_exc()))
        except OSError:
            pass


class _Worker:
    def __init__(self, conn, model: Model, w: int, n: int, check_deadlock: bool, invariant_names: tuple):
        self.conn = conn
        self.model = model
        self.w = w
        self.n = n
        self.check_deadlock = check_deadlock
        self.seen = FingerprintSet()
        invariants = tuple((name, f) for name, f in model.invariants if name in invariant_names)
        self.plan = []
        for ai, nexts in enumerate(model.next_states):
            invs = tuple((name, f) for name, f in invariants
                         if model.invariant_reads[name] & model.action_writes[ai])
            self.plan.append((ai, nexts, model.actions[ai], invs))
        self.frontier: list[tuple[int, tuple]] = []
        self.candidates: dict = {}  # fp -> [key, action, state, fp]: this level's new states owned here
        self.stored: list[tuple] = []  # this level's stored states, in key order
        self.stats: dict = {}

    def serve(self) -> None:
        conn = self.conn
        while True:
            msg = conn.recv()
            op = msg[0]
            if op == "stop":
                return
            if op == "init":
                for g, state in msg[1]:
                    self.seen.add(hash(state) or 1)
                self.frontier = msg[1]
            elif op == "expand":
                if msg[1] is not None:
                    indices = array("q")
                    indices.frombytes(msg[1])
                    self.frontier = list(zip(indices, self.stored))
                    self.stored = []
                conn.send(("batches", self._expand()))
            elif op == "merge":
                conn.send(("report", self._merge(msg[1], msg[2])))

    def _expand(self) -> list:
        n, w = self.n, self.w
        seen = self.seen
        table, mask = seen.table, seen.mask
        candidates: dict = {}
        out = [dict() for _ in range(n)]
        a_count = len(self.plan)
        parents = array("q")
        counts = array("I")
        enabled = [0] * a_count
        generated = [0] * a_count
        events = []
        check_deadlock = self.check_deadlock
        for g, state in self.frontier:
            base = g << _ORDINAL_BITS
            k = 0
            fault_at = None
            parents.append(g)
            for ai, nexts, act, _ in self.plan:
                fault = None
                try:
                    succs = nexts(state)
                except (Fault, RecursionError):
                    succs, fault = _until_fault(act, state)
                for succ in succs:
                    fp = hash(succ) or 1
                    o = (fp >> 32) % n
                    if o == w:
                        if fp not in candidates:
                            j = fp & mask
                            x = table[j]
                            while x:
                                if x == fp:
                                    break
                                j = (j + 1) & mask
                                x = table[j]
                            else:
                                candidates[fp] = [base | k, ai, succ, fp]
                    else:
                        d = out[o]
                        if fp not in d:
                            d[fp] = (base | k, ai, succ)
                    k += 1
                c = len(succs)
                counts.append(c)
                if c:
                    enabled[ai] += 1
                    generated[ai] += c
                if fault is not None:
                    counts.extend([0] * (a_count - ai - 1))
                    fault_at = (base | k, _ACTION_FAULT, ai)
                    break
            if fault_at is not None:
                events.append(fault_at)
                break  # later parents cannot hold an earlier event
            if k == 0 and check_deadlock:
                events.append((base, _DEADLOCK, None))
                break
        self.candidates = candidates
        self.frontier = []
        self.stats = {"parents": parents, "counts": counts, "enabled": enabled, "generated": generated,
                      "events": events}
        return [None if o == w else _pack(out[o]) for o in range(n)]

    def _merge(self, batches: list[bytes], pending: tuple) -> dict:
        model = self.model
        seen = self.seen
        candidates = self.candidates
        canonical = model.canonical_keys
        table, mask = seen.table, seen.mask
        for batch in batches:
            for fp, key, ai, succ in _unpack(batch):
                j = fp & mask
                x = table[j]
                while x:
                    if x == fp:
                        break
                    j = (j + 1) & mask
                    x = table[j]
                else:
                    cur = candidates.get(fp)
                    if cur is None or key < cur[0]:
                        candidates[fp] = [key, ai, canonical(succ), fp]
        keys = array("q")
        acts = array("H")
        stored = []
        events = self.stats["events"]
        distinct = [0] * len(self.plan)
        constraints = model.constraints
        reach = [(name, pred) for name, pred in model.reachables if name in pending]
        witnesses: dict[str, int] = {}
        reachable_faults: dict[str, int] = {}
        invariant_event = False
        for key, ai, succ, fp in sorted(candidates.values()):  # keys are unique: states never compared
            if constraints:
                try:
                    if not all(con(succ) for _, con in constraints):
                        continue
                except (Fault, RecursionError):
                    events.append((key, _CONSTRAINT_FAULT, None))
                    continue
            j = fp & mask  # store it (not found above, nor stored since: candidates are unique)
            while table[j]:
                j = (j + 1) & mask
            table[j] = fp
            seen.count += 1
            if seen.count > seen.limit:
                seen.grow()
                table, mask = seen.table, seen.mask
            keys.append(key)
            acts.append(ai)
            stored.append(succ)
            distinct[ai] += 1
            for name, pred in reach:
                if name in witnesses or name in reachable_faults:
                    continue
                try:
                    if pred(succ):
                        witnesses[name] = key
                except (Fault, RecursionError):
                    reachable_faults[name] = key
            if not invariant_event:
                for _, inv in self.plan[ai][3]:
                    try:
                        ok = inv(succ)
                    except (Fault, RecursionError):
                        ok = False
                    if not ok:
                        events.append((key, _INVARIANT, None))
                        invariant_event = True  # later states of this worker come after it
                        break
        self.candidates = {}
        self.stored = stored
        report = dict(self.stats)
        report.update(keys=keys, acts=acts, distinct=distinct, witnesses=witnesses,
                      reachable_faults=reachable_faults)
        return report
