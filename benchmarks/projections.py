"""How often a transition cache would hit: `python -m benchmarks.projections NAME [--max-states N]`.

Issue 35, item 1 caches an action's effects by the projection of the state onto what the action
reads. Before building it, this measures what it could save on a counts entry of
tests/data/tlc_counts (NAME, as `benchmarks.corpus` names them): it explores the port breadth
first to N distinct states (every action of every state, as the search does) and, per action,
counts the (state, action) evaluations and the distinct projections among them, at two grains:

- **variables**: the projection onto the variables the action reads anywhere (its guards, the
  values it assigns, the keys of its targets, its parameters' domains, the functions it calls)
  and the maps it assigns an entry of (the rest of the map is carried over): what the IR gives
  today (`ir.reads`);
- **entries**: per enabled action instance (its parameter values as yielded), a map read only as
  `m[p]` with `p` a parameter of the action (or assigned only at `m[p]`) is projected onto that
  entry, every other read onto the whole variable (`ir.access`, which the transition cache keys
  on too). Only enabled instances are counted here (the
  action yields them); a cache would also hold the disabled ones.

A hit rate is 1 - distinct / evaluations: the share of evaluations an unbounded cache would
answer. It is an upper bound of what item 1 saves (a bounded cache answers less, and a hit still
costs the projection and the lookup)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import deque

from benchmarks.corpus import COUNTS, spec_path
from tlacheck.app.cli import read_source
from tlacheck.pipeline.driver import build_model
from tlacheck.core import runtime
from tlacheck.ir import nodes as ir


def measure(name: str, max_states: int) -> dict:
    e = json.loads((COUNTS / f"{name}.json").read_text())
    model = build_model(read_source(str(spec_path(e))), e.get("overrides") or None)
    freads = ir.function_reads(model.ir.functions)
    sets = [(x.reads, x.read_entries) for x in (ir.access(a, freads) for a in model.ir.actions)]
    all_reads = [sorted(whole | {s for s in entries}) for whole, entries in sets]
    evaluations = [0] * len(sets)
    by_variable = [set() for _ in sets]
    instances = [0] * len(sets)
    by_entry = [set() for _ in sets]
    seen = set(model.init())
    queue = deque(seen)
    while queue:
        state = queue.popleft()
        for ai, act in enumerate(model.actions):
            evaluations[ai] += 1
            by_variable[ai].add(tuple(state[s] for s in all_reads[ai]))
            whole, entries = sets[ai]
            for args, succ in act(state):
                instances[ai] += 1
                by_entry[ai].add((args, tuple(state[s] for s in sorted(whole)),
                                  tuple(runtime.lookup(state[s], args[p], 0) for s, p in sorted(entries.items()))))
                if succ not in seen and len(seen) < max_states:
                    seen.add(succ)
                    queue.append(succ)
    names = model.var_names
    rows = []
    for ai, a in enumerate(model.ir.actions):
        whole, entries = sets[ai]
        rows.append({
            "action": a.name,
            "reads": [names[s] for s in sorted(whole)] + [f"{names[s]}[{a.params[p][0].name}]"
                                                          for s, p in sorted(entries.items())],
            "evaluations": evaluations[ai], "variables_distinct": len(by_variable[ai]),
            "instances": instances[ai], "entries_distinct": len(by_entry[ai])})
    total = sum(evaluations)
    inst = sum(instances)
    return {"model": name, "states": len(seen), "variables": len(names),
            "hit_variables": 1 - sum(r["variables_distinct"] for r in rows) / total if total else 0.0,
            "hit_entries": 1 - sum(r["entries_distinct"] for r in rows) / inst if inst else 0.0,
            "actions": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.projections", description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="+", help="counts entries (tests/data/tlc_counts/NAME.json)")
    ap.add_argument("--max-states", type=int, default=100_000, help="distinct states explored (default 100,000)")
    args = ap.parse_args(argv)
    for name in args.names:
        r = measure(name, args.max_states)
        print(f"{r['model']}: {r['states']:,} states, {r['variables']} variables; hit rate by variables "
              f"{r['hit_variables']:.1%}, by entries (enabled instances) {r['hit_entries']:.1%}")
        for row in r["actions"]:
            print(f"  {row['action']:<24} reads {', '.join(row['reads'])}: {row['evaluations']:,} evaluations, "
                  f"{row['variables_distinct']:,} distinct; {row['instances']:,} instances, "
                  f"{row['entries_distinct']:,} distinct by entries", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
