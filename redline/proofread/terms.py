"""The defined-terms findings: terms used but never defined, definitions never used, terms defined
twice, and multi-word defined terms written in lower case -- each where a lawyer finds it, with
the reply entry that repairs it where one repair is clear.

One pass over the view's words does it all.  The definitions (:mod:`.definitions`) are indexed
once by their first word -- with the forms a use may take: the plural ("Affiliates",
"Parties"), the possessive ("Customer's", "Parties'"), the singular of a plural term, the term in
capitals -- and every word of every paragraph is looked up there: a dictionary probe per word,
whatever the number of terms, so a 300-page contract checks in about the time its view takes.
The same pass gathers the runs of capitalised words (the candidates for an undefined term) and
the document's own lower-case vocabulary, which the candidates are judged by afterwards.

What counts as an **undefined term** is deliberately narrow (a report a lawyer must wade
through is worse than none): two or more capitalised words, not at a sentence's start (there
the first word is left out), after a determiner, a number or a possessive ("the Licensed
Software", "ten (10) Business Days"), each of them a word the document also writes in lower case
(so names -- "Harbor Point Center", "State of California" -- are not terms), in a document that
defines at least :data:`MIN_DEFINITIONS` terms; never inside quotes, in a heading or a line that
reads as a title, in a clause's run-in heading, as the name before a definition or an acronym in
brackets, with a month, a day or the name of a statute in it, or containing a defined term.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import defaultdict
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from itertools import islice, pairwise
from typing import TYPE_CHECKING, Final

from ..read.sections import place, typed_number
from .definitions import Definition, Form, clean_term, definitions, quoted_spans
from .findings import Finding, Kind, Place

if TYPE_CHECKING:
    from ..match.locate import Locator
    from ..read.view import DocumentView, Paragraph

MIN_DEFINITIONS: Final = 3  # definitions a document needs before a capitalised phrase is a term
MAX_RELATED: Final = 10  # other places listed with a finding
MAX_WINDOW_WORDS: Final = 12  # words either side a fix's anchor may take to be unique
CHECKED_STORIES: Final = frozenset({"body", "footnote", "endnote"})  # where findings are reported

_WORD: Final = re.compile(r"[^\W_]+(?:[’'\-][^\W_]+)*")
_SPACE: Final = re.compile(r"[ \u00a0\u2009\u202f]+")
_CONNECTORS: Final = frozenset({"of", "and", "&", "for", "the", "to", "in", "on", "or"})
_DETERMINERS: Final = frozenset(
    [
        "the",
        "a",
        "an",
        "any",
        "each",
        "every",
        "all",
        "such",
        "no",
        "its",
        "their",
        "his",
        "her",
        "our",
        "your",
        "this",
        "that",
        "these",
        "those",
        "other",
        "another",
        "either",
        "neither",
        "same",
        "said",
        "relevant",
        "applicable",
    ]
)
_MONTHS_DAYS: Final = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)
# Words that make a capitalised phrase a name (of a law, a body, a place, a company), not a term.
_NAME_WORDS: Final = frozenset(
    [
        "act",
        "acts",
        "code",
        "regulation",
        "regulations",
        "directive",
        "convention",
        "treaty",
        "statute",
        "statutes",
        "order",
        "rules",
        "constitution",
        "inc",
        "ltd",
        "limited",
        "llc",
        "llp",
        "plc",
        "corporation",
        "corp",
        "company",
        "gmbh",
        "bank",
        "court",
        "courts",
        "state",
        "states",
        "united",
        "kingdom",
        "republic",
        "county",
        "city",
        "street",
        "avenue",
        "road",
        "province",
        "federal",
        "government",
        "university",
        "commission",
        "department",
        "ministry",
        "agency",
        "union",
        "mr",
        "mrs",
        "ms",
        "dr",
        "version",
    ]
)
_REFERENCE_WORDS: Final = frozenset(
    [
        "clause",
        "clauses",
        "section",
        "sections",
        "article",
        "articles",
        "schedule",
        "schedules",
        "annex",
        "annexes",
        "annexure",
        "exhibit",
        "exhibits",
        "appendix",
        "appendices",
        "part",
        "parts",
        "paragraph",
        "paragraphs",
        "item",
        "attachment",
        "recital",
        "recitals",
        "page",
    ]
)
_SPLITTERS: Final = _CONNECTORS - {"of", "&"}  # words that join two phrases, not a term's words
INCORPORATES: Final = re.compile(
    r"\b(?:capitali[sz]ed\s+terms|defined\s+terms|variables|terms)\b[^.;]{0,150}?\b(?:have|has|bear|shall\s+have|"
    r"will\s+have)\s+the\s+(?:respective\s+)?meanings?\b[^.;]{0,60}?\b(?:given|set\s+(?:forth|out)|ascribed|"
    r"assigned|defined|provided)\b",
    re.IGNORECASE,
)
_UP = "A-Z\u00c0-\u00d6\u00d8-\u00de\u0391-\u03a9\u0401\u0410-\u042f"
_LO = "a-z\u00df-\u00f6\u00f8-\u00ff\u03b1-\u03c9\u0430-\u044f\u0451"
# Two or more capitalised words with spaces between them (and joining words among them); no
# letter, digit, apostrophe or hyphen before the first -- a lookbehind after its capital, so
# the scan skips to capitals (one written first is tried at every character: twice the time).
# Each word is read whole, never given back (possessive: a word can only end before a space or
# a character of no word, so a shorter reading of it never matches), its lower-case letter
# looked ahead for: a capitalised word not followed by another fails at once, instead of
# trying every split of itself (three times the time).
_CAPITALISED_WHOLE = rf"[{_UP}](?=[^\W_]*[{_LO}])[^\W_]*+(?:[\u2019'\-][^\W_]++)*+"
_RUN: Final = re.compile(
    rf"[{_UP}](?<![^\W_\u2019'\-].)(?=[^\W_]*[{_LO}])[^\W_]*+(?:[\u2019'\-][^\W_]++)*+"
    rf"(?:[ \u00a0](?:(?:of|and|for|the|to|in|on|or)[ \u00a0])*{_CAPITALISED_WHOLE})+(?![^\W_])"
)
# A word that begins with a capital (ALL CAPS too): where a term's use may begin.
_CAPITAL_WORD: Final = re.compile(rf"(?<![^\W_\u2019'\-])[{_UP}][^\W_]*(?:[\u2019'\-][^\W_]+)*")
_RUN_IN: Final = re.compile(r"\s*[^.:\n]{1,120}[.:]\s")  # "Initial Term. The term ..."
_SENTENCE_END: Final = frozenset(".!?:;\t\n•")
_APOSTROPHES: Final = str.maketrans({"'": "’", "\u00a0": " "})


def term_findings(view: DocumentView) -> list[Finding]:
    """Every defined-terms finding of ``view``: ``undefined_term``, ``unused_definition``,
    ``duplicate_definition``, ``lowercase_defined_term``, in document order within each kind."""
    return _Check(view, definitions(view)).run()


@functools.lru_cache(maxsize=1 << 16)  # the same few phrases, looked up at every use
def key_of(text: str) -> str:
    """A term as compared: apostrophes one kind, spaces single, none around a slash."""
    key = _SPACE.sub(" ", text.translate(_APOSTROPHES)).strip()
    return key.replace("/ ", "/").replace(" /", "/") if "/" in key else key


def use_forms(term: str) -> dict[str, str]:
    """Every form a use of ``term`` may take (as :func:`key_of` keys) -> the form as the term
    spells it: itself, its plural, its possessives, and the singular of a plural term."""
    key = key_of(term)
    words = list(_WORD.finditer(key))
    if not words:
        return {}
    last = words[-1].group(0)
    stem = key[: words[-1].start()]
    tail = key[words[-1].end() :]
    forms = {last, last + "s", last + "es"}
    if last.endswith("y") and len(last) > 2 and last[-2] not in "aeiou":
        forms.add(last[:-1] + "ies")
    if last.endswith("ies") and len(last) > 4:
        forms.add(last[:-3] + "y")
    elif last.endswith("s") and not last.endswith("ss") and len(last) > 3:
        forms.add(last[:-1])
    out: dict[str, str] = {}
    for form in list(forms):
        for possessive in (form, form + "’s", form + "’" if form.endswith("s") else form):
            out[stem + possessive + tail] = stem + possessive + tail
    out[key] = key
    return out


@dataclass(slots=True)
class _Term:
    key: str
    definitions: list[Definition]
    uses: list[tuple[int, int]] = field(default_factory=list)  # (paragraph, start)
    weak_uses: int = 0  # in lower case (each its own finding)


@dataclass(slots=True)
class _Candidate:
    text: str
    places: list[tuple[int, int, int]] = field(default_factory=list)  # paragraph, start, end
    determined: bool = False  # once after a determiner, a number or a possessive


class _Check:
    def __init__(self, view: DocumentView, defs: list[Definition]) -> None:
        self.view = view
        self.defs = defs
        self.terms: dict[str, _Term] = {}
        for d in defs:
            key = key_of(d.term)
            entry = self.terms.get(key)
            if entry is None:
                entry = self.terms[key] = _Term(key, [])
            entry.definitions.append(d)
        # the index: form -> (term key, the form as the term spells it)
        self.exact: dict[str, str] = {}
        self.upper: dict[str, str] = {}
        self.folded: dict[str, tuple[str, str]] = {}
        self.first: dict[str, set[int]] = defaultdict(set)  # first word -> lengths in words
        self.first_upper: dict[str, set[int]] = defaultdict(set)
        self.first_folded: dict[str, set[int]] = defaultdict(set)
        exact_terms = set(self.terms)
        self.weak: dict[str, str] = {}  # a one-word term's forms in lower case -> the term
        for key in sorted(self.terms, key=len):
            multi = len(_WORD.findall(key)) > 1
            forms = use_forms(key)
            if _sentence_case(key):
                # "Accessory dwelling unit" means ...: the capital is the sentence's; a use is
                # written in lower case.
                forms.update({f[0].lower() + f[1:]: f[0].lower() + f[1:] for f in list(forms)})
                multi = False
            elif not multi:
                for form in forms:
                    self.weak.setdefault(form.lower(), key)
            for form, spelled in forms.items():
                if form in exact_terms and form != key:
                    continue  # another term's own spelling wins over a form of this one
                words = _WORD.findall(form)
                if not words:
                    continue
                self.exact.setdefault(form, key)
                self.first[words[0]].add(len(words))
                if any(c.islower() for c in form):
                    self.upper.setdefault(form.upper(), key)
                    self.first_upper[words[0].upper()].add(len(words))
                if multi and any(c.isupper() for c in form):
                    self.folded.setdefault(form.casefold(), (key, spelled))
                    self.first_folded[words[0].casefold()].add(len(words))
        self.first_low = {w for w in self.first if not w[:1].isupper()}
        self.first_any = set(self.first) | set(self.first_upper)  # where a use may begin
        self.capital_starts = _capital_starts(self.first_any)
        self.longest = max(
            (n for lengths in (*self.first.values(), *self.first_folded.values()) for n in lengths), default=1
        )
        self.defs_by_paragraph: dict[int, list[Definition]] = defaultdict(list)
        for d in defs:
            self.defs_by_paragraph[d.paragraph].append(d)
        self.vocabulary = Vocabulary(view)  # the words the document writes in lower case
        self.known: set[str] = set()
        self.candidates: dict[str, _Candidate] = {}
        self.lowercase: list[tuple[Paragraph, int, int, str, str]] = []  # para, start, end, key, spelling
        self._locator: Locator | None = None
        self._singles: dict[str, str | None] = {}  # a word that begins no longer term -> its term
        self._headings: list[Paragraph] = []  # paragraphs whose run-in heading is not read yet
        self._heading_keys: dict[str, list[str]] | None = None  # their headings, by key
        self._separated: bool | None = None  # whether each paragraph ends the text or a line feed does
        self._heading_read: tuple[int, bool] = (-1, False)  # a paragraph's heading: a title?
        self._run_parts: dict[str, _Parts | None] = {}  # a run's text -> its words and parts
        self._weak_forms: dict[str, list[str]] = defaultdict(list)  # term -> its lower-case forms
        for form, key in self.weak.items():
            self._weak_forms[key].append(form)
        self._folds_seen: set[str] = set()  # the words casefolded so far
        self._folds_hit: set[str] = set()  # those whose casefold begins a term's lower-case form

    # -- the pass -----------------------------------------------------------------------------
    def run(self) -> list[Finding]:
        view = self.view
        text = view.text
        # where a capitalised word begins a term, and the runs of capitalised words: each one
        # scan of the whole text (its paragraphs, each after a line feed, which no word or run
        # crosses and which reads as no character to the lookbehinds), dealt out to the
        # paragraphs in order
        starts = (
            [m.start() for m in self.capital_starts.finditer(text)] if self.capital_starts is not None else []
        )
        runs = list(_RUN.finditer(text))
        run_starts = [m.start() for m in runs]
        # where a word in lower case begins a term (its lower-case form), and where a word
        # whose casefold begins a term's lower-case form stands: found in the whole text (as
        # the words of their paragraphs), so a paragraph with none of the four is passed by
        low = self._token_starts(text, self.first_low)
        folded = self._folded_starts()
        i = j = k = f = 0
        for para in view.paragraphs:
            a, b, c, g = i, j, k, f
            end = para.end
            i = bisect.bisect_left(starts, end, i)
            j = bisect.bisect_left(run_starts, end, j)
            k = bisect.bisect_left(low, end, k)
            if folded is not None:
                f = bisect.bisect_left(folded, end, f)
                if i == a and j == b and k == c and f == g:
                    self._quiet(para)
                    continue
                fold_at = folded[g:f]
            else:
                fold_at = None
            self._paragraph(para, starts[a:i], runs[b:j], low[c:k], fold_at)
        out: list[Finding] = []
        out += self._undefined()
        out += self._unused()
        out += self._duplicates()
        out += self._lowercase()
        return out

    def _token_starts(self, haystack: str, words: set[str] | dict[str, set[int]]) -> list[int]:
        if self._separated is None:
            self._separated = _separated(self.view)
        return token_starts(self.view, haystack, words, self._separated)

    def _folded_starts(self) -> list[int] | None:
        """Where a word whose casefold begins a term's lower-case form stands (see
        :meth:`_token_starts`), or None when casefolding changes the text's length (each
        paragraph's words are then casefolded as they come)."""
        if not self.first_folded:
            return []
        text = self.view.text
        lowered = text.casefold()
        if len(lowered) != len(text):
            return None
        return self._token_starts(lowered, self.first_folded)

    def _quiet(self, para: Paragraph) -> None:
        """A paragraph with no word that may begin a term and no run of capitalised words: only
        its run-in heading counts (a known phrase), read when a candidate asks."""
        if para.heads and para.story in CHECKED_STORIES:
            self._headings.append(para)

    def _paragraph(
        self,
        para: Paragraph,
        at: list[int],
        runs: list[re.Match[str]],
        low: list[int],
        folded_at: list[int] | None,
    ) -> None:
        """One paragraph: ``at``, where a capitalised word that begins a term stands; ``runs``,
        its runs of capitalised words (:data:`_RUN`); ``low``, where a word in lower case that
        begins a term stands; ``folded_at``, where a word whose casefold begins a term's
        lower-case form stands (None: not known, read here) -- offsets in the view's text."""
        view = self.view
        ptext = view.text[para.start : para.end]
        stripped_len = len(ptext.strip())
        words = _WORD.findall(ptext) if stripped_len <= 120 or folded_at is None else None
        if words is not None and not words:
            return
        checked = para.story in CHECKED_STORIES
        here = self.defs_by_paragraph.get(para.index, ())
        defining = any(d.form in (Form.MEANS, Form.ENTRY, Form.BOLD) for d in here)
        title_like = _title_like(ptext, words) if words is not None else False
        folding = checked and not title_like and not defining and bool(self.first_folded)
        quoted: list[tuple[int, int]] | None = None
        skip_to = -1  # not read yet
        matched: list[tuple[int, int]] = []  # the spans where a defined term is used
        first, first_upper, first_folded = self.first, self.first_upper, self.first_folded
        base = para.start
        positions = [x - base for x in at]
        extra = [x - base for x in low]
        if folding:
            if folded_at is None:
                assert words is not None
                distinct = set(words)
                unseen = distinct - self._folds_seen  # each word of the document casefolded once
                if unseen:
                    self._folds_seen |= unseen
                    self._folds_hit.update(t for t in unseen if t.casefold() in first_folded)
                folded_hits = distinct & self._folds_hit
                if folded_hits and not (self.first_low & distinct):
                    # the casefolded paragraph's words decide, as they always did: the same
                    # words unless casefolding changed its length ("ß" -> "ss", "İ" -> "i̇")
                    lowered = ptext.casefold()
                    if len(lowered) != len(ptext) and first_folded.keys().isdisjoint(_WORD.findall(lowered)):
                        folded_hits = set()
                extra += _starts(ptext, folded_hits, capital=False)
            else:
                extra += [x - base for x in folded_at]
        if extra:
            positions = sorted(set(positions) | set(extra))
        if positions:
            own = [(d.span[0] - base, d.span[1] - base, key_of(d.term)) for d in here]
            done = 0  # characters before it are part of a match
            singles = self._singles
            for pos in positions:
                if pos < done:
                    continue
                word = _WORD.match(ptext, pos)  # (a word begins at pos)
                assert word is not None
                tok = word.group(0)
                single = singles.get(tok, _UNSEEN)
                if single is _UNSEEN:
                    exact = first.get(tok)
                    upper = first_upper.get(tok) if tok.isupper() and len(tok) > 1 else None
                    folded = first_folded.get(tok.casefold()) if folding else None
                    # as many words as the longest term the word may begin (most: one)
                    lengths = [max(ls) for ls in (exact, upper, folded) if ls]
                    need = max(lengths) if lengths else 1
                    if need == 1 and tok.casefold() not in first_folded:
                        # (what follows it never matters: the same answer wherever it stands)
                        singles[tok] = single = self._single(tok, exact, upper)
                if single is not _UNSEEN:
                    # a word that begins no longer term: its match is the word's own
                    if single is None:
                        continue
                    s, e = word.span()
                    if not own or not any(x <= s and e <= y and k == single for x, y, k in own):
                        self.terms[single].uses.append((para.index, base + s))
                    matched.append((s, e))
                    done = e
                    continue
                if need == 1:
                    spans = [word.span()]
                else:
                    spans = [m.span() for m in islice(_WORD.finditer(ptext, pos), need)]
                step = 0
                if exact:
                    step = self._match(para, ptext, spans, 0, exact, self.exact, own)
                if not step and upper:
                    step = self._match(para, ptext, spans, 0, upper, self.upper, own)
                if not step and folded:
                    if quoted is None:
                        quoted = _quoted_ranges(ptext)
                    if skip_to < 0:
                        skip_to = self._run_in_heading(para, ptext)
                    step = self._match_folded(para, ptext, spans, 0, folded, quoted, skip_to)
                if step:
                    matched.append((spans[0][0], spans[step - 1][1]))
                    done = spans[step - 1][1]
        if not checked:
            return
        self._quiet(para)  # (its run-in heading: read when a candidate asks)
        if not runs:
            return
        if skip_to < 0:
            skip_to = self._run_in_heading(para, ptext)
        if quoted is None:
            quoted = _quoted_ranges(ptext)
        parts_of = self._run_parts
        for run in runs:
            s = run.start() - base
            phrase = run.group(0)
            if title_like:
                self.known.add(key_of(phrase).casefold())
                continue
            read = parts_of.get(phrase, _UNREAD)
            if read is _UNREAD:
                read = parts_of[phrase] = _parts(phrase)
            if read is None:
                continue  # "the Health Insurance Portability and Accountability Act"
            relative, parts = read
            tokens: list[tuple[int, int, str]] | None = None
            for k, last in parts:
                a, b = s + relative[k][0], s + relative[last][1]
                if not (matched and overlaps(matched, a, b)):
                    if tokens is None:
                        tokens = [(s + x, s + y, t) for x, y, t in relative]
                    self._candidate(para, ptext, tokens, k, last, quoted, skip_to)

    def _single(self, tok: str, exact: set[int] | None, upper: set[int] | None) -> str | None:
        """The term a word that begins no longer one is a use of (None: none), as
        :meth:`_match` finds it: its exact form, else its form in capitals."""
        key = key_of(tok)
        if exact:
            found = self.exact.get(key)
            if found is not None:
                return found
        if upper:
            return self.upper.get(key)
        return None

    def _match(
        self,
        para: Paragraph,
        ptext: str,
        spans: list[tuple[int, int]],
        i: int,
        lengths: set[int],
        index: dict[str, str],
        own: list[tuple[int, int, str]],
    ) -> int:
        n = len(spans)
        for size in sorted(lengths, reverse=True):
            if i + size > n:
                continue
            s, e = spans[i][0], spans[i + size - 1][1]
            key = index.get(key_of(ptext[s:e]))
            if key is None:
                continue
            if any(a <= s and e <= b and k == key for a, b, k in own):
                return size  # the term where it is defined: no use of itself
            self.terms[key].uses.append((para.index, para.start + s))
            return size
        return 0

    def _match_folded(
        self,
        para: Paragraph,
        ptext: str,
        spans: list[tuple[int, int]],
        i: int,
        lengths: set[int],
        quoted: list[tuple[int, int]],
        skip_to: int,
    ) -> int:
        n = len(spans)
        for size in sorted(lengths, reverse=True):
            if size < 2 or i + size > n:
                continue
            s, e = spans[i][0], spans[i + size - 1][1]
            written = ptext[s:e]
            found = self.folded.get(key_of(written).casefold())
            if found is None:
                continue
            key, spelled = found
            if key_of(written) == spelled or written.isupper():
                return 0
            term = self.terms[key]
            if (
                self._skips(para, ptext, skip_to, s)
                or _inside(quoted, s, e)
                or not _lower_after_first(written, spelled)
                or any(d.paragraph == para.index for d in term.definitions)
            ):
                term.weak_uses += 1
                return size
            term.weak_uses += 1
            self.lowercase.append((para, para.start + s, para.start + e, key, spelled))
            return size
        return 0

    def _run_in_heading(self, para: Paragraph, ptext: str) -> int:
        """Where a clause's run-in heading ("Initial Term. The term of ...") may end, else 0:
        where it does if it reads as a title (:meth:`_skips`).  (Its name is a known phrase:
        :meth:`_heading_known`.)"""
        if not para.heads:
            return 0
        m = _RUN_IN.match(ptext)
        return 0 if m is None else m.end()

    def _skips(self, para: Paragraph, ptext: str, skip_to: int, s: int) -> bool:
        """Whether offset ``s`` lies in the paragraph's run-in heading, which may end at
        ``skip_to`` (:meth:`_run_in_heading`): before it, and the heading reads as a title."""
        if s >= skip_to:
            return False
        if self._heading_read[0] != para.index:
            heading = ptext[:skip_to].strip().rstrip(".:").strip()
            self._heading_read = (para.index, _title_like(heading, _WORD.findall(heading)))
        return self._heading_read[1]

    def _candidate(
        self,
        para: Paragraph,
        ptext: str,
        tokens: list[tuple[int, int, str]],
        a: int,
        b: int,
        quoted: list[tuple[int, int]],
        skip_to: int,
    ) -> None:
        start = tokens[a][0]
        determined = False
        if _at_sentence_start(ptext, start):
            determined = tokens[a][2].casefold() in _DETERMINERS
            a += 1
            while a <= b and tokens[a][2].casefold() in _CONNECTORS:
                a += 1
        if b - a < 1:
            return
        s, e = tokens[a][0], tokens[b][1]
        phrase = key_of(ptext[s:e])
        folded = phrase.casefold()
        if self._skips(para, ptext, skip_to, s) or _inside(quoted, s, e):
            self.known.add(folded)
            return
        after = ptext[e : e + 4].lstrip(" ,")
        if after.startswith("("):
            close = ptext.find(")", e)
            inside = ptext[ptext.find("(", e) + 1 : close] if close > 0 else ""
            if inside and (inside.strip()[:1] in "\"“‘«'" or inside.strip().isupper()):
                self.known.add(folded)  # the name before its definition or its acronym
                return
        group = _singular(folded)  # "Applicable Law" and "Applicable Laws" are one term
        found = self.candidates.get(group)
        if found is not None and found.determined and len(found.places) >= MAX_RELATED + 1:
            return  # (nothing more to learn of it)
        if not determined:
            determined = _determined(ptext, tokens[a][0])
        if found is None:
            found = self.candidates[group] = _Candidate(phrase)
        if len(found.places) < MAX_RELATED + 1:
            found.places.append((para.index, para.start + s, para.start + e))
        found.determined = found.determined or determined

    # -- the findings --------------------------------------------------------------------------
    def _place(self, paragraph: int, text: str) -> Place:
        para = self.view.paragraphs[paragraph]
        return Place(paragraph, para.label, para.section, text)

    def _where(self, paragraph: int) -> str:
        para = self.view.paragraphs[paragraph]
        return place(para.section, paragraph, para.story)

    def _undefined(self) -> list[Finding]:
        if len(self.terms) < MIN_DEFINITIONS:
            return []
        # "Capitalised terms not defined here have the meanings given in the Agreement": the
        # document's terms may be defined in another; only a misspelt defined term is reported.
        elsewhere: bool | None = None  # (read when a candidate asks)
        out: list[Finding] = []
        vocabulary = self.vocabulary
        for cand in self.candidates.values():
            folded = cand.text.casefold()
            if folded in self.known or folded in self.folded:
                continue
            near = self._near(cand.text)  # a misspelt defined term is one, wherever it stands
            if near is None and not cand.determined:
                continue
            words = _WORD.findall(cand.text)
            content = [w for w in words if w.casefold() not in _CONNECTORS]
            if any(
                w.casefold().removesuffix("’s") in _NAME_WORDS | _MONTHS_DAYS
                or w.casefold() in _REFERENCE_WORDS
                for w in content
            ):
                continue
            if near is None and not all(_in_vocabulary(w, vocabulary) for w in content):
                continue
            first, *others = cand.places
            if near is None:
                if elsewhere is None:
                    elsewhere = incorporates(self.view.text)
                if elsewhere:
                    continue
            if self._heading_known(folded):
                continue  # a clause's run-in heading
            message = (
                f"\u201c{cand.text}\u201d is used as a defined term but is not defined in this document."
            )
            fix = None
            if near is not None:
                message = message[:-1] + f"; the document defines \u201c{near}\u201d."
                fix = self._replace_all(cand.text, near)
            out.append(
                Finding(
                    Kind.UNDEFINED_TERM,
                    message,
                    self._place(first[0], cand.text),
                    tuple(self._place(p, cand.text) for p, _, _ in others[:MAX_RELATED]),
                    fix,
                )
            )
        out.sort(key=lambda f: f.place.paragraph)
        return out

    def _weak(self, term: _Term) -> bool:
        """Whether a one-word term is used in lower case too (an ordinary word as well)."""
        return bool(term.weak_uses) or any(
            form in self.vocabulary for form in self._weak_forms.get(term.key, ())
        )

    def _heading_known(self, folded: str) -> bool:
        """Whether a clause's run-in heading not read in the pass reads ``folded`` (as
        :meth:`_run_in_heading` has it known)."""
        if self._heading_keys is None:
            keys: dict[str, list[str]] = defaultdict(list)
            text = self.view.text
            for para in self._headings:
                ptext = text[para.start : para.end]
                m = _RUN_IN.match(ptext)
                if m is not None:
                    heading = ptext[: m.end()].strip().rstrip(".:").strip()
                    keys[key_of(heading).casefold()].append(heading)
            self._heading_keys = keys
        return any(_title_like(h, _WORD.findall(h)) for h in self._heading_keys.get(folded, ()))

    def _near(self, phrase: str) -> str | None:
        """The one defined term ``phrase`` is a misspelling of (two letters apart at most)."""
        words = len(_WORD.findall(phrase))
        folded = phrase.casefold()
        found = [
            term
            for term in self.terms
            if len(_WORD.findall(term)) == words
            and abs(len(term) - len(phrase)) <= 2
            and _distance(term.casefold(), folded, 2) <= 2
        ]
        return found[0] if len(found) == 1 else None

    def _unused(self) -> list[Finding]:
        out: list[Finding] = []
        # Terms defined together ("Statement of Work" or "SOW" means ...) are one definition:
        # a use of either is a use of both.
        together: dict[int, list[str]] = defaultdict(list)
        for d in self.defs:
            if d.form is Form.MEANS:
                together[d.paragraph].append(key_of(d.term))
        for term in self.terms.values():
            if not term.key[:1].isupper():
                continue  # a term defined in lower case ("you") is an ordinary word as well
            unused: list[Finding] = []
            for d in term.definitions:
                if d.form is Form.MEANS and any(
                    self.terms[k].uses or self._weak(self.terms[k])
                    for k in together[d.paragraph]
                    if k != term.key
                ):
                    continue
                if any(u[0] in d.scope if d.scope is not None else True for u in term.uses):
                    continue
                where = f"in {d.scope.title}" if d.scope is not None else "anywhere in the document"
                unused.append(
                    Finding(
                        Kind.UNUSED_DEFINITION,
                        f"\u201c{d.term}\u201d is defined here but not used {where}.",
                        self._place(d.paragraph, d.term),
                    )
                )
            if unused and not self._weak(term):  # (a use in lower case is a use)
                out += unused
        out.sort(key=lambda f: f.place.paragraph)
        return out

    def _duplicates(self) -> list[Finding]:
        out: list[Finding] = []
        for term in self.terms.values():
            seen: list[Definition] = []
            for d in term.definitions:
                earlier = next((x for x in seen if x.scope == d.scope and x.paragraph != d.paragraph), None)
                if earlier is not None:
                    out.append(
                        Finding(
                            Kind.DUPLICATE_DEFINITION,
                            f"\u201c{d.term}\u201d is defined again here; it is already defined at "
                            f"{self._where(earlier.paragraph)}.",
                            self._place(d.paragraph, d.term),
                            (self._place(earlier.paragraph, earlier.term),),
                        )
                    )
                else:
                    seen.append(d)
        out.sort(key=lambda f: f.place.paragraph)
        return out

    def _lowercase(self) -> list[Finding]:
        out: list[Finding] = []
        taken: dict[int, int] = {}  # paragraph -> where the last fix's anchor ends
        for para, start, end, key, spelled in self.lowercase:
            written = self.view.text[start:end]
            definition = self.terms[key].definitions[0]
            fix = self._case_fix(para, start, end, spelled, taken)
            out.append(
                Finding(
                    Kind.LOWERCASE_DEFINED_TERM,
                    f"\u201c{written}\u201d is written in lower case, but \u201c{definition.term}\u201d "
                    f"is a defined term ({self._where(definition.paragraph)}): use the defined term, "
                    "or reword if the ordinary meaning is intended.",
                    self._place(para.index, written),
                    (self._place(definition.paragraph, definition.term),),
                    fix,
                )
            )
        return out

    # -- fixes ----------------------------------------------------------------------------------
    @property
    def locator(self) -> Locator:
        if self._locator is None:
            from ..match.locate import Locator  # (the fixes' anchors only: it imports the schema)

            self._locator = Locator(self.view)
        return self._locator

    def _case_fix(
        self, para: Paragraph, start: int, end: int, spelled: str, taken: dict[int, int]
    ) -> dict[str, object] | None:
        """An edit replacing the lower-case words at [start, end) with ``spelled``, its anchor
        widened word by word until it occurs once in the document (and clear of the previous
        fix's anchor in the same paragraph)."""
        text = self.view.text
        floor = max(para.start, taken.get(para.index, para.start))
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, para.start, para.end)]
        left = [w for w in words if w[1] <= start and w[0] >= floor]
        right = [w for w in words if w[0] >= end]
        lo, hi = start, end
        written = key_of(text[start:end])
        for step in range(MAX_WINDOW_WORDS + 1):
            anchor = text[lo:hi]
            if self.locator.count(anchor, 1) == 1:
                taken[para.index] = hi
                replacement = text[lo:start] + _respell(text[start:end], written, spelled) + text[end:hi]
                return {
                    "anchor": anchor,
                    "replacement": replacement,
                    "rationale": f"Use the defined term \u201c{spelled}\u201d.",
                }
            if step < len(left):
                lo = left[-1 - step][0]
            if step < len(right):
                hi = right[step][1]
            if step >= len(left) and step >= len(right):
                break
        return None

    def _replace_all(self, phrase: str, spelled: str) -> dict[str, object] | None:
        count = self.locator.count(phrase)
        if count == 0 or count > 1000:
            return None
        fix: dict[str, object] = {
            "anchor": phrase,
            "replacement": spelled,
            "rationale": f"Use the defined term \u201c{spelled}\u201d.",
        }
        if count > 1:
            fix["expected_matches"] = count
        return fix


