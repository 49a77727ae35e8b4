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
   appended to the `Batch` (messages.py) for the state's owner: one batch per other owner, returned as its own
   Ray object, so batches go from node to node through the object store, never through the
   driver (the batch for itself stays in the actor).
   The actor reports an `Expansion` to the driver: per parent, its successor counts by action;
   the events (deadlocks, action evaluation errors, step properties); its part of the graph.
2. merge (every actor, once the batches for it are there): for each state sent to it, the
   smallest key it was sent at (the first successor to reach it in the single-process BFS); the
   states not in its table are this level's candidates, admitted in key order by the admission
   sequence every worker runs (admission.py: constraints, the store, reachable checks, the
   invariants their action may have broken). It reports what it admitted (`Admitted`, as every
   worker does): the keys, fingerprints and actions of its new states, and the events among them.
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
from dataclasses import replace
from itertools import chain, repeat

from tlacheck.compile.model import Model
from tlacheck.core.errors import ClusterError, UsageError
from tlacheck.core.result import Result, Verdict
from tlacheck.engine.admission import Checks, Failure, failure_event
from tlacheck.engine.fingerprints import FingerprintTable
from tlacheck.engine.levels import Coordinator, Settled, WorkerError
from tlacheck.engine.messages import Admitted, Batch, Expansion, Setup
from tlacheck.engine.limits import resident_mb
from tlacheck.engine.liveness import Graph, Transitions
from tlacheck.engine.options import Options, Storage, select, step_properties
from tlacheck.engine.search import temporal_checks
from tlacheck.engine.worker import LIVE, Worker
from tlacheck.pipeline.driver import Recipe

_WATCH_S = 0.1  # how often the driver looks at the limits while the actors work
_READY_S = 120.0  # how long the actors may take to start (a node pulling the package, say)


# -------------------------------------------------------------------- actor

