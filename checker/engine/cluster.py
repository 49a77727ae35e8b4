"""`--ray`: the search on a Ray cluster, level by level, with the same Result as one process.

The state space is split by value: partition p of N owns the states whose key (fingerprint, or
the orbit's under symmetry) is p modulo N, and each partition is a Ray actor (`Partition`) that
holds its part of the seen-set (a fingerprints.FingerprintTable of keys) and its part
of the current BFS level. The driver (`ClusterSearch`, a levels.Coordinator) runs in this
process and holds what one process's driver holds: per stored state its parent and key (traces
are rebuilt from them, traces.py), the counts, and the behaviour graph when temporal properties
need it. Nothing is forked: each actor builds the model again from its Recipe (the spec's text,
its imports and abstract specs, the -D overrides and the variant: compile/model.py), so the
cluster's nodes need tlacheck installed, not the spec's files.

One level, for parents of depth d:

1. expand (every actor): expand the parents it holds, in index order. Every successor gets its
   key in the single-process BFS, (parent index << 32) | ordinal, as in levels.py. A successor is
   sent on unless this actor sent the same state on already in this level (the first time is at
   its smallest key here) or it is one of this actor's own stored states; step properties are
   checked here, on every step that changes the state, as one process checks them. Sent means
   appended to the `Batch` for the state's owner: one batch per other owner, returned as its own
   Ray object, so batches go from node to node through the object store, never through the
   driver (the batch for itself stays in the actor).
   The actor reports an `Expansion` to the driver: per parent, its successor counts by action;
   the events (deadlocks, action evaluation errors, step properties); its part of the graph.
2. merge (every actor, once the batches for it are there): for each state sent to it, the
   smallest key it was sent at (the first successor to reach it in the single-process BFS); the
   states not in its table are this level's candidates, checked in key order as one process
   checks the states it stores (constraints, reachable checks, the invariants their action may
   have broken). It reports a `Merged`: the keys, fingerprints and actions of its new states.
3. number (the driver): the level's new states in key order are numbered after the stored
   ones, as one process numbers them; each actor is sent the numbers of its own new states with
   the next expand, and stores them then.

The first event in key order is the one one process meets first, for the reasons levels.py
gives: an actor stops at its first event, and every key smaller than the first event over all
actors was sent, so a candidate's smallest key is exact wherever it matters. The driver builds
one report of the level, with the parents in index order, and resolves events, limits and the
graph with the Coordinator's own code (`_number`, `_emulate`, `_stop_at_event`,
`_add_level`): the same Result as one process, by construction and by test
(tests/test_cluster.py).

Limits. `--time-limit` and a stop request (Ctrl-C, SIGTERM) are checked by the driver every
0.1 s; `--memory-limit` by every actor, for itself, every 1024 parents, and by the driver for
itself. When one is reached in the middle of a level, the level is dropped and the run ends as
--max-depth before it would (the actors are killed, so no long step needs interrupting):
verdict incomplete, with the counts of the levels done. --max-states and --max-depth are exact,
as in one process. An actor that dies, or a node lost, ends the run with a ClusterError (exit
7), never with a verdict: a run does not resume; start it again (the levels done are redone).

Not here: exact storage and collect mode (`tlacheck verify`) run in one process.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from array import array
from dataclasses import dataclass, field, replace
from itertools import chain, repeat

from tlacheck.compile.model import Model, Recipe
from tlacheck.core.errors import ClusterError, UsageError
from tlacheck.core.result import Check, Result, Verdict
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.levels import (ACTION_FAULT, CONSTRAINT_FAULT, DEADLOCK, HALT_EVERY, INVARIANT, LIVE,
                                   ORDINAL_BITS, REACHABLE_FAULT, STEP, UNSTORED, Coordinator, WorkerError,
                                   Worker, worker_checks)
from tlacheck.engine.fingerprints import FingerprintTable, NumberTable
from tlacheck.engine.limits import resident_mb
from tlacheck.engine.liveness import Graph
from tlacheck.engine.options import Options, Storage, select, step_properties
from tlacheck.engine.search import temporal_checks
from tlacheck.engine.successors import until_fault

_WATCH_S = 0.1  # how often the driver looks at the limits while the actors work
_READY_S = 120.0  # how long the actors may take to start (a node pulling the package, say)


# -------------------------------------------------------------------- messages

@dataclass(frozen=True)
class Setup:
    """What every actor is told besides the recipe: its partition, and what the search checks."""

    index: int
    partitions: int
    options: Options  # without the stop event and the warning callback (not sent)
    symmetric: bool
    code: str = ""  # the driver's code_id(): an actor running other code refuses to start


@dataclass
class Batch:
    """The successors an actor sends one owner in one level: each state once, at the smallest key
    it had there, in key order."""

    fps: array = field(default_factory=lambda: array("q"))  # the states' keys in the seen-set
    keys: array = field(default_factory=lambda: array("q"))  # their BFS keys
    acts: array = field(default_factory=lambda: array("H"))  # the action that produced each
    states: list = field(default_factory=list)


@dataclass
class Expansion:
    """What an actor's expansion of its parents reports to the driver."""

    parents: array  # the parents it expanded, by index, increasing
    counts: array  # per parent, its successor count per action
    enabled: list[int]  # per action, the parents where it had a successor
    generated: list[int]  # per action, the successors computed
    events: list  # (key, kind, detail), levels.py's event kinds: at most one, its first
    placed: dict  # event -> where a MemoryError was placed (Worker._place)
    graph: tuple | None  # its part of the behaviour graph: (succ, enabled, take, fairness fault, steps)
    halted: str | None = None  # "memory_limit": the actor's memory passed --memory-limit (the level is dropped)
    sent: int = 0  # states it sent to other partitions (benchmarks/cluster.py)
    keying: float = 0.0  # with symmetry: the seconds its successors' orbit keys took


