"""Decisions on the other side's redline (issue 19): accept / reject tracked changes, comment on
a passage, reply to and resolve comments -- on small generated documents, each checked in the
written XML (raw lxml, golden-style), with pandoc's accept / reject views as the oracle of
what the text becomes, and a hypothesis property against an lxml oracle that carries out the
same decisions by hand."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.apply import ApplyOptions, Outcome, apply_reply
from shared_schema import EditStatus, json_schema, parse_edit_reply
from testing.docbuild import CommentEnd, CommentStart, Del, Ins, P, Raw, Table, docx
from testing.hostile_docs2 import in_header
from tests.oracles import pandoc_spaced as pandoc  # its text, every run of whitespace one space
from tests.support import body_xml, comment, members, part, read_back, text_of, with_part

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"
W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
NS = {"w": W, "w15": W15, "w14": W14}
DATE = "2020-01-01T00:00:00Z"
OPTIONS = ApplyOptions(author="Us", date="2024-05-01T00:00:00Z")


def run(doc: bytes, entries: list[dict[str, Any]], **options: Any) -> Outcome:
    return apply_reply(
        doc, json.dumps({"edits": entries}), ApplyOptions(**{"author": "Us", "date": OPTIONS.date, **options})
    )


def statuses(out: Outcome) -> list[str]:
    return [e.status.value for e in out.report.edits]


RENT = docx(
    P(
        "The Tenant shall pay ",
        Ins("quarterly ", author="Opp", id=12),
        Del("monthly ", author="Opp", id=13),
        "rent within ",
        CommentStart(4),
        "ten days",
        CommentEnd(4),
        ".",
    ),
    P(
        "Interest accrues at ",
        Ins("five", author="Opp", id=14),
        " percent.",
        Del(" Late fees apply.", author="Opp", id=15),
    ),
    P("Notices go to ", Ins("the Landlord", author="Other Firm", id=16), "."),
    comments=comment(4, "Too short."),
)


# -------------------------------------------------------------------------------------------
# accept / reject by id: the XML


def test_accepting_an_insertion_unwraps_it_and_leaves_every_other_revision_byte_for_byte() -> None:
    out = run(RENT, [{"action": "accept", "revision_id": "12"}])
    assert statuses(out) == ["applied"]
    assert out.output is not None
    xml = body_xml(out.output)
    assert 'w:id="12"' not in xml and "quarterly " in xml
    before = body_xml(RENT)
    for rid in ("13", "14", "15", "16"):  # each other revision's element as it was, exactly
        element = re.search(rf'<w:(ins|del) w:id="{rid}".*?</w:\1>', before)
        assert element is not None and element.group(0) in xml, rid
    assert pandoc(out.output, "accept") == pandoc(RENT, "accept")
    assert "quarterly" in pandoc(out.output, "reject") and "quarterly" not in pandoc(RENT, "reject")
    location = out.report.edits[0].locations[0]
    assert (location.part, location.paragraph) == ("word/document.xml", 0)
    assert any("r12" in n and "quarterly" in n for n in out.report.edits[0].notes)


def test_rejecting_a_deletion_restores_its_text_as_plain_text() -> None:
    out = run(RENT, [{"action": "reject", "revision_id": "13"}])
    assert out.output is not None
    xml = body_xml(out.output)
    assert 'w:id="13"' not in xml and "<w:delText" not in xml.split("Interest")[0]
    assert re.search(r"<w:t[^>]*>monthly </w:t>", xml)
    assert pandoc(out.output, "reject") == pandoc(RENT, "reject")
    assert pandoc(out.output, "accept") == pandoc(RENT, "accept").replace("quarterly ", "quarterly monthly ")


def test_rejecting_an_insertion_removes_it_and_accepting_a_deletion_removes_its_text() -> None:
    out = run(RENT, [{"action": "reject", "revision_id": "14"}, {"action": "accept", "revision_id": "15"}])
    assert statuses(out) == ["applied", "applied"]
    assert out.output is not None
    xml = body_xml(out.output)
    assert "five" not in xml and "Late fees" not in xml
    assert pandoc(out.output, "accept") == pandoc(RENT, "accept").replace("at five percent", "at percent")
    assert pandoc(out.output, "reject") == pandoc(RENT, "reject").replace(" Late fees apply.", "")


def test_a_deleted_field_instruction_is_restored_as_an_instruction() -> None:
    field = (
        '<w:del w:id="30" w:author="Opp" w:date="2020-01-01T00:00:00Z">'
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:delInstrText> PAGE </w:delInstrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:delText>3</w:delText></w:r>'
        '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:del>'
    )
    doc = docx(P("Page ", Raw(field), " of the lease."))
    out = run(doc, [{"action": "reject", "revision_id": "30"}])
    assert out.output is not None
    xml = body_xml(out.output)
    assert "<w:instrText> PAGE </w:instrText>" in xml and "delInstrText" not in xml and "<w:t>3</w:t>" in xml


def mark_doc(kind: str) -> bytes:
    mark = f'<w:{kind} w:id="40" w:author="Opp" w:date="{DATE}"/>'
    return docx(P("First part", mark=mark), P("second part."), P("Unrelated."))


@pytest.mark.parametrize(
    ("kind", "action", "joined"),
    [("del", "accept", True), ("del", "reject", False), ("ins", "reject", True), ("ins", "accept", False)],
)
def test_paragraph_mark_decisions_join_or_keep_the_paragraphs(kind: str, action: str, joined: bool) -> None:
    doc = mark_doc(kind)
    out = run(doc, [{"action": action, "revision_id": "40"}])
    assert statuses(out) == ["applied"]
    assert out.output is not None
    body = part(out.output, "word/document.xml").find("w:body", NS)
    assert body is not None
    texts = [text_of(p) for p in body.findall("w:p", NS)]
    assert texts == (
        ["First partsecond part.", "Unrelated."] if joined else ["First part", "second part.", "Unrelated."]
    )
    assert 'w:id="40"' not in body_xml(out.output)
    # pandoc's view with the change decided the same way
    mode = "accept" if action == "accept" else "reject"
    assert "".join(pandoc(out.output, "all").split()) == "".join(pandoc(doc, mode).split())


def test_formatting_changes_accepted_drop_the_record_and_rejected_restore_the_old_properties() -> None:
    fmt = (
        '<w:r><w:rPr><w:b/><w:rPrChange w:id="50" w:author="Opp" w:date="2020-01-01T00:00:00Z">'
        "<w:rPr><w:i/></w:rPr></w:rPrChange></w:rPr><w:t>bold now</w:t></w:r>"
    )
    ppr = (
        '<w:pStyle w:val="Heading1"/><w:pPrChange w:id="51" w:author="Opp" w:date="2020-01-01T00:00:00Z">'
        '<w:pPr><w:jc w:val="center"/></w:pPr></w:pPrChange>'
    )
    doc = docx(P("Text ", Raw(fmt), " here.", ppr=ppr))
    accepted = run(
        doc, [{"action": "accept", "revision_id": "50"}, {"action": "accept", "revision_id": "51"}]
    )
    rejected = run(
        doc, [{"action": "reject", "revision_id": "50"}, {"action": "reject", "revision_id": "51"}]
    )
    assert statuses(accepted) == statuses(rejected) == ["applied", "applied"]
    assert accepted.output is not None and rejected.output is not None
    a, r = body_xml(accepted.output), body_xml(rejected.output)
    assert "<w:rPr><w:b/></w:rPr>" in a and 'w:pStyle w:val="Heading1"/></w:pPr>' in a and "Change" not in a
    assert "<w:rPr><w:i/></w:rPr>" in r and '<w:pPr><w:jc w:val="center"/></w:pPr>' in r and "Change" not in r


def test_a_section_and_a_table_property_change_are_decided_by_id_too() -> None:
    sect = (
        '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:sectPrChange w:id="60" w:author="Opp" '
        'w:date="2020-01-01T00:00:00Z"><w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr>'
        "</w:sectPrChange></w:sectPr>"
    )
    table = Table([["a cell"]]).replace(
        '<w:tblW w:w="0" w:type="auto"/></w:tblPr>',
        '<w:tblW w:w="0" w:type="auto"/><w:tblPrChange w:id="61" w:author="Opp" '
        'w:date="2020-01-01T00:00:00Z">'
        '<w:tblPr><w:tblW w:w="5000" w:type="dxa"/></w:tblPr></w:tblPrChange></w:tblPr>',
    )
    doc = docx(P("Body."), Raw(table), Raw(sect), sect=False)
    out = run(doc, [{"action": "reject", "revision_id": "60"}, {"action": "accept", "revision_id": "61"}])
    assert statuses(out) == ["applied", "applied"]
    assert out.output is not None
    xml = members(out.output)["word/document.xml"].decode()
    assert '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr>' in xml
    assert '<w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr>' in xml and "Change" not in xml


def row_doc(kind: str) -> bytes:
    table = Table([["kept row"], ["changed row"]])
    marked = table.replace(
        '<w:tr><w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p><w:r>'
        '<w:t xml:space="preserve">changed',
        f'<w:tr><w:trPr><w:{kind} w:id="70" w:author="Opp" w:date="{DATE}"/></w:trPr><w:tc><w:tcPr>'
        '<w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p><w:r><w:t xml:space="preserve">changed',
    )
    assert marked != table
    return docx(P("Before."), Raw(marked), P("After."))


@pytest.mark.parametrize(
    ("kind", "action", "kept"),
    [("ins", "accept", True), ("ins", "reject", False), ("del", "accept", False), ("del", "reject", True)],
)
def test_a_table_row_inserted_or_deleted_keeps_or_loses_its_row(kind: str, action: str, kept: bool) -> None:
    out = run(row_doc(kind), [{"action": action, "revision_id": "70"}])
    assert statuses(out) == ["applied"]
    assert out.output is not None
    rows = part(out.output, "word/document.xml").findall(".//w:tr", NS)
    assert [text_of(r) for r in rows] == (["kept row", "changed row"] if kept else ["kept row"])
    assert 'w:id="70"' not in body_xml(out.output)


MOVE = (
    '<w:p><w:moveFromRangeStart w:id="80" w:author="Opp" w:date="2020-01-01T00:00:00Z" w:name="move1"/>'
    '<w:moveFrom w:id="81" w:author="Opp" w:date="2020-01-01T00:00:00Z"><w:r><w:t>Moved words.</w:t></w:r>'
    '</w:moveFrom><w:moveFromRangeEnd w:id="80"/><w:r><w:t> Stays.</w:t></w:r></w:p>'
    '<w:p><w:r><w:t>Middle. </w:t></w:r><w:moveToRangeStart w:id="82" w:author="Opp" '
    'w:date="2020-01-01T00:00:00Z" w:name="move1"/><w:moveTo w:id="83" w:author="Opp" '
    'w:date="2020-01-01T00:00:00Z"><w:r><w:t>Moved words.</w:t></w:r></w:moveTo>'
    '<w:moveToRangeEnd w:id="82"/></w:p>'
)


@pytest.mark.parametrize(
    ("rid", "action"), [("81", "accept"), ("83", "accept"), ("81", "reject"), ("83", "reject")]
)
def test_a_move_is_decided_whole_from_either_side(rid: str, action: str) -> None:
    doc = docx(Raw(MOVE))
    out = run(doc, [{"action": action, "revision_id": rid}])
    assert statuses(out) == ["applied"]
    assert out.output is not None
    xml = body_xml(out.output)
    assert "move" not in xml  # both sides and the four range markers
    paras = [text_of(p) for p in part(out.output, "word/document.xml").iterfind(".//w:p", NS)]
    assert paras == (
        [" Stays.", "Middle. Moved words."] if action == "accept" else ["Moved words. Stays.", "Middle. "]
    )
    assert len(out.report.edits[0].locations) == 2  # both sides


# -------------------------------------------------------------------------------------------
# accept / reject by author


def test_every_change_of_one_author_with_its_count() -> None:
    out = run(RENT, [{"action": "accept", "author": "Opp", "expected_matches": 4}])
    assert statuses(out) == ["applied"]
    result = out.report.edits[0]
    assert len(result.locations) == 4 and "4 tracked change(s) by Opp" in result.notes[0]
    assert out.output is not None
    left = read_back(out.output)
    assert [(r.id, r.author) for r in left.revisions] == [("16", "Other Firm")]
    assert pandoc(out.output, "accept") == pandoc(RENT, "accept")


def test_an_author_count_other_than_expected_is_refused_and_nothing_is_written() -> None:
    out = run(RENT, [{"action": "reject", "author": "Opp", "expected_matches": 3}])
    result = out.report.edits[0]
    assert result.status is EditStatus.COUNT_MISMATCH and result.error is not None
    assert result.error.actual_matches == 4 and "expected_matches to 4" in (result.error.hint or "")


def test_an_author_with_no_changes_is_not_found_with_the_authors_that_have_some() -> None:
    out = run(RENT, [{"action": "accept", "author": "Nobody"}, {"action": "reject", "author": "other firm"}])
    first, second = out.report.edits
    assert first.status is EditStatus.NOT_FOUND and first.error is not None
    assert "Opp (4)" in (first.error.hint or "") and "Other Firm (1)" in (first.error.hint or "")
    assert second.status is EditStatus.APPLIED  # the same name up to case and spacing, with a note
    assert any("Other Firm" in n for n in second.notes)


def test_your_own_changes_are_withdrawn_by_rejecting_never_accepted() -> None:
    doc = docx(P("Pay ", Ins("promptly ", author="Us", id=20), "rent."))
    out = run(doc, [{"action": "accept", "revision_id": "20"}])
    result = out.report.edits[0]
    assert result.status is EditStatus.UNSUPPORTED and result.error is not None
    assert '"reject"' in (result.error.hint or "")
    assert statuses(run(doc, [{"action": "accept", "author": "Us"}])) == ["unsupported"]
    assert statuses(run(doc, [{"action": "reject", "revision_id": "20"}])) == ["applied"]


# -------------------------------------------------------------------------------------------
# unknown ids, ambiguity, conflicts, staleness


def test_an_unknown_revision_id_lists_the_ids_that_exist_nearest_first() -> None:
    out = run(RENT, [{"action": "accept", "revision_id": "17"}])
    result = out.report.edits[0]
    assert result.status is EditStatus.NOT_FOUND and result.error is not None
    hint = (result.error.hint or "").split("nearest:")[1]
    assert hint.index("r16") < hint.index("r15") < hint.index("r14") < hint.index("r12")
    assert "Notices" not in hint and "the Landlord" in hint  # each with what it says
    assert out.output is None or out.report.totals.applied == 0


def test_ids_as_the_markup_shows_them_and_as_numbers_are_read() -> None:
    out = run(RENT, [{"action": "accept", "revision_id": "r12"}, {"action": "reject", "revision_id": 13}])
    assert statuses(out) == ["applied", "applied"]


def test_an_edit_inside_text_a_later_decision_rejects_wins_and_the_decision_is_refused() -> None:
    out = run(
        RENT,
        [
            {"anchor": "Interest accrues at five", "replacement": "Interest accrues at six"},
            {"action": "reject", "revision_id": "14"},
        ],
    )
    assert statuses(out) == ["applied", "overlap"]
    assert out.report.edits[1].error is not None and out.report.edits[1].error.related == [0]


def test_a_decision_before_an_edit_on_its_text_wins_and_the_edit_is_refused() -> None:
    out = run(
        RENT,
        [
            {"action": "reject", "revision_id": "14"},
            {"anchor": "Interest accrues at five", "replacement": "Interest accrues at six"},
            {"anchor": "Notices go to", "replacement": "Notices are sent to"},
        ],
    )
    assert statuses(out) == ["applied", "overlap", "applied"]
    assert out.output is not None
    assert "five" not in body_xml(out.output) and "Notices are sent to" in pandoc(out.output, "accept")


def test_a_change_decided_twice_in_one_reply_refuses_the_later_entry() -> None:
    out = run(RENT, [{"action": "accept", "revision_id": "12"}, {"action": "reject", "author": "Opp"}])
    assert statuses(out) == ["applied", "overlap"]


def test_a_reply_for_another_revision_of_the_document_is_stale() -> None:
    reply = json.dumps({"revision": "not-this-one", "edits": [{"action": "accept", "revision_id": "12"}]})
    out = apply_reply(RENT, reply, OPTIONS)
    assert statuses(out) == ["stale"]


def test_a_dry_run_verifies_decisions_and_writes_nothing() -> None:
    entries = [
        {"action": "accept", "revision_id": "12"},
        {"action": "reply", "comment_id": "4", "text": "ok"},
    ]
    out = run(RENT, entries, dry_run=True)
    assert statuses(out) == ["verified", "verified"] and out.output is None


def test_a_revision_in_a_header_is_decided_too() -> None:
    doc = in_header(
        '<w:p><w:r><w:t xml:space="preserve">Lease </w:t></w:r><w:ins w:id="5" w:author="Opp" '
        'w:date="2020-01-01T00:00:00Z"><w:r><w:t>DRAFT</w:t></w:r></w:ins></w:p>'
    )
    out = run(doc, [{"action": "reject", "revision_id": "5"}])
    assert statuses(out) == ["applied"]
    assert out.report.edits[0].locations[0].part == "word/header1.xml"
    assert out.output is not None
    header = members(out.output)["word/header1.xml"].decode()
    assert "DRAFT" not in header and "Lease " in header


# -------------------------------------------------------------------------------------------
# comment, reply, resolve


def test_a_comment_on_a_quoted_passage_leaves_the_text_alone() -> None:
    out = run(RENT, [{"action": "comment", "anchor": "Notices go to", "text": "Which address?"}])
    assert statuses(out) == ["applied"]
    assert out.output is not None
    assert pandoc(out.output, "accept") == pandoc(RENT, "accept")
    assert pandoc(out.output, "reject") == pandoc(RENT, "reject")
    new = [c for c in read_back(out.output).comments if c.text == "Which address?"]
    assert len(new) == 1 and new[0].quote == "Notices go to" and new[0].author == "Us"


@pytest.mark.parametrize(
    ("entry", "status"),
    [
        ({"anchor": "shall", "section": None}, "applied"),
        ({"anchor": "No such words"}, "not_found"),
        ({"anchor": "e"}, "ambiguous"),
        ({"anchor": "Notices go to", "section": "9.9"}, "out_of_scope"),
    ],
)
def test_a_comment_anchor_is_located_like_any_anchor(entry: dict[str, Any], status: str) -> None:
    out = run(RENT, [{"action": "comment", "text": "A note.", **entry}])
    assert statuses(out) == [status]


def test_a_reply_is_threaded_under_its_parent_and_the_parts_word_expects_are_created() -> None:
    out = run(RENT, [{"action": "reply", "comment_id": "4", "text": "Fifteen, then."}])
    assert statuses(out) == ["applied"]
    assert out.output is not None
    files = members(out.output)
    for name in ("word/commentsExtended.xml", "word/commentsIds.xml", "word/people.xml"):
        assert name in files
        assert f'PartName="/{name}"' in files["[Content_Types].xml"].decode()
        assert f'Target="{name[5:]}"' in files["word/_rels/document.xml.rels"].decode()
    comments = part(out.output, "word/comments.xml")
    parent = comments.find("w:comment[@w:id='4']", NS)
    reply = next(c for c in comments.findall("w:comment", NS) if "Fifteen" in text_of(c))
    assert parent is not None and reply.get(f"{{{W}}}author") == "Us"
    parent_pid = parent.findall(".//w:p", NS)[-1].get(f"{{{W14}}}paraId")
    reply_pid = reply.findall(".//w:p", NS)[-1].get(f"{{{W14}}}paraId")
    assert parent_pid and reply_pid and parent_pid != reply_pid
    ex = {e.get(f"{{{W15}}}paraId"): e for e in part(out.output, "word/commentsExtended.xml")}
    assert ex[reply_pid].get(f"{{{W15}}}paraIdParent") == parent_pid
    ids = part(out.output, "word/commentsIds.xml")
    assert [e.get("{http://schemas.microsoft.com/office/word/2016/wordml/cid}paraId") for e in ids] == [
        reply_pid
    ]
    people = part(out.output, "word/people.xml")
    assert [p.get(f"{{{W15}}}author") for p in people] == ["Us"]
    # anchored on the parent's range, its marks beside the parent's
    rid = reply.get(f"{{{W}}}id")
    body = body_xml(out.output)
    assert f'<w:commentRangeStart w:id="4"/><w:commentRangeStart w:id="{rid}"/>' in body
    assert body.index('<w:commentRangeEnd w:id="4"/>') < body.index(f'<w:commentRangeEnd w:id="{rid}"/>')
    # and read back: the reply's parent is comment 4, on the same passage
    read = {c.id: c for c in read_back(out.output).comments}
    assert read[str(rid)].parent == "4" and read[str(rid)].quote == read["4"].quote == "ten days"
    assert pandoc(out.output, "accept") == pandoc(RENT, "accept")


def test_resolving_a_thread_sets_done_on_its_comments() -> None:
    out = run(RENT, [{"action": "resolve", "comment_id": "c4"}])
    assert statuses(out) == ["applied"]
    assert out.output is not None
    (ex,) = part(out.output, "word/commentsExtended.xml")
    assert ex.get(f"{{{W15}}}done") == "1"
    assert read_back(out.output).comments[0].resolved
    again = run(out.output, [{"action": "resolve", "comment_id": "4"}])
    assert statuses(again) == ["no_change"]


def test_a_reply_to_a_comment_whose_range_only_starts_is_refused_not_a_bug() -> None:
    # no commentRangeEnd, no commentReference: nothing for the reply's marks to stand beside.
    # The writer used to meet it and refuse the whole document [internal_error].
    doc = docx(P("The tenant pays ", CommentStart(4), "ten days."), comments=comment(4, "Too short."))
    out = run(doc, [{"action": "reply", "comment_id": "4", "text": "Fifteen."}])
    assert out.report.error is None
    (result,) = out.report.edits
    assert result.status is EditStatus.UNSUPPORTED and result.error is not None
    assert "anchored nowhere" in result.error.message


def test_a_reply_to_a_reply_is_refused_naming_the_parent() -> None:
    threaded = docx(
        P(CommentStart(4), "ten days", CommentEnd(4), CommentStart(5), CommentEnd(5)),
        comments=comment(4, "Too short.", para_id="00000A01") + comment(5, "Agreed.", "Us", "00000A02"),
        extra={},
    )
    ex = (
        f'<?xml version="1.0" encoding="UTF-8"?><w15:commentsEx xmlns:w15="{W15}">'
        '<w15:commentEx w15:paraId="00000A01" w15:done="0"/>'
        '<w15:commentEx w15:paraId="00000A02" w15:paraIdParent="00000A01" w15:done="0"/></w15:commentsEx>'
    ).encode()
    rel = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"
    ct = "application/vnd.openxmlformats-officedocument.wordprocessingml.commentsExtended+xml"
    doc = with_part(threaded, "word/commentsExtended.xml", ex, rel, ct)
    assert [c.parent for c in read_back(doc).comments] == [None, "4"]
    out = run(
        doc,
        [{"action": "reply", "comment_id": "5", "text": "And?"}, {"action": "resolve", "comment_id": "5"}],
    )
    first, second = out.report.edits
    assert first.status is EditStatus.UNSUPPORTED and first.error is not None
    assert '"comment_id": "4"' in (first.error.hint or "")
    assert second.status is EditStatus.APPLIED  # the whole thread, with a note
    assert out.output is not None
    done = {
        e.get(f"{{{W15}}}paraId"): e.get(f"{{{W15}}}done")
        for e in part(out.output, "word/commentsExtended.xml")
    }
    assert done == {"00000A01": "1", "00000A02": "1"}


def test_an_unknown_comment_id_lists_the_comments_near_it() -> None:
    out = run(RENT, [{"action": "reply", "comment_id": "7", "text": "x"}])
    result = out.report.edits[0]
    assert result.status is EditStatus.NOT_FOUND and result.error is not None
    assert "c4" in (result.error.hint or "") and "ten days" in (result.error.hint or "")


# -------------------------------------------------------------------------------------------
# the request shapes


@pytest.mark.parametrize("dialect", ["json-schema", "openai", "anthropic"])
def test_every_dialect_allows_the_decision_entries_and_the_parser_reads_them_back(dialect: str) -> None:
    import jsonschema

    nulls: dict[str, Any] = dict.fromkeys(
        [
            "anchor",
            "replacement",
            "rationale",
            "expected_matches",
            "section",
            "id",
            "action",
            "text",
            "level",
            "revision_id",
            "author",
            "comment_id",
            "cells",
        ]
    )
    entries: list[dict[str, Any]] = [
        {"action": "accept", "revision_id": "12"},
        {"action": "reject", "author": "Opposing Counsel", "expected_matches": 3},
        {"action": "comment", "anchor": "ten days", "text": "Too short."},
        {"action": "reply", "comment_id": "4", "text": "Agreed."},
        {"action": "resolve", "comment_id": "4"},
    ]
    instance = {"edits": [{**(nulls if dialect == "openai" else {}), **e} for e in entries]}
    jsonschema.validate(instance, json_schema("edits", dialect))  # type: ignore[arg-type]
    batch = parse_edit_reply(json.dumps(instance))
    assert batch is not None and not batch.invalid
    got = [e.model_dump(exclude_none=True, exclude_defaults=True) for e in batch.edits]
    assert got == entries


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"action": "accept"}, "exactly one of"),
        ({"action": "accept", "revision_id": "1", "author": "x"}, "exactly one of"),
        ({"action": "reject", "revision_id": 1.5}, "revision_id"),
        ({"action": "reject", "revision_id": True}, "revision_id"),
        ({"action": "reply", "comment_id": "4"}, "text"),
        ({"action": "resolve"}, "comment_id"),
        ({"action": "comment", "text": "x"}, "anchor"),
        ({"action": "accept", "revision_id": "1", "replacement": "new text"}, "replacement"),
    ],
)
def test_unusable_decision_entries_are_refused_with_a_reason(entry: dict[str, Any], reason: str) -> None:
    batch = parse_edit_reply(json.dumps([entry, {"anchor": "a", "replacement": "b"}]))
    assert batch is not None and len(batch.edits) == 1 and reason in batch.invalid[0].reason


def test_aliases_of_the_new_fields_are_read() -> None:
    batch = parse_edit_reply(
        json.dumps(
            [
                {"action": "approve", "changeId": "12"},
                {"op": "decline", "revisionId": "13"},
                {"action": "respond", "parent_id": "4", "text": "ok"},
                {"action": "mark_resolved", "commentId": 4},
            ]
        )
    )
    assert batch is not None and not batch.invalid
    assert [(e.action, e.revision_id, e.comment_id) for e in batch.edits] == [
        ("accept", "12", None), ("reject", "13", None), ("reply", None, "4"), ("resolve", None, "4"),
    ]  # fmt: skip


# -------------------------------------------------------------------------------------------
# property: random decisions against an lxml oracle that makes them by hand

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def random_doc(kinds: list[str]) -> bytes:
    paras = []
    for i, kind in enumerate(kinds):
        word = WORDS[i % len(WORDS)]
        change = (
            Ins(f"{word} ", author="Opp", id=100 + i)
            if kind == "ins"
            else Del(f"{word} ", author="Opp", id=100 + i)
        )
        paras.append(P(f"Clause {i} says ", change, "and ends."))
    return docx(*paras)


def oracle(doc: bytes, decisions: dict[int, bool]) -> bytes:
    """The same decisions made by hand on the document's XML with lxml."""
    files = members(doc)
    root = etree.fromstring(files["word/document.xml"])
    for rid, accept in decisions.items():
        (el,) = [e for e in root.iter(f"{{{W}}}ins", f"{{{W}}}del") if e.get(f"{{{W}}}id") == str(rid)]
        parent = el.getparent()
        assert parent is not None
        inserted = el.tag == f"{{{W}}}ins"
        if inserted == accept:
            for t in el.iter(f"{{{W}}}delText"):
                t.tag = f"{{{W}}}t"
            for child in list(el):
                el.addprevious(child)
        parent.remove(el)
    files["word/document.xml"] = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, d in files.items():
            z.writestr(n, d)
    return buf.getvalue()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kinds=st.lists(st.sampled_from(["ins", "del"]), min_size=1, max_size=6),
    picks=st.lists(st.sampled_from([None, True, False]), min_size=6, max_size=6),
)
def test_random_decisions_read_as_the_oracle_reads(kinds: list[str], picks: list[bool | None]) -> None:
    doc = random_doc(kinds)
    decisions = {100 + i: pick for i, pick in enumerate(picks[: len(kinds)]) if pick is not None}
    entries = [
        {"action": "accept" if a else "reject", "revision_id": str(rid)} for rid, a in decisions.items()
    ]
    if not entries:
        return
    out = run(doc, entries)
    assert statuses(out) == ["applied"] * len(entries)
    assert out.output is not None
    expected = oracle(doc, decisions)
    for mode in ("accept", "reject"):
        assert pandoc(out.output, mode) == pandoc(expected, mode)
    left = {r.id for r in read_back(out.output).revisions}
    assert left == {str(100 + i) for i in range(len(kinds))} - {str(r) for r in decisions}


