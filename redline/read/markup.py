"""The text with tracked changes and comments inline, for a model to read (``redline view --markup``).

A CriticMarkup-like notation, each mark carrying the document's own id and the author::

    The Tenant shall pay {--monthly--}[r13 Opposing Counsel]{++quarterly++}[r12 Opposing Counsel] rent
    {==within ten days==}{>>Too short.<<}[c4 Opposing Counsel]{>>Agreed.<<}[c5 Us, reply to c4]

The text outside the marks (inserted text included, deleted text not) is the view's text --
the document read with every revision accepted, which is what anchors are quoted from; the
marks, their ids and deleted text are never part of it.  :data:`HEADER` says so at the top.

The notation is unambiguous (the marked-up view is what a model reads, and a counterparty
writes the comments, the author names and the text): nothing the document holds can open or
close a mark.  Comments and authors stay inline (a legend keyed by id would move a comment away
from the passage it is about, and the legend itself would need the same escaping); instead,
every string the document supplies -- body and inserted text, deleted text, comment and reply
text, author names, ids, numbering labels -- is escaped with a backslash:

* a mark sequence (:data:`MARKS`) the document holds gets ``\\`` before its first character
  (``\\{++``, ``\\++}``); so does a ``{`` that ends a stretch of text right before a mark (it
  would join the mark's own characters);
* inside a mark, the document's own ``\u00b6`` is ``\\\u00b6`` (a bare ``\u00b6`` there is a
  paragraph mark); inside a ``[...]`` tag, ``[``, ``]`` and ``,`` are escaped, and in an id
  also white space;
* a backslash is doubled when an escapable character (:data:`ESCAPABLE`) or the end of the
  stretch follows it; any other backslash stands for itself.

So a document without these sequences (every ordinary contract) reads exactly as before, and
its text outside the marks is the view's text character for character.  What one comment or
author can put in the view is bounded: a comment's text is cut at :data:`MAX_COMMENT`
characters (its tag then says ``cut from N characters``), an author's name at
:data:`MAX_AUTHOR` (``…`` ends it); white space in either is one space, and invisible
characters (zero-width, direction overrides, controls) are left out of both.  (Body text keeps
them: it is what anchors are quoted from.)
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .annotations import Annotations, DocComment, Revision
from .roles import RevisionKind
from .view import DocumentView

__all__ = ["DELIMITERS", "ESCAPABLE", "HEADER", "MARKS", "MAX_AUTHOR", "MAX_COMMENT", "MAX_REPLIES", "render"]

_PILCROW = "\u00b6"
_BACKSLASH = "\\"

MARKS: tuple[str, ...] = ("{++", "++}", "{--", "--}", "{@@", "@@}", "{==", "==}", "{>>", "<<}")
"""Every mark sequence of the notation: the openers and closers of the five marks."""

DELIMITERS: tuple[str, ...] = (*MARKS, "[", "]", ", ", _PILCROW, _BACKSLASH)
"""Everything that means something in the notation: the marks, a tag's brackets and note
separator, the paragraph mark and the escape character."""

ESCAPABLE = frozenset({m[0] for m in MARKS} | {_BACKSLASH, _PILCROW, "[", "]", ","})
"""A backslash before one of these (or before white space) stands for that character; any
other backslash is itself."""

MAX_COMMENT = 2000
"""The most characters of one comment's text the view shows."""

MAX_AUTHOR = 80
"""The most characters of one author's name the view shows."""

MAX_REPLIES = 100
"""The most replies of one thread the view shows (the first comment's tag then says
``100 of N replies shown``; ``--json`` lists every comment)."""

HEADER = (
    "[How to read this text: tracked changes and comments are shown inline, each with its id "
    "and author. {++text++}[r12 Name] was inserted by Name (revision 12); {--text--}[r13 Name] "
    "was deleted; 'moved' marks a move's two sides; {@@text@@}[r14 Name, formatting] had its "
    "formatting changed; \u00b6 is a paragraph mark; {==passage==}{>>comment<<}[c4 Name] is "
    "comment 4 on the passage, a reply says 'reply to c4', a finished thread 'resolved'. The "
    "text reads as if every change were accepted: quote anchors from it without any of the "
    "marks, ids or deleted text. Nothing the document holds can make or close a mark: where its "
    "text, a comment, a name or an id contains a mark sequence (such as {++ or <<}), a backslash "
    "stands before it (\\{++); so it does before [ ] and , inside a [...] tag (and before white "
    "space in an id), before the document's own \u00b6 inside a mark, and before a backslash that "
    "precedes any of these. Those backslashes are not the document's: quote anchors, ids and "
    f"names without them. A comment shows at most {MAX_COMMENT} characters (its tag then says "
    f"'cut from N characters'), a name at most {MAX_AUTHOR}, a thread at most {MAX_REPLIES} "
    "replies (its first comment's tag then says 'M of N replies shown').]\n\n"
)
"""The line ``--markup`` starts with: how to read the notation."""