@dataclass
class Merged:
    """What an owner's merge reports to the driver: its new states of the level, in key order."""

    keys: array
    fps: array
    acts: array
    witnesses: dict  # reachable check -> the key of its first witness here
    faults: dict  # reachable check -> the key of its first evaluation error here
    events: list  # at most one: the first event among its candidates
    placed: dict
    values: object  # the graph's atoms of each new state (None: no graph)
    sizes: array | None = None  # with symmetry: the size of each new state's orbit


# -------------------------------------------------------------------- actor

class Partition(Worker):
    """One partition: its part of the seen-set and of the level, on a Ray actor. The methods are
    called by the driver in this order: `start`, then per level `expand` and `merge`."""

    def __init__(self, recipe: Recipe, setup: Setup):
        if setup.code and setup.code != code_id():
            raise RuntimeError("this node runs other tlacheck code than the driver: install the same tlacheck "
                               "on every node")
        model = recipe.build()
        options = setup.options
        _, always, plan = temporal_checks(model, options) if options.check_properties else ((), (), None)
        checks = worker_checks(select(model.invariants, options.invariants), always, step_properties(model, options))
        self.table = FingerprintTable()
        # (no stop flag: on a limit the driver kills the actors, so no long step needs interrupting)
        super().__init__(None, model, self.table, [0], options.check_deadlock, checks, [0] * LIVE, None,
                         setup.symmetric, plan=plan)
        self.index = setup.index
        self.partitions = setup.partitions
        self.memory_limit_mb = options.memory_limit_mb
        self.indices = array("q")  # the global index of each state of the frontier
        self.new_fps = array("q")  # the last merge's new states, to store once numbered
        self.own: Batch | None = None  # the last expansion's batch for this partition itself
        self.new_states: list[tuple] = []

    def hello(self) -> tuple:
        """(the actor's process id, its node's IP address), once it is up."""
        import ray

        return os.getpid(), ray.util.get_node_ip_address()

    def start(self, states: list, fps: array, indices: array) -> None:
        """Hold the initial states this partition owns, and store their keys."""
        self._admit(fps)
        self.frontier = list(map(self.model.canonical_keys, states))
        self.frontier_fps = list(fps)
        self.indices = indices

    def _admit(self, fps) -> None:
        """Store keys known to be absent and distinct, growing the table first if need be."""
        if not self.table.room(len(fps)):
            self.table = self.table.grown(self.table.count + len(fps))
        self.table.insert(fps)

    def expand(self, numbering: array | None, pending: tuple) -> tuple:
        """Store the last merge's new states with their numbers (None: hold the initial states),
        then expand the frontier: (Expansion, one Batch per owner)."""
        if numbering is not None:
            self._admit(self.new_fps)
            self.frontier, self.new_states = self.new_states, []
            self.frontier_fps, self.new_fps = list(self.new_fps), array("q")
            self.indices = numbering
        self.pending = pending
        try:
            expansion, batches = self._expand_level()
        finally:
            self.frontier, self.frontier_fps = [], []
        return (expansion, *batches)

    def _expand_level(self) -> tuple[Expansion, list[Batch]]:
        n, me = self.partitions, self.index
        table, mask = self.table.table, self.table.mask
        batches = [Batch() for _ in range(n)]
        sent = set()  # the keys of the states sent on (or found stored here) in this level
        a_count = len(self.plan)
        parents = array("q")
        counts = array("I")
        enabled = [0] * a_count
        generated = [0] * a_count
        events: list = []
        placed: dict = {}
        event = None
        check_deadlock = self.check_deadlock
        stepping = bool(self.step_checks)
        fingerprint = self.fingerprint
        key = self.key or fingerprint
        memos, entries, raw_of = fingerprint.memos, fingerprint.entries, fingerprint.raw
        keying = self.keying[0]
        graph, fair = self.graph, None
        if graph is not None:
            gsucc, fair = graph.succ, self.fair
            gsteps, step_bits = graph.steps, graph.plan.step_bits if graph.plan.step_atoms else None
            by_args = fair.by_args if fair is not None else ()
            held = self.args
            transitions = []
        for count, (state, pfp, g) in enumerate(zip(self.frontier, self.frontier_fps, self.indices)):
            if not count & HALT_EVERY and self.memory_limit_mb is not None:
                if (resident_mb() or 0) > self.memory_limit_mb:
                    return Expansion(parents, counts, enabled, generated, [], {}, None, "memory_limit"), batches
            base = g << ORDINAL_BITS
            k = base - 1  # the key of the successor
            parents.append(g)
            raw = pfp if pfp != 1 else raw_of(state)
            for ai, nexts, act, _, _ in self.plan:
                fault = None
                try:
                    succs, fps_of = nexts(state, raw, memos, entries)
                except EVAL_FAILURES as first:
                    succs, fps_of, fault = until_fault(act, state, first, key)
                if graph is not None:
                    gsucc.extend(fps_of)
                    if step_bits is not None:
                        gsteps.extend(map(step_bits, repeat(state, len(succs)), succs))
                    if fair is not None:
                        transitions.append((ai, held[0] if ai in by_args else None, fps_of))
                for succ, fp in zip(succs, fps_of):
                    k += 1
                    if fp not in sent:
                        sent.add(fp)
                        owner = fp % n
                        if owner == me:  # stored here already?
                            j = fp & mask
                            x = table[j]
                            while x and x != fp:
                                j = (j + 1) & mask
                                x = table[j]
                        if owner != me or not x:
                            batch = batches[owner]
                            batch.fps.append(fp)
                            batch.keys.append(k)
                            batch.acts.append(ai)
                            batch.states.append(succ)
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
                events.append((base, DEADLOCK, None))
                break
        part = None
        if graph is not None:
            part = (graph.succ, graph.enabled, graph.take, graph.fairness_fault, graph.steps)
            self.graph = Graph(graph.plan, succ=array("q"))
        sent = sum(len(b.fps) for p, b in enumerate(batches) if p != me)
        self.own, batches[me] = batches[me], None  # its own batch stays here: merge takes it from self.own
        return Expansion(parents, counts, enabled, generated, events, placed, part, sent=sent,
                         keying=self.keying[0] - keying), batches

    def merge(self, *batches: Batch) -> Merged:
        """This level's new states among those sent here: each at its smallest key, those not stored
        here, checked in key order as one process checks the states it stores."""
        table, mask = self.table.table, self.table.mask
        batches = list(batches)
        me = self.index
        batches[me], self.own = self.own, None
        # state key -> (its smallest BFS key, batch, position): each batch added at once, then the
        # states also in an earlier batch given back the smaller key (a few: most are found by one actor)
        first: dict[int, tuple[int, int, int]] = {}
        for b, batch in enumerate(batches):
            entries = zip(batch.keys, repeat(b), range(len(batch.fps)))
            both = first.keys() & batch.fps if first else ()
            earlier = [(fp, first[fp]) for fp in both]
            first.update(zip(batch.fps, entries))
            for fp, entry in earlier:
                if entry[0] < first[fp][0]:
                    first[fp] = entry
        constraints = self.model.constraints
        reach = [(name, pred) for name, pred in self.model.reachables if name in self.pending]
        canonical = self.model.canonical_keys
        pools = self.pools.pools
        graph = self.graph
        bits = graph.plan.bits if graph is not None else None
        values = graph.values if graph is not None else None
        keys, fps, acts, states = array("q"), array("q"), array("H"), []
        sizes = array("q") if self.sized is not None else None
        witnesses: dict[str, int] = {}
        faults: dict[str, int] = {}
        events: list = []
        placed: dict = {}
        for k, b, i in sorted(first.values()):  # in key order (keys are distinct)
            batch = batches[b]
            fp = batch.fps[i]
            if b != me:  # (its own batch holds none of its stored states: the expansion looked)
                j = fp & mask
                x = table[j]
                while x and x != fp:
                    j = (j + 1) & mask
                    x = table[j]
                if x:  # stored in an earlier level
                    continue
            ai = batch.acts[i]
            succ = batch.states[i] if b == me else canonical(batch.states[i])  # (unpickled: its maps' keys interned)
            _, _, _, invs, interned = self.plan[ai]
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
                    events.append(event)
                    break
                if not ok:  # not stored, but checked as one process checks it
                    if invs and self._fails(invs, succ, (k, INVARIANT, UNSTORED), placed):
                        events.append((k, INVARIANT, UNSTORED))
                        break
                    continue
            if interned:
                succ = list(succ)
                for q in interned:
                    v = succ[q]
                    succ[q] = pools[q].setdefault(v, v)
                succ = tuple(succ)
            keys.append(k)
            fps.append(fp)
            acts.append(ai)
            states.append(succ)
            if sizes is not None:
                sizes.append(self.model.symmetry.orbit_size(succ, self.fingerprint))
            if bits is not None:
                values.append(bits(succ))
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
                if resolved:
                    reach = [(n, p) for n, p in reach if n not in witnesses and n not in faults]
            if invs and self._fails(invs, succ, (k, INVARIANT, None), placed):
                events.append((k, INVARIANT, None))
                break
        self.stored += len(fps)
        if self.pools.review(self.stored):
            self._replan()
        self.new_fps, self.new_states = fps, states
        if graph is not None:
            self.graph = Graph(graph.plan, succ=array("q"))
        return Merged(keys, fps, acts, witnesses, faults, events, placed, values, sizes)


