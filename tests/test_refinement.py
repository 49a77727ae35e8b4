"""Refinement (`refines NAME "FILE"`, compile/refinement.py): TLA+'s `INSTANCE ... WITH` and
`PROPERTY NAME!Spec`, its safety part.

The oracle is TLC on the TLA+ originals: EWD840 refines SyncTerminationDetection (TDSpec in
EWD840.cfg), and a mutated EWD840 whose Deactivate may pass a node's activity on to the next
node does not; TLC's counterexample and counts are compared with tlacheck's on the ports.
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.app.verify import verify_source
from tlacheck.core.errors import SpecError
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.core.result import Answer, Check
from tlacheck.pipeline.driver import build_model
from tests.conftest import REFERENCE as TLAPLUS_EXAMPLES, SPECS
from tests.oracle import tlc


REFERENCE = TLAPLUS_EXAMPLES / "ewd840"
needs_tlc = pytest.mark.skipif(tlc.available() is not None or not REFERENCE.is_dir(),
                               reason=f"TLC or the reference specs are not here: {tlc.available()}")

EWD840 = SPECS / "classic" / "ewd840.spec"

# The mutation, in the port and in the TLA+ original: Deactivate(i) may also activate node i+1.
PORT_MUTATION = ("    require active[i]\n    active[i] = false\n",
                 "    require active[i]\n    active[i] = false\n    either:\n        skip\n    or:\n"
                 "        active[(i + 1) % N] = true\n")
TLA_MUTATION = ("  /\\ active' = [active EXCEPT ![i] = FALSE]\n  /\\ UNCHANGED <<color, tpos, tcolor>>",
                "  /\\ \\/ active' = [active EXCEPT ![i] = FALSE]\n"
                "     \\/ active' = [active EXCEPT ![i] = FALSE, ![(i + 1) % N] = TRUE]\n"
                "  /\\ UNCHANGED <<color, tpos, tcolor>>")


def mutated_port(tmp_path: Path) -> Path:
    text = EWD840.read_text()
    assert PORT_MUTATION[0] in text
    path = tmp_path / "ewd840.spec"
    path.write_text(text.replace(PORT_MUTATION[0], PORT_MUTATION[1], 1))
    shutil.copy(SPECS / "classic" / "sync_termination_detection.spec", tmp_path)
    return path


def check(path: Path, **options):
    model = build_model(read_source(str(path)))
    return model, explore(model, Options(check_deadlock=False, **options))


def run_tlc(folder: Path, mutate: bool) -> tlc.TlcResult:
    for name in ("EWD840.tla", "SyncTerminationDetection.tla"):
        shutil.copy(REFERENCE / name, folder)
    if mutate:
        text = (folder / "EWD840.tla").read_text()
        assert TLA_MUTATION[0] in text
        (folder / "EWD840.tla").write_text(text.replace(TLA_MUTATION[0], TLA_MUTATION[1], 1))
    (folder / "M.cfg").write_text("CONSTANTS N = 3\nSPECIFICATION Spec\nPROPERTIES TDSpec\n")
    return tlc_on(folder, "M.cfg", "EWD840.tla")


def tlc_on(folder: Path, cfg: str, module: str) -> tlc.TlcResult:
    """TLC's report on `module` in `folder`, with one worker and deadlocks not checked."""
    proc = subprocess.run(tlc.command(folder, cfg, module),
                          cwd=folder, capture_output=True, text=True, timeout=300)
    return tlc.parse(proc.stdout + proc.stderr, proc.returncode)


def test_ewd840_refines_sync_termination_detection():
    model, result = check(EWD840, properties=("TDSpec",), invariants=())
    assert [c.name for c in model.refinements] == ["TDSpec"]
    assert model.refinements[0].abstract.name == "SyncTerminationDetection"
    assert result.verdict.name == "OK" and (result.distinct_states, result.states_generated) == (302, 2001)


def test_a_mutation_breaks_the_refinement_at_its_first_bad_step(tmp_path):
    model, result = check(mutated_port(tmp_path), properties=("TDSpec",), invariants=())
    v = result.violation
    assert result.verdict.name == "INVARIANT_VIOLATED" and (v.kind, v.name) == (Check.STEP, "TDSpec")
    before, after = (model.format_state(s.state)["active"] for s in v.trace.steps)
    assert (before, after) == ("{0 -> false, 1 -> false, 2 -> true}", "{0 -> true, 1 -> false, 2 -> false}")


