"""output/logs.py: NDJSON and ITF logs read as the matcher's events, through the spec's `conform:`
mapping; every malformed line is a LogError `FILE:LINE:COL: error[E5xx]` with what was expected."""

from __future__ import annotations

import json

import pytest

from tlacheck.core.source import Source
from tlacheck.output import logs
from tlacheck.output.itf import trace_itf
from tlacheck.core.result import Step, Trace
from tlacheck.pipeline.driver import build_model
from tests.test_conform_syntax import BASE


JOBS = BASE + """
conform:
    event "job.take" = Take(w = "worker")
    event "job.retry_take" = Retry then Take(w = "worker")
    event "heartbeat" = skip
    field "state" = status
    values Status: "queued" = Queued, "running" = Running, "done" = Done
    values Workers: "worker-1" = w1, "worker-2" = w2
    ignore "ts"
"""


@pytest.fixture(scope="module")
def jobs():
    return build_model(Source("jobs.spec", JOBS))


def read(model, tmp_path, *lines: str, name: str = "run.ndjson"):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return list(logs.read_log(str(path), logs.Mapping(model)))


def error(model, tmp_path, *lines: str) -> logs.LogError:
    with pytest.raises(logs.LogError) as info:
        read(model, tmp_path, *lines)
    return info.value


def test_lines_become_events_through_the_mapping(jobs, tmp_path):
    events = read(jobs, tmp_path,
                  '{"action": null, "state": {"state": "queued", "tries": 0}}',
                  '{"action": "job.take", "args": {"worker": "worker-2", "ts": 17}, "state": {"state": "running"}, '
                  '"ts": 17}',
                  '',
                  '{"action": "heartbeat", "state": {"tries": 0}}',
                  '{"action": "job.retry_take", "args": {"worker": "w1"}}',
                  '{"state": {"owner": "worker-1"}}')
    assert [e.origin.line for e in events] == [1, 2, 5, 6]  # the blank line and the heartbeat are dropped
    initial, take, retry, unnamed = events
    status, owner, tries = (jobs.var_names.index(n) for n in ("status", "owner", "tries"))
    assert initial.initial and initial.state == ((status, 0), (tries, 0))
    (call,) = take.calls
    assert jobs.action_info[call.action].name == "Take" and call.args == ((0, 1),) and take.state == ((status, 1),)
    assert [jobs.action_info[c.action].name for c in retry.calls] == ["Retry", "Take"]
    assert retry.calls[1].args == ((0, 0),) and retry.calls[0].args == ()
    assert unnamed.calls is None and unnamed.state == ((owner, 0),)


def test_a_variable_and_an_action_keep_their_own_names(jobs, tmp_path):
    (e,) = read(jobs, tmp_path, '{"action": "Take", "args": {"w": "w1"}, "state": {"status": "Running"}}')
    assert e.calls[0].args == ((0, 0),) and e.state == ((jobs.var_names.index("status"), 1),)


@pytest.mark.parametrize("line, code, message, column, hint", [
    ('{"action": "job.tak"}', "E503", "unknown event `job.tak`", 12, "did you mean `job.take`?"),
    ('{"action": "Finish", "state": {"stat": "done"}}', "E504", "the spec has no variable `stat`", 32,
     "did you mean `state`?"),
    ('{"action": "job.take", "args": {"wroker": "w1"}}', "E504", "`job.take` has no argument `wroker`", 33,
     "did you mean `worker`?"),
    ('{"action": "Finish", "state": {"state": "finished"}}', "E505", 'state: "finished" is not a member of Status',
     32, "map the log's text"),
    ('{"action": "Finish", "state": {"tries": "two"}}', "E505", 'tries: "two" is not a value of type int', 32,
     "write values as"),
    ('{"action": "Finish", "sate": {}}', "E502", "unknown key `sate`", 22, "did you mean `state`?"),
    ('{"action": 3}', "E502", "`action` must be a string", 2, None),
    ('{"action": "Finish", "state": [1]}', "E502", "`state` must be an object", 22, None),
    ('["Finish"]', "E501", "expected a JSON object, found a list", 0, "each line is one object"),
    ('{"action": "Finish",}', "E501", "not JSON", 21, "one JSON object"),
    ('{"args": {"w": "w1"}}', "E502", "arguments without an action", 2, None),
    ('{"action": "Finish", "clock": "3"}', "E506", "`clock` must be an int", 22, None),
])
def test_a_malformed_line_says_where_and_what_was_expected(jobs, tmp_path, line, code, message, column, hint):
    exc = error(jobs, tmp_path, '{"action": "job.take", "args": {"worker": "w1"}}', line)
    d = exc.diagnostic
    assert d.code == code and message in d.message and exc.line == 2
    assert (d.span.column if d.span else 0) == column
    if hint is not None:
        assert hint in d.hint
    text = exc.render()
    assert text.startswith(f"{tmp_path / 'run.ndjson'}:2") and f"error[{code}]" in text and line in text
    assert "Traceback" not in text


