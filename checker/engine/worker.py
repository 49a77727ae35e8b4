"""The worker of the search: it expands its part of a level (levels.py), in this process, in a forked
one, or as a Ray partition (cluster.py, a subclass).

For each parent it holds, in global order, it computes every action's successors (in canonical
order, each with its key in the seen-set: its fingerprint, computed by the generated successor
function from its parent's, its orbit's under symmetry, or its id on exact storage), and hands
each successor not seen before to its `offer`: the admission sequence (admission.py), or, for a
Ray partition, the batch for the successor's owner. A successor is seen before when it is in the
table (the states of the earlier levels) or among this level's candidates (with forked workers,
`recent`, a set: the table is the coordinator's to write; the in-process worker puts its candidates
into the table itself, `direct`, and the set stays empty), or, with
--memory-budget, in the table's part spilled to disk (fingerprints.SortedRun; a forked worker gets
it with Go, as it gets a grown table).
Every step that changes the state is then checked against the step properties. The behaviour
graph is recorded by a liveness.Recorder, which the admission sequence also calls.

What it reports is messages.py's: per parent, its successor counts per action (the coordinator
derives every count from them), the first event in key order (a check, an action's evaluation
error, a deadlock: it stops there), and the states it admitted.
"""

from __future__ import annotations

import gc
import mmap
import pickle
import time
import traceback
from array import array
from itertools import compress, repeat
from multiprocessing import reduction
from operator import itemgetter
from typing import Callable

from tlacheck.compile.model import Model
from tlacheck.core.result import Check
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.admission import Admission, Checks, Failure, failure_event, placement
from tlacheck.engine.fingerprints import Fingerprinter, FingerprintTable, SortedRun
from tlacheck.engine.liveness import Recorder
from tlacheck.engine.messages import (Admitted, Copy, Event, EventKind, Expansion, Failed, Go, Holding, Incoming,
                                      Init, LookedUp, Lookup, Moved, Own, Step, Stepped, Stop, halted)
from tlacheck.engine.pools import ValuePools
from tlacheck.engine.statequeue import Spill, StateQueue
from tlacheck.engine.stores import ExactStore
from tlacheck.engine.successors import until_fault
from tlacheck.engine.watchdog import StepInterrupted, Watchdog


ORDINAL_BITS = 32
ORDINAL_MASK = (1 << ORDINAL_BITS) - 1
HALT_EVERY = 0x3FF  # workers look at the stop flag before each state whose index & this is 0
LIVE = 4  # shared counters per worker: the step, then states expanded, candidates, successors generated
_first, _second = itemgetter(0), itemgetter(1)  # a successor's arguments and state, of an (arguments, state) pair


