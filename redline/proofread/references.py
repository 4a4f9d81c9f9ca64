"""Typed cross-references: "Clause 14.2", "clause 9(b)", "Section 3.1.4", "paragraph 2 of
Schedule 4", "Schedule 2", "Article IV", "Clauses 4 to 6", "Clauses 4, 6 and 8", "sub-clause (c)"
-- read from the view's text and resolved by the resolver an edit's ``section`` goes through
(:meth:`redline.read.outline.Outline.named`), so a reference and a ``section`` name the same clause.

A reference is a citing word (clause, section, paragraph, sub-clause, article, schedule, annex,
exhibit, appendix, Part, §) and one number or several (a list "4, 6 and 8" or a range "4 to 6"
after a plural word; after a singular one only numbers with a dot or brackets, so "Section 5
and 6 months" cites clause 5 alone), optionally inside a container ("paragraph 2 of Schedule 4").
Not references of this document: one "of" another document ("Section 4.2 of the Lease",
"Section 409A of the Code", "Article 28 of GDPR": "of" and a capitalised name that is not this
one -- "of this Agreement" is), a number that runs on into letters or digits ("409A",
"1.409A-1"), and "clause" in prose with no number after it.  Amounts, dates and years never
follow a citing word.  A paragraph's own typed number ("Clause 17 Governing Law" heading
clause 17) cites nothing.

Findings: ``dangling_reference`` -- a reference whose clause the document does not have:
only of a kind the document numbers at all ("Exhibit A" in a contract with no exhibits is an
attachment outside the file, not a dead cite), not a number of 100 or more that no clause here
reaches, not a statute's ("48 C.F.R. section 12.212"; see :class:`Resolver`, :func:`dangling`);
``broken_field_reference`` -- a ``REF`` / ``PAGEREF`` / ``NOTEREF`` field (ECMA-376 Part 1,
§17.16.5) whose bookmark no story of the document holds (Word shows "Error! Reference source
not found." on its next update).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from lxml import etree

from ..opc.namespaces import w
from ..read.outline import Head
from ..read.sections import Kind, parse_reference
from ..read.view import DocumentView, Paragraph
from .findings import Finding, Place
from .findings import Kind as FindingKind

__all__ = ["Reference", "Target", "broken_fields", "dangling", "place_of", "references", "resolve"]

# the citing words, by what they number (the plural ones may cite a list or a range)
_CLAUSE_WORDS = (
    r"clauses?|sub-?clauses?|sections?|sub-?sections?|paragraphs?|sub-?paragraphs?|paras?\.|cl\.|§§?"
)
_CONTAINER_WORDS = r"articles?|art\.|schedules?|annex(?:es|ures?)?|exhibits?|appendix|appendices"
_WORD = rf"(?:(?i:{_CLAUSE_WORDS}|{_CONTAINER_WORDS})|Parts?)"
_PAREN = r"\((?:[a-z]{1,4}|[A-Z]{1,3}|\d{1,3})\)"
_END = r"(?![\w%\u00a3$\u20ac]|[.,/-]\d)"  # not "409A", "1.409A-1", "5.2%", "4,000"
_DECIMAL = rf"\d{{1,6}}(?:\.\d{{1,6}})*(?:\s?{_PAREN})*{_END}"
_NUM = rf"(?:{_DECIMAL}|{_PAREN}(?:{_PAREN})*{_END}|[IVXLCDM]{{1,7}}\b(?!\.\d)|[A-Z]\b(?![.\u2019']\w))"
_JOIN = r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and/or|and|or|to|through|until)\s+|\s*[\u2013-]\s*)"
_CONTAINER = (
    rf"(?:the\s+|this\s+)?(?i:schedule|annex(?:ure)?|exhibit|appendix|article)\s+{_NUM}|Part\s+{_NUM}"
)
# (the lookahead first: the characters a citing word can begin with, "\u017f" the long s that
# matches "s" in any case, let the scan skip to them -- a lookbehind first is tried everywhere)
_REFERENCE: Final = re.compile(
    rf"(?=[cCsSpPaAeE\u00a7\u017f])(?<![\w-])"
    rf"(?P<word>{_WORD})\s*(?P<first>{_NUM})(?P<more>(?:{_JOIN}{_NUM})*)"
    rf"(?P<of>\s+of\s+(?:{_CONTAINER}))?"
)
_ONE: Final = re.compile(_NUM)
_RANGE_WORD: Final = re.compile(r"\s(?:to|through|until)\s|[\u2013-]")
# "of" another document: "of the Lease", "of the Code", "of GDPR" -- not "of this Agreement"
_OF_OTHER: Final = re.compile(r"\s+(?:of|under|in)\s+(?:the\s+|that\s+)?(?P<name>[A-Z][\w.-]*)")
_OURS: Final = frozenset(
    {"Agreement", "Contract", "Deed", "Terms", "Conditions", "Schedule", "Schedules", "Annex", "Exhibit",
     "Appendix", "Part", "Article", "Clause", "Section"}
)  # fmt: skip
_ARTICLE_ONLY_ROMAN: Final = (
    "article",
    "art.",
    "schedule",
    "annex",
    "exhibit",
    "appendix",
    "part",
    "section",
)
_LETTER_WORDS: Final = ("schedule", "annex", "exhibit", "appendix", "part", "appendices", "annexes")


@dataclass(frozen=True)
class Target:
    """One clause a reference cites: the name the resolver is asked ("Clause 4.2",
    "paragraph 2 of Schedule 4", "(c)" for a relative sub-clause), and where its number is."""

    name: str
    number: str  # as written: "4.2", "IV", "(c)"
    start: int  # view offsets of the number
    end: int
    relative: bool  # "sub-clause (c)": a sub-clause of the clause the reference stands in


@dataclass(frozen=True)
class Reference:
    """A typed reference in the view's text: where it is, as written, and what it cites."""

    start: int
    end: int
    text: str
    paragraph: int
    targets: tuple[Target, ...]


