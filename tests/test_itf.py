"""itf.py: ITF traces validate against the ADR-015 schema, encode every type as Apalache expects, read back.

The schema (tests/data/itf.schema.json) is the one in ../shared/reference/itf_format.md, section 6.
"""

import json

import jsonschema
import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.core.result import Check, Step, Trace
from tlacheck.core.runtime import NONE
from tlacheck.engine.explore import explore
from tlacheck.output import itf
from tlacheck.pipeline.driver import build_model
from tests.conftest import ROOT, SPECS, model_of


SCHEMA = json.loads((ROOT / "tests" / "data" / "itf.schema.json").read_text())
DIEHARD = str(SPECS / "classic" / "diehard.spec")

ALL_TYPES = """
const Procs: set[model] = {p1, p2}
enum Color { Red, Green }

var flag: bool = false
var n: int = 0
var color: Color = Red
var owners: set[Procs] = {}
var log: seq[Color] = []
var byColor: map[Color, int] = {c -> 0 for c in {Red, Green}}
var byPair: map[(Procs, bool), int] = {(p, b) -> 0 for p in Procs for b in {true, false}}
var rec: {count: int, who: Procs?} = {count: 0, who: none}
var pair: (int, bool) = (0, false)
var maybe: int? = none

action Go(p in Procs):
    require n < 2
    flag = not flag
    n = n + 1
    color = Green
    owners = owners | {p}
    log = log + [Green]
    byColor[Green] = byColor[Green] + 1
    byPair[(p, true)] = 7
    rec = {count: rec.count + 1, who: p}
    pair = (pair[1] + 1, true)
    maybe = n

invariant Small: n < 2
"""


def validate(data) -> None:
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)


def all_types():
    model = model_of(ALL_TYPES)
    v = explore(model).violation
    return model, v


def test_diehard_itf_validates_and_has_the_trace(tmp_path, capsys):
    out = tmp_path / "t.itf.json"
    assert main(["check", DIEHARD, "--itf", str(out), "--quiet"]) == 12
    data = json.loads(out.read_text())
    validate(data)
    assert data["vars"] == ["big", "small"]
    assert len(data["states"]) == 7 and "loop" not in data
    assert data["states"][-1]["big"] == {"#bigint": "4"}
    assert [s["#meta"]["action"] for s in data["states"]][:3] == ["init", "FillBigJug", "BigToSmall"]
    meta = data["#meta"]
    assert meta["format"] == "ITF" and meta["varTypes"] == {"big": "Int", "small": "Int"}
    assert meta["violation"] == {"kind": "invariant", "name": "NotSolved", "state": 6}
    assert meta["source"] == DIEHARD and meta["status"] == "violation"


def test_every_type_is_encoded_as_apalache_expects():
    model, v = all_types()
    data = itf.trace_itf(model, v.trace, source="t.spec", status="violation")
    validate(data)
    last = data["states"][-1]
    assert last["flag"] is False and last["n"] == {"#bigint": "2"}
    assert last["color"] == "Green"
    assert last["owners"] == {"#set": ["p1"]}  # the shortest trace takes p1 twice
    assert last["log"] == ["Green", "Green"]
    assert last["byColor"] == {"#map": [["Red", {"#bigint": "0"}], ["Green", {"#bigint": "2"}]]}
    assert last["byPair"]["#map"][1] == [{"#tup": ["p1", True]}, {"#bigint": "7"}]
    assert last["rec"] == {"count": {"#bigint": "2"}, "who": {"tag": "Some", "value": "p1"}}
    assert last["pair"] == {"#tup": [{"#bigint": "2"}, True]}
    assert data["states"][0]["maybe"] == {"tag": "None", "value": {"#tup": []}}
    assert data["states"][1]["#meta"]["params"] == {"p": "p1"}
    assert data["states"][1]["#meta"]["changed"][:2] == ["flag", "n"]
    types = data["#meta"]["varTypes"]
    assert types["owners"] == "Set(Str)" and types["byPair"] == "<<Str, Bool>> -> Int"
    assert types["rec"] == "{ count: Int, who: Some(Str) | None(UNIT) }" and types["log"] == "Seq(Str)"


def test_values_round_trip():
    model, v = all_types()
    for step in v.trace.steps:
        for value, t in zip(step.state, model.var_types):
            assert itf.value_from_itf(itf.to_itf(value, t), t) == value


def test_reader_accepts_what_other_writers_write():
    model, _ = all_types()
    types = dict(zip(model.var_names, model.var_types))
    assert itf.value_from_itf(3, types["n"]) == 3  # a plain number
    assert itf.value_from_itf(["p2", True], types["byPair"].key) == (1, True)  # a list for a tuple
    assert itf.value_from_itf({"#set": ["p2", "p1"]}, types["owners"]) == frozenset({0, 1})  # any order
    assert itf.value_from_itf({"#set": ["p1_OF_PROCS"]}, types["owners"]) == frozenset({0})  # Apalache names
    assert itf.value_from_itf({"tag": "None", "value": {}}, types["maybe"]) is NONE  # older Quint
    assert itf.value_from_itf({"tag": "None"}, types["maybe"]) is NONE
    reordered = {"#map": [["Green", 2], ["Red", {"#bigint": "0"}]]}
    assert itf.value_from_itf(reordered, types["byColor"]) == ((0, 1), (0, 2))
    with pytest.raises(itf.ItfError, match="not a member of Color"):
        itf.value_from_itf("Blue", types["color"])
    with pytest.raises(itf.ItfError, match="expected an integer"):
        itf.value_from_itf(True, types["n"])  # bool is not an int, although True == 1 in Python


def test_internal_variables_of_other_tools_are_ignored():
    data = {"vars": ["x", "__InLoop", "mbt::actionTaken", "x"]}
    assert itf.state_vars(data) == ["x"]


