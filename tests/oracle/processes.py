"""Random process specs, written twice: as tlacheck processes and as a PlusCal algorithm.

The PlusCal is translated by TLA+'s own translator (`pcal.trans`, in tla2tools.jar) and
checked by TLC; tlacheck checks its own text, which lang/processes.py desugars. Neither side
shares code with the other, so agreement on the counts (states generated, distinct states),
the verdict and the length of a counterexample is evidence that the desugaring means what
PlusCal means: labels as atomic steps, `await`, `if`, `either`, `while` loops with labels
inside, `goto`, locals (also chosen from a set), processes over a set and single ones, and
termination (PlusCal's `Terminating`: the end of every process is not a deadlock).

    python -m tests.oracle.processes 1:200      # a campaign; prints the seeds that disagree

`generate(seed)` gives a ProcessSpec; `compare(seed)` a list of differences (empty: agree).
What is generated keeps to PlusCal's rules: a variable is assigned at most once per step,
every `while` is labelled (it begins its label's block), a `goto` ends its step.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.oracle import tlc
from tests.oracle.tla import MODULE, Translation


MOD = 3  # every integer is kept in 0..MOD-1, so that every space is finite


@dataclass(frozen=True)
class ProcessSpec:
    seed: int
    tlacheck: str
    pluscal: str  # the whole TLA+ module, with the algorithm in a comment (untranslated)
    cfg: str


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.labels = 0

    def label(self) -> str:
        self.labels += 1
        return f"l{self.labels}"

    # -- expressions: (tlacheck, TLA+)
    def value(self, names) -> tuple[str, str]:
        if names and self.r.random() < 0.7:
            n = self.r.choice(names)
            return n, n
        k = str(self.r.randrange(MOD))
        return k, k

    def cond(self, names, on_state: bool = False) -> tuple[str, str]:
        """A comparison; `on_state`: its left side is a variable (TLC rejects an invariant that
        is a constant, "The invariant of Inv is equal to FALSE")."""
        (a, ta), (b, tb) = self.value(names), self.value(names)
        if on_state:
            a = ta = self.r.choice(names)
        if a == b:  # not a constant condition
            b = tb = str(self.r.randrange(MOD))
        op = self.r.choice([("==", "="), ("!=", "#"), ("<", "<"), ("<=", "<=")])
        return f"{a} {op[0]} {b}", f"{ta} {op[1]} {tb}"

    # -- statements: lists of (indent, tlacheck line) and (indent, PlusCal line)
    def simple(self, readable, assignable, assigned: set, depth: int = 0) -> tuple[list, list]:
        free = [v for v in assignable if v not in assigned]
        kinds = ["assign", "assign", "await"] + (["if", "either"] if depth < 2 else []) if free else ["await", "skip"]
        kind = self.r.choice(kinds)
        if kind == "assign":
            v = self.r.choice(free)
            assigned.add(v)
            (a, ta) = self.value(readable)
            k = self.r.randrange(1, MOD)
            return [(0, f"{v} = ({a} + {k}) % {MOD}")], [(0, f"{v} := ({ta} + {k}) % {MOD};")]
        if kind == "await":
            c, tc = self.cond(readable)
            return [(0, f"await {c}")], [(0, f"await {tc};")]
        if kind == "skip":
            return [(0, "skip")], [(0, "skip;")]
        c, tc = self.cond(readable)
        if kind == "if":
            mine, theirs = [(0, f"if {c}:")], [(0, f"if {tc} then")]
            a1, t1 = self.block(readable, assignable, set(assigned), 1 + self.r.randrange(2), depth + 1)
            mine += [(i + 1, s) for i, s in a1]
            theirs += [(i + 1, s) for i, s in t1]
            inner = set(assigned)
            a2, t2 = self.block(readable, assignable, inner, self.r.randrange(2), depth + 1)
            if a2:
                mine += [(0, "else:")] + [(i + 1, s) for i, s in a2]
                theirs += [(0, "else")] + [(i + 1, s) for i, s in t2]
            theirs += [(0, "end if;")]
            assigned |= {v for v in assignable if any(line.startswith(f"{v} ") for _, line in a1 + a2)}
            return mine, theirs
        # either
        mine, theirs = [(0, "either:")], [(0, "either")]
        touched = set()
        for k in range(2):
            inner = set(assigned)
            a1, t1 = self.block(readable, assignable, inner, 1 + self.r.randrange(2), depth + 1)
            touched |= inner
            if k:
                mine += [(0, "or:")]
                theirs += [(0, "or")]
            mine += [(i + 1, s) for i, s in a1]
            theirs += [(i + 1, s) for i, s in t1]
        theirs += [(0, "end either;")]
        assigned |= touched
        return mine, theirs

    def block(self, readable, assignable, assigned: set, n: int, depth: int = 0) -> tuple[list, list]:
        mine, theirs = [], []
        for _ in range(n):
            a, t = self.simple(readable, assignable, assigned, depth)
            mine += a
            theirs += t
        return mine, theirs


def _lines(items, indent: int, unit: str = "    ") -> list[str]:
    return [unit * (indent + i) + s for i, s in items]


def generate(seed: int) -> ProcessSpec:
    g = _Gen(seed)
    r = g.r
    globals_ = [f"g{i}" for i in range(r.randrange(1, 3))]
    mine = ["spec Oracle"] + [f"var {v}: int = 0" for v in globals_]
    theirs_vars = ", ".join(f"{v} = 0" for v in globals_)
    algorithm = [f"variables {theirs_vars};"]
    kinds = [r.choice(["set", "one"]) for _ in range(r.randrange(1, 3))]
    ids = iter(["1..2", "3..4"])
    single_ids = iter(["10", "11"])
    for p, kind in enumerate(kinds):
        name = f"P{p}"
        locals_ = [f"x{p}"] if r.random() < 0.6 else []
        choice = bool(locals_) and r.random() < 0.4
        if kind == "set":
            domain = next(ids)
            mine.append(f"process {name}(self in {domain}):")
            algorithm.append(f"process {name} \\in {domain}")
        else:
            mine.append(f"process {name}:")
            algorithm.append(f"process {name} = {next(single_ids)}")
        for v in locals_:
            if choice:
                mine.append(f"    var {v}: int in {{0, 1}}")
                algorithm.append(f"variables {v} \\in {{0, 1}};")
            else:
                mine.append(f"    var {v}: int = 0")
                algorithm.append(f"variables {v} = 0;")
        algorithm.append("begin")
        readable = globals_ + locals_
        assignable = globals_ + locals_
        steps = r.randrange(1, 4)
        labels: list[str] = []
        for k in range(steps):
            label = g.label()
            labels.append(label)
            last = k == steps - 1
            if last and r.random() < 0.35:  # a loop, with a labelled step inside
                c, tc = g.cond(readable)
                inner = g.label()
                labels.append(inner)
                a1, t1 = g.block(readable, assignable, set(), 1 + r.randrange(2))
                a2, t2 = g.block(readable, assignable, set(), 1 + r.randrange(2))
                mine += [f"    {label}:", f"        while {c}:"] + _lines(a1, 3) + [f"            {inner}:"] + _lines(a2, 4)
                algorithm += [f"{label}:", f"  while {tc} do"] + _lines(t1, 2, "  ") + [f"    {inner}:"] \
                    + _lines(t2, 3, "  ") + ["  end while;"]
                continue
            a, t = g.block(readable, assignable, set(), 1 + r.randrange(3))
            mine += [f"    {label}:"] + _lines(a, 2)
            algorithm += [f"{label}:"] + _lines(t, 1, "  ")
            if last and r.random() < 0.3:  # back to an earlier step
                target = r.choice(labels)
                mine.append(f"        goto {target}")
                algorithm.append(f"  goto {target};")
        algorithm.append("end process;")
    c, tc = g.cond(globals_, on_state=True)
    mine.append(f"invariant Inv: not ({c})" if r.random() < 0.5 else "invariant Inv: true")
    inv = mine[-1].split(": ", 1)[1]
    tla_inv = "TRUE" if inv == "true" else f"~({tc})"
    module = "\n".join([
        f"---- MODULE {MODULE} ----",
        "EXTENDS Integers",
        f"(* --algorithm {MODULE}",
        *algorithm,
        "end algorithm; *)",
        f"Inv == {tla_inv}",
        "====",
    ]) + "\n"
    cfg = "SPECIFICATION Spec\nINVARIANT Inv\n"
    return ProcessSpec(seed, "\n".join(mine) + "\n", module, cfg)


def translate(pluscal: str) -> str:
    """The module with PlusCal's translation added, by `pcal.trans` (tla2tools.jar)."""
    jar = tlc.jar()
    if jar is None:
        raise RuntimeError(tlc.available())
    with tempfile.TemporaryDirectory(prefix="oracle-pcal-") as tmp:
        path = Path(tmp) / f"{MODULE}.tla"
        path.write_text(pluscal)
        proc = subprocess.run(["java", "-cp", str(jar), "pcal.trans", "-nocfg", path.name], cwd=tmp,
                              capture_output=True, text=True, timeout=120)
        text = path.read_text()
        if "BEGIN TRANSLATION" not in text:
            raise RuntimeError(f"pcal.trans failed:\n{proc.stdout}{proc.stderr}\n{pluscal}")
        return text