class Worker:
    """Expands its part of each level. A forked worker serves the coordinator's messages (`serve`);
    the in-process one (`conn` None) is called directly (`take`, then `go`) and calls `tick` every
    1024 states it expands. `halt`: the stop flag (true: drop the level). `checks`: what it checks
    (admission.Checks; the in-process worker shares the coordinator's, which collect mode needs);
    `plan`: the behaviour graph's (liveness.Plan), to record it."""

    def __init__(self, conn, model: Model, table: FingerprintTable, halt, check_deadlock: bool, checks: Checks,
                 live, tick: Callable[[int, int, int], None] | None = None, symmetric: bool = False,
                 exact: ExactStore | None = None, plan=None, budget: int | None = None, spill: str | None = None):
        self.conn = conn
        self.live = live  # its shared counters: step, expanded, candidates, generated in this expansion
        self.tick = tick
        self.step = 0  # the number of the step it is in (the coordinator's count)
        self.model = model
        self.table = table
        self.halt = halt
        self.check_deadlock = check_deadlock
        self.checks = checks
        self.exact = exact is not None  # the stored states are kept: no pools, no clearing
        # The candidates share equal values, as one process's queue does (pools.ValuePools): only the
        # values an action writes go through the pools, since the others are its parent's.
        self.pools = None if self.exact else ValuePools(model)
        self.stored = 0  # candidates so far, for the pools' review
        self.fingerprint = Fingerprinter(model.var_types)
        # The key of a successor: its fingerprint (computed from its parent's by the successor
        # functions), or, with symmetry, its orbit's (compile/symmetry.py), or on exact storage its
        # id in the store (`id_draw` gives those of a list of states)
        self.key = exact.id_of() if exact else model.symmetry.key(self.fingerprint) if symmetric else None
        # With symmetry: the seconds spent computing successors' orbit keys, and the sizes of the
        # orbits of the last successors keyed (_keyed); those of the candidates go with them
        self.keying: list = [0.0, []]
        self.sized = model.symmetry.key(self.fingerprint, self.keying[1]) if symmetric and not exact else None
        self.id_draw = exact.draw() if exact else None
        self.recorder = None if plan is None else Recorder(plan)
        # The queue's segments beyond `budget` bytes go to disk, in the directory `spill`
        # (statequeue.py); exact storage keeps every state in its store anyway: only its frontier
        # is a queue
        self.spill = Spill(budget, spill)
        self.admission = Admission(model, checks, pools=self.pools, recorder=self.recorder,
                                   sized=self.sized is not None, queue=None if self.exact else self.queue)
        self.offer = self.admission.admit  # what becomes of a successor not seen before
        self.deadlocked = False  # collect mode: the first deadlock is collected, once
        self.collected: list[tuple] = []
        self.successors = self._successor_functions()
        self.frontier = self.queue()  # the states it holds, in order
        self.frontier_fps = array("q")  # and their fingerprints
        self.first = 0  # the global index of the first
        self.pending: tuple = ()
        # This level's candidates and the successors rejected by a constraint, as a set. On exact
        # storage, every id seen after the initial states (stored, or rejected by a constraint:
        # rejected again, a state would only be checked again with the same outcome), and the table
        # holds the initial states only: a set look-up of an int per successor, as the dict of
        # states already tells new ones.
        self.recent: set = set()
        # One process (`direct`, set by the coordinator): the candidates go into the table itself as
        # they are found (its one reader is this worker), and `recent` stays empty: 8 bytes a
        # candidate in the table's slots instead of a set's ~75. `room` (the coordinator's
        # Coordinator._room) grows or spills the table when it is half full, in the middle of a level.
        self.direct = False
        self.room: Callable[[], FingerprintTable] | None = None
        # With --memory-budget: the fingerprints the coordinator spilled from the table
        # (fingerprints.SortedRun: the coordinator's own in this process, a reader of it in a
        # forked worker, sent with Go), which a successor not in the table may still be in
        self.spilled = None
        self.fps = array("q")  # the last level's candidates: their keys, and the states
        self.states = self.queue() if not self.exact else []

    def queue(self, states=()) -> StateQueue:
        """A queue of states (these), spilling with this worker's budget."""
        queue = StateQueue(len(self.model.var_types), self.spill, self.model.canonical_keys)
        queue.extend(states)
        return queue

    def _successor_functions(self) -> list[tuple]:
        """Per action: its index, the function giving its successors and their keys from a parent
        (None on exact storage: the loop computes the ids), and its generator (to find a fault)."""
        model, recorder = self.model, self.recorder
        out = []
        for ai, nexts in enumerate(model.next_states):
            act = model.actions[ai]
            if recorder is not None and ai in recorder.by_args:
                with_args = model.next_states_with_args[ai]
                nexts = (_with_args(act, self.key or self.fingerprint, recorder.args, ai)
                         if self.key is not None or with_args is None else _args_kept(with_args, recorder.args, ai))
            elif self.exact:
                nexts = None
            elif self.key is not None:
                nexts = _keyed(act, self.sized, self.keying)
            out.append((ai, nexts, act))
        return out

    # ---------------------------------------------------------------- the coordinator's messages
    def serve(self) -> None:
        conn = self.conn
        while True:
            msg = conn.recv()
            if isinstance(msg, Stop):
                return
            if isinstance(msg, Init):
                self.first, self.frontier = msg.first, self.queue(msg.states)
                self.frontier_fps = array("q", map(self.fingerprint, msg.states))
            elif isinstance(msg, Step):
                conn.send(self._step(msg))
            elif isinstance(msg, Lookup):
                conn.send(self._lookup(msg.others))
            else:
                raise AssertionError(f"unexpected message {msg!r}")

    def _step(self, msg: Step) -> Stepped:
        """Take the states of the holding and expand them (the CPU time without the wait for Go)."""
        start = time.process_time()
        held = self.take(msg.holding, msg.pending, msg.round)
        cpu = time.process_time() - start
        go = self._expect(Go)  # the level is in the table now
        start = time.process_time()
        if go.slots is not None:
            self.table.close()
            self.table = FingerprintTable.attach(go.slots, reduction.recv_handle(self.conn))
        if go.run is not None:  # the coordinator merged the table into a new file since the last level
            if self.spilled is not None:
                self.spilled.close()
            self.spilled = SortedRun.opened(go.run)
        expansion, admitted = self.go()
        expansion.cache = self.model.cache_counts()
        return Stepped(expansion, admitted, held, cpu + time.process_time() - start)

    def take(self, holding: Holding | None, pending: tuple, step: int) -> int:
        """Take the states of `holding` (None: keep the initial states it holds); returns how many
        it holds. `pending`: the reachable checks still to witness; `step`: the step's number,
        which the shared counters carry."""
        self.step = step
        self.pending = pending
        if holding is not None:
            self._hold(holding)
        return len(self.frontier)

    def go(self) -> tuple[Expansion, Admitted | None]:
        """Expand the states it holds (the level is in the table now)."""
        try:
            return self._expand()
        except StepInterrupted:  # the coordinator halted the search in the middle of a step
            self.frontier.clear()
            self.frontier_fps = array("q")
            return halted("halted", len(self.successors)), None

    def _expect(self, kind: type):
        msg = self.conn.recv()
        if isinstance(msg, Stop):
            raise _Stopped
        if not isinstance(msg, kind):
            raise AssertionError(f"expected {kind.__name__}, got {msg!r}")
        return msg

    # ---------------------------------------------------------------- one level
    def _expand(self) -> tuple[Expansion, Admitted | None]:
        """Expand the states it holds, in order (the module docstring). A candidate another worker
        found first is admitted there too, at a smaller key, so the coordinator's first event and
        first witnesses are never at a candidate that is not new."""
        table, mask, spilled = self.table.table, self.table.mask, self.spilled
        direct = self.direct
        # With `direct`: the candidates the table takes before it is half full (-1: never 0)
        left = self._room_left() if direct else -1
        live = self.live
        live[1] = live[2] = live[3] = 0
        live[0] = self.step
        if not self.exact:
            self.recent = set()
        recent = self.recent
        add, offer = recent.add, self.offer
        self.admission.begin(self.pending)
        a_count = len(self.successors)
        parents, counts = array("q"), array("I")
        enabled, generated = [0] * a_count, [0] * a_count
        events, placed = [], {}
        event = None
        steps = self.admission.step if self.checks.steps else None
        recorder, found = self.recorder, self.admission.kept.fps
        taken = [] if recorder is not None else None  # a parent's successors and keys, per action, for the recorder
        record = taken.append if taken is not None else None
        sizes = self.keying[1] if self.sized is not None else None
        spent = self.keying[0]
        fingerprint = self.fingerprint
        setdefault, numbers = self.id_draw if self.id_draw is not None else (None, None)
        memos, entries, raw_of = fingerprint.memos, fingerprint.entries, fingerprint.raw
        frontier, frontier_fps, indices = self._level()
        for state, pfp, g in zip(frontier.drain(), frontier_fps, indices):
            if not g & HALT_EVERY and self._look(g - self.first, len(found), generated):
                self._took(left)
                return halted(self.halt[0] if isinstance(self.halt[0], str) else "halted", a_count), None
            base = g << ORDINAL_BITS
            k = base - 1  # the key of the successor
            parents.append(g)
            raw = pfp if pfp != 1 else raw_of(state)  # the XOR of its slots' hashes (fingerprints.py)
            for ai, nexts, act in self.successors:
                fault = None
                try:
                    if nexts is not None:
                        succs, keys = nexts(state, raw, memos, entries)
                    else:
                        succs = [*map(_second, act(state))]
                        keys = [*map(setdefault, succs, numbers)]
                except EVAL_FAILURES as error:
                    succs, keys, fault = self._until_fault(act, state, error)
                if record is not None:
                    record((succs, keys))
                first = k + 1  # the key of the first of these successors
                try:
                    for succ, fp in zip(succs, keys):
                        k += 1
                        if fp not in recent:
                            j = fp & mask  # FingerprintTable.find, inline: a call per successor costs more
                            x = table[j]
                            while x:
                                if x == fp:
                                    break
                                j = (j + 1) & mask
                                x = table[j]
                            else:
                                if direct:  # into the table (FingerprintTable.put, inline)
                                    h = fp & mask
                                    table[j] = table[h]
                                    table[h] = fp
                                    left -= 1
                                else:
                                    add(fp)
                                if spilled is None or fp not in spilled:  # (the table's spilled part)
                                    offer(k, ai, succ, fp, sizes[k - first] if sizes is not None else 0)
                                if not left:  # (direct: after the look-up above, as a spill may follow)
                                    table, mask, left = self._grown()
                        if steps is not None and succ != state:
                            steps(state, succ, k)
                except Failure as failure:
                    event = failure_event(self.model, failure, k, placed)
                c = len(succs)
                counts.append(c)
                if c:
                    enabled[ai] += 1
                    generated[ai] += c
                if fault is not None and event is None:
                    event = self._action_fault(k + 1, ai, fault, placed)
                if event is not None:
                    counts.extend([0] * (a_count - ai - 1))
                    break
            if recorder is not None:
                recorder.expanded(state, pfp, g, k + 1 - base, taken, event is None)
            if event is not None:
                events.append(event)
                break  # later parents cannot hold an earlier event
            if k < base and self.check_deadlock and self._deadlock(base, events):
                break
        self._took(left)
        return self._expanded(parents, counts, enabled, generated, events, placed, spent)

    def _room_left(self) -> int:
        """`direct`: the candidates the table takes before it is half full."""
        return ((self.table.mask + 1) >> 1) - self.table.count

    def _took(self, left: int) -> None:
        """`direct`: the table's count, now that `left` candidates more would make it half full (an
        exception out of the loop ends the search: the count is not needed then)."""
        if self.direct:
            self.table.count = ((self.table.mask + 1) >> 1) - left

    def _grown(self) -> tuple:
        """`direct`: the table is half full in the middle of a level; the coordinator grows it or
        spills it (`room`). The new table's slots, mask and room."""
        self._took(0)
        self.table = table = self.room()
        return table.table, table.mask, self._room_left()

    def _level(self) -> tuple[StateQueue, array, object]:
        """The states it holds (drained as they are expanded: each segment is freed once read) and
        their fingerprints, and an iterator of their numbers, in order."""
        frontier, self.frontier = self.frontier, self.queue()
        frontier_fps, self.frontier_fps = self.frontier_fps, array("q")
        return frontier, frontier_fps, iter(range(self.first, self.first + len(frontier)))

    def _look(self, expanded: int, found: int, generated: list) -> bool:
        """Every 1024 states: the coordinator's look up (the in-process worker's tick), the stop
        flag (True: drop the level), the shared counters, the pools' review (between two states:
        no plan in use)."""
        if self.tick is not None:
            self.tick(expanded, found, sum(generated))
        if self.halt[0]:
            return True
        live = self.live
        live[1], live[2], live[3] = expanded, found, sum(generated)
        live[0] = self.step
        if self.pools is not None and self.pools.review(self.stored + found):
            self.admission.replan()
        return False

    def _until_fault(self, act, state: tuple, error: BaseException) -> tuple[list, list, BaseException]:
        """The successors an action yields before its evaluation error, their keys, the error."""
        succs, keys, fault = until_fault(act, state, error, self.key or self.fingerprint)
        if self.sized is not None:  # (the sizes of the successors before the fault)
            self.keying[1].clear()
            for succ in succs:
                self.sized(succ)
        return succs, keys, fault

    def _action_fault(self, key: int, ai: int, error: BaseException, placed: dict) -> Event:
        event = Event(key, EventKind.ACTION_FAULT, ai)
        info = self.model.action_info[ai]
        where = placement(self.model, error, f"computing action {info.name}", info.span)
        if where is not None:
            placed[event] = where
        return event

    def _deadlock(self, base: int, events: list) -> bool:
        """A parent without successor (its first key `base`): an event, or in collect mode the first
        one collected; True: stop."""
        if not self.checks.collect:
            events.append(Event(base, EventKind.DEADLOCK))
            return True
        if not self.deadlocked:
            self.deadlocked = True
            self.collected.append((base, Failure(Check.DEADLOCK, None)))
        return False

    def _expanded(self, parents, counts, enabled, generated, events, placed, spent: float) -> tuple:
        """The level's messages, once expanded; the candidates stay here for the next level."""
        admission = self.admission
        if placed and self.conn is None and not self.exact:  # out of memory here: room to rebuild the trace
            admission.kept.states.clear()  # the search ends at this level's first event, the MemoryError's
            self.recent = set()
            self.pools.pools.clear()
        self.stored += len(admission.kept.fps)
        self.fps, self.states = admission.kept.fps, admission.kept.states
        if not self.exact:
            self.states.seal()  # the next level: its last segment to disk too if the budget is full
        collected = self.checks.take_collected() + self.collected if self.checks.collect else []
        self.collected = []
        graph = self.recorder.transitions() if self.recorder is not None else None
        expansion = Expansion(parents, counts, enabled, generated, events, placed, graph, collected,
                              self.keying[0] - spent)
        return expansion, admission.admitted([], {}, [])

    # ---------------------------------------------------------------- between levels
    def _lookup(self, others: dict) -> LookedUp:
        """For each other worker's candidates, 1 for each this worker found too."""
        recent = self.recent
        return LookedUp({h: bytes(map(recent.__contains__, fps)) for h, fps in others.items()})

    def _hold(self, holding: Holding) -> None:
        """Take the states of the new level this worker holds, in global order, handing over
        those another worker holds."""
        states, fps = self.states, self.fps
        self.states, self.fps = self.queue() if not self.exact else [], array("q")
        if not self.exact:
            self.recent = set()
        if holding.send:  # first, so that the receivers can go on
            self.conn.send(Moved({dest: pickle.dumps(list(map(states.__getitem__, pos)), pickle.HIGHEST_PROTOCOL)
                                  for dest, pos in holding.send.items()}))
        self.first = holding.first
        segments = holding.segments
        if (not self.exact and holding.own is None and len(segments) == 1 and isinstance(segments[0], Own)
                and (segments[0].start, segments[0].stop) == (0, len(states))):
            self.frontier, self.frontier_fps = states, fps  # all of its candidates, in order (one worker)
            return
        own = range(len(states)) if holding.own is None else list(compress(range(len(states)), holding.own))
        copied = [segment.fps for segment in segments if isinstance(segment, Copy)]
        if copied:  # positions of the states it holds for earlier workers
            wanted = set().union(*copied)
            here = list(map(wanted.__contains__, fps))
            position = dict(zip(compress(fps, here), compress(range(len(fps)), here)))
        held = array("q")  # the position of each state it holds among its candidates (-1: handed over)
        frontier_fps = array("q")  # their fingerprints (those of states handed over: computed on arrival)
        awaited = {}  # worker handing states over -> their positions in the frontier
        for segment in segments:
            if isinstance(segment, Own):
                mine = own[segment.start:segment.stop]
                frontier_fps.extend(map(fps.__getitem__, mine))
            else:
                if isinstance(segment, Copy):
                    mine = array("q", map(position.get, segment.fps, repeat(-1)))
                    frontier_fps.extend(segment.fps)
                else:
                    mine = array("q", [-1]) * segment.count
                    frontier_fps.extend(mine)
                if -1 in mine:
                    g = len(held)
                    awaited[segment.worker] = compress(range(g, g + len(mine)), map((-1).__eq__, mine))
            held.extend(mine)
        del own, fps
        canonical = self.model.canonical_keys
        fingerprint = self.fingerprint
        arrived = {}  # position in the frontier -> a state handed over
        for _ in awaited:
            msg = self._expect(Incoming)
            for i, state in zip(awaited[msg.sender], map(canonical, pickle.loads(msg.data))):
                arrived[i] = state
                frontier_fps[i] = fingerprint(state)
        self.frontier = self.queue(states[p] if p >= 0 else arrived[i] for i, p in enumerate(held))
        self.frontier_fps = frontier_fps
        if not self.exact:
            states.clear()


