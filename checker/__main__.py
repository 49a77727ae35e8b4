"""`python -m checker` is the same as the `tlacheck` command."""

import sys

from checker.cli import main

sys.exit(main())
