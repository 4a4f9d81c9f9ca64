"""Hostile inputs for decisions, replies and resolved threads (the hostile suite's style: each
case is refused with a code, or done right, never written half or wrong)."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from redline.apply import ApplyOptions, Outcome, apply_reply
from shared_schema import Code, parse_edit_reply
from testing.docbuild import CommentEnd, CommentStart, Del, Ins, P, Raw, docx
from tests.support import body_xml, comment, members, part, read_back, text_of, with_part

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"
NS = {"w": W, "w15": W15}
DATE = "2020-01-01T00:00:00Z"
REL_EXTENDED = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"
CT_EXTENDED = "application/vnd.openxmlformats-officedocument.wordprocessingml.commentsExtended+xml"


def run(doc: bytes, entries: list[dict[str, Any]]) -> Outcome:
    return apply_reply(
        doc, json.dumps({"edits": entries}), ApplyOptions(author="Us", date="2024-05-01T00:00:00Z")
    )


def codes(out: Outcome) -> list[str]:
    return [e.error.code.value if e.error else e.status.value for e in out.report.edits]


def test_ids_that_are_not_numbers_are_looked_up_as_written() -> None:
    ins = f'<w:ins w:id="abc" w:author="Opp" w:date="{DATE}"><w:r><w:t>added</w:t></w:r></w:ins>'
    doc = docx(
        P(
            "Text ",
            Raw(ins),
            " ",
            Raw('<w:commentRangeStart w:id="note-1"/>'),
            "here",
            Raw('<w:commentRangeEnd w:id="note-1"/><w:r><w:commentReference w:id="note-1"/></w:r>'),
        ),
        comments=comment(0, "x").replace('w:id="0"', 'w:id="note-1"'),
    )
    out = run(
        doc,
        [
            {"action": "reject", "revision_id": "abc"},
            {"action": "reply", "comment_id": "note-1", "text": "ok"},
        ],
    )
    assert codes(out) == ["applied", "applied"]
    assert out.output is not None
    assert "added" not in body_xml(out.output)
    (reply,) = [c for c in read_back(out.output).comments if c.text == "ok"]
    assert reply.parent == "note-1" and reply.id.isdigit()


def test_a_comments_part_without_comments_extended_gets_one() -> None:
    doc = docx(P(CommentStart(3), "ten days", CommentEnd(3)), comments=comment(3, "Short."))
    assert "word/commentsExtended.xml" not in members(doc)
    out = run(doc, [{"action": "resolve", "comment_id": "3"}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    (ex,) = part(out.output, "word/commentsExtended.xml")
    assert ex.get(f"{{{W15}}}done") == "1"
    # the comment's last paragraph got the w14:paraId the entry names
    assert str(ex.get(f"{{{W15}}}paraId")) in members(out.output)["word/comments.xml"].decode()


def test_a_comments_extended_relationship_to_another_kind_of_part_refuses_the_document() -> None:
    doc = docx(P(CommentStart(3), "ten days", CommentEnd(3)), comments=comment(3, "Short."))
    wrong = b'<?xml version="1.0"?><w:comments xmlns:w="' + W.encode() + b'"/>'
    doc = with_part(doc, "word/commentsExtended.xml", wrong, REL_EXTENDED, CT_EXTENDED)
    out = run(doc, [{"action": "resolve", "comment_id": "3"}])
    assert out.report.error is not None and out.report.error.code is Code.WRONG_PART_KIND
    assert out.output is None


def test_two_comments_with_one_id_are_refused_as_ambiguous() -> None:
    doc = docx(
        P(CommentStart(3), "ten days", CommentEnd(3)),
        comments=comment(3, "First.") + comment(3, "Second."),
    )
    out = run(
        doc,
        [{"action": "reply", "comment_id": "3", "text": "Which?"}, {"action": "resolve", "comment_id": "3"}],
    )
    assert codes(out) == ["ambiguous", "ambiguous"]
    assert "First." in out.report.edits[0].error.message  # type: ignore[union-attr]


def test_two_revisions_with_one_id_are_refused_as_ambiguous() -> None:
    doc = docx(P("a ", Ins("one", id=9, author="Opp"), " b ", Del("two", id=9, author="Opp")))
    out = run(doc, [{"action": "accept", "revision_id": "9"}])
    assert codes(out) == ["ambiguous"]
    assert "author" in (out.report.edits[0].error.hint or "")  # type: ignore[union-attr]


@pytest.mark.parametrize(("action", "kept"), [("accept", "<w:b/>"), ("reject", "<w:i/>")])
def test_a_revision_id_naming_a_run_formatting_change(action: str, kept: str) -> None:
    run_xml = (
        f'<w:r><w:rPr><w:b/><w:rPrChange w:id="55" w:author="Opp" w:date="{DATE}"><w:rPr><w:i/></w:rPr>'
        "</w:rPrChange></w:rPr><w:t>styled</w:t></w:r>"
    )
    doc = docx(P("Plain ", Raw(run_xml)))
    out = run(doc, [{"action": action, "revision_id": "55"}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    xml = body_xml(out.output)
    assert f"<w:rPr>{kept}</w:rPr><w:t>styled</w:t>" in xml and "rPrChange" not in xml


def test_a_deleted_paragraph_the_view_drops_is_restored_whole() -> None:
    mark = f'<w:del w:id="91" w:author="Opp" w:date="{DATE}"/>'
    doc = docx(P("Kept."), P(Del("A whole deleted paragraph.", id=90, author="Opp"), mark=mark), P("Next."))
    out = run(doc, [{"action": "reject", "author": "Opp"}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    paras = [text_of(p) for p in part(out.output, "word/document.xml").iterfind(".//w:p", NS)]
    assert paras == ["Kept.", "A whole deleted paragraph.", "Next."]


def test_a_decision_inside_a_change_another_entry_removes_is_decided_with_it() -> None:
    """Issue 30: as Word decides them -- the inner change went with the outer one removed."""
    nested = (
        f'<w:ins w:id="60" w:author="Opp" w:date="{DATE}"><w:r><w:t>new </w:t></w:r>'
        f'<w:del w:id="61" w:author="Other" w:date="{DATE}"><w:r><w:delText>gone</w:delText></w:r></w:del>'
        "</w:ins>"
    )
    doc = docx(P("Start ", Raw(nested), " end."))
    out = run(doc, [{"action": "reject", "revision_id": "60"}, {"action": "accept", "revision_id": "61"}])
    assert codes(out) == ["applied", "applied"]
    assert any("r61" in n and "Removed with it" in n for n in out.report.edits[0].notes)
    assert any("r61" in n and "edit 0" in n for n in out.report.edits[1].notes)
    assert out.output is not None
    assert "new" not in body_xml(out.output) and "gone" not in body_xml(out.output)


def test_a_comment_anchored_nowhere_cannot_be_replied_to() -> None:
    doc = docx(P("No marks here."), comments=comment(8, "Floating."))
    out = run(doc, [{"action": "reply", "comment_id": "8", "text": "?"}])
    assert codes(out) == ["unsupported"]


def test_a_comments_part_of_the_wrong_kind_has_no_comments_to_reply_to() -> None:
    doc = docx(P(CommentStart(3), "ten days", CommentEnd(3)), comments=comment(3, "Short."))
    files = members(doc)
    files["word/comments.xml"] = (
        files["word/comments.xml"].replace(b"w:comments ", b"w:ftr ").replace(b"</w:comments>", b"</w:ftr>")
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    out = run(buf.getvalue(), [{"action": "reply", "comment_id": "3", "text": "?"}])
    assert codes(out) in (["not_found"], ["wrong_part_kind"]) or out.report.error is not None


@pytest.mark.parametrize(
    "entry",
    [
        {"action": "accept", "revision_id": "1" * 200},
        {"action": "accept", "revision_id": "a\u0001b"},
        {"action": "reject", "revision_id": ["12"]},
        {"action": "reply", "comment_id": {"id": 4}, "text": "x"},
        {"action": "resolve", "comment_id": None},
        {"action": "accept", "author": "\u202eevil"},
    ],
)
def test_hostile_id_and_author_values_are_refused_entries(entry: dict[str, Any]) -> None:
    batch = parse_edit_reply(json.dumps([entry]))
    assert batch is not None and not batch.edits and len(batch.invalid) == 1


def test_many_decisions_on_a_document_without_revisions_each_get_a_refusal() -> None:
    doc = docx(P("Nothing tracked."))
    out = run(doc, [{"action": "accept", "revision_id": str(i)} for i in range(50)])
    assert set(codes(out)) == {"not_found"}
    assert "no tracked changes" in (out.report.edits[0].error.hint or "")  # type: ignore[union-attr]
