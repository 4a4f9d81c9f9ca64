"""A contract's definitions, read from its view: every defined term, where and how it is defined,
and the part of the document it is defined for.

The forms contracts use (straight or curly quotes -- " “ ” ‘ ’ « » -- or none where the term is
bold or in a definitions clause):

* **means**: ``"X" means …``, ``"X" shall mean …``, ``"X" has (shall have, will have) the
  meaning …``, ``"X" is defined …``, ``"X" refers to …``; several at once: ``"Statement of Work"
  or "SOW" means …``;
* **parenthetical**: ``(the "X")``, ``(this "X")``, ``("X")``, ``(hereinafter "X")``,
  ``(hereinafter referred to as "X")``, ``(each, a "X")``, ``(together, the "X")``, ``("X" or
  "Y")`` -- a bracket holding nothing but quoted terms and the filler words of these forms;
  ``hereinafter referred to as "X"`` outside brackets too;
* **designation**: ``each of the following is an "Event of Default":``;
* **entry**: a paragraph opening with a term and a colon or dash (``X: …``, ``X – …``, ``"X":
  …``) in a clause headed *Definitions*, *Defined Terms*, *Interpretation* or *Glossary*, or
  opening with a quoted term so; outside such a clause, a bold term so, in a list of at least two
  such entries (a paragraph that heads a numbered clause is a run-in heading there, not an entry);
* **bold**: a paragraph opening with a bold term followed by ``means`` (and the other verbs).

A definition's **scope** is the document, unless its paragraph -- or the paragraph introducing
its list ("In this Schedule: …") -- limits it: "in this Schedule", "for the purposes of this
Clause", "in this Part 2"; the scope is then that section of the view's outline (the schedule,
annex, exhibit, appendix or part it lies in; for a clause, section or article the top-level one
it lies in, or the one numbered; for a paragraph the innermost numbered one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from ..read.emphasis import Emphasis
from ..read.sections import Kind as SectionKind
from ..read.sections import parse_reference, typed_number

if TYPE_CHECKING:
    from ..read.outline import Head
    from ..read.view import DocumentView, Paragraph


class Form(StrEnum):
    """How a term is defined."""

    MEANS = "means"  # "X" means ...
    PARENTHETICAL = "parenthetical"  # (the "X")
    DESIGNATION = "designation"  # ... is an "Event of Default":
    ENTRY = "entry"  # X: ... in a definitions clause or list
    BOLD = "bold"  # **X** means ...


@dataclass(frozen=True, slots=True)
class Scope:
    """The section a definition is limited to: its title and its paragraphs (inclusive)."""

    title: str
    first: int
    last: int

    def __contains__(self, paragraph: object) -> bool:
        return isinstance(paragraph, int) and self.first <= paragraph <= self.last


@dataclass(frozen=True, slots=True)
class Definition:
    """One defined term: the term as defined, the paragraph (view index) and view span of the
    term itself (inside its quotes), how it is defined, and its scope (None: the document)."""

    term: str
    paragraph: int
    span: tuple[int, int]
    form: Form
    scope: Scope | None = None


MAX_TERM_CHARS: Final = 80
MAX_TERM_WORDS: Final = 10

_OPEN = "\"“‘«„'"
_CLOSE = "\"”’»“'"
# A quoted stretch: an opening quote (not an apostrophe inside a word), the term, a closing
# quote not followed by a letter (’ inside "Tenant’s Works" is an apostrophe, not the close).
QUOTED: Final = re.compile(
    r"(?<![^\W_])(?P<open>[\"“‘«„'])"
    r"(?P<term>[^\W_](?:[^\"“”«»\n]|[‘’'](?=[^\W_])){0,"
    + str(MAX_TERM_CHARS - 1)
    + r"}?)(?P<close>[\"”’»“'])(?![^\W_])"
)
_VERB: Final = (
    r"(?:means|mean|shall\s+mean|will\s+mean|(?:shall|will|has|have|shall\s+have|will\s+have)"
    r"\s+the\s+meanings?|(?:is|are|shall\s+be|will\s+be)\s+defined|refers?\s+to|shall\s+refer\s+to)\b"
)
_MEANS: Final = re.compile(r"\s*,?\s*(?:\)\s*)?" + _VERB, re.IGNORECASE)
# A bold term's verb: the term's words, then (after a closing quote, if any) the verb.
_BOLD_VERB: Final = re.compile(r"[\"”’»]?\s*,?\s+" + _VERB, re.IGNORECASE)
# A word every verb of :data:`_VERB` holds, read with the same case rules: a fast first look.
_VERB_WORD: Final = re.compile(r"mean|defined|refer", re.IGNORECASE)
_QUOTE_CHAR: Final = re.compile("[" + re.escape(_OPEN) + "]")  # one of the opening quotes
_BETWEEN_TERMS: Final = re.compile(r"\s*(?:,|/|;)?\s*(?:(?:and|or|and/or)\s+)?(?:the\s+)?\Z", re.IGNORECASE)
_FILLER: Final = frozenset(
    [
        "the",
        "this",
        "these",
        "a",
        "an",
        "each",
        "together",
        "collectively",
        "individually",
        "jointly",
        "severally",
        "hereinafter",
        "hereafter",
        "herein",
        "hereunder",
        "referred",
        "to",
        "as",
        "called",
        "and",
        "or",
        "also",
        "being",
        "known",
        "of",
        "them",
        "respectively",
        "any",
        "all",
        "such",
        "its",
        "their",
        "both",
        "either",
        "in",
        "below",
        "above",
        "singly",
    ]
)
_WORD: Final = re.compile(r"[^\W_]+(?:[’'\-][^\W_]+)*")
_HEREINAFTER: Final = re.compile(
    r"(?:hereinafter|hereafter|herein)(?:\s+(?:referred\s+to|called|known|defined))?\s+(?:as\s+)?"
    r"(?:the\s+|a\s+|an\s+)?\Z|referred\s+to\s+(?:herein\s+|hereinafter\s+)?as\s+(?:the\s+|a\s+|an\s+)?\Z",
    re.IGNORECASE,
)
_DESIGNATION_BEFORE: Final = re.compile(
    r"\b(?:is|are|be|being|constitutes?|shall\s+constitute|shall\s+be|will\s+be)\s+(?:a|an|the|each)\s+\Z",
    re.IGNORECASE,
)
_DESIGNATION_AFTER: Final = re.compile(r"\s*(?:[:;.]|\Z)")
_ENTRY_SEPARATOR: Final = re.compile(r"\s*(?::|\s[–—-]\s|[–—]\s)\s*")
# An unquoted entry term: capitalised words, at most MAX_TERM_WORDS.
_ENTRY_TERM: Final = re.compile(
    r"(?P<term>[^\W\d_][\w’'\-]*(?:[ \u00a0](?:of|and|for|to|in|on|the|or|&|[^\W\d_][\w’'\-]*))"
    + r"{0,"
    + str(MAX_TERM_WORDS - 1)
    + r"})(?=\s*(?::|\s[–—-]\s|[–—]\s))"
)
_DEFINITIONS_TITLE: Final = re.compile(
    r"^\W*(?:(?:(?:clause|section|article|part|schedule)\s+)?[\w.()]{0,12}\s+)?"
    r"(?:definitions?|defined\s+terms|interpretations?|glossary|definitions\s+and\s+interpretations?)\b",
    re.IGNORECASE,
)
_SCOPE: Final = re.compile(
    r"\b(?:in|for\s+the\s+purposes?\s+of|for\s+purposes\s+of|under|throughout)\s+this\s+"
    r"(?P<word>schedule|annex|annexure|exhibit|appendix|attachment|part|clause|section|article|"
    r"paragraph|sub-clause|subclause|sub-section|subsection)\b(?:\s+(?P<number>\d+(?:\.\d+)*|[IVXLC]+\b|[A-Z]\b))?",
    re.IGNORECASE,
)
_SCOPE_KINDS: Final = {
    "schedule": SectionKind.SCHEDULE, "annex": SectionKind.ANNEX, "annexure": SectionKind.ANNEX,
    "exhibit": SectionKind.EXHIBIT, "appendix": SectionKind.APPENDIX,
    "attachment": SectionKind.APPENDIX, "part": SectionKind.PART,
}  # fmt: skip


def definitions(view: DocumentView) -> list[Definition]:
    """Every definition of ``view``, in document order."""
    return list(_Reader(view).read())


def quoted_spans(text: str) -> Iterator[re.Match[str]]:
    """Every quoted stretch of ``text`` that may be a term (see :data:`QUOTED`)."""
    return QUOTED.finditer(text)


def clean_term(raw: str) -> str:
    """A term as written between its quotes, without a comma or full stop inside the closing
    quote ("Agreement," in American style) and with its spaces made single."""
    return " ".join(raw.rstrip(",.;:").split())


def is_definitions_title(title: str | None) -> bool:
    """Whether a section's title names a definitions clause ("1. Definitions", "Interpretation")."""
    return bool(title) and _DEFINITIONS_TITLE.match(title or "") is not None


