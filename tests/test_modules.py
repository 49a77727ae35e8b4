"""Modules (`import "FILE"`, lang/modules.py): the imported file's declarations are the spec's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.app.verify import verify_source
from tlacheck.core.errors import SpecError, UsageError
from tlacheck.engine.explore import explore
from tlacheck.pipeline.driver import build_model


COMMON = """\
const Procs: set[model] = {p1, p2}
enum Phase { idle, busy }
def others(p: Procs) -> set[Procs]: Procs - {p}
"""

MAIN = """\
import "common.spec"
var phase: map[Procs, Phase] = {p -> idle for p in Procs}
action Start(p in Procs):
    require all(phase[q] == idle for q in others(p))
    phase[p] = busy
action Stop(p in Procs):
    require phase[p] == busy
    phase[p] = idle
invariant OneBusy: len({p for p in Procs if phase[p] == busy}) <= 1
"""


def write(folder: Path, **files: str) -> Path:
    for name, text in files.items():
        (folder / f"{name}.spec").write_text(text)
    return folder / f"{next(iter(files))}.spec"


def model_at(path: Path):
    return build_model(read_source(str(path)))


def test_imported_declarations_are_the_specs_own(tmp_path):
    imported = model_at(write(tmp_path, main=MAIN, common=COMMON))
    inline = MAIN.replace('import "common.spec"\n', COMMON)
    pasted = model_at(write(tmp_path, pasted=inline))
    a, b = explore(imported), explore(pasted)
    assert (a.verdict, a.distinct_states, a.states_generated) == (b.verdict, b.distinct_states, b.states_generated)
    assert a.verdict.name == "OK" and a.distinct_states == 3
    assert imported.generated.source == pasted.generated.source  # the same code: nothing but a paste


def test_imports_nest_and_a_file_imported_twice_is_included_once(tmp_path):
    path = write(tmp_path, main='import "left.spec"\nimport "right.spec"\n' + MAIN.split("\n", 1)[1],
                 left='import "common.spec"\ndef idleAll(m: map[Procs, Phase]) -> bool: all(m[p] == idle for p in Procs)\n',
                 right='import "common.spec"\n', common=COMMON)
    model = model_at(path)
    assert explore(model).distinct_states == 3


def test_a_clash_names_both_places(tmp_path):
    path = write(tmp_path, main='import "common.spec"\nenum Phase { a }\nvar x: Phase = a\n', common=COMMON)
    with pytest.raises(SpecError) as info:
        model_at(path)
    d = info.value.diagnostics[0]
    assert (d.code, d.span.line, d.span.column) == ("E101", 2, 6)
    assert d.hint == f"first declared at {tmp_path / 'common.spec'}:2:6"


def test_an_error_in_an_imported_file_is_reported_in_it(tmp_path, capsys):
    path = write(tmp_path, main=MAIN, common=COMMON.replace("Procs - {p}", "Procs - p"))
    assert main(["check", str(path)]) == 3
    err = capsys.readouterr().err
    assert f"{tmp_path / 'common.spec'}:3:" in err and "   3 | def others" in err


def test_variants_of_the_importer_replace_imported_declarations_and_the_imported_variants_stay_out(tmp_path):
    common = COMMON + 'variant Elsewhere "not imported":\n    replace def others(p: Procs) -> set[Procs]: {}\n'
    text = MAIN + ('variant Free "no mutual exclusion":\n    replace def others(p: Procs) -> set[Procs]: {}\n'
                   "expect base holds OneBusy\nexpect Free violates OneBusy\n")
    rows = verify_source(read_source(str(write(tmp_path, main=text, common=common))))
    assert [(r.variant, r.got.value) for r in rows] == [("base", "holds"), ("Free", "violates")]
    with pytest.raises(UsageError, match="no variant `Elsewhere`"):  # common.spec's, not main.spec's
        build_model(read_source(str(tmp_path / "main.spec")), variant="Elsewhere")


@pytest.mark.parametrize("files, message, where", [
    ({"main": 'import "missing.spec"\nvar x: int = 0\n'}, "cannot import 'missing.spec'", (1, 8)),
    ({"main": 'import "main.spec"\nvar x: int = 0\n'}, "cannot import itself", (1, 8)),
    ({"main": 'import "b.spec"\nvar x: int = 0\n', "b": 'import "main.spec"\n'}, "a file that imports it", (1, 8)),
])
def test_import_errors(tmp_path, files, message, where):
    path = write(tmp_path, **files)
    with pytest.raises(SpecError) as info:
        model_at(path)
    d = info.value.diagnostics[0]
    assert d.code == "E131" and message in d.message
    assert (d.span.line, d.span.column) == where


def test_import_stays_a_name_elsewhere(tmp_path):
    model = model_at(write(tmp_path, main="var import: int = 0\naction A:\n    require import < 1\n    import = 1\n"
                                          "deadlock: allowed\n"))
    assert explore(model).distinct_states == 2


def test_issue_38_a_file_imported_from_a_sibling_folder_is_named_without_dot_dot(tmp_path, capsys, monkeypatch):
    """specs/cases/*.spec import "../lib/NAME.spec": traces, coverage and errors named the pattern's
    actions `specs/cases/../lib/NAME.spec:25`, a path that leads where `specs/lib/NAME.spec` does."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs" / "lib").mkdir(parents=True)
    (tmp_path / "specs" / "cases").mkdir()
    (tmp_path / "specs" / "lib" / "common.spec").write_text(COMMON + "var n: int = 0\naction Grow:\n    n = n + 1\n"
                                                             "invariant Small: n < 2\n")
    (tmp_path / "specs" / "cases" / "main.spec").write_text('import "../lib/common.spec"\n')
    assert main(["check", "specs/cases/main.spec"]) == 12
    out = capsys.readouterr().out
    assert "State 2: Grow    (specs/lib/common.spec:5)" in out and ".." not in out
