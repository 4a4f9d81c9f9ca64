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
  to case, spacing, quote style and a trailing dot; the outline (:mod:`redline.read.outline`)
  builds the sections, and :meth:`~redline.read.outline.Outline.named` finds those a reference
  names.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from shared_schema.rules import MAX_SECTION

from ..compat import forwarded
from ..text.normalize import normalize

if TYPE_CHECKING:  # the names that moved to the outline (see __getattr__ at the end)
    from .outline import Entry as Entry
    from .outline import Head as Head
    from .outline import Outline as Outline
    from .outline import build_outline as build_outline

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
# a typed number below 10^6 ("Clause 1234"; read_number reads six digits a part): no contract
# has more clauses, and a seven-digit number is no section (a year or an amount, rather)
_DECIMAL = r"\d{1,6}(?:\.\d{1,6})*"
_PARENS = r"(?:\s?\((?:[A-Za-z]{1,4}|\d{1,3})\))*"
_AFTER_NUMBER = r"(?!\.?\d)(?=\s*$|\s*[.:)\u2013\u2014-]|\s+[A-Z0-9\"'(\[\u201c\u2018\u00ab\u201e]|\t)"
_TYPED_SOURCES: Final = (
    # "Clause 17", "Section 4.2(b)", "Article IV", "Schedule 2", "Part A", "§ 2", "§§ 3"
    rf"(?:(?i:{_HEAD_WORDS})\s+|\u00a7\u00a7?\s*)"
    rf"(?:{_DECIMAL}{_PARENS}|[IVXLCDM]{{1,7}}\b|[ivxlcdm]{{1,7}}\b|[A-Za-z]\b)\.?" + _AFTER_NUMBER,
    # "4.2", "4.2.1.", "12." -- a lone number only with its dot or bracket
    r"\d{1,3}(?:\.\d{1,3})+(?:\.(?=\s)|(?=\t))|(?:\d{1,3}(?:\.\d{1,3})+[.)]?|\d{1,3}[.)])" + _AFTER_NUMBER,
    # "(a)", "(iv)", "(A)", "(12)", "a)", "iv)"
    r"\((?:[a-z]|[A-Z]|[ivxlcdm]{1,6}|[IVXLCDM]{1,6}|\d{1,3}|([a-z])\1)\)(?=\s)",
    r"(?:[a-z]|[ivx]{1,6}|\d{1,3})\)(?=\s)",
)
if TYPE_CHECKING:  # the typed numbers' patterns one by one, compiled when first asked for
    TYPED_PATTERNS: tuple[re.Pattern[str], ...]
LEADING_SPACE = re.compile(r"\s*")
TYPED_SPAN = 100  # the characters of a paragraph's start typed_number reads: 40 of space, 60 more


@functools.cache
def _any_typed() -> re.Pattern[str]:
    """The four in one, in their order: at one place an alternation takes its first alternative
    that matches, as the loop over them did (one regex call per paragraph rather than four).
    Compiled on first use (a millisecond of every process's start otherwise)."""
    pattern = re.compile("|".join(f"(?:{p})" for p in _TYPED_SOURCES))
    assert pattern.groups == 1  # the third's: "\\1" is still (a)(a)'s
    return pattern


def typed_number(text: str) -> str | None:
    """The number typed at the start of a paragraph's ``text`` ("5.1.", "(a)", "Clause 17",
    "Article IV"), as typed, or None."""
    at = LEADING_SPACE.match(text, 0, 40)
    pos = at.end() if at else 0
    m = _any_typed().match(text[pos : pos + 60])
    return m.group(0).strip() if m else None


def label_key(label: str) -> str:
    """A label as compared with one a quote begins with: "4.2." is "4.2", "(a)" is "a)"."""
    return unicodedata.normalize("NFKC", label).strip().rstrip(".:").lstrip("(").casefold()


LABEL_MAX = 40  # characters at the start of a quote's line that may hold a label


