"""Decisions on the other side's redline: accept / reject tracked changes, reply to and resolve
comments (issue 19, "Decide").

Two steps, like the edits':

* :func:`check` (after :func:`redline.match.verify.verify`) finds what each ``accept`` /
  ``reject`` / ``reply`` / ``resolve`` entry names -- a tracked change by the document's own
  ``w:id`` (``revision_id``), every change of one ``author``, a comment by its ``w:id`` --
  and refuses what cannot be done, each with a code and a hint: an unknown id (``not_found``,
  the ids that exist, nearest first), an id two elements carry (``ambiguous``: never a guess),
  an author with no changes (``not_found``, the authors that have some), a count other than
  ``expected_matches`` (``count_mismatch``), accepting your own change (``unsupported``: reject
  it to withdraw it), a reply to a reply (``unsupported``, naming the thread's first comment),
  a thread already resolved (``no_change``).  **Conflicts** (``overlap``): a decision and an
  edit (or a ``comment``) of the same reply whose places touch, or two decisions on the same
  change: the later entry of the reply is refused, the earlier stands.  A change inside
  another one is decided on its own, as Word decides it (issue 30): what a decision removes
  takes the changes inside it along (its notes name them), and a later entry on one of those
  is applied with a note; a move's second side, decided the same way, is no conflict.  One
  id on a paragraph's content and its own mark is one change, and so is one id on the pieces
  of a run's formatting change a tool split, its id copied (:func:`_one_change`).
* :func:`redline.write.decisions.write_decisions` (after the writer) carries the plan out on the
  working copy's trees; :func:`place_of` tells it (and the check, for the splice) where a
  revision record stands.

The comment threads themselves are written by :mod:`redline.write.comments`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from shared_schema import EditStatus
from shared_schema.records import EditRecord, RefusalRecord, ResultRecord
from shared_schema.rules import DECISIONS, THREAD_ACTIONS

from ..opc.namespaces import w
from ..opc.package import Package
from ..opc.working import whole_root
from ..read.annotations import Annotations, DocComment, Revision, read_annotations
from ..read.ids import id_key, id_number, same_id
from ..read.roles import RevisionKind, record_kind
from ..read.view import DocumentView
from ..read.walk import ancestor
from .locate import MAX_MATCHES, Locator
from .verify import MAX_CANDIDATES, Planned
from .verify import needs_annotations as needs_annotations  # (defined beside the verifier)

__all__ = ["PROPERTY_CHANGES", "DecisionPlan", "Thread", "check", "needs_annotations", "place_of"]

_ID, _AUTHOR, _NAME = w("id"), w("author"), w("name")
_FROM_START, _TO_START = w("moveFromRangeStart"), w("moveToRangeStart")
_RANGE_ENDS = {w("moveFromRangeEnd"): _FROM_START, w("moveToRangeEnd"): _TO_START}
_SIDE_START = {w("moveFrom"): _FROM_START, w("moveTo"): _TO_START}
_OTHER_SIDE = {_FROM_START: _TO_START, _TO_START: _FROM_START}
_P, _PPR, _RPR = w("p"), w("pPr"), w("rPr")
# Property-change records the view does not list (they change no text) and what each restores
PROPERTY_CHANGES = {
    w("rPrChange"), w("pPrChange"), w("sectPrChange"), w("tblPrChange"), w("trPrChange"),
    w("tcPrChange"), w("tblGridChange"), w("tblPrExChange"),
}  # fmt: skip
_EXTRA_TAGS = (*PROPERTY_CHANGES, w("cellIns"), w("cellDel"), w("cellMerge"), w("numberingChange"))
_ACCEPTED, _REJECTED = "accept", "reject"
_SHOWN = re.compile(r"[rRcC]\s*([0-9]{1,18})")
_GONE_KINDS = (RevisionKind.DELETE, RevisionKind.MOVE_FROM, RevisionKind.PARAGRAPH_DELETE)
_WORD = {
    RevisionKind.INSERT: "insertion", RevisionKind.DELETE: "deletion", RevisionKind.MOVE_FROM: "move",
    RevisionKind.MOVE_TO: "move", RevisionKind.PARAGRAPH_INSERT: "inserted paragraph mark",
    RevisionKind.PARAGRAPH_DELETE: "deleted paragraph mark", RevisionKind.FORMAT: "formatting change",
    RevisionKind.PARAGRAPH_FORMAT: "paragraph formatting change",
    RevisionKind.ROW_INSERT: "inserted table row", RevisionKind.ROW_DELETE: "deleted table row",
    RevisionKind.SECTION_FORMAT: "section formatting change",
    RevisionKind.TABLE_FORMAT: "table formatting change",
    RevisionKind.ROW_FORMAT: "table row formatting change",
    RevisionKind.CELL_FORMAT: "table cell formatting change",
    RevisionKind.CELL_INSERT: "inserted table cell", RevisionKind.CELL_DELETE: "deleted table cell",
    RevisionKind.CELL_MERGE: "table cell merge", RevisionKind.NUMBERING: "numbering change",
    RevisionKind.CUSTOM_XML_INSERT: "custom XML markup inserted",
    RevisionKind.CUSTOM_XML_DELETE: "custom XML markup deleted",
}  # fmt: skip


@dataclass
class Thread:
    """A reply to (``text``) or the resolution of (``text`` None) a comment."""

    edit_index: int
    comment: DocComment
    text: str | None
    root: DocComment  # the thread's first comment (itself, for a first comment)
    replies: list[DocComment] = field(default_factory=list)  # the thread's other comments


@dataclass
class _Decision:
    edit_index: int
    accept: bool
    targets: list[Revision]  # everything decided (a move: both sides)
    ranges: list[etree._Element] = field(default_factory=list)  # the moves' range starts decided


@dataclass
class DecisionPlan:
    """What :func:`check` let through: decisions and thread entries, in reply order, and the
    view ranges and parts writing them changes (for the splice)."""

    decisions: list[_Decision] = field(default_factory=list)
    threads: list[Thread] = field(default_factory=list)
    ranges: list[tuple[int, int]] = field(default_factory=list)
    whole_parts: set[str] = field(default_factory=set)  # parts changed outside any paragraph
    parts: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.decisions or self.threads)


# -------------------------------------------------------------------------------------------
# Check


def check(
    locator: Locator,
    package: Package,
    edits: list[EditRecord],
    results: list[ResultRecord],
    planned: list[Planned],
    own_author: str,
) -> tuple[DecisionPlan, list[Planned]]:
    """Check every decision and thread entry of ``edits`` (``results`` their results, in the
    same order, changed in place); returns the plan and the planned edits still to write (an
    edit refused for a conflict with an earlier decision dropped)."""
    plan = DecisionPlan()
    view = locator.view
    wanted = [i for i, e in enumerate(edits) if e.action in DECISIONS or e.action in THREAD_ACTIONS]
    if not wanted:
        return plan, planned
    live = [i for i in wanted if results[i].error is None]
    if not live:
        return plan, planned
    if view.working is None:
        for i in live:
            _refuse(
                results[i],
                EditStatus.UNSUPPORTED,
                "A verify-only streamed view holds no tracked changes or comments to decide.",
                "Run without --stream to check decisions.",
            )
        return plan, planned
    annotations = read_annotations(package, view)
    extras = _extra_revisions(view, package, {r.element for r in annotations.revisions})
    everything = [*annotations.revisions, *extras]
    claimed: dict[etree._Element, int] = {}  # element -> the entry that decides it
    edit_ranges = [(p.start, p.end, p.edit_index) for p in planned]
    dropped: set[int] = set()
    resolved: set[str] = set()
    index: _Threads | None = None  # the threads, read once for every thread entry
    by_key: dict[str, list[Revision]] | None = None  # the revisions by id number, once
    move_ranges: dict[str, _MoveRanges] = {}
    removing: dict[etree._Element, int] = {}  # what an entry's decision removes -> that entry
    by_element = {r.element: r for r in everything if r.element is not None}
    verdicts: dict[int, bool] = {}  # entry -> accepted
    one_change: dict[str, bool] = {}  # an id several elements carry -> whether they are one change
    for i in live:
        edit, result = edits[i], results[i]
        if edit.action in THREAD_ACTIONS:
            if index is None:
                index = _Threads(annotations.comments)
            thread = _thread(locator, annotations, edit, result, resolved, index)
            if thread is not None:
                thread.edit_index = result.index
                plan.threads.append(thread)
                anchor = thread.root
                if thread.text is not None and anchor.part is not None:  # a reply: marks in the text
                    plan.parts.add(anchor.part)
                    spans = _mark_spans(view, anchor)
                    if spans is None:
                        plan.whole_parts.add(anchor.part)
                    else:
                        plan.ranges.extend(spans)
            continue
        if edit.revision_id is not None and by_key is None:  # (ids looked up by number, once)
            by_key = {}
            for r in everything:
                by_key.setdefault(id_key(r.id), []).append(r)
        targets = _targets(locator, everything, edit, result, own_author, one_change, by_key)
        if targets is None:
            continue
        moved = _with_moves(locator, targets, everything, result, move_ranges)
        if moved is None:
            continue
        group, ranges = moved
        hollows: list[Revision] = []
        if edit.author is not None and targets:  # their empty insertions and deletions go too
            hollow = [r for r in annotations.empty if r.author == targets[0].author]
            if hollow:
                hollows = hollow
                group = [*group, *hollow]
                result.notes.append(
                    f"{len(hollow)} empty insertion or deletion element(s) of theirs (holding "
                    "nothing, so changing nothing and not listed) removed with them"
                )
        # two decisions on one change: the later refused (a change inside another one is
        # decided on its own, as Word decides it: issue 30)
        clash = next((claimed[t.element] for t in group if t.element in claimed), None)
        accept = edit.action == _ACCEPTED
        if clash is not None and _same_move(group, claimed, accept, verdicts):
            result.notes.append(
                f"r{targets[0].id} is one side of a move edit {clash} of this reply already "
                f"{'accepts' if accept else 'rejects'} whole (both sides): nothing more to do"
            )
            result.locations = [locator.location(t.start, t.end) for t in group if t.paragraph is not None]
            continue
        if clash is not None:
            _refuse(
                result,
                EditStatus.OVERLAP,
                f"Edit {clash} of this reply already decides this tracked change; a change is decided once.",
                "Drop this entry, or the earlier one.",
                related=[clash],
            )
            continue
        # a decision and an edit on touching text: the later entry of the reply is refused
        spans = [(t.start, t.end) for t in group if t.paragraph is not None]
        hit = sorted(
            {k for s, e, k in edit_ranges for a, b in spans if s <= b and e >= a and k not in dropped}
        )
        earlier = [k for k in hit if k < result.index]
        if earlier:
            _refuse(
                result,
                EditStatus.OVERLAP,
                f"Edit {earlier[0]} of this reply changes (or comments on) text this tracked change "
                "covers or touches; the earlier entry stands.",
                "Decide the change in a later call, once the edit is written, or drop the edit "
                "and decide first.",
                related=earlier,
            )
            continue
        for k in hit:  # later edits on this text: refused
            dropped.add(k)
            later = next(r for r in results if r.index == k)
            _refuse(
                later,
                EditStatus.OVERLAP,
                f"Edit {result.index} of this reply decides a tracked change this passage touches; "
                "the earlier entry stands.",
                "Send this edit again in a later call, quoting the text as it reads after the decision.",
                candidates=later.locations[:MAX_CANDIDATES],
                related=[result.index],
            )
        for t in group:
            if t.element is not None:
                claimed[t.element] = result.index
        verdicts[result.index] = accept
        _nesting_notes(group, edit.action == _ACCEPTED, by_element, removing, result)
        plan.decisions.append(_Decision(result.index, edit.action == _ACCEPTED, group, ranges))
        for t in group:
            plan.parts.add(t.part)
            if t.paragraph is None or not _placed(view, t):
                plan.whole_parts.add(t.part)  # (a paragraph the view dropped, a section's...)
                continue
            end = t.end
            if t.kind in (RevisionKind.PARAGRAPH_INSERT, RevisionKind.PARAGRAPH_DELETE) or (
                t.text == "\n" and t.kind in (RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO)
            ):
                nxt = t.paragraph + 1
                if nxt < len(view.paragraphs):
                    end = max(end, view.paragraphs[nxt].start)
            para = view.paragraphs[t.paragraph]
            plan.ranges.append((min(t.start, para.start), max(end, para.end)))
        placed = [t for t in group if t.paragraph is not None and all(t is not h for h in hollows)]
        # bounded as an anchor's matches are: 10,000 changes decided were a 2 MB report
        result.locations = [locator.location(t.start, t.end) for t in placed[:MAX_MATCHES]]
        if len(placed) > MAX_MATCHES:
            result.notes.append(
                f"The first {MAX_MATCHES:,} of the {len(placed):,} places decided are listed in locations."
            )
        verb = "Accepted" if edit.action == _ACCEPTED else "Rejected"
        if edit.author is not None:
            result.notes.append(
                f"{verb} {len(targets)} tracked change(s) by {_cut(targets[0].author)}: "
                + ", ".join(f"r{t.id}" for t in targets[:MAX_CANDIDATES])
                + (f" and {len(targets) - MAX_CANDIDATES} more" if len(targets) > MAX_CANDIDATES else "")
            )
        else:
            t = targets[0]
            also = [
                f"r{m.id}"
                for m in group
                if m is not t and m.kind in (RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO)
            ]
            result.notes.append(
                f"{verb} r{t.id} ({_describe(t)})"
                + (f", with the other side of the move ({', '.join(also)})" if also else "")
            )
    for i in live:  # a decision carries no comment of its own: its rationale is said here
        rationale = edits[i].rationale
        if rationale and results[i].error is None:
            results[i].notes.append(
                f"Rationale (recorded here; a decision adds no comment): \u201c{rationale}\u201d"
            )
    kept = [p for p in planned if p.edit_index not in dropped]
    return plan, kept


_COMMENT_MARKS = (w("commentRangeStart"), w("commentRangeEnd"), w("commentReference"))


def _mark_spans(view: DocumentView, c: DocComment) -> list[tuple[int, int]] | None:
    """The view ranges of the paragraphs that hold comment ``c``'s range marks and reference
    (a reply's marks go beside them), or None when one stands outside the view's paragraphs
    (between paragraphs, say): the part is then serialised whole."""
    if c.paragraph is None or c.part is None or view.working is None:
        return None
    root = view.working.xml(c.part)
    holders = []
    for el in root.iter(*_COMMENT_MARKS):
        if same_id(el.get(_ID), c.id):
            holder = ancestor(el, _P)
            if holder is None:
                return None
            holders.append(holder)
    paras = view.paragraphs
    lo, hi = max(0, c.paragraph - 2), min(len(paras), view.paragraph_at(max(c.start, c.end)).index + 4)
    index = {id(paras[k].element): k for k in range(lo, hi)}
    spans = []
    for holder in holders:
        k = index.get(id(holder))
        if k is None:
            return None
        spans.append((paras[k].start, paras[k].end))
    return spans or None


def _reply_has_place(view: DocumentView, c: DocComment) -> bool:
    """Whether the writer can put a reply's marks beside comment ``c``'s: ``c`` has a range
    end, or a reference in a run, in its part (a range that only starts has neither).  Checked
    here so that the writer never meets a thread it cannot anchor: there, that is a bug."""
    if view.working is None or c.part is None:
        return True
    for el in view.working.xml(c.part).iter(w("commentRangeEnd"), w("commentReference")):
        if same_id(el.get(_ID), c.id):
            holder = el.getparent()
            if el.tag == w("commentRangeEnd") or (holder is not None and holder.tag == w("r")):
                return True
    return False


def _placed(view: DocumentView, t: Revision) -> bool:
    """Whether writing ``t``'s decision changes only its view paragraph (and, joining, the
    next one): its element lies in that paragraph's element, so the splice finds every change
    there."""
    el = t.element
    if el is None or t.paragraph is None:
        return False
    paras = view.paragraphs
    p_el = paras[t.paragraph].element
    holder = el if el.tag == _P else ancestor(el, _P)
    if holder is None:
        return False  # a row's (the splice places paragraphs, not rows)
    if holder is not p_el:
        return False
    if place_of(el) == "mark":  # a join moves its content into the next paragraph
        nxt = holder.getnext()
        k = t.paragraph + 1
        return nxt is None or nxt.tag != _P or (k < len(paras) and paras[k].element is nxt)
    return True


def _refuse(
    result: ResultRecord, status: EditStatus, message: str, hint: str | None, **extra: object
) -> None:
    result.status = status
    result.error = RefusalRecord.of_values({"code": status.code, "message": message, "hint": hint, **extra})


def _describe(rev: Revision) -> str:
    text = " ".join(rev.text.split())
    shown = f": \u201c{text[:60]}{'…' if len(text) > 60 else ''}\u201d" if text and rev.text != "\n" else ""
    who = f" by {_cut(rev.author)}" if rev.author else ""
    return f"{_WORD.get(rev.kind, rev.kind.value)}{who}{shown}"


def _lookup(ident: str, ids: list[str]) -> tuple[str | None, str | None]:
    """``ident`` as the document has it (as written; "r12" / "c4" as the marked-up text shows
    them, read as "12" / "4"; by number, as Word reads ids: "5" finds ``w:id="0005"``), and a
    note when read so; None when no such id."""
    if ident in ids:
        return ident, None
    shown = _SHOWN.fullmatch(ident.strip())
    if shown is not None and shown.group(1) in ids:
        return shown.group(1), f"read the id {ident!r} as {shown.group(1)!r}, as the marked-up text shows it"
    if ident.strip() in ids:
        return ident.strip(), None
    number = id_number(shown.group(1) if shown is not None else ident)
    if number is not None:
        for x in ids:
            if id_number(x) == number:
                return x, f"read the id {ident!r} as the document's {x!r}, the same number"
    return None, None


def _nearest_ids(ident: str, ids: list[str]) -> list[str]:
    digits = _SHOWN.fullmatch(ident.strip())
    n = id_number(digits.group(1) if digits else ident)
    if n is not None:
        numbers = {x: id_number(x) for x in dict.fromkeys(ids)}
        return sorted(numbers, key=lambda x: (numbers[x] is None, abs((numbers[x] or 0) - n), x))
    number = ident.strip()
    return sorted(dict.fromkeys(ids), key=lambda x: (not x.startswith(number[:1]), x))


def _targets(
    locator: Locator,
    everything: list[Revision],
    edit: EditRecord,
    result: ResultRecord,
    own: str,
    one_change: dict[str, bool] | None = None,
    by_key: dict[str, list[Revision]] | None = None,
) -> list[Revision] | None:
    """The tracked changes ``edit`` decides, or None (``result`` refused)."""
    verb = edit.action or ""
    if edit.revision_id is not None:
        ids = [r.id for r in everything]
        rid, note = _lookup(edit.revision_id, ids)
        if rid is None:
            near = _nearest_ids(edit.revision_id, ids)[:8]
            listed = "; ".join(f"r{x} ({_describe(next(r for r in everything if r.id == x))})" for x in near)
            _refuse(
                result,
                EditStatus.NOT_FOUND,
                f"The document has no tracked change with id {edit.revision_id!r}.",
                (
                    f"Use an id the marked-up text shows ([r12 Name] is revision_id '12'); nearest: {listed}."
                    if listed
                    else "The document has no tracked changes: there is nothing to accept or reject."
                ),
            )
            return None
        if note:
            result.notes.append(note)
        if by_key is not None:
            found = list(by_key.get(id_key(rid), ()))
        else:
            found = [r for r in everything if same_id(r.id, rid)]
        seen = one_change if one_change is not None else {}
        if len(found) > 1 and rid not in seen:
            seen[rid] = _one_change(found)  # (once per id: it walks the part)
        if len(found) > 1 and seen[rid]:
            what = (
                "pieces of one run's formatting change, the same old properties"
                if found[0].kind is RevisionKind.FORMAT
                else "a paragraph's content and its mark"
            )
            result.notes.append(
                f"r{rid} is one change written as {len(found)} elements ({what}, one id, author "
                "and date, one after the other): decided together"
            )
            return found
        if len(found) > 1:
            _refuse(
                result,
                EditStatus.AMBIGUOUS,
                f"{len(found)} tracked changes carry the id {rid!r} "
                f"({'; '.join(_describe(r) for r in found[:5])}); which one is meant cannot be told."
                + _unlisted(found),
                "Decide them by `author` (every change of that author), or in Word.",
                **_bounded_candidates(locator, found),
            )
            return None
        rev = found[0]
        if verb == _ACCEPTED and rev.author is not None and rev.author == own:
            _refuse(
                result,
                EditStatus.UNSUPPORTED,
                f"Tracked change r{rid} is your own ({own}): accepting it would make it part of the "
                "text without the other side seeing it as a change.",
                f'To withdraw it, reject it ({{"action": "reject", "revision_id": "{rid}"}}); '
                "to keep proposing it, leave it.",
            )
            return None
        if _cell_removal(rev, verb == _ACCEPTED):
            _refuse(
                result,
                EditStatus.UNSUPPORTED,
                f"Tracked change r{rid} is an {_WORD[rev.kind]} (w:"
                + ("cellIns" if rev.kind is RevisionKind.CELL_INSERT else "cellDel")
                + f"); to {verb} it removes the cell from its row, and the cell is part of a "
                "vertical merge (w:vMerge), whose cells above or below it would lose their "
                "place; that is left to Word.",
                "Decide it in Word, or decide the table's other changes here.",
            )
            return None
        return [rev]
    assert edit.author is not None
    name = edit.author
    mine = [r for r in everything if r.author == name]
    if not mine:
        # authors are compared exactly; a name that matches only once case and spacing are
        # folded is read as that author when just one author matches so, and is ambiguous
        # when several do ("Opp" and "opp" are two people as far as the document says)
        folded = _fold(name)
        near = sorted({r.author for r in everything if r.author is not None and _fold(r.author) == folded})
        if len(near) > 1:
            per = {a: sum(1 for r in everything if r.author == a) for a in near}
            _refuse(
                result,
                EditStatus.AMBIGUOUS,
                f"No tracked change is by {_cut(name)!r} exactly, and {len(near)} authors match it once case "
                "and spacing are ignored: "
                + ", ".join(f"{_cut(a)!r} ({per[a]})" for a in near[:MAX_CANDIDATES])
                + (f" and {len(near) - MAX_CANDIDATES} more" if len(near) > MAX_CANDIDATES else "")
                + "; which one is meant cannot be told.",
                "Name the author exactly as the marked-up text shows them (one entry per author).",
                actual_matches=sum(per.values()),
            )
            return None
        if near:
            mine = [r for r in everything if r.author == near[0]]
            result.notes.append(
                f"read the author {_cut(name)!r} as {_cut(near[0])!r}, the one author of that name "
                "once case and spacing are ignored"
            )
    if not mine:
        counts: dict[str, int] = {}
        for r in everything:
            counts[r.author or "(no author)"] = counts.get(r.author or "(no author)", 0) + 1
        listed = ", ".join(f"{_cut(a)} ({n})" for a, n in sorted(counts.items(), key=lambda kv: -kv[1])[:10])
        _refuse(
            result,
            EditStatus.NOT_FOUND,
            f"No tracked change in the document is by {_cut(name)!r}.",
            f"Name an author as the marked-up text shows them; the authors with changes: {listed}."
            if listed
            else "The document has no tracked changes.",
        )
        return None
    if verb == _ACCEPTED and mine[0].author == own:
        _refuse(
            result,
            EditStatus.UNSUPPORTED,
            f"The changes by {own} are your own: accepting them would make them part of the text "
            "without the other side seeing them as changes.",
            "Reject them to withdraw them, or leave them.",
        )
        return None
    cells = [r for r in mine if _cell_removal(r, verb == _ACCEPTED)]
    if cells:
        _refuse(
            result,
            EditStatus.UNSUPPORTED,
            f"{len(cells)} of the changes by {_cut(name)} are an inserted or deleted table cell "
            "(w:cellIns / w:cellDel: "
            + ", ".join(f"r{r.id}" for r in cells[:5])
            + f") in a vertical merge (w:vMerge); to {verb} them removes cells other cells are "
            "merged with, which is left to Word.",
            "Decide the other changes one by one, by revision_id.",
        )
        return None
    count = len(mine)
    if edit.expected_matches is not None and count != edit.expected_matches:
        _refuse(
            result,
            EditStatus.COUNT_MISMATCH,
            f"You expected {edit.expected_matches} tracked change(s) by {_cut(name)}, but the document "
            f"has {count}." + _unlisted(mine),
            f"Set expected_matches to {count} to {verb} all of them, or decide them one by one "
            "by revision_id.",
            **_bounded_candidates(locator, mine),
        )
        return None
    return mine


def _fold(name: str) -> str:
    """An author's name with case and spacing folded (only to find near misses)."""
    return "".join(name.split()).casefold()