@needs_tlc
@pytest.mark.parametrize("mutate", [False, True])
def test_verdicts_counts_and_counterexample_agree_with_tlc(tmp_path, mutate):
    theirs = run_tlc(tmp_path, mutate)
    path = EWD840
    if mutate:
        (tmp_path / "port").mkdir()
        path = mutated_port(tmp_path / "port")
    model, ours = check(path, properties=("TDSpec",), invariants=())
    if not mutate:
        assert theirs.verdict == "ok" and ours.verdict.name == "OK"
        assert (ours.distinct_states, ours.states_generated) == (theirs.distinct, theirs.generated)
        return
    assert theirs.verdict == "temporal" and "Action property" in theirs.output, theirs.output[-2000:]
    assert len(ours.violation.trace.steps) == theirs.trace_length
    assert (ours.distinct_states, ours.states_generated) == (theirs.distinct, theirs.generated)


def test_the_report_says_what_the_step_maps_to(tmp_path, capsys):
    code = main(["check", str(mutated_port(tmp_path)), "--property", "TDSpec"])
    out = capsys.readouterr().out
    assert code == 12
    assert "Error: refinement TDSpec of SyncTerminationDetection is violated: the last step is not a step of it." in out
    assert "    from active = {0 -> false, 1 -> false, 2 -> true}, terminationDetected = false" in out
    assert "    to   active = {0 -> true, 1 -> false, 2 -> false}, terminationDetected = false" in out


def test_verify_decides_an_expectation_on_a_refinement(tmp_path):
    path = mutated_port(tmp_path)
    path.write_text(path.read_text() + "\nexpect base violates TDSpec\n")
    rows = verify_source(read_source(str(path)))
    assert [(r.check, r.got, r.trace_length) for r in rows] == [("TDSpec", Answer.VIOLATES, 1)]


ABSTRACT = """\
var x: int = 0
action Inc:
    require x < 3
    x = x + 1
"""


def write(tmp_path: Path, concrete: str, abstract: str = ABSTRACT) -> Path:
    (tmp_path / "abstract.spec").write_text(abstract)
    path = tmp_path / "concrete.spec"
    path.write_text(textwrap.dedent(concrete))
    return path


def test_explicit_mapping_and_stuttering_steps(tmp_path):
    # y counts in halves: every second step of the concrete spec is a stutter of the abstract one
    path = write(tmp_path, """\
        var y: int = 0
        action Half:
            require y < 6
            y = y + 1
        refines A "abstract.spec":
            x = y // 2
        """)
    model, result = check(path)
    assert result.verdict.name == "OK" and result.distinct_states == 7


def test_an_initial_state_outside_the_abstract_ones(tmp_path):
    path = write(tmp_path, """\
        var y: int in {0, 2}
        action Inc:
            require y < 3
            y = y + 1
        refines A "abstract.spec":
            x = y
        """)
    model, result = check(path)
    v = result.violation
    assert (v.kind, v.name, len(v.trace.steps)) == (Check.PROPERTY, "A", 1)
    assert model.format_state(v.trace.steps[0].state)["y"] == "2"


def test_a_step_the_abstract_spec_cannot_take(tmp_path):
    path = write(tmp_path, """\
        var y: int = 0
        action Jump:
            require y < 3
            y = if y == 1 then 3 else y + 1
        refines A "abstract.spec":
            x = y
        """)
    model, result = check(path)
    v = result.violation
    assert (v.kind, v.name) == (Check.STEP, "A")
    assert [model.format_state(s.state)["y"] for s in v.trace.steps] == ["0", "1", "3"]


def test_abstract_constants_take_the_mapped_values(tmp_path):
    abstract = "const Max: int = 1\nvar x: int = 0\naction Inc:\n    require x < Max\n    x = x + 1\n"
    concrete = """\
        const Limit: int = 3
        var y: int = 0
        action Inc:
            require y < Limit
            y = y + 1
        refines A "abstract.spec":
            x = y
            Max = Limit
        """
    _, result = check(write(tmp_path, concrete, abstract))
    assert result.verdict.name == "OK"
    _, result = check(write(tmp_path, concrete.replace("            Max = Limit\n", ""), abstract))
    assert result.violation.name == "A" and len(result.violation.trace.steps) == 3  # 0, 1, then 2 > Max


