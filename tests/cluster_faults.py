"""A per-document job that kills its worker process once: for the cluster's failure tests.

Lives in its own module so Dask's worker processes can import it by name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from redline_review.job import JobResult, run_document


def crash_once(*task: Any) -> JobResult:
    """Kill the worker the first time the document named in $REDLINE_CRASH_ONCE runs."""
    name = str(task[4])
    target, _, marker = os.environ.get("REDLINE_CRASH_ONCE", "").partition(":")
    if name == target and marker and not Path(marker).exists():
        Path(marker).write_text("crashed")
        os._exit(1)
    return run_document(*task)


def crash_always(*task: Any) -> JobResult:
    """Kill the worker every time the document named in $REDLINE_CRASH_ALWAYS runs."""
    if str(task[4]) == os.environ.get("REDLINE_CRASH_ALWAYS"):
        os._exit(1)
    return run_document(*task)
