"""Paragraph numbers as Word displays them ("4.2", "(a)", "iii.", "Article 1"), and outline levels.

Word does not store a list paragraph's number in the document: it computes it while laying the
document out, from ``numbering.xml`` (ECMA-376 Part 1 §17.9) and the paragraph-style chain in
``styles.xml`` (§17.7). This module repeats that computation so a paragraph can carry its label
as metadata ("§4.2, paragraph 57") without ever being part of the view's text.

Use: build one :class:`Numbering` per document with :meth:`Numbering.from_parts` (pass
``numbering_xml=None`` for a document without ``numbering.xml``: outline levels still come from
the styles), then call :meth:`Numbering.label` (or :meth:`Numbering.number`) once for every
paragraph of the body, in document order; counters advance as Word's do.
:meth:`Numbering.level` and :meth:`Numbering.outline_level` count nothing and may be called
any time. Level definitions per ``(numId, ilvl)`` are built once and the numbering each
paragraph style resolves to is cached, so a paragraph costs one pass over its ``w:pPr`` and a
few dict lookups.

Odd input never raises: a missing or malformed attribute, an unknown ``numId``, a
``w:numStyleLink`` cycle: each yields "no label" rather than an exception; a ``w:basedOn``
cycle ends a style's chain where it would repeat. Chains are followed without recursion and
each style is read once, however deep (:func:`first_along`).

Counting follows Word rather than the letter of the spec where they differ:

* lists (``w:num``) that share an abstract definition share one set of counters, so numbering
  continues from one ``numId`` to the next; a ``w:startOverride`` restarts the shared counter the
  first time its ``(numId, ilvl)`` is used (§17.9.27), once;
* when a level is used, deeper levels restart (unless their ``w:lvlRestart`` says otherwise,
  §17.9.11); a shallower level that has not been used since its restart, when a deeper one is
  (a "%1.%2.%3" item right under "2."), takes its start value and counts as used: "2.1.1",
  then "2.2" for the next second-level item, as LibreOffice numbers (and as the documents'
  own cross-references do);
* tracked changes are read as if every revision were accepted: ``w:pPrChange`` (the *old*
  properties) is ignored, and a paragraph whose mark is deleted (``w:pPr/w:rPr/w:del`` or
  ``w:moveFrom``) has no number of its own: once accepted it merges into the next paragraph,
  whose mark and properties survive.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Final, NamedTuple, TypeVar

from lxml import etree

from ..opc.namespaces import MC_NS, W14_NS
from .numformat import format_number as format_number  # re-exported: it lived here
from .roles import TRANSITIONAL, Names, ParagraphProps, int_value, names_for, read_ppr

MAX_LEVELS = 9
"""Word lists have nine levels, ``ilvl`` 0..8 (§17.9.3)."""

T = TypeVar("T")
_Write = Callable[[list[int | None]], str]  # a label of one list level, from the list's counters


# --------------------------------------------------------------------------------------------
# Names


_MC_ALTERNATE = f"{{{MC_NS}}}AlternateContent"
_MC_CHOICE = f"{{{MC_NS}}}Choice"
_MC_FALLBACK = f"{{{MC_NS}}}Fallback"
_W14_FORMAT = f"{{{W14_NS}}}format"


def _on(el: etree._Element | None, n: Names) -> bool:
    """An ``ST_OnOff`` toggle: present without ``w:val``, or with a true value (§17.17.4)."""
    if el is None:
        return False
    value = el.get(n.val)
    return value is None or value.strip().lower() not in ("0", "false", "off")


def _child(el: etree._Element | None, tag: str) -> etree._Element | None:
    if el is None:
        return None
    for child in el:
        if child.tag == tag:
            return child
    return None


def _child_val(el: etree._Element | None, tag: str, n: Names) -> str | None:
    child = _child(el, tag)
    return None if child is None else child.get(n.val)


# --------------------------------------------------------------------------------------------
# Definitions

_MAX_LEVEL_TEXT = 256  # characters of a level's w:lvlText or custom number format kept


class Level(NamedTuple):
    """One level of a list definition (``w:lvl``, §17.9.6), with only what the label needs."""

    start: int = 0
    fmt: str = "decimal"
    text: str = ""
    is_legal: bool = False
    restart: int | None = None
    """``w:lvlRestart``: restart after a use of a level with a smaller (0-based) index than
    this; 0 = never restart; None = restart after any shallower level (the default)."""
    style: str | None = None
    """``w:lvl/w:pStyle``: the paragraph style linked to this level."""

    @property
    def is_bullet(self) -> bool:
        return self.fmt == "bullet"


class _Instance(NamedTuple):
    """A resolved ``w:num``: its nine levels, the counters it shares, its start overrides."""

    list_key: str
    levels: tuple[Level | None, ...]
    start_overrides: dict[int, int]
    styles: dict[str, int]
    """The paragraph styles linked to a level (``w:lvl/w:pStyle``), with that level."""


class _StyleInfo(NamedTuple):
    """What a paragraph style resolves to through its ``w:basedOn`` chain."""

    num_id: int | None
    ilvl: int | None
    outline_level: int | None


class ListNumber(NamedTuple):
    """The list membership and number of one paragraph."""

    num_id: int
    ilvl: int
    label: str | None
    """The text Word shows ("4.2", "(a)"; "" for a level whose format is ``none``), or None
    for a bullet."""
    bullet: str | None = None
    """The bullet's text (``w:lvlText`` of a bullet level), else None."""


