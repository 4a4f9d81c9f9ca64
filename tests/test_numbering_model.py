"""Property tests: generated numbering definitions and paragraphs, against a plain counter model.

Hypothesis draws a few abstract lists (levels with start values, formats, multi-level
templates, ``w:isLgl``, ``w:lvlRestart``, levels linked to styles), several ``w:num`` sharing
them (with ``w:startOverride`` and ``w:lvlOverride``), paragraph styles with numbering and
``w:basedOn`` chains, and a sequence of paragraphs numbered directly, through their style, or
not at all (``w:numId`` 0).  The model below counts as the rules of ECMA-376 §17.9 say (and
LibreOffice shows, see tests/numbering_cases.py), written plainly and on its own: one counter
per list and level, nothing cached.  :class:`redline.read.numbering.Numbering` must give the same
label to every paragraph.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.read.numbering import Numbering
from tests.numbering_cases import W_NS, numpr

LEVELS = 4
FORMATS = (
    "decimal", "lowerLetter", "upperLetter", "lowerRoman", "upperRoman", "none", "bullet", "decimalZero",
)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# What is generated


@dataclass(frozen=True)
class LevelDef:
    start: int
    fmt: str
    text: str  # w:lvlText, "%1.%2" style
    legal: bool
    restart: int | None  # w:lvlRestart (1-based level after which to restart; 0: never)
    style: str | None  # w:pStyle: the paragraph style linked to this level


@dataclass(frozen=True)
class NumDef:
    abstract: int
    start_overrides: dict[int, int]
    level_overrides: dict[int, LevelDef]


@dataclass(frozen=True)
class StyleDef:
    style_id: str
    based_on: str | None
    num_id: int | None
    ilvl: int | None


@dataclass(frozen=True)
class ParaDef:
    style: str | None
    num_id: int | None
    ilvl: int | None


@dataclass
class Document:
    abstracts: list[dict[int, LevelDef]]
    nums: dict[int, NumDef]
    styles: list[StyleDef] = field(default_factory=list)
    paragraphs: list[ParaDef] = field(default_factory=list)


STYLE_IDS = ("StyleA", "StyleB", "StyleC", "StyleD")


@st.composite
def level_defs(draw: st.DrawFn, ilvl: int) -> LevelDef:
    placeholders = draw(st.lists(st.integers(0, ilvl), min_size=0, max_size=3, unique=True))
    if draw(st.booleans()):
        placeholders = list(range(ilvl + 1))  # the usual "%1.%2.%3"
    text = draw(st.sampled_from(["", "(", "Art "])) + ".".join(f"%{k + 1}" for k in sorted(placeholders))
    text += draw(st.sampled_from(["", ".", ")"]))
    return LevelDef(
        start=draw(st.integers(0, 3)),
        fmt=draw(st.sampled_from(FORMATS)),
        text=text,
        legal=draw(st.booleans()) and ilvl > 0,
        restart=draw(st.none() | st.integers(0, LEVELS)),
        style=draw(st.none() | st.sampled_from(STYLE_IDS)),
    )


@st.composite
def documents(draw: st.DrawFn) -> Document:
    abstracts = [
        {i: draw(level_defs(i)) for i in range(LEVELS) if i == 0 or draw(st.integers(0, 5))}
        for _ in range(draw(st.integers(1, 3)))
    ]
    nums: dict[int, NumDef] = {}
    for num_id in range(1, draw(st.integers(1, 5)) + 1):
        abstract = draw(st.integers(0, len(abstracts) - 1))
        starts = draw(st.dictionaries(st.integers(0, LEVELS - 1), st.integers(0, 5), max_size=2))
        overrides = draw(st.dictionaries(st.integers(0, LEVELS - 1), st.just(0), max_size=1))
        nums[num_id] = NumDef(abstract, starts, {i: draw(level_defs(i)) for i in overrides})
    num_ids = st.sampled_from([0, *nums])  # 0: numbering removed
    styles: list[StyleDef] = []
    for i, style_id in enumerate(STYLE_IDS):
        based_on = draw(st.none() | st.sampled_from(STYLE_IDS[:i])) if i else None  # acyclic
        styles.append(
            StyleDef(
                style_id, based_on, draw(st.none() | num_ids), draw(st.none() | st.integers(0, LEVELS - 1))
            )
        )
    paragraphs = draw(
        st.lists(
            st.builds(
                ParaDef,
                style=st.none() | st.sampled_from(STYLE_IDS),
                num_id=st.none() | num_ids,
                ilvl=st.none() | st.integers(0, LEVELS - 1),
            ),
            min_size=1,
            max_size=40,
        )
    )
    return Document(abstracts, nums, styles, paragraphs)


# ---------------------------------------------------------------------------------------------
# The model


def _letters(n: int, alphabet: str) -> str:
    if n <= 0:
        return str(n)
    return alphabet[(n - 1) % 26] * ((n - 1) // 26 + 1)


def _roman(n: int) -> str:
    if n <= 0:
        return str(n)
    out = ""
    for value, glyph in zip(
        (1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1),
        ("M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"),
        strict=True,
    ):
        while n >= value:
            out, n = out + glyph, n - value
    return out


def _show(n: int, fmt: str) -> str:
    if fmt == "lowerLetter":
        return _letters(n, "abcdefghijklmnopqrstuvwxyz")
    if fmt == "upperLetter":
        return _letters(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    if fmt == "lowerRoman":
        return _roman(n).lower()
    if fmt == "upperRoman":
        return _roman(n)
    if fmt in ("none", "bullet"):
        return ""
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def model_labels(doc: Document) -> list[str | None]:
    """Every paragraph's label, counted as §17.9 says, one paragraph after another."""
    styles = {s.style_id: s for s in doc.styles}

    def chain(style_id: str | None) -> list[StyleDef]:
        out = []
        while style_id is not None and style_id in styles:
            out.append(styles[style_id])
            style_id = styles[style_id].based_on
        return out

    counters: dict[int, list[int | None]] = {}  # per abstract list: last number per level
    used_overrides: set[tuple[int, int]] = set()
    labels: list[str | None] = []
    for p in doc.paragraphs:
        styled = chain(p.style)
        # §17.3.1.19: the paragraph's own numPr, else its style chain's (nearest first)
        num_id = p.num_id
        from_style = num_id is None
        if from_style:
            num_id = next((s.num_id for s in styled if s.num_id is not None), None)
        if not num_id or num_id not in doc.nums:
            labels.append(None)  # no numbering, or w:numId 0 (§17.9.19)
            continue
        num_def = doc.nums[num_id]
        levels = dict(doc.abstracts[num_def.abstract])
        for ilvl_, override in num_def.level_overrides.items():  # §17.9.9, §17.9.7
            levels[ilvl_] = replace(override, restart=None)  # Word ignores its w:lvlRestart
        ilvl = p.ilvl
        if ilvl is None and from_style:  # §17.9.24: the level linked to the style wins
            for s in styled:
                linked = [i for i in sorted(levels) if levels[i].style == s.style_id]
                if linked:
                    ilvl = linked[0]
                    break
        if ilvl is None:
            ilvl = next((s.ilvl for s in styled if s.ilvl is not None), 0)
        if ilvl not in levels:
            labels.append(None)  # no such level
            continue
        level = levels[ilvl]
        count = counters.setdefault(num_def.abstract, [None] * LEVELS)
        if ilvl in num_def.start_overrides and (num_id, ilvl) not in used_overrides:
            used_overrides.add((num_id, ilvl))  # §17.9.27: restarts where first used
            count[ilvl] = num_def.start_overrides[ilvl]
        else:
            previous = count[ilvl]
            count[ilvl] = level.start if previous is None else previous + 1
        for higher in range(ilvl):  # a skipped level: its start value, now used
            if count[higher] is None:
                count[higher] = levels[higher].start if higher in levels else 0
        for deeper in range(ilvl + 1, LEVELS):  # §17.9.11: deeper levels restart
            restart = levels[deeper].restart if deeper in levels else None
            if restart is None or restart > deeper or (restart != 0 and ilvl < restart):
                count[deeper] = None
        if level.fmt == "bullet":
            labels.append(None)
            continue
        text = level.text
        for k in range(LEVELS, 0, -1):
            if f"%{k}" not in text:
                continue
            ref = levels.get(k - 1)
            value = count[k - 1]
            if value is None:
                value = max((ref.start if ref is not None else 1) - 1, 0)
            fmt = ref.fmt if ref is not None else "decimal"
            if level.legal and fmt not in ("none", "bullet", "decimalZero"):
                fmt = "decimal"  # §17.9.4 (a decimalZero level keeps its zero: "1.01")
            text = text.replace(f"%{k}", _show(value, fmt))
        labels.append(text.strip())
    return labels


