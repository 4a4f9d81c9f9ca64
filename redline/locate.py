"""Find a quoted passage in a document's view: exact, or tolerant of typography only; never a pick.

:class:`Locator` answers "where does this quote occur?" for anchors and summary quotes alike.
The normalised copy of the document is built once per view and searched with ``str.find``;
every occurrence in the whole document is counted.  A quote that is not found gets the nearest
passage (a word-bigram prefilter, then a rapidfuzz alignment on a few candidates) and a sentence
saying what differs.  A hint is only ever shown, never applied.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from shared_schema import Location, MatchKind

from .normalize import NormalizedText, normalize, tolerances_needed
from .view import DocumentView

MAX_MATCHES = 1000  # occurrences counted before a quote is called hopelessly ambiguous
CONTEXT = 30  # characters of context either side in a location
_WORD = re.compile(r"\w+|[^\w\s]")
_HINT_MIN_SCORE = 60.0


@dataclass(frozen=True)
class Found:
    """Every occurrence of a quote: view ranges, and how they matched."""

    ranges: list[tuple[int, int]]
    kind: MatchKind | None
    tolerances: list[str] = field(default_factory=list)
    truncated: bool = False  # more than MAX_MATCHES occurrences


@dataclass(frozen=True)
class NearMiss:
    """The passage closest to a quote that was not found, and what differs."""

    text: str
    start: int
    end: int
    score: float
    differences: list[str]


class Locator:
    """Answers where quotes occur in one view; build once per view, ask many times."""

    def __init__(self, view: DocumentView) -> None:
        self.view = view
        self._norm: NormalizedText | None = None
        self._words: list[tuple[int, int, str]] | None = None
        self._bigrams: dict[tuple[str, str], list[int]] | None = None

    @property
    def normalized(self) -> NormalizedText:
        if self._norm is None:
            self._norm = NormalizedText.build(self.view.text)
        return self._norm

    # -- finding --------------------------------------------------------------------------
    def find(self, quote: str) -> Found:
        """Every occurrence of ``quote`` (overlapping ones included), exact or tolerant."""
        needle = normalize(quote)
        if not needle.strip():
            return Found([], None)
        norm = self.normalized
        hay = norm.text
        ranges: list[tuple[int, int]] = []
        pos = hay.find(needle)
        while pos >= 0:
            if len(ranges) >= MAX_MATCHES:
                return self._found(quote, ranges, truncated=True)
            ranges.append(norm.orig_span(pos, pos + len(needle)))
            pos = hay.find(needle, pos + 1)
        return self._found(quote, ranges)

    def _found(self, quote: str, ranges: list[tuple[int, int]], truncated: bool = False) -> Found:
        if not ranges:
            return Found([], None)
        text = self.view.text
        inexact = [(s, e) for s, e in ranges if text[s:e] != quote]
        if not inexact:
            return Found(ranges, MatchKind.EXACT, truncated=truncated)
        tolerances: list[str] = []
        for s, e in inexact[:5]:
            for tol in tolerances_needed(quote, text[s:e]):
                if tol not in tolerances:
                    tolerances.append(tol)
        return Found(ranges, MatchKind.NORMALIZED, tolerances, truncated)

    def count(self, quote: str) -> int:
        needle = normalize(quote)
        hay = self.normalized.text
        n, pos = 0, hay.find(needle)
        while pos >= 0 and n <= MAX_MATCHES:
            n += 1
            pos = hay.find(needle, pos + 1)
        return n

    # -- reporting ------------------------------------------------------------------------
    def location(self, start: int, end: int) -> Location:
        para = self.view.paragraph_at(start)
        text = self.view.text
        lo, hi = max(0, start - CONTEXT), min(len(text), end + CONTEXT)
        context = (
            ("…" if lo > 0 else "")
            + " ".join(text[lo:hi].split())
            + ("…" if hi < len(text) else "")
        )
        return Location(
            part=para.part,
            paragraph=para.index,
            start=start,
            end=end,
            label=para.label,
            section=para.section,
            context=context,
        )

    def where(self, start: int) -> str:
        """A short phrase saying where an offset lies: '§4.2 Rent, paragraph 57'."""
        para = self.view.paragraph_at(start)
        place = f"paragraph {para.index}"
        if para.story != "body":
            place = f"the {para.story} ({para.part}), {place}"
        if para.section:
            return f"§{para.section}, {place}"
        return place

    # -- hints ----------------------------------------------------------------------------
    def unique_extension(self, quote: str, start: int, end: int, max_words: int = 12) -> str | None:
        """The shortest extension of the occurrence at [start, end) that occurs only once."""
        text = self.view.text
        rights = _boundaries(text, end, +1, max_words)
        lefts = _boundaries(text, start, -1, max_words)
        options: list[tuple[int, int, int]] = []  # (extra chars, start, end)
        for k in range(max(len(rights), len(lefts))):
            for s, e in (
                (start, rights[k] if k < len(rights) else None),
                (lefts[k] if k < len(lefts) else None, end),
            ):
                if s is None or e is None:
                    continue
                if self.count(text[s:e]) == 1:
                    options.append(((end - start) - (e - s), s, e))
            if options:
                break
        if not options:
            for k in range(min(len(rights), len(lefts))):
                s, e = lefts[k], rights[k]
                if self.count(text[s:e]) == 1:
                    return text[s:e]
            return None
        _, s, e = max(options)
        return text[s:e]

    def nearest(self, quote: str) -> NearMiss | None:
        """The passage most like ``quote``, or None when nothing is close."""
        needle = normalize(quote)
        qwords = [m.group().lower() for m in _WORD.finditer(needle)]
        if not qwords:
            return None
        words, bigrams = self._index()
        votes: Counter[int] = Counter()
        grams = list(zip(qwords, qwords[1:], strict=False)) or [(qwords[0], "")]
        for j, gram in enumerate(grams):
            posting = bigrams.get(gram)
            if posting is None or len(posting) > 2000:
                continue
            for p in posting:
                votes[p - j] += 1
        if not votes:
            return None
        norm = self.normalized
        best: tuple[float, int, int] | None = None
        for start_word, _ in votes.most_common(4):
            lo_w = max(0, start_word - 4)
            hi_w = min(len(words) - 1, start_word + len(qwords) + 4)
            lo, hi = words[lo_w][0], words[hi_w][1]
            window = norm.text[lo:hi]
            al = fuzz.partial_ratio_alignment(needle, window)
            if al is None:
                continue
            if best is None or al.score > best[0]:
                best = (al.score, lo + al.dest_start, lo + al.dest_end)
        if best is None or best[0] < _HINT_MIN_SCORE:
            return None
        score, ns, ne = best
        vs, ve = norm.orig_span(ns, ne)
        vs, ve = _snap_words(self.view.text, vs, ve)
        found = self.view.text[vs:ve]
        return NearMiss(found, vs, ve, score, describe_difference(quote, found))

    def _index(self) -> tuple[list[tuple[int, int, str]], dict[tuple[str, str], list[int]]]:
        if self._words is None or self._bigrams is None:
            hay = self.normalized.text
            self._words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(hay)]
            bigrams: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
            toks = [t for _, _, t in self._words]
            for i, gram in enumerate(zip(toks, toks[1:], strict=False)):
                bigrams[gram].append(i)
            self._bigrams = dict(bigrams)
        return self._words, self._bigrams


def _boundaries(text: str, pos: int, step: int, max_words: int) -> list[int]:
    """Offsets of the next ``max_words`` word ends after pos (step +1) or starts before (−1)."""
    out: list[int] = []
    if step > 0:
        for m in _WORD.finditer(text, pos):
            if m.start() - pos > 200 or len(out) >= max_words:
                break
            out.append(m.end())
    else:
        lo = max(0, pos - 200)
        starts = [lo + m.start() for m in _WORD.finditer(text[lo:pos])]
        out = starts[::-1][:max_words]
    return out


def _snap_words(text: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while end < len(text) and end > 0 and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
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