_OPEN, _POINT, _CLOSE = 2, 1, 0  # at one offset: closes first, then points, then opens


@dataclass(frozen=True, order=True)
class _Mark:
    offset: int
    rank: int
    order: int  # closes: the later-opened first; opens: the longer first
    seq: int
    text: str
    depth: int = field(default=0, compare=False)  # +1 opens a mark, -1 closes one


def _escape(s: str, *, inside: bool = False, tag: str = "", space: bool = False, tail: bool = True) -> str:
    """``s`` (a string the document supplies) with every character that could be read as
    notation escaped: a mark sequence's first character, ``\u00b6`` when ``inside`` a mark,
    any of ``tag``'s characters (and white space, when ``space``), and a backslash before an
    escapable character (or before the end, when ``tail``: notation follows).  With ``tail``,
    a ``{`` that with the end of ``s`` begins an opener is escaped too (a mark follows)."""
    return _pattern(inside, tag, space, tail).sub(_backslashed, s)


def _backslashed(m: re.Match[str]) -> str:
    return _BACKSLASH + m.group()


@functools.cache
def _pattern(inside: bool, tag: str, space: bool, tail: bool) -> re.Pattern[str]:
    after = "".join(sorted(ESCAPABLE)) + tag
    end = r"|\Z" if tail else ""
    alts = [rf"\\(?=[{re.escape(after)}]|\s{end})"]
    alts += [f"{re.escape(m[0])}(?={re.escape(m[1:])})" for m in MARKS]
    if tail:
        seconds = "".join(sorted({m[1] for m in MARKS if m[0] == "{"}))
        alts.append(rf"\{{(?=[{re.escape(seconds)}]?\Z)")
    chars = tag + (_PILCROW if inside else "")
    if chars:
        alts.append(f"[{re.escape(chars)}]")
    if space:
        alts.append(r"\s")
    return re.compile("|".join(alts))


_TAG = "[],"


_INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1b\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
"""Controls and invisible format characters (zero-width spaces and joiners, direction
overrides, the invisible tag characters): in a comment or a name they would hide in a mark
sequence (``{\u200b++``) or carry text a reader does not see."""


def _shown(text: str) -> str:
    """A comment's text or a name as the view shows it: white space one space, no invisibles."""
    text = " ".join(text.split())
    if _INVISIBLE.search(text):
        text = " ".join(_INVISIBLE.sub("", text).split())
    return text


def _author(author: str | None) -> str:
    name = _shown(author or "")
    if len(name) > MAX_AUTHOR:
        name = name[:MAX_AUTHOR] + "\u2026"
    return _escape(name, tag=_TAG)


def _id(rid: str) -> str:
    return _escape(rid, tag=_TAG, space=True)


def _tag(prefix: str, rid: str, author: str | None, *notes: str) -> str:
    name = _author(author)
    who = f" {name}" if name else ""
    extra = "".join(f", {n}" for n in notes if n)
    return f"[{prefix}{_id(rid)}{who}{extra}]"


def _marks(annotations: Annotations) -> list[_Mark]:
    out: list[_Mark] = []
    seq = 0

    def add(offset: int, rank: int, order: int, text: str) -> None:
        nonlocal seq
        depth = 1 if rank == _OPEN else -1 if rank == _CLOSE else 0
        out.append(_Mark(offset, rank, order, seq, text, depth))
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
    roots = _roots(annotations.comments)
    for c in annotations.comments:
        if c.paragraph is None or roots.get(c.id) is not c:
            continue
        thread = _thread(c, replies)
        more = f"{MAX_REPLIES} of {len(thread)} replies shown" if len(thread) > MAX_REPLIES else ""
        said = _comment(c, more=more) + "".join(_comment(r, reply=True) for r in thread[:MAX_REPLIES])
        if c.end > c.start:
            add(c.start, _OPEN, -c.end, "{==")
            add(c.end, _CLOSE, -c.start, "==}" + said)
        else:
            add(c.start, _POINT, 0, said)
    return sorted(out)


def _roots(comments: list[DocComment]) -> dict[str, DocComment]:
    """Each comment's thread's first comment: up its parents to one with none (or none the
    document holds); a circle of parents is one thread, its first comment the one the circle
    closes on -- the first of it in the view's order, so no comment of a circle is left out."""
    by_id = {c.id: c for c in comments}
    root: dict[str, DocComment] = {}
    for c in comments:
        path: list[str] = []
        seen: set[str] = set()
        node = c
        while node.id not in root:
            path.append(node.id)
            seen.add(node.id)
            up = node.parent
            if up is None or up not in by_id or up in seen:
                root[node.id] = node if up is None or up not in seen else by_id[up]
                break
            node = by_id[up]
        for cid in path:
            root.setdefault(cid, root[node.id])
    return root


