"""A contract's clauses as a lawyer cites them: numbers, the sections they head, their names.

Three things, each decided here once for every reader of a view:

* **Numbers.** A paragraph's number is the label Word displays for it (from ``numbering.xml``,
  see :mod:`redline.read.numbering`), or, when it has none, a number typed at the start of its text:
  "5.1.", "12.", "(a)", "(iv)", "Clause 17", "Section 4.2", "§ 2", "Article IV", "Part A",
  "Schedule 2", "Annex I", "Exhibit B", "Appendix 3" (:func:`typed_number`).  A bullet, or a
  label with no letter or digit in it, is not a number.
* **Sections.** Every numbered paragraph and every heading (a paragraph with an outline level)
  heads a section.  Sections nest by rank: the word a container is named with ("Schedule",
  "Annex", "Exhibit", "Appendix" above "Part" above "Article"), else the list level of an
  automatic number (``w:ilvl``), the depth of a typed decimal number ("4.2.1": 2), a heading's
  outline level (an unnumbered heading ranks just above a number of its level, so the
  numbered clauses after it lie inside it), and, for a typed "(a)", one below the clause it
  follows unless an item of the same style is open (then it is that item's sibling).  A
  paragraph that heads nothing -- a body paragraph, a bullet -- lies in the innermost open
  section: its section is never a bullet or another body paragraph.
* **Names.** Each head has a citation ("4.2", "4.2(b)" for an "(b)" item inside 4.2, "Article
  4", "Schedule 2") and a title ("4.2 Operating Expenses"); inside a schedule, annex, exhibit or
  appendix -- where clause numbers start again -- the title is prefixed with it ("Schedule 2 ›
  1 Services").  :func:`parse_reference` reads what lawyers write ("Clause 4.2", "clause
  4.2(b)", "§4.2", "Art. IV", "18(b)", "Schedule 2, paragraph 1", a heading's text), insensitive
  to case, spacing, quote style and a trailing dot; :meth:`Outline.named` finds the sections a
  reference names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from shared_schema.rules import MAX_SECTION

from ..text.normalize import normalize

MAX_REFERENCE = MAX_SECTION  # characters: a longer "section" is not a section name


class Kind(StrEnum):
    """What a number's word says it numbers."""

    CLAUSE = "clause"  # clause, section, §, paragraph, or no word at all
    ARTICLE = "article"
    PART = "part"
    SCHEDULE = "schedule"
    ANNEX = "annex"
    EXHIBIT = "exhibit"
    APPENDIX = "appendix"


