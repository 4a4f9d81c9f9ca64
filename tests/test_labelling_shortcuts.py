"""The labelling pass's shortcuts, each against the long way it stands for (hypothesis).

* :meth:`Numbering.label_of` (no :class:`ListNumber` made) gives the label and level
  :meth:`Numbering.number_of` gives, counting the same;
* a level's label writer (one ``%`` formatting for decimal labels) writes what
  :func:`redline.read.numbering._render` writes, for counters as a use leaves them;
* the heads whose first span lies in a field's result, found from the runs of such spans,
  are those a look at every head's first span finds.
"""

from __future__ import annotations

import bisect

from hypothesis import given, settings
from hypothesis import strategies as st

from redline.read.labels import _first_in_field
from redline.read.numbering import MAX_LEVELS, Level, _Instance, _render, _writer
from redline.read.roles import read_ppr
from tests.test_numbering_model import FORMATS, Document, documents, numbering_of, paragraph_xml


@settings(max_examples=200, deadline=None)
@given(doc=documents())
def test_label_of_counts_and_labels_as_number_of(doc: Document) -> None:
    props = [read_ppr(paragraph_xml(p)) for p in doc.paragraphs]
    long_way, short_way = numbering_of(doc), numbering_of(doc)
    expected = []
    for own in props:
        number = long_way.number_of(own)
        expected.append(None if number is None else (number.label, number.ilvl))
    assert [short_way.label_of(own) for own in props] == expected


# a level text: literals (with a stray "%", "%0" and spaces) around placeholders of any level
TEXT_PIECES = st.sampled_from(
    ["%1", "%2", "%3", "%5", "%9", ".", "(", ")", " ", "%", "%0", "Art ", "%%1", "-"]
)
LEVELS = st.builds(
    Level,
    start=st.integers(-2, 5),
    fmt=st.sampled_from([*FORMATS, "custom:001, 002", "ordinal", "unknownFormat"]),
    text=st.lists(TEXT_PIECES, max_size=6).map("".join),
    is_legal=st.booleans(),
)


@settings(max_examples=500, deadline=None)
@given(
    levels=st.lists(st.none() | LEVELS, min_size=MAX_LEVELS, max_size=MAX_LEVELS),
    ilvl=st.integers(0, MAX_LEVELS - 1),
    level=LEVELS,
    data=st.data(),
)
def test_a_levels_writer_writes_what_render_writes(
    levels: list[Level | None], ilvl: int, level: Level, data: st.DataObject
) -> None:
    levels[ilvl] = level
    instance = _Instance("list", tuple(levels), {}, {})
    # as a use leaves them: every level up to ilvl counted, the deeper ones counted or restarted
    counted = data.draw(st.lists(st.integers(-3, 3000), min_size=ilvl + 1, max_size=ilvl + 1))
    rest = MAX_LEVELS - ilvl - 1
    deeper = data.draw(st.lists(st.none() | st.integers(0, 30), min_size=rest, max_size=rest))
    counters: list[int | None] = [*counted, *deeper]
    for _ in range(2):  # (a writer is kept and used again)
        write = _writer(instance, ilvl, level)
        assert write(counters) == _render(instance, ilvl, level, counters)


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
    assert _first_in_field(starts, in_field, at) == long_way
