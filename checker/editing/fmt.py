"""`tlacheck fmt`: a spec's text in the one canonical layout, comments kept.

The layout is decided token by token on the parser's own tokens (lang.parser.lexemes), line by
line, so a formatted spec has the same lines as the original (blank lines aside), hence the same
line numbers in every trace and diagnostic:

- blocks are indented four spaces a level; a line that continues a statement (inside brackets,
  after `\\`, or by the continuation rule) keeps its indentation relative to the statement's
  first line, and a comment line the indentation of the block it stands in;
- one space around binary operators, `=` and `->`, and after `,` and `:`;
  none inside brackets, before `,` `:` `)` `]` `}` `.` `?` `'`, around `..` and `.`, after a
  unary `-`, and between a name and the `(` or `[` that follows it (`f(x)`, `m[k]`, `set[T]`);
- an `enum`'s members inside spaced braces: `enum Phase { idle, busy }`;
- trailing comments of consecutive lines are aligned two spaces after the longest code among
  them; a comment's own text is kept as written (trailing spaces aside);
- no trailing spaces, no blank line at the start or end of the file, at most one blank line in a
  row, and one newline at the end.

Guarantees: the formatted text parses to the same AST as the original, spans aside, with the same
comments in the same order (both checked on every call: a difference is an internal error, never
a changed spec), and formatting it again changes nothing.
"""

from __future__ import annotations

import dataclasses

from tlacheck.core.errors import TlacheckError
from tlacheck.core.source import Source, Span
from tlacheck.lang import syntax as S
from tlacheck.lang.parser import TAB_LEN, Lexeme, lexemes
from tlacheck.pipeline.driver import Pipeline

INDENT = 4

_OPENERS = {"(", "[", "{"}
_CLOSERS = {")", "]", "}"}
# No space before these; none after the openers and `.`.
_TIGHT_BEFORE = _CLOSERS | {",", ":", ".", "?", "'", ".."}
_TIGHT_AFTER = _OPENERS | {".", ".."}
# After these a `-` is a negation (it starts an operand), after anything else a subtraction.
_OPERAND_ENDS = _CLOSERS | {"'", "?"}
_OPERAND_KINDS = {"NAME", "INT", "STRING", "TRUE", "FALSE", "NONE"}
# Keywords that take `[` at once: the type constructors (`set[int]`, `seq[T, 3]`, `map[K, V]`).
_TYPE_CONSTRUCTORS = {"set", "seq", "map"}


class FormatError(TlacheckError):
    """The formatted text would not mean what the original did: a bug in the formatter (exit 1)."""


def format_source(source: Source) -> str:
    """The canonical layout of a spec that parses (a SpecError otherwise); see the module's
    docstring for the layout and its guarantees."""
    pipeline = Pipeline()
    before = pipeline.parse(source)
    tokens = lexemes(source)
    out = _layout(source.text, tokens)
    formatted = Source(source.name, out)
    after = pipeline.parse(formatted)
    if _shape(before) != _shape(after) or _comments(tokens) != _comments(lexemes(formatted)):
        raise FormatError(f"{source.name}: formatting would change the spec's meaning; the file is left as it is")
    return out


def _comments(tokens: list[Lexeme]) -> list[str]:
    return [t.text for t in tokens if t.kind == "COMMENT"]


def _shape(node):
    """An AST without its spans, to compare two parses of the same spec laid out differently (a
    `fair` line's name is made of its line number: a span too)."""
    if isinstance(node, Span):
        return None
    if isinstance(node, S.FairDecl):
        node = dataclasses.replace(node, name="fair")
    if dataclasses.is_dataclass(node):
        return (type(node).__name__,) + tuple(_shape(getattr(node, f.name)) for f in dataclasses.fields(node))
    if isinstance(node, (tuple, list)):
        return tuple(_shape(x) for x in node)
    return node


def _width(text: str) -> int:
    """The indentation of a line as the parser counts it (a tab is TAB_LEN columns)."""
    n = 0
    for ch in text:
        if ch == " ":
            n += 1
        elif ch == "\t":
            n += TAB_LEN
        else:
            break
    return n


@dataclasses.dataclass
class _Line:
    indent: int           # the canonical indentation
    code: str             # the tokens laid out, without the comment
    comment: str | None   # the trailing comment (or the whole line's)


