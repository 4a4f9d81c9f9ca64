"""The third hostile catalogue: ids read as numbers, long insertions in linear time, one entry too
large for the loader refused alone, typed clause numbers of any width.

1. Word reads every ``w:id`` as a number (``ST_DecimalNumber``): "0005" is 5.  The reader, the
   decisions and the writer compare and allocate ids so, of any width, and no new id is above
   2^31-1 (what Word reads) nor one the document already uses.
2. One ``insert_after`` with a ``text`` of many lines costs linear CPU time, and above the
   documented limit (:data:`redline.match.verify.MAX_INSERT_LINES`) the entry alone is refused.
3. A replacement the loader could not read back (over its text-node limit) is that entry's
   refusal; the rest of the batch applies.
4. A typed "Clause 1234" is a section.

CPU time (``time.process_time``), never the wall clock, and generous ratios: the machine is shared.
"""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.apply import ApplyOptions, Outcome, apply_reply
from redline.match import verify as verify_module
from redline.match.verify import too_large
from redline.read.annotations import read_annotations
from redline.read.ids import MAX_ID, id_key, id_number, same_id
from redline.read.load import load_view
from redline.read.sections import read_number, typed_number
from redline.write.writer import Ids, document_ids, max_revision_id
from shared_schema import parse_edit_reply
from testing.contractgen import generate_contract
from testing.docbuild import P, Raw, Xml, docx

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = {"w": W}
DATE = "2020-01-01T00:00:00Z"


def run(doc: bytes, entries: list[dict[str, Any]], **options: Any) -> Outcome:
    settings = {"author": "Us", "date": "2024-05-01T00:00:00Z", **options}
    return apply_reply(doc, json.dumps({"edits": entries}), ApplyOptions(**settings))


def statuses(out: Outcome) -> list[str]:
    return [e.status.value for e in out.report.edits]


def part(data: bytes, name: str) -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return etree.fromstring(z.read(name))


def all_ids(data: bytes) -> list[str]:
    """Every w:id of the output's story and comments parts, as written."""
    found: list[str] = []
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in z.namelist():
            if name.startswith("word/") and name.endswith(".xml"):
                found += [v.decode() for v in re.findall(rb'w:id="([^"]*)"', z.read(name))]
    return found


def comment(cid: str, text: str) -> str:
    return (
        f'<w:comment w:id="{cid}" w:author="Opp" w:date="{DATE}"><w:p><w:r><w:t>{text}</w:t>'
        "</w:r></w:p></w:comment>"
    )


def commented(cid: str, text: str = "ten days") -> Xml:
    return Raw(
        f'<w:p><w:r><w:t xml:space="preserve">Pay within </w:t></w:r><w:commentRangeStart w:id="{cid}"/>'
        f'<w:r><w:t>{text}</w:t></w:r><w:commentRangeEnd w:id="{cid}"/>'
        f'<w:r><w:commentReference w:id="{cid}"/></w:r><w:r><w:t>.</w:t></w:r></w:p>'
    )


def ins(rid: str, text: str) -> Xml:
    return Raw(
        f'<w:p><w:r><w:t xml:space="preserve">Interest accrues at </w:t></w:r>'
        f'<w:ins w:id="{rid}" w:author="Opp" w:date="{DATE}"><w:r><w:t>{text}</w:t></w:r></w:ins>'
        '<w:r><w:t xml:space="preserve"> percent.</w:t></w:r></w:p>'
    )


# -------------------------------------------------------------------------------------------
# 1. ids are numbers


def test_an_id_reads_as_the_number_word_reads() -> None:
    assert [id_number(v) for v in ("5", "0005", " 5 ", "+5", "0000000005", "x", "", "5x")] == [
        5, 5, 5, 5, 5, None, None, None,
    ]  # fmt: skip
    assert id_number("9" * 5000) is not None and id_number("9" * 5000) > MAX_ID  # type: ignore[operator]
    assert id_key("0005") == "5" and id_key("x") == "x" and same_id("5", "00005") and not same_id("5", "50")


