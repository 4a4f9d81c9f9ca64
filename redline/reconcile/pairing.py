"""SENT's revisions and comments found again in RETURNED.

By id first: a revision of RETURNED with the same ``w:id`` (as Word reads ids), the same author,
kind and text, standing near where it stood, is the same revision.  What is left -- the other
side's tool renumbered the ids (Word renumbers on save, LibreOffice from 0), so an id may now
name *another* revision of ours of the same kind -- is paired by author, kind and text (a text
shorter than a few words -- a paragraph mark, a word -- with the view text just before it), with
the one of that text standing nearest where it stood, within a few hundred characters (RETURNED's
offsets carried into SENT's text past the differences between them): a long contract repeats
its words, and the text alone cannot tell two deletions of "least" apart.  Then by id again,
whatever the text, near where it stood: a revision another author changed inside reads
differently, and may be split in pieces that keep its id.  Comments pair by id, then by author
and text (as words: :func:`_words`): the longest common subsequence of the two lists
(:func:`redline.text.worddiff.diff_opcodes`), then in any order (LibreOffice writes a reply
before the comment it answers).

Last, **by place**: a revision of RETURNED still unpaired whose author and kind are those of a
revision of SENT, and that stands inside it (RETURNED's offset carried into SENT's text past
the differences before it), is a piece of it -- another author's change written into ours
splits our ``w:ins`` in two, and the new piece may get a new id; an untracked edit inside a
renumbered insertion changes the text the second pass compares (``how``: ``"place"``).  And a
revision of SENT a re-save merged into its neighbour (touching revisions of one author, kind and
date become one) is paired with the revision that now holds its text at its place.

Last of all, **cut anew** (:func:`_recut`): a revision of RETURNED still unpaired that touches a
revision of SENT of its author and direction (inserting or deleting) and holds no text of its
own -- a paragraph mark, a computed field's result, or words that revision holds -- is a piece
of it: a re-save runs an author's insertion across the mark between two of theirs, writes a
tracked field with its result in one insertion, a tracked custom XML element as a mark, an
insertion as a move, and a header it writes out once per section with copies of its revisions
(places in headers and footers are carried story by story:
:class:`~redline.reconcile.compared.Carry`).  A revision that holds nothing at all (an empty
run: :func:`holds_nothing`) is no change of anyone's.  None of this hides a change of the text:
a revision paired stays in what RETURNED reads, and the comparison that follows reports what
it holds that SENT does not read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..opc.namespaces import w
from ..read.annotations import DocComment, Revision
from ..read.ids import id_key
from ..read.roles import RevisionKind
from ..text.worddiff import diff_opcodes
from .align import Difference, carried, differences, shift

__all__ = ["Pairs", "holds_nothing", "pair_comments", "pair_revisions"]


@dataclass
class Pairs:
    """SENT's item (by position in its list) -> RETURNED's, and how it was found."""

    to_returned: dict[int, list[int]] = field(default_factory=dict)
    how: dict[int, str] = field(default_factory=dict)  # "id" | "text"

    @property
    def returned(self) -> set[int]:
        return {j for js in self.to_returned.values() for j in js}


_CONTEXT = 12  # a revision's text shorter than this is told apart by the text before it
_DIRECTION = {  # (a move is a deletion and an insertion Word ties together: by its text, the same)
    RevisionKind.INSERT: "in", RevisionKind.MOVE_TO: "in", RevisionKind.PARAGRAPH_INSERT: "in",
    RevisionKind.CUSTOM_XML_INSERT: "in", RevisionKind.DELETE: "out", RevisionKind.MOVE_FROM: "out",
    RevisionKind.PARAGRAPH_DELETE: "out", RevisionKind.CUSTOM_XML_DELETE: "out",
    # a row's record: a re-save writes a row deleted without its cells' marks deleted (HC031)
    RevisionKind.ROW_INSERT: "rows in", RevisionKind.ROW_DELETE: "rows out",
}  # fmt: skip


def _key(r: Revision, text: str) -> tuple[str, str, str]:
    if len(r.text) >= _CONTEXT:
        return (r.author or "", r.kind.value, r.text)
    return (r.author or "", r.kind.value, text[max(0, r.start - _CONTEXT) : r.start] + "\x00" + r.text)


_EMPTY_OK = frozenset((w("r"), w("rPr")))
_TEXT_KINDS = frozenset(
    (RevisionKind.INSERT, RevisionKind.DELETE, RevisionKind.MOVE_TO, RevisionKind.MOVE_FROM)
)


def holds_nothing(r: Revision) -> bool:
    """Is ``r`` an insertion or deletion of nothing -- runs with no content at all (LibreOffice
    writes ``<w:ins><w:r/></w:ins>`` where a revision of another author ends in an empty run)?  It
    changes nothing, whoever it names: no change of theirs."""
    el = r.element
    if el is None or r.kind not in _TEXT_KINDS or r.text:
        return False
    for x in el.iterdescendants():
        if x.tag not in _EMPTY_OK and not any(a.tag == _RPR for a in x.iterancestors()):
            return False
    return True


_RPR = w("rPr")


def pair_revisions(
    sent: list[Revision],
    returned: list[Revision],
    sent_text: str = "",
    returned_text: str = "",
    computed: Callable[[int, int], bool] | None = None,
    carry: Callable[[int], tuple[int, int]] | None = None,
    back: list[Difference] | None = None,
) -> Pairs:
    """``computed``: is RETURNED's view ``[start, end)`` all computed fields' results (none: no
    text is)?  ``carry``: where RETURNED's view offset stands in SENT's (a point, or a stretch:
    :class:`redline.reconcile.compared.Carry`; none: past the differences of the two texts);
    ``back``: those differences, RETURNED's text against SENT's, when they are known."""
    pairs = Pairs()
    if back is None:
        back = [
            Difference(d.b_start, d.b_end, d.a_start, d.a_end) for d in differences(sent_text, returned_text)
        ]
    by_id: dict[tuple[str, str, str], list[int]] = {}
    for j, r in enumerate(returned):
        by_id.setdefault((id_key(r.id), r.author or "", r.kind.value), []).append(j)
    taken: set[int] = set()

    def by_id_pass(same_text: bool) -> None:
        for i, s in enumerate(sent):
            if i in pairs.to_returned:
                continue
            # every piece (a revision another author's change was written into is split in two),
            # and only near where it stood (a tool that numbers its new revisions from the lowest
            # free id may give one of them the id of a change of ours that was decided)
            found = [
                j for j in by_id.get((id_key(s.id), s.author or "", s.kind.value), ())
                if j not in taken and _near(s, returned[j], back)
                and (not same_text or returned[j].text == s.text)
            ]  # fmt: skip
            if found:
                pairs.to_returned[i] = found
                pairs.how[i] = "id"
                taken.update(found)

    by_id_pass(True)
    left_s = [i for i in range(len(sent)) if i not in pairs.to_returned]
    left_r = [j for j in range(len(returned)) if j not in taken]
    _by_text_near(sent, returned, sent_text, returned_text, left_s, left_r, back, pairs)
    taken = pairs.returned
    by_id_pass(False)
    _by_place(sent, returned, back, pairs)
    _merged(sent, returned, back, pairs)
    _recut(sent, returned, pairs, computed or (lambda s, e: False), carry or (lambda x: carried(back, x)))
    return pairs


def _recut(
    sent: list[Revision],
    returned: list[Revision],
    pairs: Pairs,
    computed: Callable[[int, int], bool],
    carry: Callable[[int], tuple[int, int]],
) -> None:
    """A revision of RETURNED still unpaired that touches (overlaps or adjoins, RETURNED's offsets
    carried into SENT's text) a revision of SENT of its author and direction (inserting: an
    insertion, a move's destination, a paragraph mark or custom XML inserted; deleting: the
    same taken out) and adds no text that revision does not hold -- its text, paragraph marks
    and computed fields' results left out, is part of that revision's -- is a piece of it cut
    anew: a re-save extends an author's insertion across the paragraph mark between two of
    theirs, writes a tracked field with its result inside one insertion, or a tracked custom XML
    element as a mark inserted (LibreOffice does each).  Nothing of the text is hidden by it:
    the piece stays in what RETURNED reads, and what it holds that SENT does not read is
    an untracked difference."""
    taken = pairs.returned
    left = [j for j in range(len(returned)) if j not in taken]
    if not left:
        return
    by_way: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(sent):
        way = _DIRECTION.get(s.kind)
        if way is not None:
            by_way.setdefault((s.author or "", way), []).append(i)
    for j in left:
        r = returned[j]
        way = _DIRECTION.get(r.kind)
        if way is None:
            continue
        at, end = carry(r.start)[0], carry(r.end)[1]
        near = [
            i for i in by_way.get((r.author or "", way), ()) if sent[i].start <= end and at <= sent[i].end
        ]
        if not near:
            continue
        text = r.text.replace("\n", "")
        if (
            text
            and not computed(r.start, r.end)
            and (at == end or not any(text in sent[i].text for i in near))
        ):
            continue  # (text of its own: new, or more than SENT's revision holds)
        pairs.to_returned.setdefault(near[0], []).append(j)
        pairs.how.setdefault(near[0], "place")


_MERGING = frozenset(("insert", "delete", "move_from", "move_to"))


def _merged(sent: list[Revision], returned: list[Revision], back: list[Difference], pairs: Pairs) -> None:
    """SENT's revisions still unpaired that one revision of RETURNED holds with a neighbour: a
    re-save merges touching revisions of one author, kind and date (LibreOffice writes SENT's
    ``w:del`` of "quis" and of " " as one ``w:del`` of "quis ")."""
    left = [i for i in range(len(sent)) if i not in pairs.to_returned and sent[i].kind.value in _MERGING]
    if not left:
        return
    for i in left:
        s = sent[i]
        for j, r in enumerate(returned):
            if (r.author or "") != (s.author or "") or r.kind is not s.kind or s.text not in r.text:
                continue
            at, end = shift(back, r.start), shift(back, r.end)
            if (s.end == s.start and at == s.start) or (s.end > s.start and at <= s.start and s.end <= end):
                pairs.to_returned[i] = [j]
                pairs.how[i] = "place"
                break


_TEXT_NEAR = 400  # characters: how far from where it stood a revision is paired by its text


def _by_text_near(
    sent: list[Revision],
    returned: list[Revision],
    sent_text: str,
    returned_text: str,
    left_s: list[int],
    left_r: list[int],
    back: list[Difference],
    pairs: Pairs,
) -> None:
    """Each unpaired revision of SENT, in order, with the unpaired one of RETURNED of its
    author, kind and text (:func:`_key`) standing nearest where it stood (RETURNED's offsets
    carried into SENT's text), within :data:`_TEXT_NEAR` characters: a long contract repeats
    its words ("at least" deleted in two clauses), so the text alone cannot say which is which,
    and one of them may be gone (decided)."""
    by_key: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    for j in left_r:
        r = returned[j]
        by_key.setdefault(_key(r, returned_text), []).append((j, shift(back, r.start)))
    taken: set[int] = set()
    for i in left_s:
        s = sent[i]
        best: tuple[int, int] | None = None
        for j, at in by_key.get(_key(s, sent_text), ()):
            if j in taken:
                continue
            distance = abs(at - s.start)
            if distance <= _TEXT_NEAR and (best is None or distance < best[0]):
                best = (distance, j)
        if best is not None:
            taken.add(best[1])
            pairs.to_returned[i] = [best[1]]
            pairs.how[i] = "text"


_NEAR = 40  # characters: how far from where it stood a revision of the same id may be found


def _near(s: Revision, r: Revision, back: list[Difference]) -> bool:
    """Does RETURNED's ``r`` stand near SENT's ``s`` (RETURNED's offsets carried into SENT's
    text past the differences before them; none: the same offsets)?"""
    at, end = shift(back, r.start), shift(back, r.end)
    return at <= s.end + _NEAR and end >= s.start - _NEAR


def _by_place(sent: list[Revision], returned: list[Revision], back: list[Difference], pairs: Pairs) -> None:
    taken = pairs.returned
    left = [j for j in range(len(returned)) if j not in taken]
    if not left:
        return
    by_kind: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(sent):
        by_kind.setdefault((s.author or "", s.kind.value), []).append(i)
    for j in left:
        r = returned[j]
        candidates = by_kind.get((r.author or "", r.kind.value), [])
        if not candidates:
            continue
        at, end = shift(back, r.start), shift(back, r.end)
        if r.end > r.start and at == end:
            continue  # (all of its text is new: no piece of a revision SENT holds)
        for i in candidates:
            s = sent[i]
            if s.start <= at and end <= s.end and (s.end > s.start or at == s.start):
                pairs.to_returned.setdefault(i, []).append(j)
                pairs.how.setdefault(i, "place")
                break


def _words(text: str) -> str:
    """A comment's text as its words: a re-save adds or drops empty paragraphs and spaces in a
    comment (LibreOffice writes a comment that opens with a field as an empty paragraph and its
    text), which do not make it another comment."""
    return " ".join(text.split())


def pair_comments(sent: list[DocComment], returned: list[DocComment]) -> Pairs:
    pairs = Pairs()
    by_id: dict[tuple[str, str, str], int] = {}
    for j, c in enumerate(returned):
        by_id.setdefault((id_key(c.id), c.author or "", _words(c.text)), j)
    taken: set[int] = set()
    for i, c in enumerate(sent):
        found = by_id.get((id_key(c.id), c.author or "", _words(c.text)))
        if found is not None and found not in taken:
            pairs.to_returned[i] = [found]
            pairs.how[i] = "id"
            taken.add(found)
    left_s = [i for i in range(len(sent)) if i not in pairs.to_returned]
    left_r = [j for j in range(len(returned)) if j not in taken]
    key_s = [(sent[i].author or "", "comment", _words(sent[i].text)) for i in left_s]
    key_r = [(returned[j].author or "", "comment", _words(returned[j].text)) for j in left_r]
    _by_text(key_s, key_r, left_s, left_r, pairs)
    # then in any order: a re-save may write a reply before the comment it answers
    free: dict[tuple[str, str], list[int]] = {}
    taken = pairs.returned
    for j, c in enumerate(returned):
        if j not in taken:
            free.setdefault((c.author or "", _words(c.text)), []).append(j)
    for i, c in enumerate(sent):
        if i not in pairs.to_returned and free.get((c.author or "", _words(c.text))):
            pairs.to_returned[i] = [free[(c.author or "", _words(c.text))].pop(0)]
            pairs.how[i] = "text"
    return pairs


def _by_text(
    a: list[tuple[str, str, str]], b: list[tuple[str, str, str]], ia: list[int], ib: list[int], pairs: Pairs
) -> None:
    if not a or not b:
        return
    codes: dict[tuple[str, str, str], str] = {}
    ka = [codes.setdefault(k, str(len(codes))) for k in a]
    kb = [codes.setdefault(k, str(len(codes))) for k in b]
    for tag, i1, i2, j1, _ in diff_opcodes(ka, kb):
        if tag == "equal":
            for k in range(i2 - i1):
                pairs.to_returned[ia[i1 + k]] = [ib[j1 + k]]
                pairs.how[ia[i1 + k]] = "text"
