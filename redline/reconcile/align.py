"""Where two texts differ, word by word, as offsets into both (the comparison reconcile makes).

The texts are aligned paragraph by paragraph first (their lines: the view separates paragraphs
with ``"\\n"``), with the same longest-matching-block diff the writer and compare use
(:func:`redline.text.worddiff.diff_opcodes`), so only paragraphs that differ are diffed word by
word; a long stretch of differing paragraphs is diffed paragraph against paragraph (the k-th
with the k-th, the rest with the last), so the cost stays linear in the document.  Tokens are
compared exactly: a changed quote, dash or space is a difference (what the other side typed is
what they sent).  A token is a run of whitespace, a number with its separators, a word, or one
other character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.worddiff import diff_opcodes

__all__ = ["Difference", "carried", "differences", "shift"]

_TOKEN = re.compile(r"\n|[^\S\n]+|\d[\d.,]*\d|\w+|[^\w\s]")
_JOINT = 50  # paragraphs: a longer differing stretch is diffed paragraph by paragraph


@dataclass(frozen=True)
class Difference:
    """``a[a_start:a_end]`` reads ``b[b_start:b_end]`` in the other text (one side may be empty)."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int


def _lines(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        out.append((pos, pos + len(line)))
        pos += len(line) + 1
    return out


def differences(a: str, b: str) -> list[Difference]:
    """Every word-level difference between ``a`` and ``b``, in order."""
    la, lb = _lines(a), _lines(b)
    ta = [a[s:e] for s, e in la]
    tb = [b[s:e] for s, e in lb]
    out: list[Difference] = []
    for tag, i1, i2, j1, j2 in diff_opcodes(ta, tb):
        if tag == "equal":
            continue
        for x1, x2, y1, y2 in _stretches(i1, i2, j1, j2):
            # the lines with their separators: the one after them (or, at the end, the one before)
            a0, a1 = _span(la, x1, x2, len(a))
            b0, b1 = _span(lb, y1, y2, len(b))
            out.extend(_words(a, b, a0, a1, b0, b1))
    return out


def _span(lines: list[tuple[int, int]], i1: int, i2: int, n: int) -> tuple[int, int]:
    """The text of lines ``[i1, i2)`` with a separator: ``[start, end)``."""
    if i2 > i1:
        start = lines[i1][0]
        end = lines[i2 - 1][1] + 1 if i2 < len(lines) else n
        if i2 >= len(lines) and i1 > 0:
            start -= 1  # the last lines: their separator is the one before them
        return start, min(end, n)
    at = lines[i1][0] if i1 < len(lines) else n
    return at, at


def _stretches(i1: int, i2: int, j1: int, j2: int) -> list[tuple[int, int, int, int]]:
    n, m = i2 - i1, j2 - j1
    if max(n, m) <= _JOINT or min(n, m) < 2:
        return [(i1, i2, j1, j2)]
    k = min(n, m) - 1
    return [(i1 + x, i1 + x + 1, j1 + x, j1 + x + 1) for x in range(k)] + [(i1 + k, i2, j1 + k, j2)]


def _tokens(text: str, start: int, end: int) -> tuple[list[str], list[int]]:
    keys: list[str] = []
    at: list[int] = []
    for m in _TOKEN.finditer(text, start, end):
        keys.append(m.group())
        at.append(m.start())
    at.append(end)
    return keys, at


def _words(a: str, b: str, a0: int, a1: int, b0: int, b1: int) -> list[Difference]:
    ka, pa = _tokens(a, a0, a1)
    kb, pb = _tokens(b, b0, b1)
    out: list[Difference] = []
    for tag, i1, i2, j1, j2 in diff_opcodes(ka, kb):
        if tag != "equal":
            out.append(Difference(pa[i1], pa[i2], pb[j1], pb[j2]))
    return out


def shift(diffs: list[Difference], offset: int) -> int:
    """Offset ``offset`` of the first text in the second, past the differences before it
    (``diffs`` in order; an offset inside a difference goes to its start)."""
    delta = 0
    for d in diffs:
        if d.a_end <= offset:
            delta = d.b_end - d.a_end
            continue
        if d.a_start < offset:
            return d.b_start
        break
    return offset + delta


def carried(diffs: list[Difference], offset: int) -> tuple[int, int]:
    """Where offset ``offset`` of the first text stands in the second: a point past the
    differences before it, or -- inside (or at an edge of) a stretch the two read differently --
    all of that stretch's counterpart ``[start, end)``."""
    for d in diffs:
        if d.a_start <= offset <= d.a_end and d.a_end > d.a_start:
            return d.b_start, d.b_end
        if d.a_start > offset:
            break
    at = shift(diffs, offset)
    return at, at
