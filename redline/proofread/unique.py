"""Anchors for fixes: the shortest passage around a view range that the document holds once.

A fix is a reply entry; its anchor must name one place.  :func:`anchor_for` widens a range word
by word, on both sides within its paragraph, until the text occurs once in the view's text (a
match the locator finds exactly, once), and says where that text lies.
"""

from __future__ import annotations

import re

from ..read.view import DocumentView

__all__ = ["anchor_for"]

_WORD_EDGE = re.compile(r"\s+")
MAX_ANCHOR = 400  # characters: past it the passage is not worth quoting


def _once(text: str, needle: str) -> bool:
    first = text.find(needle)
    return first >= 0 and text.find(needle, first + 1) < 0


def anchor_for(view: DocumentView, start: int, end: int) -> tuple[str, int, int] | None:
    """(anchor text, its view start, its view end) around view range [start, end): the range
    widened to whole words until it occurs once; None when the paragraph's whole text does not."""
    para = view.paragraph_at(start)
    lo, hi = para.start, para.end
    text = view.text
    s, e = start, end
    # begin on whole words: a number quoted alone ("2") matches inside every other number
    while s > lo and not text[s - 1].isspace():
        s -= 1
    while e < hi and not text[e].isspace():
        e += 1
    left = True
    while True:
        candidate = text[s:e]
        if candidate.strip() and _once(text, candidate) and candidate == candidate.strip():
            return candidate, s, e
        if (s <= lo and e >= hi) or e - s > MAX_ANCHOR:
            return None
        if (left and s > lo) or e >= hi:
            s = _step_left(text, s, lo)
        else:
            e = _step_right(text, e, hi)
        left = not left


def _step_left(text: str, s: int, lo: int) -> int:
    while s > lo and text[s - 1].isspace():
        s -= 1
    while s > lo and not text[s - 1].isspace():
        s -= 1
    return s


def _step_right(text: str, e: int, hi: int) -> int:
    while e < hi and text[e].isspace():
        e += 1
    while e < hi and not text[e].isspace():
        e += 1
    return e
