"""pytest plugin: `pytest specs/` runs every `expect` line of every .spec file as a test.

Registered through the `pytest11` entry point. Each (variant, check) expectation
is one test item; a failed expectation reports the counterexample (or the
missing witness) as the failure message, and a spec with a syntax or type
error fails collection with the usual `file:line:col` message.

`pytest --tlacheck-simulate` decides the expectations by simulation instead of an exhaustive
search (as `tlacheck verify --simulate`; seed, depth and behaviours with `--tlacheck-seed`,
`--tlacheck-depth`, `--tlacheck-traces`): an expectation that simulation cannot decide (a
reachable check, a liveness property) is skipped, with the reason.

The fixture `tlacheck_recorder` records a test's events and checks them against a spec when the
test body returns (`tlacheck conform`, docs/conform.md):

    def test_racy_order(tlacheck_recorder):
        recorder = tlacheck_recorder("specs/notify_race.spec", variant="Generation")
        run_the_system(recorder)          # the code calls recorder.event(...)

The test fails, with the conformance report as its message, unless the run's verdict is the one
expected (`expect="conforms"` by default; "violation" or "does_not_conform" to pin a bug).
"""

from __future__ import annotations

import os

import pytest

# The plugin is loaded by every pytest run in an environment where tlacheck is installed, for
# projects that may know nothing of it: it imports nothing of tlacheck's at load time (the parser,
# the engine and their dependencies load only once a .spec file is collected).


def pytest_addoption(parser):
    from tlacheck.engine.simulate import DEFAULT_DEPTH, DEFAULT_TRACES

    group = parser.getgroup("tlacheck", "tlacheck: .spec files and their `expect` lines")
    group.addoption("--tlacheck-simulate", action="store_true",
                    help="decide the `expect` lines by simulation (random behaviours) instead of exploring every "
                         "state: for models too large to explore")
    group.addoption("--tlacheck-seed", type=int, default=1, help="with --tlacheck-simulate: the seed (default 1)")
    group.addoption("--tlacheck-depth", type=int, default=DEFAULT_DEPTH,
                    help=f"with --tlacheck-simulate: steps per behaviour at most (default {DEFAULT_DEPTH})")
    group.addoption("--tlacheck-traces", type=int, default=DEFAULT_TRACES,
                    help=f"with --tlacheck-simulate: behaviours per variant (default {DEFAULT_TRACES})")


def simulation_options(config):
    """The SimOptions of `--tlacheck-simulate`, or None (exhaustive search)."""
    from tlacheck.engine.simulate import SimOptions

    if not config.getoption("tlacheck_simulate"):
        return None
    return SimOptions(seed=config.getoption("tlacheck_seed"), depth=config.getoption("tlacheck_depth"),
                      traces=config.getoption("tlacheck_traces"))


def pytest_collect_file(parent, file_path):
    if file_path.suffix == ".spec":
        try:
            text = file_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        if "\nexpect " in "\n" + text:
            return SpecFile.from_parent(parent, path=file_path)
    return None


class ExpectationFailed(Exception):
    def __init__(self, row):
        super().__init__(row.check)
        self.row = row


class SpecFile(pytest.File):
    """One .spec file; its items share one exploration per variant."""

    def collect(self):
        from tlacheck.app.cli import read_source
        from tlacheck.core.errors import SpecError
        from tlacheck.core.result import Expectation
        from tlacheck.pipeline.driver import Pipeline

        self._rows = None
        self._pipeline = Pipeline()  # the file is parsed here once, for its expectations and every variant
        try:
            self.source = read_source(str(self.path))
            expects = self._pipeline.expectations(self.source)
        except SpecError as exc:
            raise self.CollectError(
                "\n".join(d.render({self.source.name: self.source}) for d in exc.diagnostics)) from None
        for index, e in enumerate(expects):
            check = e.check or ('' if e.outcome == Expectation.DEADLOCKS else 'all checks')
            name = f"{e.name} {e.outcome.value} {check}".strip()
            yield SpecItem.from_parent(self, name=name, index=index, line=e.span.line)

    def rows(self):
        if self._rows is None:
            from tlacheck.app.verify import verify_source

            self._rows = verify_source(self.source, simulation=simulation_options(self.config), pipeline=self._pipeline)
        return self._rows


class SpecItem(pytest.Item):
    def __init__(self, *, index: int, line: int, **kwargs):
        super().__init__(**kwargs)
        self.index = index
        self.line = line

    def runtest(self):
        from tlacheck.core.errors import SpecError

        try:
            row = self.parent.rows()[self.index]
        except SpecError as exc:
            raise ExpectationFailed(None) from exc
        if row.unchecked:
            pytest.skip(f"{row.note} (--tlacheck-simulate)")
        if not row.ok:
            raise ExpectationFailed(row)

    def repr_failure(self, excinfo):
        from tlacheck.core.errors import SpecError, TlacheckError
        from tlacheck.output.report import format_row_failure

        if isinstance(excinfo.value, ExpectationFailed):
            if excinfo.value.row is None:
                cause = excinfo.value.__cause__
                if isinstance(cause, SpecError):
                    return "\n".join(d.render({self.parent.source.name: self.parent.source})
                                     for d in cause.diagnostics)
            return format_row_failure(excinfo.value.row)
        if isinstance(excinfo.value, TlacheckError):
            return f"tlacheck: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.line - 1, f"{self.path.name}::{self.name}"


# ---------------------------------------------------------------- conformance of a test's run

_RECORDED = pytest.StashKey[list]()


@pytest.fixture
def tlacheck_recorder(request, tmp_path):
    """A factory: `tlacheck_recorder(spec, *, variant="base", expect="conforms", **options)` gives a
    tlacheck.conform.Recorder writing to a log in the test's tmp_path; when the test body returns,
    the log is checked against the spec (a relative path is taken from the rootdir) with `options`
    (max_gap, max_lazy, defines, invariants, properties), and the test fails unless the verdict is
    `expect`. Several recorders in one test are several runs, each checked."""
    from tlacheck.conform import Recorder

    made: list = []
    request.node.stash[_RECORDED] = made

    def make(spec, *, variant: str = "base", expect: str = "conforms", **options):
        if expect not in _VERDICTS:
            raise ValueError(f"expect must be one of {', '.join(_VERDICTS)}, not {expect!r}")
        path = tmp_path / f"run{len(made) + 1}.ndjson"
        recorder = Recorder(path)
        spec = os.fspath(spec)
        if not os.path.isabs(spec):
            spec = os.path.join(str(request.config.rootpath), spec)
        made.append((recorder, str(path), spec, variant, expect, options))
        return recorder

    yield make
    for recorder, *_ in made:
        recorder.close()


_VERDICTS = ("conforms", "violation", "does_not_conform")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """After a test body that used `tlacheck_recorder` returns: check each run it recorded."""
    result = yield
    made = item.stash.get(_RECORDED, None)
    if made:
        failures = [f for f in (_conformed(*entry) for entry in made) if f]
        if failures:
            pytest.fail("\n\n".join(failures), pytrace=False)
    return result


def _conformed(recorder, path: str, spec: str, variant: str, expect: str, options: dict) -> str | None:
    """None when the run's verdict is `expect`, else what to fail the test with."""
    from tlacheck.conform import check

    recorder.close()
    report = check(spec, [path], variant=variant, **options)
    got = report.runs[0].verdict.value
    if got == expect:
        return None
    return f"tlacheck conform: the run recorded in {path} was expected to be `{expect}`, it is `{got}`\n\n" \
        + report.text()
