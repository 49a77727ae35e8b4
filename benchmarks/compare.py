"""Two commits side by side: `python -m benchmarks.compare BASE [NEW] [--models A,B] [--runs 3] [--startup]`.

BASE and NEW are git revisions (NEW defaults to the working tree). Each is checked out into a
temporary worktree (the working tree itself for NEW when omitted); then, for each model, runs
alternate between the two sides (A B A B ...), each run a fresh `python -m benchmarks.measure`
process, so load that comes and goes hits both sides alike. Printed per model: the minimum
and median CPU seconds of `explore()` on each side, the ratio of the minima (NEW / BASE), and
the distinct and generated counts and bytes per state of each side (the counts must agree).

`--startup` instead times `python -m tlacheck check specs/classic/diehard.spec` end to end
(wall seconds; start-up dominates), alternated the same way.

`--corpus` instead runs the ported models of the corpus (the names of tests/data/tlc_counts/*.json,
checked as benchmarks/corpus.py checks them, which is as TLC did): whole `python -m tlacheck check`
processes, start-up included, and prints the user CPU seconds of each (resource.getrusage of the
children), alternated the same way; every run's counts must be TLC's (with `--max-states N`,
each run stops after N distinct states and the counts must agree between all runs).

Both sides run with this interpreter, whose environment must have the dependencies; each side
imports its own code: a tree whose source folder is installed as `tlacheck` is put first on
PYTHONPATH through a link `tlacheck -> checker` (an installed editable tlacheck would otherwise
answer for both), an older tree imports `checker` from its working directory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from benchmarks import corpus
from benchmarks.suite import BENCHMARKS

ROOT = Path(__file__).resolve().parent.parent


def _worktree(stack: ExitStack, rev: str) -> Path:
    where = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tlacheck-compare-"))) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(where), rev], cwd=ROOT, check=True)
    stack.callback(subprocess.run, ["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, check=False)
    return where


def _imports_as_tlacheck(tree: Path) -> bool:
    return '"tlacheck" = "checker"' in (tree / "pyproject.toml").read_text(encoding="utf-8")


def _env(tree: Path) -> dict[str, str]:
    """The environment in which `tree`'s processes import `tree`'s own code."""
    env = dict(os.environ)
    if _imports_as_tlacheck(tree):
        shim = tree / ".compare-import"
        shim.mkdir(exist_ok=True)
        if not (shim / "tlacheck").exists():
            (shim / "tlacheck").symlink_to(tree / "checker", target_is_directory=True)
        env["PYTHONPATH"] = os.pathsep.join([str(shim), str(tree)])
    return env


def _command(tree: Path, cmd: list[str]) -> list[str]:
    """`cmd` (a `python -m tlacheck ...` line) as `tree` runs it."""
    if not _imports_as_tlacheck(tree) and cmd[1:3] == ["-m", "tlacheck"]:
        return [cmd[0], "-m", "checker", *cmd[3:]]
    return cmd


def _measure(tree: Path, model: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "benchmarks.measure", model], cwd=tree, capture_output=True,
                         text=True, check=True, env=_env(tree)).stdout
    return json.loads(out)


def _user_cpu(tree: Path, e: dict, max_states: int | None) -> tuple[float, tuple | None]:
    """User CPU seconds of one `tlacheck check` of corpus entry `e` in `tree`, and its counts
    (a run without counts stops the comparison with what it printed)."""
    cmd = corpus.tlacheck_command(e, tree) + ([] if max_states is None else ["--max-states", str(max_states)])
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    run = subprocess.run(_command(tree, cmd), cwd=tree, capture_output=True, text=True, env=_env(tree))
    counts = corpus.counts_of(run.stdout)
    if counts is None:
        said = (run.stderr.strip() or run.stdout.strip()).splitlines()[-3:]
        raise SystemExit(f"{e['name']} in {tree}: no counts (exit {run.returncode}):\n  " + "\n  ".join(said))
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before, counts


def _compare_corpus(sides: dict[str, Path], names: list[str] | None, runs: int, max_states: int | None) -> None:
    """Every run's counts must be TLC's, or with `max_states` those of the other runs."""
    print("| model | distinct | base min (median) | new min (median) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for e in corpus.entries(names, 0):
        missing = [side for side, tree in sides.items() if not corpus.spec_path(e, tree).exists()]
        if missing:  # a model ported after one of the two commits: nothing to compare
            print(f"| {e['name']} | | not in {' and '.join(missing)} | | |", flush=True)
            continue
        cpu: dict[str, list[float]] = {"base": [], "new": []}
        expected = (e["distinct"], e["generated"]) if max_states is None else None
        for _ in range(runs):
            for side, tree in sides.items():
                user, counts = _user_cpu(tree, e, max_states)
                expected = expected or counts
                if counts != expected:
                    raise SystemExit(f"{e['name']} in {tree}: counts {counts}, expected {expected}")
                cpu[side].append(user)
        print(f"| {e['name']} | {expected[0]:,} | {min(cpu['base']):.2f} ({statistics.median(cpu['base']):.2f}) | "
              f"{min(cpu['new']):.2f} ({statistics.median(cpu['new']):.2f}) | "
              f"{min(cpu['new']) / min(cpu['base']):.2f} |", flush=True)


def _startup(tree: Path) -> float:
    start = time.perf_counter()
    subprocess.run(_command(tree, [sys.executable, "-m", "tlacheck", "check", "specs/classic/diehard.spec", "--quiet"]),
                   cwd=tree, capture_output=True, check=False, env=_env(tree))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__.split("\n")[0])
    ap.add_argument("base", help="the revision to compare against")
    ap.add_argument("new", nargs="?", help="the revision to compare (default: the working tree)")
    ap.add_argument("--models", help="comma-separated benchmark names (default: all), or with --corpus the "
                                     "corpus's (default: every one with TLC's counts)")
    ap.add_argument("--runs", type=int, default=3, help="runs per side and model (default 3)")
    ap.add_argument("--startup", action="store_true", help="time start-up instead (diehard end to end)")
    ap.add_argument("--corpus", action="store_true", help="the corpus's models instead, user CPU of whole processes")
    ap.add_argument("--max-states", type=int, help="with --corpus: stop each run after N distinct states")
    args = ap.parse_args(argv)
    names = args.models.split(",") if args.models else None
    with ExitStack() as stack:
        sides = {"base": _worktree(stack, args.base), "new": _worktree(stack, args.new) if args.new else ROOT}
        if args.corpus:
            _compare_corpus(sides, names, args.runs, args.max_states)
            return 0
        if args.startup:
            times: dict[str, list[float]] = {"base": [], "new": []}
            for _ in range(args.runs):
                for side, tree in sides.items():
                    times[side].append(_startup(tree))
            for side, ts in times.items():
                print(f"{side}: min {min(ts):.3f} s, median {statistics.median(ts):.3f} s ({len(ts)} runs)")
            return 0
        print("| model | base min (median) | new min (median) | ratio | distinct, generated | B/state base → new |")
        print("| --- | --- | --- | --- | --- | --- |")
        for model in names or [b.name for b in BENCHMARKS]:
            runs: dict[str, list[dict]] = {"base": [], "new": []}
            for _ in range(args.runs):
                for side, tree in sides.items():
                    runs[side].append(_measure(tree, model))
            cpu = {side: [r["cpu_s"] for r in rs] for side, rs in runs.items()}
            last = {side: rs[-1] for side, rs in runs.items()}
            counts = {side: (r["distinct"], r["generated"]) for side, r in last.items()}
            per_state = {side: round((r["peak_rss"] - r["rss_before"]) / max(r["distinct"], 1)) for side, r in last.items()}
            agree = "" if counts["base"] == counts["new"] else f" **differ: {counts['base']} vs {counts['new']}**"
            print(f"| {model} | {min(cpu['base']):.2f} ({statistics.median(cpu['base']):.2f}) | "
                  f"{min(cpu['new']):.2f} ({statistics.median(cpu['new']):.2f}) | "
                  f"{min(cpu['new']) / min(cpu['base']):.2f} | {counts['new'][0]:,}, {counts['new'][1]:,}{agree} | "
                  f"{per_state['base']} → {per_state['new']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
