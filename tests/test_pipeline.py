"""pipeline/driver.py: the front end's passes run by one driver, each file parsed once, and the
Recipe a model is built again from (issue 34 item 4)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter

import pytest

from tlacheck.app.verify import verify_source
from tlacheck.core.errors import UsageError
from tlacheck.core.files import read_source
from tlacheck.core.result import Answer
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.lang import parser
from tlacheck.pipeline.driver import Pipeline, build_model, lower

LIB = """\
const Top: int = 2
def below(n: int) -> bool:
    n < Top
"""
ABSTRACT = """\
spec Abstract
import "lib.spec"
var x: 0..2 = 0
action Up:
    require below(x)
    x = x + 1
"""
MAIN = """\
spec Main
import "lib.spec"
var y: 0..2 = 0
var z: bool = false
action Step:
    require below(y)
    y = y + 1
action Flip:
    z = not z
refines A "abstract.spec":
    x = y
invariant Bounded: y <= Top
invariant Small: y <= 1
variant Slow:
    replace action Step:
        require y < 1
        y = y + 1
variant Still:
    remove action Step
expect base violates Small
expect Slow holds
expect Still holds Small
"""


@pytest.fixture
def project(tmp_path):
    for name, text in (("lib.spec", LIB), ("abstract.spec", ABSTRACT), ("main.spec", MAIN)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.fixture
def parses(monkeypatch):
    """How often the parser parsed each text as a whole spec (not a -D value)."""
    seen: Counter = Counter()
    real = parser._lark()

    class Counting:
        def parse(self, text, start):
            if start == "start":
                seen[text] += 1
            return real.parse(text, start=start)

    monkeypatch.setattr(parser, "_lark", lambda: Counting())
    return seen


def test_issue_34_verify_parses_each_file_once(project, parses):
    """Three variants, each importing lib.spec and refining abstract.spec (which imports lib.spec
    too), and the base explored again for the fix's replay: every file is parsed once."""
    rows = verify_source(read_source(str(project / "main.spec")))
    assert [(r.variant, r.got) for r in rows] == [("base", Answer.VIOLATES), ("Slow", Answer.HOLDS),
                                                       ("Still", Answer.HOLDS)]
    assert sorted(parses.values()) == [1, 1, 1]
    assert set(parses) == {LIB, ABSTRACT, MAIN}


def test_issue_34_the_pytest_plugin_parses_each_file_once(project):
    """Collection reads the `expect` lines and the items decide them from the same parse (run in a
    process of its own, as pytest runs it; the count is printed by a conftest)."""
    (project / "conftest.py").write_text(textwrap.dedent("""\
        from collections import Counter
        from tlacheck.lang import parser

        SEEN = Counter()
        _real = parser._lark()

        class _Counting:
            def parse(self, text, start):
                if start == "start":
                    SEEN[text.split(chr(10))[0]] += 1
                return _real.parse(text, start=start)

        parser._lark = lambda: _Counting()

        def pytest_sessionfinish(session):
            print("PARSED", sorted(SEEN.items()))
        """), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:xdist", "-p", "no:cacheprovider",
                           "main.spec"], cwd=project, capture_output=True, text=True, timeout=300)
    assert "3 passed" in proc.stdout, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if "PARSED" in x)
    assert line[line.index("PARSED"):] == "PARSED [('const Top: int = 2', 1), ('spec Abstract', 1), ('spec Main', 1)]"


def test_issue_34_one_pipeline_lowers_every_variant_from_one_tree(project, parses):
    pipeline = Pipeline()
    source = read_source(str(project / "main.spec"))
    assert pipeline.variants(source) == ["base", "Slow", "Still"]
    specs = [pipeline.lower(source, None, v).spec for v in pipeline.variants(source)]
    assert [len(s.actions) for s in specs] == [2, 2, 1]
    assert [a.name for a in specs[2].actions] == ["Flip"]
    assert max(parses.values()) == 1
    # the same IR as a pipeline of its own gives (a fresh parse), variant by variant
    assert [lower(source, None, v) for v in ("base", "Slow", "Still")] == specs


def test_issue_34_the_passes_run_in_order(project):
    """A process and a type alias in a variant of a spec that imports and refines: the variant is
    applied before the refinements are completed, the processes desugared and the aliases
    resolved, so each sees what the one before made."""
    (project / "procs.spec").write_text(textwrap.dedent("""\
        spec Procs
        import "lib.spec"
        type Small = 0..2
        var y: Small = 0
        process P:
            a:
                require below(y)
                y = y + 1
            b:
                skip
        refines A "abstract.spec":
            x = y
        variant Wider:
            replace type Small = 0..3
        """), encoding="utf-8")
    source = read_source(str(project / "procs.spec"))
    base, wider = (Pipeline().lower(source, None, v).spec for v in ("base", "Wider"))
    assert [p.name for p in base.processes] == ["P"] and [a.name for a in base.actions][:2] == ["a", "b"]
    assert str(base.variables[0].type) != str(wider.variables[0].type) or \
        base.variables[0].bounds != wider.variables[0].bounds
    assert [r.name for r in base.refinements] == ["A"] and base.refinements[0].variables == ("x",)


def test_issue_34_a_recipe_builds_the_same_model_from_its_texts_alone(project, monkeypatch):
    source = read_source(str(project / "main.spec"))
    model = build_model(source, {"Top": "2"}, "Slow")
    recipe = model.recipe
    assert recipe.variant == "Slow" and recipe.overrides == (("Top", "2"),)
    assert {path.rsplit("/", 1)[1] for path, _ in recipe.files} == {"lib.spec", "abstract.spec"}
    for name in ("lib.spec", "abstract.spec", "main.spec"):
        (project / name).unlink()  # the texts are the recipe's now
    again = recipe.build()
    options = Options(check_deadlock=False)
    first, second = explore(model, options), explore(again, options)
    assert (first.verdict, first.distinct_states) == (second.verdict, second.distinct_states)
    assert [c.name for c in again.refinements] == ["A"]


def test_issue_34_a_pipeline_reads_a_shared_file_once_for_several_specs(project, parses):
    (project / "other.spec").write_text('spec Other\nimport "lib.spec"\nvar w: bool = below(1)\n'
                                        'action T:\n    w = not w\n', encoding="utf-8")
    pipeline = Pipeline()
    for name in ("main.spec", "other.spec"):
        pipeline.build(read_source(str(project / name)))
    assert parses[LIB] == 1 and set(parses.values()) == {1}


def test_issue_34_an_unknown_variant_is_a_usage_error_from_the_pipeline():
    with pytest.raises(UsageError, match="no variant `Nope`"):
        Pipeline().build(Source("t.spec", "var x: bool = true\naction A:\n    x = not x\n"), None, "Nope")


def test_issue_34_a_built_model_does_not_change(project):
    """The pipeline seals what it builds (docs/architecture.md: a Model does not change once
    built), the abstract specs' models too."""
    model = build_model(read_source(str(project / "main.spec")))
    with pytest.raises(AttributeError, match="does not change once built"):
        model.invariants = ()
    with pytest.raises(AttributeError, match="does not change once built"):
        model.refinements[0].abstract.steps = ()
    assert [n for n, _ in model.invariants] == ["Bounded", "Small"]