def _canonical(word: str) -> str:
    w_ = word.casefold().rstrip(".")
    if w_.startswith(("art",)):
        return "Article"
    for stem in ("schedule", "annex", "exhibit", "append", "part"):
        if w_.startswith(stem):
            return {"append": "Appendix"}.get(stem, stem.capitalize())
    return "Clause"


def _plural(word: str) -> bool:
    w_ = word.casefold()
    return w_ in ("§§", "appendices") or (w_.endswith("s") and not w_.endswith("ss") and len(w_) > 3)


_VALID_ROMAN: Final = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
# a statute or regulation just before the word: "48 C.F.R. section 12.212", "Cal. Civ. Code § 1798.100"
_STATUTE_BEFORE: Final = re.compile(
    r"(?:U\.?\s?S\.?\s?C\.?|C\.?\s?F\.?\s?R\.?|\bCode|\bAct(?:\s+\d{4})?|\bRegulations?|\bRules?|\bStatutes?|"
    r"\bFAR|\bDFARS|\bI\.?R\.?C\.?|\bGDPR|\bUCC|\bTreaty|\bConvention|\bDirective)[\s,]*\Z"
)


def _fits(word: str, number: str) -> bool:
    """Whether a number fits the word: a roman numeral after an article-like word (or
    "Section"), a lone capital letter after a schedule-like word."""
    w_ = word.casefold().rstrip("s.") if word not in ("§", "§§") else word
    if re.fullmatch(r"[IVXLCDM]{1,7}", number):
        if not _VALID_ROMAN.fullmatch(number):
            return False
        return w_.startswith(_ARTICLE_ONLY_ROMAN) or (len(number) == 1 and w_.startswith(_LETTER_WORDS))
    if re.fullmatch(r"[A-Z]", number):
        return w_.startswith(_LETTER_WORDS)
    return True


def references(view: DocumentView) -> list[Reference]:
    """Every typed reference of the view's text, in order (see the module)."""
    text = view.text
    out: list[Reference] = []
    for m in _REFERENCE.finditer(text):
        ref = _read(view, m)
        if ref is not None:
            out.append(ref)
    return out


