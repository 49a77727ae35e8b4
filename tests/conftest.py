"""Shared helpers for the test suite."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from benchmarks.suite import REFERENCE  # noqa: F401  (the TLA+ models with TLC's recorded results)
from tlacheck.core import runtime
from tlacheck.core.errors import SpecError
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.lang.variants import BASE
from tlacheck.pipeline.driver import build_model


ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"


def spec_files() -> list[Path]:
    """Every spec in specs/ but the broad corpus (specs/corpus/: up to 10^6 states each), which
    tests/test_corpus.py checks against TLC's counts once per model."""
    return sorted(p for p in SPECS.rglob("*.spec") if "corpus" not in p.relative_to(SPECS).parts)


def spec_runs() -> list[tuple[str, str]]:
    """(spec path under specs/, variant) for every spec of spec_files() and each of its variants."""
    runs = []
    for path in spec_files():
        variants = [BASE] + re.findall(r"^variant (\w+)", path.read_text(), re.M)
        runs += [(str(path.relative_to(SPECS)), v) for v in variants]
    return runs


UPDATE_GOLDEN = "TLACHECK_UPDATE_GOLDEN"


def installed_copy(into: Path) -> Path:
    """The package as a wheel installs it, laid out in INTO from pyproject.toml's package-dir,
    packages and package-data (Python files and the data listed, nothing of the checkout beside
    it): the folder to put on PYTHONPATH so that `tlacheck` is imported from there."""
    import shutil
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    dirs, data = config["package-dir"], config.get("package-data", {})
    for package in config["packages"]:
        parent = next(p for p in sorted(dirs, key=len, reverse=True) if package == p or package.startswith(p + "."))
        source = ROOT / dirs[parent] / package[len(parent):].lstrip(".").replace(".", "/")
        target = into / package.replace(".", "/")
        target.mkdir(parents=True, exist_ok=True)
        for pattern in ["*.py", *data.get(package, [])]:
            for path in source.glob(pattern):
                (target / path.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target / path.relative_to(source))
    return into


def golden(path: Path, text: str) -> None:
    """Assert that `text` is the content of the golden file `path`, to the byte. With the
    environment variable TLACHECK_UPDATE_GOLDEN=1 the file is written first (review the diff)."""
    import os

    if os.environ.get(UPDATE_GOLDEN) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with {UPDATE_GOLDEN}=1 to create it"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs from its golden file ({UPDATE_GOLDEN}=1 updates it)"


_DOC_DIRECTIVE = re.compile(r"^<!-- ([a-z]+): (.*?) -->$")


def doc_blocks(page: Path) -> list[tuple[str, str, list[str], int, int]]:
    """The fenced blocks of a docs page marked by a directive `<!-- KIND: VALUE -->` before them:
    (kind, value, the block's lines, the index of its first line, of its closing fence)."""
    lines = page.read_text(encoding="utf-8").split("\n")
    out = []
    pending = None
    i = 0
    while i < len(lines):
        m = _DOC_DIRECTIVE.match(lines[i].strip())
        if m:
            pending = m.groups()
        elif lines[i].startswith("```") and pending is not None:
            j = i + 1
            while lines[j] != "```":
                j += 1
            out.append((pending[0], pending[1], lines[i + 1:j], i + 1, j))
            pending = None
            i = j
        i += 1
    return out


def model_of(text: str, overrides: dict | None = None, name: str = "test.spec"):
    return build_model(Source(name, textwrap.dedent(text).lstrip("\n")), overrides)


def next_states(model, action: int, state: tuple) -> list[tuple]:
    """The successors of `state` by action number `action`, from its list form `n{i}` (which also
    fingerprints them, with a fingerprinter of its own here)."""
    from tlacheck.engine.fingerprints import Fingerprinter

    fingerprint = Fingerprinter(model.var_types)
    return model.next_states[action](state, fingerprint.raw(state), fingerprint.memos, fingerprint.entries)[0]


def run(text: str, overrides: dict | None = None, **options):
    model = model_of(text, overrides)
    return model, explore(model, Options(**options))


def spec_error(text: str, overrides: dict | None = None):
    """The first diagnostic of the SpecError that `text` raises (fails if it raises none)."""
    with pytest.raises(SpecError) as info:
        model_of(text, overrides)
    return info.value.diagnostics[0]

def fail_ranges(monkeypatch, size: int, when=lambda: True) -> None:
    """Make `lo..hi` with more than `size` elements raise MemoryError (as it would past a memory
    limit) while `when()` holds. Patch before the model is compiled; forked workers inherit it."""
    real = runtime.int_range

    def int_range(a, b, where):
        if b - a >= size and when():
            raise MemoryError
        return real(a, b, where)

    monkeypatch.setattr(runtime, "int_range", int_range)


# Under small_ranges, the step from n = 10^6 runs out of memory (E411 at 3:5, a trace of 3 steps).
GROW = """
    var n: int = 1
    action Grow:
        require len(0..n) > 0
        n = n * 1000
    """


@pytest.fixture
def small_ranges(monkeypatch):
    """`lo..hi` with more than a million elements raises MemoryError: instant and deterministic
    (below the 2^20 elements past which a range is E408)."""
    fail_ranges(monkeypatch, 1_000_000)


pytest_plugins = ["pytester"]
