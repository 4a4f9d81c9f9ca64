"""Write located edits into the document's XML as native Word tracked changes.

The writer is the only module that turns view offsets back into WordprocessingML.  For each
planned range it

1. diffs the located text against the replacement at word level (punctuation its own token),
   comparing tokens under the tolerant normalisation, so unchanged parts keep the document's
   own characters (its curly quotes, NBSPs and en dashes); new text follows the document's
   quote convention when the document has a clear one;
2. isolates exactly the text each change covers into runs of its own, splitting runs only at
   the change boundaries and keeping every run's properties (ECMA-376 Part 1, §17.3.2);
3. wraps deleted runs in ``w:del`` with ``w:delText`` (§17.13.5.14, §17.3.3.7), adds new runs
   in ``w:ins`` (§17.13.5.18) that copy the formatting of the text they replace (or of the run
   they follow), and marks deleted and inserted paragraph marks in ``w:pPr/w:rPr``
   (§17.13.5.15, §17.13.5.16); a line break in new text makes a new paragraph with the same
   paragraph properties;
4. optionally anchors a comment holding the edit's rationale around the change (§17.13.4).

Ranges, and the changes inside a range, are written from the last to the first.  A split
always leaves the text before the cut in the original element, so the view's map stays valid
for everything still to be written.

Another author's revisions are respected: new text never lands inside their ``w:ins`` (it is
split around ours), deleting their inserted text nests our ``w:del`` inside their ``w:ins``
(as Word does), so rejecting every revision still gives the original.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Literal

from lxml import etree

from ..match.crossref import bookmark, place_fields
from ..match.fields import lift_typed_text
from ..match.verify import Planned
from ..opc.namespaces import W_NS, w
from ..read.ids import MAX_ID, id_number
from ..read.notes import NOTE_STORIES, NoteReference, reference_of
from ..read.view import DocumentView, Piece, SpanFlag, SpanKind
from ..text.typography import ALL_QUOTES, follow_quotes, guillemet_space, quote_style
from ..text.worddiff import diff_opcodes as diff_opcodes  # re-exported: the writer's diff
from ..text.worddiff import word_diff as word_diff
from .options import Comment as Comment  # re-exported: moved to redline.write.options
from .options import WriteOptions as WriteOptions
from .options import WriteResult as WriteResult
from .renumber import Renumbering
from .runs import (
    cut_after,
    cut_before,
    depth,
    first_content_index,
    fresh_ids,
    isolate_child,
    isolate_text,
    mark_deleted,
    mark_rpr,
    ppr_of,
    preserve_text,
    run_properties,
    set_ilvl,
    shallow_copy,
)
from .splice import Splice
from .tree import in_removed_run, next_paragraph, pull_next, remove, unfold_simple

# The writers of format entries, table rows and clause moves (redline.write.formatting, .rows,
# .moves) are imported by the write that has such a range: plain edits pay neither their
# modules nor their planners' (issue 32).

_R, _T, _RPR, _PPR, _P = w("r"), w("t"), w("rPr"), w("pPr"), w("p")
_INS, _DEL, _DEL_TEXT = w("ins"), w("del"), w("delText")
_MOVE_FROM, _MOVE_TO = w("moveFrom"), w("moveTo")
_TAB, _BR = w("tab"), w("br")
_SECT_PR, _PPR_CHANGE, _RPR_CHANGE = w("sectPr"), w("pPrChange"), w("rPrChange")
_SDT_CONTENT = w("sdtContent")
_NUM_REVISIONS = (f"{w('numPr')}/{_INS}", f"{w('numPr')}/{w('numberingChange')}")
_FLD_SIMPLE = w("fldSimple")
_ID, _AUTHOR, _DATE = w("id"), w("author"), w("date")
_W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
_PARA_IDS = (f"{{{_W14}}}paraId", f"{{{_W14}}}textId")
_MARK_REVISIONS = (_INS, _DEL, _MOVE_FROM, _MOVE_TO)
# Inline containers a new paragraph mark or our revision may split in two (the second half
# gets the same attributes and properties; a revision's half gets a new w:id).
_SPLITTABLE = {
    w("hyperlink"), w("smartTag"), w("customXml"), w("dir"), w("bdo"), _INS, _MOVE_TO,
}  # fmt: skip
_BLANK_LINES = re.compile(r"\n(?:[ \t\u00a0]*\n)+")
_TAB_OR_BREAK = re.compile(r"(\t|\n)")
_NSMAP = {"w": W_NS}

Where = Literal["after", "before", "start", "end"]


@dataclass
class _Atom:
    """A piece of a changed range, alone in its own run (or a paragraph mark)."""

    node: etree._Element  # the w:r, or the w:p whose mark this is
    mark: bool
    size: int


@dataclass
class _Spot:
    """Where new content goes: next to ``ref``, or at the start / end of ``ref`` (a paragraph,
    or the second half of a container split by a new paragraph mark)."""

    ref: etree._Element
    where: Where
    fmt: etree._Element | None  # the w:r (or mark w:rPr) whose properties new text copies


class MarkupOverflow(Exception):
    """The output would hold more tags than :attr:`redline.opc.zipread.Limits.max_markup`:
    found while it is written (:attr:`Writer.room`), or counted in its parts' bytes before
    they are zipped (:func:`redline.write.publish.write_and_check`)."""


class Writer:
    """Writes planned ranges into the trees the view was built from (mutating them).

    ``room``: how many tags the writer may add before the output is certainly over the
    loader's tag limit (None: not counted); each revision mark and new run it makes counts
    the fewest ``<`` it can be written with, and once they are more than ``room`` it raises
    :class:`MarkupOverflow` -- a write that differs everywhere stops there instead of
    building the whole tree first (the read-back counts exactly)."""

    room: int | None = None
    slack: Callable[[], int] | None = None
    """Tags the output may lose once serialised, asked for when ``room`` first runs out."""

    def __init__(
        self, view: DocumentView, options: WriteOptions, next_id: int | Ids, splice: Splice | None = None
    ) -> None:
        self.view = view
        self.options = options
        self.splice = splice  # told what each write may change, before it changes anything
        self.stamp = options.stamp()
        # ``next_id``: the ids to take (an int: the ids above it)
        self._ids = next_id if isinstance(next_id, Ids) else Ids((next_id,))
        self.result = WriteResult()
        self._quotes: str | None = None
        self._space = ""  # inside French guillemets
        self._quotes_known = False
        self._ours: set[etree._Element] = set()  # the w:ins / w:del wrappers we made
        self._doomed: list[etree._Element] = []  # untracked: runs removed once a range is done
        self._numbering = Renumbering(view)  # the written document's paragraphs, predicted
        # view offset -> the first thing a later range inserted there (an earlier range's
        # text for the same offset goes before it)
        self._inserted_at: dict[int, etree._Element] = {}
        self._ref_names: dict[int, str] = {}  # view paragraph -> its bookmark for new REF fields
        self._inserted_after: dict[int, etree._Element] = {}  # view paragraph -> its last insert_after
        # edit index -> the body reference mark of the note its comment is about (None: none)
        self._note_refs: dict[int, NoteReference | None] = {}
        self._rows_after: dict[etree._Element, etree._Element] = {}  # w:tr -> its last insert_row_after

    @property
    def quotes(self) -> str | None:
        """The document's quote convention (:func:`quote_style`), found when first needed."""
        if not self._quotes_known:
            self._quotes = quote_style(self.view.text)
            if self._quotes == "french":
                self._space = guillemet_space(self.view.text)
            self._quotes_known = True
        return self._quotes

    def _typeset(self, text: str, before: str) -> str:
        """New text's quotes and apostrophes in the document's convention."""
        style = self.quotes
        return follow_quotes(text, style, before, self._space)

    def new_id(self) -> str:
        return self._ids()

    def made(self, el: etree._Element) -> bool:
        """Is ``el`` a revision wrapper (``w:ins`` / ``w:del``, a mark's too) this writer made?"""
        return el in self._ours

    def write(self, planned: Iterable[Planned], also: Iterable[tuple[int, int]] = ()) -> WriteResult:
        """Write ``planned``; ``also``: view ranges something else changes in the same trees
        afterwards (decisions, comment threads), for the splice to serialise too."""
        ordered = sorted((self._with_marks(p) for p in planned), key=lambda p: p.start, reverse=True)
        # the clauses new cross-references refer to get a bookmark (redline.match.crossref)
        targets = sorted({ref.target for p in ordered for ref in p.refs})
        notes = [self._note_ref(p) for p in ordered]
        if self.splice is not None:
            spans = [*((p.start, p.end) for p in ordered), *also]
            spans += [(self.view.paragraphs[t].start, self.view.paragraphs[t].end) for t in targets]
            spans += [
                (self.view.paragraphs[r.paragraph].start, self.view.paragraphs[r.paragraph].end)
                for r in notes
                if r is not None
            ]
            spans += [span for p in ordered if p.move is not None for span in p.move.spans]
            self.splice.plan(spans, joins=not self.options.track)
        for target in targets:
            self._ref_names[target] = bookmark(self.view, target, self.new_id)
            self.result.touched_parts.add(self.view.paragraphs[target].part)
        for plan in ordered:
            self._write_one(plan)
        self.result.touched_paragraphs = self._numbering.touched_paragraphs()
        return self.result

    def _with_marks(self, plan: Planned) -> Planned:
        """A plan that deletes the whole text of one or more paragraphs deletes their marks
        too (Word's "select the paragraph, delete"): accepting leaves no empty paragraph, a
        list renumbers, rejecting restores it.  The paragraphs join the one after them, whose
        mark and properties survive; a story's last paragraph (or a table cell's, a text
        box's: no paragraph follows it there) keeps its mark, as Word's must."""
        if plan.move is not None:
            return plan  # a move: its paragraphs move whole (redline.write.moves)
        if (
            plan.replacement.strip() or plan.insert or plan.comment or plan.format or plan.row
            or self.options.literal
        ):  # fmt: skip
            return plan  # (a comparison's ranges say exactly which marks go)
        view = self.view
        paras = view.paragraphs_between(plan.start, plan.end)
        first, last = paras[0], paras[-1]
        text = view.text
        if text[first.start : plan.start].strip() or text[plan.end : last.end].strip():
            return plan  # part of a paragraph only
        if not text[first.start : first.end].strip():
            return plan
        nxt = last.index + 1
        if nxt >= len(view.paragraphs) or view.paragraphs[nxt].story_no != last.story_no:
            return plan
        after = view.paragraphs[nxt]
        if next_paragraph(last.element) is not after.element or last.field_code or after.field_code:
            return plan
        return replace(plan, start=first.start, end=after.start)

    def _note_ref(self, plan: Planned) -> NoteReference | None:
        """The body reference mark of the note ``plan``'s comment is about, when the plan's
        range is in a footnote or endnote and it comments (a ``comment`` entry, or a rationale
        with comments on): a comment goes there, never into the notes part, which LibreOffice
        cannot load with one (:mod:`redline.read.notes`).  Remembered by edit index."""
        if not plan.rationale or not (plan.comment or self.options.comments):
            return None
        para = self.view.paragraph_at(plan.start)
        if para.story not in NOTE_STORIES:
            return None
        ref = reference_of(self.view, para)
        self._note_refs[plan.edit_index] = ref
        if ref is not None:
            self.result.touched_parts.add(self.view.paragraphs[ref.paragraph].part)
        return ref

    # -- one range ------------------------------------------------------------------------
    def _write_one(self, plan: Planned) -> None:
        if plan.format is not None:  # a tracked formatting change (redline.write.formatting)
            self._write_format(plan)
            return
        if plan.row is not None:  # a table row inserted or deleted (redline.write.rows)
            from .rows import write_row

            return write_row(self, plan.edit_index, plan.row, plan.rationale)
        if plan.move is not None:
            self._move(plan)
            return
        if plan.insert:
            self._insert_paragraphs(plan)
            return
        if plan.comment:  # a comment on the range (the action 'comment'): the text unchanged
            paras = self.view.paragraphs_between(plan.start, plan.end)
            self.result.touched_parts.update(p.part for p in paras)
            atoms = self._isolate(plan.start, plan.end)
            note = self._note_refs.get(plan.edit_index)
            if note is not None and plan.rationale:  # a note's text: on its reference mark
                self._comment(note.run, note.run, plan.rationale)
            elif atoms and plan.rationale:
                self._comment(atoms[0].node, atoms[-1].node, plan.rationale)
            self._numbering.commented(plan.edit_index, [p.index for p in paras])
            return
        view = self.view
        old = view.text[plan.start : plan.end]
        new = plan.replacement.replace("\r\n", "\n").replace("\r", "\n")
        if not self.options.literal:
            # A blank line separates paragraphs, as models write them: never an empty paragraph.
            new = _BLANK_LINES.sub("\n", new)
            if not old.startswith("\n"):
                new = new.lstrip("\n") if "\n" in new[:1] and new.strip() else new
            if not old.endswith("\n"):
                new = new.rstrip("\n") if new.endswith("\n") and new.strip() else new
        before = view.text[plan.start - 1] if plan.start > 0 else ""
        literal = self.options.literal
        if not literal and not ALL_QUOTES.isdisjoint(new):  # (without quotes, every convention leaves it)
            new = self._typeset(new, before)
        # A line break the model wrote is a paragraph break; where the anchor only matched
        # tolerantly and the replacement has none, the document's breaks are not "changed".
        ops = word_diff(old, new, old_breaks=plan.exact or "\n" in new, literal=literal)
        paras = view.paragraphs_between(plan.start, plan.end)
        self.result.touched_parts.update(p.part for p in paras)
        self._numbering.start_range([p.index for p in paras])
        created: list[list[etree._Element]] = []
        first, last = paras[0], paras[-1]
        for kind, a, b, text in reversed(ops):
            a, b = plan.start + a, plan.start + b
            # new text here can go into the paragraph before the range or after it
            self._numbering.change(b, at_edge=a <= first.start or a > last.end)
            if kind != "insert":
                self._numbering.deleted(a, b)
            if kind == "insert":
                spot = self._spot(a)
                created.append(self._insert_text(spot, text, spot.fmt))
                if created[-1]:
                    self._inserted_at[a] = created[-1][0]
            else:
                created.append(self._replace(a, b, text))
        made = [el for op in reversed(created) for el in op]
        if plan.refs:  # new cross-references stand as marks in the new text
            place_fields(made, plan.refs, self._ref_names)
        code: list[etree._Element] = []  # a field typed over (or deleted whole) goes
        for el in plan.fields:
            # a simple field as the complex field it stands for: a deletion holds runs
            for run in unfold_simple(el, self.new_id) if el.tag == _FLD_SIMPLE else [el]:
                self._delete_field_run(run)
                code.append(run)
        if code and self.options.track:  # the typed text after the field, as Word puts it
            lift_typed_text(code, self._ours)
        if (
            self.options.comments
            and plan.rationale
            and made
            and not any(p.story in ("header", "footer") for p in paras)
        ):
            note = self._note_refs.get(plan.edit_index)
            if note is not None:  # an edit in a note: its comment on the note's reference mark
                self._comment(note.run, note.run, plan.rationale)
            elif not any(p.story in NOTE_STORIES for p in paras):  # (no mark: said in the report)
                # around the text, not past a deleted mark: a reference left after a mark that
                # goes would sit in a paragraph that is gone once accepted (LibreOffice fails there)
                runs = [el for el in made if el.tag != _P] or made
                self._comment(runs[0], runs[-1], plan.rationale)
        for run in self._doomed:
            remove(run, keep_tail=False)
        self._doomed.clear()
        self._numbering.end_range(plan.edit_index)

    def _write_format(self, plan: Planned) -> None:
        """A format entry's range: :func:`~redline.write.formatting.write_format`, its
        rationale a comment around the runs changed (as a plain edit's), the text unchanged."""
        from .formatting import write_format

        runs, paras = write_format(self.view, plan, self.new_id, self.options.author, self.stamp)
        self.result.touched_parts.update(p.part for p in paras)
        noted = not any(p.story in ("header", "footer") for p in paras)  # Word keeps no comments there
        if self.options.comments and plan.rationale and noted:
            if not runs:  # a style change: around the paragraphs' text
                runs = [r for p in (paras[0], paras[-1]) for r in p.element.iter(_R)][:1]
                runs += [r for r in paras[-1].element.iter(_R)][-1:]
            if runs:
                self._comment(runs[0], runs[-1], plan.rationale)
        self._numbering.commented(plan.edit_index, [p.index for p in paras])

    def _move(self, plan: Planned) -> None:
        """A clause relocated (move_after / move_before): one tracked move, a comment holding
        the rationale on the moved-to text (:mod:`redline.write.moves`)."""
        from .moves import comment_inside, write_move

        assert plan.move is not None
        revision = self._revision if self.options.track else None
        done = write_move(self.view, plan.edit_index, plan.move, revision, self.new_id, self._numbering)
        para = self.view.paragraphs[plan.move.first]
        self.result.touched_parts.add(para.part)
        story = para.story not in ("header", "footer")
        if self.options.comments and plan.rationale and story and done.first is not None:
            # inside the move (its reference too), so rejecting it leaves no empty paragraph
            cid = self.new_id()
            comment_inside(done.first, cid)
            self.result.comments.append(Comment(int(cid), plan.rationale))

    def _delete_field_run(self, run: etree._Element) -> None:
        """Delete one run of a field's code: tracked, in a w:del (its w:instrText becomes
        w:delInstrText, §17.16.13); untracked, gone."""
        if not self.options.track:
            self._doomed.append(run)
            return
        for child in run.iterchildren(w("instrText")):
            child.tag = w("delInstrText")
        wrapper = self._revision(_DEL)
        run.addprevious(wrapper)
        wrapper.append(run)

    def _insert_paragraphs(self, plan: Planned) -> None:
        """insert_after / insert_before: each line of the plan's text a whole new paragraph
        beside the one at ``plan.start``, with its properties (style, list numbering: the
        next number) less its section break and revisions, its mark an inserted one -- so
        rejecting removes the paragraph and leaves its neighbour exactly as it was; the
        neighbour itself is not touched."""
        view = self.view
        para = view.paragraph_at(plan.start)
        after = plan.replacement.startswith("\n")
        lines = [line for line in _BLANK_LINES.sub("\n", plan.replacement).split("\n") if line.strip()]
        if not ALL_QUOTES.isdisjoint(plan.replacement):
            lines = [self._typeset(line, "") for line in lines]
        p = para.element
        self.result.touched_parts.add(para.part)
        numbering = self._numbering
        numbering.start_range([para.index])
        numbering.follow(para)
        fmt = next(p.iter(_R), None)
        made: list[etree._Element] = []
        # after the paragraphs an earlier entry inserted after it: new paragraphs keep the
        # reply's order
        anchor = self._inserted_after.get(para.index, p) if after else p
        level = max(0, min(8, (para.ilvl or 0) + plan.level)) if plan.level else None
        first, news = anchor, []
        for line in lines:
            new = shallow_copy(p, skip=_PARA_IDS)
            ppr = p.find(_PPR)
            if ppr is not None:
                mine = copy.deepcopy(ppr)
                for child in mine.findall(_SECT_PR) + mine.findall(_PPR_CHANGE):
                    mine.remove(child)
                # numbering's own revision records: like the properties' change, theirs, not ours
                for child in [c for path in _NUM_REVISIONS for c in mine.findall(path)]:
                    parent = child.getparent()
                    assert parent is not None
                    parent.remove(child)
                rpr = mine.find(_RPR)
                if rpr is not None:
                    for rev in [c for c in rpr if c.tag in _MARK_REVISIONS or c.tag == _RPR_CHANGE]:
                        rpr.remove(rev)
                new.append(mine)
            if self.options.track:
                mark_rpr(new).insert(0, self._revision(_INS, 1))
            if level is not None:
                set_ilvl(ppr_of(new), level)
            holder = self._new_runs(line, fmt)
            new.append(holder)
            numbering.inserted(holder)
            made.append(holder)
            news.append(new)
            if after:
                anchor.addnext(new)
                anchor = new
            else:
                p.addprevious(new)
        # told once, not a line at a time: each telling searches the paragraph's pieces
        numbering.paragraphs_added(para.index, news, first if after else p, after=after)
        if after:
            self._inserted_after[para.index] = anchor
        if self.options.comments and plan.rationale and made and para.story not in ("header", "footer"):
            note = self._note_refs.get(plan.edit_index)
            if note is not None:  # new paragraphs in a note: the comment on its reference mark
                self._comment(note.run, note.run, plan.rationale)
            elif para.story not in NOTE_STORIES:
                self._comment(made[0], made[-1], plan.rationale)
        numbering.end_range(plan.edit_index)

    def _replace(self, a: int, b: int, text: str) -> list[etree._Element]:
        """Delete view [a, b) and put ``text`` in its place; return what was made, in order."""
        atoms = self._isolate(a, b)
        made, last = self._delete(atoms)
        if not text:
            return made
        fmt = _main_run(atoms)
        if last is not None:
            spot = _Spot(last, "after", fmt)
        else:  # only paragraph marks were deleted
            spot = self._spot(a)
            fmt = fmt if fmt is not None else spot.fmt
        return made + self._insert_text(spot, text, fmt)

    # -- from view offsets to runs --------------------------------------------------------
    def _isolate(self, start: int, end: int) -> list[_Atom]:
        """Split runs so the text of view [start, end) is in runs of its own; return them."""
        atoms: list[_Atom] = []
        for piece in reversed(list(self.view.pieces(start, end))):
            if piece.kind == SpanKind.MARK:
                atoms.append(_Atom(piece.node, True, 1))
            elif piece.kind == SpanKind.CHAR:
                atoms.append(_Atom(isolate_child(piece.node, self.new_id), False, 1))
            else:
                run = isolate_text(piece.node, piece.start, piece.end, self.new_id)
                atoms.append(_Atom(run, False, piece.end - piece.start))
        atoms.reverse()
        return atoms

    def _piece(self, offset: int) -> Piece | None:
        if not 0 <= offset < len(self.view.text):
            return None
        return next(self.view.pieces(offset, offset + 1), None)

    def _spot(self, at: int) -> _Spot:
        """Where text inserted at view offset ``at`` goes, next to the run it belongs with.

        New text follows the run before it (and takes its formatting), as typing does --
        unless that run ends a field's result, or sits deeper in a container the run after it
        is not in (the end of a hyperlink, a content control, another author's insertion):
        then it goes before the run after it, outside that field or container.
        """
        spot = self._neighbour_spot(at)
        first = self._inserted_at.get(at)
        if first is not None and first.getparent() is not None:
            return _Spot(first, "before", spot.fmt)
        return spot

    def _neighbour_spot(self, at: int) -> _Spot:
        prev, nxt = self._piece(at - 1), self._piece(at)
        # neither a paragraph mark nor text whose run is gone (deleted by a later range,
        # untracked)
        if prev is not None and (prev.kind == SpanKind.MARK or in_removed_run(prev.node)):
            prev = None
        if nxt is not None and (nxt.kind == SpanKind.MARK or in_removed_run(nxt.node)):
            nxt = None
        if prev is not None and nxt is not None:
            prev_run, next_run = prev.node.getparent(), nxt.node.getparent()
            if prev.flags & SpanFlag.FIELD_RESULT and not nxt.flags & SpanFlag.FIELD_RESULT:
                prev = None  # not into a field's result: updating the field would drop it
            elif (
                prev_run is not None
                and next_run is not None
                and prev_run.getparent() is not next_run.getparent()
                and depth(prev_run) > depth(next_run)
            ):
                prev = None
        if prev is not None:
            run = cut_after(prev, self.new_id)
            return _Spot(run, "after", run)
        if nxt is not None:
            run = cut_before(nxt, self.new_id)
            return _Spot(run, "before", run)
        # No text next to it in the paragraph (an empty one, or what was there is gone): the
        # new text takes the formatting of the paragraph mark.
        para = self.view.paragraph_at(at)
        where: Where = "start" if at == para.start else "end"
        return _Spot(para.element, where, para.element.find(f"{_PPR}/{_RPR}"))

    # -- deletions ------------------------------------------------------------------------
    def _delete(self, atoms: list[_Atom]) -> tuple[list[etree._Element], etree._Element | None]:
        """Delete the atoms; return what was made (in order) and where replacement text goes."""
        made: list[etree._Element] = []
        last: etree._Element | None = None
        group: list[etree._Element] = []
        marks: list[etree._Element] = []

        def flush() -> None:
            nonlocal last
            if not group:
                return
            if self.options.track:
                for run in group:
                    for t in run.iterchildren(_T):
                        t.tag = _DEL_TEXT
                wrapper = self._revision(_DEL)
                group[0].addprevious(wrapper)
                wrapper.extend(group)
                made.append(wrapper)
                last = wrapper
            else:
                self._doomed.extend(group)
                made.extend(group)
                last = group[-1]
            group.clear()

        for atom in atoms:
            if atom.mark:
                flush()
                marks.append(atom.node)
                if self.options.track:
                    self._delete_mark(atom.node)
                    made.append(atom.node)
                    self._numbering.deleted_mark(atom.node)
                continue
            if group and group[-1].getnext() is not atom.node:
                flush()
            group.append(atom.node)
        flush()
        if not self.options.track:
            for p in reversed(marks):
                self._join_next(p)
        return made, last

    def _delete_mark(self, p: etree._Element) -> None:
        rpr = mark_rpr(p)
        at = sum(1 for c in rpr if c.tag == _INS)  # CT_ParaRPr: w:ins, then w:del first
        rpr.insert(at, self._revision(_DEL, 1))

    def _join_next(self, p: etree._Element) -> None:
        """Untracked deletion of ``p``'s mark: the next paragraph's content joins ``p``
        (:func:`~redline.write.tree.pull_next`; the writer's join, not a decision's)."""
        if pull_next(p, self._numbering.joining) and mark_deleted(p):  # another author's
            self._numbering.deleted_mark(p)  # deleted mark, now p's: p may vanish from the view

    # -- insertions -----------------------------------------------------------------------
    def _insert_text(self, spot: _Spot, text: str, fmt: etree._Element | None) -> list[etree._Element]:
        """Insert ``text`` at ``spot``; every line break starts a new paragraph."""
        made: list[etree._Element] = []
        for i, line in enumerate(text.split("\n")):
            if i:
                broken = self._break_paragraph(spot)
                if broken is None:  # no paragraph can end here (e.g. inside a content control)
                    line = "\n" + line
                else:
                    spot = broken
            if line:
                holder = self._new_runs(line, fmt)
                spot = self._put(spot, holder)
                made.append(holder)
                self._numbering.inserted_text(holder)
        return made

    def _put(self, spot: _Spot, el: etree._Element) -> _Spot:
        """Insert ``el`` at ``spot``, never inside another author's revision or our own."""
        parent, index = _point(spot)
        stop = None
        node: etree._Element | None = parent
        while node is not None and node.tag != _P:
            if node.tag in _MARK_REVISIONS:  # ours or another author's
                stop = node
            node = node.getparent()
        if stop is not None:
            outer = stop.getparent()
            assert outer is not None
            lifted = self._lift(parent, index, outer)
            if lifted is not None:
                parent, index = outer, lifted[0]
        parent.insert(index, el)
        return _Spot(el, "after", spot.fmt)

    def _lift(
        self, parent: etree._Element, index: int, target: etree._Element
    ) -> tuple[int, etree._Element | None] | None:
        """The point (``parent``, ``index``) moved up into ``target``: its index there, and the
        second half of the innermost container split on the way (None if none was).  The
        containers the point is in the middle of are split; None (and nothing changed) when
        one of them cannot be."""
        node, i = parent, index
        plan: list[tuple[etree._Element, int]] = []
        split_below = False  # the container below is split: its second half will follow the point
        while node is not target:
            up = node.getparent()
            if up is None:
                return None
            lo = first_content_index(node)
            middle = lo < i < len(node) + (1 if split_below else 0)
            split_below = False
            if node.tag == _SDT_CONTENT:  # sdtContent -> sdt -> its parent, as one level
                node, up = up, up.getparent()
                if middle or up is None:
                    return None
            elif middle:
                if node.tag not in _SPLITTABLE or node in self._ours:
                    return None
                plan.append((node, i))
                split_below = True
            i = up.index(node) + (0 if i <= lo else 1)
            node = up
        inner: etree._Element | None = None
        for container, at in plan:  # innermost first; each half goes with its parent's half
            second = shallow_copy(container)
            if container.tag in (_INS, _MOVE_TO):
                second.set(_ID, self.new_id())
            for prop in list(container)[: first_content_index(container)]:
                second.append(copy.deepcopy(prop))
            second.extend(list(container)[at:])
            container.addnext(second)
            inner = second if inner is None else inner
        return i, inner

    def _break_paragraph(self, spot: _Spot) -> _Spot | None:
        """End the paragraph at ``spot`` with a new mark; the rest starts a new paragraph
        with the same properties.  The new mark is the inserted one (as Word records Enter)."""
        parent, index = _point(spot)
        p: etree._Element | None = parent
        while p is not None and p.tag != _P:
            p = p.getparent()
        if p is None:
            return None
        lifted = self._lift(parent, index, p)
        if lifted is None:
            return None
        index, inner = lifted
        p2 = shallow_copy(p, skip=_PARA_IDS)
        ppr = p.find(_PPR)
        if ppr is not None:
            p2.append(copy.deepcopy(ppr))  # the original mark, with its revisions and section
            for child in ppr.findall(_SECT_PR):
                ppr.remove(child)
            rpr = ppr.find(_RPR)
            if rpr is not None:
                for rev in [c for c in rpr if c.tag in _MARK_REVISIONS]:
                    rpr.remove(rev)
            # what both paragraphs now hold (another author's w:pPrChange, the mark's
            # w:rPrChange, numbering's w:ins or w:numberingChange): the same pending change --
            # rejected, both halves go back to the old properties --, the new mark's copy an id
            # of its own
            fresh_ids(ppr, self.new_id)
        p2.extend([c for c in list(p)[index:] if c.tag != _PPR])
        p.addnext(p2)
        self._numbering.split(p, p2)
        if self.options.track:
            mark_rpr(p).insert(0, self._revision(_INS, 1))
        # the next line continues inside what was split (the rest of a hyperlink, ...)
        return _Spot(inner if inner is not None else p2, "start", spot.fmt)

    def _spend(self, tags: int) -> None:
        if self.room is None:
            return
        self.room -= tags
        if self.room < 0 and self.slack is not None:
            self.room += self.slack()
            self.slack = None
        if self.room < 0:
            raise MarkupOverflow()

    def _new_runs(self, text: str, fmt: etree._Element | None, track: bool | None = None) -> etree._Element:
        """New runs of ``text`` formatted as ``fmt``, in our ``w:ins`` when tracked (``track``:
        the options' unless said: a new table row is marked whole, redline.write.rows)."""
        run = etree.Element(_R)
        rpr = run_properties(fmt)
        if rpr is not None:
            run.append(rpr)
        if self.room is not None:  # <w:r><w:t>..</w:t></w:r> at the fewest, and its properties
            self._spend((4 if text else 2) + (sum(1 for _ in rpr.iter()) if rpr is not None else 0))
        parts = _TAB_OR_BREAK.split(text) if "\t" in text or "\n" in text else [text]
        for i, part in enumerate(parts):
            if i % 2:
                etree.SubElement(run, _TAB if part == "\t" else _BR)
            elif part:
                t = etree.SubElement(run, _T)
                t.text = part
                preserve_text(t, part)
        if not (self.options.track if track is None else track):
            return run
        wrapper = self._revision(_INS)
        wrapper.append(run)
        return wrapper

    def _revision(self, tag: str, tags: int = 2) -> etree._Element:
        self._spend(tags)  # a wrapper's two tags, a paragraph mark's one
        el = etree.Element(tag)
        el.set(_ID, self.new_id())
        el.set(_AUTHOR, self.options.author)
        el.set(_DATE, self.stamp)
        self._ours.add(el)
        return el

    # -- comments -------------------------------------------------------------------------
    def _comment(self, first: etree._Element, last: etree._Element, rationale: str) -> None:
        """Anchor a comment from ``first`` to ``last`` (runs, wrappers, or a w:p for a mark)."""
        cid = self.new_id()
        start = etree.Element(w("commentRangeStart"))
        start.set(_ID, cid)
        end = etree.Element(w("commentRangeEnd"))
        end.set(_ID, cid)
        ref = etree.Element(_R)
        etree.SubElement(etree.SubElement(ref, _RPR), w("rStyle")).set(w("val"), "CommentReference")
        etree.SubElement(ref, w("commentReference")).set(_ID, cid)
        if first.tag == _P:  # the range starts at a deleted paragraph mark
            first.append(start)
        else:
            first.addprevious(start)
            for at, el in self._inserted_at.items():
                if el is first:  # an earlier range's text for that offset goes before it all
                    self._inserted_at[at] = start
        if last.tag == _P:
            last.append(end)
        else:
            last.addnext(end)
        self._put(_Spot(end, "after", None), ref)
        self.result.comments.append(Comment(int(cid), rationale))


