"""`tlacheck lsp` (issue 37 item 1), driven by pygls' own LanguageClient over stdio."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import sys

import pytest

pytest.importorskip("pygls", reason="the `lsp` extra is not installed (pip install -e '.[lsp]')")

from lsprotocol import types  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from tlacheck.editing.analysis import TOKEN_MODIFIERS, TOKEN_TYPES  # noqa: E402
from tlacheck.lang.parser import KEYWORDS  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
TYPO = "spec T\n\nvar count: int = 0\n\naction Step:\n    count = cuont + 1\n"

# The shared declarations of SPEC, in a file of their own.
COMMON = """\
# the two workers
const Workers: set[model] = {w1, w2}
enum Phase { idle, busy }
"""

SPEC = """\
spec Jobs

import "common.spec"

# how many jobs may be in flight
const Limit: int = 2 * 2
type Job = {owner: Workers, phase: Phase}

# jobs in flight, by owner
var jobs: map[Workers, int] = {w -> 0 for w in Workers}
var last: Job = {owner: w1, phase: idle}  # the last job started

def total() -> int: sum(jobs[w] for w in Workers)

block start(w: Workers):
    jobs[w] = jobs[w] + 1
    last = {owner: w, phase: busy}

action Begin(w in Workers):
    let room = Limit - total()
    require room > 0
    start(w)

action Finish(w in Workers):
    require jobs[w] > 0
    jobs[w] = jobs[w] - 1
    last = {owner: w, phase: Phase.idle}

process Pinger:
    var pings: int = 0
    ping:
        await pings < 2
        pings = pings + 1
        goto ping

invariant Bounded: total() <= Limit and Pinger.pings <= 2 and last.owner in Workers

fair weak Finish

variant Strict "one job each":
    replace action Begin(w in Workers):
        require jobs[w] == 0 and total() < Limit
        start(w)

