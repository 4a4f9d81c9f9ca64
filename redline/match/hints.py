"""Near-miss hints: what a refused quote is told about where it went wrong, and what that may cost.

A quote :class:`~redline.match.locate.Locator` does not find gets the nearest passage
(:func:`nearest`, in the refusal :func:`not_found` makes): the quote's rarest tokens propose
where it may start (a shingle prefilter), every proposal is scored against the whole quote with
rapidfuzz, and the best few windows are aligned word by word; :func:`describe_difference` says
what differs.  A quote found more than once gets, per occurrence, the shortest extension that
occurs once (:func:`unique_extension`).  A hint is only ever shown, never applied.

The budget: a refused edit's hint (the nearest passage of a ``not_found`` anchor, the unique
extensions of an ``ambiguous`` one) is the costly part of verifying: aligning a long quote of
common words against its candidate passages costs up to a tenth of a second, so 5,000 such
edits in one reply cost minutes.  Hints are therefore bounded twice:

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

import difflib
import re
import time
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import add
from typing import Final

from shared_schema import Code
from shared_schema.records import RefusalRecord

from ..text.normalize import normalize
from .locate import Locator, _TokenIndex

__all__ = [
    "HINT_CPU_SECONDS",
    "MAX_HINT_CHARS",
    "HintBudget",
    "NearMiss",
    "describe_difference",
    "nearest",
    "not_found",
    "unique_extension",
]

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


# -------------------------------------------------------------------------------------------
# The hints

_WORD = re.compile(r"\w+|[^\w\s]")
_SPACED = re.compile(r"\S+")
_EDGE_PUNCTUATION = "\"'.,;:!?()[]"
_HINT_MIN_SCORE = 60.0
_NEAR_CANDIDATES = 4  # windows aligned with rapidfuzz per near-miss
_NEAR_MIN_VOTERS = 2  # the rarest tokens of a near miss that always propose starts
_NEAR_MAX_PROPOSALS = 100  # starts proposed per near miss, more tokens proposing while fewer
_NEAR_MAX_SCORED = 3_000  # starts scored at most (quotes of nothing but common words)
_NEAR_SAME = 32  # characters between two proposals that are one place
_NEAR_SLACK = 24  # characters either side of a proposed start that its window includes
_NEAR_PAD = 4  # tokens of slack either side of a candidate window


@dataclass(frozen=True)
class NearMiss:
    """The passage closest to a quote that was not found, and what differs."""

    text: str
    start: int
    end: int
    score: float
    differences: list[str]


def not_found(locator: Locator, quote: str, *, noun: str, hint: str, search: bool = True) -> RefusalRecord:
    """The refusal for a ``noun`` ("anchor", "quote") that does not occur: with the nearest
    passage and what differs when one is close (and ``search`` allows looking), else ``hint``."""
    wrong = locator._found[quote].wrong_label if quote in locator._found else None
    if wrong is not None:
        actual = f"labelled \u201c{wrong.actual}\u201d" if wrong.actual else "unnumbered"
        return RefusalRecord(
            code=Code.NOT_FOUND,
            message=f"The {noun} begins with the clause label \u201c{wrong.quoted}\u201d, but the "
            f"text after it begins a paragraph {actual}: {locator.where(wrong.start)}.",
            hint=(
                f"Quote it without the label, or with its own label \u201c{wrong.actual}\u201d."
                if wrong.actual
                else "Quote it without the label."
            ),
            nearest_location=locator.location(wrong.start, wrong.start),
        )
    near = nearest(locator, quote) if search else None
    if near is None:
        return RefusalRecord(
            code=Code.NOT_FOUND,
            message=f"The {noun} does not occur in the document, not even allowing for "
            "differences in spacing, quotes and dashes.",
            hint=hint,
        )
    diff = "; ".join(near.differences) or "the wording differs"
    return RefusalRecord(
        code=Code.NOT_FOUND,
        message=f"The {noun} does not occur in the document. The closest passage is in "
        f"{locator.where(near.start)}: \u201c{near.text}\u201d ({diff}).",
        hint=f"If you meant that passage, quote it exactly: \u201c{near.text}\u201d.",
        nearest=near.text,
        nearest_location=locator.location(near.start, near.end),
    )


def unique_extension(locator: Locator, quote: str, start: int, end: int, max_words: int = 12) -> str | None:
    """The shortest extension of the occurrence at [start, end) that occurs only once.

    The extension is the document's own text around the occurrence, grown by whole words
    (whitespace-delimited) to the right, the left or both; it contains the occurrence and,
    quoted back, matches exactly one place (tolerantly, as every quote is matched).  None
    when no extension of up to ``max_words`` words either side is unique.
    """
    text = locator.view.text
    lefts = [start, *_boundaries(text, start, -1, max_words)]
    rights = [end, *_boundaries(text, end, +1, max_words)]

    def unique(i: int, j: int) -> bool:
        return (i, j) != (0, 0) and locator.count(text[lefts[i] : rights[j]], 1) == 1

    # Extending never makes a quote less unique, so the fewest words to the right that
    # suffice only shrinks as words are added on the left: a staircase walk finds every
    # minimal extension with one count per step.  (An i whose pair is not unique is
    # skipped: any pair with more words to the right is longer than one already found.)
    best: tuple[int, int, int] | None = None  # (length, start, end)
    j = len(rights) - 1
    for i in range(len(lefts)):
        if not unique(i, j):
            continue
        while j > 0 and unique(i, j - 1):
            j -= 1
        s, e = lefts[i], rights[j]
        if best is None or e - s < best[0]:
            best = (e - s, s, e)
        if j == 0:
            break
    return None if best is None else text[best[1] : best[2]]


def nearest(locator: Locator, quote: str) -> NearMiss | None:
    """The passage most like ``quote``, or None when nothing is close."""
    from rapidfuzz import fuzz  # a near miss alone needs it: imported when the first comes

    needle = normalize(quote).strip()
    if not needle:
        return None
    qtokens = needle.split(" ")
    hay = locator.normalized.text
    best: tuple[float, int, int] | None = None
    for first in _candidates(locator._token_index(), hay, needle, qtokens, _NEAR_CANDIDATES):
        span = _passage(hay, qtokens, first)
        if span is not None:
            score = fuzz.ratio(needle, hay[span[0] : span[1]])
            if best is None or score > best[0]:
                best = (score, *span)
    if best is None or best[0] < _HINT_MIN_SCORE:
        return None
    score, ns, ne = best
    vs, ve = locator.normalized.orig_span(ns, ne)
    vs, ve = _strip(locator.view.text, vs, ve)
    found = locator.view.text[vs:ve]
    return NearMiss(found, vs, ve, score, describe_difference(quote, found))


def _candidates(index: _TokenIndex, hay: str, needle: str, qtokens: list[str], n: int) -> list[int]:
    """Up to ``n`` separate places where the quote may have come from: normalised offsets of
    token starts, the likeliest first.

    The quote's rarest tokens propose a start each place they occur (a shingle prefilter: the
    three rarest always, more while few places are proposed, so the work does not grow with
    the document's common words); every proposed start is then scored against the whole quote
    at C speed (rapidfuzz, over the text around it), so every token of the quote counts without
    casting the common tokens' postings.  A word added or dropped before a token only shifts
    its proposal; the others still propose the true start.
    """
    # token j of the quote starts at qoffs[j] + j
    qoffs = accumulate(map(len, qtokens), initial=0)
    usable = [
        (offsets, q + j)
        for j, (t, q) in enumerate(zip(qtokens, qoffs, strict=False))
        if (offsets := index.get(t)) is not None
    ]
    usable.sort(key=lambda oq: len(oq[0]))
    votes: Counter[int] = Counter()
    for k, (offsets, q) in enumerate(usable):
        if k >= _NEAR_MIN_VOTERS and len(votes) + len(offsets) > _NEAR_MAX_PROPOSALS:
            break
        votes.update(map((-q).__add__, offsets))
        if len(votes) > _NEAR_MAX_SCORED:
            break
    if not votes:
        return []
    starts = sorted(votes)
    # How much of the quote a window holds (the longest common subsequence) does not depend on
    # where in the window the passage lies, nor on the window's length, so a window with slack
    # either side scores a start proposed a word off as well as the true one; the start is then
    # the one most tokens proposed around there.
    size, slack = len(needle), _NEAR_SLACK
    lows = map(max, repeat(0), map(add, starts, repeat(-slack)))
    windows = list(map(hay.__getitem__, map(slice, lows, map(add, starts, repeat(size + slack)))))
    from rapidfuzz import process  # imported by the first near miss (see nearest)
    from rapidfuzz.distance import LCSseq

    scored = process.extract(needle, windows, scorer=LCSseq.similarity, limit=8 * n)
    out: list[int] = []
    for _, _, i in scored:
        near = starts[bisect_left(starts, starts[i] - slack) : bisect_right(starts, starts[i] + slack)]
        start = max(near, key=votes.__getitem__)
        start = hay.rfind(" ", 0, max(0, start) + 1) + 1  # the start of the token it falls in
        if all(abs(start - o) > _NEAR_SAME for o in out):
            out.append(start)
            if len(out) == n:
                break
    return out


def _passage(hay: str, qtokens: list[str], first: int) -> tuple[int, int] | None:
    """The tokens around the one at ``first`` that line up with the quote, as a normalised
    range (the window: _NEAR_PAD tokens before it, the quote's length and _NEAR_PAD after)."""
    lo = first
    for _ in range(_NEAR_PAD):
        if lo <= 0:
            break
        lo = hay.rfind(" ", 0, lo - 1) + 1
    hi = first
    for _ in range(len(qtokens) + _NEAR_PAD):
        hi = hay.find(" ", hi) + 1
        if hi <= 0:
            hi = len(hay) + 1
            break
    window = hay[lo : hi - 1].split(" ")
    span = _aligned_span(qtokens, window)
    if span is None:
        return None
    first_token, last_token = window[span[0]], window[span[1] - 1]
    offsets = list(accumulate(map(len, window[: span[1]]), initial=0))
    ns, ne = lo + offsets[span[0]] + span[0], lo + offsets[span[1] - 1] + span[1] - 1 + len(last_token)
    # Where the quote's edge token is part of the document's ("month" of "month,"), the
    # passage ends (begins) where the quote does.
    if len(qtokens[0]) < len(first_token) and first_token.endswith(qtokens[0]):
        ns += len(first_token) - len(qtokens[0])
    if len(qtokens[-1]) < len(last_token) and last_token.startswith(qtokens[-1]):
        ne -= len(last_token) - len(qtokens[-1])
    return ns, ne


def _aligned_span(qtokens: list[str], window: list[str]) -> tuple[int, int] | None:
    """The tokens of ``window`` that line up with the quote: [first, last) window indexes.

    Tokens are compared without case and edge punctuation ("statement." lines up with
    "statement").  Window tokens before the first and after the last aligned token are dropped;
    where the quote's first (last) tokens were replaced, as many window tokens are kept.
    """
    a, b = [_key(t) for t in qtokens], [_key(t) for t in window]
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    if not any(op == "equal" for op, *_ in ops):
        return None
    op, i1, i2, j1, j2 = ops[0]
    lo = j2 if op == "insert" else max(j1, j2 - (i2 - i1)) if op == "replace" else j1
    op, i1, i2, j1, j2 = ops[-1]
    hi = j1 if op == "insert" else min(j2, j1 + (i2 - i1)) if op == "replace" else j2
    return (lo, hi) if lo < hi else None


def _key(token: str) -> str:
    return token.strip(_EDGE_PUNCTUATION).lower() or token


def _boundaries(text: str, pos: int, step: int, max_words: int) -> list[int]:
    """Offsets of the next ``max_words`` word ends after pos (step +1) or starts before (−1).

    Words are whitespace-delimited and looked for within 200 characters.
    """
    if step > 0:
        hi = min(len(text), pos + 200)
        ends = [pos + m.end() for m in _SPACED.finditer(text[pos:hi])]
        if ends and ends[-1] == hi < len(text):
            ends.pop()  # a word cut by the window
        return ends[:max_words]
    lo = max(0, pos - 200)
    starts = [lo + m.start() for m in _SPACED.finditer(text[lo:pos])]
    if starts and starts[0] == lo > 0:
        starts.pop(0)
    return starts[::-1][:max_words]


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def describe_difference(quote: str, found: str) -> list[str]:
    """Sentences saying how ``quote`` differs from the document's ``found`` passage."""
    a = [m.group() for m in _WORD.finditer(normalize(quote))]
    b = [m.group() for m in _WORD.finditer(normalize(found))]
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        mine, theirs = _join(a[i1:i2]), _join(b[j1:j2])
        if op == "insert":
            out.append(f"your quote is missing '{theirs}'")
        elif op == "delete":
            out.append(f"your quote adds '{mine}'")
        elif op == "replace":
            if mine.lower() == theirs.lower():
                out.append(f"your quote has '{mine}' where the document has '{theirs}' (case differs)")
            else:
                out.append(f"your quote has '{mine}' where the document has '{theirs}'")
    return out[:6]


def _join(tokens: list[str]) -> str:
    out = ""
    for t in tokens:
        if out and (t[0].isalnum() or t[0] in "(\"'“‘") and not out.endswith(("(", "“", "‘")):
            out += " "
        out += t
    return out
