"""`tlacheck fmt` (issue 37 item 2): canonical, idempotent, comments kept, same model."""

from __future__ import annotations

import pathlib
import re

import pytest

from tlacheck.app.cli import main
from tlacheck.core.source import Source
from tlacheck.editing.fmt import format_source, format_text
from tlacheck.pipeline.driver import build_model

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").rglob("*.spec"))


def _deform(text: str) -> str:
    """The same spec in a careless layout: blank lines doubled and around, trailing blanks, a
    comma's spacing changed (outside strings and comments), a comment's `# ` run together."""
    out = ["", ""]
    for line in text.split("\n"):
        if not line.strip():
            out += ["  ", "\t"]
            continue
        if '"' not in line and "#" not in line:
            line = line.replace(", ", " ,  ")
        elif line.lstrip().startswith("# ") and line.lstrip()[2:3].isalnum():
            line = line.replace("# ", "#", 1)
        out.append(line + "  \t")
    return "\n".join(out) + "\n\n\n"


def test_issue_37_fmt_check_passes_on_the_repository_specs(capsys):
    assert main(["fmt", "--check", str(ROOT / "specs")]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("path", SPECS, ids=lambda p: str(p.relative_to(ROOT / "specs")))
def test_issue_37_fmt_restores_a_deformed_spec_to_the_same_model(path):
    text = path.read_text(encoding="utf-8")
    deformed = Source(str(path), _deform(text))
    assert deformed.text != text
    formatted = format_source(deformed)
    assert formatted == text  # the repository's specs are in the canonical layout
    assert format_text(formatted) == formatted  # idempotent
    # the deformed spec and its formatted text compile to the same generated code
    before = build_model(deformed).generated.source
    after = build_model(Source(str(path), formatted)).generated.source
    assert after == before


def test_issue_37_fmt_layout_keeps_comments_strings_and_indentation():
    text = ('\n\nspec T   \n\nvar x: set[int] = {1,2 ,3}\t\n\n\n\n#c\n'
            'const S: set[str] = {"a,b" , "c#d"}\ninvariant Ok:\n\tx == x   # a,b\n')
    assert format_text(text) == ('spec T\n\nvar x: set[int] = {1, 2, 3}\n\n# c\n'
                                 'const S: set[str] = {"a,b", "c#d"}\ninvariant Ok:\n        x == x   # a,b\n')


def test_issue_37_fmt_rewrites_and_check_lists(tmp_path, capsys):
    spec = tmp_path / "t.spec"
    spec.write_text("spec T\nvar x: set[int] = {1,2}   \n\n\n\ninvariant Ok: x == x\n", encoding="utf-8")
    assert main(["fmt", "--check", str(tmp_path)]) == 10
    assert capsys.readouterr().out == f"{spec}: not formatted\n"
    assert main(["fmt", str(spec)]) == 0
    assert spec.read_text(encoding="utf-8") == "spec T\nvar x: set[int] = {1, 2}\n\ninvariant Ok: x == x\n"
    assert main(["fmt", "--check", str(spec)]) == 0


def test_issue_37_fmt_leaves_a_spec_that_does_not_parse(tmp_path, capsys):
    spec = tmp_path / "bad.spec"
    spec.write_text("spec T\nvar x: int =   \n", encoding="utf-8")
    assert main(["fmt", str(spec)]) == 3
    err = capsys.readouterr().err
    assert re.search(r"bad\.spec:2:\d+: error\[E001\]", err)
    assert "Traceback" not in err
    assert spec.read_text(encoding="utf-8") == "spec T\nvar x: int =   \n"
