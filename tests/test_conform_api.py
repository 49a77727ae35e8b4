"""tlacheck.conform (checker/conform/): the recorder and its logging handler, the online monitor,
`check`, and the pytest fixture `tlacheck_recorder` (app/pytest_plugin.py)."""

from __future__ import annotations

import enum
import io
import json
import logging
import subprocess
import sys
import textwrap
import threading

import pytest

from tlacheck.conform import Monitor, Recorder, RecorderHandler, check
from tests.test_conform import SPEC


class Colour(enum.Enum):
    RED = 1


def lines(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines()]


def test_issue_33_the_recorder_writes_the_lines_conform_reads():
    out = io.StringIO()
    with Recorder(out) as rec:
        rec.initial(state={"state": "queued"})
        rec.event("job.take", args={"worker": "worker-1"}, state={"owner": "w1", "set": {3, 1, 2}, "t": (1, 2)})
        rec.event(None, state={"c": Colour.RED})
    assert lines(out.getvalue()) == [
        {"action": None, "state": {"state": "queued"}},
        {"action": "job.take", "args": {"worker": "worker-1"}, "state": {"owner": "w1", "set": [1, 2, 3], "t": [1, 2]}},
        {"state": {"c": "RED"}},
    ]
    with pytest.raises(TypeError, match="cannot record a object"):
        Recorder(io.StringIO()).event("x", state={"o": object()})


def test_issue_33_lamport_clocks_and_timestamps():
    out = io.StringIO()
    rec = Recorder(out, lamport=True)
    rec.event("a")
    rec.receive(10)
    rec.event("b")
    rec.event("c", clock=3)  # given: kept
    assert [x["clock"] for x in lines(out.getvalue())] == [1, 11, 3]
    out = io.StringIO()
    Recorder(out, timestamps=True).event("a")
    assert isinstance(lines(out.getvalue())[0]["time"], float)


def test_issue_33_the_recorder_is_thread_safe(tmp_path):
    path = tmp_path / "run.ndjson"
    with Recorder(path) as rec:
        def work(k):
            for i in range(500):
                rec.event("job.take", args={"worker": f"worker-{k}"}, state={"i": i, "pad": "x" * 50})

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    got = lines(path.read_text())
    assert len(got) == 4000 and rec.events == 4000
    for k in range(8):
        assert [x["state"]["i"] for x in got if x["args"]["worker"] == f"worker-{k}"] == list(range(500))


def test_issue_33_the_logging_handler_records_records_that_carry_an_event():
    out = io.StringIO()
    log = logging.getLogger("tests.conform.handler")
    log.setLevel(logging.INFO)
    handler = RecorderHandler(Recorder(out))
    log.addHandler(handler)
    try:
        log.info("not an event")
        log.info("taken", extra={"conform": {"action": "job.take", "args": {"worker": "worker-1"}}})
        log.info("start", extra={"conform": {"initial": True, "state": {"state": "queued"}}})
    finally:
        log.removeHandler(handler)
    assert lines(out.getvalue()) == [{"action": "job.take", "args": {"worker": "worker-1"}},
                                     {"action": None, "state": {"state": "queued"}}]


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "jobs.spec"
    path.write_text(SPEC)
    return path


def test_issue_33_the_monitor_reports_the_first_event_that_does_not_conform(spec):
    mon = Monitor(spec, max_lazy=0)
    assert mon.initial({"state": "queued"})
    assert mon.event("job.take", {"worker": "worker-1"}, {"state": "running"})
    assert not mon.event("job.take", {"worker": "worker-2"})
    assert not mon.ok and not mon.event("job.finish")  # the verdict stays
    result = mon.finish()
    assert result.verdict.value == "does_not_conform" and result.mismatch.events[0].origin.line == 3
    text = mon.report()
    assert "monitor: does not conform at monitor:3" in text and "Take is disabled" in text


def test_issue_33_the_monitor_finishes_with_the_checks_along_the_run(spec):
    mon = Monitor(spec)
    for _ in range(2):
        assert mon.event("job.take", {"worker": "worker-1"})
        assert mon.event("Retry")
    result = mon.finish()
    assert result.verdict.value == "violation" and result.violation.name == "FewTries"
    ok = Monitor(spec)
    assert ok.event("job.take", {"worker": "worker-2"}) and ok.finish().verdict.value == "conforms"


def test_issue_33_a_monitor_can_listen_to_a_recorder(spec):
    mon = Monitor(spec)
    rec = Recorder(io.StringIO())
    rec.sinks.append(mon.line)
    rec.event("job.take", args={"worker": "worker-1"})
    rec.event("job.finish", state={"state": "done"})
    assert mon.ok and mon.finish().verdict.value == "conforms" and mon.finish().events == 2


def test_issue_33_a_malformed_event_is_the_monitors_verdict(spec):
    mon = Monitor(spec)
    assert not mon.event("job.tak")
    assert mon.finish().verdict.value == "malformed" and mon.finish().error.code == "E503"


def test_issue_33_check_is_the_command_as_a_function(spec, tmp_path):
    log = tmp_path / "run.ndjson"
    with Recorder(log) as rec:
        rec.event("job.take", args={"worker": "worker-1"})
        rec.event("job.finish")
    report = check(spec, log)
    assert report.exit_code == 0 and report.runs[0].verdict.value == "conforms"
    assert report.json()["runs"][0]["events_matched"] == 2 and "1 conforms" in report.text()


def test_issue_33_importing_the_recorder_loads_nothing_else():
    code = "import sys, tlacheck.conform\nprint(sorted(m for m in sys.modules if m.startswith('tlacheck')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # the recorder and the marks (issue 36: `step`), both the standard library only
    assert out.strip() == "['tlacheck', 'tlacheck.conform', 'tlacheck.conform.marks', 'tlacheck.conform.recorder']"


def test_issue_33_the_pytest_fixture_fails_a_test_whose_run_does_not_conform(spec, tmp_path):
    (tmp_path / "test_runs.py").write_text(textwrap.dedent("""\
        def test_conforms(tlacheck_recorder):
            rec = tlacheck_recorder("jobs.spec")
            rec.event("job.take", args={"worker": "worker-1"})

        def test_does_not(tlacheck_recorder):
            rec = tlacheck_recorder("jobs.spec", max_lazy=0)
            rec.event("job.take", args={"worker": "worker-1"})
            rec.event("job.take", args={"worker": "worker-2"})

        def test_pins_the_bug(tlacheck_recorder):
            rec = tlacheck_recorder("jobs.spec", expect="violation")
            for _ in range(2):
                rec.event("job.take", args={"worker": "worker-1"})
                rec.event("Retry")
        """))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = proc.stdout
    assert proc.returncode == 1 and "1 failed, 2 passed" in out, out
    assert "FAILED test_runs.py::test_does_not" in out
    assert "expected to be `conforms`, it is `does_not_conform`" in out and "Take is disabled" in out
    assert "Traceback" not in out
