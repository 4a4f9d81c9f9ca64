"""Comment threads in every namespace Word has written for them (issue 30): the 2012 ``w15``
namespace, and the 2010/11 one of Word 2013's pre-release (``commentsExtended``, ``people``).

Each is read (a reply's parent, a resolved thread) and written -- replies and resolved threads --
in the file's own namespace, never two in one part.  Judged by an lxml reading that follows
Word's rules (a reply's ``w15:commentEx`` names its parent's last paragraph by
``w15:paraIdParent``; ``w15:done="1"`` resolves), by python-docx (it opens the output and lists
its comments), and by LibreOffice over UNO (the output loads, the reply is among its comments).
"""

from __future__ import annotations

import io
import json
from typing import Any

import docx as python_docx
import pytest
from lxml import etree

from redline.apply import ApplyOptions, Outcome, apply_reply
from shared_schema import Code
from testing.docbuild import CommentEnd, CommentStart, P, docx
from tests.oracles import probe
from tests.support import comment, members, read_back, view_of, with_part

W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
W15_2012 = "http://schemas.microsoft.com/office/word/2012/wordml"
W15_PRE = "http://schemas.microsoft.com/office/word/2010/11/wordml"
REL_EXTENDED = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"
REL_PEOPLE = "http://schemas.microsoft.com/office/2011/relationships/people"
CT = "application/vnd.openxmlformats-officedocument.wordprocessingml."
NAMESPACES = pytest.mark.parametrize("ns", [W15_2012, W15_PRE], ids=["2012", "2010-11"])


def threaded(ns: str, people: bool = True, extended: bool = True, done: str = "0") -> bytes:
    """Two comments on one passage, c2 a reply to c1, with the thread parts in ``ns``."""
    doc = docx(
        P("The rent is ", CommentStart(1), CommentStart(2), "ten days", CommentEnd(1), CommentEnd(2),
          " late."),
        P("A second paragraph."),
        comments=comment(1, "Too short.", para_id="0A000001") + comment(2, "Agreed.", para_id="0A000002"),
    )  # fmt: skip
    if extended:
        ex = (
            f'<?xml version="1.0" encoding="UTF-8"?><w15:commentsEx xmlns:w15="{ns}">'
            f'<w15:commentEx w15:paraId="0A000001" w15:done="{done}"/>'
            '<w15:commentEx w15:paraId="0A000002" w15:paraIdParent="0A000001" w15:done="0"/>'
            "</w15:commentsEx>"
        )
        doc = with_part(
            doc, "word/commentsExtended.xml", ex.encode(), REL_EXTENDED, CT + "commentsExtended+xml"
        )
    if people:
        pe = (
            f'<?xml version="1.0" encoding="UTF-8"?><w15:people xmlns:w15="{ns}">'
            '<w15:person w15:author="Opp"><w15:presenceInfo w15:providerId="None" w15:userId="Opp"/>'
            "</w15:person></w15:people>"
        )
        doc = with_part(doc, "word/people.xml", pe.encode(), REL_PEOPLE, CT + "people+xml")
    return doc


def run(doc: bytes, entries: list[dict[str, Any]]) -> Outcome:
    return apply_reply(
        doc, json.dumps({"edits": entries}), ApplyOptions(author="Us", date="2024-05-01T00:00:00Z")
    )


def codes(out: Outcome) -> list[str]:
    return [e.error.code.value if e.error else e.status.value for e in out.report.edits]


def root_of(data: bytes, name: str) -> etree._Element:
    return etree.fromstring(members(data)[name])


def namespaces_in(el: etree._Element) -> set[str]:
    """Every namespace an element or attribute of ``el`` is in."""
    found = set()
    for node in el.iter():
        found.add(etree.QName(node).namespace or "")
        found.update(etree.QName(a).namespace or "" for a in node.attrib)
    return found - {""}


def word_threads(data: bytes) -> dict[str, tuple[str | None, bool]]:
    """An lxml reading by Word's rules: comment id -> (the id of the comment it replies to,
    whether it is done), from comments.xml's last-paragraph w14:paraId and commentsExtended's
    entries in whichever w15 namespace the part is in."""
    comments = root_of(data, "word/comments.xml")
    ex_root = root_of(data, "word/commentsExtended.xml")
    ns = etree.QName(ex_root).namespace
    by_para: dict[str | None, str] = {}
    for c in comments:
        paras = c.findall(f"{{{P_NS}}}p")
        by_para[paras[-1].get(f"{{{W14}}}paraId")] = c.get(f"{{{P_NS}}}id") or ""
    out: dict[str, tuple[str | None, bool]] = {}
    for ex in ex_root.iter(f"{{{ns}}}commentEx"):
        cid = by_para[ex.get(f"{{{ns}}}paraId")]
        parent = ex.get(f"{{{ns}}}paraIdParent")
        out[cid] = (by_para[parent] if parent else None, ex.get(f"{{{ns}}}done") == "1")
    return out


