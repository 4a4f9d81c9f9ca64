"""Find a quoted passage in a document's view: exact, or tolerant of typography only; never a pick.

:class:`Locator` answers "where does this quote occur?" for anchors and summary quotes alike.
The document is normalised once per view (:class:`NormalizedText`) and, once a few quotes have
been asked for, indexed once: every space-separated token of the normalised text with the
offsets where it occurs.  A quote is then found by checking, at C speed, only the places where
its rarest inner token occurs, so every occurrence in the whole document is counted without
scanning the whole text per quote.

A quote that is not found, or found more than once, gets its hint from
:mod:`redline.match.hints` (the nearest passage; the unique extensions).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat
from operator import add
from typing import TYPE_CHECKING, Any, cast

from shared_schema import Code, MatchKind, Tolerance
from shared_schema.records import LocationRecord, RefusalRecord

from ..compat import forwarded
from ..read.sections import label_key, place, split_label, typed_number
from ..read.view import DocumentView
from ..text.normalize import ELLIPSIS, INVISIBLE, NormalizedText, normalize, tolerances_needed
from .deleted import RestoredStories

if TYPE_CHECKING:  # the names that moved to the hints (see __getattr__ at the end)
    from .hints import NearMiss as NearMiss
    from .hints import describe_difference as describe_difference

MAX_MATCHES = 1000  # occurrences counted before a quote is called hopelessly ambiguous
CONTEXT = 30  # characters of context either side in a location
_SCANS_BEFORE_INDEX = 8  # full-text scans answered before the token index is built
# Someone's deletion (and a move's source), read from the one table; the text in them.
_LABELLED_MIN = 3  # characters a quote must hold besides its labels to be found by them


@dataclass(frozen=True)
class Found:
    """Every occurrence of a quote: view ranges, and how they matched."""

    ranges: list[tuple[int, int]]
    kind: MatchKind | None
    tolerances: list[str] = field(default_factory=list)
    truncated: bool = False  # more than MAX_MATCHES occurrences
    # The label tolerance: the displayed labels left out of the quote, one per line ("" where
    # a line began with none); a replacement that repeats them does not write them as text.
    labels: tuple[str, ...] = ()
    wrong_label: WrongLabel | None = None  # not found: the quote began with another label


@dataclass(frozen=True)
class WrongLabel:
    """A quote whose text, after the label it begins with, begins a paragraph numbered
    otherwise: found nowhere, and the hint names the paragraph's real label."""

    quoted: str  # the label the quote began with
    actual: str | None  # the displayed label of the paragraph the rest begins (None: unnumbered)
    start: int  # where that paragraph's text begins


_SLICE = 1 << 13  # characters of the normalised text split at a time while indexing
_OTHER_LINE_BREAKS = "\x1c\x1d\x1e"  # what splitlines() breaks at besides whitespace


def _keys(text: str) -> Iterator[tuple[int, list[str]]]:
    """The text's tokens, each followed by ``"\\n"`` (its space, or the end of the text), a slice
    at a time: (offset of the slice, its keys).

    ``piece.replace(" ", "\\n").splitlines(True)`` keeps each token's separator, so the lengths
    of the keys add up to the offsets directly; the text has been normalised, so its only line
    breaks are those spaces (else the tokens are split on spaces and given their "\\n").
    Splitting a few kilobytes at a time keeps the pieces and their tokens in the cache while
    they are indexed, and allocates no copy of the whole text.
    """
    if any(c in text for c in _OTHER_LINE_BREAKS):
        yield 0, list(map(add, text.split(" "), repeat("\n")))
        return
    base, size = 0, len(text)
    while base < size:
        cut = text.find(" ", base + _SLICE) + 1 or size  # just past a space, or the end
        keys = text[base:cut].replace(" ", "\n").splitlines(True)
        if cut == size and not text.endswith(" "):
            keys[-1] += "\n"  # the last token
        yield base, keys
        base = cut


