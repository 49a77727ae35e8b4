"""output/artefacts.py and `tlacheck counterexamples` (app/counterexamples.py): the committed
counterexamples/ folder matches the code.

What is compared: every text artefact (.txt, .json, .itf.json, .dot, README.md) byte for byte,
since tlacheck writes them and they are deterministic. SVGs are produced by the `dot` program, and
its output differs between Graphviz versions (coordinates, a version comment), so for each SVG the
test compares only what the DOT decides: the texts drawn and the element titles (node and edge
ids), against an SVG rendered now from the committed DOT. It also checks that every .dot has its .svg.
"""

import json
import re

import pytest

from tlacheck.app import counterexamples
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
        return counterexamples.regenerate("specs", read_source)
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
    (out / "classic").mkdir(parents=True)
    (out / "classic" / "old.base.Gone.txt").write_text("stale")
    (out / artefacts.MANIFEST).write_text(artefacts.manifest(["classic/old.base.Gone.txt"]))
    (out / "notes.keep").write_text("not ours")
    assert main(["counterexamples", "specs", "--out", str(out)]) == 0
    assert not (out / "classic" / "old.base.Gone.txt").exists()
    assert (out / "notes.keep").exists()
    assert (out / "classic" / "diehard.base.NotSolved.txt").read_text() == \
        (CX / "classic" / "diehard.base.NotSolved.txt").read_text()
    assert "1 stale file removed" in capsys.readouterr().out


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


SMALL = ("var x: int = 0\naction Inc:\n    require x < 2\n    x = x + 1\n"
         "invariant Small: x < 2\nexpect base violates Small\n")


def _specs(folder, *names):
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / f"{name}.spec").write_text(SMALL)


