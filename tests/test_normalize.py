"""The tolerant normalisation: exactly the forgiven differences, and a map back that round-trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redline.text.normalize import (
    DASHES,
    DOUBLE_QUOTES,
    INVISIBLE,
    SINGLE_QUOTES,
    WHITESPACE,
    NormalizedText,
    identity_normalized,
    normalize,
    tolerances_needed,
)
from shared_schema import Tolerance

# -- an obviously correct, per-character oracle -------------------------------------------------


def oracle(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The normalised text and, for each of its characters, the original range it came from."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in WHITESPACE or c in INVISIBLE:
            j = i
            while j < len(text) and (text[j] in WHITESPACE or text[j] in INVISIBLE):
                j += 1
            if any(ch in WHITESPACE for ch in text[i:j]):
                out.append(" ")
                spans.append((i, j))
            i = j
        elif c == "\u2026":
            out.extend("...")
            spans.extend([(i, i + 1)] * 3)
            i += 1
        else:
            if c in SINGLE_QUOTES:
                c = "'"
            elif c in DOUBLE_QUOTES:
                c = '"'
            elif c in DASHES:
                c = "-"
            out.append(c)
            spans.append((i, i + 1))
            i += 1
    return "".join(out), spans


SPECIALS = WHITESPACE + SINGLE_QUOTES + DOUBLE_QUOTES + DASHES + INVISIBLE + "\u2026."
texts = st.text(alphabet=st.sampled_from("ab T" + SPECIALS), max_size=40)


# -- what is forgiven ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "document, quote",
    [
        ("Section\u00a04.2", "Section 4.2"),
        ("Section\u202f4.2", "Section 4.2"),  # narrow no-break space
        ("thirty\u2009(30) days", "thirty (30) days"),  # thin space
        ("Tenant\tshall", "Tenant shall"),
        ("Tenant\nshall", "Tenant  shall"),  # a line break and two spaces are both one run
        ("end of 4.1.\u2029Next", "end of 4.1. Next"),
        ("the \u201cPremises\u201d", 'the "Premises"'),
        ("Tenant\u2019s", "Tenant's"),
        ("Landlord\u02bcs", "Landlord's"),
        ("5\u2032 6\u2033", "5' 6\""),  # primes
        ("2025\u20132030", "2025-2030"),
        ("notice \u2014 in writing", "notice - in writing"),
        ("non\u2011exclusive", "non-exclusive"),
        ("\u22125%", "-5%"),
        ("pay\u00adment", "payment"),
        ("Land\u200blord", "Landlord"),
        ("and so on\u2026", "and so on..."),
    ],
)
def test_typography_and_whitespace_differences_are_forgiven(document: str, quote: str) -> None:
    assert normalize(document) == normalize(quote)
    assert NormalizedText.build(document).text == normalize(quote)


@pytest.mark.parametrize(
    "document, quote",
    [
        ("Tenant shall pay", "tenant shall pay"),  # case
        ("Tenant shall pay", "Tenant shall pay all"),  # a word added
        ("Tenant shall promptly pay", "Tenant shall pay"),  # a word dropped
        ("Tenant shall pay", "Tenant must pay"),  # a word changed
        ("Tenantshall", "Tenant shall"),  # no whitespace is not some whitespace
        ("Tenant\u200bshall", "Tenant shall"),  # a zero-width space is not a space
        ("clause 4.2;", "clause 4.2,"),  # other punctuation
        ("\u00a7 4", "S 4"),
        ("10.000", "10,000"),
        ("caf\u00e9", "cafe"),  # accents are letters
    ],
)
def test_everything_else_must_agree(document: str, quote: str) -> None:
    assert normalize(document) != normalize(quote)


def test_the_tolerances_needed_are_named_each_one_necessary() -> None:
    assert tolerances_needed("Tenant's notice", "Tenant\u2019s notice") == ["quotes"]
    assert tolerances_needed("a - b", "a\u00a0\u2014\u00a0b") == ["whitespace", "dashes"]
    assert tolerances_needed("payment...", "pay\u00adment\u2026") == ["invisible", "ellipsis"]
    assert tolerances_needed("same", "same") == []
    # not even equal: every normalisation is needed (the label tolerance is none: a label is
    # left out before matching, see test_sections)
    assert set(tolerances_needed("x", "y")) == {t.value for t in Tolerance} - {"label"}


def test_subsets_of_tolerances_forgive_only_their_own_differences() -> None:
    assert normalize("a\u00a0\u2019", [Tolerance.WHITESPACE]) == "a \u2019"
    assert normalize("a\u00a0\u2019", [Tolerance.QUOTES]) == "a\u00a0'"
    assert normalize("x\u00ad \u2026", [Tolerance.INVISIBLE]) == "x \u2026"
    assert normalize("x\u00ad \u2026", []) == "x\u00ad \u2026"


# -- the map ---------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(texts)
def test_the_fast_build_agrees_with_the_oracle_and_normalize(text: str) -> None:
    expected, _ = oracle(text)
    assert normalize(text) == expected
    assert NormalizedText.build(text).text == expected
    # Long texts take the str.replace path; it must agree with the short-text path.
    long = text * (2100 // max(1, len(text)) + 1)
    assert NormalizedText.build(long).text == normalize(long) == oracle(long)[0]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab T" + SPECIALS), min_size=30, max_size=160))
def test_texts_either_side_of_the_one_for_one_threshold_normalise_alike(text: str) -> None:
    """str.translate below a few dozen characters, str.replace scans above, a plain copy for
    ASCII text with nothing to change: the same normalised text."""
    expected = oracle(text)[0]
    assert NormalizedText.build(text).text == normalize(text) == expected
    ascii_text = "".join(c for c in text if c.isascii())
    assert NormalizedText.build(ascii_text).text == oracle(ascii_text)[0]


@settings(max_examples=400, deadline=None)
@given(texts)
def test_an_identity_map_is_told_without_building_it(text: str) -> None:
    """identity_normalized: the normalised text exactly when every offset maps to itself."""
    expected, mapping = oracle(text)
    same_length = len(expected) == len(text) and all(span == (i, i + 1) for i, span in enumerate(mapping))
    assert identity_normalized(text) == (expected if same_length else None)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_every_normalised_range_maps_back_to_the_original_range_it_came_from(text: str) -> None:
    expected, spans = oracle(text)
    norm = NormalizedText.build(text)
    for a in range(len(expected)):
        assert norm.orig_start(a) == spans[a][0]
        for b in range(a + 1, len(expected) + 1):
            assert norm.orig_span(a, b) == (spans[a][0], spans[b - 1][1])
            # the original range normalises back to the same text, except where it cuts an
            # expanded ellipsis, which splits_expansion reports
            if not (norm.splits_expansion(a) or norm.splits_expansion(b)):
                s, e = norm.orig_span(a, b)
                assert normalize(text[s:e]) == expected[a:b]


def test_a_boundary_inside_an_expanded_ellipsis_is_reported() -> None:
    norm = NormalizedText.build("etc\u2026 and")
    assert norm.text == "etc... and"
    assert [norm.splits_expansion(n) for n in range(3, 7)] == [False, True, True, False]
    assert norm.orig_span(3, 6) == (3, 4)


def test_a_megabyte_normalises_in_well_under_a_second() -> None:
    import time

    para = (
        "The Tenant\u2019s \u201cPremises\u201d\u00a0\u2014 Section\u00a04.2 (2025\u20132030) "
        "pay\u00adment\u2026  \n"
    )
    text = para * (1_000_000 // len(para))
    start = time.process_time()  # CPU time: a busy machine stretches only the wall clock
    norm = NormalizedText.build(text)
    assert time.process_time() - start < 1.0
    assert norm.text == normalize(text)
    # "t…  \n" at the end: five normalised characters "t... " from five original ones
    assert norm.orig_span(len(norm.text) - 5, len(norm.text)) == (len(text) - 5, len(text))