# Containers inside which clause numbering starts again: a clause "1" there is not clause 1.
NAMESPACES: Final = frozenset({Kind.SCHEDULE, Kind.ANNEX, Kind.EXHIBIT, Kind.APPENDIX, Kind.PART})
_RANK_OF_KIND: Final = {
    Kind.SCHEDULE: -4.0, Kind.ANNEX: -4.0, Kind.EXHIBIT: -4.0, Kind.APPENDIX: -4.0,
    Kind.PART: -3.0, Kind.ARTICLE: -2.0,
}  # fmt: skip
_WORDS: Final = {
    "clause": Kind.CLAUSE, "clauses": Kind.CLAUSE, "cl": Kind.CLAUSE, "cls": Kind.CLAUSE,
    "section": Kind.CLAUSE, "sections": Kind.CLAUSE, "sec": Kind.CLAUSE, "sect": Kind.CLAUSE,
    "§": Kind.CLAUSE, "§§": Kind.CLAUSE, "paragraph": Kind.CLAUSE, "para": Kind.CLAUSE,
    "paras": Kind.CLAUSE, "par": Kind.CLAUSE, "subclause": Kind.CLAUSE, "sub-clause": Kind.CLAUSE,
    "subsection": Kind.CLAUSE, "sub-section": Kind.CLAUSE, "item": Kind.CLAUSE,
    "article": Kind.ARTICLE, "art": Kind.ARTICLE, "articles": Kind.ARTICLE,
    "part": Kind.PART, "schedule": Kind.SCHEDULE, "sch": Kind.SCHEDULE, "sched": Kind.SCHEDULE,
    "annex": Kind.ANNEX, "annexure": Kind.ANNEX, "exhibit": Kind.EXHIBIT, "ex": Kind.EXHIBIT,
    "appendix": Kind.APPENDIX, "app": Kind.APPENDIX, "attachment": Kind.APPENDIX,
}  # fmt: skip
# Words that make a typed number at the start of a paragraph (fewer than a reference may use:
# "Paragraph 3 applies" begins many a body paragraph).
_HEAD_WORDS = r"article|art\.|clause|section|sec\.|schedule|annex(?:ure)?|exhibit|appendix|attachment|part"
_ROMAN = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})", re.IGNORECASE)
_DECIMAL = r"\d{1,3}(?:\.\d{1,3})*"
_PARENS = r"(?:\s?\((?:[A-Za-z]{1,4}|\d{1,3})\))*"
_AFTER_NUMBER = r"(?!\.?\d)(?=\s*$|\s*[.:)\u2013\u2014-]|\s+[A-Z0-9\"'(\[\u201c\u2018\u00ab\u201e]|\t)"
TYPED_PATTERNS: Final = (
    # "Clause 17", "Section 4.2(b)", "Article IV", "Schedule 2", "Part A", "§ 2", "§§ 3"
    re.compile(
        rf"(?:(?i:{_HEAD_WORDS})\s+|\u00a7\u00a7?\s*)"
        rf"(?:{_DECIMAL}{_PARENS}|[IVXLCDM]{{1,7}}\b|[ivxlcdm]{{1,7}}\b|[A-Za-z]\b)\.?" + _AFTER_NUMBER
    ),
    # "4.2", "4.2.1.", "12." -- a lone number only with its dot or bracket
    re.compile(
        r"\d{1,3}(?:\.\d{1,3})+(?:\.(?=\s)|(?=\t))|(?:\d{1,3}(?:\.\d{1,3})+[.)]?|\d{1,3}[.)])" + _AFTER_NUMBER
    ),
    # "(a)", "(iv)", "(A)", "(12)", "a)", "iv)"
    re.compile(r"\((?:[a-z]|[A-Z]|[ivxlcdm]{1,6}|[IVXLCDM]{1,6}|\d{1,3}|([a-z])\1)\)(?=\s)"),
    re.compile(r"(?:[a-z]|[ivx]{1,6}|\d{1,3})\)(?=\s)"),
)
LEADING_SPACE = re.compile(r"\s*")
TYPED_SPAN = 100  # the characters of a paragraph's start typed_number reads: 40 of space, 60 more
# The four in one, in their order: at one place an alternation takes its first alternative
# that matches, as the loop over them did (one regex call per paragraph rather than four).
_ANY_TYPED: Final = re.compile("|".join(f"(?:{p.pattern})" for p in TYPED_PATTERNS))
# "\\1" is still (a)(a)'s
assert _ANY_TYPED.groups == sum(p.groups for p in TYPED_PATTERNS) == TYPED_PATTERNS[2].groups


def typed_number(text: str) -> str | None:
    """The number typed at the start of a paragraph's ``text`` ("5.1.", "(a)", "Clause 17",
    "Article IV"), as typed, or None."""
    at = LEADING_SPACE.match(text, 0, 40)
    pos = at.end() if at else 0
    m = _ANY_TYPED.match(text[pos : pos + 60])
    return m.group(0).strip() if m else None


def label_key(label: str) -> str:
    """A label as compared with one a quote begins with: "4.2." is "4.2", "(a)" is "a)"."""
    return unicodedata.normalize("NFKC", label).strip().rstrip(".:").lstrip("(").casefold()


LABEL_MAX = 40  # characters at the start of a quote's line that may hold a label
_SPACE_RUN = re.compile(r"[ \t\u00a0\u2002-\u200a\u202f]+")


