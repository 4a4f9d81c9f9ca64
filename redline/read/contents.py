"""Contents pages: the lines of a table of contents, which are never clauses.

A table of contents repeats the clauses' numbers and titles ("Article 4<TAB>366"); read as
typed numbers they would be sections named like the clauses they list, so that "Article 4"
named two places and the preamble after them lay in the last contents line.  A paragraph is a
contents line when its style (or one it is based on) is one of Word's contents styles ("toc 1"
... "toc 9", "table of figures": §17.7.5, the built-in names Word writes in every language), or
when it ends in a page number after a tab or a dotted leader ("Payment Terms<TAB>12",
"Payment Terms ........ 12"), as every contents line Word's TOC field makes does, hyperlinked
or not; and (:mod:`redline.read.labels`) the lines of a field's result -- a TOC field's
hyperlinked entries, page numbers left out -- when one of them repeats a later heading word for
word (a clause inside an IF field's result repeats none, and stays a clause).  The outline
(:mod:`redline.read.outline`) gives a contents line no section; it lies in
the section before it, as a body paragraph does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

_CONTENTS_STYLES: Final = re.compile(r"(?:toc|table of figures|index) ?[1-9]?", re.IGNORECASE)
# a page number after a tab or a dotted leader, at the end of a line (arabic or roman)
_PAGE_AT_END: Final = re.compile(
    r"(?:\t|\.{4,}|\u2026{2,}|(?:\. ){3,}|_{4,})[\s.\u2026_]*(?:\d{1,4}|[ivxlcdm]{1,7}|[IVXLCDM]{1,7})\s*\Z"
)
MAX_CONTENTS_LINE: Final = 240  # characters: a longer paragraph is a clause, whatever its end
TAIL: Final = 24  # characters of a paragraph's end that show its page number


def contents_style(names: Iterable[str]) -> bool:
    """Whether a paragraph whose style chain has these names (nearest first) is styled as a
    contents line."""
    return any(_CONTENTS_STYLES.fullmatch(name.strip()) for name in names)


def ends_in_page_number(tail: str, length: int) -> bool:
    """Whether a paragraph of ``length`` characters ending in ``tail`` (its last :data:`TAIL`
    characters or more) reads as a contents line: a page number after a tab or a leader."""
    return length <= MAX_CONTENTS_LINE and _PAGE_AT_END.search(tail) is not None
