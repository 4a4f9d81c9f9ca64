"""The quotes and apostrophes of new text, in the document's own convention.

A model types straight quotes (or English curly ones) whatever the document uses.  New text
follows the convention the document uses consistently -- four to one over any other, or alone:

* ``curly``: English “…” ‘…’ and ’ for an apostrophe;
* ``german``: „…“ ‚…‘ (low-9 opening, high closing) and ’;
* ``french``: «…» ‹…›, with the space the document puts inside the guillemets (none, a space,
  a no-break or a narrow no-break space), and ’;
* ``straight``: "…" '…'.

With no clear convention the text is left as the model wrote it.  The same text in the same
document always comes out the same.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

ENGLISH_QUOTES = "\u201c\u201d\u2018\u2019"
ALL_QUOTES = frozenset("\"'" + ENGLISH_QUOTES + "\u201e\u201a\u00ab\u00bb\u2039\u203a")
_TO_STRAIGHT = str.maketrans(
    {"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
     "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u2039": "'", "\u203a": "'"}
)  # fmt: skip
_STRAIGHT = re.compile("[\"']")
_SPACES = " \u00a0\u202f"
_OPENERS = "([{\u2014\u2013-/"


@dataclass(frozen=True)
class _Marks:
    open2: str
    close2: str
    open1: str
    close1: str


_MARKS = {
    "curly": _Marks("\u201c", "\u201d", "\u2018", "\u2019"),
    "german": _Marks("\u201e", "\u201c", "\u201a", "\u2018"),
    "french": _Marks("\u00ab", "\u00bb", "\u2039", "\u203a"),
}


def quote_style(text: str) -> str | None:
    """The document's quote convention (see the module's docstring), or None."""
    if "\u201e" in text or "\u00ab" in text:
        german, french = text.count("\u201e"), text.count("\u00ab")
        english = text.count("\u201d")
        straight = text.count('"')
        if german > 4 * (english + straight + french):
            return "german"
        if french > 4 * (english + straight + german):
            return "french"
    straight = text.count('"') + text.count("'")
    if not straight:  # (four scans of a long text saved when there is no straight quote)
        return "curly" if any(c in text for c in ENGLISH_QUOTES) else None
    curly = sum(text.count(c) for c in ENGLISH_QUOTES)
    if curly > 4 * straight:
        return "curly"
    if straight > 4 * curly:
        return "straight"
    return None


def guillemet_space(text: str) -> str:
    """The space a French document puts inside its guillemets ("" when none)."""
    after = Counter(text[i + 1] if i + 1 < len(text) else "" for i in _positions(text, "\u00ab"))
    if not after:
        return "\u00a0"
    char, _ = after.most_common(1)[0]
    return char if char in _SPACES else ""


def _positions(text: str, char: str) -> list[int]:
    out: list[int] = []
    i = text.find(char)
    while i >= 0 and len(out) < 200:
        out.append(i)
        i = text.find(char, i + 1)
    return out


def follow_quotes(text: str, style: str | None, context: str = "", space: str = "") -> str:
    """``text`` with its quotes and apostrophes in the document's ``style``; ``context`` is
    the text just before (for a quote at the very start); ``space``: French guillemets' space."""
    if style is None:
        return text
    if style == "straight":
        return text.translate(_TO_STRAIGHT)
    marks = _MARKS[style]
    plain = text.translate(_TO_STRAIGHT)
    pending = {'"': 0, "'": 0}  # quotes opened and not yet closed

    def repl(m: re.Match[str]) -> str:
        i, q = m.start(), m.group()
        prev = plain[i - 1] if i > 0 else (context[-1:] or " ")
        nxt = plain[i + 1] if i + 1 < len(plain) else " "
        opening = prev.isspace() or prev in _OPENERS
        if q == "'" and prev.isalnum() and nxt.isalnum():
            return "\u2019"  # an apostrophe inside a word: Tenant’s
        if pending[q] and (not prev.isspace() or nxt.isspace()):
            pending[q] -= 1
            return marks.close2 if q == '"' else marks.close1
        if opening and (q == '"' or nxt.isalnum()):
            pending[q] += 1
            return marks.open2 if q == '"' else marks.open1
        return marks.close2 if q == '"' else "\u2019"  # a closing quote, or ’90s, Tenants’

    out = _STRAIGHT.sub(repl, plain)
    if style == "french":  # the document's space inside the guillemets, whatever the model typed
        out = re.sub("\u00ab[ \u00a0\u202f]*", "\u00ab" + space, out)
        out = re.sub("[ \u00a0\u202f]*\u00bb", space + "\u00bb", out)
    return out


def smarten_quotes(text: str, context: str = "") -> str:
    """Straight quotes and apostrophes in ``text`` as English curly ones."""
    return follow_quotes(text, "curly", context)
