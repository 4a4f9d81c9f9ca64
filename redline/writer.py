"""Write located edits into the document's XML as native Word tracked changes.

The writer is the only module that turns view offsets back into WordprocessingML.  For each
planned range it

1. diffs the located text against the replacement at word level (punctuation its own token),
   comparing tokens under the tolerant normalisation, so unchanged parts keep the document's
   own characters (its curly quotes, NBSPs and en dashes);
2. isolates exactly the text each change covers into runs of its own, splitting runs at the
   change boundaries and keeping every run's properties (ECMA-376 Part 1, §17.3.2);
3. wraps deleted runs in ``w:del`` with ``w:delText`` (§17.13.5.14, §17.3.3.7), adds new runs
   in ``w:ins`` (§17.13.5.18) that copy the formatting of the text they replace, and marks
   deleted and inserted paragraph marks in ``w:pPr/w:rPr`` (§17.13.5.15, §17.13.5.16);
4. optionally anchors a comment holding the edit's rationale (§17.13.4).

Ranges are written from the last to the first.  A split always leaves the text before the cut
in the original element, so the view's map stays valid for every range still to be written.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from lxml import etree

from .normalize import NormalizedText
from .ooxml import W_NS, XML_SPACE, w
from .verify import Planned
from .view import DocumentView, Paragraph, SpanKind

_R, _T, _RPR, _PPR, _P = w("r"), w("t"), w("rPr"), w("pPr"), w("p")
_INS, _DEL, _DEL_TEXT = w("ins"), w("del"), w("delText")
_TAB, _BR = w("tab"), w("br")
_SECT_PR, _PPR_CHANGE, _RPR_CHANGE = w("sectPr"), w("pPrChange"), w("rPrChange")
_ID, _AUTHOR, _DATE = w("id"), w("author"), w("date")
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
_NSMAP = {"w": W_NS}


@dataclass(frozen=True)
class WriteOptions:
    author: str = "redline"
    date: str | None = None  # ISO 8601; default: now, UTC, to the second
    track: bool = True  # False: write the edits as plain (accepted) text
    comments: bool = True  # attach each edit's rationale as a comment

    def stamp(self) -> str:
        if self.date:
            return self.date
        return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Comment:
    id: int
    text: str


@dataclass
class WriteResult:
    touched_parts: set[str] = field(default_factory=set)
    comments: list[Comment] = field(default_factory=list)
    touched_paragraphs: dict[int, list[etree._Element]] = field(default_factory=dict)


@dataclass
class _Atom:
    """A piece of the edited range, alone in its own run (or a paragraph mark)."""

    start: int
    end: int
    node: etree._Element  # the w:r, or the w:p whose mark this is
    mark: bool
    para: Paragraph


class Writer:
    """Writes planned ranges into the trees the view was built from (mutating them)."""

    def __init__(self, view: DocumentView, options: WriteOptions, next_id: int) -> None:
        self.view = view
        self.options = options
        self.stamp = options.stamp()
        self._next_id = next_id
        self.result = WriteResult()
        self.curly = _prefers_curly(view.text)
        self._doomed: list[etree._Element] = []

    def new_id(self) -> str:
        self._next_id += 1
        return str(self._next_id)

    def write(self, planned: Iterable[Planned]) -> WriteResult:
        for plan in sorted(planned, key=lambda p: p.start, reverse=True):
            self._write_one(plan)
        return self.result

    # -- one range ------------------------------------------------------------------------
    def _write_one(self, plan: Planned) -> None:
        view = self.view
        old = view.text[plan.start : plan.end]
        new = smarten_quotes(plan.replacement, old) if self.curly else plan.replacement
        ops = word_diff(old, new)
        cuts = {plan.start, plan.end}
        for _, a, b, _ in ops:
            cuts.update((plan.start + a, plan.start + b))
        atoms = self._atomize(plan.start, plan.end, sorted(cuts))
        paras = view.paragraphs_between(plan.start, plan.end)
        self.result.touched_parts.update(p.part for p in paras)
        self.result.touched_paragraphs[plan.edit_index] = [p.element for p in paras]
        if self.options.comments and plan.rationale and atoms:
            self._comment(atoms[0], atoms[-1], plan.rationale)
        for kind, a, b, text in reversed(ops):
            a, b = plan.start + a, plan.start + b
            inside = [t for t in atoms if a <= t.start and t.end <= b]
            if kind == "insert":
                self._insert_at(a, text, atoms, plan)
                continue
            fmt = _main_run(inside)
            last = self._delete(inside)
            if text:
                if last is not None:
                    self._insert(last, after=True, text=text, fmt=fmt)
                else:
                    self._insert_at(a, text, atoms, plan)
            for run in self._doomed:
                _remove(run)
            self._doomed.clear()

    def _atomize(self, start: int, end: int, cuts: list[int]) -> list[_Atom]:
        """Split runs so each stretch between two cuts is a run (or mark) of its own."""
        atoms: list[_Atom] = []
        pieces = list(self.view.pieces(start, end))
        for piece in reversed(pieces):
            para = self.view.paragraph_at(piece.view_start)
            if piece.kind == SpanKind.MARK:
                atoms.append(_Atom(piece.view_start, piece.view_start + 1, piece.node, True, para))
                continue
            if piece.kind == SpanKind.CHAR:
                run = _isolate_child(piece.node)
                atoms.append(_Atom(piece.view_start, piece.view_start + 1, run, False, para))
                continue
            node_start = piece.view_start - piece.start
            local = [c - node_start for c in cuts if piece.start < c - node_start < piece.end]
            bounds = [piece.start, *local, piece.end]
            for lo, hi in reversed(list(zip(bounds, bounds[1:], strict=False))):
                run = _isolate_text(piece.node, lo, hi)
                atoms.append(_Atom(node_start + lo, node_start + hi, run, False, para))
        atoms.reverse()
        return atoms

    # -- deletions ------------------------------------------------------------------------
    def _delete(self, atoms: list[_Atom]) -> etree._Element | None:
        """Delete the atoms; return the element after which replacement text belongs."""
        last: etree._Element | None = None
        group: list[etree._Element] = []
        groups: list[list[etree._Element]] = []
        for atom in atoms:
            if atom.mark:
                self._delete_mark(atom)
                if group:
                    groups.append(group)
                group = []
                continue
            if group and group[-1].getnext() is not atom.node:
                groups.append(group)
                group = []
            group.append(atom.node)
        if group:
            groups.append(group)
        for runs in groups:
            if self.options.track:
                for run in runs:
                    for t in run.iterchildren(_T):
                        t.tag = _DEL_TEXT
                        _preserve(t)
                wrapper = self._revision(_DEL)
                runs[0].addprevious(wrapper)
                wrapper.extend(runs)
                last = wrapper
            else:
                # untracked: removed once the replacement has been placed after them
                self._doomed.extend(runs)
                last = runs[-1]
        return last

    def _delete_mark(self, atom: _Atom) -> None:
        p = atom.node
        if self.options.track:
            rpr = _mark_rpr(p)
            rpr.insert(_rpr_revision_index(rpr), self._revision(_DEL))
            return
        # untracked: join the next paragraph into this one
        nxt = self.view.paragraphs[atom.para.index + 1].element if atom.para.index + 1 < len(
            self.view.paragraphs
        ) else None
        if nxt is None or nxt.getparent() is not p.getparent():
            return
        for child in list(nxt):
            if child.tag != _PPR:
                p.append(child)
        _remove(nxt)

    # -- insertions -----------------------------------------------------------------------
    def _insert_at(self, at: int, text: str, atoms: list[_Atom], plan: Planned) -> None:
        before = next((t for t in atoms if t.end == at), None)
        after = next((t for t in atoms if t.start == at), None)
        if at == plan.start and after is not None:
            before = None
        if before is not None and not before.mark:
            self._insert(_outer(before.node), after=True, text=text, fmt=before.node)
        elif after is not None and not after.mark:
            self._insert(_outer(after.node), after=False, text=text, fmt=after.node)
        elif before is not None:  # just after a paragraph mark: start of the next paragraph
            nxt = self.view.paragraphs[before.para.index + 1].element
            self._insert_into(nxt, text, fmt=None, first=True)
        elif after is not None:  # just before a paragraph mark: end of that paragraph
            self._insert_into(after.node, text, fmt=None, first=False)

    def _insert_into(self, p: etree._Element, text: str, fmt: etree._Element | None, first: bool) -> None:
        runs = [c for c in p if c.tag == _R]
        fmt = fmt if fmt is not None else (runs[0] if first and runs else runs[-1] if runs else None)
        holder = self._new_runs(text.replace("\n", " "), fmt)
        if first:
            p.insert(_first_content_index(p), holder)
        else:
            p.append(holder)

    def _insert(self, node: etree._Element, *, after: bool, text: str, fmt: etree._Element | None) -> None:
        """Insert ``text`` next to ``node`` as new runs formatted like ``fmt``."""
        lines = text.split("\n")
        container = node.getparent()
        splittable = container is not None and container.tag == _P and len(lines) > 1
        first_text = lines[0] if splittable else text
        holder = self._new_runs(first_text, fmt) if first_text else None
        if holder is not None:
            _place(node, holder, after=after, writer=self)
            node, after = holder, True
        if not splittable:
            return
        p = container
        assert p is not None
        for line in lines[1:]:
            p2 = self._split_paragraph(p, node, after=after)
            if line:
                holder = self._new_runs(line, fmt)
                p2.insert(_first_content_index(p2), holder)
                node, after = holder, True
            else:
                node, after = p2, False
                pref = p2.find(_PPR)
                if pref is not None:
                    node, after = pref, True
            p = p2

    def _split_paragraph(self, p: etree._Element, node: etree._Element, *, after: bool) -> etree._Element:
        """Split paragraph ``p`` at ``node``; the new paragraph mark ends the first half."""
        p2 = etree.Element(_P, attrib=dict(p.attrib), nsmap=p.nsmap)
        ppr = p.find(_PPR)
        if ppr is not None:
            ppr2 = copy.deepcopy(ppr)
            for change in ppr2.findall(_PPR_CHANGE):
                ppr2.remove(change)
            p2.append(ppr2)
            for sect in ppr.findall(_SECT_PR):
                ppr.remove(sect)
        children = list(p)
        idx = children.index(node) + (1 if after else 0) if node in children else len(children)
        for child in children[idx:]:
            if child.tag != _PPR:
                p2.append(child)
        p.addnext(p2)
        if self.options.track:
            rpr = _mark_rpr(p)
            for old in rpr.findall(_DEL):
                rpr.remove(old)
            rpr.insert(_rpr_revision_index(rpr), self._revision(_INS))
        return p2

    def _new_runs(self, text: str, fmt: etree._Element | None) -> etree._Element:
        run = etree.Element(_R)
        if fmt is not None:
            rpr = fmt.find(_RPR)
            if rpr is not None:
                rpr = copy.deepcopy(rpr)
                for change in rpr.findall(_RPR_CHANGE):
                    rpr.remove(change)
                run.append(rpr)
        for i, part in enumerate(re.split(r"(\t|\n)", text)):
            if i % 2:
                etree.SubElement(run, _TAB if part == "\t" else _BR)
            elif part:
                t = etree.SubElement(run, _T)
                t.text = part
                _preserve(t)
        if not self.options.track:
            return run
        wrapper = self._revision(_INS)
        wrapper.append(run)
        return wrapper

    def _revision(self, tag: str) -> etree._Element:
        el = etree.Element(tag)
        el.set(_ID, self.new_id())
        el.set(_AUTHOR, self.options.author)
        el.set(_DATE, self.stamp)
        return el

    # -- comments -------------------------------------------------------------------------
    def _comment(self, first: _Atom, last: _Atom, rationale: str) -> None:
        cid = self.new_id()
        start = etree.Element(w("commentRangeStart"))
        start.set(_ID, cid)
        end = etree.Element(w("commentRangeEnd"))
        end.set(_ID, cid)
        ref = etree.Element(_R)
        ref_rpr = etree.SubElement(ref, _RPR)
        etree.SubElement(ref_rpr, w("rStyle")).set(w("val"), "CommentReference")
        etree.SubElement(ref, w("commentReference")).set(_ID, cid)
        if first.mark:
            first.node.append(start)
        else:
            first.node.addprevious(start)
        if last.mark:
            last.node.append(end)
            last.node.append(ref)
        else:
            last.node.addnext(end)
            end.addnext(ref)
        self.result.comments.append(Comment(int(cid), rationale))


# -----------------------------------------------------------------------------------------
# Run surgery


def _content(run: etree._Element) -> list[etree._Element]:
    return [c for c in run if c.tag != _RPR]


def _new_run_like(run: etree._Element) -> etree._Element:
    new = etree.Element(run.tag, attrib=dict(run.attrib))
    rpr = run.find(_RPR)
    if rpr is not None:
        new.append(copy.deepcopy(rpr))
    return new


def _split_before(child: etree._Element) -> etree._Element:
    """Move ``child`` and everything after it in its run into a new run just after."""
    run = child.getparent()
    assert run is not None
    new = _new_run_like(run)
    siblings = _content(run)
    for c in siblings[siblings.index(child) :]:
        new.append(c)
    run.addnext(new)
    return new


def _isolate_child(child: etree._Element) -> etree._Element:
    """Give a one-character element (w:tab, w:br, ...) a run of its own; return that run."""
    run = child.getparent()
    assert run is not None
    siblings = _content(run)
    i = siblings.index(child)
    if i + 1 < len(siblings):
        _split_before(siblings[i + 1])
    if i > 0:
        return _split_before(child)
    return run


def _isolate_text(t: etree._Element, lo: int, hi: int) -> etree._Element:
    """Give ``t.text[lo:hi]`` a run of its own; the text before ``lo`` stays in ``t``."""
    text = t.text or ""
    run = t.getparent()
    assert run is not None
    if hi < len(text):
        tail = etree.Element(_T)
        tail.text = text[hi:]
        _preserve(tail)
        t.text = text[:hi]
        t.addnext(tail)
        _split_before(tail)
        text = text[:hi]
    if lo > 0:
        mid = etree.Element(_T)
        mid.text = text[lo:]
        _preserve(mid)
        t.text = text[:lo]
        _preserve(t)
        t.addnext(mid)
        return _split_before(mid)
    siblings = _content(run)
    if siblings.index(t) > 0:
        new = _split_before(t)
        nxt = _content(new)
        if len(nxt) > 1:
            _split_before(nxt[1])
        return new
    nxt = _content(run)
    if len(nxt) > 1:
        _split_before(nxt[1])
    return run


def _preserve(t: etree._Element) -> None:
    text = t.text or ""
    if text != text.strip() or "  " in text:
        t.set(XML_SPACE, "preserve")


def _outer(run: etree._Element) -> etree._Element:
    """The run, or the revision wrapper the writer put around it."""
    parent = run.getparent()
    if parent is not None and parent.tag == _DEL and len(parent) == 1:
        return parent
    return run


def _place(node: etree._Element, new: etree._Element, *, after: bool, writer: Writer) -> None:
    """Put ``new`` next to ``node``; never nest our revision inside someone else's w:ins."""
    parent = node.getparent()
    if new.tag == _INS and parent is not None and parent.tag == _INS:
        # split their insertion so ours sits between the two halves
        siblings = list(parent)
        i = siblings.index(node) + (1 if after else 0)
        rest = siblings[i:]
        if rest:
            second = etree.Element(_INS, attrib=dict(parent.attrib))
            second.set(_ID, writer.new_id())
            second.extend(rest)
            parent.addnext(second)
        if len(parent) == 0:
            parent.addprevious(new)
            parent.getparent().remove(parent)  # type: ignore[union-attr]
        else:
            parent.addnext(new)
        return
    if after:
        node.addnext(new)
    else:
        node.addprevious(new)


