"""``format`` entries: what formatting the quoted characters (or their paragraphs) have, what
the entry would change, and why it is refused -- the plan :mod:`redline.write.formatting`
writes as ``w:rPrChange`` / ``w:pPrChange``.

Effective formatting (what ``no_change`` is decided on, and what the writer compares with):
a run's direct properties (its ``w:rPr``, less any ``w:rPrChange``) where they say; else its
character style (``w:rStyle``) and the styles it is based on; else its paragraph's style
(``w:pStyle``, or the default paragraph style) and the styles that one is based on; else the
document defaults (``w:docDefaults/w:rPrDefault``) -- the nearest definition wins
(ECMA-376 Part 1, §17.7.2).  Word toggles ``b``/``i``/``caps``/``smallCaps``/``strike`` between
the paragraph- and character-style levels (§17.7.3); LibreOffice, our judge, does not, nor does
this reading (a run bold by both its paragraph style and its character style reads bold).
Table styles are not read.

Refused (each with the reason a model can act on):

* ``unsupported``: the anchor runs from one story into another (as plain edits); the characters
  lie in a field's result (a value Word recomputes, which
  loses direct formatting on update), in something that is not an ordinary run (math), or a
  run or paragraph already carries a pending formatting change (``w:rPrChange`` /
  ``w:pPrChange``, anyone's: Word cannot record one on another -- decide it first);
* ``not_found``: a ``style`` the document does not define as a paragraph style (the hint lists
  the ones it has, at most :data:`LISTED_STYLES`);
* ``no_change``: every quoted character (every paragraph, for ``style``) already has it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lxml import etree

from shared_schema import EditStatus
from shared_schema.records import EditRecord

from ..opc.namespaces import REL_BASE, REL_STYLES, w
from ..read.view import DocumentView, Paragraph, SpanFlag, SpanKind
from .locate import Found

if TYPE_CHECKING:
    from shared_schema.models import FormatSpec

__all__ = [
    "LISTED_STYLES",
    "RUN_TAGS",
    "FormatPlan",
    "FormatRefusal",
    "Styles",
    "plan_format",
    "style_key",
]  # fmt: skip

LISTED_STYLES = 30  # paragraph styles a refusal's hint names at most

_R, _P, _RPR, _PPR = w("r"), w("p"), w("rPr"), w("pPr")
_RPR_CHANGE, _PPR_CHANGE = w("rPrChange"), w("pPrChange")
_VAL = w("val")
_TRUE = frozenset(["1", "true", "on"])
#: The run key -> its element (its complex-script twin is written with it: ``bCs``, ``iCs``).
RUN_TAGS: dict[str, str] = {
    "bold": w("b"), "italic": w("i"), "underline": w("u"), "strike": w("strike"),
    "caps": w("caps"), "small_caps": w("smallCaps"), "highlight": w("highlight"),
}  # fmt: skip
_TOGGLES = frozenset(["bold", "italic", "strike", "caps", "small_caps"])


def style_key(name: str) -> str:
    """A style's name or id as compared: case, spaces, ``_`` and ``-`` forgiven."""
    return "".join(ch for ch in name.casefold() if not ch.isspace() and ch not in "_-")


def value_of(key: str, el: etree._Element) -> object:
    """What one property element says: a toggle's bool, an underline's or highlight's value."""
    val = el.get(_VAL)
    if key in _TOGGLES:
        return val is None or val.strip().lower() in _TRUE
    if key == "underline":
        return val or "single"
    return val or "none"


def _direct(rpr: etree._Element | None) -> dict[str, object]:
    found: dict[str, object] = {}
    if rpr is None:
        return found
    for key, tag in RUN_TAGS.items():
        el = rpr.find(tag)
        if el is not None:
            found[key] = value_of(key, el)
    return found


_OFF: dict[str, object] = {k: (False if k in _TOGGLES else "none") for k in RUN_TAGS}


@dataclass
class _Style:
    sid: str
    kind: str
    name: str
    based_on: str | None
    rpr: dict[str, object]