def _listing(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_issue_8_counterexamples_keeps_files_it_did_not_write(tmp_path, monkeypatch, capsys):
    """`counterexamples --out DIR` used to delete every .txt/.json/.dot/.svg/.md file under DIR it
    had not just written: `--out docs` emptied a documentation folder. Since issue 32 a file the
    manifest does not list stays, whatever its name (`old.base.Gone.dot` too)."""
    monkeypatch.chdir(tmp_path)
    _specs(tmp_path / "specs", "s")
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    keep = [out / "notes.md", out / "sub" / "config.json", out / "sub" / "data.txt", out / "sub" / "old.base.Gone.dot"]
    for path in keep:
        path.write_text("mine")
    assert main(["counterexamples", "specs", "--out", "out"]) == 0
    assert all(path.read_text() == "mine" for path in keep)
    assert (out / "s.base.Small.txt").exists()


def test_issue_32_counterexamples_never_touches_a_file_it_did_not_write(tmp_path, monkeypatch, capsys):
    """Issue 32 item 2: in a folder holding `meeting.2026-12.notes.txt`, `api.v2.schema.json` and
    the user's own README.md, the command removed the first two (their names looked like
    artefacts) and replaced the README. Now it refuses, before writing anything, naming the README
    and saying what to do; once the README is moved away it writes its files and a manifest, and
    the user's files are as they were."""
    monkeypatch.chdir(tmp_path)
    _specs(tmp_path / "specs", "s")
    out = tmp_path / "counterexamples"
    out.mkdir()
    (out / "meeting.2026-12.notes.txt").write_text("agenda")
    (out / "api.v2.schema.json").write_text('{"type": "object"}')
    (out / "README.md").write_text("# My notes\n")
    before = _listing(out)
    assert main(["counterexamples", "specs", "--out", "counterexamples"]) == 2
    err = capsys.readouterr().err
    assert "refusing to overwrite a file" in err and "README.md" in err and artefacts.MANIFEST in err
    assert "move or rename it" in err and "--out DIR" in err
    assert "meeting" not in err and "api.v2" not in err  # names it would not write are no concern of it
    assert _listing(out) == before  # nothing written, nothing removed
    (out / "README.md").rename(tmp_path / "README.mine.md")
    assert main(["counterexamples", "specs", "--out", "counterexamples"]) == 0
    assert "removed" not in capsys.readouterr().out
    after = _listing(out)
    assert after["meeting.2026-12.notes.txt"] == b"agenda" and after["api.v2.schema.json"] == b'{"type": "object"}'
    listed = artefacts.manifest_entries(after[artefacts.MANIFEST].decode(), artefacts.MANIFEST)
    assert "README.md" in listed and "s.base.Small.html" in listed
    assert set(after) - set(listed) == {artefacts.MANIFEST, "meeting.2026-12.notes.txt", "api.v2.schema.json"}


def test_issue_32_stale_files_are_the_ones_its_manifest_lists(tmp_path, monkeypatch, capsys):
    """What a spec no longer produces is removed, every file of it (the `.html` was kept before:
    its name did not match the pattern of stale files); a file of the user's is not, even one
    named like an artefact."""
    monkeypatch.chdir(tmp_path)
    _specs(tmp_path / "specs", "kept", "gone")
    out = tmp_path / "cx"
    assert main(["counterexamples", "specs", "--out", "cx"]) == 0
    capsys.readouterr()
    gone = sorted(p.name for p in out.glob("gone.*"))
    assert "gone.base.Small.html" in gone and "gone.base.Small.txt" in gone
    (out / "mine.base.Notes.txt").write_text("mine")
    (tmp_path / "specs" / "gone.spec").unlink()
    assert main(["counterexamples", "specs", "--out", "cx"]) == 0
    assert f"{len(gone)} stale files removed" in capsys.readouterr().out
    assert not list(out.glob("gone.*"))
    assert (out / "mine.base.Notes.txt").read_text() == "mine" and (out / "kept.base.Small.html").exists()


def test_issue_32_a_folder_without_manifest_is_adopted_where_it_holds_the_same_bytes(tmp_path, monkeypatch,
                                                                                   capsys):
    """A folder written before manifests existed: a file holding exactly what would be written is
    taken over (writing it changes nothing) and listed; one that differs is refused."""
    monkeypatch.chdir(tmp_path)
    _specs(tmp_path / "specs", "s")
    assert main(["counterexamples", "specs", "--out", "cx"]) == 0
    (tmp_path / "cx" / artefacts.MANIFEST).unlink()
    assert main(["counterexamples", "specs", "--out", "cx"]) == 0
    assert (tmp_path / "cx" / artefacts.MANIFEST).is_file()
    (tmp_path / "cx" / artefacts.MANIFEST).unlink()
    (tmp_path / "cx" / "s.base.Small.txt").write_text("edited by hand")
    assert main(["counterexamples", "specs", "--out", "cx"]) == 2
    assert "s.base.Small.txt" in capsys.readouterr().err
    assert (tmp_path / "cx" / "s.base.Small.txt").read_text() == "edited by hand"


def test_issue_32_a_manifest_it_did_not_write_is_refused(tmp_path, monkeypatch, capsys):
    """A user's file that happens to be called like the manifest is neither read as one (it could
    name any file of the folder for removal) nor overwritten; an entry leading outside the folder
    is refused."""
    monkeypatch.chdir(tmp_path)
    _specs(tmp_path / "specs", "s")
    out = tmp_path / "cx"
    out.mkdir()
    (out / artefacts.MANIFEST).write_text("notes.md\n")
    (out / "notes.md").write_text("mine")
    assert main(["counterexamples", "specs", "--out", "cx"]) == 2
    assert "is not a manifest written by `tlacheck counterexamples`" in capsys.readouterr().err
    assert (out / "notes.md").read_text() == "mine" and (out / artefacts.MANIFEST).read_text() == "notes.md\n"
    (out / artefacts.MANIFEST).write_text(artefacts.manifest(["../victim.txt"]))
    (tmp_path / "victim.txt").write_text("mine")
    assert main(["counterexamples", "specs", "--out", "cx"]) == 2
    assert "not inside" in capsys.readouterr().err and (tmp_path / "victim.txt").exists()


def test_issue_32_the_committed_manifest_lists_every_file_of_the_folder(regenerated):
    files, _ = regenerated
    listed = artefacts.manifest_entries(files[artefacts.MANIFEST], artefacts.MANIFEST)
    on_disk = {p.relative_to(CX).as_posix() for p in CX.rglob("*") if p.is_file()} - {artefacts.MANIFEST}
    assert sorted(listed) == sorted(on_disk), HOW


def test_issue_38_a_headline_quotes_an_imported_check_from_its_own_file(tmp_path):
    """specs/cases/deer_flow_memory.spec imports the read-generate-write pattern: the diagrams'
    second line, meant to quote the violated invariant, showed the importing file's line of the
    same number (`extend action Write: after: ...`)."""
    from tlacheck.pipeline.driver import build_model
    from tlacheck.engine.explore import explore

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "counter.spec").write_text("var n: int = 0\naction Grow:\n    n = n + 1\n"
                                                    "invariant Small:\n    n < 2\n")
    (tmp_path / "case.spec").write_text('import "lib/counter.spec"\n# one\n# two\n# three\n# four\n')
    source = read_source(str(tmp_path / "case.spec"))
    model = build_model(source)
    head = artefacts.headline(model, explore(model).violation, source)
    assert head.detail == "invariant Small: n < 2"


def test_issue_38_an_expected_step_property_violation_is_written(tmp_path, capsys):
    """specs/lib/approval_gate.spec expects its base to violate a step property: the command
    selected the temporal properties alone, checked nothing, and reported `found ok`."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "steps.spec").write_text(
        "var x: int = 0\naction Up:\n    require x < 3\n    x = x + 1\naction Reset:\n    require x == 3\n"
        "    x = 0\ninvariant Small: x < 9\nproperty NeverDown: always x' >= x\n"
        "expect base violates NeverDown\nexpect base holds Small\n")
    assert main(["counterexamples", str(specs), "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    data = json.loads((tmp_path / "out" / "steps.base.NeverDown.json").read_text())
    assert data["violation"]["kind"] == "step" and data["violation"]["name"] == "NeverDown"
    assert len(data["violation"]["trace"]) == 5  # Up, Up, Up, Reset
