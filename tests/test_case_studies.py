"""docs/case-studies/: each page's pasted `tlacheck verify` table is the table verify prints now.

Compared per row: variant, check, expected, got, states and trace length (the time column
is left out: it changes between runs). Also checked: every diagram a page embeds exists in
counterexamples/, and every spec a page links to exists.
"""

import re

import pytest

from tlacheck.app.cli import read_source
from tlacheck.app.verify import verify_source
from tests.conftest import ROOT


PAGES = sorted((ROOT / "docs" / "case-studies").glob("*.md"))


def _quoted_rows(page: str, spec: str) -> list[tuple]:
    block = page.split(f"$ tlacheck verify specs/{spec}.spec\n")[1].split("```")[0]
    rows = []
    for line in block.split("\n")[2:]:  # after the header and the rule
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        # spec, variant, check, expected, "ok got", [states,] time[, trace]: a theorem has no states
        states = cells[5] if len(cells) > 6 else ""
        trace = cells[7] if len(cells) > 7 else ""
        rows.append((cells[1], cells[2], cells[3], cells[4].split()[-1], states, trace))
    return rows


def test_there_is_a_page_per_seed():
    assert [p.stem for p in PAGES] == ["agent_routing", "fork_teammate", "notify_race"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_the_pasted_verify_table_is_current(page):
    text = page.read_text(encoding="utf-8")
    rows = verify_source(read_source(str(ROOT / "specs" / f"{page.stem}.spec")))
    now = [(r.variant, r.check, r.expected, r.got, f"{r.states:,}" if r.states is not None else "",
            str(r.trace_length) if r.trace_length is not None else "") for r in rows]
    assert _quoted_rows(text, page.stem) == now, f"re-run `tlacheck verify` and paste the table into {page.name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_linked_files_exist(page):
    text = page.read_text(encoding="utf-8")
    links = re.findall(r"\]\((\.\./\.\./(?:counterexamples|specs)/[^)#]+)\)", text)
    assert any(link.endswith(".svg") for link in links)
    for link in links:
        assert (page.parent / link).resolve().exists(), link
