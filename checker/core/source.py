"""Source text and spans: every AST node, IR node and error carries a `Span`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """A region of a source file. Lines and columns are 1-based."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Source:
    """The text of one spec file, kept so errors can quote the offending line."""

    name: str
    text: str

    def line_text(self, line: int) -> str:
        lines = self.text.splitlines()
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return ""

    def span(self, line: int, column: int, end_line: int | None = None, end_column: int | None = None) -> Span:
        return Span(self.name, line, column, end_line or line, end_column or column + 1)