# -------------------------------------------------------------------- successor functions

def _keyed(act, key: Callable[[tuple], int], keying: list):
    """A successor function giving each successor's orbit key (symmetry) instead of its
    fingerprint, adding the time the keys took to keying[0] (`key` leaves the size of each
    successor's orbit in keying[1]: the summary's `symmetry` line)."""
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


def _with_args(act, key: Callable[[tuple], int], args: dict, ai: int):
    """A successor function of action `ai` that also leaves the arguments of each successor's
    action instance in `args[ai]` (the behaviour graph's fairness conditions that depend on them:
    liveness.Fairness)."""
    def nexts(state, raw, memos, entries):
        steps = [*act(state)]
        args[ai] = [*map(_first, steps)]
        succs = [*map(_second, steps)]
        return succs, [*map(key, succs)]
    return nexts


def _args_kept(nexts_with_args, args: dict, ai: int):
    """The generated successor function of action `ai` that also gives the arguments (w{i}),
    leaving them in `args[ai]` as _with_args does."""
    def nexts(state, raw, memos, entries):
        succs, fps, args[ai] = nexts_with_args(state, raw, memos, entries)
        return succs, fps
    return nexts


# -------------------------------------------------------------------- a forked worker's process

class _Stopped(Exception):
    """The coordinator ended the search in the middle of a step."""


