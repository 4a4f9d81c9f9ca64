"""``python -m summarize``: the entry shim, and the one import of summarize upward (the CLI)."""

import sys

from redline_cli.summarize import main

sys.exit(main())
