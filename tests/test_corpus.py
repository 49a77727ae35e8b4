"""The independent oracle: each port of a TLA+ model (specs/classic/, the first fifteen, and
specs/corpus/, the broad corpus) reproduces TLC's counts exactly, or finds the violation TLC
finds.

TLC's counts are in tests/data/tlc_counts/*.json (their README says where each came from), so
a clone of this repository alone checks its ports against TLC.
Models with more than SUITE_LIMIT distinct states are checked only with TLACHECK_CORPUS=all
(`TLACHECK_CORPUS=all python -m pytest tests/test_corpus.py`); the benchmark runs them all.
"""

import json
import os
import re
from pathlib import Path

import pytest

from tlacheck.app.cli import read_source
from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.pipeline.driver import build_model
from tests.conftest import REFERENCE, SPECS

COUNTS = Path(__file__).parent / "data" / "tlc_counts"
SUITE_LIMIT = 40_000  # above: minutes per model (TLCSailfish1, 109,604 states, takes 3-5)
FIELDS = {"port", "module", "cfg", "folder", "source", "check_deadlock", "distinct", "generated", "depth"}


def _entries() -> list[dict]:
    return [json.loads(p.read_text()) | {"_file": p.name} for p in sorted(COUNTS.glob("*.json"))]


ENTRIES = _entries()


def test_every_counts_file_is_complete_and_names_an_existing_port():
    for e in ENTRIES:
        assert FIELDS <= e.keys(), (e["_file"], FIELDS - e.keys())
        assert e["source"] in ("manifest", "tlc-2.15"), e["_file"]
        if e["source"] == "tlc-2.15":
            assert e.get("command") and e.get("cfg_used"), e["_file"]
        assert (SPECS / e["port"]).is_file(), e["port"]


def test_every_port_has_its_counts():
    ported = {str(p.relative_to(SPECS)) for folder in ("classic", "corpus") for p in (SPECS / folder).glob("*.spec")}
    assert ported <= {e["port"] for e in ENTRIES}
    assert sum(e["port"].startswith("classic/") for e in ENTRIES) >= 15


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["_file"].removesuffix(".json"))
def test_port_reproduces_tlcs_counts(entry):
    if (entry["distinct"] or 0) > SUITE_LIMIT and os.environ.get("TLACHECK_CORPUS") != "all":
        pytest.skip(f"{entry['distinct']:,} states: run with TLACHECK_CORPUS=all")
    model = _model(entry)
    # TLC's counts without the cfg's SYMMETRY: every state (the ports declare the sets symmetric)
    result = explore(model, Options(check_deadlock=entry["check_deadlock"], symmetry=False))
    if entry.get("expected", "success") == "safety failure":
        assert result.verdict == Verdict.INVARIANT_VIOLATED
        assert result.violation.name in entry["invariants"]
        return
    assert entry.get("expected", "success") == "success"
    assert result.verdict == Verdict.OK, result.violation
    assert (result.distinct_states, result.states_generated) == (entry["distinct"], entry["generated"])
    if entry["depth"] is not None:
        assert result.depth == entry["depth"]


SYMMETRY_SUITE_LIMIT = 100_000  # successors times renamings: above, minutes (SimplifiedFastPaxos: 1.9M)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if "with_symmetry" in e],
                         ids=lambda e: e["_file"].removesuffix(".json"))
def test_port_reproduces_tlcs_counts_with_symmetry(entry):
    """TLC's counts with the cfg's SYMMETRY (`Permutations(A) \\cup Permutations(B)`): the ports
    declare those sets `symmetric`, and the search stores one state per orbit."""
    model = _model(entry)
    expected = entry["with_symmetry"]
    if expected["generated"] * (len(model.symmetry.renamings) + 1) > SYMMETRY_SUITE_LIMIT \
            and os.environ.get("TLACHECK_CORPUS") != "all":
        pytest.skip(f"{expected['generated']:,} successors, {len(model.symmetry.renamings) + 1} renamings each: "
                    f"run with TLACHECK_CORPUS=all")
    result = explore(model, Options(check_deadlock=entry["check_deadlock"]))
    assert result.verdict == Verdict.OK, result.violation
    assert (result.distinct_states, result.states_generated, result.depth) == \
        (expected["distinct"], expected["generated"], expected["depth"])


