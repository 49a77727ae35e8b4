"""engine/matcher.py: the one candidate-set matcher (replay and conform match through it).

Events are built directly here (the log readers are tests/test_logs.py): partial states, unnamed
actions, gaps, silent and lazy actions, composed events, checks along the behaviours, the
compacted history, and several streams merged by happens-before.
"""

from __future__ import annotations

import pytest

from tlacheck.core.events import Call, Event
from tlacheck.core.result import Check
from tlacheck.core.source import Source
from tlacheck.engine import matcher as M
from tlacheck.engine.matcher import Explainer, Matcher, MatchOptions
from tlacheck.engine.options import Options
from tlacheck.pipeline.driver import build_model


NET = """
const Msgs: set[model] = {m1, m2}
var sent: seq[Msgs] = []
var net: set[Msgs] = {}
var got: seq[Msgs] = []
var ticks: int = 0
var secret: int = 0

action Send(m in Msgs):
    require m not in elems(sent)
    sent = append(sent, m)
    net = net | {m}
    either:
        secret = 1
    or:
        secret = 2

action Deliver(m in Msgs):
    require m in net
    got = append(got, m)
    net = net - {m}

action Lose(m in Msgs):
    require m in net
    net = net - {m}

action Tick:
    require ticks < 3
    ticks = ticks + 1

invariant NoDuplicate: len(got) == len(elems(got))
invariant SecretSmall: secret < 2 or len(got) < 2
"""


@pytest.fixture(scope="module")
def net():
    return build_model(Source("net.spec", NET))


def action(model, name: str) -> int:
    return [i.name for i in model.action_info].index(name)


def slot(model, name: str) -> int:
    return model.var_names.index(name)


def m(model, name: str) -> int:
    """The run-time value of model value `name` of Msgs."""
    sort = next(s for s in model.ir.sorts if s.name == "Msgs")
    return sort.members.index(name)


def ev(model, name: str | None, args: dict | None = None, **state) -> Event:
    calls = None
    if name is not None:
        a = action(model, name)
        params = model.action_info[a].param_names
        calls = (Call(a, tuple((params.index(k), v) for k, v in (args or {}).items())),)
    return Event(calls, tuple(sorted((slot(model, k), v) for k, v in state.items())))


def test_partial_states_and_nondeterminism_are_resolved_by_the_frontier(net):
    mt = Matcher(net)
    assert mt.start()
    # Send(m1) records nothing of `secret`: two candidates (secret 1 or 2)
    assert mt.feed(ev(net, "Send", {"m": m(net, "m1")}))
    assert sorted(n.state[slot(net, "secret")] for n in mt.frontier) == [1, 2]
    # an unnamed step that delivers m1: both candidates still agree
    assert mt.feed(ev(net, None, got=(m(net, "m1"),)))
    assert len(mt.frontier) == 2
    assert mt.stats.events == 2 and mt.stats.largest == 2


def test_an_event_no_candidate_takes_leaves_the_frontier_and_says_which(net):
    mt = Matcher(net)
    mt.start()
    assert mt.feed(ev(net, "Send", {"m": m(net, "m1")}, secret=2))
    before = list(mt.frontier)
    bad = ev(net, "Deliver", {"m": m(net, "m2")})
    assert not mt.feed(bad)
    assert mt.frontier == before and mt.failure.events == (bad,) and mt.failure.matched == 1


def test_gaps_allow_unlogged_steps_of_the_silent_actions_only(net):
    deliver_unlogged = [ev(net, "Send", {"m": m(net, "m1")}), ev(net, "Tick", ticks=1, got=(m(net, "m1"),))]
    mt = Matcher(net)
    mt.start()
    assert mt.feed(deliver_unlogged[0]) and not mt.feed(deliver_unlogged[1])  # no gap by default
    mt = Matcher(net, MatchOptions(max_gap=1))
    mt.start()
    assert mt.feed(deliver_unlogged[0]) and mt.feed(deliver_unlogged[1])
    trace, events = mt.history(mt.best())
    assert [net.action_info[s.action].name for s in trace.steps[1:]] == ["Send", "Deliver", "Tick"]
    assert events == (M.INITIAL, 0, M.GAP, 1)
    # with Tick the only silent action, Deliver cannot fill the gap
    mt = Matcher(net, MatchOptions(max_gap=1, silent=(action(net, "Tick"),)))
    mt.start()
    assert mt.feed(deliver_unlogged[0]) and not mt.feed(deliver_unlogged[1])