_PLACEHOLDER = re.compile(r"%([1-9])")
_HEADING_NAME = re.compile(r"heading\s*([1-9])", re.IGNORECASE)


def _parse_level(lvl: etree._Element, n: Names) -> Level:
    start = int_value(_child_val(lvl, f"{{{n.ns}}}start", n))
    fmt_el = _child(lvl, f"{{{n.ns}}}numFmt")
    fmt = None if fmt_el is None else fmt_el.get(n.val)
    if fmt_el is None:
        fmt = _alternate_num_fmt(lvl, n)
    elif fmt == "custom":
        pattern = fmt_el.get(f"{{{n.ns}}}format") or fmt_el.get(_W14_FORMAT)
        fmt = f"custom:{pattern}" if pattern else "decimal"
    text_el = _child(lvl, f"{{{n.ns}}}lvlText")
    text = "" if text_el is None else (text_el.get(n.val) or "")
    restart = int_value(_child_val(lvl, f"{{{n.ns}}}lvlRestart", n))
    return Level(
        start=start if start is not None else 0,
        # Every numbered paragraph renders these: a hostile megabyte here costs a megabyte (and
        # a regex pass) per paragraph. Word's own are a few characters.
        fmt=(fmt or "decimal")[:_MAX_LEVEL_TEXT],
        text=text[:_MAX_LEVEL_TEXT],
        is_legal=_on(_child(lvl, f"{{{n.ns}}}isLgl"), n),
        restart=restart if restart is None or restart >= 0 else None,
        style=_child_val(lvl, f"{{{n.ns}}}pStyle", n),
    )


def _alternate_num_fmt(lvl: etree._Element, n: Names) -> str | None:
    """``w:numFmt`` wrapped in ``mc:AlternateContent`` (Word 2010+ custom formats)."""
    tag = f"{{{n.ns}}}numFmt"
    for alt in lvl:
        if alt.tag != _MC_ALTERNATE:
            continue
        for branch in alt:
            if branch.tag not in (_MC_CHOICE, _MC_FALLBACK):
                continue
            el = _child(branch, tag)
            if el is None:
                continue
            value = el.get(n.val)
            if value == "custom":
                pattern = el.get(_W14_FORMAT) or el.get(f"{{{n.ns}}}format")
                if pattern:
                    return f"custom:{pattern}"
                continue
            if value:
                return value
    return None


def _levels_of(parent: etree._Element, n: Names) -> dict[int, Level]:
    levels: dict[int, Level] = {}
    for lvl in parent:
        if lvl.tag != f"{{{n.ns}}}lvl":
            continue
        ilvl = int_value(lvl.get(n.ilvl))
        if ilvl is not None and 0 <= ilvl < MAX_LEVELS and ilvl not in levels:
            levels[ilvl] = _parse_level(lvl, n)
    return levels


