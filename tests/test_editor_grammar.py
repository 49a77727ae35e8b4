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

SAMPLE = VSCODE / "test" / "sample.spec"  # every construct of docs/language.md, and it compiles


def _tokens() -> dict[tuple[int, str], list[list[str]]]:
    """(line, text) -> the scopes of each token with that text on that line."""
    out = subprocess.run([NODE, str(VSCODE / "test" / "tokens.js"), str(SAMPLE)], capture_output=True, text=True,
                         check=True).stdout
    tokens: dict[tuple[int, str], list[list[str]]] = {}
    for line, text, scopes in map(json.loads, out.splitlines()):
        tokens.setdefault((line, text.strip()), []).append(scopes)
    return tokens


def _line(text: str) -> int:
    return next(i for i, line in enumerate(SAMPLE.read_text(encoding="utf-8").splitlines(), start=1) if text in line)


# (a line of the sample, a token on it, its innermost scope): one or more per section of docs/language.md
EXPECTED = [
    ("# A sample", "# A sample that uses every construct of docs/language.md (tests/test_editor_grammar.py",
     "comment.line.number-sign.tlacheck"),                                       # Lexical structure
    ("spec Sample", "spec", "keyword.other.spec.tlacheck"),                       # The spec header
    ("spec Sample", "Sample", "entity.name.type.module.tlacheck"),
    ('import "common', "import", "keyword.declaration.tlacheck"),                # Modules
    ('import "common', '"common.spec"', "string.quoted.double.tlacheck"),
    ("const N", "const", "keyword.declaration.tlacheck"),                         # Constants
    ("const N", "2", "constant.numeric.integer.tlacheck"),
    ("symmetric const", "symmetric", "keyword.declaration.tlacheck"),             # Symmetric sets
    ("symmetric const", "model", "support.type.tlacheck"),
    ("enum Phase", "enum", "keyword.declaration.tlacheck"),                       # Enums
    ("enum Phase", "Phase", "entity.name.function.tlacheck"),
    ("type Job", "type", "keyword.declaration.tlacheck"),                         # Type aliases
    ("type Job", "Job", "entity.name.function.tlacheck"),
    ("var count", "var", "keyword.declaration.tlacheck"),                         # Variables, Types
    ("var count", "..", "keyword.operator.tlacheck"),
    ("var flags", "map", "support.type.tlacheck"),
    ("var flags", "->", "keyword.operator.tlacheck"),
    ("var flags", "for", "keyword.control.tlacheck"),
    ("var log", "seq", "support.type.tlacheck"),
    ("var owner", "none", "constant.language.tlacheck"),
    ("init:", "init", "keyword.declaration.tlacheck"),                            # init:
    ("derived pending", "derived", "keyword.declaration.tlacheck"),               # Derived values
    ("def Next", "def", "keyword.declaration.tlacheck"),                          # Functions
    ("def Next", "Next", "entity.name.function.tlacheck"),
    ("if k < 9 then", "then", "keyword.control.tlacheck"),
    ("block bump", "block", "keyword.declaration.tlacheck"),                      # Blocks
    ("action Start", "action", "keyword.declaration.tlacheck"),                   # Actions
    ("action Start", "Start", "entity.name.function.tlacheck"),
    ("action Start", "by", "keyword.control.tlacheck"),
    ("require owner == none", "require", "keyword.control.tlacheck"),             # Statements
    ("require owner == none", "==", "keyword.operator.tlacheck"),
    ("let before", "let", "keyword.control.tlacheck"),
    ("elif before", "elif", "keyword.control.tlacheck"),
    ("        skip", "skip", "keyword.control.tlacheck"),
    ("either:", "either", "keyword.control.tlacheck"),
    ("    or:", "or", "keyword.control.tlacheck"),
    ("with t in Tasks", "with", "keyword.control.tlacheck"),
    ("process Worker", "process", "keyword.declaration.tlacheck"),                # Processes
    ("process Worker", "self", "keyword.control.tlacheck"),
    ("    Wait:", "Wait", "entity.name.label.tlacheck"),
    ("await count", "await", "keyword.control.tlacheck"),
    ("while not done", "while", "keyword.control.tlacheck"),
    ("goto Work", "goto", "keyword.control.tlacheck"),
    ("fair weak Finish", "fair", "keyword.declaration.tlacheck"),                 # Fairness
    ("fair weak Finish", "weak", "keyword.declaration.tlacheck"),
    ("constraint Small", "constraint", "keyword.declaration.tlacheck"),           # Constraints
    ("deadlock: allowed", "deadlock", "keyword.declaration.tlacheck"),            # Deadlock
    ("deadlock: allowed", "allowed", "keyword.control.tlacheck"),
    ("invariant Bounded", "invariant", "keyword.declaration.tlacheck"),           # Invariants
    ("invariant Bounded", "all", "support.function.builtin.tlacheck"),            # Built-in functions
    ("invariant Bounded", "implies", "keyword.control.tlacheck"),
    ("invariant Counted", "choose", "support.function.builtin.tlacheck"),         # Quantifiers
    ("property Eventually", "always", "keyword.control.tlacheck"),                # Temporal properties
    ("property Eventually", "eventually", "keyword.control.tlacheck"),
    ("property Answer", "leads_to", "keyword.control.tlacheck"),
    ("property Steps", "'", "keyword.operator.tlacheck"),                         # Step properties
    ("property Enabled", "enabled", "support.function.builtin.tlacheck"),         # enabled(A)
    ("reachable Busy", "reachable", "keyword.declaration.tlacheck"),              # Reachable checks
    ('refines C "', "refines", "keyword.declaration.tlacheck"),                   # Refinement
    ("conform:", "conform", "keyword.declaration.tlacheck"),                      # Conformance
    ('event "job.start"', "event", "keyword.other.conform.tlacheck"),
    ("    silent Finish", "silent", "keyword.other.conform.tlacheck"),
    ("variant Fixed", "variant", "keyword.declaration.tlacheck"),                 # Variants
    ("variant Fixed", '"finish only what was started"', "string.quoted.double.tlacheck"),
    ("replace action Finish", "replace", "storage.modifier.tlacheck"),
    ("remove action Reset", "remove", "keyword.declaration.tlacheck"),
    ("extend action Start", "extend", "keyword.declaration.tlacheck"),
    ("        after:", "after", "keyword.declaration.tlacheck"),
    ("theorem Total", "theorem", "keyword.declaration.tlacheck"),                 # Theorems
    ("theorem Total", "forall", "keyword.control.tlacheck"),
    ("expect base violates", "expect", "keyword.declaration.tlacheck"),           # Expectations
    ("expect base violates", "violates", "keyword.control.tlacheck"),
    ("expect base proves", "proves", "keyword.control.tlacheck"),
]


