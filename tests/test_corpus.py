"""The broad corpus: each port in specs/corpus/ reproduces TLC's counts exactly.

TLC's counts are in tests/data/tlc_counts/*.json (their README says where each came from).
Models with more than SUITE_LIMIT distinct states are checked only with TLACHECK_CORPUS=all
(`TLACHECK_CORPUS=all python -m pytest tests/test_corpus.py`); the benchmark runs them all.
"""

import json
import os
from pathlib import Path

import pytest

from checker.app.cli import read_source
from checker.compile.model import build_model
from checker.core.result import Verdict
from checker.engine.explore import explore
from checker.engine.options import Options
from tests.conftest import SPECS

COUNTS = Path(__file__).parent / "data" / "tlc_counts"
SUITE_LIMIT = 120_000
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
    ported = {str(p.relative_to(SPECS)) for p in (SPECS / "corpus").glob("*.spec")}
    assert ported <= {e["port"] for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["_file"].removesuffix(".json"))
def test_port_reproduces_tlcs_counts(entry):
    if entry["distinct"] > SUITE_LIMIT and os.environ.get("TLACHECK_CORPUS") != "all":
        pytest.skip(f"{entry['distinct']:,} states: run with TLACHECK_CORPUS=all")
    model = build_model(read_source(str(SPECS / entry["port"])), entry.get("overrides") or None)
    result = explore(model, Options(check_deadlock=entry["check_deadlock"]))
    assert result.verdict == Verdict.OK, result.violation
    assert (result.distinct_states, result.states_generated) == (entry["distinct"], entry["generated"])
    if entry["depth"] is not None:
        assert result.depth == entry["depth"]
