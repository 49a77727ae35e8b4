"""Every ```spec example in docs/language.md runs with the outcome the page states.

Markers before an example: `<!-- args: ... -->` (command-line flags) and
`<!-- exit: N -->` (the expected exit code; default 0). `<!-- file: NAME -->` before a block
makes it a file that the next example uses (written as NAME beside it: `refines A "NAME"`),
not an example of its own.
"""

import re
from pathlib import Path

import pytest

from tlacheck.app.cli import main


DOC = Path(__file__).resolve().parent.parent / "docs" / "language.md"
DIRECTIVE = re.compile(r"^<!-- (args|exit|file): (.*?) -->$")


def examples():
    lines = DOC.read_text(encoding="utf-8").split("\n")
    pending: dict[str, str] = {}
    files: dict[str, str] = {}
    out = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        m = DIRECTIVE.match(line)
        if m:
            pending[m.group(1)] = m.group(2)
        elif line == "```spec":
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            text = "\n".join(lines[i + 1:j]) + "\n"
            if "file" in pending:
                files[pending["file"]] = text
            else:
                out.append(pytest.param(text, pending.get("args", ""), int(pending.get("exit", "0")), files,
                                        id=f"line{i + 1}"))
                files = {}
            pending = {}
            i = j
        elif line.startswith("#"):
            pending = {}
        i += 1
    return out


EXAMPLES = examples()


def test_the_page_has_examples():
    assert len(EXAMPLES) > 25


@pytest.mark.parametrize("text, args, exit_code, files", EXAMPLES)
def test_example_runs_as_documented(text, args, exit_code, files, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    (tmp_path / "example.spec").write_text(text)
    code = main(["check", "example.spec", "--quiet", *args.split()])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    assert code == exit_code, captured.out + captured.err
