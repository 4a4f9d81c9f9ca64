"""The terms pass's shortcuts read what the long way reads (redline.proofread.terms): the lower-case
vocabulary looked up word by word is the set of every paragraph's lower-case words; the words
found in the whole text are the paragraphs' own; the incorporation clause tried only at "terms"
and "variables" is the one a search of the whole text finds; a span overlaps the sorted spans a
bisect says it does."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from redline.proofread.terms import INCORPORATES, Vocabulary, incorporates, overlaps, token_starts
from redline.read.view import DocumentView
from testing.docbuild import P, Table, docx
from tests.support import view_of

_WORD = re.compile(r"[^\W_]+(?:[’'\-][^\W_]+)*")  # a word, as the terms pass reads a paragraph

# words, joiners and the letters whose case rules differ (ß, İ, ı, ſ, the Kelvin sign, a
# combining mark that casefolds to a letter)
_PIECES = [
    "the", "customer", "Customer", "customers’", "Sub-customer", "McCustomer", "services", "ſervices",
    "STRASSE", "straße", "İstanbul", "ıtem", "\u212aey", "a\u0345b", "terms", "TERMS", "defined",
    "capitalised", "have", "the", "meanings", "given", "variables", "has", "meaning", "set", "out",
    "-", "'", "’", " ", "  ", "\u00a0", ".", ",", ";", "\"", "“", "”", "(", ")", "1.2", "x",
]  # fmt: skip
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=30).map(lambda parts: " ".join(parts))


def _view(paragraphs: list[str], table: bool) -> DocumentView:
    blocks: list[object] = [P(t) for t in paragraphs]
    if table and paragraphs:
        blocks.append(Table([[paragraphs[0], paragraphs[-1]]]))
    return view_of(docx(*blocks))


def _words(view: DocumentView) -> set[str]:
    return {w for p in view.paragraphs for w in _WORD.findall(view.paragraph_text(p))}


@settings(max_examples=80, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=6), st.booleans(), st.lists(st.sampled_from(_PIECES), max_size=8))
def test_the_vocabulary_is_every_paragraphs_lower_case_words(
    paragraphs: list[str], table: bool, asked: list[str]
) -> None:
    view = _view(paragraphs, table)
    vocabulary = {w for w in _words(view) if w.islower()}
    lazy = Vocabulary(view)
    for word in [*asked, *vocabulary]:
        assert (word in lazy) == (word in vocabulary), word


@settings(max_examples=80, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=6), st.booleans(), st.sets(st.sampled_from(_PIECES), max_size=5))
def test_words_found_in_the_whole_text_are_the_paragraphs_own(
    paragraphs: list[str], table: bool, words: set[str]
) -> None:
    view = _view(paragraphs, table)
    words = {w for w in words if _WORD.fullmatch(w)}
    expected = sorted(
        p.start + m.start()
        for p in view.paragraphs
        for m in _WORD.finditer(view.paragraph_text(p))
        if m.group(0) in words
    )
    assert token_starts(view, view.text, words) == expected
    # casefolded: where a word whose casefold is one of them stands (when the lengths agree)
    folded = {w.casefold() for w in words}
    if len(view.text.casefold()) == len(view.text):
        expected = sorted(
            p.start + m.start()
            for p in view.paragraphs
            for m in _WORD.finditer(view.paragraph_text(p))
            if m.group(0).casefold() in folded
        )
        assert token_starts(view, view.text.casefold(), folded) == expected


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_the_incorporation_clause_is_found_where_a_search_finds_it(text: str) -> None:
    assert incorporates(text) == (INCORPORATES.search(text) is not None)


def test_the_incorporation_clause_in_its_forms() -> None:
    for text in (
        "Capitalised terms used but not defined here have the meanings given in the Agreement.",
        "Defined   terms have the meaning set out in the Master Agreement.",
        "Variables shall have the respective meanings ascribed to them in Schedule 1.",
        "CAPITALIZED TERMS HAVE THE MEANINGS DEFINED IN THE LEASE.",
    ):
        assert incorporates(text), text
        assert incorporates("ſ " + text) == (INCORPORATES.search("ſ " + text) is not None)
    assert not incorporates("These terms are final.")


@given(
    st.lists(st.tuples(st.integers(0, 60), st.integers(1, 5)), max_size=8),
    st.integers(0, 70),
    st.integers(1, 10),
)
def test_overlaps_is_the_brute_force_answer(raw: list[tuple[int, int]], a: int, width: int) -> None:
    spans: list[tuple[int, int]] = []
    for start, length in sorted(raw):
        if not spans or start >= spans[-1][1]:
            spans.append((start, start + length))
    b = a + width
    assert overlaps(spans, a, b) == any(x < b and a < y for x, y in spans)