def test_lazy_actions_are_tried_only_when_nothing_else_matches(net):
    lose = action(net, "Lose")
    # m1 is lost before m2 is sent: the log shows only m2 in the network
    events = [ev(net, "Send", {"m": m(net, "m1")}), ev(net, "Send", {"m": m(net, "m2")}, net=frozenset({m(net, "m2")}))]
    mt = Matcher(net, MatchOptions(lazy=(lose,)))
    mt.start()
    assert mt.feed(events[0]) and mt.feed(events[1])
    trace, evs = mt.history(mt.best())
    assert [net.action_info[s.action].name for s in trace.steps[1:]] == ["Send", "Lose", "Send"]
    assert evs[2] == M.LAZY
    # a log that needs no loss never takes one, though Lose is enabled
    mt = Matcher(net, MatchOptions(lazy=(lose,)))
    mt.start()
    assert mt.feed(events[0]) and mt.feed(ev(net, "Deliver", {"m": m(net, "m1")}))
    assert all(net.action_info[s.action].name != "Lose" for s in mt.history(mt.best())[0].steps[1:])
    # without laziness allowed (max_lazy 0), the loss is not found
    mt = Matcher(net, MatchOptions(lazy=(lose,), max_lazy=0))
    mt.start()
    assert mt.feed(events[0]) and not mt.feed(events[1])


def test_an_unnamed_event_tries_lazy_actions_last(net):
    lose, deliver = action(net, "Lose"), action(net, "Deliver")
    mt = Matcher(net, MatchOptions(lazy=(lose,)))
    mt.start()
    mt.feed(ev(net, "Send", {"m": m(net, "m1")}, secret=1))
    # net becomes empty: Deliver does it too (and is not lazy), so Lose is not tried
    assert mt.feed(ev(net, None, net=frozenset()))
    assert [n.action for n in mt.frontier] == [deliver]


def test_a_composed_event_stands_for_several_steps(net):
    send, deliver = action(net, "Send"), action(net, "Deliver")
    m1 = m(net, "m1")
    both = Event((Call(send, ((0, m1),)), Call(deliver, ((0, m1),))), ((slot(net, "got"), (m1,)),))
    mt = Matcher(net)
    mt.start()
    assert mt.feed(both)
    trace, events = mt.history(mt.best())
    assert [s.action for s in trace.steps[1:]] == [send, deliver] and events == (M.INITIAL, 0, 0)


def test_checks_fail_along_a_behaviour_only_when_every_matching_one_fails(net):
    checks = Options()
    m1, m2 = m(net, "m1"), m(net, "m2")
    run = [ev(net, "Send", {"m": m1}), ev(net, "Send", {"m": m2}), ev(net, "Deliver", {"m": m1}),
           ev(net, "Deliver", {"m": m2})]
    mt = Matcher(net, MatchOptions(checks=checks))
    mt.start()
    assert all(mt.feed(e) for e in run)
    # secret is 1 or 2 on different candidates: the one with 1 breaks no invariant
    assert mt.best().broken is None
    mt = Matcher(net, MatchOptions(checks=checks))
    mt.start()
    assert all(mt.feed(e) for e in run[:-1]) and mt.feed(ev(net, "Deliver", {"m": m2}, secret=2))
    assert mt.best().broken == (Check.INVARIANT, "SecretSmall", 4)
    # checking only NoDuplicate: nothing breaks
    mt = Matcher(net, MatchOptions(checks=Options(invariants=("NoDuplicate",))))
    mt.start()
    assert all(mt.feed(e) for e in run[:-1]) and mt.feed(ev(net, "Deliver", {"m": m2}, secret=2))
    assert mt.best().broken is None


