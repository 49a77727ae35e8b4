"""`tlacheck fmt` (issue 37 item 2, editing/fmt.py): one canonical layout, comments kept,
idempotent, the same model; the repository's specs are kept formatted."""

from __future__ import annotations

import re

import pytest

from tlacheck.app.cli import main
from tlacheck.core.errors import SpecError
from tlacheck.core.source import Source
from tlacheck.editing.fmt import format_source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.lang.parser import lexemes
from tlacheck.pipeline.driver import build_model
from tests.conftest import ROOT

# Every spec of the repository: the specs, the benchmarks' models, the test data, the examples.
ALL_SPECS = sorted(str(p.relative_to(ROOT)) for folder in ("specs", "benchmarks", "tests", "examples")
                   for p in (ROOT / folder).rglob("*.spec"))
# Small enough to explore twice in a test.
EXPLORED = [p for p in ALL_SPECS if p.startswith("specs/") and "corpus" not in p]


def fmt(text: str) -> str:
    return format_source(Source("f.spec", text))


def mess(source: Source) -> str:
    """The same spec laid out badly: blocks indented twice as far (the first level by a tab),
    three spaces between tokens, one before a trailing comment and trailing blanks after it,
    blank lines doubled and two more at each end; a continuation line keeps its place relative
    to its statement."""
    raw = source.text.split("\n")
    by_line: dict[int, list] = {}
    for tok in lexemes(source):
        by_line.setdefault(tok.line, []).append(tok)
    out, statement = ["", " "], (0, 0)
    for number, line in enumerate(raw, 1):
        toks = by_line.get(number)
        if not toks:
            out += [line, "\t"] if number < len(raw) else [line]
            continue
        width = len(line) - len(line.lstrip(" "))
        code = [t for t in toks if t.kind != "COMMENT"]
        if code and code[0].continues:
            indent = " " * (statement[1] + width - statement[0])
        else:
            indent = "\t" + " " * (2 * width - 8) if width >= 4 else " " * (2 * width)
            if code:
                statement = (width, len(indent.expandtabs(8)))
        text = "   ".join(t.text for t in code)
        comments = [t.text for t in toks if t.kind == "COMMENT"]
        if comments:
            text = (text + " " if text else "") + comments[0]
        out.append(indent + text + "  ")
    return "\n".join(out) + "\n\n"