@NEEDS_TEXTMATE[0]
@NEEDS_TEXTMATE[1]
def test_issue_37_textmate_grammar_scopes_every_construct_of_the_sample_spec():
    tokens = _tokens()
    wrong = []
    for where, text, scope in EXPECTED:
        found = tokens.get((_line(where), text))
        assert found, f"no token {text!r} on the line of {where!r}"
        assert all(s[0] == "source.tlacheck" for s in found)
        if scope not in [s[-1] for s in found]:
            wrong.append((where, text, scope, [s[-1] for s in found]))
    assert wrong == []
    # what must not be highlighted as a label: `else:`, `or:`, a variable named in an assignment
    assert tokens[(_line("    else:"), "else")][0][-1] == "keyword.control.tlacheck"
    assert "entity.name.label.tlacheck" not in [s[-1] for s in tokens.get((_line("    n = count"), "n"), [[""]])]


def test_issue_37_the_sample_spec_compiles_and_meets_its_expectations(capsys):
    from tlacheck.app.cli import main

    assert main(["verify", str(SAMPLE), "--quiet"]) == 0
    assert "4 of 4 expectations met." in capsys.readouterr().out


def test_issue_37_vscode_manifest_claims_specs_by_first_line_not_by_extension():
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    [language] = manifest["contributes"]["languages"]
    assert "extensions" not in language  # `.spec` is RPM's and PyInstaller's too
    first_line = re.compile(language["firstLine"])
    assert first_line.match("spec NotifyRace") and first_line.match("spec NotifyRace  # the race")
    assert not first_line.match("Name: python3-foo")  # an RPM spec's first line
    matcher = manifest["contributes"]["problemMatchers"][0]["pattern"]
    m = re.match(matcher["regexp"], "specs/a.spec:12:5: error[E101]: unknown name `cuont`")
    assert (m[matcher["file"]], m[matcher["line"]], m[matcher["column"]], m[matcher["code"]]) == \
        ("specs/a.spec", "12", "5", "E101")