def test_lasso_writes_loop_and_the_closing_action():
    model = model_of("""
        var x: int = 0
        action Inc:
            require x < 2
            x = x + 1
        action Reset:
            require x == 2
            x = 0
    """)
    states = [(0,), (1,), (2,)]
    steps = [Step(None, (), states[0]), Step(0, (), states[1]), Step(0, (), states[2])]
    trace = Trace(tuple(steps), 0, Step(1, (), states[0]))
    data = itf.trace_itf(model, trace, source="t.spec", status="liveness", kind=Check.LIVENESS, name="P")
    validate(data)
    assert data["loop"] == 0 and data["#meta"]["closing"] == {"action": "Reset", "params": {}}
    stutter = itf.trace_itf(model, Trace(tuple(steps), 2, None), source="t.spec", status="liveness")
    assert stutter["loop"] == 2 and stutter["#meta"]["closing"] is None


def test_itf_is_byte_identical_across_runs(tmp_path):
    outs = []
    for k in range(2):
        out = tmp_path / f"{k}.itf.json"
        main(["check", DIEHARD, "--itf", str(out), "--quiet"])
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and b"timestamp" not in outs[0]


def test_schema_rejects_what_itf_forbids():
    # the validator is not vacuous: a record field starting with `#` and an unsafe plain int fail
    with pytest.raises(jsonschema.ValidationError):
        validate({"vars": ["x"], "states": [{"x": {"#weird": 1}}]})
    with pytest.raises(jsonschema.ValidationError):
        validate({"vars": ["x"], "states": [{"x": 2 ** 60}]})


def test_model_values_of_the_missionaries_trace(tmp_path):
    model = build_model(read_source(str(SPECS / "classic" / "missionaries.spec")))
    v = explore(model).violation
    data = itf.trace_itf(model, v.trace, source="m.spec", status="violation")
    validate(data)
    assert data["states"][0]["who_is_on_bank"]["#map"][1] == ["W", {"#set": []}]
    assert data["#meta"]["varTypes"]["who_is_on_bank"] == "Str -> Set(Str)"


def test_every_committed_itf_trace_validates():
    traces = sorted((ROOT / "counterexamples").rglob("*.itf.json"))
    assert traces
    for path in traces:
        validate(json.loads(path.read_text()))


# ---------------------------------------------------------------- issue 32: process variables as identifiers

IDENTIFIER = r"^[A-Za-z_][A-Za-z0-9_]*$"

# A process over a set, its local `got`, and a variable that takes the name `Waiter__got` would
# have: the names must stay apart.
PROCESSES = """\
const Tasks: set[model] = {t1, t2}
var ready: bool = false
var Waiter__got: int = 0
process Waiter(self in Tasks):
    var got: bool = false
    wait:
        await ready
        got = true
action Ready:
    require not ready
    ready = true
invariant NotAll: not all(Waiter[t].got for t in Tasks)
"""


def _process_itf(tmp_path, capsys):
    spec = tmp_path / "procs.spec"
    spec.write_text(PROCESSES)
    out = tmp_path / "t.itf.json"
    assert main(["check", str(spec), "--itf", str(out), "--quiet"]) == 12
    capsys.readouterr()
    return spec, out, json.loads(out.read_text())


def test_issue_32_itf_names_process_variables_with_identifiers_and_says_how(tmp_path, capsys):
    import re

    spec, _, data = _process_itf(tmp_path, capsys)
    validate(data)
    model = build_model(read_source(str(spec)))
    assert any("." in n for n in model.var_names)  # the spec's own names are not identifiers
    assert all(re.match(IDENTIFIER, n) for n in data["vars"])
    assert len(set(data["vars"])) == len(model.var_names)
    for state in data["states"]:
        assert set(state) - {"#meta"} == set(data["vars"])
        assert set(state["#meta"].get("changed", ())) <= set(data["vars"])
    assert set(data["#meta"]["varTypes"]) == set(data["vars"])
    renamed = data["#meta"]["varNames"]
    assert {renamed.get(n, n) for n in data["vars"]} == set(model.var_names)
    assert renamed["Waiter__got_"] == "Waiter.got" and "Waiter__got" not in renamed  # the spec's own variable
    assert renamed["Waiter__pc"] == "Waiter.pc"


@pytest.mark.parametrize("written_by", ["tlacheck", "a tool that drops #meta.varNames", "tlacheck before"])
def test_issue_32_replay_reads_process_variables_back(tmp_path, capsys, written_by):
    spec, out, data = _process_itf(tmp_path, capsys)
    if written_by == "a tool that drops #meta.varNames":
        del data["#meta"]["varNames"]
        # without the map, the names are read as itf_names gives them; the spec's own `Waiter__got`
        # keeps its name, so only a renamed variable other tools made up can be lost
        data["vars"] = [n for n in data["vars"] if n != "Waiter__got_"]
        for state in data["states"]:
            state.pop("Waiter__got_")
    elif written_by == "tlacheck before":  # the spec's names as they are, dots included
        back = data["#meta"].pop("varNames")
        data["vars"] = [back.get(n, n) for n in data["vars"]]
        data["states"] = [{back.get(k, k): v for k, v in state.items()} for state in data["states"]]
    out.write_text(json.dumps(data))
    assert main(["replay", str(spec), str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["replays"] and result["still_violates"] is True
    dropped = written_by == "a tool that drops #meta.varNames"
    if dropped:  # the one variable left out is named as the spec names it
        [note] = result["notes"]
        assert "Waiter.got" in note
    else:
        assert result["notes"] == []
    assert main(["render", str(out), "--spec", str(spec), "--out", str(tmp_path / "d")]) == (0 if not dropped else 2)