def _cell_removal(rev: Revision, accept: bool) -> bool:
    """Whether deciding ``rev`` would remove a table cell that is part of a vertical merge
    (refused: the merge's other cells would lose their place).  Other cells are removed as
    Word removes them (:func:`removes`)."""
    el = rev.element
    if el is None:
        return False
    removing = (rev.kind is RevisionKind.CELL_INSERT and not accept) or (
        rev.kind is RevisionKind.CELL_DELETE and accept
    )
    tcpr = el.getparent()
    return removing and tcpr is not None and tcpr.find(w("vMerge")) is not None


@dataclass
class _MoveRanges:
    """A story part's move ranges: each move-side element's range start (the innermost range
    of its side open where it stands), and every range start, in document order."""

    of: dict[etree._Element, etree._Element]
    starts: list[etree._Element]
    named: dict[tuple[str, str], list[etree._Element]] = field(default_factory=dict)  # (tag, name)


def _read_move_ranges(root: etree._Element) -> _MoveRanges:
    """A range is opened by its start and closed by the first end of its side with the same
    ``w:id`` after it (ECMA-376 Part 1, §17.13.5.22-.28); a range id is not trusted to be
    unique in the part, so ranges are told apart by their start elements."""
    opened: dict[str, list[etree._Element]] = {_FROM_START: [], _TO_START: []}  # per side, in order
    of: dict[etree._Element, etree._Element] = {}
    starts: list[etree._Element] = []
    named: dict[tuple[str, str], list[etree._Element]] = {}
    for el in root.iter(*_OTHER_SIDE, *_RANGE_ENDS, *_SIDE_START):
        tag = el.tag
        if tag in _OTHER_SIDE:
            opened[tag].append(el)
            starts.append(el)
            named.setdefault((tag, el.get(_NAME) or ""), []).append(el)
        elif tag in _RANGE_ENDS:
            side, rid = opened[_RANGE_ENDS[tag]], el.get(_ID)
            for k in range(len(side) - 1, -1, -1):  # (the innermost open range of that id)
                if same_id(side[k].get(_ID), rid):
                    del side[k]
                    break
        elif opened[_SIDE_START[tag]]:
            of[el] = opened[_SIDE_START[tag]][-1]
    return _MoveRanges(of, starts, named)