def _layout(text: str, tokens: list[Lexeme]) -> str:
    raw = text.split("\n")
    by_line: dict[int, list[Lexeme]] = {}
    for tok in tokens:
        by_line.setdefault(tok.line, []).append(tok)
    levels = [(0, 0)]              # (original width, canonical indent) of the open blocks
    statement = (0, 0)             # the same for the line the current statement started on
    depth = 0                      # open brackets at the end of the line before
    continued = False              # the line before ended with `\`
    lines: list[_Line | None] = []  # None: a blank line
    for number in range(1, len(raw) + 1):
        toks = by_line.get(number, [])
        width = _width(raw[number - 1])
        code = [t for t in toks if t.kind != "COMMENT"]
        comment = next((t.text for t in toks if t.kind == "COMMENT"), None)
        if not toks:
            lines.append(None)
            continue
        if not code:  # a comment line
            upcoming = next((by_line[n][0] for n in range(number + 1, len(raw) + 1)
                             if any(t.kind != "COMMENT" for t in by_line.get(n, []))), None)
            if depth or continued or (upcoming is not None and upcoming.continues):
                indent = statement[1] + max(0, width - statement[0])
            elif width > levels[-1][0]:
                indent = levels[-1][1] + INDENT
            else:
                indent = max(c for w, c in levels if w <= width)
            lines.append(_Line(indent, "", comment))
            continue
        if code[0].continues:
            indent = statement[1] + max(0, width - statement[0])
        else:
            while width < levels[-1][0]:
                levels.pop()
            if width > levels[-1][0]:
                levels.append((width, levels[-1][1] + INDENT))
            indent = levels[-1][1]
            statement = (width, indent)
        lines.append(_Line(indent, _spaced(code), comment))
        for t in code:
            depth += (t.text in _OPENERS) - (t.text in _CLOSERS) if t.kind not in ("STRING", "COMMENT") else 0
        continued = code[-1].kind == "BACKSLASH"
    return _join(lines)


def _spaced(code: list[Lexeme]) -> str:
    """One line's tokens with the canonical spaces between them."""
    out = []
    prev: Lexeme | None = None
    unary = False  # prev is a negation
    enum = code[0].kind == "ENUM"  # `enum Phase { idle, busy }`: spaces inside the braces
    for tok in code:
        if prev is not None:
            out.append(" " if enum and (prev.text == "{" or tok.text == "}") else _space(prev, tok, unary))
        out.append(tok.text)
        unary = tok.text == "-" and tok.kind != "STRING" and (prev is None or not _ends_operand(prev))
        prev = tok
    return "".join(out)


def _ends_operand(tok: Lexeme) -> bool:
    return tok.kind in _OPERAND_KINDS or (tok.kind != "STRING" and tok.text in _OPERAND_ENDS)


def _space(prev: Lexeme, tok: Lexeme, unary: bool) -> str:
    if tok.kind == "BACKSLASH":
        return " "
    if prev.kind == "STRING" or tok.kind == "STRING":
        return "" if (prev.kind != "STRING" and prev.text in _TIGHT_AFTER) or \
            (tok.kind != "STRING" and tok.text in _TIGHT_BEFORE) else " "
    if unary or prev.text in _TIGHT_AFTER or tok.text in _TIGHT_BEFORE:
        return ""
    if tok.text in ("(", "["):
        if prev.kind == "NAME" or prev.text in _CLOSERS or prev.text == "'":
            return ""
        if tok.text == "[" and prev.text in _TYPE_CONSTRUCTORS:
            return ""
    return " "


def _join(lines: list[_Line | None]) -> str:
    """The lines as text: trailing comments of consecutive lines aligned, blank lines squeezed."""
    text: list[str] = []
    run: list[int] = []  # indices into text of a run of lines with code and a trailing comment

    def close_run() -> None:
        column = max(len(text[i]) for i in run) + 2 if run else 0
        for i in run:
            code, comment = text[i], pending[i]
            text[i] = code + " " * (column - len(code)) + comment
        run.clear()

    pending: dict[int, str] = {}
    for line in lines:
        if line is None:
            close_run()
            if text and text[-1] != "":
                text.append("")
            continue
        body = " " * line.indent + line.code
        if line.code and line.comment is not None:
            pending[len(text)] = line.comment
            run.append(len(text))
            text.append(body)
            continue
        close_run()
        text.append(body if line.comment is None else body + line.comment)
    close_run()
    while text and text[-1] == "":
        text.pop()
    return "\n".join(text) + "\n" if text else ""
