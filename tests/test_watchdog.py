"""One long step cannot outrun the limits (issue 8, the fuzz campaigns' open finding): the
watchdog stops the search inside the spec's code, keeps the statistics consistent, and never
interrupts the rebuilding of a trace that was found."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tlacheck.core.result import Verdict
from tlacheck.core.source import Source
from tlacheck.engine import traces
from tlacheck.engine import watchdog
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tlacheck.pipeline.driver import build_model
from tests.conftest import ROOT


# Each expansion after the first few states runs for minutes on any machine (9*10^8 additions).
SLOW = "all(i + j != x - 7 for i in 0..30000 for j in 0..30000)"
PLACES = {
    "guard": f"var x: int = 0\naction A:\n    require x < 3 or {SLOW}\n    x = x + 1\n",
    "invariant": f"var x: int = 0\naction A:\n    x = x + 1\ninvariant Slow: x < 3 or {SLOW}\n",
    "constraint": f"var x: int = 0\naction A:\n    x = x + 1\nconstraint Slow: x < 3 or {SLOW}\n",
    "parameters": "var x: int = 0\naction A:\n    require x < 3\n    x = x + 1\n"
                  "action B(i in 0..1000000, j in 0..1000000):\n    require x >= 3\n    require i + j == -1\n"
                  "    x = x + 1\n",
}


def check(tmp_path, text: str, *flags: str, timeout: float = 60):
    p = tmp_path / "slow.spec"
    p.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "tlacheck", "check", str(p), "--json", "--quiet", *flags],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    return proc.returncode, json.loads(proc.stdout), proc.stderr


MODES = {"fingerprint": ("--storage", "fingerprint"), "exact": ("--storage", "exact"), "workers": ("--workers", "2")}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("place", sorted(PLACES))
def test_the_time_limit_stops_a_step_that_runs_for_minutes(tmp_path, place, mode):
    code, data, err = check(tmp_path, PLACES[place], "--time-limit", "1", *MODES[mode])
    assert code == 5, err
    assert (data["verdict"], data["stop_reason"]) == ("incomplete", "time_limit")
    assert "Traceback" not in err
    # The statistics are those of the states handled before the stop, and they agree.
    assert data["distinct_states"] >= 3
    generated = sum(c["generated"] for c in data["coverage"].values())
    assert generated + 1 == data["states_generated"]  # + the initial state
    assert sum(c["distinct"] for c in data["coverage"].values()) + 1 == data["distinct_states"]
    assert data["queue_left"] >= 1  # the state whose expansion was abandoned


def test_ctrl_c_stops_a_step_that_runs_for_minutes(tmp_path):
    p = tmp_path / "slow.spec"
    p.write_text(PLACES["guard"])
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "tlacheck", "check", str(p)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        # Start-up, compiling and the first states take well under a second of CPU time; then the
        # slow step takes minutes. Waiting for 2 s of the child's CPU time, not of wall time, puts
        # the signal inside the slow step however loaded the machine is.
        deadline = time.monotonic() + 120
        while _cpu_seconds(proc.pid) < 2.0 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)  # once
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 5, err
    assert "Stopped before the search was complete" in out and "Reason: interrupted." in out
    assert "left on queue     1" in out  # the state whose expansion was abandoned
    assert "stopping" in err and "Traceback" not in err


def _cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (user and system; Linux's /proc)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _model(text: str):
    return build_model(Source("w.spec", textwrap.dedent(text)))


def test_a_violation_found_is_reported_even_if_the_limit_passes_while_its_trace_is_rebuilt(monkeypatch):
    """Rebuilding the trace runs the spec's code again; the watchdog must not interrupt it there."""
    model = _model("""
        var x: int = 0
        action A(i in 0..200):
            require i == 0 or all(j != -i for j in 0..50)
            x = x + 1
        invariant Small: x < 4
        """)
    monkeypatch.setattr(watchdog, "TICK", 0.01)
    real = traces.find_step

    def slow_find_step(*args):  # keeps the generated code busy, under find_step, past the deadline
        end = time.perf_counter() + 0.3
        while time.perf_counter() < end:
            step = real(*args)
        return step

    monkeypatch.setattr(traces, "find_step", slow_find_step)
    ticks = []
    monkeypatch.setattr(watchdog.Watchdog, "_in_step",
                        lambda self, frame, real=watchdog.Watchdog._in_step: ticks.append(real(self, frame)) or ticks[-1])
    # The search takes well under the limit; the trace's three steps take 0.9 s.
    result = explore(model, Options(time_limit=0.5, storage=Storage.EXACT))
    assert result.verdict == Verdict.INVARIANT_VIOLATED
    assert len(result.violation.trace.steps) == 5
    assert ticks and not any(ticks)  # it looked, during the rebuilding, and held back


def test_in_process_a_step_that_runs_for_minutes_is_cut_at_the_limit():
    """explore() called as a library (main thread) is watched the same way."""
    model = _model(PLACES["guard"])
    result = explore(model, Options(time_limit=0.5))
    assert (result.verdict, result.stop_reason) == (Verdict.INCOMPLETE, "time_limit")
    assert result.distinct_states == 4 and result.queue_left == 1


def test_in_step_looks_for_generated_code_and_protected_code_on_the_stack():
    generated = compile("def spec_code(look):\n    return look()\n", "<tlacheck model w>", "exec")
    namespace: dict = {}
    exec(generated, namespace)
    spec_code = namespace["spec_code"]

    def protected(look):
        return spec_code(look)

    dog = watchdog.Watchdog(lambda: None, "<tlacheck model w>", [protected.__code__])
    here = lambda: dog._in_step(sys._getframe(1))  # noqa: E731 - the frame that called it
    assert spec_code(here) is True
    assert protected(here) is False
    assert here() is False


def test_the_watchdog_leaves_an_existing_timer_and_other_threads_alone():
    fired = []
    old = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        with watchdog.Watchdog(lambda: "time_limit", "x") as dog:
            assert not dog._armed
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    with watchdog.Watchdog(lambda: "time_limit", "x") as dog:
        assert dog._armed and signal.getitimer(signal.ITIMER_REAL)[1] == pytest.approx(watchdog.TICK)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL or callable(signal.getsignal(signal.SIGALRM))


def test_campaign_3_a_sequence_quadrupled_at_every_step_ends_within_the_fuzz_bound(tmp_path):
    """The one failing input of fuzz campaign 3: the run stopped (out of memory) in time, but
    printing its trace, states of millions of elements, outlasted the 30 s a case may take.
    Large values are shortened in text now (values.TEXT_ELEMENTS)."""
    from tests.fuzzing import CHECK_FLAGS, check_outcome, run_cli

    data = b"var s: seq[int] = [0]\naction Double:\n    s = s + s\n    s = s + s\n"
    (tmp_path / "x.spec").write_bytes(data)
    outcome = run_cli(["check", "x.spec", *CHECK_FLAGS], tmp_path)
    check_outcome(outcome, data)  # ends, with no traceback, with a located error if any
    assert outcome.code in (4, 5)  # out of memory, or the time limit first on a slow machine
    if outcome.code == 4:
        # a value that long wraps (diff.WIDTH): its old value goes on the next line
        assert "error[E411]" in outcome.first_error and " elements)]\n" in outcome.stdout
        assert "(was [0, 0, " in outcome.stdout