@pytest.mark.parametrize("path", ALL_SPECS)
def test_issue_37_every_spec_of_the_repository_is_formatted(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert format_source(Source(path, text)) == text


@pytest.mark.parametrize("path", ALL_SPECS)
def test_issue_37_a_badly_laid_out_spec_formats_back_to_the_canonical_one_and_the_same_model(path):
    canonical = Source(path, (ROOT / path).read_text(encoding="utf-8"))
    messy = Source(path, mess(canonical))
    assert messy.text != canonical.text
    assert format_source(messy) == canonical.text
    assert build_model(messy).generated.source == build_model(canonical).generated.source


@pytest.mark.parametrize("path", EXPLORED)
def test_issue_37_a_badly_laid_out_spec_has_the_same_counts(path):
    canonical = Source(path, (ROOT / path).read_text(encoding="utf-8"))
    results = [explore(build_model(s), Options(max_states=20_000)) for s in (canonical, Source(path, mess(canonical)))]
    counts = [(r.verdict, r.distinct_states, r.states_generated, r.depth) for r in results]
    assert counts[0] == counts[1]
    assert results[0].distinct_states > 0


def test_issue_37_blocks_are_indented_four_spaces_a_level():
    assert fmt("action A:\n  if true:\n    skip\n  else:\n        skip\n") == \
        "action A:\n    if true:\n        skip\n    else:\n        skip\n"


def test_issue_37_tabs_are_indentation_too():
    assert fmt("action A:\n\tif true:\n\t\tskip\n") == "action A:\n    if true:\n        skip\n"


def test_issue_37_spaces_between_tokens():
    assert fmt("var  x :int=0\nvar s:set[ int ]={ 1,2 }\nvar m : map[int,bool?]={k->true for k in 0 .. 2}\n") == \
        "var x: int = 0\nvar s: set[int] = {1, 2}\nvar m: map[int, bool?] = {k -> true for k in 0..2}\n"
    assert fmt("def f(a:int)->int:-a+ (- 1)*f (a)\n") == "def f(a: int) -> int: -a + (-1) * f(a)\n"
    assert fmt("var q: seq[int] = []\naction A:\n    require len(q)>0 and not (q[0]==1)\n    q[0]=q [0]- 1\n") == \
        "var q: seq[int] = []\naction A:\n    require len(q) > 0 and not (q[0] == 1)\n    q[0] = q[0] - 1\n"


def test_issue_37_strings_are_kept_as_written():
    text = ('enum E { a, b }\nvar x: E = a\naction A:\n    x = b\nconform:\n'
            '    event "a,b  c" =A # d\n    values E: "x # y" = a,"z" = b\n')
    assert fmt(text) == ('enum E { a, b }\nvar x: E = a\naction A:\n    x = b\nconform:\n'
                         '    event "a,b  c" = A  # d\n    values E: "x # y" = a, "z" = b\n')


def test_issue_37_blank_lines_before_a_fair_line_are_squeezed():
    # a `fair` line's generated name holds its line number: not a change of meaning
    text = "var x: int = 0\n\n\n\naction A:\n    x = 1\nfair weak A\n"
    assert fmt(text) == "var x: int = 0\n\naction A:\n    x = 1\nfair weak A\n"


def test_issue_37_enum_members_stand_in_spaced_braces():
    assert fmt("enum Phase {idle,busy}\n") == "enum Phase { idle, busy }\n"


def test_issue_37_comments_are_kept_and_trailing_ones_aligned_in_a_run():
    text = ("# head\nvar x: int = 0 # the x\nvar longer: int = 0      # the longer\n\n"
            "var y: int = 0     # alone\naction A:\n      # inside\n      x = 1\n# outside\n")
    assert fmt(text) == ("# head\nvar x: int = 0       # the x\nvar longer: int = 0  # the longer\n\n"
                         "var y: int = 0  # alone\naction A:\n    # inside\n    x = 1\n# outside\n")


def test_issue_37_a_comments_own_text_is_kept():
    assert fmt("#!  a  b   \nvar x: int = 0 ##  c\n") == "#!  a  b\nvar x: int = 0  ##  c\n"


def test_issue_37_a_continuation_line_keeps_its_place_relative_to_its_statement():
    text = "invariant I:\n  1 < 2\n  and 2 < 3\ninvariant J: (1 <\n                2)\n"
    assert fmt(text) == "invariant I:\n    1 < 2\n    and 2 < 3\ninvariant J: (1 <\n                2)\n"
    assert fmt("var x: int = 1 + \\\n    2\n") == "var x: int = 1 + \\\n    2\n"


def test_issue_37_blank_lines_are_squeezed_and_the_file_ends_with_one_newline():
    assert fmt("\n\nvar x: int = 0\n\n\n\nvar y: int = 0   \n\n") == "var x: int = 0\n\nvar y: int = 0\n"
    assert fmt("var x: int = 0") == "var x: int = 0\n"
    assert fmt("var x: int = 0\r\nvar y: int = 0\r\n") == "var x: int = 0\nvar y: int = 0\n"


def test_issue_37_formatting_twice_changes_nothing():
    once = fmt("spec S\nenum E {a,b}\nvar x:E=a # c\naction A( e in E ):\n  x=e   # set\n")
    assert once == "spec S\nenum E { a, b }\nvar x: E = a  # c\naction A(e in E):\n    x = e  # set\n"
    assert fmt(once) == once


def test_issue_37_a_spec_that_does_not_parse_is_not_formatted():
    with pytest.raises(SpecError) as info:
        fmt("var x: int = = 0\n")
    assert info.value.diagnostics[0].code == "E001"


def test_issue_37_fmt_rewrites_and_check_lists(tmp_path, capsys):
    spec = tmp_path / "t.spec"
    spec.write_text("spec T\nvar x: set[int] = {1,2}   \n\n\n\ninvariant Ok: x==x\n", encoding="utf-8")
    assert main(["fmt", "--check", str(tmp_path)]) == 10
    assert capsys.readouterr().out == f"{spec}: not formatted\n"
    assert spec.read_text(encoding="utf-8") == "spec T\nvar x: set[int] = {1,2}   \n\n\n\ninvariant Ok: x==x\n"
    assert main(["fmt", str(spec), str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{spec}: formatted\n"  # named twice, done once
    assert spec.read_text(encoding="utf-8") == "spec T\nvar x: set[int] = {1, 2}\n\ninvariant Ok: x == x\n"
    assert main(["fmt", "--check", str(spec)]) == 0


def test_issue_37_fmt_of_a_folder_skips_hidden_folders_and_node_modules(tmp_path, capsys):
    for rel in ("b.spec", "a/c.spec", "a/notes.txt", ".venv/d.spec", "node_modules/x/e.spec"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("var  x:int=0\n", encoding="utf-8")
    assert main(["fmt", "--check", str(tmp_path)]) == 10
    assert capsys.readouterr().out == f"{tmp_path / 'a' / 'c.spec'}: not formatted\n{tmp_path / 'b.spec'}: not formatted\n"


def test_issue_37_fmt_leaves_every_file_when_one_does_not_parse(tmp_path, capsys):
    bad = tmp_path / "bad.spec"
    bad.write_text("spec T\nvar x: int =   \n", encoding="utf-8")
    fine = tmp_path / "fine.spec"
    fine.write_text("var  y:int=0\n", encoding="utf-8")
    assert main(["fmt", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert re.search(r"bad\.spec:2:\d+: error\[E001\]", err)
    assert "Traceback" not in err
    assert bad.read_text(encoding="utf-8") == "spec T\nvar x: int =   \n"
    assert fine.read_text(encoding="utf-8") == "var  y:int=0\n"
    assert main(["fmt", str(tmp_path / "nope.spec")]) == 2
    assert "nope.spec: no such file or folder" in capsys.readouterr().err


def test_issue_37_fmt_check_passes_on_the_repository_specs(capsys):
    assert main(["fmt", "--check", str(ROOT / "specs")]) == 0
    assert capsys.readouterr().out == ""
