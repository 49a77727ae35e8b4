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
