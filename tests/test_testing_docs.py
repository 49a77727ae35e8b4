"""docs/testing.md (issue 36 item 5): every command the page shows prints what the page says; the
page's driver, run by pytest on the page's implementation, fails as the page says; the example's
schedules print what the page shows.

Markers, besides those of docs/conform.md (`file`, `exit`, tests/test_conform_docs.py):
`<!-- failure: TEST_FILE -->` before the text of a failure that pytest, run on the page's files,
reports for TEST_FILE; `<!-- example: ARGS -->` before what `python -m examples.notify_race ARGS`
prints (the block's first line is that command, with the log's name).
"""

from __future__ import annotations

import shlex

import pytest

from examples.notify_race.__main__ import main as example_main
from tests.conftest import ROOT, doc_blocks
from tests.test_conform_docs import run_command

PAGE = ROOT / "docs" / "testing.md"
BLOCKS = doc_blocks(PAGE)


def files_before(index: int) -> dict[str, str]:
    return {value: "\n".join(body) + "\n" for kind, value, body, _, _ in BLOCKS[:index] if kind == "file"}


COMMANDS = [pytest.param(shlex.split(body[0][len("$ tlacheck "):]), int(value), "\n".join(body[1:]) + "\n",
                         files_before(i), id=f"line{start}")
            for i, (kind, value, body, start, _) in enumerate(BLOCKS) if kind == "exit"]


def test_the_page_shows_commands_failures_and_schedules():
    kinds = [kind for kind, *_ in BLOCKS]
    assert kinds.count("exit") >= 2 and kinds.count("failure") == 1 and kinds.count("example") == 2


@pytest.mark.parametrize("argv, code, expected, files", COMMANDS)
def test_issue_36_the_pages_commands_print_what_it_says(argv, code, expected, files, tmp_path, monkeypatch, capsys):
    got_code, got = run_command(argv, "stdout", files, tmp_path, monkeypatch, capsys)
    assert (got_code, got) == (code, expected)


def test_issue_36_the_pages_driver_fails_as_the_page_says(pytester):
    (i, (_, test_file, body, _, _)), = [(i, b) for i, b in enumerate(BLOCKS) if b[0] == "failure"]
    files = files_before(i)
    for name, text in files.items():
        (pytester.path / name).write_text(text, encoding="utf-8")
    result = pytester.runpytest_inprocess(test_file, "-p", "no:xdist", "-q")
    result.assert_outcomes(passed=4, failed=5)  # as the page says: the five behaviours that retry fail
    reported = "\n".join(line[8:] if line.startswith("E       ") else line for line in result.stdout.lines)
    assert "\n".join(body) in reported.replace("tlacheck.testing.bridge.BehaviourFailed: ", "")


@pytest.mark.parametrize("index", [i for i, b in enumerate(BLOCKS) if b[0] == "example"])
def test_issue_36_the_pages_schedules_print_what_it_shows(index, tmp_path, monkeypatch, capsys):
    _, value, body, _, _ = BLOCKS[index]
    argv = shlex.split(body[0][len("$ python -m examples.notify_race "):])
    assert argv[0] == "counterexample" and shlex.split(value) == [argv[0]] + argv[2:]
    log = str(tmp_path / argv[1])
    monkeypatch.chdir(ROOT)  # the page shows the spec's path from the repository's root
    capsys.readouterr()
    assert example_main([argv[0], log] + argv[2:]) == 0
    assert capsys.readouterr().out.replace(log, argv[1]) == "\n".join(body[1:]) + "\n"


def test_issue_36_the_pages_figures_for_the_bridge_are_the_codes():
    """What the page says of the example's bridge: how many behaviours, how many the buggy code fails."""
    from tests.test_bridge import FIX, names, racy

    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    reaching = [b for b in FIX if racy(b) and "FollowOnNotifies" in names(b)]
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    assert f"chooses {len(FIX)} behaviours of the fix" in text
    assert f"fails the {words[len(reaching)]} racy ones that reach the second claim" in text