def test_the_compacted_history_is_the_same_behaviour(net, monkeypatch):
    ticks = [ev(net, "Tick", ticks=k) for k in (1, 2, 3)]
    run = [ev(net, "Send", {"m": m(net, "m1")}, secret=2), ev(net, "Deliver", {"m": m(net, "m1")})] + ticks

    def behaviour():
        mt = Matcher(net)
        mt.start()
        assert all(mt.feed(e) for e in run)
        return mt, mt.history(mt.best())

    whole, expected = behaviour()
    assert whole.root is None
    monkeypatch.setattr(M, "COMPACT_EVERY", 2)
    compacted, got = behaviour()
    assert compacted.root is not None and len(compacted.committed) > 0
    assert got == expected
    # what is left behind the root is no longer linked: the history is kept as integers
    assert compacted.root.parent is None


def test_several_streams_are_interleaved_as_happens_before_allows(net):
    """Process A sends m1 then delivers it; process B ticks. Lamport clocks: A's deliver (clock
    3) follows B's tick (clock 2), whose clock is after A's send (1)."""
    m1 = m(net, "m1")
    a = [Event(ev(net, "Send", {"m": m1}).calls, (), order=1), Event(ev(net, "Deliver", {"m": m1}).calls, (), order=3)]
    b = [Event(ev(net, "Tick").calls, ((slot(net, "got"), ()),), order=2)]

    def before(e, f):
        return e.order < f.order

    mt = Matcher(net)
    mt.start()
    assert mt.run_merged([iter(a), iter(b)], before)
    trace, events = mt.history(mt.best())
    assert [net.action_info[s.action].name for s in trace.steps[1:]] == ["Send", "Tick", "Deliver"]
    # event numbers: position * streams + stream
    assert events == (M.INITIAL, 0, 1, 2)
    # concurrent events (no order) are tried both ways: B's tick recorded `got` empty, so it must
    # come before A's deliver, whatever the file order
    mt = Matcher(net)
    mt.start()
    assert mt.run_merged([iter(a), iter(b)], lambda e, f: False)
    assert [net.action_info[s.action].name for s in mt.history(mt.best())[0].steps[1:]][-1] == "Deliver"
    # an order that forces the tick after the deliver cannot match
    mt = Matcher(net)
    mt.start()
    assert not mt.run_merged([iter(a), iter(b)], lambda e, f: f.order == 2 and e.order in (1, 3))
    assert len(mt.failure.events) == 1 and mt.failure.matched == 2


def test_matching_is_deterministic(net):
    run = [ev(net, "Send", {"m": m(net, "m1")}), ev(net, None), ev(net, None)]

    def frontier():
        mt = Matcher(net, MatchOptions(max_gap=1))
        mt.start()
        for e in run:
            mt.feed(e)
        return [(n.state, n.action, n.args) for n in mt.frontier]

    assert frontier() == frontier()


def test_the_explainer_names_the_false_require_or_the_values_reached(net):
    mt = Matcher(net)
    mt.start()
    mt.feed(ev(net, "Send", {"m": m(net, "m1")}, secret=1))
    deliver2 = ev(net, "Deliver", {"m": m(net, "m2")})
    assert not mt.feed(deliver2)
    ex = Explainer(net)
    [at] = ex.attempts([n.state for n in mt.frontier], deliver2, ())
    assert at.disabled and at.fits and ex.guard(at.failed[0])[0] == "require"
    assert ex.guard(at.failed[0])[1].line == NET.splitlines().index("    require m in net") + 1
    wrong = ev(net, "Deliver", {"m": m(net, "m1")}, net=frozenset({m(net, "m1")}))
    assert not mt.feed(wrong)
    [at] = ex.attempts([n.state for n in mt.frontier], wrong, ())
    assert not at.disabled and at.reached[0][1][slot(net, "net")] == frozenset()


def test_a_limit_stops_the_matcher(net):
    import threading

    stop = threading.Event()
    stop.set()
    mt = Matcher(net, MatchOptions(stop=stop))
    mt.start()
    with pytest.raises(M.MatchStopped) as info:
        mt.feed(ev(net, "Tick"))
    assert info.value.reason == "interrupted"
