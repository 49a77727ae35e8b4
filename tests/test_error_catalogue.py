"""docs/errors.md: every diagnostic code has an entry, and every entry's example really produces it.

The catalogue's layout is strict so that this module can read it. An entry is a
section headed `## CODE title` holding one or more examples; an example is

    <!-- args: -D N=true -->        optional: flags for `tlacheck check`
    <!-- command: prove -->         optional: run this subcommand instead of `check`
    <!-- exit: 11 -->               optional: the exit code, when not the code's default
    <!-- encoding: latin-1 -->      optional: write the example in this encoding
    <!-- known-bug: why -->         optional: the code is not produced yet (see below)
    <!-- memory: 256 -->            optional: run in a forked child that may add only this many MiB
                                    of address space to the test process's (E411, out of memory)
    ```spec
    ...the example spec...
    ```
    ```log                          optional: written as example.ndjson (E5xx: `tlacheck conform`)
    ...a log...
    ```
    ```text
    ...what `tlacheck check example.spec` prints on stderr...
    ```

Default exit codes: 3 for E0xx and E1xx, 4 for E4xx, 2 for E5xx (a log that cannot be read),
0 for warnings (W2xx).

Each example is written to a temporary directory as `example.spec` and run
in-process from that directory, so messages start with `example.spec:LINE:COL`.
The test checks the exit code, that `error[CODE]` (or `warning[CODE]`) is in the
output, and that the output is exactly the documented text. An example marked
`known-bug` pins today's output and is reported as an expected failure until the
code is produced; then it fails, asking for the entry to be updated.

After changing a message on purpose, refresh the text blocks with
`TLACHECK_UPDATE_DOCS=1 python -m pytest tests/test_error_catalogue.py` and review the diff.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import pytest

from tlacheck.app.cli import main
from tests.conftest import ROOT


CATALOGUE = ROOT / "docs" / "errors.md"
CHECKER = ROOT / "checker"
UPDATE = os.environ.get("TLACHECK_UPDATE_DOCS") == "1"

_HEADING = re.compile(r"^## ([EW]\d{3}) \S")
_DIRECTIVE = re.compile(r"^<!-- (args|exit|encoding|known-bug|command|memory): (.*?) -->$")
_CODE_LITERAL = re.compile(r"""["']([EW]\d{3})["']""")


@dataclass(frozen=True)
class Example:
    code: str
    number: int  # 1-based, within its entry
    spec: str
    text: str
    text_lines: tuple[int, int]  # 0-based [start, end) of the text block's body in the file
    args: tuple[str, ...] = ()
    exit: int | None = None
    encoding: str = "utf-8"
    known_bug: str | None = None
    command: str = "check"
    memory_mib: int | None = None  # run under this address-space limit (above the test process's)
    log: str | None = None  # a ```log block: written as example.ndjson

    @property
    def expected_exit(self) -> int:
        if self.exit is not None:
            return self.exit
        return {"E0": 3, "E1": 3, "E4": 4, "E5": 2}.get(self.code[:2], 0)

    @property
    def marker(self) -> str:
        return f"{'warning' if self.code.startswith('W') else 'error'}[{self.code}]"


def _fence(lines: list[str], i: int, info: str) -> tuple[int, int]:
    """The body [start, end) of the fenced block opening at line i with this info string."""
    if lines[i].strip() != "```" + info:
        raise AssertionError(f"docs/errors.md:{i + 1}: expected a ```{info} block, found {lines[i]!r}")
    for j in range(i + 1, len(lines)):
        if lines[j].strip() == "```":
            return i + 1, j
    raise AssertionError(f"docs/errors.md:{i + 1}: the ```{info} block is not closed")


def parse_catalogue(text: str) -> tuple[dict[str, str], list[Example]]:
    """The entries (code -> title) and the examples of the catalogue."""
    lines = text.split("\n")
    titles: dict[str, str] = {}
    examples: list[Example] = []
    code = None
    directives: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            m = _HEADING.match(line)
            code = m.group(1) if m else None
            if code is not None:
                assert code not in titles, f"docs/errors.md:{i + 1}: {code} has two entries"
                titles[code] = line[3:].split(" ", 1)[1]
            directives = {}
        elif code is not None and _DIRECTIVE.match(line.strip()):
            key, value = _DIRECTIVE.match(line.strip()).groups()
            directives[key] = value
        elif code is not None and line.strip().startswith("```spec"):
            s0, s1 = _fence(lines, i, "spec")
            j = s1 + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            log = None
            if j < len(lines) and lines[j].strip() == "```log":
                l0, l1 = _fence(lines, j, "log")
                log = "\n".join(lines[l0:l1]) + "\n"
                j = l1 + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
            assert j < len(lines), f"docs/errors.md:{i + 1}: the example has no ```text block"
            t0, t1 = _fence(lines, j, "text")
            examples.append(Example(
                code=code,
                number=sum(1 for e in examples if e.code == code) + 1,
                spec="\n".join(lines[s0:s1]) + "\n",
                text="\n".join(lines[t0:t1]),
                text_lines=(t0, t1),
                args=tuple(directives.get("args", "").split()),
                exit=int(directives["exit"]) if "exit" in directives else None,
                encoding=directives.get("encoding", "utf-8"),
                known_bug=directives.get("known-bug"),
                command=directives.get("command", "check"),
                memory_mib=int(directives["memory"]) if "memory" in directives else None,
                log=log,
            ))
            directives = {}
            i = t1
        i += 1
    return titles, examples


def codes_in_source() -> set[str]:
    """Every diagnostic code written as a string literal in checker/*.py."""
    codes = set()
    for path in CHECKER.rglob("*.py"):
        codes.update(_CODE_LITERAL.findall(path.read_text(encoding="utf-8")))
    return codes


TITLES, EXAMPLES = parse_catalogue(CATALOGUE.read_text(encoding="utf-8"))


def run_example(example: Example, tmp_path, monkeypatch, capsys) -> tuple[int, str]:
    """The example's exit code and standard error, without progress lines: how many a run prints
    depends on how fast the machine is (one every 5 s), not on the error."""
    (tmp_path / "example.spec").write_bytes(example.spec.encode(example.encoding))
    if example.log is not None:
        (tmp_path / "example.ndjson").write_text(example.log, encoding="utf-8")
    if example.memory_mib is not None:  # a MemoryError on demand: a child with little address space
        from tests.fuzzing import run_cli

        outcome = run_cli([example.command, "example.spec", *example.args], tmp_path, example.memory_mib << 20)
        code, err = outcome.code, outcome.stderr
    else:
        monkeypatch.chdir(tmp_path)
        capsys.readouterr()
        code = main([example.command, "example.spec", *example.args])
        err = capsys.readouterr().err
    return code, "".join(line for line in err.splitlines(keepends=True)
                         if not line.startswith("progress: ")).rstrip("\n")


def test_every_code_in_the_source_has_an_entry():
    missing = sorted(codes_in_source() - set(TITLES))
    assert not missing, f"codes used in checker/ but missing from docs/errors.md: {missing}"


def test_every_entry_is_a_code_of_the_source():
    stale = sorted(set(TITLES) - codes_in_source())
    assert not stale, f"docs/errors.md documents codes that checker/ never produces: {stale}"


def test_every_entry_has_an_example():
    without = sorted(set(TITLES) - {e.code for e in EXAMPLES})
    assert not without, f"entries without a ```spec example: {without}"


@pytest.mark.skipif(UPDATE, reason="rewriting docs/errors.md")
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.code}-{e.number}")
def test_example_produces_its_code(example, tmp_path, monkeypatch, capsys):
    code, err = run_example(example, tmp_path, monkeypatch, capsys)
    assert "Traceback" not in err and "internal error" not in err, err
    assert code == example.expected_exit, f"exit code {code}, documented {example.expected_exit}\n{err}"
    assert err == example.text, (
        "the output differs from docs/errors.md; if the change is intended, refresh the catalogue "
        "with TLACHECK_UPDATE_DOCS=1 python -m pytest tests/test_error_catalogue.py")
    if example.known_bug is not None:
        if example.marker not in err:
            pytest.xfail(f"{example.code} is not produced yet: {example.known_bug}")
        pytest.fail(f"{example.code} is produced now: update its entry in docs/errors.md "
                    "(remove the known-bug marker and refresh the text)")
    assert example.marker in err


@pytest.mark.skipif(not UPDATE, reason="set TLACHECK_UPDATE_DOCS=1 to rewrite docs/errors.md")
def test_update_catalogue(tmp_path_factory, monkeypatch, capsys):
    """Rewrite every example's text block with what tlacheck prints today."""
    lines = CATALOGUE.read_text(encoding="utf-8").split("\n")
    for example in sorted(EXAMPLES, key=lambda e: e.text_lines, reverse=True):
        _, err = run_example(example, tmp_path_factory.mktemp(example.code), monkeypatch, capsys)
        start, end = example.text_lines
        lines[start:end] = err.split("\n")
    CATALOGUE.write_text("\n".join(lines), encoding="utf-8")
