"""Typed errors raised by the library and rendered once, at the edge (cli.py).

Every user-facing error has a code and, where it concerns spec text, a span:
`file:line:col: error[CODE]: message`, then the source line, a caret and an
optional hint. Codes are listed, with examples, in docs/errors.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tlacheck.core.source import Source, Span


class TlacheckError(Exception):
    """Base class of every error tlacheck reports to a user."""

    exit_code = 1


@dataclass
class Diagnostic:
    """One message about a place in a spec: an error or a warning."""

    code: str
    message: str
    span: Span | None
    hint: str | None = None
    severity: str = "error"

    def render(self, sources: dict[str, Source] | None = None) -> str:
        where = f"{self.span}: " if self.span else ""
        out = [f"{where}{self.severity}[{self.code}]: {self.message}"]
        if self.span and sources and self.span.file in sources:
            text = sources[self.span.file].line_text(self.span.line)
            if text:
                gutter = f"{self.span.line:>4} | "
                out.append(gutter + text.rstrip())
                width = 1
                if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                    width = self.span.end_column - self.span.column
                out.append(" " * (len(gutter) + self.span.column - 1) + "^" * max(1, width))
        if self.hint:
            out.append(f"  = hint: {self.hint}")
        return "\n".join(out)

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "file": self.span.file if self.span else None,
            "line": self.span.line if self.span else None,
            "column": self.span.column if self.span else None,
            "hint": self.hint,
        }


class SpecError(TlacheckError):
    """A syntax or static (name, type, arity) error in a spec: exit code 3."""

    exit_code = 3

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("; ".join(d.message for d in diagnostics))

    @classmethod
    def single(cls, code: str, message: str, span: Span | None, hint: str | None = None) -> "SpecError":
        return cls([Diagnostic(code, message, span, hint)])


class EvalError(TlacheckError):
    """A runtime evaluation error (lookup outside a domain, int out of range...): exit 4.

    Raised by generated code with the index of the span it happened at; the
    explorer attaches the trace that reached the failing state.
    """

    exit_code = 4

    def __init__(self, code: str, message: str, span: Span | None = None, hint: str | None = None):
        self.code = code
        self.message = message
        self.span = span
        self.hint = hint
        self.trace = None
        super().__init__(message)

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(self.code, self.message, self.span, self.hint)


class _Plain(TlacheckError):
    """An error with no place in a spec: a message and a hint."""

    def __init__(self, message: str, hint: str | None = None):
        self.message = message
        self.hint = hint
        super().__init__(message)


class UsageError(_Plain):
    """Bad command-line usage (unknown option, missing file, bad -D): exit 2."""

    exit_code = 2


class ClusterError(_Plain):
    """The Ray cluster of `--ray` could not be reached or started its actors, or lost one (a node
    down, a process killed): no verdict, exit 7."""

    exit_code = 7


@dataclass
class Warnings:
    """Collects non-fatal diagnostics during static checking."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.items.append(Diagnostic(code, message, span, hint, severity="warning"))


def suggest(name: str, candidates) -> str | None:
    """The candidate closest to `name` (a did-you-mean hint), if any is close."""
    import difflib

    pool = sorted(set(candidates))
    matches = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if not matches:
        lowered = {c.lower(): c for c in pool}
        if name.lower() in lowered:
            return lowered[name.lower()]
        return None
    return matches[0]