def _read(view: DocumentView, m: re.Match[str]) -> Reference | None:
    text = view.text
    word = m.group("word")
    para = view.paragraph_at(m.start())
    if m.end() > para.end:  # a reference never runs across paragraphs
        return None
    if m.group("of") is None:
        other = _OF_OTHER.match(text, m.end(), min(para.end, m.end() + 80))
        if other is not None and other.group("name") not in _OURS:
            return None
    if _own_number(view, para, m.start()):
        return None
    if _STATUTE_BEFORE.search(text, max(para.start, m.start() - 40), m.start()):
        return None
    container = ""
    if m.group("of"):
        of = m.group("of")
        inner = re.sub(r"^\s+of\s+(?:the\s+|this\s+)?", "", of)
        container = " of " + " ".join(inner.split())
    plural = _plural(word)
    canonical = _canonical(word)
    first = m.group("first")
    if not _fits(word, first):
        return None
    numbers: list[tuple[str, int, int, bool]] = [(first, m.start("first"), m.end("first"), False)]
    more_at = m.start("more")
    more = m.group("more")
    if more:
        pos = 0
        for nm in _ONE.finditer(more):
            between = more[pos : nm.start()]
            pos = nm.end()
            value = nm.group(0)
            if not (plural or "." in value or value.startswith("(")):
                break
            is_range = bool(_RANGE_WORD.search(between))
            numbers.append((value, more_at + nm.start(), more_at + nm.end(), is_range))
    end = numbers[-1][2] if m.group("of") is None else m.end()
    if m.group("of") is not None and len(numbers) != 1 + len(_ONE.findall(more)):
        return None  # a list cut short before its container: not read
    targets: list[Target] = []
    base = ""
    relative_word = word.casefold().replace("-", "").startswith(("subclause", "subparagraph", "subsection"))
    for k, (value, s, e, is_range) in enumerate(numbers):
        if value.startswith("(") and k > 0 and base:
            written = base + value.replace(" ", "")
        else:
            written = value.replace(" ", "") if "(" in value else value
        if k == 0 and "(" in written and not written.startswith("("):
            base = written[: written.index("(")]
        elif k == 0 and not written.startswith("("):
            base = written
        relative = written.startswith("(") and (relative_word or canonical == "Clause")
        if is_range and targets:
            targets.extend(_between(targets[-1], written, canonical, container, s))
        name = written if relative else f"{canonical} {written}{container}"
        targets.append(Target(name, value, s, e, relative))
    return Reference(m.start(), end, text[m.start() : end], para.index, tuple(targets))


def _between(last: Target, written: str, canonical: str, container: str, at: int) -> list[Target]:
    """The clauses a range "4 to 6" holds between its ends: same prefix, whole numbers, at most
    50 of them (none for letters or numerals)."""
    lo, hi = last.number, written
    if "." in lo and "." in hi and lo.rsplit(".", 1)[0] == hi.rsplit(".", 1)[0]:
        prefix, a, b = lo.rsplit(".", 1)[0] + ".", lo.rsplit(".", 1)[1], hi.rsplit(".", 1)[1]
    elif "." not in lo and "." not in hi:
        prefix, a, b = "", lo, hi
    else:
        return []
    if not (a.isdigit() and b.isdigit()) or not 0 < int(b) - int(a) <= 50:
        return []
    return [
        Target(f"{canonical} {prefix}{n}{container}", f"{prefix}{n}", at, at, False)
        for n in range(int(a) + 1, int(b))
    ]


def _own_number(view: DocumentView, para: Paragraph, at: int) -> bool:
    """Whether ``at`` is where the paragraph's own typed number stands (it heads its clause)."""
    head = para.node
    if head is None or head.index != para.index or not head.typed:
        return False
    return not view.text[para.start : at].strip()


def resolve(view: DocumentView, target: Target, paragraph: int) -> list[Head]:
    """The numbered clauses ``target`` names, cited from view paragraph ``paragraph``: the
    outline's reading of its name (a relative "(c)": among the sub-clauses of the clause it
    stands in, else anywhere when it stands in none)."""
    heads = [h for h in view.outline.named(target.name) if h.number is not None]
    if not target.relative:
        return heads
    para = view.paragraphs[paragraph]
    clause = para.node
    while clause is not None and clause.number is not None and clause.number.parenthesised:
        clause = clause.parent
    if clause is None or clause.number is None:
        return heads
    return [h for h in heads if h.within(clause)]


def _kinds_numbered(view: DocumentView) -> set[Kind]:
    kinds = {h.number.kind for h in view.outline.heads if h.number is not None}
    if Kind.ARTICLE in kinds or Kind.CLAUSE in kinds:
        kinds |= {Kind.ARTICLE, Kind.CLAUSE}
    return kinds


def kind_of(target: Target) -> Kind:
    """What a target's name numbers (a clause, a schedule, ...)."""
    if target.relative:
        return Kind.CLAUSE
    ref = parse_reference(target.name)
    return ref.target[0] if ref.target is not None else Kind.CLAUSE


def place_of(view: DocumentView, index: int, text: str) -> Place:
    """A view paragraph as a finding names it: its label (the number Word displays, else its
    typed number) and its section."""
    para = view.paragraphs[index]
    label = para.label
    head = para.node
    if label is None and head is not None and head.index == index and head.typed:
        label = head.shown
    return Place(index, label, para.section, text)


_CONTAINER_START: Final = re.compile(
    r"\s*(?i:(schedule|annex(?:ure)?|exhibit|appendix|attachment|part|article))\s+([0-9]{1,3}|[IVXLCDM]{1,7}|[A-Z])(?![a-z0-9])"
)
_ITEM_AT_END: Final = re.compile(r"^(.*?)\s?(\((?:[a-z]{1,4}|[A-Z]{1,3}|\d{1,3})\))$")


