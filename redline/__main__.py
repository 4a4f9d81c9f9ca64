"""``python -m redline``: the entry shim, and the one import of redline upward (the CLI)."""

import sys

from redline_cli.redline import main

sys.exit(main())
