"""editors/vscode's TextMate grammar (issue 37 item 3), tokenized by vscode-textmate (npm)."""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editors" / "vscode"
NODE = shutil.which("node")

NEEDS_TEXTMATE = [
    pytest.mark.skipif(NODE is None, reason="node is not installed (.ci/run installs Debian's nodejs and npm)"),
    pytest.mark.skipif(not (VSCODE / "node_modules" / "vscode-textmate").is_dir(),
                       reason="vscode-textmate is not installed: run `npm ci` in editors/vscode (.ci/run does)"),
]

SAMPLE = '''spec Sample
# a comment with action and "quotes"
import "lib/common.spec"
const N: int = 3
enum Phase { Idle, Busy }
var phase: Phase = Idle
var log: seq[str] = []
fair action Start:
    if phase == Idle and N > 0:
        phase = Busy
invariant Bounded: len(log) <= N  # trailing
expect Fixed violates Bounded
'''


def _tokens(tmp_path) -> dict[tuple[int, str], list[str]]:
    sample = tmp_path / "sample.spec"
    sample.write_text(SAMPLE, encoding="utf-8")
    out = subprocess.run([NODE, str(VSCODE / "test" / "tokens.js"), str(sample)], capture_output=True, text=True,
                         check=True).stdout
    return {(line, text): scopes for line, text, scopes in map(json.loads, out.splitlines())}


@NEEDS_TEXTMATE[0]
@NEEDS_TEXTMATE[1]
def test_issue_37_textmate_grammar_scopes_a_sample_spec(tmp_path):
    tokens = _tokens(tmp_path)

    def scope(line: int, text: str) -> str:
        scopes = tokens[(line, text)]
        assert scopes[0] == "source.tlacheck"
        return scopes[-1]

    assert scope(1, "spec") == "keyword.other.spec.tlacheck"
    assert scope(1, "Sample") == "entity.name.type.module.tlacheck"
    assert scope(2, '# a comment with action and "quotes"') == "comment.line.number-sign.tlacheck"
    assert scope(3, "import") == "keyword.declaration.tlacheck"
    assert scope(3, '"lib/common.spec"') == "string.quoted.double.tlacheck"
    assert scope(4, "const") == "keyword.declaration.tlacheck"
    assert scope(4, "int") == "support.type.tlacheck"
    assert scope(4, "3") == "constant.numeric.integer.tlacheck"
    assert scope(5, "Phase") == "entity.name.function.tlacheck"
    assert scope(8, "fair") == "storage.modifier.tlacheck"
    assert scope(8, "action") == "keyword.declaration.tlacheck"
    assert scope(8, "Start") == "entity.name.function.tlacheck"
    assert scope(9, "if") == "keyword.control.tlacheck"
    assert scope(9, "==") == "keyword.operator.tlacheck"
    assert scope(9, "and") == "keyword.control.tlacheck"
    assert scope(11, "Bounded") == "entity.name.function.tlacheck"
    assert scope(11, "# trailing") == "comment.line.number-sign.tlacheck"
    assert scope(12, "violates") == "keyword.control.tlacheck"


def test_issue_37_vscode_manifest_claims_specs_by_first_line_not_by_extension():
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    [language] = manifest["contributes"]["languages"]
    assert "extensions" not in language  # `.spec` is RPM's and PyInstaller's too
    first_line = re.compile(language["firstLine"])
    assert first_line.match("spec NotifyRace")
    assert not first_line.match("Name: python3-foo")  # an RPM spec's first line
    matcher = manifest["contributes"]["problemMatchers"][0]["pattern"]
    m = re.match(matcher["regexp"], "specs/a.spec:12:5: error[E101]: unknown name `cuont`")
    assert (m[matcher["file"]], m[matcher["line"]], m[matcher["column"]], m[matcher["code"]]) == \
        ("specs/a.spec", "12", "5", "E101")