# -------------------------------------------------------------------- driver

def connect(address: str | None, actors: int | None) -> tuple[object, bool, int]:
    """Ray, initialised: a local instance (`address` None) or the cluster at `address`; whether
    this call started it (then the caller shuts it down), and the number of actors (`actors`, or
    one per CPU of the cluster)."""
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs Ray, which is not installed",
                         "install the extra: pip install 'tlacheck[ray]'") from None
    started = False
    if address is not None and not ray.is_initialized():
        _reachable(address)
    if not ray.is_initialized():
        # Ray's core worker takes SIGTERM (and may take SIGINT) for itself: the command line's
        # handlers (a clean stop with the counts so far) are put back once it is up
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        kwargs = dict(include_dashboard=False, logging_level="ERROR", log_to_driver=False,
                      configure_logging=False)
        # (a local instance starts with token authentication on, and says so: not news to our users)
        quiet = logging.getLogger("ray._private.authentication.authentication_token_setup")
        level = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            if address is None:
                ray.init(num_cpus=max(actors or 0, os.cpu_count() or 1), **kwargs)
            else:
                ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = "start a local Ray instance" if address is None else f"join the Ray cluster at {address}"
            hint = "is the cluster running (`ray start --head`), and is the address right?"
            if address not in (None, "auto") and os.environ.get("RAY_AUTH_MODE", "").lower() != "token":
                hint += (" A cluster started by `ray start` may ask for token authentication: set RAY_AUTH_MODE=token "
                         "(the token: `ray get-auth-token`), or run with --ray auto on one of its nodes")
            raise ClusterError(f"cannot {where}: {_first_line(exc)}", hint) from None
        finally:
            quiet.setLevel(level)
        started = True
        if threading.current_thread() is threading.main_thread():
            for sig, handler in handlers.items():
                if handler is not None:
                    signal.signal(sig, handler)
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if actors is None:
        actors = max(cpus, 1)
    return ray, started, actors


