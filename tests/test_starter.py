"""`tlacheck new` (editing/starter.py, issue 38 item 5): a spec started from each pattern and each
template is written, formatted, and accepted by `check` and `verify`; constants given are set in
it; the questions come only on a terminal; every mistake is a usage error with a hint."""

from __future__ import annotations

import io
import json
import re
import tomllib
from fnmatch import fnmatch

import pytest

from tlacheck.app.cli import main
from tlacheck.core import files
from tlacheck.editing import starter
from tlacheck.core.source import Source
from tlacheck.editing.fmt import format_source
from tests.conftest import ROOT, SPECS

FOLDER = starter.library_folder()
ENTRIES = starter.entries(FOLDER)


def test_issue_38_the_library_is_the_checkouts_specs():
    assert FOLDER == SPECS
    patterns = {e.name for e in ENTRIES if e.kind is starter.Kind.PATTERN}
    # every pattern of specs/lib/ (a file with expectations) can be started from, with a summary
    assert patterns == {p.stem for p in (SPECS / "lib").glob("*.spec") if re.search(r"^expect ", p.read_text(), re.M)}
    assert all(e.summary and not e.summary.endswith(".") and "docs/" not in e.summary for e in ENTRIES)
    assert [e.name for e in ENTRIES if e.kind is starter.Kind.TEMPLATE] == [t.name for t in starter.TEMPLATES]


def test_issue_38_an_installed_copy_of_the_library_is_found_first(tmp_path, monkeypatch):
    (tmp_path / "pkg" / "library" / "lib").mkdir(parents=True)
    monkeypatch.setattr(files, "_PACKAGE", tmp_path / "pkg")
    assert starter.library_folder() == tmp_path / "pkg" / "library"


def test_issue_38_the_wheel_carries_every_file_new_starts_from():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"]["tlacheck.library"] == "specs"
    globs = config["package-data"]["tlacheck.library"]
    assert all(any(fnmatch(e.path, g) for g in globs) for e in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.kind.value}-{e.name}")