class Numbering:
    """Numbering definitions of one document, and the running counters of one story."""

    def __init__(
        self,
        instances: dict[int, _Instance],
        style_elements: dict[str, etree._Element],
        default_style: str | None,
        names: Names = TRANSITIONAL,
    ) -> None:
        self._instances = instances
        self._style_elements = style_elements
        self._styles: dict[str, _StyleInfo] = {}  # resolved lazily: styles.xml can be huge
        self._names_of: dict[str, tuple[str, ...]] = {}  # style_names, per style
        self._chains = _StyleChains(style_elements, names)
        self._linked: dict[int, dict[str, int | None]] = {}  # per numId, per style
        self._default_style = default_style
        self._names = names
        # Counters per list (everything sharing one abstract definition): the last number
        # used at each level, None when the level has not been used since it restarted.
        self._counters: dict[str, list[int | None]] = {}
        self._consumed: set[tuple[int, int]] = set()
        # What counts nothing, worked out once: the list membership of each distinct set of
        # paragraph properties (a document has a few dozen, shared by thousands of
        # paragraphs), and per (numId, ilvl) the levels a use sets up and restarts.
        self._members: dict[ParagraphProps, tuple[int, int, _Instance, Level] | None] = {}
        self._steps: dict[tuple[int, int], tuple[tuple[tuple[int, int], ...], tuple[int, ...]]] = {}
        self._writers: dict[tuple[int, int], _Write] = {}  # per (numId, ilvl)
        self._uses: dict[ParagraphProps, tuple[int, int, _Instance, Level, _Write | None] | None] = {}
        # The last paragraph read: label(), level() and outline_level() on the same paragraph,
        # one after another (as the view calls them), read its w:pPr once.
        self._last: tuple[etree._Element, ParagraphProps] | None = None

    def style_cycle(self) -> list[str] | None:
        """Paragraph styles based on each other round a circle (``w:basedOn``, §17.7.4.3), or
        None.  No style hierarchy Word writes has one; a reader that follows it naively never
        ends (LibreOffice loops on such a file), so the document is refused.  Iterative, each
        style visited once."""
        state: dict[str, int] = {}  # 1: on the current chain, 2: done
        for start in self._style_elements:
            chain: list[str] = []
            current: str | None = start
            while current is not None and current not in state:
                state[current] = 1
                chain.append(current)
                current = self._chains.parent(current)
            if current is not None and state[current] == 1:
                return chain[chain.index(current) :]
            for style in chain:
                state[style] = 2
        return None

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def empty(cls) -> Numbering:
        """Numbering of a document without ``numbering.xml``: no paragraph has a label."""
        return cls({}, {}, None)

    @classmethod
    def from_parts(cls, numbering_xml: etree._Element | None, styles_xml: etree._Element | None) -> Numbering:
        """Precompute list levels per ``numId`` and numbering per paragraph style.

        ``numbering_xml`` is the root of ``word/numbering.xml`` (``w:numbering``) and
        ``styles_xml`` the root of ``word/styles.xml`` (``w:styles``); either may be None.
        """
        # no last resort: odd input never raises (tests/test_numbering.py fuzzes it), and a bug
        # here must surface -- swallowed, it would remove every label and section silently
        return cls._build(numbering_xml, styles_xml)

    @classmethod
    def _build(cls, numbering_xml: etree._Element | None, styles_xml: etree._Element | None) -> Numbering:
        n = names_for(numbering_xml if numbering_xml is not None else styles_xml)
        style_els: dict[str, etree._Element] = {}
        default_style: str | None = None
        if styles_xml is not None:
            for st in styles_xml:
                if st.tag != f"{{{n.ns}}}style":
                    continue
                style_id = st.get(f"{{{n.ns}}}styleId")
                if style_id is None or style_id in style_els:
                    continue
                style_els[style_id] = st
                if (
                    default_style is None
                    and st.get(f"{{{n.ns}}}type", "paragraph") == "paragraph"
                    and _on_attr(st.get(f"{{{n.ns}}}default"))
                ):
                    default_style = style_id
        instances = _build_instances(numbering_xml, style_els, n)
        return cls(instances, style_els, default_style, n)

    # -- per paragraph -----------------------------------------------------------------------

    def label(self, p: etree._Element) -> str | None:
        """The label Word shows for paragraph ``p`` (a ``w:p``), or None when unnumbered.

        Call once per paragraph, in document order, for every paragraph of ONE story (the
        body): counters advance as Word's do. Bullets have no label (None); a level whose
        format is ``none`` has the label "". Leading and trailing whitespace is stripped.
        """
        number = self.number(p)
        return None if number is None else number.label

    def number(self, p: etree._Element) -> ListNumber | None:
        """Like :meth:`label`, with the list, the level and the bullet; advances counters."""
        return self.number_of(self._props(p))

    def number_of(self, props: ParagraphProps) -> ListNumber | None:
        """:meth:`number` for a paragraph known by its properties (as the XML scanner reads
        them) rather than by its element."""
        return self._number(props)

    def level(self, p: etree._Element) -> int | None:
        """0-based list level (``ilvl``) of a list paragraph (numbered or bulleted), else None.

        Does not advance counters: call it as often as needed, before or after :meth:`label`.
        """
        membership = self._membership(self._props(p))
        return None if membership is None else membership[1]

    def outline_level(self, p: etree._Element) -> int | None:
        """0-based outline level of a heading paragraph, else None.

        From ``w:outlineLvl`` on the paragraph or its style chain, or a built-in
        ``heading N`` style; level 9 ("body text") is None. Does not advance counters.
        """
        return self.outline_level_of(self._props(p))

    def outline_level_of(self, props: ParagraphProps) -> int | None:
        """:meth:`outline_level` for a paragraph known by its properties."""
        if props.outline_set:
            return _outline(props.outline)
        info = self._style(props.style_id)
        return None if info is None else info.outline_level

    def reset(self) -> None:
        """Forget the running counters, to number another story from its start."""
        self._counters.clear()
        self._consumed.clear()

    # -- internals ---------------------------------------------------------------------------

    def _props(self, p: etree._Element) -> ParagraphProps:
        last = self._last
        if last is not None and last[0] is p:
            return last[1]
        props = read_ppr(p)
        self._last = (p, props)
        return props

    def style_names(self, style_id: str | None) -> tuple[str, ...]:
        """The names (``w:name``, as Word writes them: "toc 1", "heading 2") of paragraph style
        ``style_id`` and the styles it is based on, nearest first (the default paragraph style's
        for a paragraph naming none); cached per style."""
        if style_id is None or style_id not in self._style_elements:
            style_id = self._default_style
            if style_id is None:
                return ()
        cached = self._names_of.get(style_id)
        if cached is None:
            names: list[str] = []
            current: str | None = style_id
            seen: set[str] = set()
            while current is not None and current not in seen and len(seen) < 64:
                seen.add(current)
                name = _child_val(self._style_elements.get(current), f"{{{self._names.ns}}}name", self._names)
                if name:
                    names.append(name)
                current = self._chains.parent(current)
            cached = self._names_of[style_id] = tuple(names)
        return cached

    def _style(self, style_id: str | None) -> _StyleInfo | None:
        if style_id is None or style_id not in self._style_elements:
            style_id = self._default_style
            if style_id is None:
                return None
        try:
            return self._styles[style_id]
        except KeyError:
            info = self._styles[style_id] = self._chains.info(style_id)
            return info

    def _membership(self, props: ParagraphProps) -> tuple[int, int, _Instance, Level] | None:
        """The list, level and level definition a paragraph belongs to; counts nothing."""
        if not self._instances:
            return None
        if props.mark_deleted:
            # A deleted paragraph mark (§17.13.5, w:pPr/w:rPr/w:del or w:moveFrom): once
            # accepted, the paragraph merges into the next one, and has no number of its own.
            return None
        if props.section_break and props.empty:
            # An empty paragraph that only carries a section break: Word shows no number
            # there and does not count it (nor does LibreOffice, which drops the paragraph).
            return None
        num_id, ilvl = props.num_id, props.ilvl
        info = self._style(props.style_id)
        from_style = num_id is None
        if from_style and info is not None:
            num_id = info.num_id
        if not num_id:  # None, or numId 0: numbering removed (§17.9.19)
            return None
        instance = self._instances.get(num_id)
        if instance is None:
            return None
        if ilvl is None and info is not None:
            if from_style:
                # §17.9.24: for numbering that comes from the paragraph style, the level
                # linked to the style (w:lvl/w:pStyle) wins over the style's own w:ilvl.
                ilvl = self._linked_level(num_id, instance, props.style_id)
            if ilvl is None:
                ilvl = info.ilvl
        if ilvl is None:
            ilvl = 0
        if not 0 <= ilvl < MAX_LEVELS:
            return None
        level = instance.levels[ilvl]
        if level is None:
            return None
        return num_id, ilvl, instance, level

    def _linked_level(self, num_id: int, instance: _Instance, style_id: str | None) -> int | None:
        """The level whose ``w:pStyle`` names the paragraph's style or, nearest first, one it is
        based on (§17.9.24)."""
        if style_id is None or style_id not in self._style_elements:
            style_id = self._default_style
            if style_id is None:
                return None
        memo = self._linked.get(num_id)
        if memo is None:
            memo = self._linked[num_id] = {}
        elif style_id in memo:
            return memo[style_id]
        by_style = instance.styles
        if not by_style:
            return None
        return self._chains.first(style_id, by_style.get, memo)

    def _member(self, props: ParagraphProps) -> tuple[int, int, _Instance, Level] | None:
        """:meth:`_membership` of ``props``, worked out once per distinct properties."""
        try:
            return self._members[props]
        except KeyError:
            membership = self._members[props] = self._membership(props)
            return membership

    def _number(self, props: ParagraphProps) -> ListNumber | None:
        membership = self._member(props)
        if membership is None:
            return None
        num_id, ilvl, instance, level = membership
        counters = self._advance(instance, num_id, ilvl, level)
        if level.is_bullet:
            return ListNumber(num_id, ilvl, None, level.text)
        return ListNumber(num_id, ilvl, _render(instance, ilvl, level, counters), None)

    def label_of(self, props: ParagraphProps) -> tuple[str | None, int] | None:
        """(the label, the list level) of :meth:`number_of` ``props``, or None when it has no
        number: the same count, for a caller that needs neither the list nor the bullet (the
        labelling pass, once per body paragraph), the label written the short way
        (:func:`_writer`; :meth:`number_of` renders it the long way, and the tests hold the two
        equal)."""
        try:
            use = self._uses[props]
        except KeyError:
            use = self._uses[props] = self._use(props)
        if use is None:
            return None
        num_id, ilvl, instance, level, write = use
        counters = self._advance(instance, num_id, ilvl, level)
        return None if write is None else write(counters), ilvl

    def _use(self, props: ParagraphProps) -> tuple[int, int, _Instance, Level, _Write | None] | None:
        """A paragraph's list membership (:meth:`_membership`) and how its label is written
        (None for a bullet), for :meth:`label_of`: worked out once per distinct properties."""
        membership = self._member(props)
        if membership is None:
            return None
        num_id, ilvl, instance, level = membership
        if level.is_bullet:
            return num_id, ilvl, instance, level, None
        write = self._writers.get((num_id, ilvl))
        if write is None:
            write = self._writers[num_id, ilvl] = _writer(instance, ilvl, level)
        return num_id, ilvl, instance, level, write

    def _advance(self, instance: _Instance, num_id: int, ilvl: int, level: Level) -> list[int | None]:
        counters = self._counters.get(instance.list_key)
        if counters is None:
            counters = self._counters[instance.list_key] = [None] * MAX_LEVELS
        override = instance.start_overrides.get(ilvl)
        if override is not None and (num_id, ilvl) not in self._consumed:
            self._consumed.add((num_id, ilvl))
            value = override
        else:
            current = counters[ilvl]
            value = (level.start - 1 if current is None else current) + 1
        counters[ilvl] = value
        steps = self._steps.get((num_id, ilvl))
        if steps is None:
            steps = self._steps[num_id, ilvl] = _steps(instance, ilvl)
        higher_starts, restarted = steps
        for higher, start in higher_starts:
            if counters[higher] is None:
                counters[higher] = start
        for deeper in restarted:
            counters[deeper] = None
        return counters


