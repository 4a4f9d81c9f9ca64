"""Find a quoted passage in a document's view: exact, or tolerant of typography only; never a pick.

:class:`Locator` answers "where does this quote occur?" for anchors and summary quotes alike.
The document is normalised once per view (:class:`NormalizedText`) and, once a few quotes have
been asked for, indexed once: every space-separated token of the normalised text with the
ordinals where it occurs.  A quote is then found by checking only the places where its rarest
inner token occurs, so every occurrence in the whole document is counted without scanning the
whole text per quote.

A quote that is not found gets the nearest passage: the same token index votes for where the
quote's tokens line up (a shingle prefilter), then a handful of candidate windows are aligned
word by word and scored with rapidfuzz; the result says what differs.  A hint is only ever
shown, never applied.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate

from rapidfuzz import fuzz

from shared_schema import Location, MatchKind, Refusal

from .normalize import NormalizedText, normalize, tolerances_needed
from .view import DocumentView

MAX_MATCHES = 1000  # occurrences counted before a quote is called hopelessly ambiguous
CONTEXT = 30  # characters of context either side in a location
_WORD = re.compile(r"\w+|[^\w\s]")
_SPACED = re.compile(r"\S+")
_EDGE_PUNCTUATION = "\"'.,;:!?()[]"
_HINT_MIN_SCORE = 60.0
_SCANS_BEFORE_INDEX = 8  # full-text scans answered before the token index is built
_NEAR_CANDIDATES = 4  # windows aligned with rapidfuzz per near-miss
_NEAR_MAX_POSTINGS = 4_000  # votes cast per near-miss (the rarest tokens first)
_NEAR_PAD = 4  # tokens of slack either side of a candidate window
# Location(**fields), validated the same, without keyword-argument handling (half the cost).
_new_location: Callable[[dict[str, object]], Location] = Location.__pydantic_validator__.validate_python


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


class _TokenIndex:
    """Every space-separated token of the normalised text and the ordinals where it occurs.

    The normalised text has single spaces only, so ``text.split(" ")`` gives every token, and
    a token of a quote with a space on both sides is a whole token wherever the quote occurs:
    every occurrence of a quote lies at one of the places where its rarest inner token does.
    The index is built by C-level iterators, with no Python loop over the tokens; token ``k``
    starts at offset ``ends[k] + k``.
    """

    def __init__(self, text: str) -> None:
        tokens = text.split(" ")
        self.tokens = tokens
        self.ends = list(accumulate(map(len, tokens), initial=0))  # length of tokens[:k]
        postings: defaultdict[str, list[int]] = defaultdict(list)
        # postings[token].append(k) for every token, in C
        deque(map(list.append, map(postings.__getitem__, tokens), range(len(tokens))), maxlen=0)
        self.postings: dict[str, list[int]] = postings  # read with .get only: no insertions
        self.scan_limit = max(64, len(text) // 1000)  # candidates worth checking rather than a scan

    def start(self, k: int) -> int:
        """Offset of token ``k`` in the normalised text."""
        return self.ends[k] + k

    def occurrences(self, needle: str, hay: str, limit: int) -> list[int] | None:
        """Offsets of the first ``limit`` occurrences of ``needle`` in ``hay``, ascending; None
        when the needle has no inner token or its rarest is so common that a scan is cheaper."""
        tokens = needle.split(" ")
        if len(tokens) < 3:
            return None
        get = self.postings.get
        best: list[int] | None = None
        best_offset = offset = len(tokens[0]) + 1
        for token in tokens[1:-1]:
            ordinals = get(token)
            if ordinals is None:
                return []
            if best is None or len(ordinals) < len(best):
                best, best_offset = ordinals, offset
            offset += len(token) + 1
        if best is None or len(best) > self.scan_limit:
            return None
        ends, found = self.ends, hay.startswith
        out: list[int] = []
        for k in best:
            pos = ends[k] + k - best_offset
            if pos >= 0 and found(needle, pos):
                out.append(pos)
                if len(out) >= limit:
                    break
        return out


class Locator:
    """Answers where quotes occur in one view; build once per view, ask many times."""

    def __init__(self, view: DocumentView) -> None:
        self.view = view
        self._norm: NormalizedText | None = None
        self._tokens: _TokenIndex | None = None
        self._scans = 0
        self._found: dict[str, Found] = {}

    @property
    def normalized(self) -> NormalizedText:
        if self._norm is None:
            self._norm = NormalizedText.build(self.view.text)
        return self._norm

    def prepare(self) -> None:
        """Normalise and index the document now rather than on demand (one pass each)."""
        self._token_index()

    def _token_index(self) -> _TokenIndex:
        if self._tokens is None:
            self._tokens = _TokenIndex(self.normalized.text)
        return self._tokens

    # -- finding --------------------------------------------------------------------------
    def find(self, quote: str) -> Found:
        """Every occurrence of ``quote`` (overlapping ones included), exact or tolerant."""
        cached = self._found.get(quote)
        if cached is not None:
            return cached
        needle = normalize(quote)
        if not needle.strip():
            return Found([], None)
        norm = self.normalized
        starts = self._occurrences(needle, MAX_MATCHES + 1)
        truncated = len(starts) > MAX_MATCHES
        text = self.view.text
        ranges = [_tighten(text, quote, *norm.orig_span(p, p + len(needle))) for p in starts[:MAX_MATCHES]]
        found = self._classify(quote, ranges, truncated)
        self._found[quote] = found
        return found

    def count(self, quote: str, limit: int = MAX_MATCHES) -> int:
        """How many times ``quote`` occurs (tolerantly), counting at most ``limit + 1``."""
        needle = normalize(quote)
        if not needle.strip():
            return 0
        return len(self._occurrences(needle, limit + 1))

    def _occurrences(self, needle: str, limit: int) -> list[int]:
        """Normalised start offsets of the first ``limit`` occurrences of ``needle``."""
        norm = self.normalized
        hay = norm.text
        out: list[int] = []
        if self._tokens is None and self._scans >= _SCANS_BEFORE_INDEX:
            self._token_index()
        found = None if self._tokens is None else self._tokens.occurrences(needle, hay, limit)
        if found is not None:
            out = found
        else:
            self._scans += 1
            pos = hay.find(needle)
            while pos >= 0 and len(out) < limit:
                out.append(pos)
                pos = hay.find(needle, pos + 1)
        if "." in needle:  # a match must not begin or end inside an expanded ellipsis
            size = len(needle)
            out = [p for p in out if not (norm.splits_expansion(p) or norm.splits_expansion(p + size))]
        return out

    def _classify(self, quote: str, ranges: list[tuple[int, int]], truncated: bool) -> Found:
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

    # -- reporting ------------------------------------------------------------------------
    def location(self, start: int, end: int) -> Location:
        """Where view range [start, end) lies, with a short context around it."""
        para = self.view.paragraph_at(start)
        text = self.view.text
        lo, hi = max(0, start - CONTEXT), min(len(text), end + CONTEXT)
        context = ("…" if lo > 0 else "") + " ".join(text[lo:hi].split()) + ("…" if hi < len(text) else "")
        return _new_location(
            {
                "part": para.part,
                "paragraph": para.index,
                "start": start,
                "end": end,
                "label": para.label,
                "section": para.section,
                "context": context,
            }
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

    def not_found(self, quote: str, *, noun: str, hint: str, search: bool = True) -> Refusal:
        """The refusal for a ``noun`` ("anchor", "quote") that does not occur: with the nearest
        passage and what differs when one is close (and ``search`` allows looking), else ``hint``."""
        near = self.nearest(quote) if search else None
        if near is None:
            return Refusal(
                code="not_found",
                message=f"The {noun} does not occur in the document, not even allowing for "
                "differences in spacing, quotes and dashes.",
                hint=hint,
            )
        diff = "; ".join(near.differences) or "the wording differs"
        return Refusal(
            code="not_found",
            message=f"The {noun} does not occur in the document. The closest passage is in "
            f"{self.where(near.start)}: \u201c{near.text}\u201d ({diff}).",
            hint=f"If you meant that passage, quote it exactly: \u201c{near.text}\u201d.",
            nearest=near.text,
            nearest_location=self.location(near.start, near.end),
        )

    # -- hints ----------------------------------------------------------------------------
    def unique_extension(self, quote: str, start: int, end: int, max_words: int = 12) -> str | None:
        """The shortest extension of the occurrence at [start, end) that occurs only once.

        The extension is the document's own text around the occurrence, grown by whole words
        (whitespace-delimited) to the right, the left or both; it contains the occurrence and,
        quoted back, matches exactly one place (tolerantly, as every quote is matched).  None
        when no extension of up to ``max_words`` words either side is unique.
        """
        text = self.view.text
        lefts = [start, *_boundaries(text, start, -1, max_words)]
        rights = [end, *_boundaries(text, end, +1, max_words)]

        def unique(i: int, j: int) -> bool:
            return (i, j) != (0, 0) and self.count(text[lefts[i] : rights[j]], 1) == 1

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

    def nearest(self, quote: str) -> NearMiss | None:
        """The passage most like ``quote``, or None when nothing is close."""
        needle = normalize(quote).strip()
        if not needle:
            return None
        qtokens = needle.split(" ")
        index = self._token_index()
        votes = _votes(index, qtokens)
        if not votes:
            return None
        hay = self.normalized.text
        best: tuple[float, int, int] | None = None
        for first in _candidates(votes, _NEAR_CANDIDATES):
            span = _passage(index, qtokens, max(0, first - _NEAR_PAD), first + len(qtokens) + _NEAR_PAD)
            if span is not None:
                score = fuzz.ratio(needle, hay[span[0] : span[1]])
                if best is None or score > best[0]:
                    best = (score, *span)
        if best is None or best[0] < _HINT_MIN_SCORE:
            return None
        score, ns, ne = best
        vs, ve = self.normalized.orig_span(ns, ne)
        vs, ve = _strip(self.view.text, vs, ve)
        found = self.view.text[vs:ve]
        return NearMiss(found, vs, ve, score, describe_difference(quote, found))


def _votes(index: _TokenIndex, qtokens: list[str]) -> Counter[int]:
    """For each token ordinal, how many of the quote's tokens line up if the quote starts there
    (a shingle prefilter).

    The rarest tokens vote first; common ones stop voting once enough votes are cast, but the
    three rarest always vote.
    """
    get = index.postings.get
    usable = [(ordinals, j) for j, t in enumerate(qtokens) if (ordinals := get(t)) is not None]
    usable.sort(key=lambda oj: len(oj[0]))
    votes: Counter[int] = Counter()
    cast = 0
    for n, (ordinals, j) in enumerate(usable):
        if n >= 3 and cast + len(ordinals) > _NEAR_MAX_POSTINGS:
            break
        votes.update(map((-j).__add__, ordinals))
        cast += len(ordinals)
    return votes


def _candidates(votes: Counter[int], n: int) -> list[int]:
    """The ``n`` best start ordinals, counting a neighbour's votes (after a word added or
    dropped, the quote's later tokens vote one ordinal off)."""
    top = votes.most_common(8 * n)
    scored = sorted(((votes[k - 1] + 2 * v + votes[k + 1], k) for k, v in top), key=lambda sk: -sk[0])
    out: list[int] = []
    for _, k in scored:
        if all(abs(k - o) > 2 for o in out):
            out.append(k)
            if len(out) == n:
                break
    return out


