"""The tolerant-match normalisation, with a map from normalised offsets back to the original.

Only these differences are forgiven (ARCHITECTURE.md, "Matching policy"; do not widen it):

* whitespace: any run of whitespace (space, tab, NBSP, thin and other Unicode spaces, line and
  paragraph breaks) equals any other run;
* quotes: curly, straight and low-9 quotes, apostrophes and primes;
* dashes: hyphen, non-breaking hyphen, figure/en/em dash, horizontal bar, minus;
* invisible: soft hyphens and zero-width characters are ignored;
* ellipsis: ``…`` equals ``...``.

Case, letters, digits and every other punctuation mark must agree.  The map is piecewise (one
segment per place where the length changed), so building it costs C-speed ``str.translate``
plus a regex over the rare length-changing spots -- no per-character Python loop.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

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

ALL = frozenset(Tolerance)


def _table(tolerances: frozenset[Tolerance]) -> dict[int, str]:
    table: dict[int, str] = {}
    if Tolerance.WHITESPACE in tolerances:
        table.update({ord(c): " " for c in WHITESPACE})
    if Tolerance.QUOTES in tolerances:
        table.update({ord(c): "'" for c in SINGLE_QUOTES})
        table.update({ord(c): '"' for c in DOUBLE_QUOTES})
    if Tolerance.DASHES in tolerances:
        table.update({ord(c): "-" for c in DASHES})
    if Tolerance.INVISIBLE in tolerances:
        table.update({ord(c): _GONE for c in INVISIBLE})
    return table


def _pattern(tolerances: frozenset[Tolerance]) -> re.Pattern[str] | None:
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


_TABLES: dict[frozenset[Tolerance], dict[int, str]] = {}
_PATTERNS: dict[frozenset[Tolerance], re.Pattern[str] | None] = {}


def _replacement(run: str) -> str:
    if run == ELLIPSIS:
        return "..."
    return " " if " " in run else ""


def normalize(text: str, tolerances: Iterable[Tolerance] = ALL) -> str:
    """``text`` with the given differences flattened (no map)."""
    key = frozenset(tolerances)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = _table(key)
        _PATTERNS[key] = _pattern(key)
    out = text.translate(table)
    pattern = _PATTERNS[key]
    return out if pattern is None else pattern.sub(lambda m: _replacement(m.group()), out)


# Segment kinds of the offset map.
_IDENT, _COLLAPSE, _EXPAND = 0, 1, 2


@dataclass
class NormalizedText:
    """A normalised copy of a text and the map back to the original's offsets."""

    text: str
    _seg_norm: list[int]
    _seg_orig: list[int]
    _seg_kind: list[int]
    _seg_width: list[int]

    @classmethod
    def build(cls, original: str) -> NormalizedText:
        translated = original.translate(_table(ALL))
        pattern = _pattern(ALL)
        assert pattern is not None
        chunks: list[str] = []
        seg_norm, seg_orig, seg_kind, seg_width = [0], [0], [_IDENT], [0]
        n = 0  # normalised length so far
        last = 0  # original offset consumed so far
        for m in pattern.finditer(translated):
            s, e = m.span()
            chunks.append(translated[last:s])
            n += s - last
            repl = _replacement(m.group())
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
        kind = self._seg_kind[k]
        if kind == _IDENT:
            return self._seg_orig[k] + (n - self._seg_norm[k]) + 1
        return self._seg_orig[k] + self._seg_width[k]

    def orig_span(self, start: int, end: int) -> tuple[int, int]:
        return self.orig_start(start), self.orig_end(end)


def tolerances_needed(quote: str, found: str) -> list[str]:
    """Which tolerances it takes for ``quote`` to equal ``found`` (each one is necessary)."""
    if quote == found:
        return []
    needed = []
    for tol in Tolerance:
        rest = ALL - {tol}
        if normalize(quote, rest) != normalize(found, rest):
            needed.append(tol.value)
    return needed