# -- helpers ------------------------------------------------------------------------------------


def _singular(phrase: str) -> str:
    """A phrase with its last word's possessive and plural left off (to group a term's forms)."""
    for suffix in ("\u2019s", "'s", "\u2019", "'"):
        if phrase.endswith(suffix):
            phrase = phrase[: -len(suffix)]
            break
    if phrase.endswith("ies") and len(phrase) > 4:
        return phrase[:-3] + "y"
    if phrase.endswith("s") and not phrase.endswith("ss"):
        return phrase[:-1]
    return phrase


def _sentence_case(term: str) -> bool:
    """A term of several words whose one capital is its first letter ("Accessory dwelling unit")."""
    return " " in term and term[:1].isupper() and not any(c.isupper() for c in term[1:])


def _capital_starts(firsts: set[str]) -> re.Pattern[str] | None:
    """A pattern that finds, in one scan, every word a scan with :data:`_CAPITAL_WORD` finds
    that is one of ``firsts``: the words grouped by their capital (a branch of literals, which
    the regex engine skips to), each the whole word (no letter or digit, apostrophe or hyphen
    before, as :func:`_begins` has it; no more of a word after)."""
    by_first: dict[str, list[str]] = defaultdict(list)
    for word in firsts:
        if _CAPITAL_WORD.fullmatch(word):
            by_first[word[0]].append(word[1:])
    if not by_first:
        return None
    branches = (
        re.escape(capital)
        + r"(?<![^\W_].)(?<![\u2019'\-].)(?:"
        + "|".join(re.escape(rest) for rest in sorted(tails, key=lambda r: (-len(r), r)))
        + ")"
        for capital, tails in sorted(by_first.items())
    )
    return re.compile("(?:" + "|".join(branches) + r")(?![^\W_]|[\u2019'\-][^\W_])")


