"""`tlacheck lsp`: a Language Server Protocol server over stdio (needs the `lsp` extra, pygls).

It speaks the protocol and nothing else: what it answers comes from editing/analysis.py (the
problems of a spec and the index of its names) and editing/fmt.py (the layout). It serves

- diagnostics as the text changes (parse, name, type and static-check errors and warnings,
  several at once, each with its code linked to docs/errors.md; published once the typing
  pauses for DEBOUNCE_S, at once on opening and saving);
- hover, go to definition, find references, rename (with prepareRename), completion (names in
  scope, builtins, keywords; `P.` and `E.` give a process's locals and an enum's members),
  document symbols (the outline), semantic tokens, code actions (each did-you-mean hint as a
  quick fix) and whole-document formatting.

Nothing a text holds can stop it: every request is answered, an internal error included (then
with an empty answer, the traceback logged to the editor with window/logMessage). Positions
follow the encoding the client and server agree on (UTF-16 by default); the front end counts
characters.
"""

from __future__ import annotations

import asyncio
import functools
import os
import pathlib
import re
import traceback
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from tlacheck import __version__
from tlacheck.core.errors import TlacheckError
from tlacheck.core.files import doc, read_source
from tlacheck.core.source import Source, Span
from tlacheck.editing import analysis as A
from tlacheck.editing.fmt import format_source
from tlacheck.pipeline.driver import build_model

ERRORS = doc("errors.md")  # the catalogue the package ships (None: not installed)

# How long the typing must pause before a changed text's diagnostics are published.
DEBOUNCE_S = 0.25


def _error_links() -> dict[str, str]:
    """Each code's link into the error catalogue: `## E001 unexpected token` -> ...#e001-unexpected-token."""
    if ERRORS is None:
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


def _uri(file: str) -> str:
    return pathlib.Path(os.path.abspath(file)).as_uri()


_COMPLETION_KINDS = {
    "constant": types.CompletionItemKind.Constant, "variable": types.CompletionItemKind.Variable,
    "local": types.CompletionItemKind.Variable, "let": types.CompletionItemKind.Variable,
    "parameter": types.CompletionItemKind.Variable,
    "enum": types.CompletionItemKind.Enum, "member": types.CompletionItemKind.EnumMember,
    "action": types.CompletionItemKind.Function, "def": types.CompletionItemKind.Function,
    "block": types.CompletionItemKind.Function, "builtin": types.CompletionItemKind.Function,
    "type": types.CompletionItemKind.Struct, "process": types.CompletionItemKind.Module,
    "variant": types.CompletionItemKind.Module, "label": types.CompletionItemKind.Reference,
    "keyword": types.CompletionItemKind.Keyword,
}
_SYMBOL_KINDS = {
    "constant": types.SymbolKind.Constant, "variable": types.SymbolKind.Variable,
    "local": types.SymbolKind.Variable, "enum": types.SymbolKind.Enum, "member": types.SymbolKind.EnumMember,
    "action": types.SymbolKind.Function, "def": types.SymbolKind.Function, "block": types.SymbolKind.Function,
    "type": types.SymbolKind.Struct, "process": types.SymbolKind.Class, "variant": types.SymbolKind.Namespace,
    "label": types.SymbolKind.Event, "file": types.SymbolKind.File, "refines": types.SymbolKind.Interface,
}
_LEGEND = types.SemanticTokensLegend(token_types=list(A.TOKEN_TYPES), token_modifiers=list(A.TOKEN_MODIFIERS))


