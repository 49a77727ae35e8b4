"""Which known bug explains a disagreement (the campaign's summary labels each one).

Each test reproduces the bug's mechanism rather than matching text, so that a label is
evidence, not a guess:

- "fingerprint collision": only fingerprint storage (one process or two workers) differs from
  exact storage, and two reachable states have the same fingerprint (checker.engine.fingerprints's,
  or CPython's hash() before it existed); "... with a state failing a constraint (workers)":
  only the workers differ, and a stored state shares its fingerprint with a generated state
  that fails a constraint; "equal states with different fingerprints (workers ...)": only the
  workers differ, and two equal states (==) have different fingerprints (`equal_states_apart`);
- "constraint semantics": the reference explorer agrees with tlacheck once it skips invariant
  checks on states failing a constraint and reports depth 0 when no initial state is stored
  (tlacheck's semantics before it followed TLC);
- "with binders": tlacheck changes its answer, to the reference's, once every `with a in S, b in T:` of the
  spec is written as nested `with` statements (the same meaning: T is evaluated after a is
  chosen, before the body runs).
- "TLC's trace without its last state" (an oracle bug, fixed in tests/oracle/tlc.py): only TLC
  differs, on trace lengths, by one state less, and TLC run again prints fewer states in its
  violation's trace than its depth (see tlc.py's docstring).
"""

from __future__ import annotations

import re
from collections import Counter

from tlacheck.compile.model import Model
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.core.source import Source
from tlacheck.pipeline.driver import build_model
from tests.oracle import tlc as tlc_runner
from tests.oracle.compare import LIMIT, Outcome, diff, reference_answer, run_tlacheck
from tests.oracle.tla import translate
from tests.reference_explorer import reference_check


_WITH = re.compile(r"^(\s*)with (.*):$")
_BINDER = re.compile(r", (?=w\d+ in )")


def label(o: Outcome) -> str | None:
    """The known bug that explains the disagreement `o`, or None."""
    model = build_model(Source(f"oracle_{o.seed}.spec", o.text))
    # TLC's differences come with tlacheck's own (a known bug makes exact storage differ from TLC
    # as from the reference): the label is decided on those; TLC's alone are not a known bug.
    tools = {t for d in o.diffs if not d.startswith("TLC: ") for t in re.findall(r"vs (\w+)", d)}
    if not tools and _tlc_trace_cut(model, o):
        return "TLC's trace without its last state"
    if tools and tools <= {"fingerprint", "workers2"}:
        collision = _hash_collision(model)
        if collision == "stored":
            return "fingerprint collision"
        if collision == "constraint" and tools == {"workers2"}:
            return "fingerprint collision with a state failing a constraint (workers)"
        if collision == "encoding" and tools == {"workers2"}:
            return "equal states with different fingerprints (workers: bool/int interning)"
    if "reference" in tools and model.ir.constraints:
        exact = run_tlacheck(model, o.check_deadlock, tool="exact")
        legacy = reference_check(model.ir, o.check_deadlock, LIMIT, legacy_constraints=True)
        if diff(exact, reference_answer(legacy)) is None:
            return "constraint semantics"
    nested = nest_withs(o.text)
    if "reference" in tools and nested != o.text:
        again = build_model(Source(f"oracle_{o.seed}.spec", nested))
        nested_answer = run_tlacheck(again, o.check_deadlock, tool="exact")
        first = run_tlacheck(model, o.check_deadlock, tool="exact")
        ref = reference_answer(reference_check(model.ir, o.check_deadlock, LIMIT))
        if diff(nested_answer, first) is not None and diff(nested_answer, ref) is None:
            return "with binders"
    return None


def _tlc_trace_cut(model: Model, o: Outcome) -> bool:
    """Whether every difference is a TLC trace one state shorter than tlacheck's, and TLC, run
    again on the translation, prints fewer states in its violation's trace than its depth."""
    found = [re.search(r"^TLC: .*trace_length: tlacheck (\d+) vs tlc (\d+)$", d) for d in o.diffs]
    if not found or None in found or any(int(m.group(1)) != int(m.group(2)) + 1 for m in found):
        return False
    r = tlc_runner.run(translate(model.ir), o.check_deadlock)
    states = len(re.findall(r"^State \d+: ", r.output, re.M))
    return r.verdict in ("invariant", "temporal") and r.depth is not None and states < r.depth


def _hash_collision(model: Model) -> str | None:
    """Whether two of the states a plain BFS generates (up to an evaluation error) share a
    fingerprint: None, "stored" (two stored states), or "constraint" (a stored state and one that
    fails a constraint: harmless in one process, but the workers remember the fingerprints of
    rejected successors and skip a stored state that shares one)."""
    stored: set = set()
    rejected: set = set()

    def keep(s) -> bool:
        if all(c(s) for _, c in model.constraints):
            return True
        rejected.add(s)
        return False

    try:
        frontier = [s for s in model.init() if keep(s)]
        stored.update(frontier)
        while frontier and len(stored) <= LIMIT:
            nxt = []
            for s in frontier:
                for act in model.actions:
                    for _, t in act(s):
                        if t not in stored and t not in rejected and keep(t):
                            stored.add(t)
                            nxt.append(t)
            frontier = nxt
    except EVAL_FAILURES:
        pass
    fp = _fingerprint(model)
    if max(Counter(map(fp, stored)).values(), default=0) > 1:
        return "stored"
    if equal_states_apart(model, stored):
        return "encoding"
    hashes = set(map(fp, stored))
    return "constraint" if any(fp(s) in hashes for s in rejected) else None


def equal_states_apart(model: Model, states) -> bool:
    """Whether a state has an equal state (Python ==) among the successors of `states` whose
    fingerprint, computed afresh, differs: True == 1 and False == 0 in Python, so the interning
    dictionaries can give a value the equal form of another type, which encodes differently.
    One process's memo of per-slot hashes (keyed by value) hides it; each worker has its own."""
    try:
        from tlacheck.engine.fingerprints import Fingerprinter
    except ImportError:
        return False
    by_value = {s: s for s in states}
    try:
        for s in states:
            for act in model.actions:
                for _, t in act(s):
                    u = by_value.get(t)
                    if u is not None and Fingerprinter(model.var_types)(t) != Fingerprinter(model.var_types)(u):
                        return True
    except EVAL_FAILURES:
        pass
    return False


def _fingerprint(model: Model):
    """The explorers' fingerprint function: checker.engine.fingerprints.Fingerprinter where it exists,
    else CPython's hash() (the fingerprint before the soundness fixes)."""
    try:
        from tlacheck.engine.fingerprints import Fingerprinter
    except ImportError:
        return hash
    return Fingerprinter(model.var_types)


def nest_withs(text: str) -> str:
    """`text` with every `with` of several binders written as nested `with` statements."""
    while True:
        nested = _nest_once(text)
        if nested == text:
            return text
        text = nested


def _nest_once(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _WITH.match(lines[i])
        binders = _BINDER.split(m.group(2)) if m else []
        if len(binders) < 2:
            out.append(lines[i])
            i += 1
            continue
        indent = m.group(1)
        out += [f"{indent}{'    ' * k}with {b}:" for k, b in enumerate(binders)]
        j = i + 1
        while j < len(lines) and len(lines[j]) - len(lines[j].lstrip()) > len(indent):
            out.append("    " * (len(binders) - 1) + lines[j])
            j += 1
        i = j
    return "\n".join(out) + "\n"