@dataclass
class Styles:
    """A document's styles as a format entry needs them (from ``word/styles.xml``)."""

    by_id: dict[str, _Style] = field(default_factory=dict)
    defaults: dict[str, object] = field(default_factory=dict)  # w:docDefaults run properties
    default_paragraph: str | None = None
    untracked: bool = False  # settings.xml's w:doNotTrackFormatting: Word itself records none
    _chains: dict[tuple[str, str], dict[str, object]] = field(default_factory=dict)

    @classmethod
    def of(cls, root: etree._Element | None) -> Styles:
        styles = cls()
        if root is None:
            return styles
        styles.defaults = _direct(root.find(f"{w('docDefaults')}/{w('rPrDefault')}/{_RPR}"))
        for st in root.iterchildren(w("style")):
            sid = st.get(w("styleId"))
            if not sid:
                continue
            kind = st.get(w("type"), "paragraph")
            name_el = st.find(w("name"))
            based = st.find(w("basedOn"))
            styles.by_id.setdefault(
                sid,
                _Style(sid, kind, (name_el.get(_VAL) if name_el is not None else None) or sid,
                       based.get(_VAL) if based is not None else None, _direct(st.find(_RPR))),
            )  # fmt: skip
            if (
                kind == "paragraph"
                and st.get(w("default")) in ("1", "true", "on")
                and styles.default_paragraph is None
            ):
                styles.default_paragraph = sid
        return styles

    @classmethod
    def of_view(cls, view: DocumentView) -> Styles | None:
        """The styles of the document ``view`` was read from; None for a view without its
        package (a streamed verify-only view)."""
        if view.working is None:
            return None
        package = view.working.package
        found = package.related(package.main_part, REL_STYLES)
        styles = cls.of(package.xml(found[0]) if found else None)
        settings = package.related(package.main_part, REL_BASE + "settings")
        if settings:
            root = package.xml(settings[0])
            flag = root.find(w("doNotTrackFormatting"))
            styles.untracked = flag is not None and (flag.get(_VAL) or "true").lower() in _TRUE
        return styles

    def chain(self, sid: str | None, kind: str) -> dict[str, object]:
        """The run properties style ``sid`` (of ``kind``) gives, through its ``basedOn`` chain
        (the nearest definition wins; a circle is followed once round)."""
        if sid is None:
            return {}
        key = (sid, kind)
        cached = self._chains.get(key)
        if cached is not None:
            return cached
        order: list[_Style] = []
        seen: set[str] = set()
        at: str | None = sid
        while at is not None and at not in seen:
            seen.add(at)
            st = self.by_id.get(at)
            if st is None or st.kind != kind:
                break
            order.append(st)
            at = st.based_on
        out: dict[str, object] = {}
        for st in reversed(order):
            out.update(st.rpr)
        self._chains[key] = out
        return out

    def paragraph_style(self, p: etree._Element) -> str | None:
        """The style id paragraph ``p`` has (its ``w:pStyle``, else the default paragraph style)."""
        ppr = p.find(_PPR)
        ps = ppr.find(w("pStyle")) if ppr is not None else None
        sid = ps.get(_VAL) if ps is not None else None
        return sid if sid else self.default_paragraph

    def inherited(self, rpr: etree._Element | None, p: etree._Element | None) -> dict[str, object]:
        """What a run with properties ``rpr`` in paragraph ``p`` gets from the styles and the
        defaults (every run key)."""
        out = {**_OFF, **self.defaults}
        if p is not None:
            out.update(self.chain(self.paragraph_style(p), "paragraph"))
        rs = rpr.find(w("rStyle")) if rpr is not None else None
        if rs is not None:
            out.update(self.chain(rs.get(_VAL), "character"))
        return out

    def effective(self, rpr: etree._Element | None, p: etree._Element | None) -> dict[str, object]:
        """The run keys' effective values for a run with properties ``rpr`` in ``p``."""
        return {**self.inherited(rpr, p), **_direct(rpr)}

    def resolve(self, name: str) -> _Style | None:
        """The paragraph style ``name`` names: its id, else its name (forgiving case and
        spacing: :func:`style_key`); an exact id first."""
        paragraph = [s for s in self.by_id.values() if s.kind == "paragraph"]
        for st in paragraph:
            if st.sid == name:
                return st
        for st in paragraph:
            if st.name == name:
                return st
        wanted = style_key(name)
        for st in paragraph:
            if style_key(st.sid) == wanted or style_key(st.name) == wanted:
                return st
        return None

    def named_other(self, name: str) -> _Style | None:
        """A style of another type (character, table, numbering) ``name`` names."""
        wanted = style_key(name)
        for st in self.by_id.values():
            if st.kind != "paragraph" and wanted in (style_key(st.sid), style_key(st.name)):
                return st
        return None

    def paragraph_names(self) -> list[str]:
        names = [s.name for s in self.by_id.values() if s.kind == "paragraph"]
        return [n[:1].upper() + n[1:] for n in names]


