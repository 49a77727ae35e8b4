"""Reading spec files: the one place that turns a path into a Source (the command line, the
pytest plugin and `refines` read specs through it)."""

from __future__ import annotations

from checker.core.errors import SpecError, UsageError
from checker.core.source import Source


def read_source(path: str) -> Source:
    """Read a spec file. Unreadable files are usage errors; bytes that are not UTF-8 are spec errors."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a spec file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        src = Source(path, "")
        raise SpecError.single("E006", f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x})",
                               src.span(line, column), "save the file as UTF-8") from None
    if "\x00" in text:
        line = text[:text.index("\x00")].count("\n") + 1
        raise SpecError.single("E006", "the file contains a NUL character", Source(path, text).span(line, 1),
                               "spec files are plain text")
    return Source(path, text.lstrip("\ufeff"))