def _remove(el: etree._Element) -> None:
    parent = el.getparent()
    if parent is not None:
        parent.remove(el)


def _first_content_index(p: etree._Element) -> int:
    return 1 if len(p) and p[0].tag == _PPR else 0


def _mark_rpr(p: etree._Element) -> etree._Element:
    ppr = p.find(_PPR)
    if ppr is None:
        ppr = etree.Element(_PPR)
        p.insert(0, ppr)
    rpr = ppr.find(_RPR)
    if rpr is None:
        rpr = etree.Element(_RPR)
        # rPr precedes sectPr and pPrChange in CT_PPr
        idx = len(ppr)
        for i, child in enumerate(ppr):
            if child.tag in (_SECT_PR, _PPR_CHANGE):
                idx = i
                break
        ppr.insert(idx, rpr)
    return rpr


def _rpr_revision_index(rpr: etree._Element) -> int:
    # w:ins / w:del come first in CT_ParaRPr
    return 0


def _main_run(atoms: list[_Atom]) -> etree._Element | None:
    runs = [(a.end - a.start, a.node) for a in atoms if not a.mark]
    if not runs:
        return None
    best = max(r[0] for r in runs)
    return next(node for size, node in runs if size == best)


# -----------------------------------------------------------------------------------------
# Text: the word diff and the document's typography


