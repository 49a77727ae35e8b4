"""The pattern library (specs/lib/, docs/patterns.md, issue 38): each pattern's expectations hold
under `verify`, its page in docs/patterns.md names it, and a spec that imports it can build on it.

The counts and traces of these specs are checked against the reference explorer, on every worker
count and on Ray, with every other spec in specs/ (tests/conftest.py spec_runs)."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tlacheck.app.cli import main
from tests.conftest import ROOT, SPECS
from tests.oracle import tlc

PATTERNS = sorted(p for p in (SPECS / "lib").glob("*.spec") if re.search(r"^expect ", p.read_text(), re.M))
PAGE = ROOT / "docs" / "patterns.md"
TLA = ROOT / "tests" / "patterns_tla"


def test_there_are_patterns():
    assert [p.name for p in PATTERNS], "specs/lib/ has no pattern with expectations"


@pytest.mark.parametrize("path", PATTERNS, ids=lambda p: p.name)
def test_issue_38_every_expectation_of_a_pattern_is_met(path, capsys):
    code = main(["verify", str(path), "--json"])
    data = json.loads(capsys.readouterr().out)
    failed = [r for r in data["rows"] if not r["ok"]]
    assert code == 0 and not failed, failed
    # each pattern shows the failure it guards against and the fix that prevents it
    assert any(r["expected"] == "violates" for r in data["rows"])
    assert any(r["expected"] == "holds" for r in data["rows"])


@pytest.mark.parametrize("path", PATTERNS, ids=lambda p: p.name)
def test_issue_38_every_pattern_has_its_page(path):
    name = re.search(r"^spec (\w+)", path.read_text(), re.M).group(1)
    page = PAGE.read_text()
    assert f"specs/lib/{path.name}" in page and re.search(rf"^## .*\b{name}\b", page, re.M | re.I)


LEASE_USER = '''spec Jobs
import "lease.spec"

# The user's own state, written by the lease holder: the job's result and the token it came with.
var result: int = 0

action Commit(c in Clients):
    require held[c] != 0 and held[c] >= accepted
    result = held[c]

invariant NewestResult: result <= token
'''


def test_issue_38_a_spec_builds_on_the_lease_pattern(tmp_path, capsys):
    (tmp_path / "lease.spec").write_text((SPECS / "lib" / "lease.spec").read_text())
    (tmp_path / "jobs.spec").write_text(LEASE_USER)
    code = main(["check", str(tmp_path / "jobs.spec"), "--json", "-D", "Horizon=3"])
    data = json.loads(capsys.readouterr().out)
    # the pattern's own invariant comes with it: the base lease loses an update
    assert code == 12 and data["violation"]["name"] == "NoLostUpdate"
    code = main(["check", str(tmp_path / "jobs.spec"), "--json", "--invariant", "NewestResult"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["verdict"] == "ok"


# The patterns written in TLA+ by hand (tests/patterns_tla/), checked by TLC: an oracle that shares
# no code with tlacheck. (spec file, variant, TLA+ module, cfg body, TLC's verdict)
TLC_CASES = [
    ("lease.spec", "base", "Lease", "SPECIFICATION SpecB\nINVARIANT NoLostUpdate\n", "invariant"),
    ("lease.spec", "Fenced", "Lease", "SPECIFICATION SpecF\nINVARIANT NoLostUpdate\n", "ok"),
    ("at_least_once_queue.spec", "base", "AtLeastOnceQueue", "SPECIFICATION Spec\nINVARIANT EffectOnce\n",
     "invariant"),
    ("at_least_once_queue.spec", "base", "AtLeastOnceQueue", "SPECIFICATION Spec\nPROPERTY Live\n", "ok"),
    ("read_generate_write.spec", "base", "ReadGenerateWrite", "SPECIFICATION Spec\nINVARIANT NoStaleWrite\n",
     "invariant"),
    ("read_generate_write.spec", "base", "ReadGenerateWrite", "SPECIFICATION Spec\nPROPERTY Live\n", "ok"),
    ("read_generate_write.spec", "CompareAndSwap", "ReadGenerateWrite",
     "SPECIFICATION SpecCas\nINVARIANT NoStaleWrite\nPROPERTY Live\n", "ok"),
    ("retry_with_idempotency_key.spec", "base", "RetryWithIdempotencyKey", "SPECIFICATION Spec\nINVARIANT AppliedOnce\n",
     "invariant"),
    ("retry_with_idempotency_key.spec", "base", "RetryWithIdempotencyKey", "SPECIFICATION Spec\nPROPERTY Live\n", "ok"),
    ("retry_with_idempotency_key.spec", "IdempotencyKey", "RetryWithIdempotencyKey",
     "SPECIFICATION SpecKey\nINVARIANT AppliedOnce\nPROPERTY Live\n", "ok"),
    ("durable_workflow.spec", "base", "DurableWorkflow", "SPECIFICATION Spec\nINVARIANT EffectsNotRepeated\n",
     "invariant"),
    ("durable_workflow.spec", "base", "DurableWorkflow", "SPECIFICATION Spec\nPROPERTY Live\n", "ok"),
    ("durable_workflow.spec", "IdempotencyKey", "DurableWorkflow",
     "SPECIFICATION SpecKey\nINVARIANT EffectsNotRepeated\nPROPERTY Live\n", "ok"),
    ("durable_workflow.spec", "KeyPerAttempt", "DurableWorkflow",
     "SPECIFICATION SpecAttempt\nINVARIANT EffectsNotRepeated\n", "invariant"),
    ("durable_workflow.spec", "Transactional", "DurableWorkflow",
     "SPECIFICATION SpecTx\nINVARIANT EffectsNotRepeated\nPROPERTY Live\n", "ok"),
    ("cancellation.spec", "base", "Cancellation", "SPECIFICATION Spec\nINVARIANT NothingLeftBehind\n", "invariant"),
    ("cancellation.spec", "base", "Cancellation", "SPECIFICATION Spec\nPROPERTY Live\n", "temporal"),
    ("cancellation.spec", "WithdrawOnly", "Cancellation", "SPECIFICATION SpecWithdraw\nINVARIANT NothingLeftBehind\n",
     "invariant"),
    ("cancellation.spec", "WithdrawOnly", "Cancellation", "SPECIFICATION SpecWithdraw\nPROPERTY Live\n", "temporal"),
    ("cancellation.spec", "ReleaseOnCancel", "Cancellation",
     "SPECIFICATION SpecRelease\nINVARIANT NothingLeftBehind\nPROPERTY Live\n", "ok"),
    ("approval_gate.spec", "base", "ApprovalGate", "SPECIFICATION Spec\nINVARIANT NoActionWithoutApproval\n",
     "invariant"),
    ("approval_gate.spec", "base", "ApprovalGate", "SPECIFICATION Spec\nINVARIANT ApprovalNotReused\n", "invariant"),
    ("approval_gate.spec", "base", "ApprovalGate", "SPECIFICATION Spec\nPROPERTY RunsOnlyTheApprovedCall\n", "step"),
    ("approval_gate.spec", "BoundApproval", "ApprovalGate",
     "SPECIFICATION SpecBound\nINVARIANT NoActionWithoutApproval\nINVARIANT ApprovalNotReused\n"
     "PROPERTY RunsOnlyTheApprovedCall\n", "ok"),
    ("late_tool_answer.spec", "base", "LateToolAnswer", "SPECIFICATION Spec\nINVARIANT NoStaleResult\n", "invariant"),
    ("late_tool_answer.spec", "base", "LateToolAnswer", "SPECIFICATION Spec\nPROPERTY ActsOnItsOwnRead\n", "step"),
    ("late_tool_answer.spec", "base", "LateToolAnswer", "SPECIFICATION Spec\nPROPERTY Live\n", "ok"),
    ("late_tool_answer.spec", "MatchCallId", "LateToolAnswer",
     "SPECIFICATION SpecId\nINVARIANT NoStaleResult\nPROPERTY Live\nPROPERTY ActsOnItsOwnRead\n", "ok"),
]
# the property each TLA+ `Live` stands for
LIVE = {"AtLeastOnceQueue": "EveryMessageProcessed", "ReadGenerateWrite": "EveryAgentFinishes",
        "RetryWithIdempotencyKey": "EveryRequestSettles", "DurableWorkflow": "WorkflowCompletes",
        "Cancellation": "NoTaskWaitsForever", "LateToolAnswer": "AgentFinishes"}


@pytest.mark.skipif(tlc.available() is not None, reason=f"TLC cannot run here: {tlc.available()}")
@pytest.mark.parametrize("spec,variant,module,cfg,verdict", TLC_CASES)
def test_issue_38_the_patterns_agree_with_tlc(tmp_path, capsys, spec, variant, module, cfg, verdict):
    text = (TLA / f"{module}.tla").read_text()
    consts = sorted({c for line in re.findall(r"^CONSTANTS (.*)$", text, re.M) for c in line.split(", ")})
    (tmp_path / f"{module}.tla").write_text(text)
    (tmp_path / "M.cfg").write_text("".join(f"CONSTANTS {c} = {c}\n" for c in consts) + cfg)
    proc = subprocess.run(tlc.command(tmp_path, "M.cfg", f"{module}.tla"), cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    theirs = tlc.parse(proc.stdout + proc.stderr, proc.returncode)
    # a step property's violation (TLC: "Action property ... is violated") is a temporal verdict to TLC
    assert theirs.verdict == {"step": "temporal"}.get(verdict, verdict), theirs.output[-2000:]
    # the checks TLC checks: one invariant or one property (of the same name; `Live` stands for the
    # liveness property LIVE names), or every check of the variant
    checks = re.findall(r"^(INVARIANT|PROPERTY) (\w+)$", cfg, re.M)
    only = []
    if len(checks) == 1:
        kind, name = checks[0]
        only = ["--invariant" if kind == "INVARIANT" else "--property", LIVE[module] if name == "Live" else name]
    main(["check", str(SPECS / "lib" / spec), "--json", "--variant", variant, *only])
    ours = json.loads(capsys.readouterr().out)
    if verdict in ("ok", "temporal"):  # the whole state space: the same distinct states and successors generated
        assert ours["verdict"] == {"ok": "ok", "temporal": "liveness_violated"}[verdict]
        assert (ours["distinct_states"], ours["states_generated"]) == (theirs.distinct, theirs.generated)
    else:  # the same shortest counterexample's length (TLC prints its states)
        assert ours["verdict"] == "invariant_violated" and len(ours["violation"]["trace"]) == theirs.trace_length
        assert ours["violation"]["kind"] == ("step" if verdict == "step" else "invariant")