def worker_main(conn, model: Model, table: FingerprintTable, halt: mmap.mmap, check_deadlock: bool,
                checks: Checks, live: mmap.mmap, w: int, symmetric: bool, plan, budget: int | None,
                spill: str | None) -> None:
    """A forked worker's life: it serves the coordinator's messages until Stop; a bug, or running
    out of memory outside the spec's code (in the spec's code it is an event), is sent as Failed."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    gc.disable()  # as in explore(): no reference cycles here
    # When the coordinator halts the search, a long expansion is cut short, but never the
    # exchange of states between workers before it.
    watchdog = Watchdog(lambda: "halted" if halt[0] else None, model.code_name,
                        protected=[Worker._hold.__code__])
    worker = None
    try:
        with watchdog:
            worker = Worker(conn, model, table, halt, check_deadlock, checks,
                            memoryview(live).cast("q")[LIVE * w:LIVE * (w + 1)], None, symmetric, plan=plan,
                            budget=budget, spill=spill)
            worker.serve()
    except (_Stopped, EOFError, BrokenPipeError, KeyboardInterrupt):
        pass
    except MemoryError:  # the worker's own tables
        try:
            conn.send(Failed("", out_of_memory=True))
        except (OSError, MemoryError):
            pass
    except BaseException:  # a bug: report it to the coordinator, which raises it
        try:
            conn.send(Failed(traceback.format_exc()))
        except OSError:
            pass
    finally:
        if worker is not None:
            worker.spill.close()  # its queue's segments on disk, if any
            if worker.spilled is not None:  # (a reader: the coordinator removes the file)
                worker.spilled.close()
