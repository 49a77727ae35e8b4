"""Shrink a disagreeing spec: `python -m tests.oracle.minimise SEED [--tlc] [--out FILE]`.

Removes lines of the spec of SEED (a line together with the lines indented under it), one at
a time, keeping a removal when the smaller spec still builds and still disagrees in the same
way: the same fields differ between the same tools (e.g. "generated" between exact and
reference). Repeats until no line can go. Deterministic; the result is printed (and written
to FILE), ready to be finished by hand.
"""

from __future__ import annotations

import argparse
import re
import sys

from tests.oracle.compare import check_spec
from tests.oracle.generate import GeneratedSpec, generate


_DIFF = re.compile(r"(\w+): (\w+) .*? vs (\w+)")


def signature(diffs: list[str]) -> frozenset:
    """What a disagreement is about: (field, tool, tool) for every difference."""
    return frozenset(m.groups() for d in diffs for part in d.split("; ") if (m := _DIFF.search(part)))


def _without(lines: list[str], i: int) -> list[str]:
    indent = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
        j += 1
    return lines[:i] + lines[j:]


def minimise(g: GeneratedSpec, tlc: bool = False) -> str:
    """The smallest spec found that disagrees as `g` does (g itself if it agrees)."""
    first = check_spec(g, tlc)
    want = signature(first.diffs)
    if first.status != "disagree" or not want:
        return g.text
    lines = g.text.splitlines()
    changed = True
    while changed:
        changed = False
        i = 1  # keep the `spec` line
        while i < len(lines):
            candidate = _without(lines, i)
            o = check_spec(GeneratedSpec(g.seed, "\n".join(candidate) + "\n", g.check_deadlock, g.features), tlc)
            if o.status == "disagree" and signature(o.diffs) >= want:
                lines, changed = candidate, True
            else:
                i += 1
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.oracle.minimise", description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--tlc", action="store_true", help="compare with TLC too (slow: one JVM per try)")
    ap.add_argument("--out", help="also write the result to this file")
    args = ap.parse_args(argv)
    g = generate(args.seed)
    text = minimise(g, args.tlc)
    o = check_spec(GeneratedSpec(g.seed, text, g.check_deadlock, g.features), args.tlc)
    report = (f"# seed {args.seed}, deadlock check {'on' if g.check_deadlock else 'off'}: {o.status}\n"
              + "".join(f"# {d}\n" for d in o.diffs) + text)
    print(report, end="")
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
