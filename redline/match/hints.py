"""The budget of near-miss hints: what one call may spend telling a model where it went wrong.

A refused edit's hint (the nearest passage of a ``not_found`` anchor, the unique extensions of
an ``ambiguous`` one) is the costly part of verifying: aligning a long quote of common words
against its candidate passages costs up to a tenth of a second, so 5,000 such edits in one
reply cost minutes.  Hints are therefore bounded twice:

* each one: an anchor longer than :data:`MAX_HINT_CHARS` gets no near-miss passage (the
  refusal is the same, its hint says to quote less);
* the whole call: once :data:`HINT_CPU_SECONDS` of this thread's CPU time has gone on
  verifying, later refusals carry no near-miss passage either (their statuses, candidates and
  counts are unchanged).

Measured worst case (``tests/test_hostile2.py``, a 1-million-character contract, 5,000
not-found anchors of 2,000 characters of common words): about 8 CPU seconds for the call,
against some 200 before.
"""

from __future__ import annotations

import time
from typing import Final

__all__ = ["HINT_CPU_SECONDS", "MAX_HINT_CHARS", "HintBudget"]

HINT_CPU_SECONDS: Final = 5.0
MAX_HINT_CHARS: Final = 2_000


class HintBudget:
    """Whether the next refusal may still carry a near-miss hint (see the module docstring)."""

    __slots__ = ("_deadline", "exhausted")

    def __init__(self, seconds: float = HINT_CPU_SECONDS) -> None:
        self._deadline = time.thread_time() + seconds
        self.exhausted = False

    def allows(self, anchor: str) -> bool:
        if len(anchor) > MAX_HINT_CHARS:
            return False
        if not self.exhausted and time.thread_time() > self._deadline:
            self.exhausted = True
        return not self.exhausted
