"""The user's private cache folder: $TLACHECK_CACHE_DIR, else $XDG_CACHE_HOME/tlacheck or
~/.cache/tlacheck, made with mode 0700.

Never the shared temporary directory: what is cached there (Lark's analysed grammar is a
pickle) would run as code if another user planted it."""

from __future__ import annotations

import os

CACHE_ENV = "TLACHECK_CACHE_DIR"


def cache_folder() -> str | None:
    """The folder, made if missing, or None when there is none this user alone can write."""
    folder = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tlacheck")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.stat(folder)
    except OSError:
        return None
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        return None  # someone else's, or writable by others
    return folder
