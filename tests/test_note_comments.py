"""A comment about a footnote or endnote stands on the note's reference mark in the body
(issue 30): LibreOffice cannot load a document with a comment inside the notes part (every
such output tried), and Word shows a comment on the reference mark beside the text citing the
note.  A rationale for an edit in a note, and a ``comment`` entry quoting note text, go there;
a note no body paragraph refers to keeps its edit, and its rationale is said in the report
(a ``comment`` entry there is refused ``unsupported``).

Judged by an lxml reading of the parts (the marks around the reference run, none in the notes
part), by our own reading of the comments, and by LibreOffice over UNO: every output loads,
the comment is in the body with the note's reference inside its range, and the notes read
accepted and rejected as they should.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from lxml import etree

from redline.apply import ApplyOptions, Outcome, apply_reply
from testing.docbuild import NoteRef, P, docx
from tests.oracles import probe
from tests.support import members, read_back

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MARKS = ("commentRangeStart", "commentRangeEnd", "commentReference")
KINDS = pytest.mark.parametrize("kind", ["footnote", "endnote"])


def noted(kind: str = "footnote", referenced: bool = True) -> bytes:
    """A body citing note 1 (when ``referenced``) and note 2, each of the given kind."""
    notes = {
        1: ["Rent is due on the first business day of the month."],
        2: ["Interest accrues at the statutory rate."],
    }
    first = NoteRef(1, kind) if referenced else ""
    blocks = [
        P("The Tenant pays rent", first, " monthly."),
        P("Late payments bear interest", NoteRef(2, kind), "."),
    ]
    return docx(*blocks, **{f"{kind}s": notes})  # type: ignore[arg-type]


def run(doc: bytes, entries: list[dict[str, Any]], **options: Any) -> Outcome:
    opts = ApplyOptions(author="Us", date="2024-05-01T00:00:00Z", **options)
    return apply_reply(doc, json.dumps({"edits": entries}), opts)


def codes(out: Outcome) -> list[str]:
    return [e.error.code.value if e.error else e.status.value for e in out.report.edits]


def tree(data: bytes, name: str) -> etree._Element:
    return etree.fromstring(members(data)[name])


def marks_in(el: etree._Element) -> list[str]:
    return [etree.QName(m).localname for m in el.iter(*(f"{{{W}}}{t}" for t in MARKS))]


def reference_wrapped(data: bytes, kind: str, nid: str) -> list[str]:
    """The ids of the comments whose range holds exactly the reference run of note ``nid``
    (start just before the run, end just after), each with its reference in the body."""
    body = tree(data, "word/document.xml")
    (ref,) = [r for r in body.iter(f"{{{W}}}{kind}Reference") if r.get(f"{{{W}}}id") == nid]
    run_el = ref.getparent()
    assert run_el is not None
    ids, ends = [], []
    start_tag, end_tag = f"{{{W}}}commentRangeStart", f"{{{W}}}commentRangeEnd"

    def only_marks(el: etree._Element | None) -> bool:  # a comment mark, or a reference's run
        if el is None:
            return False
        if el.tag in (start_tag, end_tag):
            return True
        return el.tag == f"{{{W}}}r" and el.find(f"{{{W}}}commentReference") is not None

    before, after = run_el.getprevious(), run_el.getnext()
    while only_marks(before):
        assert before is not None
        if before.tag == start_tag:
            ids.append(before.get(f"{{{W}}}id"))
        before = before.getprevious()
    while only_marks(after):
        assert after is not None
        if after.tag == end_tag:
            ends.append(after.get(f"{{{W}}}id"))
        after = after.getnext()
    refs = {r.get(f"{{{W}}}id") for r in body.iter(f"{{{W}}}commentReference")}
    return sorted(i for i in ids if i in ends and i in refs and i is not None)


@KINDS
def test_a_rationale_for_an_edit_in_a_note_stands_on_its_reference_mark(kind: str) -> None:
    edit = {"anchor": "first business day", "replacement": "fifth business day", "rationale": "More time."}
    out = run(noted(kind), [edit])
    assert codes(out) == ["applied"]
    assert out.output is not None
    assert marks_in(tree(out.output, f"word/{kind}s.xml")) == []  # nothing in the notes part
    (cid,) = reference_wrapped(out.output, kind, "1")
    (found,) = read_back(out.output).comments
    assert found.id == cid and found.text == "More time." and found.part == "word/document.xml"
    notes_xml = members(out.output)[f"word/{kind}s.xml"].decode()
    assert "fifth" in notes_xml and "<w:delText>first</w:delText>" in notes_xml  # the edit itself
    assert not out.report.edits[0].notes


@KINDS
def test_a_comment_entry_on_note_text_stands_on_its_reference_mark(kind: str) -> None:
    out = run(noted(kind), [{"action": "comment", "anchor": "statutory rate", "text": "Which statute?"}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    assert marks_in(tree(out.output, f"word/{kind}s.xml")) == []
    (cid,) = reference_wrapped(out.output, kind, "2")
    assert [(c.id, c.text) for c in read_back(out.output).comments] == [(cid, "Which statute?")]


def test_two_comments_on_one_note_both_stand_on_its_mark() -> None:
    out = run(
        noted(),
        [
            {"anchor": "first business day", "replacement": "fifth business day", "rationale": "More time."},
            {"action": "comment", "anchor": "of the month", "text": "Calendar month?"},
        ],
    )
    assert codes(out) == ["applied", "applied"]
    assert out.output is not None
    assert len(reference_wrapped(out.output, "footnote", "1")) == 2


def test_a_note_no_body_paragraph_cites_keeps_its_edit_and_says_the_rationale() -> None:
    edit = {"anchor": "first business day", "replacement": "fifth business day", "rationale": "More time."}
    out = run(noted(referenced=False), [edit])
    assert codes(out) == ["applied"]
    assert out.output is not None
    assert marks_in(tree(out.output, "word/document.xml")) == []
    assert marks_in(tree(out.output, "word/footnotes.xml")) == []
    (note,) = out.report.edits[0].notes
    assert "More time." in note and "reference mark" in note


def test_a_comment_entry_on_a_note_no_body_paragraph_cites_is_refused() -> None:
    out = run(
        noted(referenced=False), [{"action": "comment", "anchor": "first business day", "text": "Why?"}]
    )
    assert codes(out) == ["unsupported"]
    assert "refers to" in (out.report.edits[0].error.message if out.report.edits[0].error else "")


def test_without_comments_an_edit_in_a_note_has_none() -> None:
    edit = {"anchor": "first business day", "replacement": "fifth business day", "rationale": "More time."}
    out = run(noted(), [edit], comments=False)
    assert codes(out) == ["applied"]
    assert out.output is not None
    assert "word/comments.xml" not in members(out.output)


def note_outputs() -> dict[str, bytes]:
    """Every output shape with a comment about a note: tracked and untracked edits with a
    rationale (footnote, endnote), a comment entry, new paragraphs in a note."""
    change = {"anchor": "first business day", "replacement": "fifth business day", "rationale": "More time."}
    shapes: dict[str, tuple[bytes, list[dict[str, Any]], dict[str, Any]]] = {
        "footnote-tracked": (noted(), [change], {}),
        "footnote-untracked": (noted(), [change], {"track": False}),
        "endnote-tracked": (noted("endnote"), [change], {}),
        "comment-entry": (noted(), [{"action": "comment", "anchor": "statutory rate", "text": "Which?"}], {}),
        "insert-after": (
            noted(),
            [
                {
                    "action": "insert_after",
                    "anchor": "first business day",
                    "text": "Or the next one.",
                    "rationale": "Holidays.",
                }
            ],
            {},
        ),
    }
    outputs = {}
    for name, (doc, entries, options) in shapes.items():
        out = run(doc, entries, **options)
        assert codes(out) == ["applied"], name
        assert out.output is not None
        outputs[f"{name}.docx"] = out.output
    return outputs


@pytest.mark.slow
def test_libreoffice_loads_every_output_and_shows_the_comment_on_the_reference(soffice: str) -> None:
    outputs = note_outputs()
    try:
        found = probe(outputs, soffice)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    for name, got in found.items():
        assert got["loaded"], (name, got.get("error"))
        (shown,) = got["comments"]
        assert shown["story"] == "body" and shown["holds"] == ["Footnote"], (name, shown)
        notes = got["accepted_notes"]
        if name.startswith(("footnote", "endnote")):
            assert "fifth business day" in notes[0] and "first" not in notes[0], (name, notes)
            if "untracked" not in name:
                assert "first business day" in got["rejected_notes"][0], name
        assert got["left_after_accept"] == 0 and got["left_after_reject"] == 0, name