def test_an_ignored_key_is_dropped_everywhere_and_unknown_ones_are_not(jobs, tmp_path):
    (e,) = read(jobs, tmp_path, '{"action": "Finish", "ts": 1, "state": {"ts": 2}}')
    assert e.state == ()


def test_a_file_that_cannot_be_read(jobs, tmp_path):
    with pytest.raises(logs.LogError) as info:
        list(logs.read_log(str(tmp_path / "nowhere.ndjson"), logs.Mapping(jobs)))
    assert info.value.diagnostic.code == "E507"
    (tmp_path / "latin.ndjson").write_bytes(b'{"action": "Finish", "state": {"tries": "\xe9"}}\n')
    with pytest.raises(logs.LogError) as info:
        list(logs.read_log(str(tmp_path / "latin.ndjson"), logs.Mapping(jobs)))
    assert info.value.diagnostic.code == "E507" and "UTF-8" in info.value.diagnostic.message


def test_lines_are_read_as_they_are_asked_for(jobs, tmp_path):
    """A bad line after the first is not met until the reader gets there: logs stream."""
    path = tmp_path / "run.ndjson"
    path.write_text('{"action": "Finish"}\nnot json\n')
    events = logs.read_log(str(path), logs.Mapping(jobs))
    assert next(events).origin.line == 1
    with pytest.raises(logs.LogError):
        next(events)


def test_an_itf_trace_is_a_log(jobs, tmp_path):
    m = jobs
    s0 = next(m.init())
    take = [i.name for i in m.action_info].index("Take")
    args, s1 = next(iter(m.actions[take](s0)))
    data = trace_itf(m, Trace((Step(None, (), s0), Step(take, args, s1))), source="jobs.spec", status="ok")
    for state in data["states"]:
        del state["tries"]  # a partial state
    data["vars"].remove("tries")
    path = tmp_path / "run.itf.json"
    path.write_text(json.dumps(data))
    first, second = logs.read_log(str(path), logs.Mapping(m))
    assert first.initial and second.calls[0].action == take and second.calls[0].args == ((0, args[0]),)
    assert all(slot != m.var_names.index("tries") for slot, _ in second.state)
    data["vars"].append("bogus")
    path.write_text(json.dumps(data))
    with pytest.raises(logs.LogError) as info:
        list(logs.read_log(str(path), logs.Mapping(m)))
    assert info.value.diagnostic.code == "E504"


def test_process_logs_must_carry_their_order(jobs, tmp_path):
    (tmp_path / "a.ndjson").write_text('{"action": "Finish", "clock": 2}\n{"action": "Finish", "clock": 1}\n')
    events = logs.ordered(logs.read_log(str(tmp_path / "a.ndjson"), logs.Mapping(jobs)), "clock",
                          str(tmp_path / "a.ndjson"))
    assert next(events).order == 2
    with pytest.raises(logs.LogError) as info:
        next(events)
    assert info.value.diagnostic.code == "E506" and "goes backwards" in info.value.diagnostic.message
    (tmp_path / "b.ndjson").write_text('{"action": "Finish"}\n')
    with pytest.raises(logs.LogError) as info:
        list(logs.ordered(logs.read_log(str(tmp_path / "b.ndjson"), logs.Mapping(jobs)), "time", "b.ndjson"))
    assert "needs a `time`" in info.value.diagnostic.message


def test_happens_before(jobs):
    from tlacheck.core.events import Event

    def at(order):
        return Event(None, (), order=order)

    lamport = logs.precedence("clock")
    assert lamport(at(1), at(2)) and not lamport(at(2), at(2)) and not lamport(at(3), at(2))
    a, b, c = at((("p", 1), ("q", 0))), at((("p", 1), ("q", 1))), at((("p", 0), ("q", 1)))
    assert lamport(a, b) and not lamport(b, a) and not lamport(a, c) and not lamport(c, a)
    timed = logs.precedence("time", 0.5)
    assert timed(at(1.0), at(1.6)) and not timed(at(1.0), at(1.4)) and not timed(at(1.4), at(1.0))


def test_issue_36_an_itf_trace_of_a_spec_with_processes_is_a_log(tmp_path, capsys):
    """`check --itf` writes a process's `Runner.pc` as `Runner__pc` (#meta.varNames maps it back):
    conform reads the names back as replay does, so tlacheck's own traces are logs."""
    from tests.conftest import SPECS
    from tlacheck.app.cli import main

    spec = str(SPECS / "notify_race_processes.spec")
    itf = tmp_path / "cx.itf.json"
    assert main(["check", spec, "--itf", str(itf)]) == 12
    assert "Runner__pc" in itf.read_text()
    capsys.readouterr()
    assert main(["conform", spec, str(itf)]) == 12  # the counterexample: a run that shows the bug
    assert "AnswerNotified" in capsys.readouterr().out