ERRORS = {
    "no such file": ('refines A "missing.spec"\n', "cannot read the abstract spec 'missing.spec'", (1, 11)),
    "unmapped variable": ('var y: int = 0\nrefines A "abstract.spec"\n', "abstract variable `x` has no mapping",
                          (2, 9)),
    "unknown name": ('var y: int = 0\nrefines A "abstract.spec":\n    x = y\n    z = y\n',
                     "has no variable or constant `z`", (4, 5)),
    "wrong type": ('var y: bool = false\nrefines A "abstract.spec":\n    x = y\n', "`x` is int in the abstract spec",
                   (3, 9)),
    "itself": ('var x: int = 0\nrefines A "concrete.spec"\n', "cannot refine itself", (2, 11)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_misuse_is_reported_at_its_place(tmp_path, case):
    text, message, (line, column) = ERRORS[case]
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as info:
        build_model(read_source(str(path)))
    d = info.value.diagnostics[0]
    assert d.code == "E130" and message in d.message, d
    assert (d.span.line, d.span.column) == (line, column), d


def test_a_cycle_of_refinements_is_an_error(tmp_path):
    (tmp_path / "a.spec").write_text('var x: int = 0\nrefines B "b.spec"\n')
    (tmp_path / "b.spec").write_text('var x: int = 0\nrefines A "a.spec"\n')
    with pytest.raises(SpecError) as info:
        build_model(read_source(str(tmp_path / "a.spec")))
    assert "closes a cycle of refinements" in info.value.diagnostics[0].message


def test_an_error_in_the_abstract_spec_is_shown_in_its_file(tmp_path, capsys):
    path = write(tmp_path, 'var y: int = 0\nrefines A "abstract.spec":\n    x = y\n',
                 abstract="var x: int = 0\naction Inc:\n    x = x + true\n")
    assert main(["check", str(path)]) == 3
    err = capsys.readouterr().err
    assert f"{tmp_path / 'abstract.spec'}:3:9: error[E102]" in err and "   3 |     x = x + true" in err


# ---------------------------------------------------------------- the abstract spec's fairness

def test_the_abstract_fairness_holds_on_ewd840():
    model, result = check(EWD840, properties=("TDSpec",), invariants=())
    assert model.refinements[0].abstract.ir.fairness  # TD's WF_vars(DetectTermination)
    assert result.verdict.name == "OK"


def unfair_port(tmp_path: Path) -> Path:
    """EWD840 without its fairness (`fair weak InitiateProbe or PassToken`): the token may stop."""
    text = EWD840.read_text()
    line = "fair weak InitiateProbe or PassToken\n"
    assert line in text
    path = tmp_path / "ewd840.spec"
    path.write_text(text.replace(line, "", 1))
    shutil.copy(SPECS / "classic" / "sync_termination_detection.spec", tmp_path)
    return path


def test_without_its_own_fairness_ewd840_breaks_the_abstract_fairness(tmp_path):
    from tests.test_liveness import replay_lasso

    model, result = check(unfair_port(tmp_path), properties=("TDSpec",), invariants=())
    v = result.violation
    assert result.verdict.name == "LIVENESS_VIOLATED" and (v.kind, v.name) == (Check.LIVENESS, "TDSpec")
    assert "weak fairness of `DetectTermination`" in v.message
    replay_lasso(model, v.trace)  # a real, fair behaviour of the concrete spec
    # in its loop TD's DetectTermination is enabled (every node inactive, termination not detected)
    # and never taken
    check_ = model.refinements[0]
    loop = v.trace.steps[v.trace.loop_index:]
    mapped = [check_.describe(s.state) for s in loop]
    assert all("terminationDetected = false" in m and "true" not in m.split("terminationDetected")[0] for m in mapped)


@needs_tlc
def test_tlc_agrees_that_ewd840_without_fairness_breaks_tdspec(tmp_path):
    for name in ("EWD840.tla", "SyncTerminationDetection.tla"):
        shutil.copy(REFERENCE / name, tmp_path)
    text = (tmp_path / "EWD840.tla").read_text()
    old = "Spec == Init /\\ [][Next]_vars /\\ WF_vars(System)"
    assert old in text
    (tmp_path / "EWD840.tla").write_text(text.replace(old, "Spec == Init /\\ [][Next]_vars", 1))
    (tmp_path / "M.cfg").write_text("CONSTANTS N = 3\nSPECIFICATION Spec\nPROPERTIES TDSpec\n")
    theirs = tlc_on(tmp_path, "M.cfg", "EWD840.tla")
    (tmp_path / "port").mkdir()
    _, ours = check(unfair_port(tmp_path / "port"), properties=("TDSpec",), invariants=())
    assert theirs.verdict == "temporal" and ours.verdict.name == "LIVENESS_VIOLATED"
    assert (ours.distinct_states, ours.states_generated) == (theirs.distinct, theirs.generated)


def test_abstract_fairness_on_a_small_pair(tmp_path):
    abstract = "var x: int = 0\naction Inc:\n    require x < 3\n    x = x + 1\nfair weak Inc\n"
    concrete = """\
        var y: int = 0
        action Half:
            require y < 6
            y = y + 1
        fair weak Half
        refines A "abstract.spec":
            x = y // 2
        """
    _, result = check(write(tmp_path, concrete, abstract))
    assert result.verdict.name == "OK"
    _, result = check(write(tmp_path, concrete.replace("        fair weak Half\n", ""), abstract))
    assert result.verdict.name == "LIVENESS_VIOLATED" and result.violation.name == "A"
    # strong fairness in the abstract spec, weak here: the same verdicts (Inc stays enabled)
    _, result = check(write(tmp_path, concrete, abstract.replace("weak", "strong")))
    assert result.verdict.name == "OK"


def test_the_abstract_fairness_is_decided_alike_with_two_workers(tmp_path):
    path = unfair_port(tmp_path)
    one = check(path, properties=("TDSpec",), invariants=())[1]
    two = check(path, properties=("TDSpec",), invariants=(), workers=2)[1]
    assert (two.verdict, two.distinct_states, two.states_generated) == (one.verdict, one.distinct_states,
                                                                         one.states_generated)
    assert [s.state for s in two.violation.trace.steps] == [s.state for s in one.violation.trace.steps]


# ---------------------------------------------------------------- constants from an import (issue 32, item 13)

LIB = "const K: int = 1\n"
IMPORTING_ABSTRACT = 'import "lib.spec"\nvar x: int = 0\naction Inc:\n    require x < K\n    x = x + 1\n'
IMPORTING_CONCRETE = """\
    import "lib.spec"
    var y: int = 0
    action Inc:
        require y < K
        y = y + 1
    refines A "abstract.spec":
        x = y
"""


def importing_pair(tmp_path: Path, mapping: str = "") -> Path:
    (tmp_path / "lib.spec").write_text(LIB)
    return write(tmp_path, IMPORTING_CONCRETE + mapping, IMPORTING_ABSTRACT)


@pytest.mark.parametrize("mapping", ["", "        K = K\n"])
def test_issue_32_an_abstract_specs_imported_constant_follows_the_override(tmp_path, mapping):
    """Both specs import K: the abstract K is the concrete one (implicitly, or mapped `K = K`),
    so `-D K=3` holds for both and x = y refines."""
    path = importing_pair(tmp_path, mapping)
    for k in (1, 3):
        model = build_model(read_source(str(path)), {"K": str(k)})
        abstract = model.refinements[0].abstract
        assert dict(zip((c.name for c in abstract.ir.constants), abstract.constants)) == {"K": k}
        result = explore(model, Options(check_deadlock=False))
        assert (result.verdict.name, result.distinct_states) == ("OK", k + 1)


def test_issue_32_an_imported_constant_mapped_to_another_value(tmp_path):
    """`K = 2` under `refines`, with -D K=3: the abstract spec stops at 2, the concrete one goes on."""
    path = importing_pair(tmp_path, "        K = 2\n")
    result = explore(build_model(read_source(str(path)), {"K": "3"}), Options(check_deadlock=False))
    v = result.violation
    assert (v.kind, v.name, len(v.trace.steps)) == (Check.STEP, "A", 4)  # y = 0, 1, 2, then 3 > K


LIB_TLA = "---- MODULE Lib ----\nCONSTANT K\n====\n"
ABS_TLA = """---- MODULE Abs ----
EXTENDS Lib, Naturals
VARIABLE x
Init == x = 0
Inc == x < K /\\ x' = x + 1
Spec == Init /\\ [][Inc]_x
====
"""
CONC_TLA = """---- MODULE Conc ----
EXTENDS Lib, Naturals
VARIABLE y
Init == y = 0
Inc == y < K /\\ y' = y + 1
Spec == Init /\\ [][Inc]_y
A == INSTANCE Abs WITH x <- y{with}
Refines == A!Spec
====
"""


@pytest.mark.skipif(tlc.available() is not None, reason=f"TLC cannot run here: {tlc.available()}")
@pytest.mark.parametrize("mapping, tla", [("", ""), ("        K = 2\n", ", K <- 2")])
def test_issue_32_tlc_agrees_on_a_refinement_whose_constant_is_imported(tmp_path, mapping, tla):
    """TLC on the TLA+ equivalent (Lib declares K, both modules extend it, `INSTANCE Abs WITH
    x <- y`), K = 3: the same verdict, counts and trace length."""
    (tmp_path / "Lib.tla").write_text(LIB_TLA)
    (tmp_path / "Abs.tla").write_text(ABS_TLA)
    (tmp_path / "Conc.tla").write_text(CONC_TLA.replace("{with}", tla))
    (tmp_path / "Conc.cfg").write_text("CONSTANT K = 3\nSPECIFICATION Spec\nPROPERTY Refines\n")
    theirs = tlc_on(tmp_path, "Conc.cfg", "Conc.tla")
    (tmp_path / "port").mkdir()
    ours = explore(build_model(read_source(str(importing_pair(tmp_path / "port", mapping))), {"K": "3"}),
                   Options(check_deadlock=False))
    if not tla:
        assert theirs.verdict == "ok" and ours.verdict.name == "OK", theirs.output[-2000:]
        assert (ours.distinct_states, ours.states_generated) == (theirs.distinct, theirs.generated)
        return
    assert theirs.verdict == "temporal" and "Action property" in theirs.output, theirs.output[-2000:]
    assert ours.violation.kind == Check.STEP and len(ours.violation.trace.steps) == theirs.trace_length