class _Reader:
    def __init__(self, view: DocumentView) -> None:
        self.view = view
        self.emphasis = Emphasis(view)
        self._definitions_heads: dict[int, bool] = {}

    def read(self) -> Iterator[Definition]:
        view = self.view
        text = view.text
        # Bold entries outside a definitions clause count in a list of two or more: they are
        # gathered (their look unread) and their look is read once a second one follows.
        pending: list[tuple[Paragraph, int, int]] = []
        for para in view.paragraphs:
            if para.story not in ("body", "footnote", "endnote"):
                continue
            ptext = text[para.start : para.end]
            if not ptext.strip():
                continue
            found = list(self._quoted(para, ptext))
            lead = -1 if found else _lead(ptext)  # (read once: the entry and the bold term begin there)
            entry = None if found else self._entry(para, ptext, lead)
            if entry is not None and not entry[2]:
                pending.append((para, entry[0], entry[1]))
                continue
            if pending:  # a paragraph of another kind ends the list
                yield from self._bold_list(pending)
            if entry is not None:
                yield self._make(para, text[entry[0] : entry[1]], entry[0], entry[1], Form.ENTRY)
                continue
            yield from found
            if not found:
                bold = self._bold_means(para, ptext, lead)
                if bold is not None:
                    yield bold
        yield from self._bold_list(pending)

    def _bold_list(self, pending: list[tuple[Paragraph, int, int]]) -> Iterator[Definition]:
        """The bold entries of a gathered list, if it is one (two or more, each term once)."""
        text = self.view.text
        bold = self.emphasis.is_bold
        entries = [(p, s, e) for p, s, e in pending if bold(p, s, e)] if len(pending) > 1 else []
        pending.clear()
        terms = [text[s:e] for _, s, e in entries]
        if len(entries) < 2 or len(set(terms)) < len(terms):
            return  # one bold line is a run-in heading; a repeated label is a form's
        for p, s, e in entries:
            yield self._make(p, text[s:e], s, e, Form.ENTRY)

    # -- quoted forms -----------------------------------------------------------------------
    def _quoted(self, para: Paragraph, ptext: str) -> Iterator[Definition]:
        if _QUOTE_CHAR.search(ptext) is None:
            return
        matches = [m for m in QUOTED.finditer(ptext) if _plausible(m.group("term"))]
        if not matches:
            return
        used: set[int] = set()
        # "X" (or "Y") means ...: a chain of quoted terms followed by the verb
        i = 0
        while i < len(matches):
            j = i
            while j + 1 < len(matches) and _BETWEEN_TERMS.match(
                ptext, matches[j].end(), matches[j + 1].start()
            ):
                j += 1
            if _MEANS.match(ptext, matches[j].end()):
                for k in range(i, j + 1):
                    used.add(k)
                    yield self._from_match(para, matches[k], Form.MEANS)
            i = j + 1
        for k, m in enumerate(matches):
            if k in used:
                continue
            form = self._inline_form(ptext, m, matches)
            if form is not None:
                used.add(k)
                yield self._from_match(para, m, form)
        # "X": ... at the start of a paragraph (a quoted entry)
        if matches and 0 not in used:
            m = matches[0]
            at_start = not ptext[: m.start()].strip(" \t\u00a0") or _only_number(ptext[: m.start()])
            if (
                at_start
                and _ENTRY_SEPARATOR.match(ptext, m.end())
                and (self._in_definitions_clause(para) or ptext[m.end() :].lstrip().startswith(":"))
            ):
                yield self._from_match(para, m, Form.ENTRY)

    def _inline_form(self, ptext: str, m: re.Match[str], matches: list[re.Match[str]]) -> Form | None:
        before = ptext[max(0, m.start() - 80) : m.start()]
        if _HEREINAFTER.search(before):
            return Form.PARENTHETICAL
        opened = ptext.rfind("(", 0, m.start())
        if opened >= 0 and ptext.find(")", opened, m.start()) < 0:
            closed = ptext.find(")", m.end())
            if closed >= 0 and ptext.find("(", m.end(), closed) < 0 and closed - opened < 400:
                inside = ptext[opened + 1 : closed]
                rest = inside
                for other in matches:
                    if opened < other.start() and other.end() <= closed:
                        a, b = other.start() - opened - 1, other.end() - opened - 1
                        rest = rest[:a] + " " * (b - a) + rest[b:]
                words = [w.casefold() for w in _WORD.findall(rest)]
                if all(w in _FILLER for w in words):
                    return Form.PARENTHETICAL
        if _DESIGNATION_BEFORE.search(before) and _DESIGNATION_AFTER.match(ptext, m.end()):
            return Form.DESIGNATION
        return None

    # -- unquoted forms ---------------------------------------------------------------------
    def _entry(self, para: Paragraph, ptext: str, lead: int) -> tuple[int, int, bool] | None:
        """(start, end, in a definitions clause) of the term an entry paragraph opens with
        (``lead``: where its words begin, :func:`_lead`)."""
        m = _ENTRY_TERM.match(ptext, lead)
        if m is None:
            return None
        term = m.group("term")
        if not _plausible(term) or not term[0].isupper():
            return None
        start, end = para.start + m.start("term"), para.start + m.end("term")
        if self._in_definitions_clause(para) and not para.heads:
            return start, end, True
        if para.heads and para.node is not None and para.node.number is not None:
            return None  # a run-in heading of a numbered clause
        rest = ptext[m.end("term") :]
        sep = _ENTRY_SEPARATOR.match(rest)
        words_after = len(rest[sep.end() :].split()) if sep else 0
        if term.isupper() or words_after < 2:
            return None  # a signature block's "PROVIDER:", a form's "Name: {name}"
        return start, end, False  # (bold or not: read when a list of them is found)

    def _bold_means(self, para: Paragraph, ptext: str, lead: int) -> Definition | None:
        words = _WORD.match(ptext, lead)
        if words is None or not words.group(0)[:1].isupper():
            return None
        # the longest run of words up to a verb of definition
        stop = min(len(ptext), lead + MAX_TERM_CHARS + 30)
        if _VERB_WORD.search(ptext, lead, stop) is None:
            return None  # (no verb's word at all: the scan for the verb would find none)
        verb = _BOLD_VERB.search(ptext, lead, stop)
        if verb is None or verb.start() <= lead:
            return None
        raw = ptext[lead : verb.start()]
        term = clean_term(raw.strip(" \"“”‘’'«»"))
        if not term or not _plausible(term) or len(term.split()) > MAX_TERM_WORDS:
            return None
        offset = ptext.index(term, lead)
        start, end = para.start + offset, para.start + offset + len(term)
        if not self.emphasis.is_bold(para, start, end):
            return None
        return self._make(para, term, start, end, Form.BOLD)

    # -- helpers ----------------------------------------------------------------------------
    def _from_match(self, para: Paragraph, m: re.Match[str], form: Form) -> Definition:
        raw = m.group("term")
        term = clean_term(raw)
        start = para.start + m.start("term")
        return self._make(para, term, start, start + len(raw.rstrip(",.;: ")), form)

    def _make(self, para: Paragraph, term: str, start: int, end: int, form: Form) -> Definition:
        return Definition(clean_term(term), para.index, (start, end), form, self._scope(para, start))

    def _in_definitions_clause(self, para: Paragraph) -> bool:
        head = para.node
        while head is not None:
            known = self._definitions_heads.get(head.index)
            if known is None:
                known = is_definitions_title(_title_words(head))
                self._definitions_heads[head.index] = known
            if known:
                return True
            head = head.parent
        return False

    def _scope(self, para: Paragraph, at: int) -> Scope | None:
        view = self.view
        text = view.text
        found = _SCOPE.search(text, para.start, at)
        if found is None:
            intro = self._introduction(para)
            if intro is not None:
                found = _SCOPE.search(text, intro.start, intro.end)
        if found is None:
            return None
        head = _scoped_head(view, para, found.group("word").casefold(), found.group("number"))
        if head is None:
            return None
        return Scope(head.title, head.index, head.last)

    def _introduction(self, para: Paragraph) -> Paragraph | None:
        """The paragraph that introduces ``para``'s list of definitions: its section's head, or
        the nearest paragraph before it in its section that ends with a colon."""
        head = para.node
        paragraphs = self.view.paragraphs
        first = head.index if head is not None else max(0, para.index - 40)
        for j in range(para.index - 1, max(first, para.index - 200) - 1, -1):
            p = paragraphs[j]
            t = self.view.paragraph_text(p).rstrip()
            if t.endswith(":") or j == first:
                return p
        return None


