"""The language additions of issue 38 item 3 against TLC: each spec of tests/data/language/ has a
TLA+ module beside it, written by hand (an oracle that shares no code with tlacheck); TLC and
tlacheck must give the same verdict, and the same distinct states and states generated on a
complete search (the same shortest counterexample's length on a violation)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tlacheck.app.cli import main
from tests.conftest import ROOT
from tests.oracle import tlc

DATA = ROOT / "tests" / "data" / "language"

# (spec file, tlacheck's arguments, TLA+ module, its cfg, TLC's verdict)
NARROWING = ("CONSTANTS Node = {n1, n2, n3}\nNoOne = NoOne\nSPECIFICATION Spec\nINVARIANT Exclusive\n"
             "INVARIANT LastServed\nCONSTRAINT Small\n")
FAIR_SOME = "CONSTANTS Procs = {1, 2, 3}\nCorrect = {1, 2}\n"
QUEUE = ("CONSTANTS Worker = {w1, w2, w3}\nCap = 2\nNoOne = NoOne\nINVARIANT Bounded\nINVARIANT Once\n")
TIMERS = "CONSTANTS Period = 2\nDelay = 1\nTimeout = {}\nSPECIFICATION Spec\n"
CASES = [
    # symmetric: the orbits, as TLC's SYMMETRY counts them; --no-symmetry: every state
    ("option_narrowing.spec", [], "OptionNarrowing", NARROWING + "SYMMETRY Perms\n", "ok"),
    ("option_narrowing.spec", ["--no-symmetry"], "OptionNarrowing", NARROWING, "ok"),
    ("enabled_guard.spec", [], "EnabledGuard",
     "CONSTANTS Procs = {p1, p2, p3}\nNoOne = NoOne\nSPECIFICATION Spec\nINVARIANT NoNeedlessGiveUp\n", "ok"),
    ("enabled_guard.spec", ["--variant", "Impatient"], "EnabledGuard",
     "CONSTANTS Procs = {p1, p2, p3}\nNoOne = NoOne\nSPECIFICATION SpecImpatient\nINVARIANT NoNeedlessGiveUp\n",
     "invariant"),
    ("step_conjunction.spec", [], "StepConjunction", "SPECIFICATION Spec\nPROPERTY Grows\n", "ok"),
    ("step_conjunction.spec", ["--variant", "Reset"], "StepConjunction", "SPECIFICATION SpecReset\nPROPERTY Grows\n",
     "temporal"),
    ("step_conjunction.spec", ["--variant", "Overflow"], "StepConjunction",
     "SPECIFICATION SpecOverflow\nPROPERTY Grows\n", "temporal"),
    ("action_step.spec", [], "ActionStep", "CONSTANTS Clients = {1, 2}\nSPECIFICATION Spec\nPROPERTY WriteByHolder\n"
     "PROPERTY EpochOnlyOnAcquire\nPROPERTY ReleaseFrees\n", "ok"),
    ("action_step.spec", ["--variant", "Steal", "--property", "WriteByHolder", "--property", "ReleaseFrees"],
     "ActionStep", "CONSTANTS Clients = {1, 2}\nSPECIFICATION SpecSteal\nPROPERTY WriteByHolder\nPROPERTY ReleaseFrees\n",
     "ok"),
    ("action_step.spec", ["--variant", "Steal"], "ActionStep",
     "CONSTANTS Clients = {1, 2}\nSPECIFICATION SpecSteal\nPROPERTY EpochOnlyOnAcquire\n", "temporal"),
    # fairness of a formula: one condition over the correct processes, with and without a filter
    ("fair_some.spec", ["--property", "CorrectStarted"], "FairSome", FAIR_SOME + "SPECIFICATION Spec\n"
     "PROPERTY CorrectStarted\n", "ok"),
    ("fair_some.spec", ["--property", "CorrectEmpty"], "FairSome", FAIR_SOME + "SPECIFICATION Spec\n"
     "PROPERTY CorrectEmpty\n", "liveness"),
    ("fair_some.spec", ["--variant", "Every", "--property", "CorrectEmpty"], "FairSome",
     FAIR_SOME + "SPECIFICATION SpecEvery\nPROPERTY CorrectEmpty\n", "ok"),
    ("fair_some.spec", ["--variant", "Every", "--property", "AllEmpty"], "FairSome",
     FAIR_SOME + "SPECIFICATION SpecEvery\nPROPERTY AllEmpty\n", "liveness"),
    # a queue built from a symmetric set in every order: the orbits as TLC's SYMMETRY counts them, and
    # every state without it; the violated variant with and without symmetry
    ("symmetric_queue.spec", [], "SymmetricQueue", QUEUE + "SPECIFICATION Spec\nSYMMETRY Perms\n", "ok"),
    ("symmetric_queue.spec", ["--no-symmetry"], "SymmetricQueue", QUEUE + "SPECIFICATION Spec\n", "ok"),
    ("symmetric_queue.spec", ["--variant", "Twice"], "SymmetricQueue",
     QUEUE + "SPECIFICATION SpecTwice\nSYMMETRY Perms\n", "invariant"),
    ("symmetric_queue.spec", ["--variant", "Twice", "--no-symmetry"], "SymmetricQueue",
     QUEUE + "SPECIFICATION SpecTwice\n", "invariant"),
    # timers as countdowns: a timeout shorter than a period and a delay suspects a live node
    ("timers.spec", [], "Timers", TIMERS.format(3) + "INVARIANT NoFalseSuspicion\n", "invariant"),
    ("timers.spec", ["--property", "Detects"], "Timers", TIMERS.format(3) + "PROPERTY Detects\n", "ok"),
    ("timers.spec", ["--variant", "Patient"], "Timers",
     TIMERS.format(4) + "INVARIANT NoFalseSuspicion\nPROPERTY Detects\n", "ok"),
    ("assume.spec", [], "Assume", "CONSTANTS N = 4\nF = 1\nSPECIFICATION Spec\n", "ok"),
    ("assume.spec", ["-D", "N=3"], "Assume", "CONSTANTS N = 3\nF = 1\nSPECIFICATION Spec\n", "assumption"),
]


def _tlc(tmp_path, module: str, cfg: str) -> tlc.TlcResult:
    (tmp_path / f"{module}.tla").write_text((DATA / f"{module}.tla").read_text())
    (tmp_path / "M.cfg").write_text(cfg)
    proc = subprocess.run(tlc.command(tmp_path, "M.cfg", f"{module}.tla"), cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    return tlc.parse(proc.stdout + proc.stderr, proc.returncode)


@pytest.mark.skipif(tlc.available() is not None, reason=f"TLC cannot run here: {tlc.available()}")
@pytest.mark.parametrize("spec,args,module,cfg,verdict", CASES, ids=lambda x: x if isinstance(x, str) else None)
def test_issue_38_language_additions_agree_with_tlc(tmp_path, capsys, spec, args, module, cfg, verdict):
    theirs = _tlc(tmp_path, module, cfg)
    code = main(["check", str(DATA / spec), "--json", *args])
    ours = json.loads(capsys.readouterr().out)
    if verdict == "assumption":  # TLC: "Assumption ... is false"; tlacheck: E133 before exploring
        assert theirs.verdict == "error" and "Assumption line" in theirs.output, theirs.output[-2000:]
        assert code == 3 and [e["code"] for e in ours["errors"]] == ["E133"]
        return
    if verdict == "liveness":  # a fair behaviour violates it; TLC's lasso is not the shortest one, ours is
        assert theirs.verdict == "temporal", theirs.output[-2000:]
        assert ours["verdict"] == "liveness_violated"
        return
    assert theirs.verdict == verdict, theirs.output[-2000:]
    if verdict == "ok":
        assert ours["verdict"] == "ok"
        assert (ours["distinct_states"], ours["states_generated"]) == (theirs.distinct, theirs.generated)
    else:
        assert ours["verdict"] != "ok" and len(ours["violation"]["trace"]) == theirs.trace_length