def split_label(line: str, keys: Collection[str]) -> tuple[str, str] | None:
    """(the label ``line`` begins with, the rest of the line after the space that ends it), or
    None: the label is one whose :func:`label_key` is among ``keys``, within the line's first
    :data:`LABEL_MAX` characters (the one rule by which a quote's or a replacement's leading
    clause number is recognised)."""
    if keys:
        for m in _SPACE_RUN.finditer(line, 0, min(len(line), LABEL_MAX)):
            if m.start() and label_key(line[: m.start()]) in keys:
                return line[: m.start()].strip(), line[m.end() :]
    return None


_ALNUM = re.compile(r"[^\W_]")  # a character c for which c.isalnum() (as \w is, less "_")


def is_number(label: str | None) -> bool:
    """Whether a displayed label numbers a clause (a bullet, or "", or "•" does not)."""
    return bool(label) and _ALNUM.search(label or "") is not None


# -------------------------------------------------------------------------------------------
# Reading a number: "Article IV" -> (ARTICLE, ("4",)); "4.2(b)" -> (CLAUSE, ("4", "2", "b"))


@dataclass(frozen=True, slots=True)
class Number:
    kind: Kind
    path: tuple[str, ...]
    style: str  # the last component's style: "1", "a", "A", "i", "I" (for sibling checks)
    parenthesised: bool  # the last component is "(x)" or "x)"


_PART = re.compile(r"\d+|[^\W\d_]+", re.UNICODE)
_WORD_AT_START = re.compile(r"(§§?|[^\W\d_][\w-]*\.?)\s*", re.UNICODE)


def _key_text(text: str) -> str:
    """Case, spacing, quote style, dash style and a trailing dot do not matter in a name."""
    text = unicodedata.normalize("NFKC", text)
    text = " ".join(normalize(text).split()).casefold()
    return text.strip(" \"'").rstrip(".:;,").strip(" \"'")


def _roman_value(text: str) -> int:
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    total, prev = 0, 0
    for ch in reversed(text.casefold()):
        v = values[ch]
        total = total - v if v < prev else total + v
        prev = max(prev, v)
    return total


def _style(part: str) -> str:
    if part.isdigit():
        return "1"
    if _ROMAN.fullmatch(part) and len(part) > 1:
        return "I" if part.isupper() else "i"
    return "A" if part.isupper() else "a"


_NUMBER_SHAPE = re.compile(
    r"\(?[^\W_]{1,6}\)?(?:\s*(?:\.\s*[^\W_]{1,6}|\(\s*[^\W_]{1,6}\s*\)))*\.?", re.UNICODE
)


_DECIMAL_LABEL = re.compile(r"[0-9]{1,6}(?:\.[0-9]{1,6})*\.?")


def read_number(text: str) -> Number | None:
    """The number a label or typed number stands for, or None when ``text`` is not one."""
    if len(text) <= 40 and _DECIMAL_LABEL.fullmatch(text):  # "4.2.1", "12.": most labels
        parts = text.rstrip(".").split(".")
        return Number(Kind.CLAUSE, tuple([_numeral(p) for p in parts]), "1", False)
    return read_number_fully(text)


_NUMERALS: Final = {str(n): str(n) for n in range(1000)}


def _numeral(digits: str) -> str:
    """``str(int(digits))``, one string for each small number (thousands of heads' paths hold
    "1" or "12", each its own copy otherwise: 330 KB of a 300-page contract's outline)."""
    return _NUMERALS.get(digits) or str(int(digits))


