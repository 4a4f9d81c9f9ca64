"""The text with tracked changes and comments inline, for a model to read (``redline view --markup``).

A CriticMarkup-like notation, each mark carrying the document's own id and the author::

    The Tenant shall pay {--monthly--}[r13 Opposing Counsel]{++quarterly++}[r12 Opposing Counsel] rent
    {==within ten days==}{>>Too short.<<}[c4 Opposing Counsel]{>>Agreed.<<}[c5 Us, reply to c4]

The text outside the marks (inserted text included, deleted text not) is the view's text --
the document read with every revision accepted, which is what anchors are quoted from; the
marks, their ids and deleted text are never part of it.  :data:`HEADER` says so at the top.
"""

from __future__ import annotations

from dataclasses import dataclass

from .annotations import Annotations, DocComment, Revision
from .roles import RevisionKind
from .view import DocumentView

__all__ = ["HEADER", "render"]

HEADER = (
    "[How to read this text: tracked changes and comments are shown inline, each with its id "
    "and author. {++text++}[r12 Name] was inserted by Name (revision 12); {--text--}[r13 Name] "
    "was deleted; 'moved' marks a move's two sides; {@@text@@}[r14 Name, formatting] had its "
    "formatting changed; \u00b6 is a paragraph mark; {==passage==}{>>comment<<}[c4 Name] is "
    "comment 4 on the passage, a reply says 'reply to c4', a finished thread 'resolved'. The "
    "text reads as if every change were accepted: quote anchors from it without any of the "
    "marks, ids or deleted text.]\n\n"
)
"""The line ``--markup`` starts with: how to read the notation."""

_PILCROW = "\u00b6"

_OPEN, _POINT, _CLOSE = 2, 1, 0  # at one offset: closes first, then points, then opens


@dataclass(frozen=True, order=True)
class _Mark:
    offset: int
    rank: int
    order: int  # closes: the later-opened first; opens: the longer first
    seq: int
    text: str


def _tag(prefix: str, rid: str, author: str | None, *notes: str) -> str:
    who = f" {author}" if author else ""
    extra = "".join(f", {n}" for n in notes if n)
    return f"[{prefix}{rid}{who}{extra}]"


def _marks(annotations: Annotations) -> list[_Mark]:
    out: list[_Mark] = []
    seq = 0

    def add(offset: int, rank: int, order: int, text: str) -> None:
        nonlocal seq
        out.append(_Mark(offset, rank, order, seq, text))
        seq += 1

    for rev in annotations.revisions:
        if rev.paragraph is None:
            continue
        for offset, rank, order, text in _revision_marks(rev):
            add(offset, rank, order, text)
    replies: dict[str, list[DocComment]] = {}
    for c in annotations.comments:
        if c.parent is not None:
            replies.setdefault(c.parent, []).append(c)
    ids = {c.id for c in annotations.comments}
    for c in annotations.comments:
        if c.paragraph is None or (c.parent is not None and c.parent in ids):
            continue
        said = _comment(c) + "".join(_comment(r, reply=True) for r in _thread(c, replies))
        if c.end > c.start:
            add(c.start, _OPEN, -c.end, "{==")
            add(c.end, _CLOSE, -c.start, "==}" + said)
        else:
            add(c.start, _POINT, 0, said)
    return sorted(out)


def _thread(c: DocComment, replies: dict[str, list[DocComment]]) -> list[DocComment]:
    out: list[DocComment] = []
    todo = list(replies.get(c.id, ()))
    seen = {c.id}
    while todo:
        r = todo.pop(0)
        if r.id in seen:
            continue
        seen.add(r.id)
        out.append(r)
        todo.extend(replies.get(r.id, ()))
    return out


def _comment(c: DocComment, reply: bool = False) -> str:
    text = " ".join(c.text.split()) or "(empty)"
    notes = (f"reply to c{c.parent}" if reply and c.parent else "", "resolved" if c.resolved else "")
    return "{>>" + text + "<<}" + _tag("c", c.id, c.author, *notes)


def _revision_marks(rev: Revision) -> list[tuple[int, int, int, str]]:
    kind = rev.kind
    moved = "moved" if kind in (RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO) else ""
    if rev.text == "\n" and kind is not RevisionKind.PARAGRAPH_FORMAT and rev.start == rev.end:
        sign = {RevisionKind.FORMAT: "@@"}.get(kind, "--" if kind in _REMOVED else "++")
        notes = (moved, "formatting" if kind is RevisionKind.FORMAT else "")
        mark = f"{{{sign}{_PILCROW}{sign}}}" + _tag("r", rev.id, rev.author, *notes)
        return [(rev.start, _POINT, 1, mark)]  # after the text that stands at the same place
    if kind in _REMOVED:
        if not rev.text:
            return []
        shown = rev.text.replace("\n", _PILCROW)
        return [(rev.start, _POINT, 0, f"{{--{shown}--}}" + _tag("r", rev.id, rev.author, moved))]
    if kind is RevisionKind.PARAGRAPH_FORMAT:
        tag = _tag("r", rev.id, rev.author, "paragraph formatting")
        return [(rev.end, _POINT, 2, "{@@" + _PILCROW + "@@}" + tag)]
    if kind in (RevisionKind.ROW_INSERT, RevisionKind.ROW_DELETE):
        what = "table row inserted" if kind is RevisionKind.ROW_INSERT else "table row deleted"
        return [(rev.start, _POINT, 0, "{@@row@@}" + _tag("r", rev.id, rev.author, what))]
    if rev.end <= rev.start:
        return []
    sign = "@@" if kind is RevisionKind.FORMAT else "++"
    notes = (moved, "formatting" if kind is RevisionKind.FORMAT else "")
    return [
        (rev.start, _OPEN, -rev.end, "{" + sign),
        (rev.end, _CLOSE, -rev.start, sign + "}" + _tag("r", rev.id, rev.author, *notes)),
    ]


_REMOVED = frozenset((RevisionKind.DELETE, RevisionKind.MOVE_FROM, RevisionKind.PARAGRAPH_DELETE))


def render(
    view: DocumentView,
    annotations: Annotations,
    first: int = 0,
    last: int | None = None,
    *,
    header: bool = True,
) -> str:
    """Paragraphs ``first``..``last`` as :meth:`DocumentView.labelled` shows them, with every
    revision and comment that lies in them inline (:data:`HEADER` first, when ``header``)."""
    paras = view.paragraphs[first : (len(view.paragraphs) if last is None else last + 1)]
    if not paras:
        return HEADER if header else ""
    lo, hi = paras[0].start, paras[-1].end
    marks = [m for m in _marks(annotations) if lo <= m.offset <= hi]
    text = view.text
    out: list[str] = [HEADER] if header else []
    k = 0
    at = lo
    for p in paras:
        out.append(text[at : p.start])
        at = p.start
        if p.label:
            out.append(p.label + " ")
        while k < len(marks) and marks[k].offset <= p.end:
            m = marks[k]
            m_at = max(at, m.offset)  # (never before what is written already)
            out.append(text[at:m_at])
            out.append(m.text)
            at = m_at
            k += 1
        out.append(text[at : p.end])
        at = p.end
    return "".join(out)
