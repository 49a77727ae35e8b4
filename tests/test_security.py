"""No code execution from a spec, and no file written outside the chosen output directory (issue 8, item 2).

A spec may be untrusted: shared between teams or pulled from a pull request. These tests
smuggle Python and shell through every channel a spec and the command line offer:
identifiers (spec, enum, member, model value, variable, action, actor, invariant,
property, function and variant names), comments, variant descriptions (the one string the
language has), `-D` values, spec file names (path traversal, shell metacharacters, a newline),
names recorded in a saved trace, and folder names under `tlacheck counterexamples`. Each
command runs in a forked copy of the test process (tests/fuzzing.py), from a working
directory three levels inside a sandbox; afterwards

- no marker file exists (every payload tries to create one, by Python or by shell);
- every path created in the sandbox is inside the output directory given on the command
  line (the sandbox is listed before and after, recursively);
- the generated Python holds only generated identifiers and int/bool literals
  (tests/test_codegen.py's check), and no text of a variant description or comment;
- the DOT files escape spec text, so a comment cannot inject Graphviz attributes such as
  `image=` (which would make `dot` read a file).
"""

from __future__ import annotations

import json
import re

import pytest

from tlacheck.core.source import Source
from tlacheck.output import artefacts
from tlacheck.output.render import dot_available
from tlacheck.pipeline.driver import build_model
from tests.fuzzing import run_cli
from tests.test_codegen import assert_clean


MARK = "PWNED"


def payloads(marker: str) -> list[str]:
    """Python and shell that would create `marker` if anything evaluated them."""
    return [
        f"__import__('os').system('touch {marker}')",
        f"open('{marker}', 'w').write('x')",
        f"$(touch {marker})",
        f"`touch {marker}`",
        f"; touch {marker};",
        f"'''; import os; os.system('touch {marker}') #",
        f"\\n__import__('pathlib').Path('{marker}').touch()",
        f"{{__import__('os').system('touch {marker}')}}",
    ]


@pytest.fixture
def sandbox(tmp_path):
    """(root, work): commands run in work = root/a/b/work, so `../../..` stays inside root."""
    work = tmp_path / "a" / "b" / "work"
    work.mkdir(parents=True)
    return tmp_path, work


def listing(root) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def assert_contained(root, before: set[str], allowed: list[str]) -> set[str]:
    """Every path created since `before` lies under one of `allowed` (paths relative to root);
    no marker file anywhere. Returns the new paths."""
    new = listing(root) - before
    assert not [p for p in listing(root) if p.rsplit("/", 1)[-1] == MARK], "a payload ran"
    outside = [p for p in new if not any(p == a or p.startswith(a.rstrip("/") + "/") for a in allowed)]
    assert not outside, f"written outside the output directory: {sorted(outside)}"
    return new


def evil_spec(marker: str) -> str:
    """A spec whose every name is a Python builtin or dunder, with payloads in comments and in
    the variant description. Its invariant fails after two steps, so there is a trace to draw."""
    p = payloads(marker)
    comments = "\n".join(f"# {x}" for x in p)
    description = p[0].replace('"', "'")
    return f'''{comments}
spec __import__
enum exec {{ system, popen, __builtins__ }}
const os: set[model] = {{__class__, globals, breakpoint}}
const open: int = 2  # {p[1]}
var eval: int = 0
var compile: exec = system
var getattr: map[os, bool] = {{k -> false for k in os}}
def __init__(setattr: int) -> int: setattr + 1
action subprocess(__dict__ in os) by __self__ -> __module__:
    require eval < open  # {p[2]}
    eval = __init__(eval)
    compile = popen
    getattr[__dict__] = true
action __del__ by __module__:
    require eval == open
    compile = __builtins__
invariant __subclasses__: eval < open#"]; n [image="/etc/passwd"]; x [label="{p[3]}
property __globals__: eventually compile == __builtins__
reachable __code__: compile == popen
variant __call__ "{description}":
    replace action __del__ by __module__:
        require eval == open
        compile = system
expect base violates __subclasses__
expect __call__ violates __subclasses__
'''