def read_number_fully(text: str) -> Number | None:
    """:func:`read_number` the long way, for any text (its short way's oracle in the tests)."""
    text = unicodedata.normalize("NFKC", text).strip()
    kind = Kind.CLAUSE
    rest = text
    m = _WORD_AT_START.match(text)
    if m:
        word = m.group(1).casefold().rstrip(".")
        if word in _WORDS:
            kind = _WORDS[word]
            rest = text[m.end() :]
    rest = rest.strip().rstrip(".:;,\u2013\u2014- ")
    if not rest or len(rest) > 40 or not _NUMBER_SHAPE.fullmatch(rest):
        return None
    parts = _PART.findall(rest)
    if not parts:
        return None
    parenthesised = rest.endswith(")")
    first = parts[0]
    if first.isdigit():
        lead = _numeral(first)
    elif (
        not (parenthesised and len(parts) == 1)
        and _ROMAN.fullmatch(first)
        and (kind is not Kind.CLAUSE or (first.isupper() and len(first) > 1))
    ):
        lead = str(_roman_value(first))  # "Article IV" is Article 4; "(iv)" stays "iv"
    else:
        lead = first.casefold()
    path = (lead, *(_numeral(p) if p.isdigit() else p.casefold() for p in parts[1:]))
    return Number(kind, path, _style(parts[-1]), parenthesised)


# -------------------------------------------------------------------------------------------
# References: what a model or a lawyer writes as `section`


@dataclass(frozen=True, slots=True)
class Reference:
    """A parsed section name: the containers it is inside (outermost first), its target, and
    its text as a key (for headings and titles)."""

    within: tuple[tuple[Kind, tuple[str, ...]], ...]
    target: tuple[Kind, tuple[str, ...]] | None
    text: str


_SEGMENT_SPLIT = re.compile(
    r"\s*,\s*|\s+of\s+|\s+(?=(?:schedule|annex|annexure|exhibit|appendix|part|paragraph|para\.?)\s)",
    re.IGNORECASE,
)


def parse_reference(name: str) -> Reference:
    """Read a section name as lawyers write it (see the module's docstring)."""
    text = _key_text(name)
    plain = normalize(unicodedata.normalize("NFKC", name)).strip().strip("\"'").strip()
    segments = [s for s in _SEGMENT_SPLIT.split(plain) if s and s.strip()]
    numbers = [read_number(s) for s in segments]
    if segments and all(n is not None for n in numbers):
        parsed = [(n.kind, n.path) for n in numbers if n is not None]
        if len(parsed) > 1 and " of " in name.casefold():
            parsed.reverse()  # "paragraph 1 of Schedule 2": the container comes last
        return Reference(tuple(parsed[:-1]), parsed[-1], text)
    return Reference((), None, text)


# -------------------------------------------------------------------------------------------
# The outline


@dataclass(frozen=True, slots=True)
class Entry:
    """What the outline needs of one paragraph of a story."""

    story: str  # a new story starts the outline again (only the body has numbers)
    label: str | None  # the label Word displays, or None
    ilvl: int | None  # its list level
    outline: int | None  # the paragraph's outline level (a heading), or None
    # The start of the paragraph's text: enough for a typed number and a title (240
    # characters) or, when build_outline is given where the titles are (text_of), enough for a
    # typed number (TYPED_SPAN characters; none when the label is a number).
    text: str


