"""The pattern library (specs/lib/, docs/patterns.md, issue 38): each pattern's expectations hold
under `verify`, its page in docs/patterns.md names it, and a spec that imports it can build on it.

The counts and traces of these specs are checked against the reference explorer, on every worker
count and on Ray, with every other spec in specs/ (tests/conftest.py spec_runs)."""

from __future__ import annotations

import json
import re

import pytest

from tlacheck.app.cli import main
from tests.conftest import ROOT, SPECS

PATTERNS = sorted(p for p in (SPECS / "lib").glob("*.spec") if re.search(r"^expect ", p.read_text(), re.M))
PAGE = ROOT / "docs" / "patterns.md"


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