# -----------------------------------------------------------------------------------------
# The writer's own pieces


def _point(spot: _Spot) -> tuple[etree._Element, int]:
    """The (parent, child index) an insertion at ``spot`` goes to."""
    ref = spot.ref
    if spot.where == "start":
        return ref, first_content_index(ref)
    if spot.where == "end":
        return ref, len(ref)
    parent = ref.getparent()
    assert parent is not None
    return parent, parent.index(ref) + (1 if spot.where == "after" else 0)


def _main_run(atoms: list[_Atom]) -> etree._Element | None:
    """The run with the most of the replaced text (the first of equals)."""
    runs = [a for a in atoms if not a.mark]
    if not runs:
        return None
    return max(runs, key=lambda a: a.size).node


# -----------------------------------------------------------------------------------------
# Revision ids


_ID_ATTR = re.compile(rb"""id=["']([ \t\r\n]*\+?[0-9]+[ \t\r\n]*)["']""")
_ID_PREFIX = frozenset(b": \t\n\r\x0b\x0c")  # a colon, or whitespace as a bytes regex sees it


def document_ids(parts: Iterable[bytes]) -> set[int]:
    """Every numeric ``id`` attribute in the given raw XML parts, as the number Word reads
    (:func:`redline.read.ids.id_number`: "0005" is 5, an id of any width counts).

    A byte scan instead of an XPath over parsed trees: ten times faster on a long contract,
    and it may only over-count (any ``…:id="N"``), which is harmless when all the caller needs
    is ids no existing one equals (revisions, comments and bookmarks alike).  The pattern
    starts with its literal ``id=`` (which the regex engine searches for quickly); the byte
    before it must be a colon or ASCII whitespace.
    """
    found: set[int] = set()
    add = found.add
    for data in parts:
        for m in _ID_ATTR.finditer(data):
            at = m.start()
            if at and data[at - 1] in _ID_PREFIX:
                value = m.group(1)
                if len(value) <= 18 and value.isdigit():  # (nearly all: what id_number reads it as)
                    add(int(value))
                    continue
                number = id_number(value)
                if number is not None:
                    add(number)
    return found


def max_revision_id(parts: Iterable[bytes]) -> int:
    """The largest numeric ``id`` attribute in the given raw XML parts (0 when none):
    :func:`document_ids`' largest."""
    return max(document_ids(parts), default=0)


class Ids:
    """New ids for a document that uses ``used``: above its largest while they stay within
    :data:`redline.read.ids.MAX_ID` (the largest Word reads); once that is reached (a document
    whose ids are near, or beyond, 2^31-1), the smallest positive numbers it does not use.
    Never a number the document already uses, never one above ``MAX_ID``."""

    def __init__(self, used: Iterable[int]) -> None:
        self._used = set(used)
        self._next = max(self._used, default=0)
        self._gap = 0  # the last number tried below MAX_ID, once above is full

    def __call__(self) -> str:
        if self._next < MAX_ID:
            self._next += 1
            return str(self._next)
        while True:
            self._gap += 1
            if self._gap > MAX_ID:  # 2^31 ids in one document: no document holds so many
                raise RuntimeError("no id below 2^31 left")
            if self._gap not in self._used:
                self._used.add(self._gap)
                return str(self._gap)