@pytest.mark.parametrize("entry", [e for e in ENTRIES if "invariants" in e], ids=lambda e: e["_file"].removesuffix(".json"))
def test_port_checks_the_cfgs_invariants(entry):
    assert sorted(name for name, _ in _model(entry).invariants) == sorted(entry["invariants"])


def _model(entry: dict):
    return build_model(read_source(str(SPECS / entry["port"])), entry.get("overrides") or None)


def test_the_counts_kept_here_are_the_manifests():
    """The counts files copy TLC's recorded results exactly (checked where the reference copy of
    tlaplus/Examples is beside the project: ../shared/reference/tlaplus-examples)."""
    if not (REFERENCE / "expected.json").exists():
        pytest.skip("../shared/reference is not present")
    recorded = {(e["module"], e["cfg"]): e for e in json.loads((REFERENCE / "expected.json").read_text())}
    for e in ENTRIES:
        # a scaled configuration (TLC's counts measured here) is checked against the one it scales
        r = recorded[(e["module"], e["cfg"])] if "scaled_from" not in e else \
            next(r for r in recorded.values() if r["folder"] == e["folder"] and r["cfg"] == e["scaled_from"])
        assert e["folder"] == r["folder"] and e["check_deadlock"] == (r["check_deadlock"] != "FALSE"), e["_file"]
        if e["source"] == "manifest":
            assert e.get("expected", "success") == r["expected_result"], e["_file"]
            assert (e["distinct"], e["generated"]) == (r.get("distinct_states"), r.get("total_states")), e["_file"]
        elif "with_symmetry" in e:
            assert e["with_symmetry"]["distinct"] == r["distinct_states"], e["_file"]
            assert e["with_symmetry"]["generated"] == r["total_states"], e["_file"]


SCALED = [e for e in ENTRIES if "scaled_from" in e]


def test_issue_35_the_third_batch_is_ported_with_scaled_configurations():
    """The seven folders of the third batch (../shared/reference/tlaplus-examples/README.md) have
    ports, and the scaled configurations TLC's counts were measured on are kept beside them."""
    folders = {e["folder"] for e in ENTRIES}
    assert {"YoYo", "SpecifyingSystems-CachingMemory", "SingleLaneBridge", "nbacc_ray97", "byihive", "tcp",
            "LoopInvariance"} <= folders
    assert len(SCALED) >= 8
    for e in SCALED:
        files = Path(__file__).parent.parent / e["scaled_files"]
        assert (files / e["cfg"]).is_file() and e["source"] == "tlc-2.15", e["_file"]
        # the port checks what the scaled cfg checks: its invariants, with the constants it sets
        assert e["overrides"] and e["only_invariants"] == e["invariants"], e["_file"]
        assert all(re.search(rf"\b{name}\b", (files / e["cfg"]).read_text()) for name in e["invariants"]), e["_file"]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["_file"].removesuffix(".json"))
def test_issue_15_each_port_declares_deadlock_as_its_cfg_says(entry):
    """A cfg's CHECK_DEADLOCK FALSE is the port's `deadlock: allowed`, so that `tlacheck check PORT`
    without flags checks what TLC checks (the counts above pass check_deadlock explicitly)."""
    assert _model(entry).deadlock_allowed == (not entry["check_deadlock"])


INIT = Path(__file__).parent / "data" / "tlc_init"
INIT_ENTRIES = json.loads((INIT / "counts.json").read_text())


@pytest.mark.parametrize("entry", INIT_ENTRIES, ids=lambda e: e["port"].removesuffix(".spec"))
def test_issue_15_initial_predicate_ports_reproduce_tlcs_counts(entry):
    """TLC's counts for the small models of tests/data/tlc_init (its README), recorded there:
    every state satisfying Init counts in states generated."""
    model = build_model(read_source(str(INIT / entry["port"])))
    assert model.deadlock_allowed == (not entry["check_deadlock"])
    assert len(set(model.init())) == len(list(model.init())) == entry["initial"]
    result = explore(model, Options(check_deadlock=entry["check_deadlock"]))
    assert result.verdict == Verdict.OK, result.violation
    assert (result.distinct_states, result.states_generated, result.depth) == \
        (entry["distinct"], entry["generated"], entry["depth"])
    if "with_deadlock_check" in entry:
        checked = explore(model, Options(check_deadlock=True))
        assert checked.verdict.value == entry["with_deadlock_check"]["verdict"]
        assert len(checked.violation.trace.steps) == entry["with_deadlock_check"]["trace_states"]