def _partner(
    start: etree._Element, ranges: _MoveRanges
) -> tuple[etree._Element | None, list[etree._Element]]:
    """The other side of the move whose range starts at ``start``: (the other side's range
    start or None, and the ranges it could be when that cannot be told).

    The name (``w:name``) links a move's two sides; a name that one source range and one
    destination range carry pairs them.  A name several moves share pairs two ranges only when
    they are the only ones of that name by their author; otherwise the pairing is ambiguous --
    never widened to every range of the name."""
    name = start.get(_NAME)
    if not name:
        return None, []
    same = ranges.named.get((start.tag, name), [])
    other = ranges.named.get((_OTHER_SIDE[start.tag], name), [])
    if not other:
        return None, []
    if len(same) == 1 and len(other) == 1:
        return other[0], []
    author = start.get(_AUTHOR)
    same_by = [s for s in same if s.get(_AUTHOR) == author]
    other_by = [s for s in other if s.get(_AUTHOR) == author]
    if author is not None and len(same_by) == 1 and len(other_by) == 1:
        return other_by[0], []
    return None, other


def _with_moves(
    locator: Locator,
    targets: list[Revision],
    everything: list[Revision],
    result: ResultRecord,
    cache: dict[str, _MoveRanges],
) -> tuple[list[Revision], list[etree._Element]] | None:
    """``targets`` with the rest of each move they hold (a move is decided whole: its range on
    both sides, found by range, :func:`_partner`), and the range starts decided; None when a
    move's other side cannot be told (``result`` refused ``ambiguous``)."""
    out = list({id(t): t for t in targets}.values())
    moved = (RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO)
    view = locator.view
    if view.working is None:
        return out, []
    chosen: dict[etree._Element, str] = {}  # range start -> its part
    for t in out:
        if t.kind not in moved or t.element is None:
            continue
        if t.part not in cache:
            cache[t.part] = _read_move_ranges(view.working.xml(t.part))
        ranges = cache[t.part]
        start = ranges.of.get(t.element)
        if start is None or start in chosen:
            continue
        chosen[start] = t.part
        other, could_be = _partner(start, ranges)
        if could_be:
            inside = [
                r for r in everything
                if r.part == t.part and r.element is not None and ranges.of.get(r.element) in could_be
            ]  # fmt: skip
            shown = [f"r{r.id} ({_describe(r)})" for r in inside[:5]]
            _refuse(
                result,
                EditStatus.AMBIGUOUS,
                f"Tracked change r{t.id} is one side of a move named {_cut(start.get(_NAME))!r}, a name "
                f"{len(could_be) + 1} or more unrelated moves share; which is its other side cannot be "
                f"told (it could be {'; '.join(shown) or 'any of them'})." + _unlisted(inside),
                "Decide this move in Word, or decide the document's other changes here.",
                **_bounded_candidates(locator, inside),
            )
            return None
        if other is not None:
            chosen[other] = t.part
    if chosen:
        seen = {id(t) for t in out}
        for r in everything:
            if id(r) in seen or r.kind not in moved or r.element is None or r.part not in cache:
                continue
            if cache[r.part].of.get(r.element) in chosen:
                out.append(r)
                seen.add(id(r))
    return out, list(chosen)


