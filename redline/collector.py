"""Pausing Python's cyclic garbage collector for one bounded piece of work.

Loading, verifying and writing a document allocate hundreds of thousands of small objects
(spans, paragraphs, results, the locator's index, lxml proxies), and none of the pipeline's
own structures form reference cycles (``tests/test_memory.py`` holds them to that), so
reference counting frees them.  Left running, the collector would stop every few hundred
allocations and now and then traverse every object alive to find nothing: on a 300-page
contract about 70 ms of a 600 ms apply.  Inside :func:`paused` it does not run; when the work
is done it resumes as it was, and the few cycles the libraries make (lxml's parser contexts,
the JSON encoder's closures) are young and go at its next collection.

Only switched off and on again -- nothing is frozen: objects moved to the oldest generation
by ``gc.freeze()``/``gc.unfreeze()`` do not count towards the next full collection, which then
never comes, and every cycle of the process is kept (a batch once kept 6 MB per document).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block (and back on after it, if it was on)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
