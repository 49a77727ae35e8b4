"""A generated suite on disk: what `tlacheck tests --out DIR` writes, and reading it back.

DIR holds one ITF trace per behaviour (`behaviour-001.itf.json`, ..., shortest first), each state
with the action that reached it and its arguments: tlacheck's `#meta.action` and `#meta.params`,
and Quint's model-based-testing variables `mbt::actionTaken` and `mbt::nondetPicks`; `tests.json`,
the summary (the spec, variant and constants, what was covered and how much, what could not be,
and per behaviour its file and actions); and the manifest of the files written
(output/artefacts.py), so that running the command again replaces its own files only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from tlacheck import __version__
from tlacheck.compile.model import Model
from tlacheck.core.result import Trace
from tlacheck.output import itf
from tlacheck.output.savedtrace import TraceFileError, load, to_trace
from tlacheck.testing.generate import KINDS, Suite

SUMMARY = "tests.json"


def behaviour_file(number: int) -> str:
    return f"behaviour-{number:03d}.itf.json"


def _dumps(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def summary_json(suite: Suite, spec_path: str, variant: str, defines: dict) -> dict:
    model = suite.model
    source = ({"sampled": {"seed": suite.sampled.seed, "traces": suite.sampled.traces, "depth": suite.sampled.depth,
                           "too_large": suite.too_large}}
              if suite.sampled is not None else
              {"explored": {"states": suite.states, "transitions": suite.transitions}})
    return {
        "tlacheck": __version__,
        "spec": spec_path,
        "spec_name": model.name,
        "variant": variant,
        "defines": dict(sorted(defines.items())),
        "cover": suite.cover.value,
        "model": source,
        "kept_together": [{"event": name, "actions": list(actions)} for name, actions in suite.kept_together],
        "coverage": {k: {"covered": suite.coverage.covered[k], "total": suite.coverage.total[k]} for k in KINDS},
        "never_enabled": list(suite.never_enabled),
        "uncoverable": list(suite.uncoverable),
        "uncovered": list(suite.uncovered),
        "limited": suite.limited,
        "behaviours": [{"file": behaviour_file(i + 1), "steps": len(t.steps) - 1,
                        "actions": [model.action_info[s.action].name for s in t.steps[1:]]}
                       for i, t in enumerate(suite.behaviours)],
    }


def report_json(suite: Suite, spec_path: str, variant: str, defines: dict, out: str, removed: list[str]) -> dict:
    """What `tlacheck tests --json` prints: the summary of tests.json after the common header, and
    the folder written with the stale files removed from it (their relative paths)."""
    from tlacheck.output.report import header

    summary = summary_json(suite, spec_path, variant, defines)
    del summary["tlacheck"]  # the header's version says it
    return {**header("tests"), **summary, "out": out, "removed": sorted(removed)}


def suite_files(suite: Suite, spec_path: str, variant: str, defines: dict) -> dict[str, str]:
    """Relative path -> text of the behaviours and the summary (the command line adds the manifest)."""
    files = {}
    for i, trace in enumerate(suite.behaviours):
        data = itf.trace_itf(suite.model, trace, source=spec_path, status="behaviour", variant=variant, mbt=True)
        files[behaviour_file(i + 1)] = _dumps(data)
    files[SUMMARY] = _dumps(summary_json(suite, spec_path, variant, defines))
    return files


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def summary_text(suite: Suite, spec_path: str, variant: str) -> str:
    """What `tlacheck tests` prints: where the behaviours come from, the coverage, each behaviour."""
    model = suite.model
    out = [f"tlacheck {__version__}: tests {spec_path} (spec {model.name}, variant {variant}), "
           f"cover {suite.cover.value}", ""]
    lengths = [len(t.steps) - 1 for t in suite.behaviours]
    if suite.sampled is not None:
        s = suite.sampled
        where = (f"sampled from {_count(s.traces, 'random behaviour')} of at most {s.depth} steps (seed {s.seed})"
                 + (": the model has more states than --max-states" if suite.too_large else ""))
    else:
        where = (f"from the reachable graph ({_count(suite.states, 'state')}, "
                 f"{_count(suite.transitions, 'transition')})")
    out.append(f"{_count(len(lengths), 'behaviour')} ({_steps(lengths)}), {where}.")
    out.append("Coverage:")
    for k in KINDS:
        total = suite.coverage.total[k]
        of = f" of {total:,}" if total is not None else " (of an unknown total: sampled)"
        mark = "  (targeted)" if KINDS.index(k) <= KINDS.index(suite.cover.value) else ""
        out.append(f"  {k:<12} {suite.coverage.covered[k]:,}{of}{mark}")
    for name, actions in suite.kept_together:
        out.append(f"Kept together, as the code takes them in one event (`{name}`): {' then '.join(actions)}.")
    what = "Never enabled" if suite.sampled is None else "Never taken in the behaviours sampled"
    out.append(f"{what}: {', '.join(suite.never_enabled) if suite.never_enabled else 'none'}.")
    for texts, why in ((suite.uncoverable, "they happen only between the steps of an event the code takes in one "
                        "go"), (suite.uncovered, "--max stopped the selection")):
        if not texts:
            continue
        shown = texts[:10]
        numbered = " (states numbered as `tlacheck graph` numbers them)" if any(u.startswith("transition")
                                                                                for u in shown) else ""
        out.append(f"Not covered, {len(texts):,}: {why}{numbered}:")
        out += [f"  {u}" for u in shown]
        if len(texts) > len(shown):
            out.append(f"  ... and {len(texts) - len(shown):,} more ({SUMMARY} lists them all)")
    out.append("")
    for i, t in enumerate(suite.behaviours):
        actions = [model.step_label(s.action, s.args) for s in t.steps[1:]]
        out.append(f"  {behaviour_file(i + 1)}  {_count(len(actions), 'step'):>9}  {', '.join(actions)}")
    return "\n".join(out) + "\n"


def _steps(lengths: list[int]) -> str:
    if not lengths:
        return "none"
    if len(set(lengths)) == 1:
        return _count(lengths[0], "step") + ("" if len(lengths) == 1 else " each")
    if len(lengths) <= 4:
        return ", ".join(str(n) for n in lengths[:-1]) + f" and {lengths[-1]} steps"
    return f"{lengths[0]} to {lengths[-1]} steps"


# ---------------------------------------------------------------- reading back

@dataclass(frozen=True)
class Saved:
    """A behaviour read back: its name (the file's stem) and its trace."""

    name: str
    trace: Trace


def read_suite(folder: str, model: Model) -> list[Saved]:
    """The behaviours `tlacheck tests` wrote into `folder`, in order, as traces of `model`.
    Raises TraceFileError when one does not fit the model."""
    try:
        with open(os.path.join(folder, SUMMARY), encoding="utf-8") as handle:
            summary = json.load(handle)
    except (OSError, ValueError) as exc:
        raise TraceFileError(f"{folder}: no {SUMMARY} of `tlacheck tests` ({exc})") from None
    out = []
    for entry in summary.get("behaviours", []):
        path = os.path.join(folder, entry["file"])
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            trace = to_trace(load(data, model), model)
        except (OSError, ValueError) as exc:
            raise TraceFileError(f"{path}: {exc}") from None
        out.append(Saved(entry["file"].removesuffix(".itf.json"), trace))
    return out