@dataclass(frozen=True)
class FormatPlan:
    """What one format entry sets: run keys (their targets) and a paragraph style id."""

    run: tuple[tuple[str, object], ...]
    style: str | None
    styles: Styles = field(compare=False, repr=False)

    def run_changes(self, rpr: etree._Element | None, p: etree._Element | None) -> dict[str, object]:
        """The run keys a run (properties ``rpr``, in ``p``) does not have yet, with their targets."""
        have = self.styles.effective(rpr, p)
        return {k: v for k, v in self.run if have.get(k) != v}

    def restyles(self, p: etree._Element) -> bool:
        """Does paragraph ``p`` need the plan's style?"""
        return self.style is not None and self.styles.paragraph_style(p) != self.style


@dataclass(frozen=True)
class FormatRefusal:
    status: EditStatus
    message: str
    hint: str


def run_of(node: etree._Element) -> etree._Element | None:
    """The ``w:r`` a text piece's node (a ``w:t``, ``w:tab``, ...) lies in, or None."""
    run = node.getparent()
    return run if run is not None and run.tag == _R else None


def paragraph_of(el: etree._Element) -> etree._Element | None:
    node: etree._Element | None = el.getparent()
    while node is not None and node.tag != _P:
        node = node.getparent()
    return node


def rpr_of(run: etree._Element) -> etree._Element | None:
    for child in run:
        if child.tag == _RPR:
            return child
    return None


def _targets(spec: FormatSpec) -> tuple[tuple[str, object], ...]:
    return tuple(spec.run_keys().items())


def plan_format(
    view: DocumentView, edit: EditRecord, found: Found, styles: Styles | None
) -> FormatPlan | FormatRefusal:
    """The plan of a located ``format`` entry, or why it is refused (see the module)."""
    spec = edit.format
    assert spec is not None
    if styles is None:  # a streamed verify-only view: nothing to check against
        return FormatPlan(_targets(spec), spec.style, Styles())
    style_id: str | None = None
    if spec.style is not None:
        st = styles.resolve(spec.style)
        if st is None:
            names = styles.paragraph_names()
            listed = ", ".join(f"\u201c{n}\u201d" for n in names[:LISTED_STYLES])
            more = f" and {len(names) - LISTED_STYLES} more" if len(names) > LISTED_STYLES else ""
            other = styles.named_other(spec.style)
            what = (
                f"\u201c{spec.style}\u201d is a {other.kind} style, not a paragraph style"
                if other is not None
                else f"The document defines no paragraph style \u201c{spec.style}\u201d"
            )
            return FormatRefusal(
                EditStatus.NOT_FOUND,
                f"{what}.",
                f"Use one of its paragraph styles: {listed}{more}."
                if names
                else "The document defines no paragraph styles.",
            )
        style_id = st.sid
    plan = FormatPlan(_targets(spec), style_id, styles)
    try:
        return _check(view, plan, found)
    except TypeError:  # a view without trees (verify-only): located, not checked
        return plan