def word_diff(old: str, new: str) -> list[tuple[str, int, int, str]]:
    """Minimal word-level changes turning ``old`` into ``new``: (kind, start, end, new text).

    Offsets are into ``old``; tokens compare under the tolerant normalisation, so a quote or
    dash that differs only typographically is not a change.  ``kind`` is insert, delete or
    replace; an insert has start == end.
    """
    import difflib

    old_n, new_n = NormalizedText.build(old), NormalizedText.build(new)
    a = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(old_n.text)]
    b = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(new_n.text)]
    matcher = difflib.SequenceMatcher(None, [t[2] for t in a], [t[2] for t in b], autojunk=False)
    ops: list[tuple[str, int, int, str]] = []

    def span(tokens: list[tuple[int, int, str]], norm: NormalizedText, src: str, i: int, j: int) -> tuple[int, int]:
        if i < j:
            return norm.orig_start(tokens[i][0]), norm.orig_end(tokens[j - 1][1])
        pos = tokens[i][0] if i < len(tokens) else len(norm.text)
        at = norm.orig_start(pos) if pos < len(norm.text) else len(src)
        return at, at

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        s, e = span(a, old_n, old, i1, i2)
        ns, ne = span(b, new_n, new, j1, j2)
        ops.append((tag, s, e, new[ns:ne]))
    return ops


