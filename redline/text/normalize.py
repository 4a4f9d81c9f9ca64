"""The tolerant-match normalisation, with a map from normalised offsets back to the original.

Only these differences are forgiven (ARCHITECTURE.md, "Matching policy"; do not widen it):

* whitespace: any run of whitespace (space, tab, NBSP, thin and other Unicode spaces, line and
  paragraph breaks) equals any other run;
* quotes: curly, straight and low-9 quotes, apostrophes and primes;
* dashes: hyphen, non-breaking hyphen, figure/en/em dash, horizontal bar, minus;
* invisible: soft hyphens and zero-width characters are ignored;
* ellipsis: ``…`` equals ``...``.

Case, letters, digits and every other punctuation mark must agree.

:class:`NormalizedText` normalises a whole document once.  One-for-one substitutions (a curly
quote becomes a straight one) keep every offset, so they are done with ``str.replace`` at C
speed; only the rare places where the length changes (a run of several spaces, an invisible
character, an ellipsis) are visited in Python, each becoming one segment of a piecewise map --
never a per-character array.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache

from shared_schema import Tolerance

WHITESPACE = (
    "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
SINGLE_QUOTES = "'\u2018\u2019\u201a\u201b\u2032\u2035\u02bc"
DOUBLE_QUOTES = '"\u201c\u201d\u201e\u201f\u2033\u2036'
DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
ELLIPSIS = "\u2026"

_GONE = "\x00"  # stands in for an invisible character until the length-changing pass
_RUN = " \x00"  # what a whitespace/invisible run is made of after the one-for-one pass

ALL = frozenset(Tolerance) - {Tolerance.LABEL}  # a label is left out before matching, not normalised


def _table(tolerances: frozenset[Tolerance]) -> dict[str, str]:
    """The one-for-one substitutions of ``tolerances`` (identity pairs left out)."""
    table: dict[str, str] = {}
    if Tolerance.WHITESPACE in tolerances:
        table.update({c: " " for c in WHITESPACE})
    if Tolerance.QUOTES in tolerances:
        table.update({c: "'" for c in SINGLE_QUOTES})
        table.update({c: '"' for c in DOUBLE_QUOTES})
    if Tolerance.DASHES in tolerances:
        table.update({c: "-" for c in DASHES})
    if Tolerance.INVISIBLE in tolerances:
        table.update({c: _GONE for c in INVISIBLE})
    return {c: r for c, r in table.items() if c != r}


def _pattern(tolerances: frozenset[Tolerance]) -> re.Pattern[str] | None:
    """The length-changing spots of ``tolerances``, on text after the one-for-one pass."""
    parts = []
    spaces, invisible = Tolerance.WHITESPACE in tolerances, Tolerance.INVISIBLE in tolerances
    if spaces and invisible:
        parts.append("[ \x00]*\x00[ \x00]*|  +")
    elif invisible:
        parts.append("\x00+")
    elif spaces:
        parts.append("  +")
    if Tolerance.ELLIPSIS in tolerances:
        parts.append(ELLIPSIS)
    return re.compile("|".join(parts)) if parts else None


_SHORT = 48  # characters below which str.translate is the faster one-for-one pass


class _Rules:
    """The compiled form of one set of tolerances."""

    def __init__(self, tolerances: frozenset[Tolerance]) -> None:
        table = _table(tolerances)
        self.pairs = sorted(table.items())
        self.translate_table = str.maketrans(table)
        self.pattern = _pattern(tolerances)
        self.ascii = tuple(c for c in sorted(table) if c.isascii())  # (the ASCII controls: tab, line end...)

    def one_for_one(self, text: str) -> str:
        if text.isascii() and not any(c in text for c in self.ascii):
            return text  # (most text: ASCII, no character the table changes)
        if len(text) < _SHORT:
            return text.translate(self.translate_table)
        # Past a few dozen characters, a few C-speed scans beat translate()'s per-character
        # dict lookup (a 74-character clause with curly quotes: 1.5 µs against 5.3 µs).
        for char, repl in self.pairs:
            if char in text:
                text = text.replace(char, repl)
        return text


_RULES: dict[frozenset[Tolerance], _Rules] = {}


def _rules(tolerances: frozenset[Tolerance]) -> _Rules:
    rules = _RULES.get(tolerances)
    if rules is None:
        rules = _RULES[tolerances] = _Rules(tolerances)
    return rules


def _replacement(run: str) -> str:
    if run == ELLIPSIS:
        return "..."
    return " " if " " in run else ""


def normalize(text: str, tolerances: Iterable[Tolerance] = ALL) -> str:
    """``text`` with the given differences flattened (no map)."""
    if tolerances is ALL:
        return _normalize_all(text)
    return _normalize(text, tolerances if isinstance(tolerances, frozenset) else frozenset(tolerances))


@lru_cache(maxsize=4096)
def _normalize_all(text: str) -> str:
    """Every tolerance, the usual case: a quote is normalised to be found, then again to be
    compared with its replacement or to be described."""
    return _normalize(text, ALL)


def _normalize(text: str, tolerances: frozenset[Tolerance]) -> str:
    rules = _rules(tolerances)
    out = rules.one_for_one(text)
    if rules.pattern is None or not (_GONE in out or "  " in out or ELLIPSIS in out):
        return out  # nothing whose length changes (the usual case): no regex pass
    return rules.pattern.sub(lambda m: _replacement(m.group()), out)


def identity_normalized(original: str) -> str | None:
    """``NormalizedText.build(original).text`` when nothing in ``original`` changes length
    (no run of spaces collapsed, no invisible character dropped, no ellipsis expanded: the
    usual case, where every offset maps to itself), without building the map; else None."""
    translated = _rules(ALL).one_for_one(original)
    return translated if _keeps_offsets(translated) else None


def _keeps_offsets(translated: str) -> bool:
    """Does the one-for-one pass's ``translated`` normalise with every offset kept -- no
    invisible character to drop, no run of spaces to collapse, no ellipsis to expand (the
    needles :meth:`NormalizedText.build` looks for)?"""
    return not (_GONE in translated or "  " in translated or ELLIPSIS in translated)


# Segment kinds of the offset map.
_IDENT, _COLLAPSE, _EXPAND = 0, 1, 2


@dataclass
class NormalizedText:
    """A normalised copy of a text (every tolerance) and the map back to the original's offsets.

    The map is a list of segments, each starting at normalised offset ``_seg_norm[k]`` and
    original offset ``_seg_orig[k]``: an identity stretch, a run collapsed to one space or to
    nothing (``_seg_width[k]`` original characters), or an ellipsis expanded to three dots.
    """

    text: str
    _seg_norm: list[int]
    _seg_orig: list[int]
    _seg_kind: list[int]
    _seg_width: list[int]

    @classmethod
    def build(cls, original: str) -> NormalizedText:
        translated = _rules(ALL).one_for_one(original)
        if _keeps_offsets(translated):
            return cls(translated, [0], [0], [_IDENT], [0])
        spots: list[int] = []
        for needle in (_GONE, "  ", ELLIPSIS):
            pos = translated.find(needle)
            while pos >= 0:
                spots.append(pos)
                pos = translated.find(needle, pos + len(needle))
        spots.sort()
        chunks: list[str] = []
        seg_norm, seg_orig, seg_kind, seg_width = [0], [0], [_IDENT], [0]
        size = len(translated)
        n = 0  # normalised length so far
        last = 0  # original offset consumed so far
        for spot in spots:
            if spot < last:
                continue  # inside a run already replaced
            if translated[spot] == ELLIPSIS:
                s, e = spot, spot + 1
            else:
                s, e = spot, spot + 1
                while s > last and translated[s - 1] in _RUN:
                    s -= 1
                while e < size and translated[e] in _RUN:
                    e += 1
            chunks.append(translated[last:s])
            n += s - last
            repl = _replacement(translated[s:e])
            if repl:
                seg_norm.append(n)
                seg_orig.append(s)
                seg_kind.append(_EXPAND if len(repl) > 1 else _COLLAPSE)
                seg_width.append(e - s)
                chunks.append(repl)
                n += len(repl)
            seg_norm.append(n)
            seg_orig.append(e)
            seg_kind.append(_IDENT)
            seg_width.append(0)
            last = e
        chunks.append(translated[last:])
        return cls("".join(chunks), seg_norm, seg_orig, seg_kind, seg_width)

    @cached_property
    def expands(self) -> bool:
        """Whether any ellipsis was expanded (else no boundary can split one)."""
        return _EXPAND in self._seg_kind

    def _segment(self, n: int) -> int:
        return bisect.bisect_right(self._seg_norm, n) - 1

    def orig_start(self, n: int) -> int:
        """Original offset where normalised character ``n`` begins."""
        k = self._segment(n)
        if self._seg_kind[k] == _IDENT:
            return self._seg_orig[k] + (n - self._seg_norm[k])
        return self._seg_orig[k]

    def orig_end(self, n_end: int) -> int:
        """Original offset just past normalised range ending at ``n_end`` (exclusive)."""
        if n_end <= 0:
            return self.orig_start(0)
        n = n_end - 1
        k = self._segment(n)
        if self._seg_kind[k] == _IDENT:
            return self._seg_orig[k] + (n - self._seg_norm[k]) + 1
        return self._seg_orig[k] + self._seg_width[k]

    def orig_span(self, start: int, end: int) -> tuple[int, int]:
        """The original range that normalised ``[start, end)`` came from."""
        return self.orig_start(start), self.orig_end(end)

    def splits_expansion(self, n: int) -> bool:
        """Whether a boundary at normalised offset ``n`` falls inside an expanded ellipsis.

        A match may not begin or end there: the quote "etc." must not match inside "etc…".
        """
        k = self._segment(n)
        return self._seg_kind[k] == _EXPAND and n != self._seg_norm[k]


# The characters each tolerance acts on (whitespace is left out: a run of plain spaces is
# collapsed too).  \x00 stands in for an invisible character while normalising.
_CHARS = {
    Tolerance.QUOTES: frozenset(SINGLE_QUOTES + DOUBLE_QUOTES),
    Tolerance.DASHES: frozenset(DASHES),
    Tolerance.INVISIBLE: frozenset(INVISIBLE + _GONE),
    Tolerance.ELLIPSIS: frozenset(ELLIPSIS),
}


def tolerances_needed(quote: str, found: str) -> list[str]:
    """Which tolerances it takes for ``quote`` to equal ``found`` (each one is necessary)."""
    if quote == found:
        return []
    # A tolerance whose characters occur in neither text cannot be what makes two tolerantly
    # equal texts equal: dropping it normalises both exactly as before.
    present = None if normalize(quote) != normalize(found) else set(quote).union(found)
    needed = []
    for tol in sorted(ALL, key=list(Tolerance).index):
        chars = _CHARS.get(tol)
        if present is not None and chars is not None and present.isdisjoint(chars):
            continue
        rest = ALL - {tol}
        if normalize(quote, rest) != normalize(found, rest):
            needed.append(tol.value)
    return needed
