"""Content SENT imports (``w:altChunk``) and a re-save writes out as paragraphs (issue 34): the
imported file's text is SENT's text -- expanded untouched it is no change, a word changed in it
is; content of a format reconcile does not read is said, never passed as checked.  Generated
documents (python-docx, zip), made once as SENT and once as LibreOffice writes them back
(measured: oxpt-CA009)."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import docx

from redline.reconcile.engine import reconcile

_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk"
_DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_BEFORE = "The parties agree as follows."
_AFTER = "This Agreement is governed by the laws of Delaware."
_CHUNK = ["Schedule 1 - Fees", "The Customer pays 100 dollars a month."]


def _bytes(d: Any) -> bytes:
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def _chunk_docx(paragraphs: list[str], comment: str | None = None) -> bytes:
    d = docx.Document()
    for text in paragraphs:
        p = d.add_paragraph(text)
    if comment is not None:
        d.add_comment(p.runs, text=comment, author="Drafter", initials="D")
    return _bytes(d)


def _with_chunk(chunk: bytes, kind: str, name: str) -> bytes:
    """SENT: a paragraph, the imported file ``chunk`` (an ``w:altChunk``), a paragraph."""
    d = docx.Document()
    d.add_paragraph(_BEFORE)
    d.add_paragraph(_AFTER)
    data = _bytes(d)
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            blob = src.read(info.filename)
            if info.filename == "word/_rels/document.xml.rels":
                rel = f'<Relationship Id="rIdChunk" Type="{_REL}" Target="{name}"/>'
                blob = blob.replace(b"</Relationships>", rel.encode() + b"</Relationships>")
            elif info.filename == "[Content_Types].xml":
                over = f'<Override PartName="/word/{name}" ContentType="{kind}"/>'
                blob = blob.replace(b"</Types>", over.encode() + b"</Types>")
            elif info.filename == "word/document.xml":
                at = blob.index(_AFTER.encode())
                p = blob.rindex(b"<w:p>", 0, at) if b"<w:p>" in blob[:at] else blob.rindex(b"<w:p ", 0, at)
                blob = blob[:p] + b'<w:altChunk r:id="rIdChunk"/>' + blob[p:]
            z.writestr(info, blob)
        z.writestr(f"word/{name}", chunk)
    return out.getvalue()


def _expanded(paragraphs: list[str], comment: str | None = None) -> bytes:
    """RETURNED: the imported file written out as paragraphs at its place (as LibreOffice does)."""
    d = docx.Document()
    d.add_paragraph(_BEFORE)
    for text in paragraphs:
        p = d.add_paragraph(text)
    if comment is not None:
        d.add_comment(p.runs, text=comment, author="Drafter", initials="D")
    d.add_paragraph(_AFTER)
    return _bytes(d)


def _sent(comment: str | None = None) -> bytes:
    return _with_chunk(_chunk_docx(_CHUNK, comment), _DOCX, "chunk1.docx")


def test_imported_content_written_out_untouched_is_no_change() -> None:
    """CA009: and the imported file's comment, written out with it, is SENT's, not theirs."""
    d = reconcile(_sent("Check the fee."), _expanded(_CHUNK, "Check the fee.")).to_dict()
    assert d["untracked"] == [] and d["theirs"] == {"revisions": [], "comments": []}
    assert d["warnings"] == []


def test_a_word_changed_in_imported_content_written_out_is_an_untracked_change() -> None:
    returned = _expanded([_CHUNK[0], _CHUNK[1].replace("100", "150")])
    found = reconcile(_sent(), returned).to_dict()["untracked"]
    assert [(u["before"], u["after"]) for u in found] == [("100", "150")]


def test_imported_content_kept_as_imported_is_compared_as_its_text() -> None:
    """Kept as an ``w:altChunk``, untouched: no change; the imported file itself edited: found."""
    sent = _sent()
    assert reconcile(sent, sent).to_dict()["untracked"] == []
    edited = _with_chunk(_chunk_docx([_CHUNK[0], _CHUNK[1].replace("month", "week")]), _DOCX, "chunk1.docx")
    found = reconcile(sent, edited).to_dict()["untracked"]
    assert [(u["before"], u["after"]) for u in found] == [("month", "week")]


def test_imported_html_written_out_is_said_not_passed_as_checked() -> None:
    """Content of a format reconcile does not read (HTML) written out: not reported as untracked,
    and not passed either -- a warning names it, and the exit code says look."""
    html = (
        b"<html><body><h1>Schedule 1 - Fees</h1><p>The Customer pays 100 dollars a month.</p></body></html>"
    )
    sent = _with_chunk(html, "text/html", "chunk1.htm")
    report = reconcile(sent, _expanded(_CHUNK))
    d = report.to_dict()
    assert d["untracked"] == []
    assert [w["code"] for w in d["warnings"]] == ["lossy_conversion"]
    assert (
        "word/chunk1.htm (text/html)" in d["warnings"][0]["message"]
        and "by eye" in d["warnings"][0]["message"]
    )
    assert report.exit_code == 1