def _starts(ptext: str, found: set[str], capital: bool) -> list[int]:
    """Where in ``ptext`` a word of ``found`` stands whole, in order: where a scan of the
    paragraph with :data:`_CAPITAL_WORD` (``capital``) or :data:`_WORD` finds exactly it."""
    pattern = _CAPITAL_WORD if capital else _WORD
    out: list[int] = []
    for word in found:
        at = ptext.find(word)
        while at >= 0:
            if _begins(ptext, at, capital):
                m = pattern.match(ptext, at)  # (a lookbehind does not see before ``at``: _begins)
                if m is not None and m.end() - at == len(word):
                    out.append(at)
            at = ptext.find(word, at + 1)
    out.sort()
    return out


def _begins(ptext: str, at: int, capital: bool) -> bool:
    """Whether a scan from the paragraph's start finds a word beginning at ``at``: for
    :data:`_CAPITAL_WORD`, its lookbehind (no letter, digit, apostrophe or hyphen before); for
    :data:`_WORD`, not inside a word ("Sub-customer", "McCustomer")."""
    if at == 0:
        return True
    before = ptext[at - 1]
    if _WORD_CHAR.match(before):
        return False
    if before not in "\u2019'-":
        return True
    return not capital and (at == 1 or _WORD_CHAR.match(ptext[at - 2]) is None)