expect Strict holds Bounded
"""


def _pos(text: str, needle: str, occurrence: int = 0, offset: int = 0) -> types.Position:
    """The position of the `occurrence`-th `needle` in `text` (plus `offset` characters)."""
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    at += offset
    line = text.count("\n", 0, at)
    return types.Position(line=line, character=at - (text.rfind("\n", 0, at) + 1))


class Session:
    """A `tlacheck lsp` process and pygls' client talking to it over stdio: what the server
    published (by document) and logged."""

    def __init__(self, client: LanguageClient):
        self.client = client
        self.published: dict[str, asyncio.Queue] = {}
        self.every: list[types.Diagnostic] = []  # every diagnostic published, of every document
        self.logged: list[types.LogMessageParams] = []

    def queue(self, uri: str) -> asyncio.Queue:
        return self.published.setdefault(uri, asyncio.Queue())

    async def diagnostics(self, uri: str) -> types.PublishDiagnosticsParams:
        return await asyncio.wait_for(self.queue(uri).get(), 60)

    async def open(self, path: pathlib.Path, text: str) -> tuple[str, types.PublishDiagnosticsParams]:
        uri = path.as_uri()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="tlacheck", version=1, text=text)))
        return uri, await self.diagnostics(uri)

    def change(self, uri: str, version: int, text: str) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    # -- the requests, each with its document and position
    async def hover(self, uri, position):
        return await self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position))

    async def definition(self, uri, position):
        return await self.client.text_document_definition_async(types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position))

    async def references(self, uri, position, declaration=True):
        return await self.client.text_document_references_async(types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position,
            context=types.ReferenceContext(include_declaration=declaration)))

    async def completion(self, uri, position):
        return await self.client.text_document_completion_async(types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position))

    async def symbols(self, uri, position=None):
        return await self.client.text_document_document_symbol_async(types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))

    async def prepare_rename(self, uri, position):
        return await self.client.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position))

    async def rename(self, uri, position, new_name="renamed"):
        return await self.client.text_document_rename_async(types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position, new_name=new_name))

    async def code_actions(self, uri, position, diagnostics=()):
        return await self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=position, end=position),
            context=types.CodeActionContext(diagnostics=list(diagnostics))))

    async def formatting(self, uri, position=None):
        return await self.client.text_document_formatting_async(types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True)))

    async def tokens(self, uri, position=None):
        return await self.client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))


@contextlib.asynccontextmanager
async def session(env: dict[str, str] | None = None):
    client = LanguageClient("tlacheck-test", "1")
    s = Session(client)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        s.queue(params.uri).put_nowait(params)
        s.every += params.diagnostics

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def on_log(params: types.LogMessageParams) -> None:
        s.logged.append(params)

    await client.start_io(sys.executable, "-m", "tlacheck", "lsp", env=env)
    try:
        await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                             root_uri=ROOT.as_uri()))
        client.initialized(types.InitializedParams())
        yield s
        await client.shutdown_async(None)
    finally:
        client.exit(None)  # also after a failure: the server ends, and stop() waits for that
        await client.stop()


def run(scenario, env: dict[str, str] | None = None):
    """Run `scenario(session)` against a fresh server (in the environment `env`, default this
    one's); its result, once checked that the server logged no internal error meanwhile, nor
    published one as a diagnostic."""
    async def go():
        async with session(env) as s:
            result = await scenario(s)
            assert [m.message for m in s.logged if m.type == types.MessageType.Error] == []
            assert [d.message for d in s.every if d.code == "internal"] == []
            return result
    return asyncio.run(go())


def _range(r: types.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def _span_of(text: str, needle: str, occurrence: int = 0, offset: int = 0, length: int | None = None):
    p = _pos(text, needle, occurrence, offset)
    return (p.line, p.character, p.line, p.character + (len(needle) - offset if length is None else length))


# The tests ask one server (its start is most of a session's time): each registers a scenario
# with `on_jobs`, which takes the session, SPEC's uri (open in the folder, beside common.spec)
# and the folder; the `jobs` fixture runs them all and keeps their answers by name.
JOBS: dict = {}


def on_jobs(scenario):
    JOBS[scenario.__name__] = scenario
    return scenario


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """The answers of every `on_jobs` scenario, and the folder of jobs.spec and common.spec."""
    folder = tmp_path_factory.mktemp("jobs")
    (folder / "common.spec").write_text(COMMON, encoding="utf-8")

    async def scenario(s):
        uri, _ = await s.open(folder / "jobs.spec", SPEC)
        return {name: await each(s, uri, folder) for name, each in JOBS.items()}
    return run(scenario), folder


# ---------------------------------------------------------------- diagnostics

@on_jobs
async def typo(s, uri, folder):
    return (await s.open(folder / "typo.spec", TYPO))[1]


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_reports_a_typo_at_its_range(jobs):
    [d] = jobs[0]["typo"].diagnostics
    assert _range(d.range) == _span_of(TYPO, "cuont")
    assert d.code == "E100" and "cuont" in d.message and "hint: did you mean `count`?" in d.message
    assert d.source == "tlacheck" and d.severity == types.DiagnosticSeverity.Error
    assert d.code_description.href == (ROOT / "docs" / "errors.md").as_uri() + "#e100-unknown-name"


@on_jobs
async def fixed(s, uri, folder):
    half, first = await s.open(folder / "fixed.spec", "spec T\n\nvar count: int =\naction (")
    s.change(half, 2, TYPO.replace("cuont", "count"))
    return first, await s.diagnostics(half)


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_a_half_typed_file_then_its_fix(jobs):
    first, fixed = jobs[0]["fixed"]
    # one error per declaration (the parser recovers): the unfinished `var` and the `action`
    assert [(d.severity, d.code, d.range.start.line) for d in first.diagnostics] == [
        (types.DiagnosticSeverity.Error, "E001", 2), (types.DiagnosticSeverity.Error, "E001", 3)]
    assert fixed.version == 2 and list(fixed.diagnostics) == []


SEVERAL = """\
spec Several

var x: int = 0
var on: bool = false
var unread: int = 0

action A:
    x = y + 1

action B:
    require on == flase
    on = not on

invariant Ok: x >= 0

variant Drop:
    remove action A
    replace invariant Ok: x >= 0 and A_done

action Never:
    require 1 > 2
    x = 1
"""
SEVERAL_FIXED = SEVERAL.replace("y + 1", "x + 1").replace("flase", "false")


@on_jobs
async def several(s, uri, folder):
    return ((await s.open(folder / "several.spec", SEVERAL))[1],
            (await s.open(folder / "several_fixed.spec", SEVERAL_FIXED))[1])


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_reports_several_errors_and_warnings_at_once(jobs):
    found = [(d.code, d.severity, _range(d.range)) for d in jobs[0]["several"][0].diagnostics]
    assert found == [("E100", types.DiagnosticSeverity.Error, _span_of(SEVERAL, "y + 1", length=1)),
                     ("E100", types.DiagnosticSeverity.Error, _span_of(SEVERAL, "flase")),
                     ("E100", types.DiagnosticSeverity.Error, _span_of(SEVERAL, "A_done"))]  # the variant's


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_reports_a_variants_errors_the_warnings_and_the_guards_that_never_hold(jobs):
    text = SEVERAL_FIXED
    found = {d.code: d for d in jobs[0]["several"][1].diagnostics}
    assert sorted(found) == ["E100", "W201", "W211"]
    assert "(in variant `Drop`)" in found["E100"].message and "A_done" in found["E100"].message
    assert _range(found["E100"].range) == _span_of(text, "A_done")
    assert found["W201"].severity == types.DiagnosticSeverity.Warning
    assert _range(found["W201"].range) == _span_of(text, "var unread", 0, 4)
    assert found["W211"].severity == types.DiagnosticSeverity.Warning
    assert _range(found["W211"].range) == _span_of(text, "action Never", 0, 7)
    assert found["W211"].code_description.href.endswith("#w211-action-can-never-be-taken")


@on_jobs
async def syntax(s, uri, folder):
    return (await s.open(folder / "syntax.spec", "var x: int = = 0\n\naction A:\n    x = x +\n\ninvariant I: x >= 0 and\n"))[1]


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_a_syntax_error_in_every_declaration(jobs):
    assert [(d.code, d.range.start.line) for d in jobs[0]["syntax"].diagnostics] == [
        ("E001", 0), ("E001", 3), ("E001", 5)]


@on_jobs
async def imported(s, uri, folder):
    (folder / "broken").mkdir()
    (folder / "broken" / "common.spec").write_text(COMMON + "def broken() -> int: nope\n", encoding="utf-8")
    return (await s.open(folder / "broken" / "jobs.spec", SPEC))[1]


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_an_error_in_an_imported_file_is_shown_on_its_import(jobs):
    [d] = jobs[0]["imported"].diagnostics
    assert _range(d.range) == _span_of(SPEC, '"common.spec"')
    assert d.code == "E100" and "common.spec:4:" in d.message and "nope" in d.message
    [related] = d.related_information
    assert related.location.uri == (jobs[1] / "broken" / "common.spec").as_uri()
    assert related.location.range.start.line == 3


# ---------------------------------------------------------------- hover, definition, references

@on_jobs
async def hovers(s, uri, folder):
    return [await s.hover(uri, _pos(SPEC, needle, n, 1)) for needle, n in
            (("jobs[w] = jobs", 0), ("Limit - total", 0), ("room > 0", 0), ("last = {", 0),
             ("Phase.idle", 0), ("pings <= 2", 0), ("sum(jobs", 0))]


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_hover_gives_the_type_the_comment_and_a_constants_value(jobs):
    jobs_, limit, room, last, phase, pings, builtin = [h.contents.value for h in jobs[0]["hovers"]]
    assert builtin.startswith("builtin function `sum`") and "`sum(e for x in S if c)`" in builtin
    assert "var jobs: map[Workers, int] = {w -> 0 for w in Workers}" in jobs_
    assert "type `map[Workers, int]`" in jobs_ and "jobs in flight, by owner" in jobs_
    assert "const Limit: int = 2 * 2" in limit and "value `4`" in limit and "how many jobs may be in flight" in limit
    assert "let room = Limit - total()" in room and "type `int`" in room
    assert "the last job started" in last and "type `{owner: Workers, phase: Phase}`" in last
    assert "enum Phase { idle, busy }" in phase
    assert "var pings: int = 0" in pings and "`Pinger.pings`" in pings


USES = {  # a use -> the declaration it jumps to (in jobs.spec unless said)
    ("jobs[w] = jobs", 0): ("var jobs", 4),                     # a variable
    ("start(w)", 0): ("block start", 6),                        # a block
    ("total() <= Limit", 0): ("def total", 4),                  # a def
    ("Limit - total", 0): ("const Limit", 6),                   # a constant
    ("Finish\n", 0): ("action Finish", 7),                      # an action (from `fair`)
    ("Phase.idle", 0): ("enum Phase", 5, "common"),             # an enum, in the imported file
    ("idle}", 1): ("idle, busy", 0, "common"),                  # an enum member
    ("Phase.idle", 0, 6): ("idle, busy", 0, "common"),          # a member after its enum's name
    ("Pinger.pings <=", 0): ("process Pinger", 8),              # a process
    ("pings <= 2", 0): ("var pings", 4),                        # a process's local
    ("goto ping", 0, 5): ("ping:", 0),                          # a label (from `goto`)
    ("Strict holds", 0): ("variant Strict", 8),                 # a variant (from `expect`)
    ("Bounded\n", 0): ("invariant Bounded", 10),                # a check (from `expect`)
    ("w] = jobs", 0): ("w: Workers", 0),                        # a block's parameter
    ("room > 0", 0): ("let room", 4),                           # a `let`
    ("Workers}", 0): ("const Workers", 6, "common"),            # an imported constant
}


@on_jobs
async def definitions(s, uri, folder):
    out = {}
    for needle, n, *offset in USES:
        out[needle, n, *offset] = await s.definition(uri, _pos(SPEC, needle, n, offset[0] if offset else 0))
    out["import"] = await s.definition(uri, _pos(SPEC, '"common.spec"', 0, 3))
    return out


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_definition_jumps_to_every_kind_of_declaration(jobs):
    found, folder = jobs[0]["definitions"], jobs[1]
    for (needle, n, *offset), (decl, skip, *where) in USES.items():
        text, path = (COMMON, folder / "common.spec") if where else (SPEC, folder / "jobs.spec")
        location = found[needle, n, *offset]
        assert location is not None, needle
        assert location.uri == path.as_uri(), needle
        assert (location.range.start.line, location.range.start.character) == \
            (_pos(text, decl).line, _pos(text, decl).character + skip), needle
    assert found["import"].uri == (folder / "common.spec").as_uri()
    assert (found["import"].range.start.line, found["import"].range.start.character) == (0, 0)


@on_jobs
async def references(s, uri, folder):
    return (await s.references(uri, _pos(SPEC, "jobs[w] > 0", 0, 1)),
            await s.references(uri, _pos(SPEC, "jobs[w] > 0", 0, 1), declaration=False),
            await s.references(uri, _pos(SPEC, "idle}", 1)))


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_references_of_a_variable_and_of_a_member(jobs):
    everywhere, uses, idle = jobs[0]["references"]
    spans = [_span_of(SPEC, "jobs[", n, length=4) for n in range(SPEC.count("jobs["))]
    spans.append(_span_of(SPEC, "var jobs", 0, 4))
    assert sorted(_range(r.range) for r in everywhere) == sorted(spans)
    assert everywhere[0].range.start.line == _pos(SPEC, "var jobs").line  # the declaration first
    assert sorted(_range(r.range) for r in uses) == sorted(spans[:-1])
    assert {r.uri.rsplit("/", 1)[1] for r in idle} == {"jobs.spec", "common.spec"}
    assert len(idle) == 3  # declared, and used twice


@on_jobs
async def highlights(s, uri, folder):
    return await s.client.text_document_document_highlight_async(types.DocumentHighlightParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=_pos(SPEC, "Phase.idle", 0, 7)))


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_document_highlights_are_the_references_in_the_file(jobs):
    # `idle` is declared in common.spec: only its uses in jobs.spec are highlighted
    assert sorted(_range(h.range) for h in jobs[0]["highlights"]) == sorted(
        [_span_of(SPEC, "idle}", 0, length=4), _span_of(SPEC, "Phase.idle", 0, 6)])


@on_jobs
async def saved_and_closed(s, uri, folder):
    """Save an imported file with an error: the spec that imports it shows it; close the spec:
    its diagnostics are cleared."""
    (folder / "lib").mkdir()
    (folder / "lib" / "common.spec").write_text(COMMON, encoding="utf-8")
    spec, before = await s.open(folder / "lib" / "jobs.spec", SPEC)
    common = (folder / "lib" / "common.spec").as_uri()
    (folder / "lib" / "common.spec").write_text(COMMON.replace("idle, busy", "idle, busy, idle"), encoding="utf-8")
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=common)))
    after = await s.diagnostics(spec)
    s.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=spec)))
    return before, after, await s.diagnostics(spec)


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_saving_an_imported_file_and_closing_a_spec(jobs):
    before, after, closed = jobs[0]["saved_and_closed"]
    assert list(before.diagnostics) == []
    [d] = after.diagnostics
    assert d.code == "E101" and _range(d.range) == _span_of(SPEC, '"common.spec"')
    assert list(closed.diagnostics) == []


# ---------------------------------------------------------------- completion, outline, rename

HALF = SPEC.replace("    start(w)\n\naction Finish", "    start(w)\n    ro\n\naction Finish", 1)
AFTER_DOT = SPEC.replace("invariant Bounded: total() <= Limit and Pinger.pings <= 2 and last.owner in Workers",
                         "invariant Bounded: Pinger.")


@on_jobs
async def completions(s, uri, folder):
    half, _ = await s.open(folder / "half.spec", HALF)
    typed = await s.completion(half, _pos(HALF, "    ro\n", 0, 6))
    s.change(half, 2, AFTER_DOT)
    dotted = await s.completion(half, _pos(AFTER_DOT, "Pinger.\n", 0, 7))
    return typed, dotted


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_completion_lists_the_names_in_scope_and_the_keywords(jobs):
    typed, dotted = jobs[0]["completions"]
    labels = [i.label for i in typed.items]
    assert {"room", "w", "jobs", "last", "Limit", "Begin", "Phase", "idle", "Workers", "start", "total"} <= set(labels)
    assert labels.index("room") < labels.index("jobs")  # the innermost first
    assert "pings" not in labels  # a process's local, outside it
    assert {"require", "let", "action", "sum", "len"} <= set(labels)
    kinds = {i.label: i.kind for i in typed.items}
    assert kinds["jobs"] == types.CompletionItemKind.Variable and kinds["require"] == types.CompletionItemKind.Keyword
    assert KEYWORDS <= set(labels)
    assert [i.label for i in dotted.items] == ["pings"]


@on_jobs
async def outline(s, uri, folder):
    return await s.symbols(uri)


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_document_symbols_are_the_outline(jobs):
    outline = jobs[0]["outline"]
    assert [(o.name, o.kind) for o in outline] == [
        ("common.spec", types.SymbolKind.File), ("Limit", types.SymbolKind.Constant),
        ("Job", types.SymbolKind.Struct), ("jobs", types.SymbolKind.Variable), ("last", types.SymbolKind.Variable),
        ("total", types.SymbolKind.Function), ("start", types.SymbolKind.Function),
        ("Begin", types.SymbolKind.Function), ("Finish", types.SymbolKind.Function),
        ("Pinger", types.SymbolKind.Class), ("Bounded", types.SymbolKind.Property),
        ("Strict", types.SymbolKind.Namespace)]
    by_name = {o.name: o for o in outline}
    assert [(c.name, c.kind) for c in by_name["Pinger"].children] == [
        ("pings", types.SymbolKind.Variable), ("ping", types.SymbolKind.Event)]
    assert [c.name for c in by_name["Strict"].children] == ["Begin"]
    begin = by_name["Begin"]
    assert _range(begin.selection_range) == _span_of(SPEC, "action Begin", 0, 7)
    assert (begin.range.start.line, begin.range.end.line) == (_pos(SPEC, "action Begin").line,
                                                               _pos(SPEC, "    start(w)\n\naction Finish").line)


@on_jobs
async def renames(s, uri, folder):
    at = _pos(SPEC, "Phase.idle")
    prepared = await s.prepare_rename(uri, at)
    edit = await s.rename(uri, at, "Stage")
    refused = []
    for name in ("action", "2x", "Workers"):
        try:
            await s.rename(uri, at, name)
        except JsonRpcException as exc:
            refused.append(exc.message)
    path_prepared = await s.prepare_rename(uri, _pos(SPEC, '"common.spec"', 0, 2))
    return prepared, edit, refused, path_prepared


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_rename_edits_every_use_across_files(jobs):
    (prepared, edit, refused, path_prepared), folder = jobs[0]["renames"], jobs[1]
    assert _range(prepared) == _span_of(SPEC, "Phase.idle", length=5)
    spec_edits = edit.changes[(folder / "jobs.spec").as_uri()]
    common_edits = edit.changes[(folder / "common.spec").as_uri()]
    assert sorted(_range(e.range) for e in spec_edits) == sorted(
        _span_of(SPEC, "Phase", n) for n in range(SPEC.count("Phase")))
    assert [_range(e.range) for e in common_edits] == [_span_of(COMMON, "Phase")]
    assert {e.new_text for e in spec_edits + common_edits} == {"Stage"}
    assert len(refused) == 3 and "is not a name" in refused[0] and "is not a name" in refused[1]
    assert "`Workers` is already declared at" in refused[2]
    assert path_prepared is None


# ---------------------------------------------------------------- code actions

# One spec for each place of the front end that gives a did-you-mean hint: the misspelt name,
# the name the hint offers, and the spec around them.
HINTED = {
    "type": ("Phse", "Phase", "enum Phase { idle, busy }\nvar p: Phse = idle\naction A:\n    p = busy\n"),
    "actor": ("tt", "t", "const T: set[model] = {t1}\nvar x: int = 0\naction A(t in T) by tt:\n    x = 1\n"),
    "fair": ("Stepp", "Step", "var x: int = 0\naction Step:\n    x = 1 - x\nfair weak Stepp\n"),
    "conform": ("Stepp", "Step", 'var x: int = 0\naction Step:\n    x = 1 - x\nconform:\n    event "e" = Stepp\n'),
    "block": ("bumpp", "bump", "var x: int = 0\nblock bump(k: int):\n    x = k\naction A:\n    bumpp(1)\n"),
    "assigned": ("cuont", "count", "var count: int = 0\naction A:\n    cuont = 1\n"),
    "assigned field": ("phas", "phase", "var r: {phase: int} = {phase: 0}\naction A:\n    r.phas = 1\n"),
    "name": ("cuont", "count", "var count: int = 0\naction A:\n    count = cuont + 1\n"),
    "literal": ("True", "true", "var b: bool = false\naction A:\n    b = True\n"),
    "member": ("idel", "idle", "enum Phase { idle, busy }\nvar p: Phase = idle\naction A:\n    p = Phase.idel\n"),
    "field": ("phas", "phase", "var r: {phase: int} = {phase: 0}\naction A:\n    r.phase = 1\n"
                               "invariant I: r.phas >= 0\n"),
    "function": ("doubel", "double", "def double(k: int) -> int: 2 * k\nvar x: int = 0\naction A:\n"
                                     "    x = doubel(1)\n"),
    "enabled": ("Stepp", "Step", "var x: int = 0\naction Step:\n    x = 1 - x\n"
                                 "property P: always (enabled(Stepp) or not enabled(Step))\n"),
    "expect": ("Fixx", "Fix", "var x: int = 0\naction A:\n    x = 1\nvariant Fix:\n    replace action A:\n"
                              "        x = 0\nexpect Fixx holds\n"),
    "extend": ("Stepp", "Step", "var x: int = 0\naction Step:\n    x = 1 - x\nvariant Fix:\n"
                                "    extend action Stepp:\n        before:\n            require x == 0\n"),
    "conform word": ("evnt", "event", 'var x: int = 0\naction Step:\n    x = 1 - x\nconform:\n    evnt "e" = Step\n'),
}


@on_jobs
async def quick_fixes(s, uri, folder):
    out = {}
    for i, (site, (wrong, right, text)) in enumerate(HINTED.items()):
        hint, published = await s.open(folder / f"hint{i}.spec", text)
        hinted = [d for d in published.diagnostics if f"did you mean `{right}`?" in d.message]
        at = _pos(text, wrong, text.count(wrong) - 1)
        out[site] = hinted, await s.code_actions(hint, at, hinted)
    return out


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_every_did_you_mean_hint_is_a_quick_fix(jobs):
    for site, (hinted, actions) in jobs[0]["quick_fixes"].items():
        wrong, right, text = HINTED[site]
        assert hinted, site
        [action] = actions
        assert action.title == f"Change to `{right}`" and action.kind == types.CodeActionKind.QuickFix, site
        assert action.diagnostics[0].code == hinted[0].code, site
        [(uri, [edit])] = action.edit.changes.items()
        assert edit.new_text == right, site
        assert _range(edit.range) == _span_of(text, wrong, text.count(wrong) - 1), site
        lines = text.split("\n")
        line = lines[edit.range.start.line]
        lines[edit.range.start.line] = line[:edit.range.start.character] + right + line[edit.range.end.character:]
        assert f"did you mean `{right}`" not in "\n".join(lines), site


# ---------------------------------------------------------------- formatting, highlighting

MESSY = "spec T\n\n\n\nvar  count:int=0 # how many\n\naction Step :\n  count=count+1\n\n\n"


@on_jobs
async def formatting(s, uri, folder):
    return (await s.formatting((await s.open(folder / "messy.spec", MESSY))[0]),
            await s.formatting((await s.open(folder / "formatted.spec", TYPO))[0]),
            await s.formatting((await s.open(folder / "unparsed.spec", "var x: int = = 0\n"))[0]))


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_formatting_returns_the_fmt_edit(jobs):
    messy = MESSY
    edits, formatted, broken = jobs[0]["formatting"]
    [edit] = edits
    assert edit.new_text == "spec T\n\nvar count: int = 0  # how many\n\naction Step:\n    count = count + 1\n"
    assert _range(edit.range) == (0, 0, messy.count("\n"), 0)
    assert len(formatted) == 0  # already in the layout (a typo is no syntax error)
    assert broken is None  # a spec that does not parse is not formatted


def _decode(data) -> list[tuple[int, int, int, str, set[str]]]:
    out, line, start = [], 0, 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, mods = data[i:i + 5]
        line += delta_line
        start = start + delta_start if delta_line == 0 else delta_start
        out.append((line, start, length, TOKEN_TYPES[kind], {m for b, m in enumerate(TOKEN_MODIFIERS) if mods >> b & 1}))
    return out


@on_jobs
async def tokens(s, uri, folder):
    return await s.tokens(uri)


@pytest.mark.xdist_group("lsp_jobs")
def test_issue_37_lsp_semantic_tokens_colour_names_by_what_they_are(jobs):
    tokens = {(line, start): (length, kind, mods) for line, start, length, kind, mods in _decode(jobs[0]["tokens"].data)}

    def at(needle, n=0, offset=0):
        p = _pos(SPEC, needle, n, offset)
        return tokens[p.line, p.character]

    assert at("var jobs", 0, 4) == (4, "variable", {"declaration"})
    assert at("Limit - total") == (5, "variable", {"readonly"})
    assert at("Phase.idle") == (5, "enum", set())
    assert at("Phase.idle", 0, 6) == (4, "enumMember", {"readonly"})
    assert at("start(w)\n\naction Finish")[1] == "function"
    assert at("goto ping", 0, 5) == (4, "label", set())
    assert at("sum(") == (3, "function", {"defaultLibrary"})
    assert at("action Begin") == (6, "keyword", set())
    assert at("# how many") == (len("# how many jobs may be in flight"), "comment", set())
    assert at('"common.spec"') == (13, "string", set())
    assert at("2 * 2") == (1, "number", set())
    assert at("w in Workers", 1) == (1, "parameter", {"declaration"})


# ---------------------------------------------------------------- robustness

REQUESTS = ("hover", "definition", "references", "completion", "symbols", "prepare_rename", "code_actions",
            "formatting", "tokens")


def test_issue_37_lsp_a_spec_typed_character_by_character_never_fails_a_request(tmp_path):
    """Type SPEC one character at a time (each change a new version); after each, one request
    in turn at the cursor. Every request gets an answer (no error response), the server logs no
    internal error, and the last text's diagnostics are those of SPEC: none."""
    async def scenario(s):
        (tmp_path / "common.spec").write_text(COMMON, encoding="utf-8")
        uri, _ = await s.open(tmp_path / "jobs.spec", "")
        answers = []
        for n in range(1, len(SPEC) + 1):
            text = SPEC[:n]
            s.change(uri, n + 1, text)
            cursor = types.Position(line=text.count("\n"), character=n - text.rfind("\n") - 1)  # its end
            request = getattr(s, REQUESTS[n % len(REQUESTS)])
            answers.append(await request(uri, cursor))
        last = await s.diagnostics(uri)
        while last.version != len(SPEC) + 1:  # the last change's come once the typing pauses
            last = await s.diagnostics(uri)
        return answers, last

    answers, last = run(scenario)
    assert len(answers) == len(SPEC)
    assert last.version == len(SPEC) + 1 and list(last.diagnostics) == []



ODD = {  # texts an editor may hold, each with its own trouble
    "empty": "",
    "blank lines": "\n\n\n",
    "a header alone": "spec",
    "a bad character": "var x: int = 0 $\naction A:\n    x = 1\n",
    "tabs and CRLF": "var x: int = 0\r\naction A:\r\n\tx = 1\r\n",
    "a bad dedent": "action A:\n        skip\n    skip\n",
    "an open string": 'conform:\n    event "e\n',
    "deep brackets": "invariant I: " + "(" * 300 + "true" + ")" * 300 + "\n",
    "deep blocks": "var x: int = 0\naction A:\n" + "".join("    " * i + "    if x == 0:\n" for i in range(120))
                   + "    " * 121 + "x = 1\n",
    "a huge number": "const N: int = " + "9" * 5000 + "\nvar x: int = 0\naction A:\n    x = N\n",
    "a name everywhere": "var var: int = 0\naction action:\n    action = 1\n",
}


def test_issue_37_lsp_odd_texts_get_every_answer(tmp_path):
    """Every request at the start, the middle and the end of texts that break the front end in
    different ways: every one answered, nothing logged."""
    async def scenario(s):
        count = 0
        for i, text in enumerate(ODD.values()):
            uri, _ = await s.open(tmp_path / f"odd{i}.spec", text)
            lines = text.split("\n")
            for line in (0, len(lines) // 2, len(lines) - 1):
                for character in (0, len(lines[line]) // 2, len(lines[line])):
                    for request in REQUESTS:
                        await getattr(s, request)(uri, types.Position(line=line, character=character))
                        count += 1
        return count

    assert run(scenario) == sum(len(REQUESTS) * 9 for _ in ODD)


def test_issue_37_lsp_positions_are_in_utf16_code_units(tmp_path):
    """A character beyond the Basic Multilingual Plane is two UTF-16 units: the positions the
    server sends and reads after one on the same line count it so."""
    text = 'var x: int = 0\naction Step:\n    x = 1 - x\nconform:\n    event "\U0001F600" = Step\n'

    async def scenario(s):
        uri, _ = await s.open(tmp_path / "emoji.spec", text)
        after = types.Position(line=4, character=len('    event "') + 2 + len('" = '))
        return await s.references(uri, types.Position(line=1, character=8)), await s.hover(uri, after)

    references, hovered = run(scenario)
    assert sorted(_range(r.range) for r in references) == [(1, 7, 1, 11), (4, 17, 4, 21)]
    assert _range(hovered.range) == (4, 17, 4, 21) and "action Step" in hovered.contents.value


def test_issue_37_lsp_links_to_the_error_catalogue_of_the_installed_package(tmp_path):
    """An installed tlacheck has no docs/ of a checkout beside it: the catalogue its codes link
    to ships in the package (the links were missing once installed)."""
    from tests.conftest import installed_copy

    site = installed_copy(tmp_path / "site")
    assert not (site / "docs").exists()

    async def scenario(s):
        return (await s.open(tmp_path / "typo.spec", TYPO))[1]

    [d] = run(scenario, env={**os.environ, "PYTHONPATH": str(site)}).diagnostics
    assert d.code == "E100"
    assert d.code_description.href == (site / "tlacheck" / "docs" / "errors.md").as_uri() + "#e100-unknown-name"