# ---------------------------------------------------------------------------------------------
# The same document as WordprocessingML


def _level_xml(ilvl: int, level: LevelDef) -> str:
    extra = ("<w:isLgl/>" if level.legal else "") + (
        "" if level.restart is None else f'<w:lvlRestart w:val="{level.restart}"/>'
    )
    extra += "" if level.style is None else f'<w:pStyle w:val="{level.style}"/>'
    return (
        f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{level.start}"/><w:numFmt w:val="{level.fmt}"/>'
        f'{extra}<w:lvlText w:val="{level.text}"/></w:lvl>'
    )


def numbering_of(doc: Document) -> Numbering:
    parts = [
        f'<w:abstractNum w:abstractNumId="{i}">'
        + "".join(_level_xml(ilvl, lv) for ilvl, lv in sorted(levels.items()))
        + "</w:abstractNum>"
        for i, levels in enumerate(doc.abstracts)
    ]
    for num_id, nd in doc.nums.items():
        overrides = ""
        for ilvl in sorted({*nd.start_overrides, *nd.level_overrides}):
            inner = (
                ""
                if ilvl not in nd.start_overrides
                else f'<w:startOverride w:val="{nd.start_overrides[ilvl]}"/>'
            )
            inner += "" if ilvl not in nd.level_overrides else _level_xml(ilvl, nd.level_overrides[ilvl])
            overrides += f'<w:lvlOverride w:ilvl="{ilvl}">{inner}</w:lvlOverride>'
        parts.append(f'<w:num w:numId="{num_id}"><w:abstractNumId w:val="{nd.abstract}"/>{overrides}</w:num>')
    style_xml = "".join(
        f'<w:style w:type="paragraph" w:styleId="{s.style_id}"><w:name w:val="{s.style_id}"/>'
        + ("" if s.based_on is None else f'<w:basedOn w:val="{s.based_on}"/>')
        + ("" if s.num_id is None and s.ilvl is None else f"<w:pPr>{numpr(s.num_id, s.ilvl)}</w:pPr>")
        + "</w:style>"
        for s in doc.styles
    )
    return Numbering.from_parts(
        etree.fromstring(f'<w:numbering xmlns:w="{W_NS}">{"".join(parts)}</w:numbering>'),
        etree.fromstring(f'<w:styles xmlns:w="{W_NS}">{style_xml}</w:styles>'),
    )


def paragraph_xml(p: ParaDef) -> etree._Element:
    ppr = "" if p.style is None else f'<w:pStyle w:val="{p.style}"/>'
    if p.num_id is not None or p.ilvl is not None:
        ppr += numpr(p.num_id, p.ilvl)
    return etree.fromstring(f'<w:p xmlns:w="{W_NS}"><w:pPr>{ppr}</w:pPr><w:r><w:t>x</w:t></w:r></w:p>')


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(doc=documents())
def test_labels_agree_with_a_plain_counter_model(doc: Document) -> None:
    numbering = numbering_of(doc)
    got = [numbering.label(paragraph_xml(p)) for p in doc.paragraphs]
    assert got == model_labels(doc)