def _unlisted(revisions: list[Revision]) -> str:
    """What a refusal's message says of the candidates it does not list (nothing when all are)."""
    placed = sum(1 for r in revisions if r.paragraph is not None)
    if placed <= MAX_CANDIDATES:
        return ""
    return f" (the first {MAX_CANDIDATES} are listed as candidates; {placed - MAX_CANDIDATES:,} more are not)"


def _bounded_candidates(locator: Locator, revisions: list[Revision]) -> dict[str, object]:
    """A refusal's ``candidates`` (at most :data:`MAX_CANDIDATES`) and ``actual_matches``
    (all of them); the message says how many are not listed."""
    placed = [r for r in revisions if r.paragraph is not None]
    return {
        "candidates": [locator.location(r.start, r.end) for r in placed[:MAX_CANDIDATES]],
        "actual_matches": len(revisions),
    }


_INSERTED = (RevisionKind.INSERT, RevisionKind.PARAGRAPH_INSERT)
_DELETED = (RevisionKind.DELETE, RevisionKind.PARAGRAPH_DELETE)
_TOKENS = frozenset(
    w(t)
    for t in (
        "t", "delText", "tab", "br", "cr", "sym", "drawing", "pict", "object", "noBreakHyphen",
        "softHyphen", "footnoteReference", "endnoteReference", "ptab",
    )
)  # fmt: skip
_HIDDEN_IN = {
    True: (w("del"), w("moveFrom")),  # reading what an insertion adds: deleted text is not there
    False: (w("ins"), w("moveTo")),  # reading what a deletion takes: inserted text is not there
}


