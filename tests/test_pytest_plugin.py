"""The pytest plugin in other people's projects (app/pytest_plugin.py).

Installing tlacheck registers the plugin for every pytest run of the environment; a project
with its own `checker` module must keep working, and may use tlacheck's `.spec` collection too.
"""

import subprocess
import sys
import textwrap

import pytest

SPEC = textwrap.dedent("""\
    spec Counter
    var x: int = 0
    action Inc:
        require x < 2
        x = x + 1
    invariant Small: x <= 2
    invariant Tiny: x <= 1
    expect base violates Tiny
    expect base holds Small
    """)


def _pytest(project) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"],
                          cwd=project, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("layout", ["module", "package"])
def test_issue_32_a_project_with_its_own_checker_module_still_runs_its_tests(tmp_path, layout):
    if layout == "module":
        (tmp_path / "checker.py").write_text("def f():\n    return 1\n")
        (tmp_path / "test_own.py").write_text("from checker import f\n\ndef test_x():\n    assert f() == 1\n")
    else:
        (tmp_path / "checker").mkdir()
        (tmp_path / "checker" / "__init__.py").write_text("X = 1\n")
        (tmp_path / "checker" / "core.py").write_text("Y = 2\n")
        (tmp_path / "test_own.py").write_text(
            "from checker import X\nfrom checker.core import Y\n\ndef test_y():\n    assert X + Y == 3\n")
    (tmp_path / "counter.spec").write_text(SPEC)
    proc = _pytest(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the project's own test and both expectations of its spec ran
    assert "3 passed" in proc.stdout, proc.stdout


def test_issue_32_loading_the_plugin_imports_nothing_of_tlacheck():
    """The plugin loads on every pytest run: loading it must not import the parser or the engine."""
    code = ("import sys, tlacheck.app.pytest_plugin\n"
            "print(sorted(m for m in sys.modules if m.startswith('tlacheck.') and m != 'tlacheck.app.pytest_plugin'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['tlacheck.app']"