def test_accepting_only_keeps_the_accept_view_and_rejecting_one_author_gives_the_reject_view() -> None:
    doc = random_doc(["ins", "del", "ins", "del", "del"])
    accepted = run(doc, [{"action": "accept", "author": "Opp"}])
    rejected = run(doc, [{"action": "reject", "author": "Opp"}])
    assert accepted.output is not None and rejected.output is not None
    assert pandoc(accepted.output, "all") == pandoc(doc, "accept")
    assert pandoc(rejected.output, "all") == pandoc(doc, "reject")
    assert not read_back(accepted.output).revisions and not read_back(rejected.output).revisions


def test_r_prefixed_text_is_tried_as_written_first() -> None:
    # a document whose own ids are not numbers: looked up as written
    odd = '<w:ins w:id="r7" w:author="Opp" w:date="2020-01-01T00:00:00Z"><w:r><w:t>now</w:t></w:r></w:ins>'
    doc = docx(P("Pay ", Raw(odd), Ins(" later", author="Opp", id=7)))
    out = run(doc, [{"action": "reject", "revision_id": "r7"}])
    assert statuses(out) == ["applied"]
    assert out.output is not None
    assert "now" not in body_xml(out.output) and " later" in body_xml(out.output)


def test_the_mcp_apply_edits_tool_takes_decisions_beside_edits(tmp_path: Path) -> None:
    from redline.tools.session import DocumentTools

    (tmp_path / "lease.docx").write_bytes(RENT)
    tools = DocumentTools(tmp_path, lock_dir=tmp_path / "locks", author="Us")
    region = tools.handle("read_region", {"path": "lease.docx", "paragraphs": "0-2", "markup": True})
    assert "[r12 Opp]" in region["text"] and "[c4 Opp]" in region["text"]
    result = tools.handle(
        "apply_edits",
        {
            "path": "lease.docx",
            "revision": region["revision"],
            "edits": [
                {"action": "accept", "revision_id": "12"},
                {"action": "reply", "comment_id": "4", "text": "Fifteen."},
                {"anchor": "Notices go to", "replacement": "Notices are sent to"},
                {"action": "reject", "revision_id": "99"},
            ],
        },
    )
    assert result["status"] == "partial" and result["written"]
    assert [e["status"] for e in result["edits"]] == ["applied", "applied", "applied", "not_found"]
    assert "nearest" in result["edits"][3]["error"]["hint"]
    after = read_back((tmp_path / "lease.docx").read_bytes())
    assert "12" not in {r.id for r in after.revisions}
    assert any(c.parent == "4" and c.text == "Fifteen." for c in after.comments)


