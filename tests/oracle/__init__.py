"""A differential oracle: random specs checked by tlacheck and by independent oracles.

- generate.py: a seeded generator of well-typed specs with small finite state spaces, which
  records the language features each spec uses;
- tla.py: a translator of checked specs (checker.ir.nodes) to TLA+ with the same behaviours and the
  same counting as tlacheck, and tlc.py, which runs TLC on it and reads its report;
- compare.py: one spec through tlacheck (exact storage, fingerprints, two workers), the
  reference explorer (tests/reference_explorer.py) and optionally TLC, classified as agree,
  error, disagree, skipped, generator-bug or translator-bug;
- triage.py: which known bug explains a disagreement; minimise.py: shrink one;
- __main__.py: the campaign, `python -m tests.oracle --seeds 1:20001 [--tlc] [--out DIR]`.

tests/test_oracle.py runs a bounded slice in the test suite.
"""

