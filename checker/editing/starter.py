"""`tlacheck new`: a spec of the user's own, started from the library.

The library is the pattern specs of specs/lib/ (docs/patterns.md) and the property templates
(docs/templates.md). A pattern is a file of specs/lib/ with `expect` lines; its summary is the
sentence after `# Pattern:` in its header comment. A template is a property in the user's words
with an example spec that violates it (the base) and a variant that holds it: its own file in
specs/templates/, or a pattern whose property it is (TEMPLATES below).

The spec written is the library file with its `spec` header renamed, a first comment that says
where it came from, and the constants given set in their declarations; it is checked before it is
returned (every variant type-checks), and it is in the layout of `tlacheck fmt`. It imports
nothing, so it can be written anywhere. The library is found in the installed package
(`tlacheck/library/`, which pyproject.toml fills from specs/) or, in a source checkout, in specs/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from tlacheck.core.errors import UsageError, suggest
from tlacheck.core.files import read_source, shipped
from tlacheck.core.source import Source
from tlacheck.editing.fmt import format_source
from tlacheck.lang import syntax as S
from tlacheck.pipeline.driver import Pipeline


class Kind(Enum):
    PATTERN = "pattern"
    TEMPLATE = "template"


@dataclass(frozen=True)
class Entry:
    """One thing a spec can be started from."""

    kind: Kind
    name: str      # what --pattern or --template takes
    summary: str   # one line: the pattern's mechanism, the template's property in the user's words
    path: str      # the example spec, relative to the library folder
    page: str      # its section in the docs
    check: str | None = None   # a template: the check that states its property
    fixed: str | None = None   # a template: the variant of the example that holds the check


def _template(name: str, summary: str, path: str, anchor: str, check: str, fixed: str) -> Entry:
    return Entry(Kind.TEMPLATE, name, summary, path, f"docs/templates.md#{anchor}", check, fixed)


# The property templates, in the order of docs/templates.md. The base of each example violates
# the check; the variant `fixed` holds it (tests/test_templates.py checks both).
TEMPLATES = (
    _template("every_message_processed", "every accepted message is eventually processed",
              "templates/every_message_processed.spec", "every-accepted-message-is-eventually-processed",
              "EveryAcceptedMessageProcessed", "AckAfterProcessing"),
    _template("no_message_twice_at_once", "no message runs twice at once",
              "templates/no_message_twice_at_once.spec", "no-message-runs-twice-at-once",
              "NoMessageTwiceAtOnce", "RedeliverAfterCrash"),
    _template("reply_delivered", "a reply is always delivered to a waiting requester",
              "templates/reply_delivered.spec", "a-reply-is-always-delivered-to-a-waiting-requester",
              "AnswerDelivered", "FlagPerRun"),
    _template("no_launch_without_guard", "no launch without a passed guard",
              "lib/approval_gate.spec", "no-launch-without-a-passed-guard",
              "NoActionWithoutApproval", "BoundApproval"),
    _template("lease_one_holder", "a lease has at most one holder",
              "lib/lease.spec", "a-lease-has-at-most-one-holder", "NoLostUpdate", "Fenced"),
    _template("cancelled_leaves_nothing", "a cancelled task leaves nothing behind",
              "lib/cancellation.spec", "a-cancelled-task-leaves-nothing-behind",
              "NothingLeftBehind", "ReleaseOnCancel"),
    _template("no_stale_tool_result", "a plan never acts on a tool result older than its read",
              "lib/late_tool_answer.spec", "a-plan-never-acts-on-a-tool-result-older-than-its-read",
              "NoStaleResult", "MatchCallId"),
)

def library_folder() -> Path:
    """Where the library's specs are: the installed package's copy, else the checkout's specs/."""
    folder = shipped("library", "specs", "lib")
    if folder is not None:
        return folder
    raise UsageError("the spec library is not installed (no tlacheck/library/ and no specs/ beside the package)",
                     "reinstall tlacheck")


def _summary(text: str) -> str | None:
    """The sentence after `# Pattern:` in a header comment (up to the first blank comment line),
    without its link to the docs."""
    match = re.search(r"^# Pattern: (.*(?:\n# \S.*)*)", text, re.M)
    if match is None:
        return None
    sentence = " ".join(line.removeprefix("# ").strip() for line in match.group(1).split("\n"))
    return re.sub(r"\s*\(docs/[^)]*\)\.?$", "", sentence).rstrip(".")