def test_issue_38_new_writes_a_spec_that_checks(entry, tmp_path, capsys):
    out = tmp_path / f"my_{entry.name}.spec"
    assert main(["new", f"--{entry.kind.value}", entry.name, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    name = "My" + "".join(w.capitalize() for w in entry.name.split("_"))
    assert said.startswith(f"wrote {out}: spec {name}, from the {entry.kind.value} {entry.name}")
    text = out.read_text()
    assert text.startswith(f"spec {name}\n\n# Started with `tlacheck new --{entry.kind.value} {entry.name}`")
    assert format_source(Source(str(out), text)) == text  # in the layout of `tlacheck fmt`
    assert main(["verify", str(out)]) == 0  # the failure and its fix, as the library has them
    capsys.readouterr()
    code = main(["check", str(out), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code in (12, 13) and data["verdict"] in ("invariant_violated", "liveness_violated")
    if entry.kind is starter.Kind.TEMPLATE:
        assert f"stated by `{entry.check}`" in text and entry.page in text


def test_issue_38_new_prints_the_spec_without_out(tmp_path, capsys):
    assert main(["new", "--pattern", "lease"]) == 0
    printed = capsys.readouterr().out
    assert main(["new", "--pattern", "lease", "--out", str(tmp_path / "lease.spec")]) == 0
    assert printed == (tmp_path / "lease.spec").read_text() and printed.startswith("spec Lease\n")


def test_issue_38_new_sets_the_constants_given_as_check_D_would(tmp_path, capsys):
    out = tmp_path / "jobs.spec"
    assert main(["new", "--pattern", "lease", "--out", str(out), "--name", "Jobs", "-D", "MaxGrants=2",
                 "-D", "Clients={c1,c2,c3}"]) == 0
    text = out.read_text()
    assert "const MaxGrants: int = 2 " in text and "const Clients: set[model] = {c1, c2, c3}\n" in text
    assert text.startswith("spec Jobs\n")
    capsys.readouterr()
    main(["check", str(out), "--json", "--variant", "Fenced"])
    ours = json.loads(capsys.readouterr().out)
    main(["check", str(SPECS / "lib" / "lease.spec"), "--json", "--variant", "Fenced", "-D", "MaxGrants=2",
          "-D", "Clients={c1,c2,c3}"])
    theirs = json.loads(capsys.readouterr().out)
    assert ours["verdict"] == theirs["verdict"] == "ok"
    assert (ours["distinct_states"], ours["states_generated"]) == (theirs["distinct_states"], theirs["states_generated"])


def test_issue_38_new_lists_the_library(capsys):
    assert main(["new", "--list"]) == 0
    out = capsys.readouterr().out
    for e in ENTRIES:
        assert re.search(rf"^  {e.name} +{re.escape(e.summary)}$", out, re.M)
    assert out.index("Patterns") < out.index("Property templates")


@pytest.mark.parametrize("argv,message,hint", [
    (["--pattern", "leese"], "there is no pattern `leese`", "did you mean `lease`?"),
    (["--template", "lease"], "there is no template `lease`", "`lease` is a pattern: --pattern lease"),
    (["--template", "reply"], "there is no template `reply`", "did you mean `reply_delivered`?"),
    (["--pattern", "xyz"], "there is no pattern `xyz`", "`tlacheck new --list` lists them"),
    (["--pattern", "lease", "-D", "Clientz=3"], "-D Clientz: the spec has no constant named `Clientz`",
     "did you mean `Clients`?"),
    (["--pattern", "lease", "-D", "Clients=3"], "-D Clients: the value must be a set of model-value names",
     "quote it for the shell"),
    (["--pattern", "lease", "--name", "2fast"], "`2fast` cannot name a spec", "a spec's name is a letter"),
    ([], "say what to start from: --pattern NAME or --template NAME", "tlacheck new --list lists them"),
])
def test_issue_38_new_refuses_what_it_cannot_do(argv, message, hint, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal: no questions
    assert main(["new", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"tlacheck: error: {message}" in captured.err and hint in captured.err
    assert "Traceback" not in captured.err


def test_issue_38_new_does_not_overwrite_without_force(tmp_path, capsys):
    out = tmp_path / "mine.spec"
    out.write_text("spec Mine\n")
    assert main(["new", "--pattern", "lease", "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err and out.read_text() == "spec Mine\n"
    assert main(["new", "--pattern", "lease", "--out", str(out), "--force"]) == 0
    assert out.read_text().startswith("spec Mine\n\n# Started with `tlacheck new --pattern lease`")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_issue_38_new_asks_on_a_terminal(tmp_path, capsys, monkeypatch):
    out = tmp_path / "jobs.spec"
    names = [e.name for e in ENTRIES]
    # a name not in the list, or none, is asked again; then the file, the spec's name, and each constant
    # of the lease (Clients, TTL, Horizon, MaxGrants): Horizon changed, the others kept
    answers = ["leese", "", str(names.index("lease") + 1), str(out), "", "", "", "3", ""]
    monkeypatch.setattr("sys.stdin", _Terminal("\n".join(answers) + "\n"))
    assert main(["new"]) == 0
    said = capsys.readouterr().out
    assert "no 'leese' in the list" in said and "no '' in the list" in said
    assert "Write it to [lease.spec]: " in said and "Spec name [Jobs]: " in said
    assert "  Clients [{c1, c2}]: " in said and "  Horizon [4]: " in said
    text = out.read_text()
    assert text.startswith("spec Jobs\n") and re.search(r"^const Horizon: int = 3 ", text, re.M)
    assert re.search(r"^const TTL: int = 2 ", text, re.M)
    assert main(["verify", str(out)]) == 0


def test_issue_38_new_stops_at_the_end_of_the_answers(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", _Terminal(""))
    assert main(["new"]) == 2
    assert "tlacheck: error: no answer (end of input)" in capsys.readouterr().err


def test_issue_38_spec_names_come_from_file_names():
    assert starter.spec_name("out/my_jobs.spec") == "MyJobs"
    assert starter.spec_name("lease-v2.spec") == "LeaseV2"
    assert starter.spec_name("2.spec") == "Spec2"