class _TokenIndex:
    """Every space-separated token of the normalised text and the offsets where it occurs.

    The normalised text has single spaces only, so its tokens are what ``text.split(" ")``
    gives, and a token of a quote with a space on both sides is a whole token wherever the quote
    occurs: every occurrence of a quote lies at one of the places where its rarest inner token
    does.  The postings are keyed by the token with a line break after it (see :func:`_keys`)
    and hold offsets rather than ordinals, so that a quote's candidates are checked, and a
    near miss's proposed, without converting them.  The index is built by C-level iterators, a
    slice of the text at a time, with no Python loop over the tokens.
    """

    def __init__(self, text: str) -> None:
        postings: defaultdict[str, list[int]] = defaultdict(list)
        get = postings.__getitem__
        for base, keys in _keys(text):
            # postings[key].append(offset) for every token of the slice, in C
            deque(map(list.append, map(get, keys), accumulate(map(len, keys), initial=base)), maxlen=0)
        self.postings: dict[str, list[int]] = postings  # read with .get only: no insertions
        self.scan_limit = max(64, len(text) // 1000)  # candidates worth checking rather than a scan

    def get(self, token: str) -> list[int] | None:
        """The offsets where ``token`` occurs (None: nowhere)."""
        return self.postings.get(token + "\n")

    def occurrences(self, needle: str, hay: str, limit: int) -> list[int] | None:
        """Offsets of the first ``limit`` occurrences of ``needle`` in ``hay``, ascending; None
        when the needle has no inner token or its rarest is so common that a scan is cheaper.

        Every candidate is checked at C speed: where the rarest inner token occurs, the needle
        from that token on must follow (``startswith``); only those few are checked in full.
        """
        tokens = needle.split(" ")
        if len(tokens) < 3:
            return None
        lists = list(map(self.postings.get, map(add, tokens[1:-1], repeat("\n"))))
        if None in lists:
            return []  # an inner token the document does not have
        sizes = list(map(len, lists))  # type: ignore[arg-type]
        fewest = min(sizes)
        if fewest > self.scan_limit:
            return None
        j = sizes.index(fewest) + 1  # the rarest inner token is tokens[j]
        places = cast(list[int], lists[j - 1])  # where tokens[j] starts
        offset = sum(map(len, tokens[:j])) + j  # of tokens[j] in the needle
        tail = needle[offset:]
        found = hay.startswith
        out = [
            p - offset
            for p in compress(places, map(found, repeat(tail), places))
            if p >= offset and found(needle, p - offset)
        ]
        return out if len(out) <= limit else out[:limit]


class Locator:
    """Answers where quotes occur in one view; build once per view, ask many times."""

    def __init__(self, view: DocumentView) -> None:
        self.view = view
        self._norm: NormalizedText | None = None
        self._tokens: _TokenIndex | None = None
        self._scans = 0
        self._found: dict[str, Found] = {}
        self._labels: set[str] | None = None
        self._deletions: RestoredStories | None = None

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
        """Every occurrence of ``quote`` (overlapping ones included), exact or tolerant; a
        quote that is found nowhere but begins with a paragraph's displayed label ("2.2 Standard
        of Care...", as a reader of the page copies it) is found there, with the label left out
        (the ``label`` tolerance)."""
        cached = self._found.get(quote)
        if cached is not None:
            return cached
        found = self._find(quote)
        if not found.ranges:
            found = self._find_labelled(quote) or found
        self._found[quote] = found
        return found

    def _find(self, quote: str) -> Found:
        needle = normalize(quote)
        if not needle.strip():
            return Found([], None)
        norm = self.normalized
        starts = self._occurrences(needle, MAX_MATCHES + 1)
        truncated = len(starts) > MAX_MATCHES
        del starts[MAX_MATCHES:]
        text = self.view.text
        size = len(needle)
        if size == len(quote) and ELLIPSIS not in quote and not (quote[0].isspace() or quote[-1].isspace()):
            # A quote whose normalisation only substitutes characters one for one (nothing
            # collapsed, dropped or expanded), with no edge whitespace, found verbatim where its
            # normalised occurrence begins: that is the whole range -- the map is the identity
            # across it and there is no edge whitespace to give back.
            at = list(map(norm.orig_start, starts))
            if all(map(text.startswith, repeat(quote), at)):
                kind = MatchKind.EXACT if at else None
                return Found([(s, s + size) for s in at], kind, truncated=truncated)
        ranges = [_tighten(text, quote, *norm.orig_span(p, p + size)) for p in starts]
        return self._classify(quote, ranges, truncated)

    # -- the label tolerance ----------------------------------------------------------------
    def _label_keys(self) -> set[str]:
        if self._labels is None:
            self._labels = {label_key(p.label) for p in self.view.paragraphs if p.label}
        return self._labels

    def _label_prefix(self, line: str) -> tuple[str, str] | None:
        """(the label ``line`` begins with, the rest of the line), or None: a displayed label
        of the document, else anything numbered like a clause ("7.9", "(c)", "Clause 4")."""
        found = split_label(line, self._label_keys())
        if found is not None:
            return found
        typed = typed_number(line)
        if typed is not None:
            end = line.index(typed) + len(typed)
            if end < len(line) and line[end].isspace():
                return typed, line[end:].lstrip()
        return None

    def _find_labelled(self, quote: str) -> Found | None:
        lines = quote.split("\n")
        split = [self._label_prefix(line) for line in lines]
        if not any(split):
            return None
        labels = tuple(p[0] if p else "" for p in split)
        rest = "\n".join(p[1] if p else line for p, line in zip(split, lines, strict=True))
        if len(normalize(rest).strip()) < _LABELLED_MIN:
            return None
        base = self._find(rest)
        view = self.view
        good: list[tuple[int, int]] = []
        wrong: WrongLabel | None = None
        for s, e in base.ranges:
            paras = view.paragraphs_between(s, e)
            first = paras[0]
            if view.text[first.start : s].strip():
                continue  # not where a paragraph (and so its label) begins
            numbered = [first, *(p for p in paras[1:] if p.start < e)]
            pairs = list(zip(labels, numbered, strict=False)) if len(numbered) == len(labels) else []
            if pairs:
                bad = [(q, p) for q, p in pairs if q and label_key(q) != label_key(p.label or "")]
            else:  # the lines do not line up with paragraphs (a line break inside one)
                have = {label_key(p.label or "") for p in numbered}
                bad = [(q, first) for q in labels if q and label_key(q) not in have]
            if not bad:
                good.append((s, e))
            elif wrong is None:
                q, p = bad[0]
                wrong = WrongLabel(q, p.label, p.start)
        if good:
            tolerances = [*base.tolerances, Tolerance.LABEL.value]
            return Found(good, MatchKind.NORMALIZED, tolerances, base.truncated, labels=labels)
        return Found([], None, wrong_label=wrong) if wrong is not None else None

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
        if "." in needle and norm.expands:  # a match must not begin or end inside an expanded ellipsis
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
    def location(self, start: int, end: int) -> LocationRecord:
        """Where view range [start, end) lies, with a short context around it."""
        para = self.view.paragraph_at(start)
        text = self.view.text
        lo, hi = max(0, start - CONTEXT), min(len(text), end + CONTEXT)
        context = ("…" if lo > 0 else "") + " ".join(text[lo:hi].split()) + ("…" if hi < len(text) else "")
        return LocationRecord(para.part, para.index, start, end, para.label, para.section, context)

    def where(self, start: int) -> str:
        """A short phrase saying where an offset lies: 'section “4.2 Rent”, paragraph 57'."""
        para = self.view.paragraph_at(start)
        return place(para.section, para.index, para.story, para.part)

    def in_deletion(self, quote: str) -> RefusalRecord | None:
        """The ``deleted_text`` refusal when ``quote`` is not in the document as it reads but
        is in a story's text with its tracked deletions put back, over deleted text: someone
        deleted it, or moved it away (:mod:`redline.match.deleted`)."""
        if self._deletions is None:
            self._deletions = RestoredStories(self.view)
        hit = self._deletions.find(quote)
        if hit is None:
            return None
        para = self.view.paragraphs[hit.paragraph]
        who = hit.author or "another author"
        when = f" on {hit.date[:10]}" if hit.date else ""
        did, what = ("moved away", "move") if hit.moved else ("deleted", "deletion")
        return RefusalRecord(
            code=Code.DELETED_TEXT,
            message=f"The anchor is text that {who} {did}{when} (a tracked {what}) in "
            f"{self.where(para.start)}: it is not in the document as it now reads.",
            hint="Quote the passage as it now reads (without the deleted words), or have "
            f"{who}'s {what} rejected first and quote it then.",
            nearest_location=self.location(para.start, para.end),
        )


def _tighten(text: str, quote: str, start: int, end: int) -> tuple[int, int]:
    """Give back the edge whitespace of a tolerant match that the quote did not ask for.

    A quote's leading or trailing space matches a whole whitespace run of the document, which
    may be (or end in) a paragraph mark: "rent. " against "rent.\\n" would take the mark, and the
    writer would delete it, joining two paragraphs. Keep at most as many edge characters as the
    quote has, and never a line break the quote's own edge whitespace does not contain.

    Invisible characters (a soft hyphen, a zero-width space) belong to the edge runs, the
    quote's and the document's: normalisation drops them into the character next to them, so
    "b\u00ad\n rent" matched by "\n rent" would otherwise start at the soft hyphen and read
    as a tolerant match where the quote is there verbatim.
    """
    # invisible characters the quote itself begins or ends with have no normalised character
    # to be found by: take them in where the document has them next to the match
    own_lead = quote[: len(quote) - len(quote.lstrip(INVISIBLE))]
    if own_lead and text.endswith(own_lead, 0, start):
        start -= len(own_lead)
    own_trail = quote[len(quote.rstrip(INVISIBLE)) :]
    if own_trail and text.startswith(own_trail, end):
        end += len(own_trail)
    span = text[start:end]
    # Edge runs, of the quote and of the document, invisible characters in them included:
    # "\n  \u00ad \n" is one run that the quote's edge whitespace matched whole.
    q_lead = quote[: len(quote) - len(quote.lstrip(_BLANK))]
    q_trail = quote[len(quote.rstrip(_BLANK)) :]
    lead = span[: len(span) - len(span.lstrip(_BLANK))]
    trail = span[len(span.rstrip(_BLANK)) :]
    # the quote's own run where the document has it verbatim, else as many spaces
    keep_lead = q_lead if lead.endswith(q_lead) else _as_many(lead[::-1], _spaces(q_lead))[::-1]
    if "\n" in keep_lead and "\n" not in q_lead:
        keep_lead = keep_lead[keep_lead.rindex("\n") + 1 :]
    keep_trail = q_trail if trail.startswith(q_trail) else _as_many(trail, _spaces(q_trail))
    if "\n" in keep_trail and "\n" not in q_trail:
        keep_trail = keep_trail[: keep_trail.index("\n")]
    return start + len(lead) - len(keep_lead), end - (len(trail) - len(keep_trail))


_BLANK = "".join(chr(c) for c in range(0x3001) if chr(c).isspace()) + INVISIBLE  # (U+3000 the last)


def _spaces(run: str) -> int:
    return sum(1 for c in run if c.isspace())


def _as_many(run: str, spaces: int) -> str:
    """The start of ``run`` (whitespace and invisible characters) that holds ``spaces``
    whitespace characters, ending with the last of them (no invisible character after it)."""
    if spaces <= 0:
        return ""
    seen = 0
    for i, c in enumerate(run):
        if c.isspace():
            seen += 1
            if seen == spaces:
                return run[: i + 1]
    return run.rstrip(INVISIBLE)


_MOVED = dict.fromkeys(("NearMiss", "describe_difference"), "redline.match.hints")


def __getattr__(name: str) -> Any:
    """The hints' names, which lived here: fetched from :mod:`redline.match.hints` when first
    asked for (it imports this module)."""
    return forwarded(__name__, name, _MOVED)