def patterns(folder: Path) -> list[Entry]:
    """The patterns of the library: its lib/ files that have `expect` lines and a summary."""
    out = []
    for path in sorted((folder / "lib").glob("*.spec")):
        text = path.read_text(encoding="utf-8")
        summary = _summary(text)
        if summary is not None and re.search(r"^expect ", text, re.M):
            out.append(Entry(Kind.PATTERN, path.stem, summary, f"lib/{path.name}", "docs/patterns.md"))
    return out


def entries(folder: Path) -> list[Entry]:
    """Every pattern, then every template."""
    return patterns(folder) + list(TEMPLATES)


def find(folder: Path, kind: Kind, name: str) -> Entry:
    """The entry of that kind and name (`-` may stand for `_`); a usage error names the nearest."""
    wanted = name.replace("-", "_")
    every = entries(folder)
    known = {e.name: e for e in every if e.kind is kind}
    if wanted in known:
        return known[wanted]
    other = next((e for e in every if e.name == wanted), None)
    if other is not None:
        hint = f"`{wanted}` is a {other.kind.value}: --{other.kind.value} {wanted}"
    else:
        near = suggest(wanted, known) or next((n for n in known if wanted in n), None)
        hint = f"did you mean `{near}`?" if near else "`tlacheck new --list` lists them"
    raise UsageError(f"there is no {kind.value} `{name}`", hint)


def constants(folder: Path, entry: Entry) -> list[tuple[str, str]]:
    """The example's constants with a value, as (name, the value's text): what `new` may set."""
    source = read_source(str(folder / entry.path))
    return [(d.name, _text(source.text, d.default.span)) for d in _consts(Pipeline(), source)]


def spec_name(path: str) -> str:
    """The spec name a file's name suggests: my_jobs.spec -> MyJobs (Spec when nothing is left)."""
    words = re.findall(r"[A-Za-z0-9]+", Path(path).stem)
    name = "".join(w[:1].upper() + w[1:] for w in words)
    if not name or name[0].isdigit():
        name = "Spec" + name
    return name


def start(folder: Path, entry: Entry, name: str, overrides: dict[str, str]) -> str:
    """The text of a new spec `name` from `entry`, the constants in `overrides` set to their `-D`
    value texts (checked as `-D` values are: a UsageError names a bad one). `check_started`
    checks the result."""
    if not name.isidentifier():
        raise UsageError(f"`{name}` cannot name a spec", "a spec's name is a letter or _, then letters, digits or _")
    source = read_source(str(folder / entry.path))
    pipeline = Pipeline()  # the library file parsed once
    tree = pipeline.parse(source)
    if tree.imports:
        raise UsageError(f"{entry.path} imports other files: it cannot be started from alone")
    pipeline.build(source, overrides)  # the values checked where `-D` values are, with the same messages
    text = source.text
    edits = [(d.default.span, overrides[d.name]) for d in _consts(pipeline, source) if d.name in overrides]
    for span, value in sorted(edits, key=lambda e: (e[0].line, e[0].column), reverse=True):
        text = _replace(text, span, value)
    origin = f"# Started with `tlacheck new --{entry.kind.value} {entry.name}`:\n"
    if entry.kind is Kind.TEMPLATE:
        origin += f"# \"{entry.summary}\", stated by `{entry.check}`\n# ({entry.page}).\n"
    else:
        origin += f"# the pattern {tree.name} ({entry.page}).\n"
    header = (f"spec {name}\n\n{origin}"
              "# Check it with `tlacheck check`, and its variants' expectations with `tlacheck verify`.\n")
    text = re.sub(r"^spec \w+\n", lambda _: header, text, count=1, flags=re.M)
    return format_source(Source(source.name, text))


def check_started(source: Source) -> None:
    """Raises the SpecError of the first variant of a started spec (the base first) that does not
    type-check: the spec written is one that `tlacheck check` and `verify` accept."""
    pipeline = Pipeline()  # the spec parsed once for all its variants
    for variant in pipeline.variants(source):
        pipeline.build(source, None, variant)


def _consts(pipeline: Pipeline, source: Source) -> list[S.ConstDecl]:
    return [d for d in pipeline.parse(source).declarations if isinstance(d, S.ConstDecl) and d.default is not None]


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + column - 1


def _text(text: str, span) -> str:
    return text[_offset(text, span.line, span.column):_offset(text, span.end_line, span.end_column)]


def _replace(text: str, span, value: str) -> str:
    return text[:_offset(text, span.line, span.column)] + value + text[_offset(text, span.end_line, span.end_column):]
