"""aliases.py: `type NAME = TYPE` means the type written out, wherever a type is written (issue 15)."""

import re

import pytest

from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.lang import syntax as S
from tlacheck.lang.parser import parse
from tlacheck.lang.aliases import resolve
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS, model_of, run, spec_error
from tests.test_parser import without_spans


def test_issue_15_an_alias_is_replaced_at_every_depth():
    tree = resolve(parse(Source("t.spec", """\
enum Reply { Old, New }
type Msg = {reply: Reply, n: 0..2}
type Box = map[int, set[Msg]]
var q: seq[Msg?] = []
var b: Box = {k -> {} for k in {}}
def f(m: Msg, s: set[Msg]) -> (Msg, Box): (m, b)
""")))
    by_name = {d.name: d for d in tree.declarations}
    msg = without_spans(by_name["Msg"].type)
    assert without_spans(by_name["q"].type) == ("SeqType", ("OptionType", msg), None)
    assert without_spans(by_name["b"].type) == ("MapType", ("IntType",), ("SetType", msg))
    f = by_name["f"]
    assert [without_spans(t) for _, _, t in f.params] == [msg, ("SetType", msg)]
    assert without_spans(f.returns) == ("TupleType", (msg, without_spans(by_name["b"].type)))
    uses = re.findall(r"\('NamedType', '(\w+)'\)",
                      repr(without_spans([d for d in tree.declarations if not isinstance(d, S.TypeDecl)])))
    assert uses == ["Reply"] * 6  # Msg in q, in b through Box, in m, s and twice in the result


def test_issue_15_a_range_alias_bounds_a_variable_like_the_range():
    model, r = run("""
        type Small = 0..2
        var x: Small = 0
        action Inc:
            x = x + 1
        """)
    assert r.error is not None and r.error.code == "E402"
    assert (r.error.span.line, r.error.span.column) == (4, 5)


def test_issue_15_an_alias_cycle_is_an_error_at_the_use_that_closes_it():
    d = spec_error("""
        type A = set[B]
        type B = {a: A?}
        var x: int = 0
        action Step:
            x = 0
        """)
    assert d.code == "E125"
    assert d.message == "type `A` is defined in terms of itself (A -> B -> A)"
    assert (d.span.line, d.span.column) == (2, 14)


def test_issue_15_an_unused_alias_that_names_itself_is_an_error_too():
    d = spec_error("""
        type T = T?
        var x: int = 0
        action Step:
            x = 0
        """)
    assert d.code == "E125" and "(T -> T)" in d.message


def test_issue_15_an_alias_is_a_declaration_name():
    d = spec_error("""
        enum Msg { A, B }
        type Msg = set[int]
        var x: int = 0
        action Step:
            x = 0
        """)
    assert d.code == "E101" and d.message == "`Msg` is declared twice"
    d = spec_error("""
        type Msg = set[int]
        var x: set[int] = Msg
        action Step:
            x = {}
        """)
    assert d.code == "E100" and d.message == "`Msg` is a type, not a value"


def test_issue_15_an_unknown_type_inside_an_alias_points_at_the_alias():
    d = spec_error("""
        enum Reply { Old, New }
        type Msg = {reply: Replay}
        var q: set[Msg] = {}
        action Step:
            q = {}
        """)
    assert d.code == "E107" and d.hint == "did you mean `Reply`?"
    assert (d.span.line, d.span.column) == (2, 20)


def test_issue_15_type_stays_a_name_outside_an_alias_declaration():
    model = model_of("""
        enum Kind { a, b }
        var type: {type: Kind} = {type: a}
        action Flip:
            type = {type: if type.type == a then b else a}
        """)
    assert [v.name for v in model.ir.variables] == ["type"]


def test_issue_15_a_variant_may_add_or_replace_an_alias():
    text = """\
type Slot = 0..3
var x: Slot = 0
action Inc:
    require x < Top
    x = x + 1
const Top: int = 3
variant Wider:
    type Wide = 0..5
    replace type Slot = Wide
    replace const Top: int = 5
variant TooFar:
    replace const Top: int = 5
"""
    def outcome(variant):
        r = explore(build_model(Source("t.spec", text), variant=variant), Options())
        return r.distinct_states, r.error.code if r.error else None

    assert [outcome(v) for v in ("base", "Wider", "TooFar")] == [(4, None), (6, None), (4, "E402")]


def _written_out(text: str) -> str:
    """`text` with its `type` lines removed and every alias use replaced by the aliased type."""
    aliases = dict(re.findall(r"^type (\w+) = (.*)$", text, flags=re.M))
    text = re.sub(r"^type .*\n", "", text, flags=re.M)
    code = [line for line in text.split("\n")]
    for _ in aliases:  # an alias may use the aliases before it
        for name, body in aliases.items():
            code = [line if line.lstrip().startswith("#") else re.sub(rf"\b{name}\b", body, line) for line in code]
    return "\n".join(code)


def test_issue_15_the_nano_port_with_aliases_compiles_to_the_code_of_the_types_written_out():
    """specs/corpus/mc_nano_medium.spec names its record types with aliases; with every alias written
    out (as the port was before) it compiles to the same code, so TLC's counts (test_corpus.py, too
    many states for the default suite) are unchanged."""
    path = SPECS / "corpus" / "mc_nano_medium.spec"
    text = path.read_text(encoding="utf-8")
    plain = _written_out(text)
    assert "type Blk" in text and "Blk" not in re.sub(r"\w+Blk\b|#.*", "", plain)
    with_aliases = build_model(Source(str(path), text))
    written = build_model(Source(str(path), plain))
    assert with_aliases.generated.source == written.generated.source
