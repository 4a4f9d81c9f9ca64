"""Quotes of text another author deleted: each story read with its tracked deletions put back.

The view reads a document with every tracked change accepted, so a quote of text someone
deleted (``w:del``) or moved away (``w:moveFrom``) is not found in it.  Before such a quote is
refused ``not_found`` with a near miss, it is looked for in each story's *restored* text: the
story as it read before the deletions -- deleted runs, deleted paragraph marks, whole deleted
paragraphs, kept and inserted text alike, read by the element-role table
(:mod:`redline.read.roles`: field codes, second copies and what the view never reads left out).
A quote found there whose range holds deleted text is refused ``deleted_text``, naming the
deletion it runs through (its author, date, and whether it was a move), however long the
deleted passage, however many runs and paragraphs it crosses.

Each story with a deletion is read once per locator, on the first quote that needs it, and
kept as one string with two parallel arrays (per character: the deletion it belongs to, the
paragraph it lies in), searched under the tolerant normalisation
(:class:`~redline.text.normalize.NormalizedText`).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from lxml import etree

from ..errors import PackageError
from ..opc.namespaces import w
from ..read.build import stories_of
from ..read.roles import CHAR_OF, RULES, Role, symbol, track_field
from ..read.view import DocumentView
from ..text.normalize import NormalizedText, normalize

__all__ = ["DeletedHit", "RestoredStories"]

_P, _T, _DEL_TEXT, _SYM, _FLD_CHAR = w("p"), w("t"), w("delText"), w("sym"), w("fldChar")
_PPR, _RPR, _CHAR, _FLD_TYPE = w("pPr"), w("rPr"), w("char"), w("fldCharType")
_DELETIONS = frozenset((w("del"), w("moveFrom")))
_MOVE_FROM = w("moveFrom")
_AUTHOR, _DATE = w("author"), w("date")
# not read at all (their subtree): a second copy, what holds no text, what the view does not show
_SKIP = frozenset(
    tag
    for tag, rule in RULES.items()
    if rule.role in (Role.SKIPPED, Role.NO_TEXT, Role.NOT_SHOWN, Role.PROPERTIES)
) - {_DEL_TEXT}
_NONE = -1


@dataclass(frozen=True)
class DeletedHit:
    """A quote found in restored text: the deletion it runs through and where."""

    paragraph: int  # the view paragraph (a dropped paragraph's: the one it joins)
    author: str | None
    date: str | None
    moved: bool  # the deletion is the source of a move (w:moveFrom)


@dataclass
class _Story:
    text: NormalizedText
    owner: array[int]  # per character of the restored text: its deletion's index, or -1
    paragraph: array[int]  # per character: the view paragraph


class RestoredStories:
    """The view's stories that hold a deletion, read with their deletions put back."""

    def __init__(self, view: DocumentView) -> None:
        self.view = view
        self._stories: list[_Story] | None = None
        self._deletions: list[etree._Element] = []

    def find(self, quote: str) -> DeletedHit | None:
        """Where ``quote`` lies in restored text over deleted characters (the first such
        place), None when it lies in none."""
        needle = normalize(quote).strip()
        if len(needle.replace(" ", "")) < 3:
            return None
        for story in self._read():
            text = story.text
            at = text.text.find(needle)
            while at >= 0:
                s, e = text.orig_span(at, at + len(needle))
                owner = next((story.owner[k] for k in range(s, e) if story.owner[k] != _NONE), _NONE)
                if owner != _NONE:
                    el = self._deletions[owner]
                    return DeletedHit(
                        story.paragraph[s], el.get(_AUTHOR), el.get(_DATE), el.tag == _MOVE_FROM
                    )
                at = text.text.find(needle, at + 1)
        return None

    # -- reading ---------------------------------------------------------------------------
    def _read(self) -> list[_Story]:
        if self._stories is not None:
            return self._stories
        self._stories = []
        view = self.view
        working = view.working
        if working is None:  # a verify-only view holds no trees to read deletions from
            return self._stories
        parts = set()
        for part in {p.part for p in view.paragraphs}:
            data = working.package.read(part)
            if b"delText" in data or b"moveFrom" in data:
                parts.add(part)
        if not parts:
            return self._stories
        index: dict[etree._Element, int] = {}
        for para in view.paragraphs:
            if para.part in parts:
                try:
                    index[para.element] = para.index
                except (TypeError, PackageError):
                    continue
        try:
            stories = stories_of(working.package, working)
        except PackageError:
            return self._stories
        for story in stories:
            if story.part in parts and story.root is not None:
                read = self._story(story.root, index)
                if read is not None:
                    self._stories.append(read)
        return self._stories

    def _story(self, root: etree._Element, index: dict[etree._Element, int]) -> _Story | None:
        chars: list[str] = []
        owner = array("i")
        paragraph = array("i")
        open_dels: list[int] = []  # the deletions the walk is inside (their indexes)
        paras: list[etree._Element] = []  # the paragraphs the walk is inside
        pending: list[int] = []  # characters of dropped paragraphs, until a view paragraph comes
        fields: list[bool] = []
        any_deleted = False
        last = _NONE

        def add(text: str, el_owner: int, para: etree._Element | None) -> None:
            nonlocal last
            if not text:
                return
            k = index.get(para) if para is not None else None
            chars.append(text)
            owner.extend([el_owner] * len(text))
            if k is None:
                pending.extend(range(len(paragraph), len(paragraph) + len(text)))
                paragraph.extend([last if last != _NONE else 0] * len(text))
            else:
                last = k
                for j in pending:  # what a dropped paragraph held joins the next paragraph
                    paragraph[j] = k
                pending.clear()
                paragraph.extend([k] * len(text))

        walk = etree.iterwalk(root, events=("start", "end"))
        for event, el in walk:
            tag = el.tag
            if not isinstance(tag, str):
                continue
            if event == "end":
                if tag in _DELETIONS and open_dels and self._deletions[open_dels[-1]] is el:
                    open_dels.pop()
                elif tag == _P:
                    para = paras.pop() if paras else None
                    mark = _mark_deletion(el)
                    if mark is not None:
                        any_deleted = True
                        self._deletions.append(mark)
                        add("\n", len(self._deletions) - 1, para)
                    else:
                        add("\n", open_dels[-1] if open_dels else _NONE, para)
                continue
            if tag in _SKIP:
                walk.skip_subtree()
                continue
            if tag == _P:
                paras.append(el)
                continue
            if tag in _DELETIONS:
                self._deletions.append(el)
                open_dels.append(len(self._deletions) - 1)
                any_deleted = True
                continue
            if tag == _FLD_CHAR:
                track_field(fields, el.get(_FLD_TYPE))
                continue
            if fields and not fields[-1]:
                continue  # a field's instructions: no text
            here = paras[-1] if paras else None
            who = open_dels[-1] if open_dels else _NONE
            if tag in (_T, _DEL_TEXT):
                add(el.text or "", who, here)
            elif tag == _SYM:
                add(symbol(el.get(_CHAR)), who, here)
            elif tag in CHAR_OF:
                add(CHAR_OF[tag], who, here)
        if not any_deleted or not chars:
            return None
        return _Story(NormalizedText.build("".join(chars)), owner, paragraph)


def _mark_deletion(p: etree._Element) -> etree._Element | None:
    """The deletion (or move away) of paragraph ``p``'s own mark, if it has one."""
    ppr = p.find(_PPR)
    rpr = ppr.find(_RPR) if ppr is not None else None
    if rpr is None:
        return None
    return next((c for c in rpr if c.tag in _DELETIONS), None)