def tlacheck(spec: ProcessSpec, only: str | None = None) -> dict:
    """tlacheck's verdict and counts on the spec's own text (exact storage, one process);
    `only`: "invariant" (deadlocks not checked) or "deadlock" (invariants not checked)."""
    from tlacheck.core.source import Source
    from tlacheck.engine.explore import explore
    from tlacheck.engine.options import Options, Storage
    from tlacheck.pipeline.driver import build_model
    from tests.oracle.compare import from_result

    options = Options(storage=Storage.EXACT, check_deadlock=only != "invariant",
                      invariants=() if only == "deadlock" else None)
    a = from_result("tlacheck", explore(build_model(Source("oracle.spec", spec.tlacheck)), options))
    return {"verdict": a.verdict, "distinct": a.distinct, "generated": a.generated, "trace_length": a.trace_length}


def compare(seed: int, tally: dict | None = None) -> list[str]:
    """The differences between tlacheck and TLC (on PlusCal's translation) for `seed`; `tally`
    counts tlacheck's verdicts (to see what a campaign covered)."""
    spec = generate(seed)
    ours = tlacheck(spec)
    if tally is not None:
        tally[ours["verdict"]] = tally.get(ours["verdict"], 0) + 1
    result = tlc.run(Translation(translate(spec.pluscal), spec.cfg, {"Inv": "Inv"}, False), check_deadlock=True)
    theirs = {"verdict": result.verdict, "distinct": result.distinct, "generated": result.generated,
              "trace_length": result.trace_length}
    if {ours["verdict"], theirs["verdict"]} == {"invariant", "deadlock"}:
        # Both are violations found in the same breadth-first level: the tools try successors in
        # different orders (tlacheck label by label, each over the instances; PlusCal's
        # translation instance by instance), so either may come first. Each tool's finding must
        # then be the other's too, at the same length: tlacheck checking only TLC's kind.
        again = tlacheck(spec, only=theirs["verdict"])
        diffs = [f"{k}: tlacheck {again[k]} (checking only TLC's kind), TLC {theirs[k]}"
                 for k in ("verdict", "trace_length") if again[k] != theirs[k]]
        deadlock = ours["verdict"] == "deadlock"
        cfg = "SPECIFICATION Spec\n" if deadlock else spec.cfg
        other = tlc.run(Translation(translate(spec.pluscal), cfg, {"Inv": "Inv"}, False), check_deadlock=deadlock)
        diffs += [f"{k}: tlacheck {ours[k]}, TLC {v} (checking only tlacheck's kind)"
                  for k, v in (("verdict", other.verdict), ("trace_length", other.trace_length)) if ours[k] != v]
        return diffs
    keys = ("verdict", "trace_length") + (("distinct", "generated") if ours["verdict"] == "ok" else ())
    return [f"{k}: tlacheck {ours[k]}, TLC {theirs[k]}" for k in keys if ours[k] != theirs[k]]


def main(argv: list[str]) -> int:
    lo, hi = (int(x) for x in (argv[0] if argv else "1:50").split(":"))
    bad = 0
    tally: dict[str, int] = {}
    for seed in range(lo, hi + 1):
        diffs = compare(seed, tally)
        if diffs:
            bad += 1
            spec = generate(seed)
            print(f"seed {seed}: " + "; ".join(diffs) + "\n" + spec.tlacheck + "\n" + spec.pluscal, flush=True)
    print(f"{hi - lo + 1 - bad} of {hi - lo + 1} seeds agree; tlacheck's verdicts: "
          + ", ".join(f"{v} {n}" for v, n in sorted(tally.items())))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