def test_a_join_beside_an_edit_through_the_tool_reports_no_stale_paragraph_numbers(tmp_path: Path) -> None:
    from redline.tools.session import DocumentTools

    mark = f'<w:del w:id="40" w:author="Opp" w:date="{DATE}"/>'
    doc = docx(P("First part", mark=mark), P("second part."), P("Unrelated."), P("Last one."))
    (tmp_path / "lease.docx").write_bytes(doc)
    tools = DocumentTools(tmp_path, lock_dir=tmp_path / "locks", author="Us")
    region = tools.handle("read_region", {"path": "lease.docx"})
    result = tools.handle(
        "apply_edits",
        {
            "path": "lease.docx",
            "revision": region["revision"],
            "edits": [
                {"action": "accept", "revision_id": "40"},
                {"anchor": "Last one.", "replacement": "Final."},
            ],
        },
    )
    assert [e["status"] for e in result["edits"]] == ["applied", "applied"]
    for entry in result["edits"]:  # the paragraphs it lists, if any, are the written document's
        for p in entry.get("paragraphs", []):
            assert p["text"] in ("Final.",)


_ENTRY_OF = {
    "comment": {"text": "Why?"},
    "replace": {"replacement": "Tenant pays"},
    "insert_after": {"text": "A new clause."},
    "insert_before": {"text": "A new clause."},
}


