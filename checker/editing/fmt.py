"""`tlacheck fmt`: one canonical layout of a spec's text, comments kept, idempotent.

The layout is canonical in the whitespace that carries no meaning: no trailing blanks, tabs of
the indentation as the spaces they count for (lang/parser.py counts a tab as its Indenter's
tab_len), at most one blank line in a row, none at the start, one newline at the end, `a, b`
after every comma outside strings and comments, and `# text` after a comment's `#`. It never
moves a token to another line or changes an indentation's width, so the parser reads the same
tokens with the same line structure: a formatted spec compiles to the same model
(tests/test_fmt.py checks every spec of the repository). Hand alignment (of trailing comments,
of `=`) is kept: a width of spaces between two tokens is not changed but after a comma.
"""

from __future__ import annotations

from tlacheck.core.source import Source
from tlacheck.lang.parser import TAB_LEN
from tlacheck.pipeline.driver import Pipeline


def format_source(source: Source) -> str:
    """The canonical text of a spec; a SpecError when it does not parse (a spec that does not
    parse is not formatted: its meaning, and so what may change, is unknown)."""
    Pipeline().parse(source)
    return format_text(source.text)


def format_text(text: str) -> str:
    lines: list[str] = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = _line(raw)
        if line or (lines and lines[-1]):
            lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def _line(raw: str) -> str:
    body = raw.rstrip()
    stripped = body.lstrip(" \t")
    indent = body[:len(body) - len(stripped)]
    width = indent.count(" ") + indent.count("\t") * TAB_LEN
    return " " * width + _tokens(stripped)


def _tokens(text: str) -> str:
    """`text` (one line without its indentation) with a comma's spacing and a comment's `# `."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            in_string = c != '"'
        elif c == '"':
            out.append(c)
            in_string = True
        elif c == "#":
            comment = text[i + 1:]
            out.append("# " + comment if comment[:1].isalnum() else "#" + comment)
            break
        elif c == ",":
            while out and out[-1] == " ":
                out.pop()
            out.append(",")
            j = i + 1
            while j < n and text[j] == " ":
                j += 1
            if j < n and text[j] not in ")]}":
                out.append(" ")
            i = j
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)