_CITED_BEFORE: Final = re.compile(rf"(?:{_WORD}|\band|\bor|\bto|,)\s*\Z")


class Resolver:
    """Whether a document has the clause a target cites: the outline's reading (see
    :func:`resolve`), and, for what the outline does not number, a schedule (annex, ...)
    some body paragraph begins with ("Annex I(A) List of Parties"), or an item "(c)" written
    inline in the text of the clause cited ("6.3(c)" where clause 6.3 reads "...: (a) ...; (c)
    ...").  A number with a part of 100 or more that no clause of the document reaches is
    another document's ("section 12.212")."""

    def __init__(self, view: DocumentView) -> None:
        self.view = view
        self.kinds = _kinds_numbered(view)
        self._cache: dict[tuple[str, int], bool] = {}
        self._starts: set[tuple[Kind, str]] | None = None
        biggest = 0
        for head in view.outline.heads:
            if head.number is not None:
                biggest = max([biggest, *(int(p) for p in head.number.path if p.isdigit())])
        self.biggest = max(99, biggest)

    def container_starts(self) -> set[tuple[Kind, str]]:
        if self._starts is None:
            found: set[tuple[Kind, str]] = set()
            text = self.view.text
            for para in self.view.paragraphs:
                if para.story != "body":
                    continue
                m = _CONTAINER_START.match(text, para.start, min(para.end, para.start + 60))
                if m is None:
                    continue
                ref = parse_reference(f"{m.group(1)} {m.group(2)}")
                if ref.target is not None:
                    found.add((ref.target[0], ref.target[1][0]))
            self._starts = found
        return self._starts

    def applies(self, target: Target) -> bool:
        """Whether the target is one this document should have (see the class)."""
        if kind_of(target) not in self.kinds and not target.relative:
            return False
        return not any(
            part.isdigit() and int(part) > self.biggest for part in re.split(r"[.()\s]+", target.number)
        )

    def exists(self, target: Target, paragraph: int) -> bool:
        key = (target.name, paragraph if target.relative else -1)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._exists(target, paragraph)
        return found

    def _exists(self, target: Target, paragraph: int) -> bool:
        view = self.view
        if resolve(view, target, paragraph):
            return True
        ref = parse_reference(target.name) if not target.relative else None
        if (
            ref is not None
            and ref.target is not None
            and ref.target[0] not in (Kind.CLAUSE, Kind.ARTICLE)
            and (ref.target[0], ref.target[1][0]) in self.container_starts()
        ):
            return True
        m = _ITEM_AT_END.match(target.name)
        if m is None:
            return False
        item = m.group(2)
        if target.relative:
            clause = view.paragraphs[paragraph].node
            while clause is not None and clause.number is not None and clause.number.parenthesised:
                clause = clause.parent
            heads = [clause] if clause is not None else []
        else:
            base = Target(m.group(1), target.number, target.start, target.end, False)
            heads = resolve(view, base, paragraph)
        for head in heads:
            first = view.paragraphs[head.index]
            last = view.paragraphs[max(head.index, head.last)]
            if _inline(view.text[first.start : last.end], item):
                return True
        return False


def _inline(text: str, item: str) -> bool:
    """Whether ``text`` holds ``item`` ("(c)") written as an item of its own -- not cited
    ("sub-clause (c)", "3(c)", "(b) and (c)")."""
    for m in re.finditer(re.escape(item), text, re.IGNORECASE):
        before = text[max(0, m.start() - 24) : m.start()]
        if before and not before[-1].isspace() and before[-1] not in ":;":
            continue
        if _CITED_BEFORE.search(before):
            continue
        return True
    return False


