"""The process exit codes (INTERFACE.md), the outcome a script sees of every command.

They sit here, below every layer, because results of the lower layers carry them
(:attr:`redline.apply.Outcome.exit_code`, a summary report's ``exit_code``, a batch job's) and
the command line returns them; the command line's common module re-exports them.
"""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0  # every edit applied (every quote verified)
EXIT_UNAPPLIED: Final = 1  # the run completed; the report lists at least one unapplied edit
EXIT_USAGE: Final = 2  # the command line was used wrongly
EXIT_REFUSED: Final = 3  # an input was refused: nothing written