class _Server(LanguageServer):
    """The language server and what it keeps of each open document: its last analysis, by text."""

    def __init__(self) -> None:
        super().__init__("tlacheck", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.analyses: dict[str, tuple[str, A.Analysis]] = {}
        self.tickets: dict[str, int] = {}

    def analysis(self, uri: str) -> A.Analysis:
        text = self.workspace.get_text_document(uri).source
        cached = self.analyses.get(uri)
        if cached is None or cached[0] != text:
            cached = (text, A.analyse(Source(_path(uri), text)))
            self.analyses[uri] = cached
        return cached[1]

    # -- positions: the front end's 1-based characters, the protocol's 0-based code units
    def lines(self, file: str) -> list[str]:
        """The lines of a file as the editor has it (open) or as the disk does."""
        uri = _uri(file)
        if uri in self.workspace.text_documents:
            return list(self.workspace.get_text_document(uri).lines)
        try:
            return read_source(file).text.splitlines(keepends=True)
        except TlacheckError:
            return []

    def where(self, uri: str, position: types.Position) -> tuple[int, int]:
        at = self.workspace.get_text_document(uri).position_from_client_units(position)
        return at.line + 1, at.character + 1

    def range(self, span: Span, lines: list[str] | None = None, whole: bool = False) -> types.Range:
        """A span as a range of its file (unless `whole`, a span of several lines is its first
        line, from where it starts: what a diagnostic underlines; an empty one is one character)."""
        lines = self.lines(span.file) if lines is None else lines
        end_line, end_column = span.end_line, span.end_column

        def text(n: int) -> str:
            return lines[n - 1].rstrip("\r\n") if 0 < n <= len(lines) else ""

        if whole:  # a block's span ends where the next token starts: end it after its last line's text
            while end_line > span.line and not text(end_line)[:end_column - 1].strip():
                end_line -= 1
                end_column = len(text(end_line)) + 1
        elif end_line != span.line:
            end_line, end_column = span.line, max(len(text(span.line)) + 1, span.column + 1)
        elif end_column <= span.column:
            end_column = span.column + 1
        server = types.Range(start=types.Position(line=span.line - 1, character=span.column - 1),
                             end=types.Position(line=end_line - 1, character=end_column - 1))
        return self.workspace.position_codec.range_to_client_units(lines, server) if lines else server

    def location(self, span: Span) -> types.Location:
        return types.Location(uri=_uri(span.file), range=self.range(span))

    # -- diagnostics
    def diagnostic(self, problem: A.Problem, lines: list[str]) -> types.Diagnostic:
        d = problem.diagnostic
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        severity = types.DiagnosticSeverity.Warning if d.severity == "warning" else types.DiagnosticSeverity.Error
        link = _LINKS.get(d.code)
        related = None
        if problem.origin is not None:
            related = [types.DiagnosticRelatedInformation(location=self.location(problem.origin),
                                                          message="the problem is here")]
        return types.Diagnostic(range=self.range(d.span, lines), message=message, severity=severity,
                                code=d.code or None, source="tlacheck",
                                code_description=types.CodeDescription(href=link) if link else None,
                                related_information=related)

    def publish(self, uri: str) -> None:
        if uri not in self.workspace.text_documents:
            return
        doc = self.workspace.get_text_document(uri)
        analysis = self.analysis(uri)
        lines = list(doc.lines)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=doc.version, diagnostics=[self.diagnostic(p, lines) for p in analysis.problems]))

    async def refresh(self, uri: str, delay: float) -> None:
        """Publish a document's diagnostics once no newer change came for `delay` seconds."""
        ticket = self.tickets[uri] = self.tickets.get(uri, 0) + 1
        if delay:
            await asyncio.sleep(delay)
        if self.tickets.get(uri) == ticket:
            self.publish(uri)

    def failed(self, what: str) -> None:
        self.window_log_message(types.LogMessageParams(
            type=types.MessageType.Error, message=f"tlacheck lsp: internal error in {what}:\n{traceback.format_exc()}"))


def _answering(default=None):
    """A handler that answers `default` (and logs the traceback) if it fails: a bug must cost one
    answer, never the session. A JsonRpcException (a refusal the protocol defines) goes through."""
    def wrap(handler):
        @functools.wraps(handler)
        def guarded(ls: _Server, params):
            try:
                return handler(ls, params)
            except JsonRpcException:
                raise
            except Exception:
                ls.failed(handler.__name__)
                return default
        return guarded
    return wrap