@functools.cache
def _space_run() -> re.Pattern[str]:
    """A run of the spaces that may end a label (compiled on first use, as the other patterns
    of names that only some runs read)."""
    return re.compile(r"[ \t\u00a0\u2002-\u200a\u202f]+")


def split_label(line: str, keys: Collection[str]) -> tuple[str, str] | None:
    """(the label ``line`` begins with, the rest of the line after the space that ends it), or
    None: the label is one whose :func:`label_key` is among ``keys``, within the line's first
    :data:`LABEL_MAX` characters (the one rule by which a quote's or a replacement's leading
    clause number is recognised)."""
    if keys:
        for m in _space_run().finditer(line, 0, min(len(line), LABEL_MAX)):
            if m.start() and label_key(line[: m.start()]) in keys:
                return line[: m.start()].strip(), line[m.end() :]
    return None


_ALNUM = re.compile(r"[^\W_]")  # a character c for which c.isalnum() (as \w is, less "_")


def is_number(label: str | None) -> bool:
    """Whether a displayed label numbers a clause (a bullet, or "", or "•" does not)."""
    if not label:
        return False
    # (most labels begin with their number: "4.2", "Article 1"; "(a)" is searched)
    return label[0].isalnum() or _ALNUM.search(label) is not None


# -------------------------------------------------------------------------------------------
# Reading a number: "Article IV" -> (ARTICLE, ("4",)); "4.2(b)" -> (CLAUSE, ("4", "2", "b"))


class Number(NamedTuple):
    """What a number stands for (a named tuple: an outline reads one for each of thousands of
    labels, and a tuple is made in a fifth of a frozen dataclass's time)."""

    kind: Kind
    path: tuple[str, ...]
    style: str  # the last component's style: "1", "a", "A", "i", "I" (for sibling checks)
    parenthesised: bool  # the last component is "(x)" or "x)"


_PART = re.compile(r"\d+|[^\W\d_]+", re.UNICODE)
_WORD_AT_START = re.compile(r"(§§?|[^\W\d_][\w-]*\.?)\s*", re.UNICODE)


def _key_text(text: str) -> str:
    """Case, spacing, quote style, dash style and a trailing dot do not matter in a name."""
    if text.isascii() and "\x00" not in text:
        # (most names: NFKC leaves ASCII as it is, and the normalisation changes only its
        # whitespace, which the split does as well; casefolding ASCII is lowering it)
        text = " ".join(text.split()).lower()
    else:
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
        try:  # (_numeral per part, in one C pass while every part is one it has made)
            path = tuple(map(_NUMERALS.__getitem__, parts))
        except KeyError:  # "01", "1234"
            path = tuple([_numeral(p) for p in parts])
        return Number(_CLAUSE, path, "1", False)
    return read_number_fully(text)


_NUMERALS: Final = {n: n for n in map(str, range(1000))}
_CLAUSE: Final = Kind.CLAUSE  # (a member of an enum is a look-up through its class each time)


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


class Reference(NamedTuple):
    """A parsed section name: the containers it is inside (outermost first), its target, and
    its text as a key (for headings and titles)."""

    within: tuple[tuple[Kind, tuple[str, ...]], ...]
    target: tuple[Kind, tuple[str, ...]] | None
    text: str
    written: str = ""  # the target as written ("\u00a7 2", "II"): an exact label beats an equivalent


@functools.cache
def _segment_split() -> re.Pattern[str]:
    """Where a reference's containers part ("Schedule 2, paragraph 1"), compiled on first use."""
    return re.compile(
        r"\s*,\s*|\s+of\s+|\s+(?=(?:schedule|annex|annexure|exhibit|appendix|part|paragraph|para\.?)\s)",
        re.IGNORECASE,
    )


