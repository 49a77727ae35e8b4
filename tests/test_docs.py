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


# ---------------------------------------------------------------- issue 32: the page agrees with the code

def _paragraph(text: str, phrase: str) -> str:
    """The paragraph of the page that holds `phrase`."""
    i = text.index(phrase)
    return text[text.rindex("\n\n", 0, i) + 2:text.index("\n\n", i)]


def test_issue_32_the_reserved_words_listed_are_the_grammars():
    grammar = (Path(__file__).resolve().parent.parent / "checker" / "lang" / "grammar.lark").read_text()
    rules = re.sub(r"//[^\n]*", "", grammar)  # the grammar's comments quote examples of specs
    reserved = set(re.findall(r'"([a-z_]+)"', rules))
    text = DOC.read_text()
    listed = set(re.findall(r"`([a-z_]+)`", text[text.index("These words are reserved"):text.index("Some of them")]))
    assert listed == reserved


def test_issue_32_the_words_that_are_keywords_only_in_place_are_the_parsers():
    from tlacheck.lang.parser import _SOFT_KEYWORDS, _STATEMENT_KEYWORDS

    soft = set(_SOFT_KEYWORDS) | _STATEMENT_KEYWORDS
    found = re.search(r"(\w+) more words are keywords only where nothing else could stand(.*?)\n\n", DOC.read_text(),
                      re.S)
    assert soft <= set(re.findall(r"`([a-z]+)`", found.group(2)))
    numbers = {"Eleven": 11, "Twelve": 12, "Thirteen": 13, "Fourteen": 14, "Fifteen": 15, "Sixteen": 16, "Seventeen": 17}
    assert numbers[found.group(1)] == len(soft)


def test_issue_32_the_page_says_where_symmetry_is_not_applied_as_the_code_does(tmp_path, capsys):
    text = DOC.read_text()
    assert "does not exist in tlacheck" not in text  # the fairness section said so of symmetry reduction
    section = _paragraph(text, "This explores 7 states (one per orbit)")
    assert "Temporal properties, `--storage exact` and `tlacheck verify` explore\nevery state (a warning says so)" \
        in section
    base = "symmetric const N: set[model] = {n1, n2}\nvar h: N? = none\naction G(n in N):\n    require h == none\n" \
           "    h = n\naction D:\n    require h != none\n    h = none\n"
    spec = tmp_path / "s.spec"
    for extra, command in (("property P: always eventually h == none\nfair weak D\n", ["check"]),
                           ("invariant I: true\n", ["check", "--storage", "exact"]),
                           ("invariant I: true\nexpect base holds\n", ["verify"])):
        spec.write_text(base + extra)
        main([command[0], str(spec), *command[1:]])
        assert "warning: symmetry is not applied" in capsys.readouterr().err, command


def test_issue_32_the_int_bound_the_page_gives_is_the_codes(tmp_path, capsys):
    text = _paragraph(DOC.read_text(), "Ints have no fixed width")
    assert "`x = x * x` from 3 has 7,818 digits after 14 steps\nand stops with `E412` at the 15th" in text
    spec = tmp_path / "square.spec"
    spec.write_text("var x: int = 3\naction Square:\n    x = x * x\n")
    assert main(["check", str(spec), "--quiet"]) == 4
    out, err = capsys.readouterr()
    assert "error[E412]" in err and "The error occurred in the last state of this trace (15 steps)" in out
