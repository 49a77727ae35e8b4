"""Limits and interruption (issue 8): every stop ends with verdict `incomplete`, exit 5, the
statistics so far and valid JSON; a second Ctrl-C quits at once."""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

from checker.cli import main
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
    return subprocess.Popen([sys.executable, "-m", "checker", "check", endless, "--progress-every", "0.1", *extra],
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


def test_a_second_ctrl_c_quits_at_once(tmp_path):
    # Fast states first (progress lines every 0.1 s), then one state whose expansion takes minutes
    # on any machine, so the first Ctrl-C cannot be honoured and the second one must end the run.
    p = tmp_path / "slow.spec"
    p.write_text("var x: int = 0\naction A:\n"
                 "    require x < 200000 or all(i + j + x >= 0 for i in 0..30000 for j in 0..30000)\n"
                 "    x = x + 1\n")
    proc = start(str(p))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stderr], daemon=True).start()
    seen_progress, deadline = False, time.monotonic() + 120
    while time.monotonic() < deadline:  # progress lines, then two seconds of silence: the slow state
        try:
            line = lines.get(timeout=2.0)
        except queue.Empty:
            if seen_progress:
                break
            assert proc.poll() is None, "the run ended before the slow state"
            continue
        seen_progress = seen_progress or line.startswith("progress:")
    assert seen_progress, "no progress line within two minutes"
    proc.send_signal(signal.SIGINT)
    line = "\n"
    while not line.strip():
        line = lines.get(timeout=30)
    assert "stopping after the current state" in line
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 130