P_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


@NAMESPACES
def test_a_thread_is_read_with_its_parent_and_state(ns: str) -> None:
    found = {c.id: c for c in read_back(threaded(ns, done="1")).comments}
    assert found["2"].parent == "1" and found["1"].parent is None
    assert found["1"].resolved and found["2"].resolved  # done on the thread's first comment


@NAMESPACES
def test_the_view_json_lists_the_parent(ns: str) -> None:
    from redline.read.annotations import read_annotations
    from redline.read.load import load_view

    loaded = load_view(threaded(ns))
    assert not isinstance(loaded, Exception) and isinstance(loaded, tuple)
    package, view = loaded
    shapes = [c.to_dict() for c in read_annotations(package, view).comments]
    assert [(s["id"], s["parent"]) for s in shapes] == [("1", None), ("2", "1")]
    assert view_of(threaded(ns)).text.startswith("The rent is ten days late.")


@NAMESPACES
def test_a_reply_and_a_resolve_are_written_in_the_files_namespace(ns: str) -> None:
    out = run(
        threaded(ns),
        [
            {"action": "reply", "comment_id": "1", "text": "We accept ten days."},
            {"action": "resolve", "comment_id": "1"},
        ],
    )
    assert codes(out) == ["applied", "applied"]
    assert out.output is not None
    ex = root_of(out.output, "word/commentsExtended.xml")
    people = root_of(out.output, "word/people.xml")
    assert namespaces_in(ex) == {ns} and namespaces_in(people) == {ns}  # never mixed
    assert {etree.QName(p).localname for p in people} == {"person"}
    assert {p.get(f"{{{ns}}}author") for p in people} == {"Opp", "Us"}
    # Word's reading: the reply hangs under c1, the whole thread is done
    threads = word_threads(out.output)
    (reply,) = [c for c in read_back(out.output).comments if c.text == "We accept ten days."]
    assert threads[reply.id][0] == "1" and threads["2"][0] == "1"
    assert threads["1"] == (None, True)  # a thread is done when its first comment is
    # our own reading agrees
    assert reply.parent == "1" and reply.resolved
    # python-docx opens it and lists the three comments
    opened = python_docx.Document(io.BytesIO(out.output))
    assert sorted(c.text for c in opened.comments) == sorted(["Too short.", "Agreed.", "We accept ten days."])


def test_a_missing_people_part_is_made_in_the_namespace_of_comments_extended() -> None:
    out = run(threaded(W15_PRE, people=False), [{"action": "reply", "comment_id": "1", "text": "Fine."}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    people = [n for n in members(out.output) if n.startswith("word/people")]
    assert len(people) == 1
    assert namespaces_in(root_of(out.output, people[0])) == {W15_PRE}
    assert namespaces_in(root_of(out.output, "word/commentsExtended.xml")) == {W15_PRE}


def test_a_missing_comments_extended_part_is_made_in_the_namespace_of_people() -> None:
    out = run(threaded(W15_PRE, extended=False), [{"action": "resolve", "comment_id": "1"}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    ex = root_of(out.output, "word/commentsExtended.xml")
    assert namespaces_in(ex) == {W15_PRE}
    assert word_threads(out.output)["1"] == (None, True)


def test_a_document_with_neither_gets_the_2012_namespace() -> None:
    out = run(
        threaded(W15_2012, extended=False, people=False),
        [{"action": "reply", "comment_id": "1", "text": "Ok."}],
    )
    assert codes(out) == ["applied"]
    assert out.output is not None
    assert namespaces_in(root_of(out.output, "word/commentsExtended.xml")) == {W15_2012}


def test_a_thread_part_in_another_namespace_is_refused_saying_why() -> None:
    other = "http://example.com/not-wordml"
    out = run(threaded(other), [{"action": "resolve", "comment_id": "1"}])
    assert out.report.error is not None and out.report.error.code is Code.WRONG_PART_KIND
    message = out.report.error.message
    assert other in message and W15_2012 in message and W15_PRE in message and "commentsEx" in message
    assert out.output is None


@pytest.mark.slow
def test_libreoffice_loads_replies_and_resolves_in_either_namespace(soffice: str) -> None:
    outputs = {}
    for ns, name in ((W15_2012, "w15-2012"), (W15_PRE, "w15-2010-11")):
        out = run(
            threaded(ns),
            [
                {"action": "reply", "comment_id": "1", "text": "We accept."},
                {"action": "resolve", "comment_id": "1"},
            ],
        )
        assert out.output is not None
        outputs[f"{name}.docx"] = out.output
    try:
        found = probe(outputs, soffice)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    for name, got in found.items():
        assert got["loaded"], (name, got.get("error"))
        assert "We accept." in [c["content"] for c in got["comments"]], name
        assert got["accepted"].startswith("The rent is ten days late."), name
