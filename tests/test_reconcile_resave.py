"""What a re-save by another tool rewrites of SENT's own revisions and comments -- those of other
authors, which SENT holds and RETURNED still holds -- is no change of theirs (issue 34): generated
documents (python-docx, lxml) made once as SENT and once as LibreOffice writes them back.  The same
places with a real change made are still found."""

from __future__ import annotations

import io
from typing import Any

import docx

from redline.reconcile.engine import reconcile


def _bytes(d: Any) -> bytes:
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def _commented(comment: list[str], *, body: str = "The Supplier shall deliver the goods.") -> bytes:
    """One paragraph with a comment of "Start" (another author than ours) whose paragraphs are
    ``comment``."""
    d = docx.Document()
    p = d.add_paragraph(body)
    c = d.add_comment(p.runs, text=comment[0], author="Start", initials="S")
    for text in comment[1:]:
        c.add_paragraph(text)
    return _bytes(d)


def test_a_comment_rewritten_with_an_empty_paragraph_is_the_same_comment() -> None:
    """poi-stress010: LibreOffice writes a comment that opens with a field as an empty paragraph
    and its text -- the same comment, not one of theirs."""
    sent = _commented(["<<JOB>>N1028849A", "<<SYMBOL>>CEDAW/C/BGD/6-7"])
    returned = _commented(["", "<<JOB>>N1028849A", "<<SYMBOL>>CEDAW/C/BGD/6-7"])
    d = reconcile(sent, returned).to_dict()
    assert d["theirs"]["comments"] == [] and d["untracked"] == []


def test_a_comment_whose_words_changed_is_a_comment_of_theirs() -> None:
    sent = _commented(["<<JOB>>N1028849A", "<<SYMBOL>>CEDAW/C/BGD/6-7"])
    returned = _commented(["<<JOB>>N1028849B", "<<SYMBOL>>CEDAW/C/BGD/6-7"])
    d = reconcile(sent, returned).to_dict()
    assert [c["text"].split()[0] for c in d["theirs"]["comments"]] == ["<<JOB>>N1028849B"]