def _one_change(found: list[Revision]) -> bool:
    """Whether the revisions one id names are one change: a paragraph's content and its own
    mark (adeu writes a deleted paragraph so) -- the same author and date, all insertions or
    all deletions, in one part, and either each piece of content in a paragraph whose own
    mark is one of them, or nothing else between them in the text they insert (or delete): no
    text or paragraph mark of another change or of the kept text.  Formatting changes alone:
    :func:`_one_format_change`."""
    first = found[0]
    kinds = {r.kind for r in found}
    if kinds == {RevisionKind.FORMAT}:
        return _one_format_change(found)
    if not (kinds <= set(_INSERTED) or kinds <= set(_DELETED)):
        return False
    if any(r.author != first.author or r.date != first.date or r.part != first.part for r in found):
        return False
    if not any(r.kind in (RevisionKind.PARAGRAPH_INSERT, RevisionKind.PARAGRAPH_DELETE) for r in found):
        return False
    elements = [r.element for r in found]
    if any(el is None or el.getparent() is None for el in elements):
        return False
    assert first.element is not None
    members = set(elements)
    marks_of = {ancestor(el, _P) for el in elements if el is not None and place_of(el) == "mark"}
    if all(el is not None and (place_of(el) == "mark" or ancestor(el, _P) in marks_of) for el in elements):
        return True  # each piece of content in a paragraph whose own mark is the change's
    hidden = _HIDDEN_IN[kinds <= set(_INSERTED)]
    seen: list[bool] = []  # each visible token: whether it is the change's
    root = whole_root(first.element)
    for _event, el in etree.iterwalk(root, events=("end",)):
        tag = el.tag
        if tag == _P:  # the mark ends the paragraph
            ppr = el.find(_PPR)
            rpr = ppr.find(_RPR) if ppr is not None else None
            marks = (
                [c for c in rpr if c.tag in (*_HIDDEN_IN[True], *_HIDDEN_IN[False])]
                if rpr is not None
                else []
            )
            if any(m.tag in hidden for m in marks):
                continue
            seen.append(any(m in members for m in marks))
        elif tag in _TOKENS:
            mine = False
            node = el.getparent()
            skip = False
            while node is not None and node is not root:
                if node in members:
                    mine = True
                elif node.tag in hidden:
                    skip = True
                    break
                node = node.getparent()
            if not skip:
                seen.append(mine)
    at = [k for k, mine in enumerate(seen) if mine]
    return bool(at) and at[-1] - at[0] + 1 == len(at)