_WORD_CHAR: Final = re.compile(r"[^\W_]")
_UNSEEN: Final = "\x00"  # (no term's key)


def _quoted_ranges(ptext: str) -> list[tuple[int, int]]:
    if not any(q in ptext for q in "\"“‘«„'"):
        return []
    return [(m.start(), m.end()) for m in quoted_spans(ptext)]


def _inside(ranges: list[tuple[int, int]], s: int, e: int) -> bool:
    return any(a <= s and e <= b for a, b in ranges)


def _title_like(ptext: str, words: list[str]) -> bool:
    """A heading, a title or a table's label: a short line of capitalised words, no sentence."""
    stripped = ptext.strip()
    if len(stripped) > 120 or len(words) > 14:
        return False
    if stripped.isupper():
        return True
    content = [t for t in words if t.casefold() not in _CONNECTORS and not t.isdigit()]
    if not content:
        return False
    caps = sum(1 for t in content if t[0].isupper())
    if caps / len(content) < 0.75:
        return False
    body = stripped.rstrip(".:")
    return not any(c in body for c in ".;!?") or len(words) <= 6


def _at_sentence_start(ptext: str, start: int) -> bool:
    before = ptext[:start].rstrip(" \u00a0\"“‘«'([")
    if not before:
        return True
    if before[-1] in _SENTENCE_END:
        return True
    typed = typed_number(ptext)
    return typed is not None and before.strip() == typed


