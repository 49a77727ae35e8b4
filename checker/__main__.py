"""`python -m checker` is the same as the `tlacheck` command."""

import sys

from checker.app.cli import main


sys.exit(main())
