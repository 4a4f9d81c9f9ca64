"""The labelling pass's shortcuts, each against the long way it stands for (hypothesis).

* :meth:`Numbering.label_of` (no :class:`ListNumber` made, a level's label written by one
  ``%`` formatting when it shows only decimal numbers of counted levels) gives the label and
  level :meth:`Numbering.number_of` gives (which renders each label the long way), counting
  the same -- for any level text, stray "%" and placeholders of deeper levels included;
* the heads whose first span lies in a field's result, found from the runs of such spans,
  are those a look at every head's first span finds;
* the typed numbers' patterns, compiled on first use, are the ones typed_number joins;
* a body paragraph read as a contents line by its last character first, as by its tail.
"""

from __future__ import annotations

import bisect

from hypothesis import given, settings
from hypothesis import strategies as st

from redline.read.contents import MAX_CONTENTS_LINE, TAIL, ends_in_page_number
from redline.read.labels import ends_as_contents_line, first_in_field
from redline.read.roles import read_ppr
from tests.test_numbering_model import (
    FORMATS,
    LEVELS,
    STYLE_IDS,
    Document,
    LevelDef,
    documents,
    numbering_of,
    paragraph_xml,
)


def _same_labels(doc: Document) -> None:
    props = [read_ppr(paragraph_xml(p)) for p in doc.paragraphs]
    long_way, short_way = numbering_of(doc), numbering_of(doc)
    expected = []
    for own in props:
        number = long_way.number_of(own)
        expected.append(None if number is None else (number.label, number.ilvl))
    assert [short_way.label_of(own) for own in props] == expected


@settings(max_examples=200, deadline=None)
@given(doc=documents())
def test_label_of_counts_and_labels_as_number_of(doc: Document) -> None:
    _same_labels(doc)


# a level text of any pieces: literals (a stray "%", "%0", spaces) and placeholders of any level
TEXT_PIECES = st.sampled_from(
    ["%1", "%2", "%3", "%4", "%9", ".", "(", ")", " ", "%", "%0", "Art ", "%%1", "-"]
)


@st.composite
def odd_levels(draw: st.DrawFn, ilvl: int) -> LevelDef:
    return LevelDef(
        start=draw(st.integers(0, 3)),
        fmt=draw(st.sampled_from([*FORMATS, "ordinal", "cardinalText", "unknownFormat"])),
        text="".join(draw(st.lists(TEXT_PIECES, max_size=6))),
        legal=draw(st.booleans()),
        restart=draw(st.none() | st.integers(0, LEVELS)),
        style=draw(st.none() | st.sampled_from(STYLE_IDS)),
    )


@st.composite
def odd_documents(draw: st.DrawFn) -> Document:
    doc = draw(documents())
    doc.abstracts = [{i: draw(odd_levels(i)) for i in levels} for levels in doc.abstracts]
    return doc


@settings(max_examples=300, deadline=None)
@given(doc=odd_documents())
def test_label_of_writes_any_level_text_as_number_of_renders_it(doc: Document) -> None:
    _same_labels(doc)


@settings(max_examples=500, deadline=None)
@given(
    starts=st.lists(st.integers(0, 60), max_size=30).map(sorted),
    flags=st.data(),
    at=st.lists(st.integers(-5, 70), max_size=30).map(sorted),
)
def test_the_heads_in_a_fields_result_are_found_from_its_runs(
    starts: list[int], flags: st.DataObject, at: list[int]
) -> None:
    in_field = bytes(flags.draw(st.lists(st.integers(0, 1), min_size=len(starts), max_size=len(starts))))
    long_way = [
        j for j, s in enumerate(at) if in_field and in_field[max(0, bisect.bisect_right(starts, s) - 1)]
    ]
    assert first_in_field(starts, in_field, at) == long_way


def test_the_typed_patterns_compiled_on_first_use_are_the_ones_typed_number_joins() -> None:
    """The patterns one by one, compiled when first asked for, once; the only group -- the
    one "(aa)"'s back-reference names -- is the third's, in the one regex too."""
    from redline.read import sections

    patterns = sections.TYPED_PATTERNS
    assert sections.TYPED_PATTERNS is patterns
    assert [p.groups for p in patterns] == [0, 0, 1, 0]
    assert sections.typed_number("(aa) Services") == "(aa)"
    assert sections.typed_number("(ab) Services") is None
    assert sections.typed_number("  Clause 4.2(b) Fees") == "Clause 4.2(b)"


@settings(max_examples=1000, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab Ciivx.\t_\u2026 12\u0663\u00a0\u2003\n;"), max_size=60)
    | st.text(max_size=40),
    st.data(),
)
def test_a_contents_line_is_read_at_its_end_as_the_long_way_reads_it(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    tail = text[max(start, end - TAIL) : end]
    long_way = end - start <= MAX_CONTENTS_LINE and ends_in_page_number(tail, end - start)
    assert ends_as_contents_line(text, start, end) == long_way
    long_line = "x" * MAX_CONTENTS_LINE + text
    assert ends_as_contents_line(long_line, 0, len(long_line)) is False
