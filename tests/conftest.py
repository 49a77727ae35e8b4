"""Shared helpers for the test suite."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from checker.errors import SpecError
from checker.explore import Options, explore
from checker.model import build_model
from checker.source import Source

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
REFERENCE = ROOT.parent / "shared" / "reference" / "tlaplus-examples"


def model_of(text: str, overrides: dict | None = None, name: str = "test.spec"):
    return build_model(Source(name, textwrap.dedent(text).lstrip("\n")), overrides)


def run(text: str, overrides: dict | None = None, **options):
    model = model_of(text, overrides)
    return model, explore(model, Options(**options))


def spec_error(text: str, overrides: dict | None = None):
    """The first diagnostic of the SpecError that `text` raises (fails if it raises none)."""
    with pytest.raises(SpecError) as info:
        model_of(text, overrides)
    return info.value.diagnostics[0]

pytest_plugins = ["pytester"]
