"""The property templates (docs/templates.md, issue 38 item 2): each has its section on the page,
an example whose base violates it and whose fixed variant holds it (checked by `verify` and by
`check` on the template's own check), and the fairness the page says it needs, no more: drop any
one fairness line of the example and the fixed variant violates the property."""

from __future__ import annotations

import json
import re

import pytest

from tlacheck.app.cli import main
from tlacheck.editing.starter import TEMPLATES
from tests.conftest import ROOT, SPECS

PAGE = ROOT / "docs" / "templates.md"


def _section(title: str) -> str:
    text = PAGE.read_text()
    start = text.index(f"\n## {title[0].upper()}{title[1:]}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def test_issue_38_the_templates_page_is_linked():
    assert "(templates.md)" in (ROOT / "docs" / "patterns.md").read_text()
    assert "(docs/templates.md)" in (ROOT / "README.md").read_text()
    assert len(TEMPLATES) == 7


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.name)
def test_issue_38_every_template_has_its_section(template):
    section = _section(template.summary)
    assert f"specs/{template.path}" in section and re.search(rf"\b{template.check}\b", section)
    assert "**In your words**" in section and "**In TLA+**" in section and "**Fairness" in section
    # the link `tlacheck new` writes into the spec it starts leads to this section
    assert template.page.startswith("docs/templates.md#") and template.page.split("#")[1] == _anchors(section).pop()


def test_issue_38_every_template_example_is_a_template():
    own = sorted(str(p.relative_to(SPECS)) for p in (SPECS / "templates").glob("*.spec"))
    assert own and set(own) <= {t.path for t in TEMPLATES}


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.name)
def test_issue_38_every_template_is_violated_by_its_base_and_held_by_its_fix(template, capsys):
    path = str(SPECS / template.path)
    assert main(["verify", path]) == 0
    capsys.readouterr()
    kind = "--property" if re.search(rf"^property {template.check}:", (SPECS / template.path).read_text(), re.M) \
        else "--invariant"
    code = main(["check", path, "--json", kind, template.check])
    base = json.loads(capsys.readouterr().out)
    assert code in (12, 13) and base["violation"]["name"] == template.check
    code = main(["check", path, "--json", "--variant", template.fixed, kind, template.check])
    fixed = json.loads(capsys.readouterr().out)
    assert code == 0 and fixed["verdict"] == "ok"


# (example, the variant that holds, a liveness property): the page says which fairness each needs;
# the cancellation's liveness is the consequence the page gives of its safety template
LIVENESS = [
    ("templates/every_message_processed.spec", "AckAfterProcessing", "EveryAcceptedMessageProcessed"),
    ("templates/reply_delivered.spec", "FlagPerRun", "AnswerDelivered"),
    ("lib/cancellation.spec", "ReleaseOnCancel", "NoTaskWaitsForever"),
]


@pytest.mark.parametrize("example,fixed,prop", LIVENESS, ids=lambda x: str(x))
def test_issue_38_each_fairness_line_of_a_template_is_needed(tmp_path, capsys, example, fixed, prop):
    text = (SPECS / example).read_text()
    lines = text.split("\n")
    fair = [i for i, line in enumerate(lines) if line.startswith("fair ")]
    assert fair
    assert main(["check", str(SPECS / example), "--variant", fixed, "--property", prop]) == 0
    section = PAGE.read_text()
    for i in fair:
        action = lines[i].split()[-1]
        assert f"`{action}`" in section  # the page names the step that must not be put off
        (tmp_path / "t.spec").write_text("\n".join(lines[:i] + lines[i + 1:]))
        capsys.readouterr()
        code = main(["check", str(tmp_path / "t.spec"), "--json", "--variant", fixed, "--property", prop])
        data = json.loads(capsys.readouterr().out)
        assert code == 13 and data["verdict"] == "liveness_violated", lines[i]


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a page's text: lower case, punctuation dropped,
    spaces as -."""
    return {re.sub(r"[^a-z0-9 _-]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.*)$", text, re.M)}


def test_issue_38_the_library_links_to_sections_that_exist():
    """A spec of the library names its section of the docs, and `tlacheck new` copies the link
    into the user's spec: each must lead to a heading of the page."""
    links = []
    for path in sorted((SPECS / "lib").glob("*.spec")) + sorted((SPECS / "templates").glob("*.spec")):
        links += [(path.name, page, anchor) for page, anchor in re.findall(r"docs/(\w+\.md)#([\w-]+)", path.read_text())]
    links += [("starter", t.page.split("#")[0].removeprefix("docs/"), t.page.split("#")[1]) for t in TEMPLATES]
    assert len(links) > 8
    broken = [link for link in links if link[2] not in _anchors((ROOT / "docs" / link[1]).read_text())]
    assert broken == []
