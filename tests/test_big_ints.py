"""Ints of any size are printed and saved without error (issue 8, item 3; docs/language.md
"Integers", docs/cli.md "JSON output").

CPython refuses str(n) and int(text) past 4300 digits (sys.get_int_max_str_digits): a trace
holding such an int was "internal error: ValueError: Exceeds the limit (4300 digits) for integer
string conversion". Text abbreviates ints of more than 100 digits; JSON and ITF keep every digit.
"""

from __future__ import annotations

import json
import sys

import pytest

from tlacheck.app.cli import main
from tlacheck.core import types as T
from tlacheck.core.result import Step, Trace
from tlacheck.core.values import format_int, format_value, int_from_text, int_text, json_int, to_json
from tlacheck.output.render import state_id
from tlacheck.output.report import format_trace
from tests.conftest import model_of


BIG = 3 ** (2 ** 14)  # 3 squared 14 times: 7,818 digits
BIG_TEXT = "1427701207893295…5237968953671681 (7,818 digits)"

# x gains 30 digits a step: 4,500 after 150 steps. Linear growth: no mutation of these specs by
# the fuzz suite (tests/fuzzing.py takes them into its corpus) can hang in one multiplication,
# the open finding of docs/reliability.md ("one step can outrun --time-limit").
F = 987654321987654321987654321987
GROW = f"""\
const N: int = 150
var x: int = 1
var k: int = 0
action Grow:
    x = x * {F}
    k = k + 1
invariant Small: k < N
"""
LAST = "1551476790011598…1168892692740249 (4,500 digits)"  # F^150
BEFORE_LAST = "1570870248296237…0026890351811827 (4,470 digits)"  # F^149


def _int_limit(digits: int):
    """Run with sys.set_int_max_str_digits(digits), restored afterwards."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(digits)
    yield
    sys.set_int_max_str_digits(before)


@pytest.fixture
def unlimited():
    """str() of any int, for comparing with the exact conversions."""
    yield from _int_limit(0)


@pytest.fixture
def lowest_limit():
    """The lowest limit Python accepts (PYTHONINTMAXSTRDIGITS=640)."""
    yield from _int_limit(640)


def check(tmp_path, capsys, text: str, *flags: str):
    (tmp_path / "x.spec").write_text(text)
    code = main(["check", str(tmp_path / "x.spec"), "--quiet", *flags])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err
    return code, out, err


# ---------------------------------------------------------------- conversions

@pytest.mark.parametrize("n", [0, 7, -7, 10 ** 640 - 1, 10 ** 640, -(10 ** 640), 10 ** 4300, BIG, -BIG,
                               2 ** 100_000 - 1, 12345 * 10 ** 20_000 + 6789],
                         ids=lambda n: f"{n.bit_length()}bits{'-' if n < 0 else ''}")
def test_exact_text_of_any_int_round_trips(n, unlimited):
    text = int_text(n)
    assert text == str(n)
    assert int_from_text(text) == n


def test_exact_conversions_do_not_depend_on_the_interpreter_limit(lowest_limit):
    assert int_from_text(int_text(BIG)) == BIG
    assert int_from_text("+" + "0" * 700 + "5") == 5
    assert format_int(BIG) == BIG_TEXT
    with pytest.raises(ValueError):
        str(BIG)


@pytest.mark.parametrize("text", ["", "-", "1_000", " 12", "1.5", "0x10", "1" * 700 + "a", "١٢"])
def test_only_decimal_digits_are_read(text):
    with pytest.raises(ValueError):
        int_from_text(text)


def test_text_abbreviates_ints_of_more_than_100_digits():
    assert format_int(10 ** 99) == "1" + "0" * 99
    assert format_int(10 ** 100) == "1000000000000000…0000000000000000 (101 digits)"
    assert format_int(-BIG) == "-" + BIG_TEXT
    assert format_int(BIG, exact=True) == int_text(BIG)
    assert format_value((BIG, 1), T.SeqT(T.INT)) == f"[{BIG_TEXT}, 1]"
    assert format_value(BIG, T.OptionT(T.INT), exact=True) == int_text(BIG)


def test_json_keeps_every_digit_and_strings_past_4300_digits():
    assert json_int(10 ** 4300 - 1) == 10 ** 4300 - 1
    assert json_int(10 ** 4300) == int_text(10 ** 4300)
    assert to_json(((BIG,), (BIG,)), T.MapT(T.INT, T.INT)) == {int_text(BIG): int_text(BIG)}
    json.dumps(to_json((BIG, -BIG, 5), T.SeqT(T.INT)))  # does not raise


def test_json_strings_follow_a_lower_interpreter_limit(lowest_limit):
    assert json_int(10 ** 639) == 10 ** 639
    assert json_int(10 ** 640) == int_text(10 ** 640)
    json.dumps(json_int(10 ** 640))


# ---------------------------------------------------------------- what the user sees

def test_check_prints_a_trace_with_huge_ints(tmp_path, capsys):
    code, out, _ = check(tmp_path, capsys, GROW)
    assert code == 12
    assert f"  * x = {LAST}\n        (was {BEFORE_LAST})\n" in out  # too long for one line: wrapped
    assert "  * x = 9515242790708263…3721197394292561 (120 digits)\n        (was " in out
    assert f"  * x = {F ** 3}\n        (was {F ** 2})" in out  # 90 digits: every one


def test_check_json_and_itf_keep_every_digit(tmp_path, capsys):
    code, out, _ = check(tmp_path, capsys, GROW, "--json", "--itf", str(tmp_path / "t.itf.json"))
    assert code == 12
    data = json.loads(out)
    xs = [step["state"]["x"] for step in data["violation"]["trace"]]
    assert xs[143] == F ** 143  # 4,290 digits: a number
    assert isinstance(xs[144], str) and int_from_text(xs[144]) == F ** 144  # 4,320 digits: a string
    assert int_from_text(xs[150]) == F ** 150
    itf = json.loads((tmp_path / "t.itf.json").read_text())
    assert int_from_text(itf["states"][-1]["x"]["#bigint"]) == F ** 150


def test_saved_traces_with_huge_ints_replay_and_render(tmp_path, capsys):
    spec = tmp_path / "x.spec"
    check(tmp_path, capsys, GROW, "--itf", str(tmp_path / "t.itf.json"))
    _, out, _ = check(tmp_path, capsys, GROW, "--json")
    (tmp_path / "t.json").write_text(out)
    for trace in ("t.json", "t.itf.json"):
        assert main(["replay", str(spec), str(tmp_path / trace)]) == 0
        assert "The trace replays" in capsys.readouterr().out
    assert main(["render", str(tmp_path / "t.json"), "--spec", str(spec), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    assert "(4,500 digits)" in next((tmp_path / "out").glob("*.dot")).read_text()


def test_a_saved_number_of_more_than_4300_digits_is_read(tmp_path, capsys):
    """Another tool may write a huge int as a JSON number: json.load refuses it by default."""
    spec = tmp_path / "x.spec"
    spec.write_text(GROW)
    steps = ",".join(f'{{"action": {"null" if i == 0 else chr(34) + "Grow" + chr(34)}, "args": {{}}, '
                     f'"state": {{"x": {int_text(F ** i)}, "k": {i}}}}}' for i in range(151))
    (tmp_path / "t.json").write_text(f'{{"violation": {{"kind": "invariant", "name": null, "trace": [{steps}]}}}}')
    assert main(["replay", str(spec), str(tmp_path / "t.json")]) == 0
    assert "all 150 steps" in capsys.readouterr().out


def test_replay_shows_huge_ints_that_differ(tmp_path, capsys):
    _, out, _ = check(tmp_path, capsys, GROW, "--json")
    (tmp_path / "t.json").write_text(out)
    (tmp_path / "y.spec").write_text(GROW.replace(f"x = x * {F}", f"x = x * {F} + (if k == 149 then 1 else 0)"))
    assert main(["replay", str(tmp_path / "y.spec"), str(tmp_path / "t.json")]) == 14
    out = capsys.readouterr().out
    assert "state 151: Grow reaches a different state" in out
    assert f"x         {LAST}  1551476790011598…1168892692740250 (4,500 digits)" in out


WRONG = f"""\
var y: int = 1
var k: 0..150 = 0
var x: 0..5 = 0
var q: int = 0
action Grow:
    require k < 150
    y = y * {F}
    k = k + 1
