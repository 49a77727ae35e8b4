"""variants.py: a variant named on the command line must exist."""

import pytest

from tlacheck.core.errors import UsageError
from tlacheck.core.source import Source
from tlacheck.lang.parser import parse
from tlacheck.lang.variants import apply_variant


SPEC = """var x: int = 0
action Inc:
    require x < 3
    x = x + 1
invariant Small: x < 3
variant Capped "stop at 2":
    replace action Inc:
        require x < 2
        x = x + 1
"""


def test_issue_8_unknown_variant_is_a_usage_error_with_a_hint():
    """Found by fuzzing: `--variant Nope` printed `error[E100]` with no file:line:col (exit 3);
    like an unknown `--invariant`, it is a usage error (exit 2)."""
    tree = parse(Source("v.spec", SPEC))
    with pytest.raises(UsageError) as info:
        apply_variant(tree, "Caped")
    assert info.value.message == "the spec has no variant `Caped`"
    assert info.value.hint == "did you mean `Capped`?"
    with pytest.raises(UsageError) as info:
        apply_variant(tree, "zzz")
    assert info.value.hint == "its variants: base, Capped"
    assert [d.name for d in apply_variant(tree, "Capped").declarations if hasattr(d, "name")][:1] == ["x"]


# ---------------------------------------------------------------- issue 15: extend, replace block

from tlacheck.core.errors import SpecError  # noqa: E402
from tlacheck.engine.explore import explore  # noqa: E402
from tlacheck.engine.options import Options  # noqa: E402
from tlacheck.pipeline.driver import build_model  # noqa: E402

QUEUE = """\
const N: int = 3
var q: seq[int] = []
var sent: int = 0
var log: int = 0
block push(v: int):
    q = append(q, v)
    sent = sent + 1
action Send(v in 1..2):
    require sent < N
    push(v)
action Recv:
    require q != []
    let v = head(q)
    q = tail(q)
invariant Short: len(q) <= N
variant Pasted:
    replace action Send(v in 1..2):
        require len(q) < 2
        require sent < N
        q = append(q, v)
        sent = sent + 1
        log = len(q)
variant Extended:
    extend action Send:
        before:
            require len(q) < 2
        after:
            log = len(q)
variant Twice:
    replace block push(v: int):
        q = append(append(q, v), v)
        sent = sent + 1
variant TwicePasted:
    replace action Send(v in 1..2):
        require sent < N
        q = append(append(q, v), v)
        sent = sent + 1
"""


def counts(text: str, variant: str) -> tuple:
    r = explore(build_model(Source("q.spec", text), variant=variant), Options(check_deadlock=False))
    return (r.verdict, r.distinct_states, r.states_generated, r.depth,
            [(c.enabled, c.generated, c.distinct) for c in r.coverage])


def test_issue_15_extend_gives_the_counts_of_the_action_written_out():
    extended, pasted = counts(QUEUE, "Extended"), counts(QUEUE, "Pasted")
    assert extended == pasted
    assert extended[1:4] == (24, 39, 7)  # the written-out action's counts
    assert counts(QUEUE, "base")[1] != extended[1]  # the guard before and the assignment after count


def test_issue_15_replace_block_changes_every_caller():
    assert counts(QUEUE, "Twice") == counts(QUEUE, "TwicePasted")
    assert counts(QUEUE, "Twice")[1] != counts(QUEUE, "base")[1]


def test_issue_15_extend_parts_have_scopes_of_their_own():
    """`before:` sees the action's parameters; the body does not see its `let` names (here the body's
    `v` is the parameter again), and `after:` does not see the body's."""
    text = QUEUE + """\
variant Scoped:
    extend action Send:
        before:
            let v = 7
            require v == 7
        after:
            log = v
"""
    from tests.conftest import next_states

    model = build_model(Source("q.spec", text), variant="Scoped")
    assert next_states(model, 0, ((), 0, 0)) == [((1,), 1, 1), ((2,), 1, 2)]

    d = _error(QUEUE + """\
variant Leak:
    extend action Recv:
        after:
            log = head(q) + v
""", "Leak")
    assert (d.code, d.message, d.span.line) == ("E100", "unknown name `v`", 41)


def _error(text: str, variant: str):
    with pytest.raises(SpecError) as info:
        build_model(Source("q.spec", text), variant=variant)
    return info.value.diagnostics[0]