def code_id() -> str:
    """A digest of tlacheck's own code (its .py and .lark files): the actors and the driver must
    run the same code, not only the same version number, for their fingerprints and messages to agree."""
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(digest_size=12)
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".lark")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _reachable(address: str) -> None:
    """A ClusterError at once if nothing listens at `address` (host:port): ray.init would retry
    for minutes. Other forms (`auto`, ray://...) are left to Ray."""
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or "/" in address:
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise ClusterError(f"cannot join the Ray cluster at {address}: {exc.strerror or exc}",
                           "start it with `ray start --head` (it prints the address to join), "
                           "or drop the address to start a local one") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class ClusterSearch(Coordinator):
    """The driver of a search on Ray actors (this module's docstring): the Coordinator's store,
    events, limits and graph, fed by the actors' expansions and merges, one level at a time."""

    def __init__(self, model: Model, options: Options, progress, progress_every: float, ray, actors: int):
        super().__init__(model, options, progress, progress_every, workers=1)
        if model.recipe is None:
            raise UsageError("--ray needs a spec read from a file (the actors build the model from its text)")
        self.ray = ray
        self.n = actors
        self.actors: list = []
        self.pids: list = []
        self.queue = 0  # states in the level being expanded (progress lines)
        # Where the time went, and what crossed partitions (benchmarks/cluster.py): seconds waiting
        # for the actors' expansions and merges, seconds of the driver's own work per level, levels,
        # states sent from one partition to another
        self.timing = {"actors_s": 0.0, "driver_s": 0.0, "levels": 0, "sent": 0}

    def _run(self) -> Result:
        try:
            initial, initial_fps = self._initial_states()
            self.numbers = NumberTable(self.fps) if self.graph is not None else None
            if not initial:
                return self._finish()
            self.next_report = time.perf_counter() + self.progress_every
            if not self._start(initial, initial_fps):  # a limit reached while the actors start
                self.expanded = 0
                return self._result(Verdict.INCOMPLETE, stop_reason=self.halted, queue_left=self.distinct)
            return self._cluster_levels()
        finally:
            self._stop_actors()
            if self.table is not None:  # (the driver's holds the initial states only)
                self.table.close()
                self.table = None

    def _start(self, initial: list, initial_fps: list) -> bool:
        """Start the actors and give each its initial states; False if a limit came first."""
        ray, n = self.ray, self.n
        # num_cpus=0: as many actors as asked whatever the CPUs Ray counts, spread over the nodes;
        # never restarted (a new actor would have lost its part of the seen-set)
        remote = ray.remote(num_cpus=0, max_restarts=0)(Partition)
        sent = replace(self.options, stop=None, warn=None)
        code = code_id()
        self.actors = [remote.options(scheduling_strategy="SPREAD").remote(
            self.model.recipe, Setup(p, n, sent, self.symmetric, code)) for p in range(n)]
        hellos = self._get([a.hello.remote() for a in self.actors], _READY_S, "start")
        if hellos is None:
            return False
        self.pids = hellos  # (another version or other code on a node: its actor refused to start, code_id)
        owned: list = [([], array("q"), array("q")) for _ in range(n)]
        for i, (state, fp) in enumerate(zip(initial, initial_fps)):
            states, fps, indices = owned[fp % n]
            states.append(state)
            fps.append(fp)
            indices.append(i)
        return self._get([a.start.remote(*owned[p]) for p, a in enumerate(self.actors)], None, "start") is not None

    def _stop_actors(self) -> None:
        for a in self.actors:
            try:
                self.ray.kill(a)
            except Exception:  # already gone
                pass
        self.actors = []

    def _get(self, refs: list, timeout: float | None, doing: str) -> list:
        """The values of `refs`, watching the limits every 0.1 s (a limit reached: self.halted set,
        and None returned); an actor lost or failed is a ClusterError or a WorkerError."""
        ray = self.ray
        deadline = None if timeout is None else time.perf_counter() + timeout
        waiting = list(refs)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=len(waiting), timeout=_WATCH_S)
            now = time.perf_counter()
            if waiting:
                if self.halted is None:
                    self.halted = self._limit(now)
                if self.halted is not None:
                    return None
                if deadline is not None and now > deadline:
                    raise ClusterError(f"the {self.n} partition actors did not {doing} within {timeout:.0f} s",
                                       "does the cluster have room for them (`ray status`)?")
                self._report(self.queue)
        try:
            return ray.get(refs)
        except ray.exceptions.RayActorError as exc:
            text = str(exc)
            if "creation task" in text:  # its __init__ failed: the model, or other code on its node
                last = [line for line in text.splitlines() if line.strip()][-1].strip()
                raise ClusterError(f"a partition actor could not start: {last}",
                                   "install the same tlacheck, with the ray extra, on every node") from None
            raise ClusterError(f"a partition actor died ({self._which(exc)}): the search is incomplete",
                               "nothing was concluded; run the check again (a run does not resume)") from None
        except ray.exceptions.RayTaskError as exc:
            cause = exc.cause if isinstance(getattr(exc, "cause", None), BaseException) else None
            if isinstance(cause, MemoryError):
                raise MemoryError("a partition actor") from None
            raise WorkerError(f"a partition actor failed: {_first_line(cause or exc)}", str(exc)) from None
        except ray.exceptions.RayError as exc:
            raise ClusterError(f"the Ray cluster failed: {_first_line(exc)}",
                               "nothing was concluded; run the check again (a run does not resume)") from None

    def _which(self, exc) -> str:
        text = str(exc)
        for p, (pid, node) in enumerate(self.pids):
            if str(pid) in text:
                return f"partition {p + 1} of {self.n}, process {pid} on {node}"
        return _first_line(exc)

    def _memory_mb(self) -> float | None:
        return resident_mb()  # the driver's: each actor watches its own (--memory-limit is per process)

    def _cluster_levels(self) -> Result:
        opts = self.options
        n = self.n
        level = 1
        start, end = 0, self.distinct
        numbering: list = [None] * n
        while True:
            now = time.perf_counter()
            reason = self.halted or ("max_depth" if opts.max_depth is not None and level >= opts.max_depth
                                     else self._limit(now))
            self.watch.check(now - self.start, end, start, end - start)
            if reason is not None:
                self.expanded = start
                return self._result(Verdict.INCOMPLETE, stop_reason=reason, queue_left=end - start)
            pending = tuple(name for name, _ in self.reachables if name not in self.witnesses)
            self.queue = end - start
            outs = [a.expand.options(num_returns=n + 1).remote(numbering[p], pending)
                    for p, a in enumerate(self.actors)]
            merges = [a.merge.remote(*(outs[q][p + 1] for q in range(n))) for p, a in enumerate(self.actors)]
            waited = time.perf_counter()
            expansions = self._get([o[0] for o in outs], None, "expand")
            merged = None if expansions is None else self._get(merges, None, "merge")
            settling = time.perf_counter()
            self.timing["actors_s"] += settling - waited
            self.timing["levels"] += 1
            if expansions is not None:
                self.timing["sent"] += sum(e.sent for e in expansions)
            if merged is not None and any(e.halted for e in expansions):
                self.halted = next(e.halted for e in expansions if e.halted)
                merged = None
            if merged is None:  # a limit: the level is dropped
                self.expanded = start
                return self._result(Verdict.INCOMPLETE, stop_reason=self.halted, queue_left=end - start)
            settled, numbering = self._settle_level(expansions, merged, start)
            self._link(settled)
            self.expanded = start
            stop = self._number(settled, level)
            self.timing["driver_s"] += time.perf_counter() - settling
            if stop is not None:
                return stop
            total = len(settled["all_keys"])
            if not total:
                self.expanded = self.distinct
                return self._finish()
            start, end = end, end + total
            self.expanded = start
            level += 1
            self._report(end - start)

    def _settle_level(self, expansions: list[Expansion], merged: list[Merged], start: int) -> tuple[dict, list]:
        """The level as one report in single-process order (the Coordinator's `settled` form), and
        the numbers of each owner's new states."""
        base = self.distinct
        cat_keys = array("q", chain.from_iterable(m.keys for m in merged))
        order = sorted(range(len(cat_keys)), key=cat_keys.__getitem__)
        all_keys = array("q", map(cat_keys.__getitem__, order))
        cat_fps = array("q", chain.from_iterable(m.fps for m in merged))
        cat_acts = array("H", chain.from_iterable(m.acts for m in merged))
        rank = array("q", bytes(8 * len(order)))
        for position, j in enumerate(order):
            rank[j] = base + position
        numbering, offset = [], 0
        for m in merged:
            numbering.append(rank[offset:offset + len(m.keys)])
            offset += len(m.keys)
        a_count = len(self.coverage)
        distinct = [0] * a_count
        for ai in cat_acts:
            distinct[ai] += 1
        # the parents in index order, with their rows of counts
        where = sorted((g, e, i) for e, x in enumerate(expansions) for i, g in enumerate(x.parents))
        parents = array("q", (g for g, _, _ in where))
        counts = array("I")
        for _, e, i in where:
            counts.extend(expansions[e].counts[i * a_count:(i + 1) * a_count])
        witnesses: dict = {}
        faults: dict = {}
        for m in merged:
            for mine, theirs in ((witnesses, m.witnesses), (faults, m.faults)):
                for name, k in theirs.items():
                    mine[name] = min(k, mine.get(name, k))
        events = [x for e in chain(expansions, merged) for x in e.events]
        placed = {x: y for e in chain(expansions, merged) for x, y in e.placed.items()}
        graph = None
        if self.graph is not None:
            graph = self._graph_part(expansions, merged, where, order)
        report = {"keys": all_keys, "acts": array("H", map(cat_acts.__getitem__, order)), "distinct": distinct,
                  "parents": parents, "counts": counts,
                  "enabled": [sum(e.enabled[ai] for e in expansions) for ai in range(a_count)],
                  "generated": [sum(e.generated[ai] for e in expansions) for ai in range(a_count)],
                  "witnesses": witnesses, "faults": faults, "events": events, "placed": placed, "collected": (),
                  "graph": graph, "mask": None, "keying": sum(e.keying for e in expansions),
                  "sizes": None}
        if self.symmetric:  # the new states' orbit sizes, in the order of their keys
            cat_sizes = array("q", chain.from_iterable(m.sizes for m in merged))
            report["sizes"] = array("q", map(cat_sizes.__getitem__, order))
        settled = {"all_keys": all_keys, "all_fps": array("q", map(cat_fps.__getitem__, order)), "reports": [report],
                   "base": base, "start": start}
        return settled, numbering

    def _graph_part(self, expansions: list[Expansion], merged: list[Merged], where: list, order: list) -> tuple:
        """The level's part of the behaviour graph in single-process order: the actors' transitions
        by parent index, the owners' new states by number (the Coordinator's part form)."""
        a_count = len(self.coverage)
        part = Graph(self.graph.plan, succ=array("q"))
        offsets = []  # per expansion, the first transition of each of its parents
        for x in expansions:
            starts, edge = [], 0
            for i in range(len(x.parents)):
                starts.append(edge)
                edge += sum(x.counts[i * a_count:(i + 1) * a_count])
            starts.append(edge)
            offsets.append(starts)
        fault = -1
        for x in expansions:
            if x.graph[3] >= 0 and (fault < 0 or x.graph[3] < fault):
                fault = x.graph[3]
        for _, e, i in where:
            succ, enabled, take, _, steps = expansions[e].graph
            a, b = offsets[e][i], offsets[e][i + 1]
            part.succ.extend(succ[a:b])
            if len(take):
                part.take.extend(take[a:b])
            if len(steps):
                part.steps.extend(steps[a:b])
            if len(enabled):
                part.enabled.append(enabled[i])
        cat_values = list(chain.from_iterable(m.values for m in merged))
        part.values.extend(map(cat_values.__getitem__, order))
        return part.succ, part.values, part.enabled, part.take, fault, part.steps


def explore_on_ray(model: Model, options: Options, progress, progress_every: float, address: str | None,
                   actors: int | None) -> Result:
    """The search of explore(), on Ray actors: the same Result (this module's docstring).

    Meanwhile standard output is standard error: Ray's driver prints the cluster's own error
    reports (a worker died, a node is short of memory) on standard output, where the report and
    the JSON go; they are diagnostics. The local instance it started is shut down after."""
    if options.storage != Storage.FINGERPRINT or options.collect:
        raise UsageError("--ray stores fingerprints: --storage exact runs in one process, as `tlacheck verify` does",
                         "drop --storage exact, or --ray")
    with contextlib.redirect_stdout(sys.stderr):
        ray, started, actors = connect(address, actors)
        try:
            return ClusterSearch(model, options, progress, progress_every, ray, actors).run()
        finally:
            if started:
                ray.shutdown()
