"""`python -m benchmarks`: check every benchmark model, with its peers beside it, and print the table.

Each tlacheck run is a fresh subprocess (benchmarks/measure.py); its state
counts are asserted against the expected ones (TLC's and SPIN's), and the run
fails (exit code 1) when one differs. Peers are used when installed; nothing
is installed. The `ratio` column is the peer's states generated per second
divided by tlacheck's (1 worker): above 1, the peer is faster; on a row with
several workers it is the speed-up over one worker. Bytes per state are
given for one process only (forked workers share pages, so summed RSS
overstates them).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys

from benchmarks.peers import PeerRun, run_spin, run_tlc
from benchmarks.suite import ROOT, by_name

HEADER = ("model", "tool", "distinct", "generated", "wall s", "generated/s", "distinct/s", "peak RSS MB",
          "B/state", "ratio", "note")


def _tlacheck(name: str, workers: int, storage: str | None, repeat: int) -> dict:
    """The run with the shortest wall time of `repeat` fresh processes."""
    cmd = [sys.executable, "-m", "benchmarks.measure", name, "--workers", str(workers)]
    if storage:
        cmd += ["--storage", storage]
    runs = []
    for _ in range(repeat):
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"benchmark {name} failed:\n{proc.stderr}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return min(runs, key=lambda m: m["wall_s"])


def _row(model, tool, distinct, generated, wall, peak, per_state, ratio, note):
    rate = f"{generated / wall:,.0f}" if wall else "-"
    drate = f"{distinct / wall:,.0f}" if wall else "-"
    return (model, tool, f"{distinct:,}", f"{generated:,}", f"{wall:.2f}", rate, drate,
            f"{peak / 2**20:,.0f}" if peak else "-", f"{per_state:.0f}" if per_state is not None else "-",
            ratio, note)


def _print_table(rows, markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "|".join(" --- " for _ in HEADER) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(str(x)) for x in col) for col in zip(HEADER, *rows)]
    for r in [HEADER, *rows]:
        print("  ".join(str(x).rjust(w) if i in range(2, 10) else str(x).ljust(w)
                        for i, (x, w) in enumerate(zip(r, widths))).rstrip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="benchmark names (default: all)")
    parser.add_argument("--workers", default="1", help="comma-separated worker counts for tlacheck (default 1)")
    parser.add_argument("--storage", default=None, help="tlacheck seen-set storage (fingerprint or exact)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per tlacheck measurement; the fastest counts")
    parser.add_argument("--no-peers", action="store_true", help="do not run TLC or SPIN")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    workers = [int(w) for w in args.workers.split(",")]
    print(f"# {platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
          f"{_cpus()} CPUs; {platform.platform()}", flush=True)
    rows = []
    failures = []
    for bench in by_name(args.models):
        base_rate = None
        for w in workers:
            m = _tlacheck(bench.name, w, args.storage, args.repeat)
            ok = (m["distinct"], m["generated"]) == (bench.distinct, bench.generated)
            if not ok:
                failures.append(f"{bench.name} ({w} workers): {m['distinct']:,}/{m['generated']:,} states, "
                                f"expected {bench.distinct:,}/{bench.generated:,}")
            per_state = (m["peak_rss"] - m["rss_before"]) / m["distinct"] if w == 1 else None
            rate = m["generated"] / m["wall_s"]
            if w == 1:
                base_rate = rate
            ratio = f"{rate / base_rate:.2f}" if w != 1 and base_rate else ""  # speed-up over 1 worker
            note = (f"{w} workers" if w != 1 else "1 process") + ("" if ok else "  COUNTS DIFFER")
            if m.get("collision") is not None:
                note += f", P(collision) {m['collision']:.1e}"
            rows.append(_row(bench.name, "tlacheck", m["distinct"], m["generated"], m["wall_s"], m["peak_rss"],
                             per_state, ratio, note))
            print("  ".join(rows[-1]), flush=True)
        peers: list[PeerRun] = []
        if not args.no_peers and (bench.tlc or bench.tla):
            peers.append(run_tlc(bench))
        if not args.no_peers and bench.spin:
            peers.append(run_spin(bench))
        for p in peers:
            if p.skipped:
                rows.append((bench.name, p.tool, "-", "-", "-", "-", "-", "-", "-", "-", f"skipped: {p.skipped}"))
            else:
                same = (p.distinct, p.generated) == (bench.distinct, bench.generated)
                note = p.note + ("" if same else f"  (peer counts differ: {p.distinct:,}/{p.generated:,})")
                ratio = f"{(p.generated / p.wall_s) / base_rate:.2f}" if base_rate else "-"
                rows.append(_row(bench.name, p.tool, p.distinct, p.generated, p.wall_s, p.peak_rss, None, ratio,
                                 note))
            print("  ".join(rows[-1]), flush=True)
    print()
    _print_table(rows, args.markdown)
    if failures:
        print("\nstate counts differ from the expected ones:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    return 0


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    raise SystemExit(main())