def test_issue_15_extending_a_missing_action_is_an_error_with_a_hint():
    d = _error(QUEUE + "variant Bad:\n    extend action Sned:\n        before:\n            skip\n", "Bad")
    assert (d.code, d.message, d.hint) == ("E100", "the base spec has no action `Sned` to extend",
                                           "did you mean `Send`?")
    assert (d.span.line, d.span.column) == (39, 19)
    d = _error(QUEUE + "variant Bad:\n    extend action Short:\n        after:\n            skip\n", "Bad")
    assert d.message == "the base spec has no action `Short` to extend"


def test_issue_15_extend_takes_each_part_once():
    with pytest.raises(SpecError) as info:
        parse(Source("q.spec", QUEUE + "variant Bad:\n    extend action Send:\n        before:\n"
                     "            skip\n        before:\n            skip\n"))
    d = info.value.diagnostics[0]
    assert (d.code, d.message, d.span.line) == ("E101", "`before:` appears twice in `extend action Send`", 42)


# ---------------------------------------------------------------- issue 15: `deadlock:` in variants

SETTINGS = """\
var x: 0..3 = 0
action Up:
    require x < 3
    x = x + 1
variant Allowed:
    deadlock: allowed
"""


def test_issue_15_a_variant_adds_or_replaces_deadlock():
    source = Source("s.spec", SETTINGS)
    assert [build_model(source, None, name).deadlock_allowed for name in ("base", "Allowed")] == [False, True]
    replaced = Source("r.spec", "deadlock: allowed\n" + SETTINGS.replace("    deadlock: allowed",
                                                                         "    replace deadlock: forbidden"))
    assert [build_model(replaced, None, name).deadlock_allowed for name in ("base", "Allowed")] == [True, False]


@pytest.mark.parametrize("base, item, code, message, hint", [
    ("deadlock: allowed\n", "deadlock: allowed", "E101", "`deadlock:` is already declared in the base spec",
     "write `replace deadlock: ...` to change it"),
    ("", "replace deadlock: allowed", "E100", "the base spec has no `deadlock:` declaration to replace",
     "drop `replace` to add a new declaration"),
])
def test_issue_15_a_variant_adds_a_declaration_the_base_lacks_and_replaces_one_it_has(base, item, code, message, hint):
    text = base + SETTINGS + f"variant Wrong:\n    {item}\n"
    with pytest.raises(SpecError) as info:
        apply_variant(parse(Source("s.spec", text)), "Wrong")
    d = info.value.diagnostics[0]
    assert (d.code, d.message, d.hint, d.span.line) == (code, message, hint, text.count("\n"))


INITIAL = """\
var x: 0..3
var y: 0..3
init: x < y
action Up:
    require y < 3
    y = y + 1
variant Loose:
    replace init: x <= y
variant Fixed:
    replace var x: 0..3 = 0
"""


def test_issue_15_a_variant_replaces_init_or_gives_a_variable_a_value():
    source = Source("i.spec", INITIAL)
    assert [len(list(build_model(source, None, name).init())) for name in ("base", "Loose", "Fixed")] == [6, 10, 3]
    text = INITIAL + "variant Wrong:\n    init: x > 0\n"
    with pytest.raises(SpecError) as info:
        apply_variant(parse(Source("i.spec", text)), "Wrong")
    d = info.value.diagnostics[0]
    assert (d.code, d.message, d.hint) == ("E101", "`init:` is already declared in the base spec",
                                           "write `replace init: ...` to change it")


# ---------------------------------------------------------------- issue 38: a variant that extends another

LAYERS_BASE = """\
var x: int = 0
var lost: bool = false
action Inc:
    require x < 3
    x = x + 1
action Idle:
    skip
invariant Small: x < 3
"""
LAYERED = LAYERS_BASE + """\
variant Fix "stop at 2":
    replace action Inc:
        require x < 2
        x = x + 1
    var steps: int = 0
variant FaultOnFix extends Fix "and a fault that undoes a step":
    action Lose:
        require x > 0 and not lost
        x = x - 1
        lost = true
    invariant NeverLost: not lost
variant Deeper extends FaultOnFix:
    remove action Lose
    replace invariant NeverLost: not lost or x >= 0
expect base violates Small
expect Fix holds Small
expect FaultOnFix holds Small
expect FaultOnFix violates NeverLost
expect Deeper holds
"""

# FaultOnFix written out whole, the fix copied: what `extends` saves writing
COPIED = LAYERS_BASE + """\
variant FaultOnFix:
    replace action Inc:
        require x < 2
        x = x + 1
    var steps: int = 0
    action Lose:
        require x > 0 and not lost
        x = x - 1
        lost = true
    invariant NeverLost: not lost
"""