def _determined(ptext: str, start: int) -> bool:
    """Whether the word before ``start`` is a determiner, a number or a possessive."""
    found = _word_before(ptext, start)
    if found is None:
        return False
    prev, gap = found[0], found[1].strip()
    if not gap and (prev.casefold() in _DETERMINERS or prev.endswith(("\u2019s", "'s"))):
        return True
    if gap in ("\u2019", "'") and prev.endswith("s"):
        return True  # "the Parties' Confidential ..."
    return prev.isdigit() and gap in ("", ")")


_BEFORE: Final = re.compile(r"([^\W_]+(?:[\u2019'][^\W_]+)*)([^\w\n]{0,3})\Z")
_GAP_CHAR: Final = re.compile(r"[^\w\n]")
_WORD_BACKWARDS: Final = re.compile(r"[^\W_]+(?:[\u2019'][^\W_]+)*")  # (the same read either way)


def _word_before(ptext: str, start: int) -> tuple[str, str] | None:
    """The word before ``start`` and what stands between (up to 3 characters of no word and no
    line feed), within the 40 characters before it: what ``_BEFORE.search(ptext, start - 40,
    start)`` finds -- read backwards from ``start`` instead of tried at every one of the 40."""
    floor = max(0, start - 40)
    end = start  # where the word ends: the gap is every character after it
    while end > floor and start - end < 3 and _GAP_CHAR.match(ptext, end - 1):
        end -= 1
    if end == floor or not _WORD_CHAR.match(ptext, end - 1):
        return None
    word = _WORD_BACKWARDS.match(ptext[floor:end][::-1])
    assert word is not None  # (a word character ends it)
    return word.group(0)[::-1], ptext[end:start]