_ADDED = (w("ins"), w("moveTo"))


def _old_properties(el: etree._Element) -> bytes:
    old = el.find(_RPR)
    return etree.tostring(old) if old is not None else b""


def _one_format_change(found: list[Revision]) -> bool:
    """Whether the ``w:rPrChange`` records one id names are one formatting change: the pieces
    of one run that a tool split and whose properties it copied, id and all (our writer did
    before it gave each copy an id of its own) -- the same author and date, in one part, the
    same old properties, and nothing between them in the text but text added later (inside
    an insertion or a move's destination, any author's): no kept or deleted text, no
    paragraph mark, that is not formatted by one of them."""
    first = found[0]
    elements = [r.element for r in found]
    if any(el is None or el.tag != w("rPrChange") or place_of(el) not in ("run", "mark") for el in elements):
        return False
    if any(r.author != first.author or r.date != first.date or r.part != first.part for r in found):
        return False
    assert first.element is not None
    if len({_old_properties(el) for el in elements if el is not None}) != 1:
        return False
    holders = {el.getparent() for el in elements if el is not None}  # their w:rPr
    seen: list[bool] = []
    root = whole_root(first.element)
    for _event, el in etree.iterwalk(root, events=("end",)):
        tag = el.tag
        if tag == _P:
            ppr = el.find(_PPR)
            rpr = ppr.find(_RPR) if ppr is not None else None
            if rpr is not None and rpr in holders:
                seen.append(True)
            elif rpr is None or not any(c.tag in _ADDED for c in rpr):  # (an inserted mark: added)
                seen.append(False)
        elif tag in _TOKENS:
            run = el.getparent()
            rpr = run.find(_RPR) if run is not None else None
            if rpr is not None and rpr in holders:
                seen.append(True)
            elif next(el.iterancestors(*_ADDED), None) is None:
                seen.append(False)
    at = [k for k, mine in enumerate(seen) if mine]
    return bool(at) and at[-1] - at[0] + 1 == len(at)


