"""The process exit codes of every command (docs/cli.md), in one place.

A leaf module of the command-line layer: :attr:`redline.apply.Outcome.exit_code`, the summary
report's ``exit_code``, a batch's per-document ``exit`` and both command lines return these.
They are not in ``shared_schema``, which holds what a model is asked for and what is reported
to it: an exit code is the contract of a process with its caller, and no model sees one.
"""

from __future__ import annotations

from typing import Final

__all__ = ["EXIT_INTERNAL", "EXIT_OK", "EXIT_REFUSED", "EXIT_UNAPPLIED", "EXIT_USAGE"]

EXIT_OK: Final = 0  # every edit applied (every quote verified)
EXIT_UNAPPLIED: Final = 1  # the run completed; the report lists at least one unapplied edit
EXIT_USAGE: Final = 2  # the command line was used wrongly
EXIT_REFUSED: Final = 3  # an input was refused (unreadable, hostile, unparseable): nothing written
EXIT_INTERNAL: Final = 70  # internal_error: a bug of ours (sysexits' EX_SOFTWARE), never 1 or 3