def test_the_id_scan_counts_ids_of_any_width_and_leading_zeros_as_numbers() -> None:
    parts = [b'<w:ins w:id="0000000005"/><w:del w:id="99999999999"/>', b"<w:c w:id='  7 '/><w:b id=\"12\"/>"]
    assert document_ids(parts) == {5, 99999999999, 7, 12}
    assert max_revision_id(parts) == 99999999999
    assert max_revision_id([b'<w:ins w:id="' + b"9" * 6000 + b'"/>']) > MAX_ID


def test_new_ids_are_above_the_largest_while_word_reads_them_then_in_the_gaps() -> None:
    ids = Ids({3, 10})
    assert [ids() for _ in range(3)] == ["11", "12", "13"]
    near = Ids({1, 2, 4, MAX_ID - 1})
    assert [near() for _ in range(4)] == [str(MAX_ID), "3", "5", "6"]
    beyond = Ids({1, 99999999999})
    got = [int(beyond()) for _ in range(3)]
    assert got == [2, 3, 4] and all(0 < g <= MAX_ID for g in got)


def test_a_new_comment_never_takes_the_number_of_a_zero_padded_one() -> None:
    padded = "0000000005"
    doc = docx(commented(padded), P("The rent is due monthly."), comments=comment(padded, "Too short."))
    out = run(doc, [{"anchor": "monthly", "replacement": "quarterly", "rationale": "Cash flow."}])
    assert statuses(out) == ["applied"] and out.output is not None
    numbers = [id_number(v) for v in all_ids(out.output)]
    comments = [id_number(c.get(f"{{{W}}}id")) for c in part(out.output, "word/comments.xml")]
    assert comments[0] == 5 and len(set(comments)) == 2 and comments[1] is not None and comments[1] > 5
    assert all(n is not None and 0 <= n <= MAX_ID for n in numbers)


def test_ids_wider_than_nine_digits_are_above_every_new_id_or_distinct_from_them() -> None:
    # 11 digits: beyond what Word reads; the new ids go below 2^31 and take no used number
    doc = docx(ins("99999999999", "five"), ins("7", "six"), P("The rent is due monthly."))
    out = run(doc, [{"anchor": "monthly", "replacement": "quarterly", "rationale": "Cash flow."}])
    assert statuses(out) == ["applied"] and out.output is not None
    new = [id_number(v) for v in all_ids(out.output)]
    assert new.count(99999999999) == 1 and new.count(7) == 1
    ours = [n for n in new if n not in (7, 99999999999)]
    assert ours and all(n is not None and 0 < n <= MAX_ID for n in ours)
    body = part(out.output, "word/document.xml")
    changes = [id_number(e.get(f"{{{W}}}id")) for e in body.iterfind(".//w:ins", NS)]
    changes += [id_number(e.get(f"{{{W}}}id")) for e in body.iterfind(".//w:del", NS)]
    assert len(changes) == len(set(changes)) == 4
    # 10 digits within Word's range: the new ids are above it
    doc = docx(ins("2000000000", "five"), P("The rent is due monthly."))
    out = run(doc, [{"anchor": "monthly", "replacement": "quarterly"}])
    assert out.output is not None
    assert all(id_number(v) == 2000000000 or (id_number(v) or 0) > 2000000000 for v in all_ids(out.output))


def test_ids_at_the_top_of_words_range_never_overflow() -> None:
    doc = docx(ins(str(MAX_ID), "five"), P("The rent is due monthly."))
    out = run(doc, [{"anchor": "monthly", "replacement": "quarterly", "rationale": "Cash flow."}])
    assert statuses(out) == ["applied"] and out.output is not None
    numbers = [id_number(v) for v in all_ids(out.output)]
    assert numbers.count(MAX_ID) == 1 and all(n is not None and 0 < n <= MAX_ID for n in numbers)


def test_a_decision_by_revision_id_finds_the_zero_padded_id() -> None:
    doc = docx(ins("0005", "five"), P("Other text."))
    out = run(doc, [{"action": "accept", "revision_id": "5"}])
    assert statuses(out) == ["applied"], out.report.edits[0].error
    assert out.output is not None and part(out.output, "word/document.xml").find(".//w:ins", NS) is None
    out = run(doc, [{"action": "reject", "revision_id": "r5"}])
    assert statuses(out) == ["applied"]


