"""The symmetry reduction against the unreduced search, on generated specs.

`python -m tests.oracle.symmetric --seeds 1:2001` takes each generated spec that declares the
model-value set `Node`, declares it `symmetric` instead, and keeps it when tlacheck accepts the
symmetry (no E123: nothing names a member outside a constant; no W212: no order-dependent
choice). Then:

- the reduced search (fingerprints, one state per orbit; one process and `--workers 2`) and the
  unreduced one (exact storage) must agree on the verdict, the violated check and the length of
  the shortest trace;
- when the unreduced search finds no violation and no constraint applies, the reduced distinct
  count must be the number of orbits of the reachable states, counted here by renaming each
  state with every permutation (Symmetry.orbit), independently of how the key picks the
  renamings it tries (Symmetry.key's signatures);
- the key of every renaming of a reachable state is the key of the state (checked on at most
  400 states per spec).

A summary is printed; every disagreement with its seed. The spec of a seed is
`generate(seed).text` with `const Node` made `symmetric`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field

from tlacheck.core.errors import SpecError
from tlacheck.core.result import Verdict
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.fingerprints import Fingerprinter
from tlacheck.engine.options import Options, Storage
from tlacheck.pipeline.driver import build_model
from tests.oracle.generate import generate

DECLARATION = "const Node: set[model]"
LIMIT = 20_000  # reachable states of the unreduced search at most


@dataclass
class Outcome:
    seed: int
    status: str  # agree, disagree, skipped
    reason: str = ""
    diffs: list[str] = field(default_factory=list)


def symmetric_text(seed: int) -> str | None:
    text = generate(seed).text
    return text.replace(DECLARATION, "symmetric " + DECLARATION, 1) if DECLARATION in text else None


def check_seed(seed: int) -> Outcome:
    g = generate(seed)
    text = symmetric_text(seed)
    if text is None:
        return Outcome(seed, "skipped", "no model values")
    try:
        model = build_model(Source(f"seed-{seed}.spec", text))
    except SpecError as exc:
        return Outcome(seed, "skipped", f"not symmetric: {exc.diagnostics[0].code}")
    if any(w.code == "W212" for w in model.ir.warnings):
        return Outcome(seed, "skipped", "order-dependent choice (W212)")
    if not model.symmetry:
        return Outcome(seed, "skipped", "one member")
    base = Options(check_deadlock=g.check_deadlock, max_states=LIMIT)
    full = explore(model, Options(**{**base.__dict__, "storage": Storage.EXACT, "symmetry": False}))
    if full.verdict == Verdict.INCOMPLETE:
        return Outcome(seed, "skipped", "too large")
    diffs = []
    for workers in (1, 2):
        reduced = explore(model, Options(**{**base.__dict__, "workers": workers}))
        diffs += _compare(full, reduced, f"workers={workers}")
    if full.verdict == Verdict.OK and not model.ir.constraints:
        states = reachable(model)
        count = orbits(model, states)
        if reduced.distinct_states != count:
            diffs.append(f"distinct: {reduced.distinct_states} reduced, {count} orbits of {len(states)} states")
        key = model.symmetry.key(Fingerprinter(model.var_types))
        for s in list(states)[:400]:
            keys = {key(t) for t in model.symmetry.orbit(s)}
            if len(keys) != 1:
                diffs.append(f"the renamings of a state have {len(keys)} keys")
                break
    return Outcome(seed, "disagree" if diffs else "agree", diffs=diffs)


def _compare(full, reduced, label: str) -> list[str]:
    out = []
    if full.verdict != reduced.verdict:
        out.append(f"{label}: verdict {reduced.verdict.value}, unreduced {full.verdict.value}")
        return out
    fv, rv = full.violation, reduced.violation
    if fv is not None and rv is not None:
        if (fv.kind, fv.name) != (rv.kind, rv.name):
            out.append(f"{label}: violates {rv.kind} {rv.name}, unreduced {fv.kind} {fv.name}")
        if len(fv.trace.steps) != len(rv.trace.steps):
            out.append(f"{label}: trace of {len(rv.trace.steps)} states, unreduced {len(fv.trace.steps)}")
    return out


def reachable(model) -> set:
    """Every reachable state (no constraints), by a search of its own."""
    seen = set(model.init())
    todo = list(seen)
    while todo:
        s = todo.pop()
        for act in model.actions:
            for _, t in act(s):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
    return seen


def orbits(model, states: set) -> int:
    """The number of orbits among `states`, renaming each with every permutation."""
    left, count = set(states), 0
    while left:
        left -= model.symmetry.orbit(next(iter(left)))
        count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.oracle.symmetric", description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1:201", help="A:B, the seeds A to B-1 (default 1:201)")
    args = ap.parse_args(argv)
    a, _, b = args.seeds.partition(":")
    outcomes = Counter()
    reasons = Counter()
    bad = []
    for seed in range(int(a), int(b)):
        o = check_seed(seed)
        outcomes[o.status] += 1
        if o.status == "skipped":
            reasons[o.reason] += 1
        if o.status == "disagree":
            bad.append({"seed": seed, "diffs": o.diffs})
            print(f"seed {seed}: {'; '.join(o.diffs)}", flush=True)
    print(json.dumps({"seeds": args.seeds, "outcomes": dict(outcomes), "skipped": dict(reasons.most_common()),
                      "disagreements": bad}, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