class Vocabulary:
    """The words a view's paragraphs write in lower case, looked up one by one (each word's
    answer kept): a word is one if the text holds it, in lower case, as one of its paragraph's
    words (as :data:`_WORD` reads them)."""

    def __init__(self, view: DocumentView) -> None:
        self.view = view
        self._known: dict[str, bool] = {}

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word.islower():
            return False
        found = self._known.get(word)
        if found is None:
            found = self._known[word] = self._find(word)
        return found

    def _find(self, word: str) -> bool:
        view = self.view
        text = view.text
        at = text.find(word)
        while at >= 0:
            if _word_at(view, at, len(word)):
                return True
            at = text.find(word, at + 1)
        return False


_Parts = tuple[list[tuple[int, int, str]], list[tuple[int, int]]]
_UNREAD: Final[_Parts] = ([], [])


def overlaps(spans: list[tuple[int, int]], a: int, b: int) -> bool:
    """Whether [a, b) overlaps one of ``spans`` (in order, none overlapping another)."""
    i = bisect.bisect_right(spans, (a, a))  # the first that begins after a; the one before may reach it
    if i > 0 and spans[i - 1][1] > a:
        return True
    return i < len(spans) and spans[i][0] < b


def _parts(phrase: str) -> _Parts | None:
    """A run of capitalised words: its words (start, end, word) and its parts between "and",
    "or", "for", ... (the first and last word of each) -- "Increased Claims or Unlimited
    Claims" -- or None when a word makes it a name (of a law, a body, a place, a company)."""
    tokens = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(phrase)]
    if any(t[2].casefold().removesuffix("\u2019s") in _NAME_WORDS for t in tokens):
        return None
    parts: list[tuple[int, int]] = []
    k = 0
    for j in range(len(tokens) + 1):
        if j == len(tokens) or tokens[j][2] in _SPLITTERS:
            if j - 1 >= k:
                parts.append((k, j - 1))
            k = j + 1
    return tokens, parts