def test_a_reply_by_comment_id_finds_the_zero_padded_comment_and_anchors_beside_it() -> None:
    doc = docx(commented("0005"), comments=comment("0005", "Too short."))
    loaded = load_view(doc)
    assert isinstance(loaded, tuple)
    found = read_annotations(*loaded)
    assert found.comment("5") and found.comments[0].quote == "ten days"
    out = run(doc, [{"action": "reply", "comment_id": "5", "text": "Agreed."}])
    assert statuses(out) == ["applied"], out.report.edits[0].error
    assert out.output is not None
    body = part(out.output, "word/document.xml")
    starts = [id_number(e.get(f"{{{W}}}id")) for e in body.iterfind(".//w:commentRangeStart", NS)]
    assert len(starts) == 2 and starts[0] == 5 and starts[1] != 5
    replies = [id_number(c.get(f"{{{W}}}id")) for c in part(out.output, "word/comments.xml")]
    assert replies[0] == 5 and replies[1] == starts[1]


# -------------------------------------------------------------------------------------------
# 2. a long insert_after costs linear time, and is bounded


def _contract() -> tuple[bytes, str]:
    doc = generate_contract("lease", seed=1)
    loaded = load_view(doc)
    assert isinstance(loaded, tuple)
    view = loaded[1]
    para = view.paragraphs[5]
    return doc, view.text[para.start : para.end][:40]


def _insert(doc: bytes, anchor: str, lines: int) -> tuple[float, Outcome]:
    text = "\n".join(f"New line number {i} of the schedule." for i in range(lines))
    reply = json.dumps({"edits": [{"action": "insert_after", "anchor": anchor, "text": text}]})
    start = time.process_time()
    out = apply_reply(doc, reply, ApplyOptions(author="Us"))
    return time.process_time() - start, out


def test_a_long_insert_after_costs_linear_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    doc, anchor = _contract()
    _insert(doc, anchor, 200)  # warm: imports, caches
    small, out = _insert(doc, anchor, 5_000)
    assert statuses(out) == ["applied"]
    # above the limit (to see the curve where a quadratic term shows): 5x the lines
    monkeypatch.setattr(verify_module, "MAX_INSERT_LINES", 100_000)
    large, out = _insert(doc, anchor, 25_000)
    assert statuses(out) == ["applied"] and out.output is not None
    loaded = load_view(out.output)
    assert isinstance(loaded, tuple) and len(loaded[1].paragraphs) > 25_000
    # linear is ~5x (5k 0.7 s, 25k 3.4 s); the quadratic writer was ~8x (one list search a line)
    assert large < 7.5 * small + 0.5, (small, large)


def test_an_insert_after_over_the_line_limit_is_refused_alone_and_fast() -> None:
    doc, anchor = _contract()
    text = "\n".join(f"Line {i}." for i in range(100_000))
    reply = {
        "edits": [
            {"action": "insert_after", "anchor": anchor, "text": text},
            {"action": "insert_after", "anchor": anchor, "text": "A new clause.\nAnd another."},
        ]
    }
    start = time.process_time()
    out = apply_reply(doc, json.dumps(reply), ApplyOptions(author="Us"))
    spent = time.process_time() - start
    assert statuses(out) == ["invalid", "applied"] and out.output is not None
    error = out.report.edits[0].error
    assert error is not None and "MAX_INSERT_LINES" in error.message and "100,000 lines" in error.message
    assert spent < 10, spent  # (the lines are not written: ~1 s here, 60 s and more before)


# -------------------------------------------------------------------------------------------
# 3. an entry the loader could not read back is refused alone


def test_a_replacement_over_the_text_node_limit_is_refused_alone() -> None:
    doc = docx(
        P("The rent is due monthly."), P("Interest accrues at five percent."), P("Notices in writing.")
    )
    entries = [
        {"anchor": "monthly", "replacement": "quarterly"},
        {"anchor": "Notices in writing", "replacement": "x" * (20 * 1024 * 1024)},
        {"anchor": "five", "replacement": "six"},
    ]
    out = run(doc, entries)
    assert out.report.error is None
    assert statuses(out) == ["applied", "invalid", "applied"]
    error = out.report.edits[1].error
    assert error is not None and "max_text_chars" in error.message
    assert out.output is not None
    loaded = load_view(out.output)
    assert isinstance(loaded, tuple) and "quarterly" in loaded[1].text and "six" in loaded[1].text