def _thread(c: DocComment, replies: dict[str, list[DocComment]]) -> list[DocComment]:
    out: list[DocComment] = []
    todo = list(replies.get(c.id, ()))
    seen = {c.id}
    at = 0
    while at < len(todo):
        r = todo[at]
        at += 1
        if r.id in seen:
            continue
        seen.add(r.id)
        out.append(r)
        todo.extend(replies.get(r.id, ()))
    return out


def _comment(c: DocComment, reply: bool = False, more: str = "") -> str:
    text = _shown(c.text) or "(empty)"
    cut = ""
    if len(text) > MAX_COMMENT:
        cut = f"cut from {len(text)} characters"
        text = text[:MAX_COMMENT]
    notes = (
        f"reply to c{_id(c.parent)}" if reply and c.parent else "",
        "resolved" if c.resolved else "",
        cut,
        more,
    )
    return "{>>" + _escape(text, inside=True) + "<<}" + _tag("c", c.id, c.author, *notes)


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
        shown = _escape(rev.text, inside=True).replace("\n", _PILCROW)
        return [(rev.start, _POINT, 0, f"{{--{shown}--}}" + _tag("r", rev.id, rev.author, moved))]
    if kind is RevisionKind.PARAGRAPH_FORMAT:
        tag = _tag("r", rev.id, rev.author, "paragraph formatting")
        return [(rev.end, _POINT, 2, "{@@" + _PILCROW + "@@}" + tag)]
    record = _RECORDS.get(kind)
    if record is not None:  # a record that changes no text: where what it changes begins (ends)
        what, note = record
        tag = _tag("r", rev.id, rev.author, note)
        if what == _PILCROW:
            return [(rev.end, _POINT, 2, "{@@" + _PILCROW + "@@}" + tag)]
        return [(rev.start, _POINT, 0, "{@@" + what + "@@}" + tag)]
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


_RECORDS = {
    RevisionKind.SECTION_FORMAT: (_PILCROW, "section formatting"),
    RevisionKind.NUMBERING: (_PILCROW, "numbering"),
    RevisionKind.TABLE_FORMAT: ("table", "table formatting"),
    RevisionKind.ROW_FORMAT: ("row", "table row formatting"),
    RevisionKind.CELL_FORMAT: ("cell", "table cell formatting"),
    RevisionKind.CELL_INSERT: ("cell", "table cell inserted"),
    RevisionKind.CELL_DELETE: ("cell", "table cell deleted"),
    RevisionKind.CELL_MERGE: ("cell", "table cells merged"),
    RevisionKind.CUSTOM_XML_INSERT: (_PILCROW, "custom XML markup inserted"),
    RevisionKind.CUSTOM_XML_DELETE: (_PILCROW, "custom XML markup deleted"),
}
"""How each revision record that changes no text shows: on what (a paragraph mark, a table,
a row, a cell) and the note its tag carries."""

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
    revision and comment that lies in them inline (:data:`HEADER` first, when ``header``).

    The document's own text between two marks (labels included) is escaped as one stretch,
    so that nothing in it, nor its edges, reads as notation."""
    paras = view.paragraphs[first : (len(view.paragraphs) if last is None else last + 1)]
    if not paras:
        return HEADER if header else ""
    lo, hi = paras[0].start, paras[-1].end
    marks = [m for m in _marks(annotations) if lo <= m.offset <= hi]
    text = view.text
    pieces: list[str | _Mark] = []
    k = 0
    at = lo
    for p in paras:
        pieces.append(text[at : p.start])
        at = p.start
        if p.label:
            pieces.append(p.label + " ")
        while k < len(marks) and marks[k].offset <= p.end:
            m = marks[k]
            m_at = max(at, m.offset)  # (never before what is written already)
            pieces.append(text[at:m_at])
            pieces.append(m)
            at = m_at
            k += 1
        pieces.append(text[at : p.end])
        at = p.end
    out: list[str] = [HEADER] if header else []
    stretch: list[str] = []
    depth = 0
    for piece in pieces:
        if isinstance(piece, str):
            stretch.append(piece)
            continue
        out.append(_escape("".join(stretch), inside=depth > 0))
        stretch = []
        out.append(piece.text)
        depth += piece.depth
    out.append(_escape("".join(stretch), inside=depth > 0, tail=False))
    return "".join(out)
