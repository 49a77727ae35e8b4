"""Limits and interruption (issue 8): every stop ends with verdict `incomplete`, exit 5, the
statistics so far and valid JSON; a second Ctrl-C quits at once."""

import json
import os
import re
import signal
import subprocess
import sys

import jsonschema
import pytest

from tlacheck.app import cli
from tlacheck.app.cli import main
from tlacheck.engine.explore import explore
from tlacheck.engine.limits import memory_estimate
from tlacheck.output.report import json_schema
from tests.conftest import ROOT


ENDLESS = "var x: int = 0\nvar y: int = 0\naction A:\n    x = x + 1\naction B:\n    y = y + 1\n"


@pytest.fixture
def endless(tmp_path):
    p = tmp_path / "endless.spec"
    p.write_text(ENDLESS)
    return str(p)


def run_json(capsys, args):
    code = main(args + ["--json", "--quiet"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("flag, value, reason", [
    ("--max-states", "5000", "max_states"),
    ("--max-depth", "20", "max_depth"),
    ("--time-limit", "0.5", "time_limit"),
    ("--memory-limit", "1", "memory_limit"),  # any Python process is above 1 MB
])
def test_each_limit_stops_with_exit_5_and_valid_json(endless, capsys, flag, value, reason):
    code, data = run_json(capsys, ["check", endless, flag, value])
    assert code == 5
    assert data["verdict"] == "incomplete" and data["stop_reason"] == reason
    assert data["distinct_states"] > 0 and data["states_generated"] >= data["distinct_states"]


def start(endless, *extra):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "tlacheck", "check", endless, "--progress-every", "0.1", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)


def wait_until_exploring(proc):
    """Block until the explorer prints its first progress line (the signal handlers are in place)."""
    line = proc.stderr.readline()
    while line and not line.startswith("progress:"):
        line = proc.stderr.readline()
    assert proc.poll() is None, proc.communicate()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_cleanly_with_the_summary(endless, sig):
    proc = start(endless, "--json")
    wait_until_exploring(proc)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 5, err
    data = json.loads(out)
    jsonschema.validate(data, json_schema(), cls=jsonschema.Draft202012Validator)  # issue 32: the schema holds
    assert data["verdict"] == "incomplete" and data["stop_reason"] == "interrupted"
    assert data["distinct_states"] > 0
    assert "Traceback" not in err


def test_interrupted_text_report_says_so(endless):
    proc = start(endless)
    wait_until_exploring(proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 5
    assert "Reason: interrupted." in out and "Summary:" in out


def test_a_second_ctrl_c_quits_at_once():
    """The first Ctrl-C asks for a clean stop, which the search honours within a tenth of a second,
    even inside a long step (tests/test_watchdog.py). Where it cannot be honoured (a trace being
    rebuilt, one long operation of Python), the second one ends the process at once. Here the
    work in progress ignores the request, as those do."""
    script = ("import threading\n"
              "from tlacheck.app.cli import _stop_on_signals\n"
              "stop = threading.Event()\n"
              "with _stop_on_signals(stop):\n"
              "    print('ready', flush=True)\n"
              "    while True:\n"
              "        pass\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGINT)
        assert "stopping (Ctrl-C again to quit at once)" in proc.stderr.readline() + proc.stderr.readline()
        assert proc.poll() is None  # still running: the first Ctrl-C only asked
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130


# ---------------------------------------------------------------- the early memory estimate

def estimate(ceiling_mb, window_states, limited=True):
    """100 MB more than at the first reading for 1,000,000 states (about 105 bytes a state); over
    the last two seconds, 100,000 states expanded and `1,000,000 - window_states` new ones stored."""
    return memory_estimate(rss_mb=200.0, ceiling_mb=ceiling_mb, limited=limited, states=1_000_000,
                           queue=500_000, first=(100.0, 0), window=(window_states, 400_000, 10.0),
                           now=(500_000, 12.0))


def test_issue_8_memory_estimate_warns_when_the_growing_search_will_not_fit():
    e = estimate(250.0, 800_000)  # r = 2 new states per expanded one: expect as many states again
    assert e is not None
    assert (round(e.bytes_per_state), e.states_per_s, e.fits, e.expected) == (105, 100_000, 500_000, 1_000_000)
    assert e.seconds == 5.0
    assert e.message() == (
        "this run will probably not fit in the 250 MB memory limit: at 105 bytes per state and 6.0M new "
        "states a minute it gets there in about 5 seconds, after about 500K more states, while the 500K "
        "states on the queue are expected to add at least 1.0M")
    assert estimate(250.0, 800_000, limited=False).message().startswith(
        "this run will probably not fit in the machine's memory (250 MB for this process): ")
    assert estimate(300.0, 800_000) is None  # a million more states fit


def test_issue_8_memory_estimate_stays_quiet_when_the_search_winds_down_or_knows_too_little():
    assert estimate(250.0, 950_000) is None  # r = 0.5: the queue should add about 500K, which fits
    assert estimate(200.0, 800_000) is None  # at the limit already: the limit itself stops the run
    few = memory_estimate(200.0, 250.0, True, 10_000, 5_000, (100.0, 0), (5_000, 2_000, 1.0), (5_000, 2.0))
    assert few is None  # too few states to measure memory per state
    flat = memory_estimate(100.0, 250.0, True, 1_000_000, 500_000, (100.0, 0), (800_000, 400_000, 10.0),
                           (500_000, 12.0))
    assert flat is None  # no growth measured


def baseline_mb():
    """Resident memory of a fresh tlacheck process before it explores (Linux only)."""
    probe = subprocess.run([sys.executable, "-c", "import tlacheck.app.cli\nfrom tlacheck.engine.limits import resident_mb\n"
                            "print(resident_mb())"], capture_output=True, text=True, cwd=ROOT, check=True)
    value = probe.stdout.strip()
    if value == "None":
        pytest.skip("no /proc: resident memory cannot be read here")
    return float(value)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_issue_8_memory_warning_comes_before_the_memory_limit(tmp_path, workers):
    # Every state has three successors: the search grows until the limit, 300 MB above the start.
    # With two workers the memory is that of the three processes, and the states found so far
    # are read from the workers' shared counters while they expand.
    p = tmp_path / "grow.spec"
    p.write_text("var q: seq[int] = []\naction Push(i in 0..2):\n    q = append(q, i)\n")
    limit = str(int(baseline_mb()) + 300)
    proc = subprocess.run([sys.executable, "-m", "tlacheck", "check", str(p), "--memory-limit", limit, "--json",
                           "--workers", workers], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 5, proc.stderr
    data = json.loads(proc.stdout)
    assert data["stop_reason"] == "memory_limit"
    [warning] = [w for w in data["warnings"] if w["code"] is None]
    assert warning["severity"] == "warning" and warning["hint"].startswith("consider --max-states")
    assert warning["message"].startswith(f"this run will probably not fit in the {int(limit):,} MB memory limit")
    lines = proc.stderr.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("tlacheck: warning:")]
    assert [lines[i] for i in at] == [f"tlacheck: warning: {warning['message']}"]
    assert lines[at[0] + 1] == f"  = hint: {warning['hint']}"


@pytest.mark.parametrize("quiet", [False, True])
def test_issue_8_quiet_keeps_the_memory_warning_out_of_stderr_not_out_of_json(endless, capsys, monkeypatch, quiet):
    def warned_explore(model, options, **kwargs):
        options.warn(estimate(250.0, 800_000))
        return explore(model, options, **kwargs)

    monkeypatch.setattr(cli, "explore", warned_explore)
    code = main(["check", endless, "--max-states", "100", "--json", *(["--quiet"] if quiet else [])])
    out, err = capsys.readouterr()
    assert code == 5
    assert [w["message"] for w in json.loads(out)["warnings"]] == [estimate(250.0, 800_000).message()]
    assert ("tlacheck: warning: this run will probably not fit" in err) is not quiet


# ---------------------------------------------------------------- stopping the liveness phase

# A quick search (1,681 states), then a property of 20,001 liveness leaves that all read one
# predicate (evaluated once per state, during the search): the liveness phase, after the search,
# searches the graph for each leaf and runs for many seconds on any machine.
SLOW_LIVENESS = """var x: int = 0
var y: int = 0
action A:
    require x < 40
    x = x + 1
action B:
    require y < 40
    y = y + 1
action Reset:
    require x == 40 and y == 40
    x = 0
    y = 0
fair weak A
fair weak B
property Quick: eventually x == 40
property Slow: all(always eventually x == 40 for k in 0..20000)
"""


@pytest.fixture
def slow_liveness(tmp_path):
    p = tmp_path / "slow_liveness.spec"
    p.write_text(SLOW_LIVENESS)
    return str(p)


def test_issue_8_ctrl_c_in_the_liveness_phase_stops_cleanly(slow_liveness):
    proc = start(slow_liveness, "--json")
    line = proc.stderr.readline()
    while line and " search complete " not in line:
        line = proc.stderr.readline()
    assert re.match(r"progress: \d+:\d\d:\d\d search complete \(1,681 distinct states", line), proc.communicate()
    assert proc.poll() is None, "the liveness phase ended before the signal"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 5, err
    data = json.loads(out)
    assert (data["verdict"], data["stop_reason"]) == ("incomplete", "interrupted")
    assert data["undecided_properties"] in (["Quick", "Slow"], ["Slow"])  # Quick is decided in a moment
    assert (data["distinct_states"], data["states_generated"], data["queue_left"]) == (1681, 3282, 0)
    assert "Traceback" not in err


def test_issue_8_time_limit_in_the_liveness_phase(slow_liveness, capsys):
    code = main(["check", slow_liveness, "--time-limit", "3", "--quiet"])  # the liveness phase takes minutes
    out = capsys.readouterr().out
    assert code == 5
    assert "Stopped while checking the temporal properties: no error found so far." in out
    assert "Reason: the --time-limit was reached.\nThe search was complete; not decided: Slow.\n" in out
    assert "distinct states   1,681" in out