def token_starts(
    view: DocumentView, haystack: str, words: Iterable[str], separated: bool | None = None
) -> list[int]:
    """Where in the view's text a word of its paragraph (as :data:`_WORD` reads a paragraph's
    text) is one of ``words``, in order; ``haystack``: the view's text, or its casefold when that
    is as long (then where a word whose casefold is one of ``words`` stands); ``separated``:
    :func:`_separated` of the view, if known."""
    text = view.text
    if separated is None:
        separated = _separated(view)
    out: list[int] = []
    for word in words:
        n = len(word)
        for m in re.finditer(re.escape(word), haystack):
            at = m.start()
            if separated:  # (a paragraph's words are the text's: no word crosses a line feed)
                found = _TOKEN.match(text, at)
                if found is not None and found.end() - at == n:
                    out.append(at)
            elif _word_at(view, at, n):
                out.append(at)
    out.sort()
    return out


def _separated(view: DocumentView) -> bool:
    """Whether each paragraph of the view's text is followed by a line feed (the last by the
    end): then the words of the text are the words of its paragraphs."""
    text = view.text
    paragraphs = view.paragraphs
    for para, after in pairwise(paragraphs):
        if after.start != para.end + 1 or text[para.end] != "\n":
            return False
    return not paragraphs or paragraphs[-1].end == len(text)


