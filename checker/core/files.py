"""Reading spec files: the one place that turns a path into a Source (the command line, the
pytest plugin, `import` and `refines` read specs through it).

A model built on one machine is built again, from the same texts, by the actors of a Ray
cluster (engine/cluster.py), which may not see the same files: the pipeline notes every file a
build reads, by the path it was read with (pipeline/driver.py Recipe), and `serving(files)`
makes a build read them from that mapping instead of the disk. Paths stay relative as given: the
imports and abstract specs of a spec are found beside it by joining paths, never through the
working directory.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Iterator

from tlacheck.core.errors import SpecError, UsageError
from tlacheck.core.source import Source

_local = threading.local()  # .served: path -> text to read


@contextlib.contextmanager
def serving(files: dict[str, str]) -> Iterator[None]:
    """Read files from `files` (path -> text, as a Recipe holds them) meanwhile, in this
    thread; a path not in it is an error, as a missing file is."""
    outer = getattr(_local, "served", None)
    _local.served = files
    try:
        yield
    finally:
        _local.served = outer


def beside(file: str, path: str) -> str:
    """`path` as written in `file` (an `import` or a `refines`), relative to the folder of `file`,
    normalised as text: `specs/cases/../lib/x.spec` is `specs/lib/x.spec`, as `cd ..` in a shell
    takes it. That is the name traces and errors show, and the one a Ray actor reads it by."""
    return os.path.normpath(os.path.join(os.path.dirname(file), path))


def read_source(path: str) -> Source:
    """Read a spec file. Unreadable files are usage errors; bytes that are not UTF-8 are spec errors."""
    served = getattr(_local, "served", None)
    if served is not None:
        if path not in served:
            raise UsageError(f"no such file: {path} (not among the files the spec was built from)")
        return Source(path, served[path])
    return _read(path)


def _read(path: str) -> Source:
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


_PACKAGE = Path(__file__).resolve().parents[1]  # the installed tlacheck/, or the checkout's checker/


def shipped(folder: str, checkout: str, holds: str) -> Path | None:
    """A folder of data tlacheck reads at run time: the installed package's copy, tlacheck/FOLDER
    (pyproject.toml fills it from the checkout), else the checkout's CHECKOUT beside the package;
    the first that holds HOLDS (a file or folder), None when neither does."""
    for place in (_PACKAGE / folder, _PACKAGE.parent / checkout):
        if (place / holds).exists():
            return place
    return None


def doc(name: str) -> Path | None:
    """A page of docs/ that the installed package ships (language.md, errors.md), None if missing."""
    folder = shipped("docs", "docs", name)
    return None if folder is None else folder / name