def _same_move(
    group: list[Revision], claimed: dict[etree._Element, int], accept: bool, verdicts: dict[int, bool]
) -> bool:
    """Whether ``group`` is a move an earlier entry already decides whole, the same way (a
    move's two sides are listed by their own ids; deciding one decides both)."""
    moved = (RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO)
    if not group or any(t.kind not in moved or t.element is None for t in group):
        return False
    by = {claimed.get(t.element) for t in group if t.element is not None}
    return len(by) == 1 and None not in by and verdicts.get(next(iter(by)) or 0) == accept


def removes(rev: Revision, accept: bool) -> etree._Element | None:
    """What deciding ``rev`` removes together with everything it holds (nested revisions
    included, as Word removes them): its element (an insertion rejected, a deletion or a
    move's source accepted) or its table row (a row inserted rejected, deleted accepted);
    None when the decision removes nothing it holds."""
    el = rev.element
    if el is None:
        return None
    kind = rev.kind
    if kind in (RevisionKind.ROW_INSERT, RevisionKind.ROW_DELETE):
        return ancestor(el, w("tr")) if accept == (kind is RevisionKind.ROW_DELETE) else None
    if kind in (RevisionKind.CELL_INSERT, RevisionKind.CELL_DELETE):
        return ancestor(el, w("tc")) if accept == (kind is RevisionKind.CELL_DELETE) else None
    if place_of(el) != "content":
        return None
    if kind in (RevisionKind.INSERT, RevisionKind.MOVE_TO):
        return None if accept else el
    if kind in (RevisionKind.DELETE, RevisionKind.MOVE_FROM):
        return el if accept else None
    return None


def _nesting_notes(
    group: list[Revision],
    accept: bool,
    by_element: dict[etree._Element, Revision],
    removing: dict[etree._Element, int],
    result: ResultRecord,
) -> None:
    """Say what a decision removes with the changes it decides (the other revisions inside
    them), and which of its changes an earlier entry's decision already removed (they lay
    inside what that one removes); record what this one removes for the entries after it."""
    members = {id(t.element) for t in group if t.element is not None}
    went: dict[int, list[str]] = {}
    for t in group:
        node = t.element.getparent() if t.element is not None else None
        while node is not None:
            k = removing.get(node)
            if k is not None:
                went.setdefault(k, []).append(f"r{t.id}")
                break
            node = node.getparent()
    for k, ids in sorted(went.items()):
        result.notes.append(
            f"{_listed(ids)} lay inside what edit {k} of this reply removes: gone with it, as Word "
            "removes a change inside a removed one"
        )
    inner: list[str] = []
    for t in group:
        root = removes(t, accept)
        if root is None:
            continue
        removing.setdefault(root, result.index)
        for node in root.iter():
            rev = by_element.get(node)
            if rev is not None and id(node) not in members and node is not t.element:
                inner.append(f"r{rev.id} ({_describe(rev)})")
    if inner:
        result.notes.append(
            f"Removed with it, as Word removes them (they lie inside what it removes): {_listed(inner)}"
        )


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_CANDIDATES])
    return shown + (f" and {len(items) - MAX_CANDIDATES} more" if len(items) > MAX_CANDIDATES else "")


class _Threads:
    """Every comment's thread, found once (a chain of 10,000 replies walked once, not once a
    comment): ``root[id]`` the thread's first comment, ``replies[root id]`` its other comments
    in document order."""

    def __init__(self, comments: list[DocComment]) -> None:
        self.by_id = {c.id: c for c in comments}
        self.by_key: dict[str, list[DocComment]] = {}  # id number -> its comments, in order
        for c in comments:
            self.by_key.setdefault(id_key(c.id), []).append(c)
        self.root: dict[str, DocComment] = {}
        for c in comments:
            path: list[str] = []
            seen: set[str] = set()
            node = c
            while node.id not in self.root:
                path.append(node.id)
                seen.add(node.id)
                up = node.parent
                if up is None or up not in self.by_id or up in seen:  # (a circle: where it closes)
                    self.root[node.id] = node if up is None or up not in seen else self.by_id[up]
                    break
                node = self.by_id[up]
            top = self.root[node.id]
            for cid in path:
                self.root.setdefault(cid, top)
        self.replies: dict[str, list[DocComment]] = {}
        for c in comments:
            top = self.root[c.id]
            if c is not top:
                self.replies.setdefault(top.id, []).append(c)