def _passage(index: _TokenIndex, qtokens: list[str], lo: int, hi: int) -> tuple[int, int] | None:
    """The tokens of ordinals [lo, hi) that line up with the quote, as a normalised range."""
    window = index.tokens[lo:hi]
    span = _aligned_span(qtokens, window)
    if span is None:
        return None
    first_token, last_token = window[span[0]], window[span[1] - 1]
    ns, ne = index.start(lo + span[0]), index.start(lo + span[1] - 1) + len(last_token)
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


def _tighten(text: str, quote: str, start: int, end: int) -> tuple[int, int]:
    """Give back the edge whitespace of a tolerant match that the quote did not ask for.

    A quote's leading or trailing space matches a whole whitespace run of the document, which
    may be (or end in) a paragraph mark: "rent. " against "rent.\\n" would take the mark, and the
    writer would delete it, joining two paragraphs. Keep at most as many edge characters as the
    quote has, and never a line break the quote's own edge whitespace does not contain.
    """
    span = text[start:end]
    q_lead = quote[: len(quote) - len(quote.lstrip())]
    q_trail = quote[len(quote.rstrip()) :]
    lead = span[: len(span) - len(span.lstrip())]
    trail = span[len(span.rstrip()) :]
    keep_lead = lead[len(lead) - len(q_lead) :] if len(lead) > len(q_lead) else lead
    if "\n" in keep_lead and "\n" not in q_lead:
        keep_lead = keep_lead[keep_lead.rindex("\n") + 1 :]
    keep_trail = trail[: len(q_trail)] if len(trail) > len(q_trail) else trail
    if "\n" in keep_trail and "\n" not in q_trail:
        keep_trail = keep_trail[: keep_trail.index("\n")]
    return start + len(lead) - len(keep_lead), end - (len(trail) - len(keep_trail))


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