def _explored(text: str, variant: str):
    model = build_model(Source("v.spec", text), variant=variant)
    result = explore(model, Options(collect=True, check_deadlock=False))
    return ([a.name for a in model.ir.actions], [v.name for v in model.ir.variables],
            [p.name for p in model.ir.invariants], result.distinct_states, result.states_generated,
            sorted(v.name for v in result.violations))


def test_issue_38_a_variant_that_extends_another_is_the_other_plus_its_own_items():
    assert _explored(LAYERED, "FaultOnFix") == _explored(COPIED, "FaultOnFix")
    actions, variables, invariants, distinct, _, violated = _explored(LAYERED, "Deeper")
    assert actions == ["Inc", "Idle"] and variables == ["x", "lost", "steps"]
    assert violated == [] and distinct == 3  # Fix's Inc: x in 0..2


def test_issue_38_verify_meets_the_expectations_of_extended_variants(tmp_path, capsys):
    from tlacheck.app.cli import main

    path = tmp_path / "layered.spec"
    path.write_text(LAYERED)
    assert main(["verify", str(path), "--json"]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["variant"], r["check"], r["ok"]) for r in rows] == [
        ("base", "Small", True), ("Fix", "Small", True), ("FaultOnFix", "Small", True),
        ("FaultOnFix", "NeverLost", True), ("Deeper", "all checks", True)]
    # its counterexample is named after the variant, as any other's
    assert main(["counterexamples", str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "layered.FaultOnFix.NeverLost.json").is_file()


@pytest.mark.parametrize("change,variant,code,message,hint,line", [
    ("variant FaultOnFix extends Fix \"", "FaultOnFix", None, None, None, None),
    ("variant FaultOnFix extends Fxi \"", "base", "E100", "unknown variant `Fxi`", "did you mean `Fix`?", 14),
    ("variant FaultOnFix extends base \"", "base", "E100", "variant `FaultOnFix` extends `base`",
     "every variant builds on the base spec: drop `extends base`", 14),
    # reported where the cycle closes: Deeper's `extends FaultOnFix`
    ("variant FaultOnFix extends Deeper \"", "Fix", "E125",
     "variant `FaultOnFix` extends itself (FaultOnFix -> Deeper -> FaultOnFix)", None, 20),
    ("variant FaultOnFix extends FaultOnFix \"", "base", "E125",
     "variant `FaultOnFix` extends itself (FaultOnFix -> FaultOnFix)", None, 14),
])
def test_issue_38_unknown_parents_and_cycles_are_errors_whichever_variant_is_checked(change, variant, code, message,
                                                                                     hint, line):
    text = LAYERED.replace("variant FaultOnFix extends Fix \"", change)
    if code is None:
        build_model(Source("v.spec", text), variant=variant)
        return
    with pytest.raises(SpecError) as info:
        build_model(Source("v.spec", text), variant=variant)
    d = info.value.diagnostics[0]
    assert (d.code, d.message) == (code, message)
    assert d.span.line == line and text.splitlines()[line - 1][d.span.column - 1:d.span.end_column - 1] in \
        ("Fxi", "base", "FaultOnFix")
    if hint is not None:
        assert d.hint == hint


def test_issue_38_extends_is_checked_as_a_word():
    with pytest.raises(SpecError) as info:
        parse(Source("v.spec", LAYERED.replace("FaultOnFix extends Fix", "FaultOnFix extend Fix")))
    d = info.value.diagnostics[0]
    assert (d.code, d.message) == ("E001", "unexpected `extend` after `variant FaultOnFix`")
    assert "`variant FaultOnFix extends Fix:`" in d.hint
    # `extends` stays a name elsewhere
    build_model(Source("v.spec", "var extends: int = 0\naction A:\n    extends = 1 - extends\n"))


def test_issue_38_messages_say_which_variant_declared_what():
    text = LAYERED + "variant Again extends FaultOnFix:\n    invariant NeverLost: true\n"
    with pytest.raises(SpecError) as info:
        build_model(Source("v.spec", text), variant="Again")
    assert info.value.diagnostics[0].message == "`NeverLost` is already declared in variant `FaultOnFix`"
    text = LAYERED + "variant Again extends FaultOnFix:\n    replace action Nope:\n        skip\n"
    with pytest.raises(SpecError) as info:
        build_model(Source("v.spec", text), variant="Again")
    assert info.value.diagnostics[0].message == \
        "the base spec with variants `Fix` and `FaultOnFix` has no action `Nope` to replace"
    text = LAYERED + "variant Again extends Fix:\n    invariant Small: true\n"
    with pytest.raises(SpecError) as info:
        build_model(Source("v.spec", text), variant="Again")
    assert info.value.diagnostics[0].message == "`Small` is already declared in the base spec"
