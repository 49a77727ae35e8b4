"""`tlacheck lsp` (issue 37 item 1), driven by pygls' own LanguageClient over stdio."""

from __future__ import annotations

import asyncio
import pathlib
import sys

import pytest

pytest.importorskip("pygls", reason="the `lsp` extra is not installed (pip install -e '.[lsp]')")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
TYPO = "spec T\n\nvar count: int = 0\n\naction Step:\n    count = cuont + 1\n"


def _session(path: pathlib.Path, text: str, body=None):
    """Start `tlacheck lsp`, initialise, open `text` as `path`; return the first diagnostics
    published and what body(client, uri) returns."""
    async def run():
        client = LanguageClient("tlacheck-test", "1")
        published: asyncio.Queue = asyncio.Queue()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            published.put_nowait(params)

        await client.start_io(sys.executable, "-m", "tlacheck", "lsp")
        try:
            await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                                 root_uri=ROOT.as_uri()))
            client.initialized(types.InitializedParams())
            uri = path.as_uri()
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="tlacheck", version=1, text=text)))
            first = await asyncio.wait_for(published.get(), 60)
            more = await body(client, uri, published) if body else None
            await client.shutdown_async(None)
            client.exit(None)
        finally:
            await client.stop()
        return first, more
    return asyncio.run(run())


def test_issue_37_lsp_reports_a_typo_at_its_range(tmp_path):
    first, _ = _session(tmp_path / "t.spec", TYPO)
    [d] = first.diagnostics
    line = TYPO.split("\n").index("    count = cuont + 1")
    column = TYPO.split("\n")[line].index("cuont")
    assert (d.range.start.line, d.range.start.character) == (line, column)
    assert (d.range.end.line, d.range.end.character) == (line, column + len("cuont"))
    assert d.code.startswith("E") and "cuont" in d.message
    assert d.code_description.href.startswith((ROOT / "docs" / "errors.md").as_uri() + "#" + d.code.lower())


def test_issue_37_lsp_a_half_typed_file_then_its_fix(tmp_path):
    async def body(client, uri, published):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=TYPO.replace("cuont", "count"))]))
        return await asyncio.wait_for(published.get(), 60)

    first, fixed = _session(tmp_path / "t.spec", "spec T\n\nvar count: int =\naction (", body)
    # one error per declaration (the parser recovers): the unfinished `var` and the `action`
    assert [(d.severity, d.range.start.line) for d in first.diagnostics] == [
        (types.DiagnosticSeverity.Error, 2), (types.DiagnosticSeverity.Error, 3)]
    assert list(fixed.diagnostics) == []


def test_issue_37_lsp_formatting_returns_the_fmt_edit(tmp_path):
    messy = TYPO.replace("cuont", "count").replace("\n\n", "\n\n\n\n") + "\n\n"

    async def body(client, uri, published):
        return await client.text_document_formatting_async(types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True)))

    _, edits = _session(tmp_path / "t.spec", messy, body)
    [edit] = edits
    assert edit.new_text == TYPO.replace("cuont", "count")
    assert (edit.range.start.line, edit.range.start.character) == (0, 0)
    assert edit.range.end.line == messy.count("\n")
