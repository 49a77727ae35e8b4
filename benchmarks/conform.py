"""`tlacheck conform` and the recorder, measured (docs/performance.md, "Conformance").

    python -m benchmarks.conform                       # the 10,000-step target, and the recorder
    python -m benchmarks.conform --steps 1000,10000,100000   # memory against the log's length

The log: a random behaviour (seed 1) of benchmarks/models/notify_race_rounds.spec, the notify
race over three tasks with rounds, of the given number of steps, written as the recorder writes
a real run's: each line names the action and its arguments and shows the variables the step
changed, except three hidden ones (`notified`, `pendingMessages`, `strandedEvent`, never
logged); every tenth step is left out of the log, so matching needs `--max-gap 1`. Each
`tlacheck conform` runs in a fresh process (`python -m tlacheck`), timed from outside, with its
peak resident memory (getrusage of the child); the verdict must be "conforms" (exit 0).

The recorder: `Recorder.event` in a tight loop writing a typical event (an action, one argument,
three variables) to a file, per event, best of five runs of 100,000 events. A mark (`await
step(name)`, docs/testing.md) outside a schedule: per mark, in a coroutine's loop, less the loop.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tlacheck.conform import Recorder
from tlacheck.core.files import read_source
from tlacheck.pipeline.driver import build_model

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "benchmarks" / "models" / "notify_race_rounds.spec"
HIDDEN = ("notified", "pendingMessages", "strandedEvent")
LEFT_OUT = 10  # every tenth step is not logged


def write_log(path: Path, steps: int, seed: int = 1) -> int:
    """A random behaviour of `steps` steps as a log (see the module docstring); the lines written."""
    model = build_model(read_source(str(SPEC)))
    rng = random.Random(seed)
    state = next(iter(model.init()))
    written = 0
    with Recorder(path) as rec:
        for i in range(1, steps + 1):
            options = [(a, args, s) for a, act in enumerate(model.actions) for args, s in act(state)]
            a, args, nxt = options[rng.randrange(len(options))]
            if i % LEFT_OUT:
                changed = {n: v for n, v, old, new in zip(model.var_names, model.state_json(nxt).values(), state, nxt)
                           if old != new and n not in HIDDEN}
                rec.event(model.action_info[a].name, model.args_json(a, args), changed)
                written += 1
            state = nxt
    return written


def conform(path: Path, max_gap: int = 1) -> dict:
    """`tlacheck conform` on the log, in a fresh process: wall time, peak RSS, the verdict."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tlacheck", "conform", str(SPEC), str(path), "--max-gap",
                           str(max_gap), "--json"], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    data = json.loads(proc.stdout) if proc.stdout.startswith("{") else {}
    run = data["runs"][0] if data else {}
    return {"exit": proc.returncode, "seconds": elapsed, "peak_rss_mb": max(peak, before) / 1024,
            "verdict": run.get("verdict"), "events": run.get("events_matched"), "steps": run.get("steps"),
            "candidates": run.get("candidates"), "stderr": proc.stderr.strip()[-500:]}


def startup() -> float:
    """The time of `python -m tlacheck conform` on a one-line log (the interpreter, the parser, the
    compiled model): what the run costs besides matching."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "one.ndjson"
        write_log(log, 1)
        return min(conform(log)["seconds"] for _ in range(3))


def recorder_cost(events: int = 100_000, runs: int = 5) -> float:
    """Microseconds per Recorder.event, best of `runs` loops of `events` events."""
    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            with Recorder(Path(tmp) / "r.ndjson") as rec:
                start = time.perf_counter()
                for i in range(events):
                    rec.event("EnqueueStopNotification", {"t": "t1"},
                              {"runner": {"t1": "Stopped"}, "queue": [{"task": "t1", "reply": "OldReply"}],
                               "notifications": i})
                best = min(best, time.perf_counter() - start)
    return best / events * 1e6


def recorder_cost_in_memory(events: int = 100_000) -> float:
    """The same loop writing to a StringIO: the encoding alone."""
    rec = Recorder(io.StringIO())
    start = time.perf_counter()
    for i in range(events):
        rec.event("EnqueueStopNotification", {"t": "t1"}, {"runner": {"t1": "Stopped"}, "notifications": i})
    return (time.perf_counter() - start) / events * 1e6


def mark_cost(marks: int = 200_000, runs: int = 5) -> float:
    """Nanoseconds per `await step(...)` with no scheduler, best of `runs` loops, less an empty loop."""
    import asyncio

    from tlacheck.conform import step

    async def loops() -> float:
        best = float("inf")
        for _ in range(runs):
            start = time.perf_counter()
            for _ in range(marks):
                await step("notify.stop")
            marked = time.perf_counter() - start
            start = time.perf_counter()
            for _ in range(marks):
                pass
            best = min(best, marked - (time.perf_counter() - start))
        return best

    return asyncio.run(loops()) / marks * 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.conform", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="10000", help="comma-separated behaviour lengths (default 10000)")
    parser.add_argument("--no-recorder", action="store_true", help="skip the recorder's loop")
    args = parser.parse_args(argv)
    failed = False
    base = startup()
    print(f"start-up (a one-line log): {base:.2f} s")
    print(f"{'steps':>8} {'lines':>8} {'events':>8} {'time':>8} {'matching':>9} {'events/s':>9} {'candidates':>14} "
          f"{'peak RSS':>9}  verdict")
    with tempfile.TemporaryDirectory() as tmp:
        for steps in (int(x) for x in args.steps.split(",")):
            log = Path(tmp) / f"rounds-{steps}.ndjson"
            lines = write_log(log, steps)
            m = conform(log)
            matching = max(m["seconds"] - base, 1e-9)
            cands = m["candidates"] or {}
            print(f"{steps:>8,} {lines:>8,} {m['events'] or 0:>8,} {m['seconds']:>7.2f}s {matching:>8.2f}s "
                  f"{(m['events'] or 0) / matching:>9,.0f} {cands.get('mean', 0):>6.2f} (max {cands.get('max', 0):>2}) "
                  f"{m['peak_rss_mb']:>7.1f}MB  {m['verdict']}")
            if m["exit"] != 0 or m["verdict"] != "conforms":
                failed = True
                print(f"  unexpected: exit {m['exit']}: {m['stderr']}")
            os.unlink(log)
    if not args.no_recorder:
        print(f"recorder: {recorder_cost():.2f} µs per event to a file (best of 5 x 100,000), "
              f"{recorder_cost_in_memory():.2f} µs to a StringIO")
        print(f"a mark outside a schedule: {mark_cost():.0f} ns (best of 5 x 200,000)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