def _steps(instance: _Instance, ilvl: int) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """What a use of level ``ilvl`` of ``instance`` does to the other levels' counters: the
    shallower levels, each with the number it takes if it has not been used since it
    (re)started, and the deeper levels it restarts."""
    # A shallower level that has not occurred since it (re)started, as under a "2.1.1"
    # that follows "2." directly, or a first item at level 2: its number is taken to be
    # its start value (§17.9.26 w:start; the start of this instance's own level, so a
    # w:lvlOverride/w:lvl counts but a w:startOverride, which restarts a level only where
    # it is used, does not), and it now counts as used, so the next item at that level is
    # start + 1. LibreOffice counts so, as the document's own cross-references do.
    higher = tuple(
        (index, ref.start if ref is not None else 0) for index, ref in enumerate(instance.levels[:ilvl])
    )
    restarted: list[int] = []
    for deeper in range(ilvl + 1, MAX_LEVELS):
        deeper_level = instance.levels[deeper]
        restart = None if deeper_level is None else deeper_level.restart
        if restart is None or restart > deeper:
            restart = deeper  # default: restart after any shallower level
        if ilvl < restart:
            restarted.append(deeper)
    return higher, tuple(restarted)


def _on_attr(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("1", "true", "on")


def _outline(value: int | None) -> int | None:
    return value if value is not None and 0 <= value < MAX_LEVELS else None


# Formats legal numbering leaves as they are: a level's own arabic formats ("decimalZero": Word
# shows "Section 1.01"), and the levels that show no number.
_LEGAL_KEEPS: Final = frozenset({"none", "bullet", "decimal", "decimalZero"})


def _render(instance: _Instance, ilvl: int, level: Level, counters: list[int | None]) -> str:
    out: list[str] = []
    for literal, index in _template(level.text):
        out.append(literal)
        if index < 0:
            continue
        ref = level if index == ilvl else instance.levels[index]
        value = counters[index]
        if value is None:
            value = max((ref.start if ref is not None else 1) - 1, 0)
        fmt = ref.fmt if ref is not None else "decimal"
        if level.is_legal and fmt not in _LEGAL_KEEPS:  # §17.9.4: legal numbering
            fmt = "decimal"
        if fmt == "decimal":
            out.append(str(value))
        elif fmt != "bullet":
            out.append(format_number(value, fmt))
    return "".join(out).strip()


def _writer(instance: _Instance, ilvl: int, level: Level) -> _Write:
    """:func:`_render` of ``level`` (level ``ilvl`` of ``instance``) as a function of the
    counters alone, for counters as :meth:`Numbering._advance` leaves them (every level up to
    ``ilvl`` counted).  A label that shows only those levels, each in decimal (most: "4.2",
    "(a)" is not), is one ``%`` formatting of them; any other is rendered the long way."""
    pieces = _template(level.text)
    shown = [index for _, index in pieces if index >= 0]
    if any(index > ilvl for index in shown):
        return functools.partial(_render, instance, ilvl, level)
    for index in shown:
        ref = level if index == ilvl else instance.levels[index]
        fmt = ref.fmt if ref is not None else "decimal"
        if fmt != "decimal" and not (level.is_legal and fmt not in _LEGAL_KEEPS):
            return functools.partial(_render, instance, ilvl, level)
    form = "".join(literal.replace("%", "%%") + ("%d" if index >= 0 else "") for literal, index in pieces)
    if not shown:
        label = (form % ()).strip()
        return lambda _counters: label
    values = operator.itemgetter(*shown)  # (one index: the value itself, as "%d" takes it)
    return lambda counters: (form % values(counters)).strip()


@lru_cache(maxsize=512)
def _template(text: str) -> tuple[tuple[str, int], ...]:
    """A level text ("%1.%2.") as (literal, 0-based level or -1) pieces, parsed once."""
    pieces: list[tuple[str, int]] = []
    at = 0
    for m in _PLACEHOLDER.finditer(text):
        pieces.append((text[at : m.start()], int(m.group(1)) - 1))
        at = m.end()
    pieces.append((text[at:], -1))
    return tuple(pieces)


def _build_instances(
    numbering_xml: etree._Element | None, style_els: dict[str, etree._Element], n: Names
) -> dict[int, _Instance]:
    if numbering_xml is None:
        return {}
    abstracts: dict[str, etree._Element] = {}
    nums: dict[int, etree._Element] = {}
    for el in numbering_xml:
        if el.tag == f"{{{n.ns}}}abstractNum":
            key = el.get(f"{{{n.ns}}}abstractNumId")
            if key is not None and key.strip() not in abstracts:
                abstracts[key.strip()] = el
        elif el.tag == f"{{{n.ns}}}num":
            num_id = int_value(el.get(n.numId))
            if num_id is not None and num_id not in nums:
                nums[num_id] = el

    def abstract_of(num: etree._Element) -> str | None:
        value = _child_val(num, f"{{{n.ns}}}abstractNumId", n)
        return None if value is None else value.strip()

    def link_of(key: str) -> str | None:
        """Where ``w:numStyleLink`` leads (§17.9.22): the abstract definition of the list
        style's ``w:num``; the key itself when it holds its own levels, or links to a style
        that cannot be followed (its own levels are kept); None past the end (no such
        definition)."""
        abstract = abstracts.get(key)
        if abstract is None:
            return None
        link = _child_val(abstract, f"{{{n.ns}}}numStyleLink", n)
        if link is None:
            return key
        numpr = _child(_child(style_els.get(link), f"{{{n.ns}}}pPr"), n.numPr)
        target = nums.get(int_value(_child_val(numpr, n.numId, n)) or -1)
        next_key = abstract_of(target) if target is not None else None
        return key if next_key is None else next_key

    known: dict[str, str | None] = {}

    def resolve(key: str) -> str | None:
        """The abstract definition holding the levels ``key``'s list uses: ``w:numStyleLink``
        followed iteratively, every key on the way remembered; a cycle resolves to nothing."""
        path: list[str] = []
        seen: set[str] = set()
        current: str | None = key
        while current is not None and current not in known:
            if current in seen:
                current = None  # a cycle of links: no definition holds the levels
                break
            seen.add(current)
            path.append(current)
            following = link_of(current)
            if following == current:
                known[current] = current
                break
            current = following
        result = None if current is None else known[current]
        for step in path:
            known[step] = result
        return result

    level_cache: dict[str, dict[int, Level]] = {}
    instances: dict[int, _Instance] = {}
    for num_id, num in nums.items():
        key = abstract_of(num)
        resolved = resolve(key) if key is not None else None
        if resolved is None:
            continue
        if resolved not in level_cache:
            level_cache[resolved] = _levels_of(abstracts[resolved], n)
        levels = dict(level_cache[resolved])
        starts: dict[int, int] = {}
        for override in num:
            if override.tag != f"{{{n.ns}}}lvlOverride":
                continue
            ilvl = int_value(override.get(n.ilvl))
            if ilvl is None or not 0 <= ilvl < MAX_LEVELS:
                continue
            lvl = _child(override, f"{{{n.ns}}}lvl")
            if lvl is not None:
                # §17.9.7 (w:lvl in a w:lvlOverride) replaces the level for this w:num only; its
                # w:lvlRestart Word ignores (MS-OI29500 on §17.9.11): the level restarts as
                # by default.
                levels[ilvl] = _parse_level(lvl, n)._replace(restart=None)
            start = int_value(_child_val(override, f"{{{n.ns}}}startOverride", n))
            if start is not None:
                starts[ilvl] = start
        linked: dict[str, int] = {}
        for index in sorted(levels):
            style_id = levels[index].style
            if style_id is not None:
                linked.setdefault(style_id, index)
        instances[num_id] = _Instance(
            # Every w:num of one abstract definition (§17.9.16, §17.9.2), or linked to one
            # through a list style (§17.9.22), is one list: one set of counters.
            list_key=resolved,
            levels=tuple(levels.get(i) for i in range(MAX_LEVELS)),
            start_overrides=starts,
            styles=linked,
        )
    return instances


def first_along(
    start: str, parent: Callable[[str], str | None], own: Callable[[str], T | None], memo: dict[str, T | None]
) -> T | None:
    """The first value ``own`` gives along ``start``'s chain (``start``, ``parent(start)``, … up
    to the end or the first style met twice), without recursion, in time linear in the chain.

    ``memo`` keeps the answer of every style on the way, so a chain is walked once however
    many of its styles are asked for: a 10,000-deep ``w:basedOn`` chain costs 10,000 steps,
    not 10,000 per paragraph. A cycle is followed once round from each of its styles (the
    answer for a style on it is the first value from it onwards, round the cycle)."""
    path: list[str] = []
    at: dict[str, int] = {}
    current: str | None = start
    while current is not None and current not in memo and current not in at:
        at[current] = len(path)
        path.append(current)
        current = parent(current)
    if current is not None and current in at:  # a cycle: path[at[current]:], back to current
        cycle = path[at[current] :]
        del path[at[current] :]
        values = [own(style) for style in cycle]
        found: T | None = None
        for k in range(2 * len(cycle) - 1, -1, -1):  # twice round, backwards
            value = values[k % len(cycle)]
            if value is not None:
                found = value
            if k < len(cycle):
                memo[cycle[k]] = found
        current = cycle[0]
    result = memo.get(current) if current is not None else None
    for style in reversed(path):
        value = own(style)
        if value is not None:
            result = value
        memo[style] = result
    return memo[start]


class _StyleChains:
    """What paragraph styles get through their ``w:basedOn`` chains (§17.7.4.3), each style
    read once: numbering (``w:numPr``, §17.3.1.19) and outline level (§17.3.1.20)."""

    def __init__(self, style_els: dict[str, etree._Element], n: Names) -> None:
        self._els = style_els
        self._n = n
        self._num_id: dict[str, int | None] = {}
        self._ilvl: dict[str, int | None] = {}
        self._outline: dict[str, tuple[int | None] | None] = {}

    def parent(self, style_id: str) -> str | None:
        """The style ``style_id`` is based on, if there is one (a missing style ends a chain)."""
        el = self._els.get(style_id)
        based_on = _child_val(el, f"{{{self._n.ns}}}basedOn", self._n)
        return based_on if based_on is not None and based_on in self._els else None

    def first(self, style_id: str, own: Callable[[str], T | None], memo: dict[str, T | None]) -> T | None:
        return first_along(style_id, self.parent, own, memo)

    def _numpr(self, style_id: str, tag: str) -> int | None:
        n = self._n
        numpr = _child(_child(self._els.get(style_id), n.pPr), n.numPr)
        return None if numpr is None else int_value(_child_val(numpr, tag, n))

    def _own_outline(self, style_id: str) -> tuple[int | None] | None:
        n = self._n
        st = self._els.get(style_id)
        direct = _child(_child(st, n.pPr), n.outlineLvl)
        if direct is not None:
            return (_outline(int_value(direct.get(n.val))),)
        match = _HEADING_NAME.fullmatch((_child_val(st, f"{{{n.ns}}}name", n) or "").strip())
        return (int(match.group(1)) - 1,) if match else None

    def info(self, style_id: str) -> _StyleInfo:
        """Numbering and outline level of a paragraph style, from itself or, nearest first, the
        styles it is based on."""
        n = self._n
        outline = self.first(style_id, self._own_outline, self._outline)
        return _StyleInfo(
            num_id=self.first(style_id, lambda s: self._numpr(s, n.numId), self._num_id),
            ilvl=self.first(style_id, lambda s: self._numpr(s, n.ilvl), self._ilvl),
            outline_level=None if outline is None else outline[0],
        )