class Partition(Worker):
    """One partition: its part of the seen-set and of the level, on a Ray actor. The methods are
    called by the driver in this order: `start`, then per level `expand` and `merge`. It expands
    as every worker does (worker.py), but a successor not seen before goes into the batch for its
    owner (`_route`) rather than to the admission sequence, which the owner runs (`merge`)."""

    def __init__(self, recipe: Recipe, setup: Setup):
        if setup.code and setup.code != code_id():
            raise RuntimeError("this node runs other tlacheck code than the driver: install the same tlacheck "
                               "on every node")
        model = recipe.build()
        options = setup.options
        model.caching(options.cache)
        _, always, plan = temporal_checks(model, options) if options.check_properties else ((), (), None)
        checks = Checks(model, select(model.invariants, options.invariants), always,
                        steps=step_properties(model, options))
        # (no stop flag: on a limit the driver kills the actors, so no long step needs interrupting;
        # the flag is the actor's own memory limit, looked at every 1024 parents)
        super().__init__(None, model, FingerprintTable(), [None], options.check_deadlock, checks, [0] * LIVE,
                         self._watch_memory, setup.symmetric, plan=plan)
        self.index = setup.index
        self.partitions = setup.partitions
        self.memory_limit_mb = options.memory_limit_mb
        self.offer = self._route
        self.indices = array("q")  # the global index of each state of the frontier
        self.new_fps = array("q")  # the last merge's new states, to store once numbered
        self.new_states = self.queue()
        self.batches: list = []  # the level's batch for each owner
        self.own: Batch | None = None  # the last expansion's batch for this partition itself

    def hello(self) -> tuple:
        """(the actor's process id, its node's IP address), once it is up."""
        import ray

        return os.getpid(), ray.util.get_node_ip_address()

    def start(self, states: list, fps: array, indices: array) -> None:
        """Hold the initial states this partition owns, and store their keys."""
        self._admit_keys(fps)
        self.frontier = self.queue(map(self.model.canonical_keys, states))
        self.frontier_fps = array("q", fps)
        self.indices = indices

    def _admit_keys(self, fps) -> None:
        """Store keys known to be absent and distinct, growing the table first if need be."""
        if not self.table.room(len(fps)):
            self.table = self.table.grown(self.table.count + len(fps))
        self.table.insert(fps)

    def _watch_memory(self, expanded: int, found: int, generated: int) -> None:
        if self.memory_limit_mb is not None and (resident_mb() or 0) > self.memory_limit_mb:
            self.halt[0] = "memory_limit"

    def expand(self, numbering: array | None, pending: tuple) -> tuple:
        """Store the last merge's new states with their numbers (None: hold the initial states),
        then expand the frontier: (Expansion, one Batch per owner: None for itself)."""
        if numbering is not None:
            self._admit_keys(self.new_fps)
            self.frontier, self.new_states = self.new_states, self.queue()
            self.frontier_fps, self.new_fps = self.new_fps, array("q")
            self.indices = numbering
        self.pending = pending
        sized = self.sized is not None
        self.batches = [Batch(sizes=array("q") if sized else None) for _ in range(self.partitions)]
        try:
            expansion, _ = self._expand()
        finally:
            self.frontier, self.frontier_fps = self.queue(), array("q")
        expansion.cache = self.model.cache_counts()
        if expansion.halted:
            self.batches = [Batch() for _ in range(self.partitions)]
        me = self.index
        expansion.sent = sum(len(b.fps) for p, b in enumerate(self.batches) if p != me)
        self.own, self.batches[me] = self.batches[me], None  # it stays here: merge takes it from self.own
        return (expansion, *self.batches)

    def _level(self) -> tuple:
        frontier, frontier_fps, _ = super()._level()
        return frontier, frontier_fps, iter(self.indices)

    def _route(self, k: int, ai: int, succ: tuple, fp: int, size: int) -> None:
        """A successor not seen here: into the batch for its owner (fingerprint modulo partitions)."""
        self.batches[fp % self.partitions].add(k, ai, succ, fp, size)

    def _expanded(self, parents, counts, enabled, generated, events, placed, spent: float) -> tuple:
        graph = self.recorder.transitions() if self.recorder is not None else None
        return Expansion(parents, counts, enabled, generated, events, placed, graph,
                         keying=self.keying[0] - spent), None

    def merge(self, *batches: Batch) -> Admitted:
        """This level's new states among those sent here: each at its smallest key, those not stored
        here, admitted in key order (admission.py) as one process admits them."""
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
        admission = self.admission
        admission.begin(self.pending)
        canonical = self.model.canonical_keys
        events, placed = [], {}
        try:
            for k, b, i in sorted(first.values()):  # in key order (keys are distinct)
                batch = batches[b]
                fp = batch.fps[i]
                if b != me and fp in self.table:  # (its own batch holds none of its stored states)
                    continue
                succ = batch.states[i] if b == me else canonical(batch.states[i])  # (unpickled: its maps' keys interned)
                admission.admit(k, batch.acts[i], succ, fp, batch.sizes[i] if batch.sizes is not None else 0)
        except Failure as failure:
            events.append(failure_event(self.model, failure, k, placed))
        self.stored += len(admission.kept.fps)
        if self.pools.review(self.stored):
            admission.replan()
        self.new_fps, self.new_states = admission.kept.fps, admission.kept.states
        self.new_states.seal()
        return admission.admitted(events, placed, [])


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
        self.numbering: list = [None] * actors  # per actor, the numbers of its new states of the last level
        self.expanding: list = []  # the level's expansions and merges, on their way
        self.merging: list = []

    def _processes(self) -> int:
        return self.n

    def _search(self, initial: list, initial_fps: list) -> Result:
        """Start the actors with the initial states, and search level by level (levels.Coordinator)."""
        self.next_report = time.perf_counter() + self.progress_every
        if not self._start(initial, initial_fps):  # a limit reached while the actors start
            self.expanded = 0
            return self._result(Verdict.INCOMPLETE, stop_reason=self.halted, queue_left=self.distinct)
        return self._levels()

    def _shutdown(self) -> None:
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

    def _dispatch(self, settled: Settled | None) -> None:
        """Ask every actor to expand the states it holds (numbered: the last level's numbering), then
        to merge the batches sent to it; the driver collects both (_collect)."""
        n = self.n
        pending = self._pending(settled)
        outs = [a.expand.options(num_returns=n + 1).remote(self.numbering[p], pending)
                for p, a in enumerate(self.actors)]
        self.expanding = [o[0] for o in outs]
        self.merging = [a.merge.remote(*(outs[q][p + 1] for q in range(n))) for p, a in enumerate(self.actors)]

    def _collect(self, queue: int) -> list | None:
        """The actors' expansions and merges, as one part (_settle); None if a limit dropped the level."""
        self.queue = queue
        waited = time.perf_counter()
        expansions = self._get(self.expanding, None, "expand")
        merged = None if expansions is None else self._get(self.merging, None, "merge")
        self.timing["actors_s"] += time.perf_counter() - waited
        self.timing["levels"] += 1
        if expansions is not None:
            self.timing["sent"] += sum(e.sent for e in expansions)
            self.worker_caches = [e.cache for e in expansions]  # (the actors' transition caches, summed)
        if merged is not None and any(e.halted for e in expansions):
            self.halted = next(e.halted for e in expansions if e.halted)
            merged = None
        return None if merged is None else [(expansions, merged)]

    def _settle(self, parts: list, start: int) -> Settled:
        started = time.perf_counter()
        (expansions, merged), = parts
        part, self.numbering = self._settle_level(expansions, merged)
        settled = self._settled([part], [None], len(part[1].keys), start)
        self.timing["driver_s"] += time.perf_counter() - started
        return settled

    def _number(self, settled: Settled, level: int) -> Result | None:
        started = time.perf_counter()
        try:
            return super()._number(settled, level)
        finally:
            self.timing["driver_s"] += time.perf_counter() - started

    def _settle_level(self, expansions: list[Expansion], merged: list[Admitted]) -> tuple[tuple, list]:
        """The level as one part in single-process order (Expansion, Admitted: the parents in index
        order, the new states in key order), and the numbers of each owner's new states."""
        base = self.distinct
        cat_keys = array("q", chain.from_iterable(m.keys for m in merged))
        order = sorted(range(len(cat_keys)), key=cat_keys.__getitem__)
        keys = array("q", map(cat_keys.__getitem__, order))
        rank = array("q", bytes(8 * len(order)))
        for position, j in enumerate(order):
            rank[j] = base + position
        numbering, offset = [], 0
        for m in merged:
            numbering.append(rank[offset:offset + len(m.keys)])
            offset += len(m.keys)

        def ordered(code: str, parts) -> array:
            cat = array(code, chain.from_iterable(parts))
            return array(code, map(cat.__getitem__, order))

        a_count = len(self.coverage)
        # the parents in index order, with their rows of counts
        where = sorted((g, e, i) for e, x in enumerate(expansions) for i, g in enumerate(x.parents))
        counts = array("I")
        for _, e, i in where:
            counts.extend(expansions[e].counts[i * a_count:(i + 1) * a_count])
        witnesses: dict = {}
        faults: dict = {}
        for m in merged:
            for mine, theirs in ((witnesses, m.witnesses), (faults, m.faults)):
                for name, k in theirs.items():
                    mine[name] = min(k, mine.get(name, k))
        expansion = Expansion(array("q", (g for g, _, _ in where)), counts,
                              [sum(x.enabled[ai] for x in expansions) for ai in range(a_count)],
                              [sum(x.generated[ai] for x in expansions) for ai in range(a_count)],
                              [e for x in expansions for e in x.events],
                              {e: y for x in expansions for e, y in x.placed.items()},
                              self._transitions(expansions, where) if self.graph is not None else None,
                              keying=sum(x.keying for x in expansions))
        acts = ordered("H", (m.acts for m in merged))
        values = None
        if self.graph is not None:
            cat_values = list(chain.from_iterable(m.values for m in merged))
            values = list(map(cat_values.__getitem__, order))
        admitted = Admitted(keys, ordered("q", (m.fps for m in merged)), acts, witnesses, faults,
                            [e for m in merged for e in m.events], {e: y for m in merged for e, y in m.placed.items()},
                            values, ordered("q", (m.sizes for m in merged)) if self.symmetric else None)
        return (expansion, admitted), numbering

    def _transitions(self, expansions: list[Expansion], where: list) -> Transitions:
        """The level's transitions of the behaviour graph in single-process order: the actors'
        transitions by parent index (the Coordinator's Transitions)."""
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
        faults = [x.graph.fault for x in expansions if x.graph.fault >= 0]
        for _, e, i in where:
            t = expansions[e].graph
            a, b = offsets[e][i], offsets[e][i + 1]
            part.succ.extend(t.succ[a:b])
            if len(t.take):
                part.take.extend(t.take[a:b])
            if len(t.steps):
                part.steps.extend(t.steps[a:b])
            if len(t.enabled):
                part.enabled.append(t.enabled[i])
        return Transitions(part.succ, part.enabled, part.take, min(faults, default=-1), part.steps)


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
