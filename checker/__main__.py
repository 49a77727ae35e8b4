"""`python -m tlacheck` is the same as the `tlacheck` command."""

import sys

from tlacheck.app.cli import main


sys.exit(main())
