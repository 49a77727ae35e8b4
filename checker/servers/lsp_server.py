"""`tlacheck lsp`: a Language Server Protocol server over stdio (needs the `lsp` extra, pygls).

What it serves so far: diagnostics as the text changes (the errors of the front end: parse,
names, types, static checks; each with its code, linked to docs/errors.md) and whole-document
formatting (editing/fmt.py). Any failure of the front end on a half-typed text becomes a
diagnostic, never a crash of the server.
"""

from __future__ import annotations

import pathlib
import re
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from tlacheck import __version__
from tlacheck.core.errors import Diagnostic, SpecError, TlacheckError
from tlacheck.core.source import Source
from tlacheck.editing.fmt import format_source
from tlacheck.pipeline.driver import build_model

ERRORS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def _error_links() -> dict[str, str]:
    """Each code's link into the error catalogue: `## E001 unexpected token` -> ...#e001-unexpected-token."""
    if not ERRORS.is_file():
        return {}
    links = {}
    for line in ERRORS.read_text(encoding="utf-8").splitlines():
        m = re.match(r"## ([EW]\d{3}) (.*)", line)
        if m:
            slug = re.sub(r"[^a-z0-9 -]", "", line[3:].lower()).replace(" ", "-")
            links[m.group(1)] = f"{ERRORS.as_uri()}#{slug}"
    return links


_LINKS = _error_links()


def _path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def diagnostics(source: Source) -> list[Diagnostic]:
    """The diagnostics of the front end on this text (the first error of each stage)."""
    try:
        build_model(source)
    except SpecError as exc:
        return list(exc.diagnostics)
    except TlacheckError as exc:
        return [Diagnostic("error", str(exc), None)]
    except Exception as exc:  # a half-typed text must never take the server down
        return [Diagnostic("internal", f"internal error: {type(exc).__name__}: {exc}", None)]
    return []


def _range(d: Diagnostic) -> types.Range:
    s = d.span
    if s is None:
        return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    end_column = s.end_column if (s.end_line, s.end_column) > (s.line, s.column) else s.column + 1
    return types.Range(start=types.Position(line=s.line - 1, character=s.column - 1),
                       end=types.Position(line=s.end_line - 1, character=end_column - 1))


def to_lsp(d: Diagnostic, path: str) -> types.Diagnostic | None:
    if d.span is not None and d.span.file != path:
        return None  # in an imported file: reported when that file is open
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    severity = types.DiagnosticSeverity.Warning if d.severity == "warning" else types.DiagnosticSeverity.Error
    link = _LINKS.get(d.code)
    return types.Diagnostic(range=_range(d), message=message, severity=severity, code=d.code, source="tlacheck",
                            code_description=types.CodeDescription(href=link) if link else None)


def build_server() -> LanguageServer:
    server = LanguageServer("tlacheck", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)

    def publish(ls: LanguageServer, uri: str) -> None:
        doc = ls.workspace.get_text_document(uri)
        path = _path(uri)
        found = [to_lsp(d, path) for d in diagnostics(Source(path, doc.source))]
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=doc.version, diagnostics=[d for d in found if d is not None]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: LanguageServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        try:
            text = format_source(Source(_path(params.text_document.uri), doc.source))
        except SpecError:
            return None  # a spec that does not parse is not formatted (its diagnostics say why)
        if text == doc.source:
            return []
        lines = doc.source.split("\n")
        end = types.Position(line=len(lines) - 1, character=len(lines[-1]))
        return [types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=end), new_text=text)]

    return server


def serve() -> None:
    build_server().start_io()