@pytest.mark.parametrize("section", ["", " ", "x" * 201, 4.1])
@pytest.mark.parametrize("action", list(_ENTRY_OF))
def test_every_entry_reads_its_section_by_the_plain_edits_rules(section: object, action: str) -> None:
    """An empty, over-long or non-text `section` makes a comment or insert entry invalid, as it
    makes a plain edit (one reader of `section` for every action)."""
    entry: dict[str, object] = {"action": action, "anchor": "Tenant shall pay", **_ENTRY_OF[action]}
    batch = parse_edit_reply(json.dumps([{**entry, "section": section}]))
    assert batch is not None and batch.edits == [] and len(batch.invalid) == 1
    assert "the section is" in batch.invalid[0].reason


@pytest.mark.parametrize("action", list(_ENTRY_OF))
def test_every_entry_converts_a_whole_number_section_and_id_with_a_note(action: str) -> None:
    entry: dict[str, object] = {"action": action, "anchor": "Tenant shall pay", **_ENTRY_OF[action]}
    batch = parse_edit_reply(json.dumps([{**entry, "section": 4, "id": 7}]))
    assert batch is not None and batch.invalid == [] and len(batch.edits) == 1
    assert (batch.edits[0].section, batch.edits[0].id) == ("4", "7")
    assert any("numeric section" in n for n in batch.notes) and any("numeric 'id'" in n for n in batch.notes)