def test_one_line_over_libxml2s_text_node_limit_is_refused_by_that_limit() -> None:
    doc = docx(P("The rent is due monthly."), P("Notices in writing."))
    # 9 M characters (within max_text_chars) but 27 MB as UTF-8: one text node over 10 MB
    long = "\u20ac" * 9_000_000
    entries = [{"anchor": "monthly", "replacement": "quarterly"}, {"anchor": "Notices", "replacement": long}]
    out = apply_reply(doc, json.dumps({"edits": entries}, ensure_ascii=False), ApplyOptions(author="Us"))
    assert statuses(out) == ["applied", "invalid"] and out.output is not None
    error = out.report.edits[1].error
    assert error is not None and "10,000,000 bytes" in error.message
    # many lines, each within the node limit, are written
    assert too_large_of("a\n" * 1000) is None


def too_large_of(replacement: str) -> str | None:
    loaded = load_view(docx(P("Some text.")))
    assert isinstance(loaded, tuple)
    edit = parse_edit_reply(json.dumps({"edits": [{"anchor": "Some", "replacement": replacement}]}))
    assert edit is not None
    return too_large(edit.edits[0], loaded[1])


# -------------------------------------------------------------------------------------------
# 4. typed clause numbers of any width are sections


def test_a_section_edit_lands_in_typed_clause_1234_of_1300() -> None:
    # (a section names where the anchor must be: a scope, checked; "Clause 1234" was no section)
    doc = docx(*(P(f"Clause {n}. The Supplier shall pay the fee of {n} pounds.") for n in range(1, 1301)))
    entry = {
        "anchor": "the fee of 1234 pounds",
        "replacement": "the fee of 1235 pounds",
        "section": "Clause 1234",
    }
    out = run(doc, [entry])
    assert statuses(out) == ["applied"], out.report.edits[0].error
    assert out.output is not None
    body = part(out.output, "word/document.xml")
    changed = [p for p in body.iterfind(".//w:p", NS) if p.find(".//w:ins", NS) is not None]
    assert len(changed) == 1 and "".join(str(t) for t in changed[0].itertext()).startswith("Clause 1234.")
    location = out.report.edits[0].locations[0]
    assert location.paragraph == 1233
    out = run(doc, [{**entry, "section": "Clause 1233"}])
    assert statuses(out) == ["out_of_scope"]
    error = out.report.edits[0].error
    assert error is not None and "Clause 1234" in (error.hint or "") + error.message


def test_typed_numbers_up_to_six_digits_are_sections_and_seven_are_not() -> None:
    assert typed_number("Clause 1234. The fee.") == "Clause 1234."
    assert typed_number("Section 999999 Notices") == "Section 999999"
    assert typed_number("Clause 1000.2 Notices") == "Clause 1000.2"
    assert typed_number("Clause 1234567 The fee.") is None
    number = read_number("Clause 1234")
    assert number is not None and number.path[0] == "1234"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([b" w:id=", b":id=", b"\tid=", b"paraId=", b"id="]),
            st.sampled_from([b'"', b"'"]),
            st.text("0123456789 +\t-x", max_size=24).map(str.encode),
        ),
        max_size=8,
    )
)
def test_the_id_scan_reads_each_id_as_id_number_does(attrs: list[tuple[bytes, bytes, bytes]]) -> None:
    # the scan's plain-digits shortcut against id_number, the long way, on every value
    data = b"<w:r" + b"".join(name + q + value + q for name, q, value in attrs) + b"/>"
    expected: set[int] = set()
    for m in re.finditer(rb"""id=["']([ \t\r\n]*\+?[0-9]+[ \t\r\n]*)["']""", data):
        if m.start() and data[m.start() - 1] in b": \t\n\r\x0b\x0c":
            number = id_number(m.group(1))
            if number is not None:
                expected.add(number)
    assert document_ids([data]) == expected