@dataclass(slots=True, eq=False)
class Head:
    """One section: the paragraph that heads it, and where it ends."""

    index: int  # the heading paragraph's position among the entries
    number: Number | None  # None for an unnumbered heading
    shown: str | None  # the number as shown: the label, or the typed number
    typed: bool
    heading: bool  # an outline heading (True), or a numbered clause (False)
    rank: float
    parent: Head | None = None
    last: int = -1  # the position of the section's last paragraph
    depth: int = 0  # 0 for a top-level section, its parent's + 1 inside one
    style: str = ""  # its number's style ("1", "a", "A", "i", "I"), "(i)" read as roman or letter
    children: list[Head] = field(default_factory=list, repr=False)
    # Its names (cite, title, path, namespace below), made from its entry on first use: most
    # sections of a document are never named (an edit names a few, a report the ones it lands in).
    entry: Entry | None = field(default=None, repr=False)
    text_of: Callable[[int], str] | None = field(default=None, repr=False)  # see build_outline
    _cite: str = ""
    _title: str = ""
    _path: tuple[str, ...] = ()
    _namespace: Head | None = None

    @property
    def cite(self) -> str:
        """ "4.2(b)", "Article IV", "Schedule 2"; a heading's text when unnumbered."""
        self._named()
        return self._cite

    @property
    def title(self) -> str:
        """ "4.2 Operating Expenses"; prefixed with its container in a schedule."""
        self._named()
        return self._title

    @property
    def path(self) -> tuple[str, ...]:
        """The full number: ("4", "2", "b") for an "(b)" inside 4.2."""
        self._named()
        return self._path

    @property
    def namespace(self) -> Head | None:
        """The schedule (annex, ...) it lies in, if any."""
        self._named()
        return self._namespace

    def _named(self) -> None:
        entry = self.entry
        if entry is not None:
            _name(self, entry)  # (the same names, whichever thread makes them first)
            self.entry = None

    def within(self, other: Head) -> bool:
        """Whether this section lies inside ``other`` (or is it)."""
        head: Head | None = self
        while head is not None:
            if head is other:
                return True
            head = head.parent
        return False


@dataclass(frozen=True, slots=True)
class _Index:
    by_number: dict[tuple[Kind, tuple[str, ...]], list[Head]]
    by_text: dict[str, list[Head]]


