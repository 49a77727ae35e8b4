"""The differential campaign: `python -m tests.oracle --seeds 1:20001 [--tlc] [--jobs 1] [--out DIR]`.

Checks the spec of every seed in [A, B) with tests/oracle/compare.py (TLC too with --tlc) and
writes into DIR (default oracle-out):

- results.jsonl: one line per seed checked, with the commit checked (the campaign is resumable: seeds already there
  are not checked again, so an interrupted run goes on where it stopped);
- summary.json (summary-tlc.json with --tlc): counts per outcome, per feature (how many
  agreeing, disagreeing, ... specs used each feature) and per class of features (CLASSES),
  every disagreement with its seed and
  the known bug that explains it (tests/oracle/triage.py; null: none does), every generator
  or translator bug;
- for every seed that did not agree: seed-N.spec (the spec; the first comment line says how
  to check it) and, when TLC took part, seed-N.tla (the translation and its cfg).

The summary is also printed. A seed reproduces its spec and its outcome exactly.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tests.oracle import tlc as tlc_runner
from tests.oracle.compare import Outcome, check_seed
from tests.oracle.generate import generate
from tests.oracle.triage import label


INTERESTING = ("disagree", "generator-bug", "translator-bug")

# Feature classes for the summary (the first that matches a feature's name): a spec counts in a
# class when it uses one of its features.
CLASSES = [
    ("reachable checks", ("reachable",)),
    ("temporal properties and fairness", ("always", "eventually", "leads_to", "property", "fair-")),
    ("nested state", ("nested-type", "set-of-", "map-of-", "seq-of-", "record-of-", "init-choice-nested")),
    ("int-keyed and partial maps", ("map-int-keys", "map-partial", "map-domain-", "map-comprehension-partial",
                                    "read-partial-map", "assign-partial-map")),
    ("map entries assigned", ("assign-map-entry", "map-key-", "map-assign-", "map-whole-then-entry",
                              "assign-partial-map-entry")),
    ("nested paths", ("read-nested", "assign-nested", "read-path-", "assign-path-", "step-action-nested")),
    ("canonical order (choose, sequence comprehensions)", ("choose", "seq-comprehension", "generators-several")),
    ("constraints", ("constraint",)),
    ("intended evaluation errors", ("intended-error", "bounded-seq")),
]


def feature_class(feature: str) -> str:
    return next((name for name, prefixes in CLASSES if feature.startswith(prefixes)), "other")


def _check(args: tuple[int, bool]) -> Outcome:
    return check_seed(*args)


def _seeds(text: str) -> range:
    a, _, b = text.partition(":")
    return range(int(a), int(b) if b else int(a) + 1)


def summarise(rows: list[dict]) -> dict:
    """Counts per outcome and per feature, and the seeds of every non-agreeing outcome."""
    outcomes = Counter(r["status"] for r in rows)
    features: dict[str, Counter] = defaultdict(Counter)
    classes: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        for f in r["features"]:
            features[f][r["status"]] += 1
        for c in {feature_class(f) for f in r["features"]} - {"other"}:
            classes[c][r["status"]] += 1
    reasons = Counter(f"{r['status']}: {r['reason']}" for r in rows if r["status"] in ("skipped", "error")
                      or r["status"] in INTERESTING and r["reason"])
    return {
        "specs": len(rows),
        # specs checked per commit (rows written before rows named theirs: "unrecorded")
        "commits": dict(Counter(r.get("commit", "unrecorded") for r in rows).most_common()),
        "outcomes": dict(sorted(outcomes.items())),
        "reasons": dict(reasons.most_common()),
        "features": {f: dict(sorted(c.items())) for f, c in sorted(features.items())},
        "classes": {name: dict(sorted(classes[name].items())) for name, _ in CLASSES},
        "known_bugs": dict(Counter(str(r.get("known")) for r in rows if r["status"] == "disagree").most_common()),
        "disagreements": [{"seed": r["seed"], "known": r.get("known"), "diffs": r["diffs"], "tlc": r.get("tlc", False)}
                          for r in rows if r["status"] == "disagree"],
        "bugs": [{"seed": r["seed"], "status": r["status"], "reason": r["reason"]}
                 for r in rows if r["status"] in ("generator-bug", "translator-bug")],
    }


def class_table(summary: dict) -> str:
    """The summary's outcomes per class of features, as the markdown table docs/reliability.md
    shows (a spec counts in every class one of its features belongs to)."""
    lines = ["| class | specs | agree | same evaluation error | other |", "| --- | --- | --- | --- | --- |"]

    def line(name: str, counts: dict) -> str:
        n, agree, error = sum(counts.values()), counts.get("agree", 0), counts.get("error", 0)
        return f"| {name} | {n:,} | {agree:,} | {error:,} | {n - agree - error:,} |"

    lines += [line(name, summary["classes"].get(name, {})) for name, _ in CLASSES]
    lines.append(line("all", summary["outcomes"]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.oracle", description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1:201", help="A:B, the seeds A to B-1 (default 1:201)")
    ap.add_argument("--tlc", action="store_true", help="compare with TLC too (one JVM per spec)")
    ap.add_argument("--jobs", type=int, default=1, help="processes checking seeds in parallel (default 1)")
    ap.add_argument("--out", default="oracle-out", help="directory of the results (default oracle-out)")
    ap.add_argument("--relabel", action="store_true",
                    help="label every disagreement again with tests/oracle/triage.py before summarising")
    ap.add_argument("--markdown", action="store_true",
                    help="also print the outcomes per class of features as a markdown table")
    ap.add_argument("--summarise", action="store_true",
                    help="check no seed: only summarise the results of --seeds already in --out")
    ap.add_argument("--against", metavar="REV",
                    help="also say whether the code the campaign ran (every module of checker/ and tests/ that "
                         "checking a seed loads) is the same at REV as at the commits the rows record")
    args = ap.parse_args(argv)
    if args.tlc and tlc_runner.available():
        print(f"--tlc: {tlc_runner.available()}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    done = {(r["seed"], r.get("tlc", False)) for r in rows}
    todo = [] if args.summarise else [s for s in _seeds(args.seeds) if (s, args.tlc) not in done]
    start = time.monotonic()
    commit = _commit()
    # Not multiprocessing.Pool: its processes are daemonic, and tlacheck's workers=2 starts
    # processes of its own, which a daemonic process may not have.
    with results.open("a") as fh, ProcessPoolExecutor(args.jobs) if args.jobs > 1 else _Serial() as pool:
        for i, o in enumerate(pool.map(_check, [(s, args.tlc) for s in todo])):
            row = o.as_json() | {"tlc": args.tlc, "commit": commit}
            if o.status == "disagree":
                row["known"] = _label(o)
            rows.append(row)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            if o.status not in ("agree", "error", "skipped"):
                header = f"# seed {o.seed}: {o.status} {o.reason}; check with{'' if o.check_deadlock else ' --no-deadlock'}\n"
                (out / f"seed-{o.seed}.spec").write_text(header + "".join(f"# {d}\n" for d in o.diffs) + o.text)
                if o.tla is not None:
                    (out / f"seed-{o.seed}.tla").write_text(
                        o.tla + "\n(* TLC's report:\n" + o.tlc_output.replace("*)", "* )") + "\n*)\n")
                known = f"[{row['known']}] " if row.get("known") else ""
                print(f"seed {o.seed}: {o.status} {known}{o.reason} {'; '.join(o.diffs)}", flush=True)
            if (i + 1) % 500 == 0:
                print(f"... {i + 1} of {len(todo)} seeds in {time.monotonic() - start:.0f}s", flush=True)
    mine = [r for r in rows if r["seed"] in set(_seeds(args.seeds)) and r.get("tlc", False) == args.tlc]
    for r in mine:  # rows written before triage existed (or all, with --relabel)
        if r["status"] == "disagree" and ("known" not in r or args.relabel):
            g = generate(r["seed"])
            r["known"] = _label(Outcome(r["seed"], r["status"], diffs=r["diffs"], text=g.text,
                                        check_deadlock=g.check_deadlock))
    summary = summarise(mine) | {"seeds": args.seeds, "tlc": args.tlc}
    if args.against:
        summary["code_under_test"] = code_under_test(summary["commits"], args.against)
    (out / f"summary{'-tlc' if args.tlc else ''}.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({k: summary[k] for k in ("specs", "commits", "outcomes", "reasons", "known_bugs",
                                              "code_under_test") if k in summary}, indent=1))
    print(f"{len(summary['disagreements'])} disagreements; summary in {out}/summary{'-tlc' if args.tlc else ''}.json")
    if args.markdown:
        print(class_table(summary))
    return 1 if summary["disagreements"] or summary["bugs"] else 0


def code_under_test(commits: dict, rev: str) -> dict:
    """Whether the campaign's verdict carries over to `rev`: the files of every module under
    checker/ and tests/ that checking two seeds loads (with `--workers 2`, exact storage and the
    reference explorer, as every seed is checked; the TLC runner and translator are loaded
    always), and, per commit the rows record, those of them that differ at `rev` (none: the
    campaign ran exactly the code `rev` has). A commit with "+changes" ran uncommitted code:
    it cannot be compared."""
    root = Path(__file__).resolve().parents[2]
    probe = ("import sys\nfrom tests.oracle.compare import check_seed\ncheck_seed(1, False)\ncheck_seed(2, False)\n"
             "print('\\n'.join(sorted(m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None))))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True).stdout
    files = sorted({Path(f).resolve().relative_to(root).as_posix() for f in loaded.split()
                    if Path(f).resolve().is_relative_to(root) and Path(f).resolve().relative_to(root).parts[0]
                    in ("checker", "tests")})
    differs: dict[str, list[str] | str] = {}
    for commit in commits:
        if commit.endswith("+changes") or commit in ("unknown", "unrecorded"):
            differs[commit] = "ran uncommitted or unrecorded code: not comparable"
            continue
        out = subprocess.run(["git", "diff", "--name-only", commit, rev, "--", *files], cwd=root,
                             capture_output=True, text=True, check=True).stdout.split()
        differs[commit] = out
    return {"against": rev, "files": len(files), "differs": differs,
            "same": all(v == [] for v in differs.values())}


def _commit() -> str:
    """The commit the campaign checks (each row records it): HEAD, with "+changes" when the
    checker or the oracle differ from it; "unknown" outside a git checkout."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--", "checker", "tests"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if changed else "")


def _label(o: Outcome) -> str | None:
    try:
        return label(o)
    except Exception as exc:  # noqa: BLE001 - a triage failure must not stop the campaign
        return f"triage failed: {type(exc).__name__}: {exc}"


class _Serial:
    """The executor's map, in this process."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @staticmethod
    def map(fn, items):
        return map(fn, items)


if __name__ == "__main__":
    sys.exit(main())