def _family(ref: Reference) -> str:
    """The citing word a reference begins with, singular: "clause", "section", "§", ..."""
    word = re.split(r"[\s\d(]", ref.text, maxsplit=1)[0].casefold().rstrip(".")
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def dangling(view: DocumentView, refs: list[Reference] | None = None) -> list[Finding]:
    """A ``dangling_reference`` for each cited clause the document does not have.  A citing
    word most of whose references (four or more) name no clause here is another document's
    word ("Clause 13" of the standard contractual clauses, in a DPA whose own are "Sections"):
    none of those is reported."""
    resolver = Resolver(view)
    missing: list[tuple[str, Reference, Target]] = []
    counts: dict[str, list[int]] = {}
    for ref in references(view) if refs is None else refs:
        family = _family(ref)
        for target in ref.targets:
            if not resolver.applies(target):
                continue
            tally = counts.setdefault(family, [0, 0])
            tally[0] += 1
            if resolver.exists(target, ref.paragraph):
                tally[1] += 1
            else:
                missing.append((family, ref, target))
    out: list[Finding] = []
    for family, ref, target in missing:
        total, resolved = counts[family]
        if total >= 4 and resolved * 2 < total:
            continue
        cited = target.name if not target.relative else f"sub-clause {target.number}"
        cited = cited[0].lower() + cited[1:] if cited.startswith("Clause") else cited
        out.append(
            Finding(
                FindingKind.DANGLING_REFERENCE,
                f"\u201c{ref.text}\u201d cites {cited}, which this document does not have.",
                place_of(view, ref.paragraph, ref.text),
            )
        )
    return out


# -------------------------------------------------------------------------------------------
# REF fields whose bookmark is missing

_P, _R, _T = w("p"), w("r"), w("t")
_FLD_CHAR, _INSTR, _FLD_SIMPLE, _BM_START = w("fldChar"), w("instrText"), w("fldSimple"), w("bookmarkStart")
_TYPE, _INSTR_ATTR, _NAME = w("fldCharType"), w("instr"), w("name")
_GONE = (w("del"), w("moveFrom"))
_BOOKMARK_NAME: Final = re.compile(rb'bookmarkStart\b[^>]*?\bname="([^"]*)"')
_FIELD_REF: Final = re.compile(r'^\s*(REF|PAGEREF|NOTEREF)\s+"?([^\s"\\]+)', re.IGNORECASE)


def _fields_of(p: etree._Element) -> Iterator[tuple[str, str, str]]:
    """(field type, bookmark, result text) of each REF-like field in paragraph ``p``."""
    stack: list[list[str]] = []  # per open field: [instructions, result, state]
    for el in p.iter(_FLD_CHAR, _INSTR, _T, _FLD_SIMPLE):
        owner = next(el.iterancestors(_P), None)
        if owner is not p or any(a.tag in _GONE for a in el.iterancestors()):
            continue
        if el.tag == _FLD_SIMPLE:
            m = _FIELD_REF.match(el.get(_INSTR_ATTR) or "")
            if m:
                yield m.group(1).upper(), m.group(2), "".join(t.text or "" for t in el.iter(_T))
            continue
        if el.tag == _FLD_CHAR:
            kind = el.get(_TYPE)
            if kind == "begin":
                stack.append(["", "", "code"])
            elif kind == "separate" and stack:
                stack[-1][2] = "result"
            elif kind == "end" and stack:
                instr, result, _ = stack.pop()
                m = _FIELD_REF.match(instr)
                if m:
                    yield m.group(1).upper(), m.group(2), result
                if stack and stack[-1][2] == "result":
                    stack[-1][1] += result
            continue
        if not stack:
            continue
        if el.tag == _INSTR and stack[-1][2] == "code":
            stack[-1][0] += el.text or ""
        elif el.tag == _T and stack[-1][2] == "result":
            stack[-1][1] += el.text or ""


def broken_fields(view: DocumentView, parts: dict[str, bytes]) -> list[Finding]:
    """A ``broken_field_reference`` for each REF-like field whose bookmark no story holds;
    ``parts``: the story parts' XML as the package holds it (a part with no field
    instruction naming REF is never parsed)."""
    if not any(b"REF" in data for data in parts.values()):
        return []
    bookmarks: set[str] = set()
    for data in parts.values():
        if b"bookmarkStart" in data:
            bookmarks.update(m.decode("utf-8", "replace") for m in _BOOKMARK_NAME.findall(data))
    by_part: dict[str, list[Paragraph]] = {}
    for para in view.paragraphs:
        by_part.setdefault(para.part, []).append(para)
    out: list[Finding] = []
    for part, data in parts.items():
        if b"REF" not in data:
            continue
        for para in by_part.get(part, []):
            try:
                element = para.element
            except TypeError:  # a verify-only view holds no trees
                return out
            for kind, name, result in _fields_of(element):
                if name in bookmarks:
                    continue
                shown = " ".join(result.split()) or name
                out.append(
                    Finding(
                        FindingKind.BROKEN_FIELD_REFERENCE,
                        f"The cross-reference field showing \u201c{shown}\u201d ({kind} {name}) points to a "
                        "bookmark this document does not have: Word will show \u201cError! Reference "
                        "source not found.\u201d when it updates its fields.",
                        place_of(view, para.index, shown),
                    )
                )
    return out