def parse_reference(name: str) -> Reference:
    """Read a section name as lawyers write it (see the module's docstring)."""
    text = _key_text(name)
    plain = normalize(unicodedata.normalize("NFKC", name)).strip().strip("\"'").strip()
    segments = [s for s in _segment_split().split(plain) if s and s.strip()]
    numbers = [read_number(s) for s in segments]
    if segments and all(n is not None for n in numbers):
        parsed = [(n.kind, n.path) for n in numbers if n is not None]
        last = segments[-1]
        if len(parsed) > 1 and " of " in name.casefold():
            parsed.reverse()  # "paragraph 1 of Schedule 2": the container comes last
            last = segments[0]
        return Reference(tuple(parsed[:-1]), parsed[-1], text, last)
    return Reference((), None, text)


def label_form(text: str) -> str:
    """A label as written, for telling an exact label from a numeric equivalent: "\u00a7 2" is
    "\u00a72", "II." is "ii", "Clause 4.2" is "clause4.2" (case, spaces, a trailing dot and the
    outer brackets of a lone "(a)" do not count)."""
    text = "".join(unicodedata.normalize("NFKC", text).split()).casefold().rstrip(".:;,\u2013\u2014-")
    return text[1:-1] if text.startswith("(") and text.endswith(")") and text.count("(") == 1 else text


def numerals_form(text: str) -> str:
    """:func:`label_form` without the word before the number ("Clause 4.2", "\u00a7 4.2" and
    "4.2" are all "4.2"; "Article IV" is "iv")."""
    text = unicodedata.normalize("NFKC", text).strip()
    m = _WORD_AT_START.match(text)
    if m and m.group(1).casefold().rstrip(".") in _WORDS:
        text = text[m.end() :]
    return label_form(text)


@functools.cache
def _number_then_title() -> re.Pattern[str]:
    """A section named by its number and then its title, or the start of it: "3. Payment Terms",
    "3 Payment", "Clause 3 \u2013 Payment Terms", "Article IV: Definitions", "\u00a7 2 Fees"
    (compiled on first use: most runs name no section so)."""
    return re.compile(
        r"((?:(?:[^\W\d_][\w-]*\.?|\u00a7\u00a7?)\s*)?"
        r"(?:\d{1,6}(?:\.\d{1,6})*|[IVXLCDM]{1,7}|[ivxlcdm]{1,7}|[A-Za-z])(?:\s?\((?:[A-Za-z]{1,4}|\d{1,3})\))*\.?)"
        r"(?:\s*[:\u2013\u2014-]\s*|\s+)(\S.*)",
        re.DOTALL,
    )


def number_and_title(name: str) -> tuple[Reference, str] | None:
    """("3", "payment terms") for "3. Payment Terms": the number a name begins with, read as a
    reference, and the rest as a key (see :func:`parse_reference`), or None when it begins with
    no number."""
    plain = " ".join(normalize(unicodedata.normalize("NFKC", name)).split()).strip("\"' ")
    m = _number_then_title().fullmatch(plain)
    if m is None:
        return None
    ref = parse_reference(m.group(1))
    rest = _key_text(m.group(2))
    if ref.target is None or ref.within or not rest:
        return None
    return ref, rest


def place(section: str | None, paragraph: int, story: str = "body", part: str | None = None) -> str:
    """The one way a paragraph is named in messages, hints and reports: 'section “4.2
    Operating Expenses”, paragraph 57'; 'the footer (word/footer1.xml), paragraph 3'."""
    where = f"paragraph {paragraph}"
    if story != "body":
        where = f"the {story} ({part}), {where}" if part else f"the {story}, {where}"
    if section:
        return f"section \u201c{section}\u201d, {where}"
    return where


_MOVED = dict.fromkeys(("Entry", "Head", "Outline", "build_outline"), "redline.read.outline")


def __getattr__(name: str) -> Any:
    """The outline's names, which lived here: fetched from :mod:`redline.read.outline` when first
    asked for (it imports this module); :data:`TYPED_PATTERNS` compiled when first asked for."""
    if name == "TYPED_PATTERNS":
        found = globals()["TYPED_PATTERNS"] = tuple(re.compile(p) for p in _TYPED_SOURCES)
        return found
    return forwarded(__name__, name, _MOVED)