def _thread(
    locator: Locator,
    annotations: Annotations,
    edit: EditRecord,
    result: ResultRecord,
    resolved: set[str],
    index: _Threads | None = None,
) -> Thread | None:
    assert edit.comment_id is not None
    comments = annotations.comments
    ids = [c.id for c in comments]
    cid, note = _lookup(edit.comment_id, ids)
    if cid is None:
        near = _nearest_ids(edit.comment_id, ids)[:8]
        listed = "; ".join(_comment_said(next(c for c in comments if c.id == x)) for x in near)
        _refuse(
            result,
            EditStatus.NOT_FOUND,
            f"The document has no comment with id {edit.comment_id!r}.",
            f"Use an id the marked-up text shows ([c4 Name] is comment_id '4'); nearest: {listed}."
            if listed
            else "The document has no comments: to start one, use the action 'comment' with an anchor.",
        )
        return None
    if note:
        result.notes.append(note)
    threads = index or _Threads(comments)
    found = list(threads.by_key.get(id_key(cid), ()))  # (as same_id reads them: by number)
    if len(found) > 1:
        _refuse(
            result,
            EditStatus.AMBIGUOUS,
            f"{len(found)} comments carry the id {cid!r} ({'; '.join(_comment_said(c) for c in found[:4])}); "
            "which one is meant cannot be told.",
            "Start a new comment on the passage instead (the action 'comment' with an anchor).",
            candidates=[locator.location(c.start, c.end) for c in found if c.paragraph is not None][
                :MAX_CANDIDATES
            ],
            actual_matches=len(found),
        )
        return None
    comment = found[0]
    root = threads.root[comment.id]
    if comment.paragraph is not None:
        result.locations = [locator.location(comment.start, comment.end)]
    replies = threads.replies.get(root.id, [])
    if edit.action == "reply":
        if comment is not root:
            _refuse(
                result,
                EditStatus.UNSUPPORTED,
                f"Comment c{cid} is itself a reply (to c{root.id}); Word threads replies under the "
                "thread's first comment only.",
                f'Reply to its parent instead: {{"action": "reply", "comment_id": "{root.id}", ...}}.',
            )
            return None
        if root.paragraph is None or root.part is None or not _reply_has_place(locator.view, root):
            _refuse(
                result,
                EditStatus.UNSUPPORTED,
                f"Comment c{cid} is anchored nowhere in the text, so a reply has no place.",
                "Start a new comment on the passage instead (the action 'comment' with an anchor).",
            )
            return None
        return Thread(result.index, comment, edit.text or "", root, replies)
    if root.resolved or root.id in resolved:
        _refuse(
            result,
            EditStatus.NO_CHANGE,
            f"The thread of comment c{root.id} is already resolved"
            + (" (by an earlier entry of this reply)." if root.id in resolved else "."),
            "Drop this entry.",
        )
        return None
    resolved.add(root.id)
    if comment is not root:
        result.notes.append(f"c{cid} is a reply: its whole thread (c{root.id}) is resolved")
    return Thread(result.index, comment, None, root, replies)


MAX_NAME = 80
"""The most characters of an author's name a message quotes (as the marked-up view shows it)."""


def _cut(name: str | None) -> str:
    """An author's name as a message quotes it: at most :data:`MAX_NAME` characters."""
    name = name or ""
    return name if len(name) <= MAX_NAME else name[:MAX_NAME] + "\u2026"


def _comment_said(c: DocComment) -> str:
    quote = " ".join(c.quote.split())
    text = " ".join(c.text.split())
    on = f" on \u201c{quote[:40]}{'…' if len(quote) > 40 else ''}\u201d" if quote else ""
    return f"c{c.id} ({c.author or 'no author'}{on}: \u201c{text[:40]}{'…' if len(text) > 40 else ''}\u201d)"


# -------------------------------------------------------------------------------------------
# Revision records the view does not list (formatting of sections, tables, rows, cells)


def _extra_revisions(
    view: DocumentView, package: Package, listed: set[etree._Element | None]
) -> list[Revision]:
    """Revision records the view's reading did not place (a story without paragraphs, say):
    still decided by id, each as what it is (:func:`redline.read.roles.record_kind`)."""
    from ..read.build import stories_of

    assert view.working is not None
    out: list[Revision] = []
    seen: set[etree._Element] = set()
    for story in stories_of(package, view.working):
        root = story.root
        if root is None:
            continue
        for el in root.iter(*_EXTRA_TAGS):
            if el in seen or el in listed:
                continue
            seen.add(el)
            kind = record_kind(el) or (
                RevisionKind.PARAGRAPH_FORMAT if el.tag == w("pPrChange") else RevisionKind.FORMAT
            )
            out.append(
                Revision(
                    el.get(_ID) or "", kind, el.get(_AUTHOR), el.get(w("date")),
                    "", None, story.part, 0, 0, None, el,
                )
            )  # fmt: skip
    return out


def place_of(el: etree._Element) -> str:
    """Where the revision record ``el`` stands: ``"mark"`` (a paragraph mark's), ``"run"``,
    ``"row"``, ``"cell"``, ``"content"``, or ``"gone"`` (no longer in a tree)."""
    parent = el.getparent()
    if parent is None:
        return "gone"
    if parent.tag == _RPR:
        grand = parent.getparent()
        return "mark" if grand is not None and grand.tag == _PPR else "run"
    if parent.tag == w("trPr"):
        return "row"
    if parent.tag == w("tcPr"):
        return "cell"
    return "content"
