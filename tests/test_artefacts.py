"""artefacts.py and `tlacheck counterexamples`: the committed counterexamples/ folder matches the code.

What is compared: every text artefact (.txt, .json, .itf.json, .dot, README.md) byte for byte,
since tlacheck writes them and they are deterministic. SVGs are produced by the `dot` program, and
its output differs between Graphviz versions (coordinates, a version comment), so for each SVG the
test compares only what the DOT decides: the texts drawn and the element titles (node and edge
ids), against an SVG rendered now from the committed DOT. It also checks that every .dot has its .svg.
"""

import re

import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.output import artefacts
from tlacheck.output import render
from tests.conftest import ROOT


CX = ROOT / "counterexamples"
HOW = "counterexamples/ is out of date: run `tlacheck counterexamples` from the repository root"


@pytest.fixture(scope="module")
def regenerated():
    import os

    here = os.getcwd()
    os.chdir(ROOT)  # paths inside the artefacts are relative to the repository root
    try:
        return artefacts.regenerate("specs", read_source)
    finally:
        os.chdir(here)


def test_every_expectation_of_a_violation_holds(regenerated):
    files, problems = regenerated
    assert problems == []
    assert "classic/diehard.base.NotSolved.dot" in files
    assert "classic/missionaries.base.Solution.itf.json" in files


def test_counterexamples_folder_is_up_to_date(regenerated):
    files, _ = regenerated
    committed = {p.relative_to(CX).as_posix() for p in CX.rglob("*") if p.is_file() and p.suffix != ".svg"}
    assert sorted(committed) == sorted(files), HOW
    for rel, text in files.items():
        assert (CX / rel).read_text(encoding="utf-8") == text, f"{rel}: {HOW}"


def _drawn(svg: str):
    texts = sorted(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    titles = sorted(re.findall(r"<title>([^<]*)</title>", svg))
    return texts, titles


def test_every_diagram_has_an_svg_drawn_from_its_dot(regenerated):
    files, _ = regenerated
    dots = [rel for rel in files if rel.endswith(".dot")]
    assert dots
    for rel in dots:
        svg = CX / (rel[:-4] + ".svg")
        assert svg.exists(), f"{svg.name} is missing: {HOW}"
        if render.dot_available():
            fresh = render.image(files[rel], "svg").decode("utf-8")
            assert _drawn(svg.read_text(encoding="utf-8")) == _drawn(fresh), f"{svg.name}: {HOW}"


def test_command_writes_into_a_folder_and_removes_stale_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "cx"
    out.mkdir()
    (out / "classic").mkdir()
    (out / "classic" / "old.base.Gone.txt").write_text("stale")
    (out / "notes.keep").write_text("not ours")
    assert main(["counterexamples", "specs", "--out", str(out)]) == 0
    assert not (out / "classic" / "old.base.Gone.txt").exists()
    assert (out / "notes.keep").exists()
    assert (out / "classic" / "diehard.base.NotSolved.txt").read_text() == \
        (CX / "classic" / "diehard.base.NotSolved.txt").read_text()
    assert "stale file removed" in capsys.readouterr().out


def test_an_expectation_that_does_not_hold_fails_the_command(tmp_path, capsys):
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "ok.spec").write_text("var x: int = 0\naction A:\n    require x < 3\n    x = x + 1\n"
                                   "invariant Small: x < 10\nexpect base violates Small\n")
    assert main(["counterexamples", str(specs), "--out", str(tmp_path / "out")]) == 10
    assert "expected `base violates Small`" in capsys.readouterr().err


def test_text_artefact_has_no_timing(regenerated):
    files, _ = regenerated
    assert "Summary:" not in files["classic/diehard.base.NotSolved.txt"]
    assert '"elapsed_s": null' in files["classic/diehard.base.NotSolved.json"]


def test_issue_6_each_expected_violation_is_checked_alone(tmp_path, capsys):
    """Found with specs/agent_routing.spec: two `reachable` checks that fail in one variant, or an
    invariant failing before the expected property, made the command report the wrong check."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "two.spec").write_text(
        "var x: int = 0\naction A:\n    require x < 3\n    x = x + 1\naction Stay:\n    skip\n"
        "invariant Small: x < 2\nproperty Grows: eventually x == 9\n"
        "reachable Five: x == 5\nreachable Six: x == 6\n"
        "expect base violates Six\nexpect base violates Five\nexpect base violates Grows\n")
    assert main(["counterexamples", str(specs), "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "two.base.Grows.txt").exists()


def test_issue_8_inside_refuses_a_symlink_out_as_a_usage_error(tmp_path):
    """`inside` resolves symlinks: a link planted in the output directory cannot lead outside it,
    and the refusal is a usage error (exit 2), not an internal error."""
    from tlacheck.core.errors import UsageError

    out = tmp_path / "out"
    out.mkdir()
    (out / "x.dot").symlink_to(tmp_path / "victim.dot")
    (out / "sub").symlink_to(tmp_path)
    for name in ("x.dot", "sub/y.dot"):
        with pytest.raises(UsageError, match="outside"):
            artefacts.inside(out, name)
    assert artefacts.inside(out, "z.dot") == out.resolve() / "z.dot"


def test_issue_8_only_artefact_shaped_names_count_as_stale():
    for name in ("diehard.base.NotSolved.dot", "x.Fix.deadlock.itf.json", "a.b.c.swimlanes.svg", "s.base.graph.png"):
        assert artefacts.is_artefact(name), name
    for name in ("notes.md", "README.md", "config.json", "a.b.dot", "a.b.c.py", "a b.c.d.txt"):
        assert not artefacts.is_artefact(name), name


def test_issue_8_counterexamples_keeps_files_it_did_not_write(tmp_path, monkeypatch, capsys):
    """`counterexamples --out DIR` used to delete every .txt/.json/.dot/.svg/.md file under DIR it
    had not just written: `--out docs` emptied a documentation folder. Now only stale artefacts go."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "s.spec").write_text("var x: int = 0\naction Inc:\n    require x < 2\n    x = x + 1\n"
                                              "invariant Small: x < 2\nexpect base violates Small\n")
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    keep = [out / "notes.md", out / "sub" / "config.json", out / "sub" / "data.txt"]
    for path in keep:
        path.write_text("mine")
    (out / "sub" / "old.base.Gone.dot").write_text("stale")
    assert main(["counterexamples", "specs", "--out", "out"]) == 0
    assert all(path.read_text() == "mine" for path in keep)
    assert not (out / "sub" / "old.base.Gone.dot").exists()
    assert (out / "s.base.Small.txt").exists()