def _check(view: DocumentView, plan: FormatPlan, found: Found) -> FormatPlan | FormatRefusal:
    changes = False
    for s, e in found.ranges:
        if view.paragraph_at(s).story_no != view.paragraph_at(max(s, e - 1)).story_no:
            return FormatRefusal(
                EditStatus.UNSUPPORTED,
                "The anchor runs from one part of the document into another (e.g. body into "
                "header, or one footnote into the next).",
                "Send one entry per part, each quoting text of that part only.",
            )
        for piece in view.pieces(s, e):
            if piece.kind is SpanKind.MARK:
                continue
            if piece.flags & SpanFlag.FIELD_RESULT:
                return FormatRefusal(
                    EditStatus.UNSUPPORTED,
                    "The quoted text is (or holds) the result of a field (a value Word computes, "
                    "such as a cross-reference or a date): Word drops direct formatting of it at "
                    "the next update.",
                    "Quote only ordinary text around the field, or format the field in Word.",
                )
            run = run_of(piece.node)
            if run is None:
                return FormatRefusal(
                    EditStatus.UNSUPPORTED,
                    "The quoted text is not in an ordinary run (e.g. an equation), whose "
                    "formatting no tracked change records.",
                    "Quote only ordinary text.",
                )
            rpr = rpr_of(run)
            if plan.run and rpr is not None and rpr.find(_RPR_CHANGE) is not None:
                return _pending("characters")
            if plan.run and plan.run_changes(rpr, paragraph_of(run)):
                changes = True
        if plan.style is not None:
            for para in view.paragraphs_between(s, e):
                p = para.element
                ppr = p.find(_PPR)
                if ppr is not None and ppr.find(_PPR_CHANGE) is not None:
                    return _pending("paragraph")
                if plan.restyles(p):
                    changes = True
        if plan.run:
            for para in whole_paragraphs(view, s, e):
                mark = para.element.find(f"{_PPR}/{_RPR}")
                if mark is not None and mark.find(_RPR_CHANGE) is not None:
                    return _pending("paragraph mark")
    if not changes:
        what = (
            "paragraph already has that style"
            if plan.style and not plan.run
            else "quoted text already has that formatting"
        )
        return FormatRefusal(
            EditStatus.NO_CHANGE,
            f"The {what} (directly or from its style), so the entry would change nothing.",
            "Drop the entry, or quote the text whose formatting should change.",
        )
    return plan


def _pending(what: str) -> FormatRefusal:
    return FormatRefusal(
        EditStatus.UNSUPPORTED,
        f"The quoted {what} already carries a pending tracked formatting change, and Word "
        "cannot record one formatting change on another.",
        "Decide that change first (accept or reject it: its id is shown in the marked-up "
        "text), then send this entry again.",
    )


def format_note(plan: FormatPlan, edit: EditRecord) -> str:
    """The note a planned format entry's result carries (the report and the review page show
    its anchor and an empty replacement, as for every entry that changes no text)."""
    said = ", ".join(f"{k}: {json.dumps(v)}" for k, v in plan.run)
    if edit.format is not None and edit.format.style is not None:
        said = ", ".join(filter(None, [said, f"style: {json.dumps(plan.style or edit.format.style)}"]))
    note = f"A tracked formatting change ({said}); the text is unchanged."
    if plan.styles.untracked:
        note += (
            " The document asks Word not to track formatting changes (w:doNotTrackFormatting): "
            "Word itself would record none; this one is recorded all the same, and Word shows it."
        )
    return note


def whole_paragraphs(view: DocumentView, s: int, e: int) -> list[Paragraph]:
    """The paragraphs whose whole (non-empty) text view range [s, e) covers: their marks'
    formatting changes with their text, as Word's does."""
    return [p for p in view.paragraphs_between(s, e) if p.end > p.start and s <= p.start and p.end <= e]
