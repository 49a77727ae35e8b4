"""The ported corpus side by side with TLC: `python -m benchmarks.corpus [--runs 2] [--models a,b]
[--min-distinct N] [--markdown]`.

Every model with TLC's counts in tests/data/tlc_counts (the fifteen classic ports and the broad
corpus) and the three seed models scaled up (benchmarks/suite.py, those with a TLA+ translation
in benchmarks/peers/), or those named. Each run is a whole process, start-up included, one worker:

- tlacheck: `python -m tlacheck check SPEC --json --quiet --deadlock|--no-deadlock [--no-symmetry]
  [--variant V] [--invariant I ...]`;
- TLC 2.15: `java -XX:+UseParallelGC -cp tla2tools.jar tlc2.TLC -workers 1 [-deadlock]
  -config CFG MODULE` on the TLA+ original, a copy of ../shared/reference/tlaplus-examples/FOLDER
  (with its SYMMETRY line removed where the pinned counts are those without symmetry, its
  VIEW section where they are those without the VIEW (the counts file's `cfg_used` says so), its
  CHECK_DEADLOCK line removed, which TLC 2.15 rejects, for the flag `-deadlock`, and stub
  TLAPS / FiniteSetTheorems / SequenceTheorems modules where it extends them: they hold only
  proofs, and the stubs define the names proofs cite as TRUE; the community modules in
  benchmarks/community/ where it extends them; for a scaled configuration of the third batch,
  the files of tests/data/tlc_counts/scaled/NAME/, its cfg and MC module, over the copy); for
  a seed model, its translation in benchmarks/peers/ with the .cfg of the same name, as it is.

The runs alternate (tlacheck, TLC, tlacheck, TLC, ...) so that load that comes and goes hits
both; the table gives each tool's fastest wall time, the ratio TLC / tlacheck (above 1:
tlacheck is faster), peak RSS, and tlacheck's bytes per distinct state (its peak RSS less that
of the same command stopped by `--max-states 1`, the process's base, over the distinct states), then the geometric mean of the ratios and the worst model.
Both tools' counts are compared with the pinned ones; a model whose counts differ is marked
and left out of the means (exit code 1).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.peers import _run_wait4, tla2tools_jar
from benchmarks.suite import BENCHMARKS, PEERS_DIR, REFERENCE, ROOT

COUNTS = ROOT / "tests" / "data" / "tlc_counts"
# Community modules TLC 2.15 does not ship, with the operators the models use (each says which)
COMMUNITY = ROOT / "benchmarks" / "community"
# Proof-only modules TLC does not ship. A model's proofs may cite their pragmas and facts
# (`BY PTL`, `FS_EmptySet`): the stubs define those names, as TRUE, and nothing else.
STUBS = {
    "TLAPS": ("SMT", "CVC3", "Yices", "veriT", "Z3", "Spass", "LS4", "PTL", "Zenon", "Isa", "Auto", "Force",
              "Blast", "SimpleArithmetic", "SMTT", "ExpandENABLED", "ExpandCdot", "AutoUSE", "Lambdify",
              "ENABLEDaxioms", "ENABLEDrewrites", "ENABLEDrules", "LevelComparison", "Trivial", "IsaM(x)"),
    "FiniteSetTheorems": ("FS_EmptySet", "FS_Singleton", "FS_AddElement", "FS_RemoveElement", "FS_Union",
                          "FS_Subset", "FS_Difference", "FS_Intersection", "FS_Interval", "FS_CardinalityType",
                          "FS_SUBSET", "FS_Product", "FS_Image", "FS_NatSurjection", "FS_CountingElements",
                          "FS_MajoritySize", "FS_Induction", "FS_WFInduction", "FS_StrongInduction",
                          "FS_FiniteSubsetsOfFinite", "FS_UNION", "FS_Bijection", "FS_PigeonHole"),
    "SequenceTheorems": ("EmptySeq", "LenProperties", "ElementOfSeq", "SeqDef", "ConcatProperties",
                         "AppendProperties", "HeadTailProperties", "SubSeqProperties"),
}
TIMEOUT_S = 1800.0


@dataclass
class Side:
    walls: list[float] = field(default_factory=list)
    peak_rss: int = 0
    counts: tuple | None = None  # (distinct, generated)
    failed: str | None = None
    base_rss: int = 0  # tlacheck: the peak RSS of the same command stopped after its first state

    @property
    def wall(self) -> float:
        return min(self.walls)


def seed_entries() -> list[dict]:
    """The seed models scaled up, as counts entries: their counts are TLC's on the translation in
    benchmarks/peers/ (asserted by `python -m benchmarks` and here, run by run)."""
    return [{"name": b.name, "spec": str(b.spec.relative_to(ROOT)), "overrides": dict(b.overrides),
             "check_deadlock": b.check_deadlock, "distinct": b.distinct, "generated": b.generated,
             "variant": b.variant, "only_invariants": b.invariants, "module": b.tla,
             "cfg": Path(b.tla).with_suffix(".cfg").name, "peers": True}
            for b in BENCHMARKS if b.tla is not None]


def entries(names: list[str] | None, min_distinct: int) -> list[dict]:
    found = [json.loads(p.read_text()) | {"name": p.stem} for p in sorted(COUNTS.glob("*.json"))]
    found = [e for e in found if e.get("expected", "success") == "success"] + seed_entries()
    if names:
        unknown = set(names) - {e["name"] for e in found}
        if unknown:
            raise SystemExit(f"unknown model(s): {', '.join(sorted(unknown))}; known: "
                             f"{', '.join(e['name'] for e in found)}")
        found = [e for e in found if e["name"] in names]
    return [e for e in found if e["distinct"] >= min_distinct]


def spec_path(e: dict, root: Path = ROOT) -> Path:
    """The port of counts entry `e` in the tree `root`."""
    return root / e["spec"] if "spec" in e else root / "specs" / e["port"]


def tlacheck_command(e: dict, root: Path = ROOT) -> list[str]:
    """`tlacheck check` of the port of counts entry `e` in the tree `root`, as TLC checks it."""
    spec = spec_path(e, root)
    cmd = [sys.executable, "-m", "tlacheck", "check", str(spec), "--json", "--quiet"]
    for name, value in (e.get("overrides") or {}).items():
        cmd += ["-D", f"{name}={value}"]
    cmd.append("--deadlock" if e["check_deadlock"] else "--no-deadlock")
    if "with_symmetry" in e or e.get("peers"):
        # TLC runs without the cfg's SYMMETRY line (the seed models' translations have none):
        # both explore every state
        cmd.append("--no-symmetry")
    if e.get("variant", "base") != "base":
        cmd += ["--variant", e["variant"]]
    for name in e.get("only_invariants") or ():  # these alone, as the peer's cfg checks them
        cmd += ["--invariant", name]
    return cmd


def counts_of(out: str) -> tuple[int, int] | None:
    """(distinct, generated) from the output of tlacheck_command, None when it has no result."""
    try:
        data = json.loads(out[out.find("{\n"):])
    except ValueError:
        return None
    if "distinct_states" not in data:  # an error's JSON (the run stopped before a result)
        return None
    return data["distinct_states"], data["states_generated"]


def run_tlacheck(e: dict, side: Side) -> None:
    status, out, wall, rss = _run_wait4(tlacheck_command(e), str(ROOT), TIMEOUT_S)
    counts = counts_of(out)
    if counts is None:
        side.failed = f"exit {status}: {out.strip().splitlines()[-1] if out.strip() else 'no output'}"
        return
    _record(side, wall, rss, counts)


def prepare_tlc(e: dict, d: Path) -> None:
    """Put in the directory `d` what TLC needs to check counts entry `e`: the TLA+ model (a copy of
    its folder in the reference, or a seed model's translation), a scaled configuration's files
    over it, the community modules and proof stubs it needs, and its cfg as TLC 2.15 reads it."""
    if e.get("peers"):  # a seed model's translation, its cfg as it is
        for f in (e["module"], e["cfg"]):
            shutil.copy(PEERS_DIR / f, d)
        return
    for f in (REFERENCE / e["folder"]).iterdir():
        if f.suffix in (".tla", ".cfg"):
            shutil.copy(f, d)
    if e.get("scaled_files"):  # the scaled configuration: its cfg (and MC module) over the copy
        for f in (ROOT / e["scaled_files"]).iterdir():
            shutil.copy(f, d)
    for f in COMMUNITY.glob("*.tla"):
        if not (d / f.name).exists() and re.search(rf"\b{f.stem}\b", _extended(d)):
            shutil.copy(f, d)
    for stub, names in STUBS.items():
        if not (d / f"{stub}.tla").exists() and re.search(rf"\b{stub}\b", _extended(d)):
            body = "".join(f"{n} == TRUE\n" for n in names)
            (d / f"{stub}.tla").write_text(f"---- MODULE {stub} ----\n{body}====\n")
    cfg = (d / e["cfg"]).read_text()
    if "with_symmetry" in e:
        cfg = re.sub(r"(?m)^\s*SYMMETRY\b.*$", "", cfg)
    if "without its VIEW" in e.get("cfg_used", ""):  # the pinned counts are TLC's without the VIEW
        cfg = re.sub(r"(?m)^\s*VIEW\b[^\n]*\n(?:[ \t]+\S[^\n]*\n)?", "", cfg)
    # TLC 2.15 rejects CHECK_DEADLOCK in a cfg: the flag -deadlock says it instead
    cfg = re.sub(r"(?m)^\s*CHECK_DEADLOCK\b.*$", "", cfg)
    (d / e["cfg"]).write_text(cfg)


def tlc_command(e: dict, jar: Path, d: Path) -> list[str]:
    """TLC on counts entry `e`, in the directory prepare_tlc filled."""
    cmd = ["java", "-XX:+UseParallelGC", "-cp", str(jar), "tlc2.TLC", "-workers", "1", "-metadir",
           str(d / "meta"), "-config", e["cfg"]]
    if not e["check_deadlock"]:
        cmd.append("-deadlock")
    return cmd + [e["module"]]


def run_tlacheck_base(e: dict, side: Side) -> None:
    """The process's base: the same command stopped after one state (start-up, the model built,
    its initial states), so that peak RSS less it is what the states cost."""
    _, _, _, side.base_rss = _run_wait4(tlacheck_command(e) + ["--max-states", "1"], str(ROOT), TIMEOUT_S)


def run_tlc(e: dict, side: Side, jar: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="tlacheck-corpus-tlc-") as tmp:
        prepare_tlc(e, Path(tmp))
        status, out, wall, rss = _run_wait4(tlc_command(e, jar, Path(tmp)), tmp, TIMEOUT_S)
    m = re.search(r"([\d,]+) states generated, ([\d,]+) distinct states found", out)
    if not m or "Error:" in out:
        side.failed = f"TLC exit {status}: {out.strip().splitlines()[-1] if out.strip() else 'no output'}"
        return
    _record(side, wall, rss, (int(m.group(2).replace(",", "")), int(m.group(1).replace(",", ""))))


def _extended(d: Path) -> str:
    """The text of every module in `d` (a stub may be needed by a module the model extends)."""
    return "".join(p.read_text() for p in d.glob("*.tla"))


def _record(side: Side, wall: float, rss: int, counts: tuple) -> None:
    side.walls.append(wall)
    side.peak_rss = max(side.peak_rss, rss)
    side.counts = counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.corpus", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=2, help="runs of each tool per model (default 2)")
    ap.add_argument("--models", help="comma-separated names (the counts files' names); default: all")
    ap.add_argument("--min-distinct", type=int, default=0, help="only models with at least this many states")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args(argv)
    jar = tla2tools_jar()
    if shutil.which("java") is None or jar is None:
        raise SystemExit("TLC cannot run: java or tla2tools.jar not found (set TLA2TOOLS_JAR)")
    if not REFERENCE.is_dir():
        raise SystemExit(f"{REFERENCE} not found: the TLA+ originals are read from there")
    rows, ratios, bad = [], [], False
    for e in entries(args.models.split(",") if args.models else None, args.min_distinct):
        mine, theirs = Side(), Side()
        run_tlacheck_base(e, mine)
        for _ in range(args.runs):
            run_tlacheck(e, mine)
            run_tlc(e, theirs, jar)
            if mine.failed or theirs.failed:
                break
        expected = (e["distinct"], e["generated"])
        problem = mine.failed or theirs.failed or (
            None if mine.counts == theirs.counts == expected
            else f"counts: tlacheck {mine.counts}, TLC {theirs.counts}, pinned {expected}")
        if problem:
            bad = True
            rows.append((e["name"], f"{e['distinct']:,}", "-", "-", "-", "-", "-", "-", problem))
        else:
            ratio = theirs.wall / mine.wall
            ratios.append((ratio, e["name"]))
            rows.append((e["name"], f"{e['distinct']:,}", f"{mine.wall:.2f}", f"{theirs.wall:.2f}", f"{ratio:.2f}",
                         f"{mine.peak_rss / 2**20:,.0f}", f"{max(mine.peak_rss - mine.base_rss, 0) / e['distinct']:,.0f}",
                         f"{theirs.peak_rss / 2**20:,.0f}", ""))
        _print_row(rows[-1], args.markdown, first=len(rows) == 1)
    if ratios:
        geo = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
        worst = min(ratios)
        print(f"\n{len(ratios)} models; geometric mean of TLC time / tlacheck time: {geo:.2f}; "
              f"worst: {worst[1]} ({worst[0]:.2f})")
    return 1 if bad else 0


HEADER = ("model", "distinct", "tlacheck s", "TLC s", "TLC / tlacheck", "tlacheck MB", "tlacheck B/state", "TLC MB",
          "problem")


def _print_row(row: tuple, markdown: bool, first: bool) -> None:
    if markdown:
        if first:
            print("| " + " | ".join(HEADER) + " |")
            print("|" + " --- |" * len(HEADER))
        print("| " + " | ".join(row) + " |", flush=True)
    else:
        if first:
            print("  ".join(f"{h:>14}" for h in HEADER))
        print("  ".join(f"{c:>14}" for c in row), flush=True)


if __name__ == "__main__":
    sys.exit(main())