# A word as :data:`_WORD` reads it from the start of its paragraph's text: not inside a word
# (no letter or digit before it, nor an apostrophe or hyphen after one), read whole.
_TOKEN: Final = re.compile(r"(?<![^\W_])(?<![^\W_][\u2019'\-])[^\W_]+(?:[\u2019'\-][^\W_]+)*")


def incorporates(text: str) -> bool:
    """Whether :data:`INCORPORATES` finds a match in ``text`` -- tried only where one may begin:
    at "terms" or "variables" (any case), or at the word before the space before "terms"."""
    lowered = text.lower()
    if len(lowered) != len(text) or any(c in text for c in "\u0130\u0131\u017f\u212a"):
        return INCORPORATES.search(text) is not None  # (re's ignoring case is not lower())
    for word in ("terms", "variables"):
        at = lowered.find(word)
        while at >= 0:
            if INCORPORATES.match(text, at):
                return True
            if word == "terms":
                space = at
                while space > 0 and text[space - 1].isspace():
                    space -= 1
                if space < at and any(INCORPORATES.match(text, space - n) for n in (11, 7) if space - n >= 0):
                    return True  # "capitalised terms", "defined terms"
            at = lowered.find(word, at + 1)
    return False


def _word_at(view: DocumentView, at: int, length: int) -> bool:
    """Whether one of its paragraph's words (as :data:`_WORD` reads a paragraph's text, from
    its start) begins at view offset ``at`` and is ``length`` characters long."""
    para = view.paragraphs[max(0, bisect.bisect_right(view.para_starts, at) - 1)]
    pos = at - para.start
    if pos < 0 or at + length > para.end:
        return False
    text = view.text
    if pos > 0:
        before = text[at - 1]
        if _WORD_CHAR.match(before):
            return False
        if before in "\u2019'-" and pos > 1 and _WORD_CHAR.match(text, at - 2) is not None:
            return False
    m = _WORD.match(text, at, para.end)
    return m is not None and m.end() - at == length


def _in_vocabulary(word: str, vocabulary: Container[str]) -> bool:
    low = word.casefold()
    for suffix in ("’s", "'s"):
        if low.endswith(suffix):
            low = low[: -len(suffix)]
    if low in vocabulary:
        return True
    if low.endswith("ies") and low[:-3] + "y" in vocabulary:
        return True
    if low.endswith("s") and low[:-1] in vocabulary:
        return True
    return low + "s" in vocabulary


def _lower_after_first(written: str, spelled: str) -> bool:
    """Whether ``written`` differs from ``spelled`` only by words in lower case that the term
    capitalises (its first word may differ either way: a sentence may begin "Confidential
    information ...")."""
    a, b = _WORD.findall(written), _WORD.findall(spelled)
    if len(a) != len(b):
        return False
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x == y:
            continue
        if x.lower() != y.lower():
            return False
        if i > 0 and x != x.lower():
            return False
    return True


def _respell(written: str, written_key: str, spelled: str) -> str:
    """``written`` as the defined term spells it, keeping its own spaces where it can."""
    if key_of(written) == written_key and len(written) == len(spelled):
        return "".join(s if w.isalpha() else w for w, s in zip(written, spelled, strict=True))
    return spelled


def _distance(a: str, b: str, limit: int) -> int:
    """The edit distance of ``a`` and ``b``, or ``limit + 1`` once it is above ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


__all__ = [
    "INCORPORATES",
    "Definition",
    "Vocabulary",
    "clean_term",
    "definitions",
    "incorporates",
    "key_of",
    "overlaps",
    "term_findings",
    "token_starts",
    "use_forms",
]
