"""variants.py: a variant named on the command line must exist."""

import pytest

from checker.core.errors import UsageError
from checker.core.source import Source
from checker.lang.parser import parse
from checker.lang.variants import apply_variant


SPEC = """var x: int = 0
action Inc:
    require x < 3
    x = x + 1
invariant Small: x < 3
variant Capped "stop at 2":
    replace action Inc:
        require x < 2
        x = x + 1
"""


def test_issue_8_unknown_variant_is_a_usage_error_with_a_hint():
    """Found by fuzzing: `--variant Nope` printed `error[E100]` with no file:line:col (exit 3);
    like an unknown `--invariant`, it is a usage error (exit 2)."""
    tree = parse(Source("v.spec", SPEC))
    with pytest.raises(UsageError) as info:
        apply_variant(tree, "Caped")
    assert info.value.message == "the spec has no variant `Caped`"
    assert info.value.hint == "did you mean `Capped`?"
    with pytest.raises(UsageError) as info:
        apply_variant(tree, "zzz")
    assert info.value.hint == "its variants: base, Capped"
    assert [d.name for d in apply_variant(tree, "Capped").declarations if hasattr(d, "name")][:1] == ["x"]