def _scoped_head(view: DocumentView, para: Paragraph, word: str, number: str | None) -> Head | None:
    head = para.node
    if head is None:
        return None
    kind = _SCOPE_KINDS.get(word)
    if number is not None:
        label = f"{word} {number}" if kind is not None or word in ("clause", "section", "article") else number
        ref = parse_reference(label)
        if ref.target is not None:
            for candidate in view.outline.named(label):
                if head.within(candidate):
                    return candidate
    if kind is not None:
        h: Head | None = head
        while h is not None:
            if h.number is not None and h.number.kind is kind:
                return h
            h = h.parent
        return head.namespace
    if word == "paragraph" or word.startswith("sub"):
        h = head
        while h is not None and h.number is None:
            h = h.parent
        return h
    # clause, section, article: the top-level numbered section it lies in (inside its schedule)
    top: Head | None = None
    h = head
    while h is not None:
        if h.number is not None and h.number.kind in _SCOPE_KINDS.values():
            break
        if h.number is not None:
            top = h
        h = h.parent
    return top


def _title_words(head: Head) -> str:
    title = head.title or ""
    if head.shown and title.startswith(head.shown):
        title = title[len(head.shown) :]
    return title.strip()


def _lead(ptext: str) -> int:
    """Where a paragraph's words begin: after leading space and a typed clause number."""
    pos = len(ptext) - len(ptext.lstrip())
    typed = typed_number(ptext)
    if typed is not None:
        at = ptext.find(typed, pos)
        if at == pos:
            pos = at + len(typed)
            pos += len(ptext[pos:]) - len(ptext[pos:].lstrip())
    return pos


def _only_number(text: str) -> bool:
    return typed_number(text) is not None and typed_number(text) == text.strip()


def _plausible(term: str) -> bool:
    """A quoted stretch that may be a term: a few words, a letter or digit first, no sentence in
    it (a full stop inside one is an abbreviation's: "U.S. Dollars")."""
    t = term.strip().rstrip(",.;:")
    if not t or len(t) > MAX_TERM_CHARS or not t[0].isalnum():
        return False
    if len(t.split()) > MAX_TERM_WORDS or any(c in t for c in "!?;"):
        return False
    return _SENTENCE_INSIDE.search(t) is None


_SENTENCE_INSIDE: Final = re.compile(r"[^\W\d_]{3,}[.:]\s")