def assert_no_payload_in_generated_code(text: str, overrides: dict | None = None, variant: str = "base"):
    model = build_model(Source("evil.spec", text), overrides, variant)
    assert_clean(model.generated.source)
    for word in ("__import__", "system", "touch", "open", MARK, "passwd"):
        assert word not in model.generated.source, word


# ---------------------------------------------------------------- check --render, --itf

@pytest.mark.parametrize("variant", ["base", "__call__"])
def test_hostile_names_and_comments_stay_data(sandbox, variant):
    root, work = sandbox
    text = evil_spec(MARK)
    assert_no_payload_in_generated_code(text, variant=variant)
    (work / "evil.spec").write_text(text)
    before = listing(root)
    outcome = run_cli(["check", "evil.spec", "--quiet", "--variant", variant, "--render", "out", "--swimlanes",
                       "--itf", "out/trace.itf.json"], work)
    assert outcome.code == 12, outcome.stderr
    new = assert_contained(root, before, ["a/b/work/out"])
    names = sorted(p.rsplit("/", 1)[-1] for p in new if p != "a/b/work/out")
    stem = artefacts.stem("evil", variant, "__subclasses__")  # evil.base.subclasses: `_` trimmed
    assert f"{stem}.dot" in names and f"{stem}.swimlanes.dot" in names, names
    assert "trace.itf.json" in names
    for path in (work / "out").iterdir():
        content = path.read_text(encoding="utf-8")
        assert 'image="' not in content and "root:" not in content, path.name  # no DOT attribute injection
    dot = (work / "out" / f"{stem}.dot").read_text(encoding="utf-8")
    assert "image=&quot;/etc/passwd&quot;" in dot  # the comment is there, escaped, as text


@pytest.mark.parametrize("payload", payloads(MARK))
def test_define_values_are_never_evaluated(sandbox, payload):
    root, work = sandbox
    (work / "evil.spec").write_text(evil_spec(MARK))
    before = listing(root)
    for name in ("open", "os"):
        outcome = run_cli(["check", "evil.spec", "--quiet", "-D", f"{name}={payload}", "--render", "out"], work)
        assert outcome.code in (2, 3), outcome.stderr  # not a value of the spec language
        assert "internal error" not in outcome.stderr
    assert_contained(root, before, [])


def test_model_values_from_the_command_line_are_names_only(sandbox):
    root, work = sandbox
    text = evil_spec(MARK)
    overrides = {"os": "{__import__, system, __builtins__, popen}"}
    assert_no_payload_in_generated_code(text, overrides)
    (work / "evil.spec").write_text(text)
    before = listing(root)
    outcome = run_cli(["check", "evil.spec", "--quiet", "-D", f"os={overrides['os']}", "--render", "out"], work)
    assert outcome.code == 12, outcome.stderr
    assert_contained(root, before, ["a/b/work/out"])


# ---------------------------------------------------------------- spec file names

SMALL = "var x: int = 0\naction Inc:\n    require x < 2\n    x = x + 1\ninvariant Small: x < 2\n"
FILE_NAMES = [f"$(touch {MARK}).spec", f"`touch {MARK}`.spec", f"a;touch {MARK};b.spec", f"x\nrm -rf {MARK}.spec",
              "..spec", ".spec", "-rf.spec", "..%2f..%2fescape.spec", "über ☃.spec", "a" * 200 + ".spec"]


@pytest.mark.parametrize("name", FILE_NAMES, ids=range(len(FILE_NAMES)))
def test_spec_file_names_cannot_escape_or_run(sandbox, name):
    root, work = sandbox
    (work / name).write_text(SMALL)
    before = listing(root)
    outcome = run_cli(["check", "./" + name, "--quiet", "--render", "out", "--itf", "out/t.itf.json"], work)
    assert outcome.code == 12, outcome.stderr
    new = assert_contained(root, before, ["a/b/work/out"])
    for path in new:
        stem = path.rsplit("/", 1)[-1]
        assert path == "a/b/work/out" or re.fullmatch(r"[A-Za-z0-9_.-]+", stem), stem
    outcome = run_cli(["graph", "./" + name, "--out", "graph"], work)
    assert outcome.code == 0, outcome.stderr
    assert_contained(root, before, ["a/b/work/out", "a/b/work/graph"])