action Set:
    require k == 150
    x = y
action Divide:
    require k == 150
    q = y // (k - 150)
"""


@pytest.mark.parametrize("action, message", [
    ("Set", f"error[E402]: value {LAST} of `x` is outside its declared range 0..5 (while computing action Set)"),
    ("Divide", f"error[E407]: division by zero: {LAST} // 0 (while computing action Divide)"),
])
def test_evaluation_errors_print_huge_ints(tmp_path, capsys, action, message):
    other = "Divide" if action == "Set" else "Set"
    code, out, err = check(tmp_path, capsys, WRONG.replace(f"action {other}:", f"action {other}:\n    require false"))
    assert code == 4
    assert message in err
    assert "The error occurred in the last state of this trace (150 steps)" in out


def test_graph_of_states_with_huge_ints(tmp_path, capsys):
    (tmp_path / "x.spec").write_text(GROW.replace("action Grow:\n", "action Grow:\n    require k < N\n"))
    assert main(["graph", str(tmp_path / "x.spec"), "-D", "N=5", "--out", str(tmp_path / "g")]) == 0
    assert "6 states" in capsys.readouterr().out
    assert "(150 digits)" in next((tmp_path / "g").glob("*.dot")).read_text()


def test_states_whose_ints_print_alike_are_told_apart():
    """Two ints with the same first and last 16 digits and length print alike: the trace still
    marks the change, and the state graph gives the two states different node ids."""
    model = model_of("var x: int = 0\naction A:\n    x = x + 1\n")
    a, b = 10 ** 200, 10 ** 200 + 10 ** 100
    assert format_int(a) == format_int(b)
    assert state_id(model, (a,)) != state_id(model, (b,))
    text = format_trace(model, Trace((Step(None, (), (a,)), Step(0, (), (b,)))))
    assert f"  * x = {format_int(b)}\n        (was {format_int(a)})" in text