_STRAIGHT = re.compile("[\"']")


def _prefers_curly(text: str) -> bool:
    curly = sum(text.count(c) for c in "\u201c\u201d\u2018\u2019")
    straight = text.count('"') + text.count("'")
    return curly > straight


def smarten_quotes(text: str, context: str = "") -> str:
    """Straight quotes and apostrophes in ``text`` as curly ones, chosen by position."""

    def repl(m: re.Match[str]) -> str:
        i = m.start()
        prev = text[i - 1] if i > 0 else " "
        opening = prev.isspace() or prev in "([{\u2014\u2013-/"
        if m.group() == '"':
            return "\u201c" if opening else "\u201d"
        nxt = text[i + 1] if i + 1 < len(text) else " "
        return "\u2018" if opening and nxt.isalnum() else "\u2019"

    return _STRAIGHT.sub(repl, text)


# -----------------------------------------------------------------------------------------


def max_revision_id(roots: Iterable[etree._Element]) -> int:
    """The largest numeric ``w:id`` in the given trees (revisions, comments, bookmarks)."""
    best = 0
    for root in roots:
        for value in root.xpath("//@w:id", namespaces=_NSMAP):  # type: ignore[union-attr]
            try:
                best = max(best, int(str(value)))
            except ValueError:
                continue
    return best