def test_spec_in_a_parent_folder_writes_only_into_out(sandbox):
    root, work = sandbox
    (work.parent / "x.spec").write_text(SMALL)
    (work.parent.parent / "y.spec").write_text(SMALL)
    before = listing(root)
    for path in ("../x.spec", "../../y.spec", str(work.parent / "x.spec")):
        outcome = run_cli(["check", path, "--quiet", "--render", "out"], work)
        assert outcome.code == 12, outcome.stderr
    new = assert_contained(root, before, ["a/b/work/out"])
    assert {"a/b/work/out/x.base.Small.dot", "a/b/work/out/y.base.Small.dot"} <= new


# ---------------------------------------------------------------- render, counterexamples

def test_names_recorded_in_a_saved_trace_cannot_escape(sandbox):
    root, work = sandbox
    (work / "small.spec").write_text(SMALL)
    outcome = run_cli(["check", "small.spec", "--quiet", "--json"], work)
    assert outcome.code == 12
    data = json.loads(outcome.stdout)
    hostile = f"../../../../{MARK}"
    data["violation"]["name"] = hostile
    data["violation"]["kind"] = hostile
    data["file"] = "small.spec"
    (work / "trace.json").write_text(json.dumps(data))
    before = listing(root)
    outcome = run_cli(["render", "trace.json", "--out", "out"], work)
    assert outcome.code in (0, 2), outcome.stderr
    assert "internal error" not in outcome.stderr
    assert_contained(root, before, ["a/b/work/out"])
    data["variant"] = hostile
    (work / "trace.json").write_text(json.dumps(data))
    outcome = run_cli(["render", "trace.json", "--out", "out"], work)
    assert outcome.code in (2, 3), outcome.stderr
    assert_contained(root, before, ["a/b/work/out"])


def test_counterexamples_folder_names_cannot_escape(sandbox):
    root, work = sandbox
    specs = work / "specs"
    for folder in (f"$(touch {MARK})", "..x", "a;b", ". hidden"):
        (specs / folder).mkdir(parents=True)
        (specs / folder / f"`touch {MARK}`.spec").write_text(SMALL + "expect base violates Small\n")
    (specs / "evil.spec").write_text(evil_spec(MARK))
    before = listing(root)
    outcome = run_cli(["counterexamples", "specs", "--out", "out"], work)
    assert outcome.code == 0, outcome.stderr
    new = assert_contained(root, before, ["a/b/work/out"])
    assert "a/b/work/out/evil.base.subclasses.itf.json" in new
    assert len([p for p in new if p.endswith(".txt") and not p.endswith("/tlacheck-manifest.txt")]) == 6


@pytest.mark.parametrize("planted", ["small.base.Small.dot", "small.base.Small.svg"])
def test_a_symlink_in_the_output_directory_is_not_followed_out(sandbox, planted):
    """A symlink planted in the output directory (a cloned repository can hold one) pointing
    outside it: tlacheck refuses to write through it (a usage error); the target is untouched.
    Before issue 8 the image was written through such a link, overwriting its target."""
    if planted.endswith(".svg") and not dot_available():
        pytest.skip("needs Graphviz's `dot` to write an image")
    root, work = sandbox
    (work / "small.spec").write_text(SMALL)
    victim = root / "victim.txt"
    victim.write_text("keep")
    (work / "out").mkdir()
    (work / "out" / planted).symlink_to(victim)
    outcome = run_cli(["check", "small.spec", "--quiet", "--render", "out"], work)
    assert outcome.code == 2, outcome.stderr
    assert "outside" in outcome.stderr and "internal error" not in outcome.stderr
    assert victim.read_text() == "keep"


@pytest.mark.skipif(not dot_available(), reason="needs Graphviz's `dot` to write an image")
def test_counterexamples_does_not_write_through_a_planted_symlink(sandbox):
    root, work = sandbox
    (work / "specs").mkdir()
    (work / "specs" / "small.spec").write_text(SMALL + "expect base violates Small\n")
    victim = root / "victim.txt"
    victim.write_text("keep")
    (work / "out").mkdir()
    (work / "out" / "small.base.Small.svg").symlink_to(victim)
    outcome = run_cli(["counterexamples", "specs", "--out", "out"], work)
    assert outcome.code == 2, outcome.stderr
    assert victim.read_text() == "keep"