def build_server() -> LanguageServer:
    server = _Server()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: _Server, params: types.DidOpenTextDocumentParams) -> None:
        await _refreshing(ls, params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: _Server, params: types.DidChangeTextDocumentParams) -> None:
        await _refreshing(ls, params.text_document.uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: _Server, params: types.DidSaveTextDocumentParams) -> None:
        ls.analyses.clear()  # a saved file may be imported, or refined, by another open one
        saved = params.text_document.uri
        for uri in [saved] + [u for u in ls.workspace.text_documents if u != saved]:
            await _refreshing(ls, uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: _Server, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.analyses.pop(uri, None)
        ls.tickets.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @_answering()
    def hover(ls: _Server, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        found = A.hover(ls.analysis(uri), *ls.where(uri, params.position))
        if found is None:
            return None
        span, text = found
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                           range=ls.range(span))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @_answering()
    def definition(ls: _Server, params: types.DefinitionParams) -> types.Location | None:
        uri = params.text_document.uri
        span = A.definition(ls.analysis(uri), *ls.where(uri, params.position))
        return ls.location(span) if span is not None else None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @_answering([])
    def references(ls: _Server, params: types.ReferenceParams) -> list[types.Location]:
        uri = params.text_document.uri
        spans = A.references(ls.analysis(uri), *ls.where(uri, params.position), params.context.include_declaration)
        return [ls.location(s) for s in spans]

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    @_answering([])
    def highlight(ls: _Server, params: types.DocumentHighlightParams) -> list[types.DocumentHighlight]:
        uri = params.text_document.uri
        path = _path(uri)
        spans = A.references(ls.analysis(uri), *ls.where(uri, params.position))
        return [types.DocumentHighlight(range=ls.range(s)) for s in spans if s.file == path]

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["."]))
    @_answering(types.CompletionList(is_incomplete=False, items=[]))
    def completion(ls: _Server, params: types.CompletionParams) -> types.CompletionList:
        uri = params.text_document.uri
        words = A.completions(ls.analysis(uri), *ls.where(uri, params.position))
        return types.CompletionList(is_incomplete=False, items=[
            types.CompletionItem(label=w.label, kind=_COMPLETION_KINDS.get(w.kind, types.CompletionItemKind.Property),
                                 detail=w.detail or None, sort_text=f"{i:04d}")
            for i, w in enumerate(words)])

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_answering([])
    def document_symbols(ls: _Server, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        uri = params.text_document.uri
        lines = list(ls.workspace.get_text_document(uri).lines)

        def symbol(o: A.Outline) -> types.DocumentSymbol:
            name_range = ls.range(o.span, lines)
            extent = ls.range(o.extent, lines, whole=True)
            if (extent.end.line, extent.end.character) < (name_range.end.line, name_range.end.character):
                extent = types.Range(start=extent.start, end=name_range.end)
            return types.DocumentSymbol(name=o.name, kind=_SYMBOL_KINDS.get(o.kind, types.SymbolKind.Property),
                                        detail=o.detail, range=extent, selection_range=name_range,
                                        children=[symbol(c) for c in o.children])
        return [symbol(o) for o in A.outline(ls.analysis(uri))]

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @_answering()
    def prepare_rename(ls: _Server, params: types.PrepareRenameParams) -> types.Range | None:
        uri = params.text_document.uri
        found = A.symbol_at(ls.analysis(uri), *ls.where(uri, params.position))
        if found is None or found[1].kind == "file":
            return None
        return ls.range(found[0])

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    @_answering()
    def rename(ls: _Server, params: types.RenameParams) -> types.WorkspaceEdit | None:
        uri = params.text_document.uri
        try:
            places = A.rename(ls.analysis(uri), *ls.where(uri, params.position), params.new_name)
        except A.RenameRefused as exc:
            raise JsonRpcException(str(exc), code=types.LSPErrorCodes.RequestFailed) from None
        return types.WorkspaceEdit(changes={
            _uri(file): [types.TextEdit(range=ls.range(s), new_text=params.new_name) for s in spans]
            for file, spans in places.items()})

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    @_answering([])
    def code_actions(ls: _Server, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        analysis = ls.analysis(uri)
        lines = list(ls.workspace.get_text_document(uri).lines)
        asked = params.range
        actions = []
        for problem in analysis.problems:
            shown = ls.diagnostic(problem, lines)
            if (shown.range.end.line, shown.range.end.character) < (asked.start.line, asked.start.character) or \
                    (shown.range.start.line, shown.range.start.character) > (asked.end.line, asked.end.character):
                continue
            for name, span in A.quick_fixes(analysis.source, problem.diagnostic):
                actions.append(types.CodeAction(
                    title=f"Change to `{name}`", kind=types.CodeActionKind.QuickFix, diagnostics=[shown],
                    is_preferred=True,
                    edit=types.WorkspaceEdit(changes={
                        uri: [types.TextEdit(range=ls.range(span, lines), new_text=name)]})))
        return actions

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    @_answering()
    def formatting(ls: _Server, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        try:
            text = format_source(Source(_path(params.text_document.uri), doc.source))
        except TlacheckError:
            return None  # a spec that does not parse is not formatted (its diagnostics say why)
        if text == doc.source:
            return []
        lines = list(doc.lines)
        return [types.TextEdit(range=types.Range(start=types.Position(line=0, character=0),
                                                 end=_end_of(ls, lines, len(lines))), new_text=text)]

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, _LEGEND)
    @_answering(types.SemanticTokens(data=[]))
    def semantic_tokens(ls: _Server, params: types.SemanticTokensParams) -> types.SemanticTokens:
        uri = params.text_document.uri
        lines = list(ls.workspace.get_text_document(uri).lines)
        units = ls.workspace.position_codec.client_num_units
        data: list[int] = []
        last_line, last_start = 0, 0
        for line, column, length, kind, modifiers in A.highlights(ls.analysis(uri)):
            text = lines[line - 1] if line <= len(lines) else ""
            start = units(text[:column - 1])
            size = units(text[column - 1:column - 1 + length])
            delta_line = line - 1 - last_line
            data += [delta_line, start - last_start if delta_line == 0 else start, size,
                     A.TOKEN_TYPES.index(kind), sum(1 << A.TOKEN_MODIFIERS.index(m) for m in modifiers)]
            last_line, last_start = line - 1, start
        return types.SemanticTokens(data=data)

    return server


async def _refreshing(ls: _Server, uri: str, delay: float) -> None:
    try:
        await ls.refresh(uri, delay)
    except Exception:
        ls.failed("diagnostics")


def _end_of(ls: _Server, lines: list[str], line: int) -> types.Position:
    """The position after the last character of 1-based `line` (of the last line, past the end)."""
    if not lines:
        return types.Position(line=0, character=0)
    line = min(line, len(lines))
    text = lines[line - 1]
    if text.endswith("\n"):
        return types.Position(line=line, character=0)
    return types.Position(line=line - 1, character=ls.workspace.position_codec.client_num_units(text))


def serve() -> None:
    build_server().start_io()
