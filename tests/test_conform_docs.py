"""docs/conform.md: every command the page shows prints what the page says, with its exit code.

Markers: `<!-- file: PATH -->` before a fenced block makes it a file (PATH relative to a temporary
folder, which the commands run in); `<!-- exit: N -->` before a ```text block whose first line is
`$ tlacheck ...` runs that command and compares its standard output with the rest of the block
(`<!-- exit: N, stderr -->`: its standard error).

After changing a report on purpose, refresh the page's outputs with
`TLACHECK_UPDATE_DOCS=1 python -m pytest tests/test_conform_docs.py` and review the diff.
"""

import os
import shlex

import pytest

from tlacheck.app.cli import main
from tests.conftest import ROOT, doc_blocks


PAGE = ROOT / "docs" / "conform.md"
UPDATE = os.environ.get("TLACHECK_UPDATE_DOCS") == "1"


def _blocks():
    files: dict[str, str] = {}
    runs = []
    for kind, value, body, start, end in doc_blocks(PAGE):
        if kind == "file":
            files[value] = "\n".join(body) + "\n"
        elif kind == "exit":
            code, _, stream = value.partition(", ")
            assert body[0].startswith("$ tlacheck "), f"docs/conform.md:{start + 1}: a command starts the block"
            runs.append(pytest.param(shlex.split(body[0][len("$ tlacheck "):]), int(code), stream or "stdout",
                                     "\n".join(body[1:]) + "\n", dict(files), (start + 1, end), id=f"line{start}"))
    return runs


RUNS = _blocks()


def test_the_page_shows_commands():
    assert len(RUNS) >= 3


def run_command(argv, stream, files, folder, monkeypatch, capsys) -> tuple[int, str]:
    """`tlacheck ARGV` in `folder`, with `files` written there first: its exit code and output."""
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(folder)
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, err if stream == "stderr" else out


@pytest.mark.skipif(UPDATE, reason="rewriting docs/conform.md")
@pytest.mark.parametrize("argv, code, stream, expected, files, where", RUNS)
def test_issue_33_the_pages_commands_print_what_it_says(argv, code, stream, expected, files, where, tmp_path,
                                                        monkeypatch, capsys):
    got_code, got = run_command(argv, stream, files, tmp_path, monkeypatch, capsys)
    assert got_code == code
    assert got == expected, ("the output differs from docs/conform.md; if the change is intended, refresh it with "
                             "TLACHECK_UPDATE_DOCS=1 python -m pytest tests/test_conform_docs.py")


@pytest.mark.skipif(not UPDATE, reason="set TLACHECK_UPDATE_DOCS=1 to rewrite docs/conform.md")
def test_update_page(tmp_path_factory, monkeypatch, capsys):
    """Rewrite every command's output block with what tlacheck prints today."""
    lines = PAGE.read_text(encoding="utf-8").split("\n")
    for param in sorted(RUNS, key=lambda p: p.values[5], reverse=True):
        argv, _, stream, _, files, (start, end) = param.values
        _, got = run_command(argv, stream, files, tmp_path_factory.mktemp("run"), monkeypatch, capsys)
        lines[start:end] = got.rstrip("\n").split("\n")
    PAGE.write_text("\n".join(lines), encoding="utf-8")