@dataclass
class Outline:
    heads: list[Head]
    head_of: list[Head | None]  # per entry: the section it lies in (its own, for a head)
    # the heads by number and by text: made on the first look-up (a document whose edits name
    # no section never asks, and indexing every head's texts is a fifth of reading it)
    _index: _Index | None = field(default=None, repr=False, compare=False)

    def _indexes(self) -> _Index:
        if self._index is None:
            by_number: dict[tuple[Kind, tuple[str, ...]], list[Head]] = {}
            by_text: dict[str, list[Head]] = {}
            for head in self.heads:
                if head.number is not None:
                    key = (head.number.kind, head.path)
                    by_number.setdefault(key, []).append(head)
                    own = (head.number.kind, head.number.path)
                    if own != key:
                        by_number.setdefault(own, []).append(head)
                for text in {head.title, head.cite, _title_words(head)}:
                    if text:
                        by_text.setdefault(_key_text(text), []).append(head)
            self._index = _Index(by_number, by_text)
        return self._index

    def named(self, name: str) -> list[Head]:
        """Every section ``name`` names (several when it is ambiguous), best reading first."""
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_REFERENCE:
            return []
        ref = parse_reference(name)
        if ref.target is not None:
            found = self._numbered(ref)
            if found:
                return found
        return list(self._indexes().by_text.get(ref.text, ()))

    def _numbered(self, ref: Reference) -> list[Head]:
        assert ref.target is not None
        kind, path = ref.target
        by_number = self._indexes().by_number
        found = by_number.get((kind, path), [])
        if not found and kind in (Kind.CLAUSE, Kind.ARTICLE):  # "Section 4" for "Article 4"
            other = Kind.ARTICLE if kind is Kind.CLAUSE else Kind.CLAUSE
            found = by_number.get((other, path), [])
        if ref.within:
            containers = [self._numbered(Reference((), target, "")) for target in ref.within]
            return [h for h in found if all(any(h.within(c) for c in group) for group in containers)]
        outside = [h for h in found if h.namespace is None or h.namespace is h]
        # a full path is exact; the short form of a relative label ("(b)") only when alone
        full = [h for h in outside or found if h.path == path]
        return _unique(full or outside or found)

    def near(self, head: Head | None, limit: int = 6) -> list[Head]:
        """The sections around ``head``: its parent, its siblings and itself, in order."""
        if head is None:
            return self.heads[:limit]
        parent = head.parent
        family = parent.children if parent is not None else [h for h in self.heads if h.parent is None]
        at = family.index(head) if head in family else 0
        lo = max(0, at - limit // 2)
        out = ([parent] if parent is not None else []) + family[lo : lo + limit]
        return out[:limit]


def _unique(heads: Iterable[Head]) -> list[Head]:
    seen: set[int] = set()
    out = []
    for h in heads:
        if id(h) not in seen:
            seen.add(id(h))
            out.append(h)
    return out


def _title_words(head: Head) -> str:
    """The title without its number: "Operating Expenses"."""
    if head.shown and head.title.startswith(head.cite):
        return head.title[len(head.cite) :].strip()
    return ""


def build_outline(entries: Sequence[Entry], text_of: Callable[[int], str] | None = None) -> Outline:
    """The sections of a view's paragraphs (see the module's docstring).

    ``text_of(i)``: the start of entry ``i``'s text as a title needs it (240 characters), for
    entries that carry only enough for a typed number -- a head keeps its entry until it is
    first named, and a title read from the view's text when it is costs no copy of thousands
    of paragraph starts."""
    heads: list[Head] = []
    head_of: list[Head | None] = []
    stack: list[Head] = []
    stand_ins: dict[int | None, Entry] = {}
    story = None
    for i, entry in enumerate(entries):
        if entry.story != story:
            _close(stack, None, i)
            story = entry.story
        head = _head(i, entry, stack) if entry.story == "body" else None
        if head is None:
            head_of.append(stack[-1] if stack else None)
            continue
        _close(stack, head.rank, i)
        head.parent = stack[-1] if stack else None
        # named on first use (Head.cite, .title, .path, .namespace): from its entry, or from
        # text_of and, for the rest naming reads (the list level), one stand-in per level
        if text_of is None:
            head.entry = entry
        else:
            head.entry = stand_ins.get(entry.ilvl) or stand_ins.setdefault(
                entry.ilvl, Entry(entry.story, None, entry.ilvl, None, "")
            )
            head.text_of = text_of
        if head.parent is not None:
            head.depth = head.parent.depth + 1
            head.parent.children.append(head)
        stack.append(head)
        heads.append(head)
        head_of.append(head)
    _close(stack, None, len(entries))
    return Outline(heads, head_of)


def _close(stack: list[Head], rank: float | None, at: int) -> None:
    """End the open sections of ``rank`` or below (all, for None) before entry ``at``."""
    while stack and (rank is None or stack[-1].rank >= rank):
        stack.pop().last = at - 1


def _head(i: int, entry: Entry, stack: list[Head]) -> Head | None:
    shown: str | None = entry.label if is_number(entry.label) else None
    typed = False
    if shown is None:
        shown = typed_number(entry.text)
        typed = shown is not None
    number = read_number(shown) if shown else None
    heading = entry.outline is not None
    if number is None and not heading:
        return None
    if number is None:
        assert entry.outline is not None
        rank = entry.outline - 0.5  # the numbered clauses of its level lie inside it
    elif number.kind in _RANK_OF_KIND:
        rank = _RANK_OF_KIND[number.kind]
    elif not typed and entry.ilvl is not None:
        rank = _rank(entry.ilvl)
    elif number.parenthesised and len(number.path) == 1:
        head = Head(i, number, shown, typed, heading, 0.0, style=number.style)
        head.rank = _item_rank(head, stack)
        return head
    elif heading and entry.outline is not None and not typed:
        rank = _rank(entry.outline)
    else:
        rank = _rank(len(number.path) - 1)
    return Head(i, number, shown, typed, heading, rank, style=number.style if number else "")


_RANKS: Final = tuple(float(n) for n in range(16))


def _rank(n: int) -> float:
    """``float(n)``, one object for each small rank (a float each is 100 KB of an outline)."""
    return _RANKS[n] if 0 <= n < len(_RANKS) else float(n)


def _item_rank(head: Head, stack: list[Head]) -> float:
    """A typed "(a)": the sibling of an open item of its style, else one below the top.  A
    letter that is also a roman numeral is a letter after the letter before it ("(h)" then
    "(i)"), a numeral after the numeral before it ("(iv)" then "(v)"), and "(i)" otherwise."""
    assert head.number is not None
    value = head.number.path[0]
    ambiguous = len(value) == 1 and value in "ivxlcdm"
    for other in reversed(stack):
        n = other.number
        if n is None or not n.parenthesised or len(n.path) != 1:
            continue
        if ambiguous:
            if other.style in "aA" and _continues(n.path[0], value):
                head.style = other.style
                return other.rank
            if (
                other.style in "iI"
                and _ROMAN.fullmatch(n.path[0])
                and (_roman_value(value) == _roman_value(n.path[0]) + 1)
            ):
                head.style = other.style
                return other.rank
        elif other.style == head.style:
            return other.rank
    if ambiguous and value == "i":
        head.style = "i"
    elif ambiguous:  # a letter no letter list precedes: one of its own
        for other in reversed(stack):
            if other.style == head.style and other.number is not None and other.number.parenthesised:
                return other.rank
    return (stack[-1].rank + 1) if stack else 0.0


def _continues(previous: str, value: str) -> bool:
    """Whether ``value`` is the letter after ``previous`` ("h" then "i": a letter, not i)."""
    return len(previous) == 1 and len(value) == 1 and ord(value) == ord(previous) + 1


def _name(head: Head, entry: Entry) -> None:
    """Set the head's full number, citation and title."""
    parent = head.parent
    number = head.number
    text = " ".join((entry.text if head.text_of is None else head.text_of(head.index))[:240].split())
    if number is None:
        head._cite = head._title = _short(text, 80)
    else:
        relative = (
            parent is not None
            and parent.number is not None
            and parent.number.kind in (Kind.CLAUSE, Kind.ARTICLE)
            and number.kind is Kind.CLAUSE
            and len(number.path) == 1
            and (number.parenthesised or number.style != "1" or (not head.typed and (entry.ilvl or 0) > 0))
        )
        as_typed = " ".join(unicodedata.normalize("NFKC", head.shown or "").split())
        shown = as_typed.rstrip(".: ")
        if shown.endswith(")") and "(" not in shown:
            shown = shown[:-1]  # "1)" is cited as 1, "a)" as (a) inside its clause
        if relative:
            assert parent is not None
            head._path = (*parent.path, *number.path)
            head._cite = f"{parent.cite}({shown.strip('()').rstrip('.')})"
        else:
            head._path = number.path
            head._cite = shown
        body = text
        if head.typed and as_typed and unicodedata.normalize("NFKC", body).startswith(as_typed):
            body = body[len(as_typed) :].lstrip(" .:\u2013\u2014-\t")
        head._title = f"{head._cite} {_heading_words(body, head.heading)}".strip()
    namespace = head if number is not None and number.kind in NAMESPACES else None
    if namespace is None and parent is not None:
        namespace = parent.namespace
    head._namespace = namespace
    if namespace is not None and namespace is not head:
        head._title = f"{namespace.cite} \u203a {head._title}"


def _heading_words(text: str, is_heading: bool) -> str:
    if is_heading:
        return _short(text, 80)
    # up to the first ". " or ": " when that comes within 60 characters, else 8 words
    stops = [i for i in (text.find(". ", 1, 62), text.find(": ", 1, 62)) if i > 0]
    if stops:
        return text[: min(stops)]
    words = text.split(" ", 8)
    return " ".join(words[:8]) + ("\u2026" if len(words) > 8 else "")


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def place(section: str | None, paragraph: int, story: str = "body", part: str | None = None) -> str:
    """The one way a paragraph is named in messages, hints and reports: 'section “4.2
    Operating Expenses”, paragraph 57'; 'the footer (word/footer1.xml), paragraph 3'."""
    where = f"paragraph {paragraph}"
    if story != "body":
        where = f"the {story} ({part}), {where}" if part else f"the {story}, {where}"
    if section:
        return f"section \u201c{section}\u201d, {where}"
    return where
