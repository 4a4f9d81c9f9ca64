"""Table-row entries: insert_row_after / insert_row_before (cells) and delete_row, tracked.

Judged by LibreOffice over UNO (accept-all gives the intended rows, reject-all the original's),
by pandoc (row texts appear and disappear), by python-docx (opens every output), by our own
view (the written document read with every change accepted) and by XML shape tests (every
other row unchanged, ids unique, every run and paragraph mark of a tracked row marked).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any

import pytest
from lxml import etree

from redline.apply import ApplyOptions, Outcome, apply_reply
from redline.read.load import load_view
from shared_schema import EditStatus, parse_edit_reply
from testing.docbuild import P, Raw, Table, docx
from tests.oracles import pandoc_plain
from tests.oracles_rows import libreoffice_tables

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = {"w": W}
OPTIONS = ApplyOptions(author="Counsel", date="2026-12-01T00:00:00Z")


def q(tag: str) -> str:
    return f"{{{W}}}{tag}"


def tiers() -> bytes:
    return docx(
        P("Schedule 2 service levels."),
        Table([["Tier", "Uptime", "Credit"], ["Silver", "99%", "5%"], ["Bronze", "95%", "2%"]]),
        P("After the table."),
    )


def spanned() -> bytes:
    """A table whose every row has a first cell spanning two grid columns (tcW, gridSpan)."""

    def cell(text: str, span: int = 1) -> str:
        extra = f'<w:gridSpan w:val="{span}"/>' if span > 1 else ""
        width = 2000 * span
        return (
            f'<w:tc><w:tcPr><w:tcW w:w="{width}" w:type="dxa"/>{extra}<w:shd w:val="clear" '
            f'w:fill="EEEEEE"/></w:tcPr><w:p><w:pPr><w:jc w:val="center"/></w:pPr><w:r><w:rPr><w:b/>'
            f"</w:rPr><w:t>{text}</w:t></w:r></w:p></w:tc>"
        )

    rows = "".join(
        f'<w:tr><w:trPr><w:trHeight w:val="400"/></w:trPr>{cell(a, 2)}{cell(b)}</w:tr>'
        for a, b in (("Service", "Fee"), ("Setup", "USD 5,000"), ("Support", "USD 900"))
    )
    table = (
        '<w:tbl><w:tblPr><w:tblW w:w="6000" w:type="dxa"/></w:tblPr><w:tblGrid>'
        + '<w:gridCol w:w="2000"/>' * 3
        + f"</w:tblGrid>{rows}</w:tbl>"
    )
    return docx(P("Fees."), Raw(table), P("End."))


def wide() -> bytes:
    return docx(
        Table([[f"h{c}" for c in range(5)], [f"a{c}" for c in range(5)], [f"b{c}" for c in range(5)]]),
        P("Body."),
        Table([["one"], ["two"]]),
    )


def apply(data: bytes, *edits: dict[str, Any], options: ApplyOptions = OPTIONS) -> Outcome:
    return apply_reply(data, json.dumps({"edits": list(edits)}), options)


def body(data: bytes) -> etree._Element:
    return etree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))


def tables_of(data: bytes) -> list[etree._Element]:
    return body(data).findall(".//w:tbl", NS)


def statuses(outcome: Outcome) -> list[str]:
    return [e.status.value for e in outcome.report.edits]


# -----------------------------------------------------------------------------------------
# The reply


def test_the_parser_reads_row_entries_and_their_spellings() -> None:
    batch = parse_edit_reply(
        json.dumps(
            [
                {"action": "insert_row_after", "anchor": "Silver", "cells": ["Gold", "99.9%", "10%"]},
                {"action": "add_row_above", "anchor": "Silver", "values": ["Gold", 99, None]},
                {"action": "remove_row", "anchor": "Bronze", "replacement": ""},
                {"action": "insert_column", "anchor": "Tier"},
            ]
        )
    )
    assert batch is not None and not batch.invalid
    assert [e.action for e in batch.edits] == [
        "insert_row_after",
        "insert_row_before",
        "delete_row",
        "insert_column",
    ]
    assert batch.edits[1].cells == ["Gold", "99", ""]
    assert any("numeric cell" in n for n in batch.notes) and any("null cell" in n for n in batch.notes)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"action": "insert_row_after", "anchor": "Silver"}, "needs the new row's text in 'cells'"),
        ({"action": "insert_row_after", "anchor": "Silver", "cells": "Gold"}, "cells are one string"),
        ({"action": "insert_row_after", "anchor": "Silver", "cells": ["a", ["b"]]}, "cell 2 is a list"),
        ({"action": "insert_row_after", "anchor": "Silver", "cells": ["a\x01"]}, "U+0001"),
        ({"action": "insert_row_after", "anchor": "Silver", "cells": ["a\u202eb"]}, "bidirectional"),
        ({"action": "insert_row_after", "anchor": "Silver", "text": "Gold"}, "not 'text'"),
        ({"action": "insert_row", "anchor": "Silver", "cells": ["a"]}, "names no side"),
        ({"action": "delete_row", "anchor": "Silver", "replacement": "x"}, "takes no replacement"),
        ({"action": "delete_row", "anchor": "Silver", "cells": ["x"]}, "takes no 'cells'"),
        ({"action": "delete_row"}, "needs an anchor"),
    ],
)
def test_unusable_row_entries_are_invalid_with_the_reason(entry: dict[str, Any], reason: str) -> None:
    batch = parse_edit_reply(json.dumps([entry]))
    assert batch is not None and not batch.edits
    assert reason in batch.invalid[0].reason


# -----------------------------------------------------------------------------------------
# Refusals


def refusal(data: bytes, entry: dict[str, Any]) -> tuple[str, str]:
    outcome = apply(data, entry)
    result = outcome.report.edits[0]
    assert result.error is not None
    return result.status.value, result.error.message + " " + (result.error.hint or "")


def test_a_count_mismatch_is_invalid_and_names_the_count() -> None:
    status, message = refusal(tiers(), {"action": "insert_row_after", "anchor": "Silver", "cells": ["Gold"]})
    assert status == "invalid" and "The row has 3 cells" in message and "exactly 3 strings" in message
    status, message = refusal(
        spanned(), {"action": "insert_row_after", "anchor": "Setup", "cells": ["a", "b", "c"]}
    )
    assert status == "invalid" and "2 cells" in message and "cell 1 spans 2 grid columns" in message


def _merged() -> bytes:
    restart = '<w:tc><w:tcPr><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>Both</w:t></w:r></w:p></w:tc>'
    cont = "<w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc>"
    plain = "<w:tc><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:tc>"
    rows = f"<w:tr>{restart}{plain.format('top')}</w:tr><w:tr>{cont}{plain.format('low')}</w:tr>"
    return docx(Raw(f"<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>{rows}</w:tbl>"), P("x"))


def _header_row() -> bytes:
    rows = (
        "<w:tr><w:trPr><w:tblHeader/></w:trPr><w:tc><w:p><w:r><w:t>Head</w:t></w:r></w:p></w:tc></w:tr>"
        "<w:tr><w:tc><w:p><w:r><w:t>Data</w:t></w:r></w:p></w:tc></w:tr>"
    )
    return docx(Raw(f"<w:tbl><w:tblGrid><w:gridCol/></w:tblGrid>{rows}</w:tbl>"), P("x"))


def _nested() -> bytes:
    inner = (
        "<w:tbl><w:tblGrid><w:gridCol/></w:tblGrid>"
        "<w:tr><w:tc><w:p><w:r><w:t>Inner</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
    )
    rows = f"<w:tr><w:tc>{inner}<w:p><w:r><w:t>Outer</w:t></w:r></w:p></w:tc></w:tr>"
    return docx(Raw(f"<w:tbl><w:tblGrid><w:gridCol/></w:tblGrid>{rows}</w:tbl>"), P("x"))


def _revised() -> bytes:
    ins = '<w:ins w:id="5" w:author="Opp" w:date="2020-01-01T00:00:00Z"><w:r><w:t> new</w:t></w:r></w:ins>'
    rows = (
        f"<w:tr><w:tc><w:p><w:r><w:t>Old</w:t></w:r>{ins}</w:p></w:tc></w:tr>"
        "<w:tr><w:tc><w:p><w:r><w:t>Two</w:t></w:r></w:p></w:tc></w:tr>"
    )
    return docx(Raw(f"<w:tbl><w:tblGrid><w:gridCol/></w:tblGrid>{rows}</w:tbl>"), P("x"))


def _irregular() -> bytes:
    rows = (
        '<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr>'
        "<w:p><w:r><w:t>Title</w:t></w:r></w:p></w:tc></w:tr>"
        "<w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr>"
    )
    return docx(Raw(f"<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>{rows}</w:tbl>"), P("x"))


@pytest.mark.parametrize(
    ("data", "entry", "words"),
    [
        (tiers, {"action": "insert_row_after", "anchor": "Schedule 2", "cells": ["a"]}, "not in a table"),
        (tiers, {"action": "delete_row", "anchor": "Silver\n99%\n5%\nBronze"}, "across table rows"),
        (_merged, {"action": "delete_row", "anchor": "top"}, "vertically merged"),
        (_merged, {"action": "insert_row_after", "anchor": "low", "cells": ["a", "b"]}, "vertically merged"),
        (_header_row, {"action": "delete_row", "anchor": "Head"}, "header row"),
        (_header_row, {"action": "insert_row_before", "anchor": "Head", "cells": ["a"]}, "header row"),
        (_nested, {"action": "delete_row", "anchor": "Inner"}, "nested table"),
        (_nested, {"action": "delete_row", "anchor": "Outer"}, "nested table"),
        (_revised, {"action": "delete_row", "anchor": "Old"}, "tracked changes (by Opp)"),
        (
            _revised,
            {"action": "insert_row_after", "anchor": "Old", "cells": ["a"]},
            "tracked changes (by Opp)",
        ),
        (
            _irregular,
            {"action": "insert_row_before", "anchor": "a", "cells": ["x", "y"]},
            "divide the columns",
        ),
        (tiers, {"action": "insert_column", "anchor": "Tier"}, "tracked column change"),
        (tiers, {"action": "delete_column", "anchor": "no such text"}, "tracked column change"),
    ],
)
def test_rows_that_cannot_be_tracked_are_refused_unsupported(
    data: Any, entry: dict[str, Any], words: str
) -> None:
    original = data()
    outcome = apply(original, entry)
    result = outcome.report.edits[0]
    assert result.status is EditStatus.UNSUPPORTED, result
    assert result.error is not None and words in result.error.message
    assert result.error.hint


def test_a_row_anchor_is_located_counted_and_scoped_like_every_anchor() -> None:
    data = docx(Table([["same", "1"], ["same", "2"], ["other", "3"]]), P("x"))
    out = apply(data, {"action": "delete_row", "anchor": "same"})
    assert statuses(out) == ["ambiguous"]
    out = apply(data, {"action": "delete_row", "anchor": "same", "expected_matches": 2})
    assert statuses(out) == ["applied"]
    got = load_view(out.output or b"")
    assert isinstance(got, tuple) and got[1].text == "other\n3\nx"
    assert statuses(apply(data, {"action": "delete_row", "anchor": "nowhere"})) == ["not_found"]
    assert statuses(apply(data, {"action": "delete_row", "anchor": "other", "section": "9"})) == [
        "out_of_scope"
    ]


def test_a_row_entry_overlapping_a_plain_edit_is_refused_overlap() -> None:
    out = apply(
        tiers(), {"action": "delete_row", "anchor": "Bronze"}, {"anchor": "95%", "replacement": "96%"}
    )
    assert statuses(out) == ["overlap", "overlap"]


# -----------------------------------------------------------------------------------------
# The XML written


def _rows_c14n(data: bytes) -> list[bytes]:
    return [etree.tostring(tr, method="c14n") for tr in body(data).iter(q("tr"))]


def _ids(data: bytes) -> list[str]:
    return [el.get(q("id")) or "" for el in body(data).iter() if el.get(q("id")) is not None and el.tag in {
        q("ins"), q("del"), q("commentRangeStart")}]  # fmt: skip


def test_an_inserted_row_is_marked_whole_and_leaves_every_other_row_as_it_was() -> None:
    original = spanned()
    out = apply(
        original,
        {"action": "insert_row_after", "anchor": "Setup", "cells": ["Training", "USD 2,000\nper day"]},
    )
    assert statuses(out) == ["applied"]
    data = out.output or b""
    before, after = _rows_c14n(original), _rows_c14n(data)
    assert after[:2] == before[:2] and after[3:] == before[2:]  # every other row byte-identical
    raw_in = zipfile.ZipFile(io.BytesIO(original)).read("word/document.xml").decode()
    raw_out = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
    for row in re.findall(r"<w:tr>.*?</w:tr>", raw_in):
        assert row in raw_out  # as written in the input, byte for byte
    new = [tr for tr in body(data).iter(q("tr"))][2]
    trpr = new.find(q("trPr"))
    assert trpr is not None and trpr.find(q("trHeight")) is not None  # the reference row's properties
    assert trpr[-1].tag == q("ins") and trpr[-1].get(q("author")) == "Counsel"
    cells = new.findall(q("tc"))
    assert len(cells) == 2
    first_tcpr = cells[0].find(q("tcPr"))
    assert first_tcpr is not None
    assert first_tcpr.find(q("gridSpan")) is not None and first_tcpr.find(q("tcW")).get(q("w")) == "4000"  # type: ignore[union-attr]
    assert first_tcpr.find(q("shd")) is not None
    paragraphs = list(new.iter(q("p")))
    assert len(paragraphs) == 3  # the second cell's text has a line break: two paragraphs
    for p in paragraphs:
        mark = p.find("w:pPr/w:rPr/w:ins", NS)
        assert mark is not None  # every paragraph mark inserted
        assert p.find("w:pPr/w:jc", NS) is not None  # the reference cell's paragraph properties
    for run in new.iter(q("r")):
        parent = run.getparent()
        assert parent is not None and parent.tag == q("ins")  # every run inside w:ins
        assert run.find("w:rPr/w:b", NS) is not None  # the first run's properties
    ids = _ids(data)
    assert len(ids) == len(set(ids))


def test_a_deleted_row_has_its_text_and_marks_deleted() -> None:
    original = tiers()
    out = apply(original, {"action": "delete_row", "anchor": "Silver"})
    data = out.output or b""
    rows = list(body(data).iter(q("tr")))
    gone = rows[1]
    assert gone.find("w:trPr/w:del", NS) is not None
    assert not list(gone.iter(q("t")))  # no text left undeleted
    assert [t.text for t in gone.iter(q("delText"))] == ["Silver", "99%", "5%"]
    for run in gone.iter(q("r")):
        parent = run.getparent()
        assert parent is not None and parent.tag == q("del")
    for p in gone.iter(q("p")):
        assert p.find("w:pPr/w:rPr/w:del", NS) is not None
    before, after = _rows_c14n(original), _rows_c14n(data)
    assert after[0] == before[0] and after[2] == before[2]
    raw_in = zipfile.ZipFile(io.BytesIO(original)).read("word/document.xml").decode()
    raw_out = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
    rows_in = re.findall(r"<w:tr>.*?</w:tr>", raw_in)
    assert rows_in[0] in raw_out and rows_in[2] in raw_out and rows_in[1] not in raw_out
    ids = _ids(data)
    assert len(ids) == len(set(ids))


def test_rows_go_in_every_position_in_reply_order() -> None:
    out = apply(
        tiers(),
        {"action": "insert_row_before", "anchor": "Tier", "cells": ["First", "", ""]},
        {"action": "insert_row_after", "anchor": "Bronze", "cells": ["Last", "1", "2"]},
        {"action": "insert_row_after", "anchor": "Silver", "cells": ["Gold", "99.9%", "10%"]},
        {"action": "insert_row_after", "anchor": "Silver", "cells": ["Platinum", "99.99%", "20%"]},
        {"action": "delete_row", "anchor": "Bronze"},
    )
    assert statuses(out) == ["applied"] * 5
    got = load_view(out.output or b"")
    assert isinstance(got, tuple)
    # our view reads every change accepted
    assert got[1].text.split("\n")[1:-1] == [
        "First",
        "",
        "",
        "Tier",
        "Uptime",
        "Credit",
        "Silver",
        "99%",
        "5%",
        "Gold",
        "99.9%",
        "10%",
        "Platinum",
        "99.99%",
        "20%",
        "Last",
        "1",
        "2",
    ]


def test_untracked_rows_are_added_and_removed_outright() -> None:
    options = ApplyOptions(author="Counsel", date="2026-12-01T00:00:00Z", track=False)
    out = apply(
        tiers(),
        {"action": "insert_row_after", "anchor": "Silver", "cells": ["Gold", "99.9%", "10%"]},
        {"action": "delete_row", "anchor": "Bronze"},
        options=options,
    )
    data = out.output or b""
    assert not body(data).findall(".//w:ins", NS) and not body(data).findall(".//w:del", NS)
    got = load_view(data)
    assert isinstance(got, tuple) and "Gold\n99.9%\n10%\nAfter" in got[1].text and "Bronze" not in got[1].text


def test_a_rationale_is_a_comment_beside_an_inserted_row_and_a_note_for_a_deleted_one() -> None:
    out = apply(
        tiers(),
        {
            "action": "insert_row_after",
            "anchor": "Silver",
            "cells": ["Gold", "99.9%", "10%"],
            "rationale": "Add Gold.",
        },
        {"action": "delete_row", "anchor": "Bronze", "rationale": "Bronze is withdrawn."},
    )
    assert statuses(out) == ["applied", "applied"]
    rows = list(body(out.output or b"").iter(q("tr")))
    assert rows[1].find(".//w:commentRangeStart", NS) is not None  # on the reference row
    assert rows[2].find(".//w:commentRangeStart", NS) is None
    assert any("Bronze is withdrawn." in n for n in out.report.edits[1].notes)


def test_a_streamed_dry_run_locates_a_row_entry_and_says_it_was_not_checked() -> None:
    entry = {"action": "delete_row", "anchor": "Schedule 2"}  # not in a table
    streamed = ApplyOptions(author="Counsel", date="2026-12-01T00:00:00Z", dry_run=True, stream=True)
    out = apply(tiers(), entry, options=streamed)
    assert statuses(out) == ["verified"] and "Located only" in out.report.edits[0].notes[0]
    dry = ApplyOptions(author="Counsel", date="2026-12-01T00:00:00Z", dry_run=True)
    assert statuses(apply(tiers(), entry, options=dry)) == ["unsupported"]


def test_the_paragraphs_a_row_entry_touched_are_the_written_documents() -> None:
    out = apply(
        tiers(),
        {"action": "insert_row_before", "anchor": "Tier", "cells": ["First", "a", "b"]},
        {"action": "insert_row_after", "anchor": "Silver", "cells": ["Gold", "99.9%\nmore", "10%"]},
        {"anchor": "After the", "replacement": "Below the"},
    )
    assert out.written is not None
    got = load_view(out.output or b"")
    assert isinstance(got, tuple)
    view = got[1]
    texts = {
        k: [view.paragraph_text(view.paragraphs[i]) for i in v]
        for k, v in out.written.touched_paragraphs.items()
    }
    assert texts[0] == ["First", "a", "b", "Tier"]
    assert texts[1] == ["5%", "Gold", "99.9%", "more", "10%"]
    assert texts[2] == ["Below the table."]


def test_python_docx_opens_every_output() -> None:
    docx_mod = pytest.importorskip("docx")
    for data, entries in _cases():
        out = apply(data, *entries)
        document = docx_mod.Document(io.BytesIO(out.output or b""))
        assert document.tables


def test_pandoc_reads_row_texts_under_accept_and_not_under_reject() -> None:
    out = apply(
        tiers(),
        {"action": "insert_row_after", "anchor": "Silver", "cells": ["Gold", "99.9%", "10%"]},
        {"action": "delete_row", "anchor": "Bronze"},
    )
    data = out.output or b""
    accepted, rejected = pandoc_plain(data, "accept"), pandoc_plain(data, "reject")
    assert "Gold" in accepted and "99.9%" in accepted and "Bronze" not in accepted
    assert "Gold" not in rejected and "99.9%" not in rejected and "Bronze" in rejected


# -----------------------------------------------------------------------------------------
# LibreOffice: accept-all gives the intended rows, reject-all the original's


T = [["Tier", "Uptime", "Credit"], ["Silver", "99%", "5%"], ["Bronze", "95%", "2%"]]
S = [["Service", "Fee"], ["Setup", "USD 5,000"], ["Support", "USD 900"]]
H = [[f"h{c}" for c in range(5)], [f"a{c}" for c in range(5)], [f"b{c}" for c in range(5)]]


def _cases() -> list[tuple[bytes, list[dict[str, Any]]]]:
    return [(data, entries) for data, entries, _ in _judged()]


def _judged() -> list[tuple[bytes, list[dict[str, Any]], list[list[list[str]]]]]:
    """Documents, entries, and the tables the accepted document must have (stated here, not
    computed by the code under test)."""
    return [
        (
            tiers(),
            [{"action": "insert_row_before", "anchor": "Tier", "cells": ["First", "a", "b"]}],
            [[["First", "a", "b"], *T]],
        ),
        (
            tiers(),
            [{"action": "insert_row_after", "anchor": "Bronze", "cells": ["Last", "c", "d"]}],
            [[*T, ["Last", "c", "d"]]],
        ),
        (
            tiers(),
            [
                {"action": "insert_row_after", "anchor": "Silver", "cells": ["Gold", "99.9%", "10%"]},
                {"action": "delete_row", "anchor": "Bronze"},
            ],
            [[T[0], T[1], ["Gold", "99.9%", "10%"]]],
        ),
        (tiers(), [{"action": "delete_row", "anchor": "Tier"}], [T[1:]]),
        (
            tiers(),
            [
                {"action": "delete_row", "anchor": "Bronze"},
                {"anchor": "Schedule 2", "replacement": "Annex 2"},
            ],
            [T[:2]],
        ),
        (
            spanned(),
            [
                {
                    "action": "insert_row_after",
                    "anchor": "Setup",
                    "cells": ["Training", "USD 2,000\nper day"],
                },
                {"action": "delete_row", "anchor": "Support", "rationale": "gone"},
            ],
            [[S[0], S[1], ["Training", "USD 2,000\nper day"]]],
        ),
        (
            spanned(),
            [{"action": "insert_row_before", "anchor": "Service", "cells": ["Top", "0"], "rationale": "r"}],
            [[["Top", "0"], *S]],
        ),
        (
            wide(),
            [
                {"action": "insert_row_after", "anchor": "a2", "cells": ["x0", "x1", "x2", "x3", "x4"]},
                {"action": "insert_row_before", "anchor": "two", "cells": ["one and a half"]},
                {"action": "insert_row_after", "anchor": "two", "cells": ["three"]},
            ],
            [
                [H[0], H[1], [f"x{c}" for c in range(5)], H[2]],
                [["one"], ["one and a half"], ["two"], ["three"]],
            ],
        ),
        (
            docx(P("a"), Table([["one"], ["two"]]), P("b")),
            [{"action": "delete_row", "anchor": "one"}, {"action": "delete_row", "anchor": "two"}],
            [],  # every row deleted: the table goes
        ),
        (
            tiers(),  # a row replaced: its rationale's comment goes to a row that stays
            [
                {
                    "action": "insert_row_after",
                    "anchor": "Silver",
                    "cells": ["Gold", "1", "2"],
                    "rationale": "r",
                },
                {"action": "delete_row", "anchor": "Silver"},
            ],
            [[T[0], ["Gold", "1", "2"], T[2]]],
        ),
        (
            tiers(),
            [
                {"action": "delete_row", "anchor": "Bronze"},
                {
                    "action": "insert_row_before",
                    "anchor": "Bronze",
                    "cells": ["Gold", "1", "2"],
                    "rationale": "r",
                },
            ],
            [[T[0], T[1], ["Gold", "1", "2"]]],
        ),
        (
            _header_row(),
            [{"action": "insert_row_after", "anchor": "Head", "cells": ["New"]}],
            [[["Head"], ["New"], ["Data"]]],  # after the header row, the header flag not copied
        ),
        (
            wide(),
            [{"action": "delete_row", "anchor": "a1"}, {"action": "delete_row", "anchor": "two"}],
            [[H[0], H[2]], [["one"]]],
        ),
    ]


@pytest.mark.slow
def test_libreoffice_accepts_into_the_intended_rows_and_rejects_into_the_original() -> None:
    cases = _judged()
    outputs = []
    for data, entries, _ in cases:
        out = apply(data, *entries)
        assert all(s == "applied" for s in statuses(out)), out.report.edits
        outputs.append(out.output or b"")
    originals = [data for data, _, _ in cases]
    read = libreoffice_tables([*outputs, *originals])
    n = len(cases)
    for k, (_, _, want) in enumerate(cases):
        mine, orig = read[k], read[n + k]
        assert mine["original"]["redlines"] > 0, k
        assert mine["accept"]["tables"] == want, (k, mine["accept"])
        assert mine["reject"]["tables"] == orig["original"]["tables"], (k, mine["reject"], orig["original"])
        assert mine["reject"]["paragraphs"] == orig["original"]["paragraphs"], k
        assert mine["accept"]["left"] == 0 and mine["reject"]["left"] == 0
