"""Realistic contracts as .docx bytes, deterministic from a seed.

The generator writes what real Word contracts contain and what the pipeline must cope with:

- numbered clauses from one multi-level list in ``numbering.xml`` (``%1.`` headings linked to
  the *Heading 1* style, ``%1.%2`` clauses, ``(%3)`` lower-letter items, ``(%4)`` lower-roman
  sub-items, all set by ``w:numPr``): the labels are computed by Word, never typed as text;
- typography: defined terms in curly quotes (“Premises”), curly apostrophes (Tenant’s), a
  no-break space between "Section"/"Schedule" and its number, en dashes in ranges (2025–2030),
  em dashes, bold defined terms and a few italic runs;
- a table, a header, a footer with a ``PAGE`` field, a footnote;
- heavy run splitting as Word's revision-save ids produce it: each paragraph is cut into about
  ``runs_per_paragraph`` runs at random positions (mid-word too), each with a ``w:rsidR``, with
  adjacent runs of identical formatting, and ``w:proofErr``, ``w:bookmarkStart``/``End`` and
  ``w:lastRenderedPageBreak`` sprinkled between and inside them.

The text depends only on ``(kind, seed, pages, parties)``; ``runs_per_paragraph`` changes the
XML, never the text. The output is byte-for-byte reproducible (fixed zip timestamps and core
properties).

``python -m testing.contractgen OUTDIR`` regenerates the documents of ``sample_contracts/``.
The clause prose lives in ``testing/data/*.json``; this module turns it into documents.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import functools
import io
import itertools
import json
import random
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, cast, get_args

from lxml import etree

from redline.opc.namespaces import W_NS, XML_SPACE, w

from .zips import reproducible

Kind = Literal["lease", "nda", "msa"]
Story = Literal["body", "header", "footer", "footnotes"]

WORDS_PER_PAGE = 500
"""How ``pages`` is turned into an amount of text."""

NBSP = "\u00a0"

SAMPLES: dict[str, tuple[Kind, int]] = {
    "commercial-lease": ("lease", 0),
    "mutual-nda": ("nda", 0),
    "master-services-agreement": ("msa", 0),
}
"""The documents of ``sample_contracts/``: file stem → (kind, seed)."""

_FIXED_DATE = _dt.datetime(2025, 1, 6, 9, 0, 0, tzinfo=_dt.UTC)


# --------------------------------------------------------------------------------------------
# The clause banks: one JSON file per kind in ``testing/data/`` (``lease.json``, ``nda.json``,
# ``msa.json``), each a ``_Spec`` field by field. A clause is ``{"key", "title", "body"}`` with
# optional ``"items"`` (a string, or ``{"text", "children": [...]}`` for an item with
# sub-items), ``"footnote"`` and ``"table": {"header": [...], "rows": [[...], ...]}``.
#
# Template mini-language of every text (resolved in this order):
#   [[a|b|c]]   one alternative, chosen by the seed
#   **bold**    *italic*
#   ~           a no-break space ("Section~{ref:rent.late}")
#   {p1} {p2}   the parties' names;  {ref:article} / {ref:article.clause}  a clause's label
#   {cycle}     (in ``cycle_extra`` only) the name of the repetition, e.g. "Phase 2"
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Item:
    text: str
    children: tuple[str, ...] = ()


@dataclass(frozen=True)
class _TableSpec:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class _Clause:
    key: str
    title: str
    body: str
    items: tuple[_Item, ...] = ()
    footnote: str | None = None
    table: _TableSpec | None = None


@dataclass(frozen=True)
class _Article:
    key: str
    title: str
    clauses: tuple[_Clause, ...]


@dataclass(frozen=True)
class _Spec:
    title: str
    parties: tuple[str, str]
    front: tuple[str, ...]
    articles: tuple[_Article, ...]
    closing: tuple[str, ...]
    signature: tuple[str, ...]
    schedule_title: str
    schedule: tuple[str, ...]
    header: str
    footer: str
    cycle_word: str
    extra: tuple[str, ...]
    cycle_extra: tuple[str, ...]


DATA_DIR = Path(__file__).resolve().parent / "data"
"""Where the clause banks live."""


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}: expected a list of strings")
    return tuple(value)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: expected a string")
    return value


def _item(value: Any, where: str) -> _Item:
    if isinstance(value, str):
        return _Item(value)
    if not isinstance(value, dict) or set(value) != {"text", "children"}:
        raise ValueError(f"{where}: expected a string or {{text, children}}")
    return _Item(_string(value["text"], where), _strings(value["children"], where))


def _clause(value: Any, where: str) -> _Clause:
    known = {"key", "title", "body", "items", "footnote", "table"}
    if not isinstance(value, dict) or not {"key", "title", "body"} <= set(value) <= known:
        raise ValueError(f"{where}: expected a clause with key, title, body")
    key = _string(value["key"], where)
    where = f"{where} {key}"
    table = None
    if "table" in value:
        spec = value["table"]
        if not isinstance(spec, dict) or set(spec) != {"header", "rows"}:
            raise ValueError(f"{where}: a table is {{header, rows}}")
        if not isinstance(spec["rows"], list):
            raise ValueError(f"{where}: a table is {{header, rows}}")
        rows = tuple(_strings(r, f"{where} table") for r in spec["rows"])
        table = _TableSpec(_strings(spec["header"], f"{where} table"), rows)
    items = value.get("items", [])
    if not isinstance(items, list):
        raise ValueError(f"{where}: items must be a list")
    footnote = value.get("footnote")
    return _Clause(
        key=key,
        title=_string(value["title"], where),
        body=_string(value["body"], where),
        items=tuple(_item(i, where) for i in items),
        footnote=None if footnote is None else _string(footnote, where),
        table=table,
    )


def _article(value: Any, where: str) -> _Article:
    if not isinstance(value, dict) or set(value) != {"key", "title", "clauses"}:
        raise ValueError(f"{where}: expected an article with key, title, clauses")
    key = _string(value["key"], where)
    clauses = value["clauses"]
    if not isinstance(clauses, list):
        raise ValueError(f"{where} {key}: clauses must be a list")
    return _Article(key, _string(value["title"], where), tuple(_clause(c, f"{where} {key}") for c in clauses))


@functools.cache
def _spec(kind: Kind) -> _Spec:
    """The clause bank of ``kind``, read from ``DATA_DIR / f"{kind}.json"``."""
    path = DATA_DIR / f"{kind}.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    names = [f.name for f in fields(_Spec)]
    if not isinstance(raw, dict) or set(raw) != set(names):
        raise ValueError(f"{path}: expected exactly the fields {names}")
    where = path.name
    articles = raw["articles"]
    if not isinstance(articles, list):
        raise ValueError(f"{where}: articles must be a list")
    parties = _strings(raw["parties"], f"{where} parties")
    if len(parties) != 2:
        raise ValueError(f"{where}: parties must name two parties")
    return _Spec(
        title=_string(raw["title"], f"{where} title"),
        parties=(parties[0], parties[1]),
        front=_strings(raw["front"], f"{where} front"),
        articles=tuple(_article(a, where) for a in articles),
        closing=_strings(raw["closing"], f"{where} closing"),
        signature=_strings(raw["signature"], f"{where} signature"),
        schedule_title=_string(raw["schedule_title"], f"{where} schedule_title"),
        schedule=_strings(raw["schedule"], f"{where} schedule"),
        header=_string(raw["header"], f"{where} header"),
        footer=_string(raw["footer"], f"{where} footer"),
        cycle_word=_string(raw["cycle_word"], f"{where} cycle_word"),
        extra=_strings(raw["extra"], f"{where} extra"),
        cycle_extra=_strings(raw["cycle_extra"], f"{where} cycle_extra"),
    )




# --------------------------------------------------------------------------------------------
# The plan: every paragraph's text and formatting, before any XML
# --------------------------------------------------------------------------------------------

_Seg = tuple[str, bool, bool]  # text, bold, italic

_ParaKind = Literal[
    "title", "heading", "clause", "item", "subitem", "body", "signature", "schedule",
    "cell", "header", "footer", "footnote",
]  # fmt: skip


@dataclass
class _Para:
    kind: _ParaKind
    segs: list[_Seg]
    level: int | None = None
    label: str | None = None
    footnote: int | None = None  # id of the footnote referenced at the paragraph's end
    page_field: bool = False  # a PAGE field (cached result "1") at the paragraph's end
    right: bool = False  # right-aligned (amounts in a table)

    @property
    def text(self) -> str:
        return "".join(s[0] for s in self.segs) + ("1" if self.page_field else "")


@dataclass
class _Table:
    rows: list[list[_Para]]


@dataclass
class _Plan:
    title: str
    body: list[_Para | _Table] = field(default_factory=list)
    header: list[_Para] = field(default_factory=list)
    footer: list[_Para] = field(default_factory=list)
    footnotes: list[_Para] = field(default_factory=list)


@dataclass(frozen=True)
class GeneratedParagraph:
    """One paragraph of a generated contract, as a reader of the .docx should see it.

    ``label`` is what Word displays for the paragraph's list number (``"4."``, ``"4.2"``,
    ``"(a)"``, ``"(ii)"``) or None; ``level`` its list level (0 = article heading);
    ``section`` the label path of the enclosing clause (``"4.2"``) or None.
    """

    story: Story
    text: str
    label: str | None
    level: int | None
    section: str | None


_VAR_RE = re.compile(r"\[\[(.+?)\]\]")
_FMT_RE = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*")
_SLOT_RE = re.compile(r"\{(p1|p2|ref:[\w.]+)\}")


class _Renderer:
    def __init__(self, spec: _Spec, rng: random.Random, parties: tuple[str, str]) -> None:
        self.rng = rng
        self.parties = parties
        self.labels: dict[str, str] = {}
        for ai, art in enumerate(spec.articles, 1):
            self.labels[art.key] = str(ai)
            for ci, cl in enumerate(art.clauses, 1):
                self.labels[f"{art.key}.{cl.key}"] = f"{ai}.{ci}"

    def _slot(self, m: re.Match[str]) -> str:
        name = m.group(1)
        if name == "p1":
            return self.parties[0]
        if name == "p2":
            return self.parties[1]
        return self.labels[name[4:]]

    def __call__(self, template: str, *, bold: bool = False) -> list[_Seg]:
        text = _VAR_RE.sub(lambda m: self.rng.choice(m.group(1).split("|")), template)
        segs: list[_Seg] = []
        pos = 0
        for m in _FMT_RE.finditer(text):
            if m.start() > pos:
                segs.append((text[pos : m.start()], bold, False))
            if m.group(1) is not None:
                segs.append((m.group(1), True, False))
            else:
                segs.append((m.group(2), bold, True))
            pos = m.end()
        if pos < len(text):
            segs.append((text[pos:], bold, False))
        out: list[_Seg] = []
        for t, b, i in segs:
            t = _SLOT_RE.sub(self._slot, t.replace("~", NBSP))
            if out and out[-1][1] == b and out[-1][2] == i:
                out[-1] = (out[-1][0] + t, b, i)
            elif t:
                out.append((t, b, i))
        return out


def _words(segs: Sequence[_Seg]) -> int:
    return sum(len(s[0].split()) for s in segs)


def _letters(n: int) -> str:
    """Word's lowerLetter: a, b, … z, aa, bb, …"""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def _roman(n: int) -> str:
    out = ""
    for value, numeral in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while n >= value:
            out += numeral
            n -= value
    return out


_NUMBER_WORDS = (
    ("two", 2), ("three", 3), ("five", 5), ("seven", 7), ("ten", 10), ("fifteen", 15),
    ("twenty", 20), ("thirty", 30), ("forty-five", 45), ("sixty", 60), ("ninety", 90),
    ("one hundred twenty", 120), ("one hundred eighty", 180),
)  # fmt: skip
_NUMBER_RE = re.compile(r"\b(one hundred [a-z]+|[a-z]+(?:-[a-z]+)?) \((\d+)\)(?= [a-z])")
_AMOUNT_RE = re.compile(r"\$(\d{1,3})((?:,\d{3})+)")


def _vary_numbers(text: str, rng: random.Random) -> str:
    """Change the periods and amounts of a repeated clause, so long contracts do not repeat
    whole paragraphs: "thirty (30) days" → "sixty (60) days", "$25,000" → "$41,000"."""

    def number(m: re.Match[str]) -> str:
        if int(m.group(2)) < 2 or m.group(1) not in {w for w, _ in _NUMBER_WORDS}:
            return m.group(0)
        word, n = rng.choice(_NUMBER_WORDS)
        return f"{word} ({n})"

    def amount(m: re.Match[str]) -> str:
        return f"${rng.randint(10, 999)}{m.group(2)}"

    return _AMOUNT_RE.sub(amount, _NUMBER_RE.sub(number, text))


def _build_plan(kind: Kind, seed: int, pages: float | None, parties: tuple[str, str] | None) -> _Plan:
    spec = _spec(kind)
    rng = random.Random(f"contractgen:{kind}:{seed}:text")
    render = _Renderer(spec, rng, parties or spec.parties)
    plan = _Plan(title=spec.title.title())

    front = [_Para("title", render(spec.title, bold=True))]
    front += [_Para("body", render(t)) for t in spec.front]
    back: list[_Para | _Table] = [_Para("body", render(t)) for t in spec.closing]
    back += [_Para("signature", render(t)) for t in spec.signature]
    back.append(_Para("schedule", render(spec.schedule_title)))
    back += [_Para("body", render(t)) for t in spec.schedule]
    plan.header.append(_Para("header", render(spec.header)))
    plan.footer.append(_Para("footer", render(spec.footer), page_field=True))

    budget = None if pages is None else max(0.0, pages) * WORDS_PER_PAGE
    fixed = front + [b for b in back if isinstance(b, _Para)] + plan.header + plan.footer
    words = sum(_words(p.segs) for p in fixed)
    plan.body.extend(front)

    def render_clause(
        clause: _Clause, a_no: int, c_no: int, cycle: int, cycle_name: str
    ) -> tuple[list[_Para | _Table], _Para | None, int]:
        body = clause.body
        if cycle > 0 and not body.endswith(":"):
            body = _vary_numbers(body, rng)
            body += " " + rng.choice(spec.cycle_extra).replace("{cycle}", cycle_name)
            body += "".join(" " + rng.choice(spec.extra) for _ in range(rng.randint(0, 1)))
        segs = render(f"**{clause.title}.** {body}" if clause.title else body)
        blocks: list[_Para | _Table] = [_Para("clause", segs, level=1, label=f"{a_no}.{c_no}")]
        n = _words(segs)
        note = None
        if clause.footnote is not None:
            note = _Para("footnote", render(" " + clause.footnote))
            n += _words(note.segs)
        for ii, item in enumerate(clause.items, 1):
            segs = render(item.text)
            blocks.append(_Para("item", segs, level=2, label=f"({_letters(ii)})"))
            n += _words(segs)
            for ci, child in enumerate(item.children, 1):
                segs = render(child)
                blocks.append(_Para("subitem", segs, level=3, label=f"({_roman(ci)})"))
                n += _words(segs)
        if clause.table is not None:
            rows = [[_Para("cell", render(h, bold=True)) for h in clause.table.header]]
            for row in clause.table.rows:
                rows.append([_Para("cell", render(c), right=c[:1] == "$") for c in row])
            blocks.append(_Table(rows))
            n += sum(_words(c.segs) for r in rows for c in r)
        return blocks, note, n

    # Articles in order, cycled with variations for long documents. With a budget, a clause is
    # added only while that brings the word count closer to the budget, so that the amount of
    # text stays proportional to ``pages``.
    a_no = 0
    cycle = 0
    emitted = False
    done = False
    while not done:
        for art in spec.articles:
            a_no += 1
            cycle_name = f"{spec.cycle_word} {cycle + 1}"
            heading = _Para(
                "heading",
                render(art.title if cycle == 0 else f"{art.title} ({cycle_name})"),
                level=0,
                label=f"{a_no}.",
            )
            pending: _Para | None = heading
            for c_no, clause in enumerate(art.clauses, 1):
                blocks, note, n = render_clause(clause, a_no, c_no, cycle, cycle_name)
                if pending is not None:
                    n += _words(pending.segs)
                if budget is not None and emitted and words + n - budget > budget - words:
                    done = True
                    break
                if pending is not None:
                    plan.body.append(pending)
                    pending = None
                if note is not None:
                    plan.footnotes.append(note)
                    first = blocks[0]
                    assert isinstance(first, _Para)
                    first.footnote = len(plan.footnotes)
                plan.body.extend(blocks)
                words += n
                emitted = True
                if budget is not None and words >= budget:
                    done = True
                    break
            if done:
                break
        cycle += 1
        if budget is None:
            done = True
    plan.body.extend(back)
    return plan


# --------------------------------------------------------------------------------------------
# From plan to WordprocessingML
# --------------------------------------------------------------------------------------------

_W_R, _W_T, _W_RPR, _W_PPR = w("r"), w("t"), w("rPr"), w("pPr")
_HEADING_STYLE = "Heading1"


def _el(parent: etree._Element, tag: str, **attrs: str) -> etree._Element:
    return etree.SubElement(parent, w(tag), {w(k): v for k, v in attrs.items()})


class _Writer:
    """Turns planned paragraphs into heavily run-split ``w:p`` content."""

    def __init__(self, rng: random.Random, runs_per_paragraph: int, num_id: int) -> None:
        self.rng = rng
        self.rpp = max(1, runs_per_paragraph)
        self.num_id = str(num_id)
        self.rsids = sorted({f"00{rng.getrandbits(24):06X}" for _ in range(14)})
        self.next_bookmark = 0

    def _rsid(self) -> str:
        return self.rsids[self.rng.randrange(len(self.rsids))]

    def _ppr(self, p: etree._Element, para: _Para) -> None:
        ppr = etree.Element(_W_PPR)
        p.insert(0, ppr)
        k = para.kind
        style = {
            "title": "Title",
            "heading": _HEADING_STYLE,
            "schedule": "Heading2",
            "header": "Header",
            "footer": "Footer",
            "footnote": "FootnoteText",
            "cell": None,
        }.get(k, "BodyText")
        if style is not None:
            _el(ppr, "pStyle", val=style)
        if k == "heading":
            _el(ppr, "keepNext")
        if k in ("clause", "item", "subitem"):
            num = _el(ppr, "numPr")
            _el(num, "ilvl", val=str(para.level))
            _el(num, "numId", val=self.num_id)
        if k == "cell":
            _el(ppr, "spacing", before="40", after="40")
        jc = {"title": "center", "schedule": "center", "footer": "center", "header": "right"}.get(
            k, "both" if k in ("body", "clause", "item", "subitem") else None
        )
        if para.right:
            jc = "right"
        if jc is not None:
            _el(ppr, "jc", val=jc)

    def paragraph(self, p: etree._Element, para: _Para) -> None:
        for child in list(p):
            p.remove(child)
        rsid = self._rsid()
        p.set(w("rsidR"), rsid)
        p.set(w("rsidRDefault"), self._rsid())
        p.set(w("rsidP"), rsid)
        self._ppr(p, para)
        self._runs(p, para.segs, para.kind in ("title", "heading", "schedule", "cell"))
        if para.footnote is not None:
            r = _el(p, "r", rsidR=self._rsid())
            _el(_el(r, "rPr"), "rStyle", val="FootnoteReference")
            _el(r, "footnoteReference", id=str(para.footnote))
        if para.page_field:
            self._page_field(p)

    def _runs(self, p: etree._Element, segs: Sequence[_Seg], short: bool) -> None:
        rng = self.rng
        length = sum(len(s[0]) for s in segs)
        if length == 0:
            return
        target = self.rpp
        if short:  # headings and cells: Word splits short paragraphs less
            target = max(1, target // 3)
        n = max(1, round(target * rng.uniform(0.7, 1.3)))
        n = min(n, max(1, length // 3))
        cuts = sorted(rng.sample(range(1, length), n - 1)) if n > 1 and length > 1 else []
        bookmark: int | None = None
        bookmark_left = 0
        start = 0
        ci = 0
        for text, bold, italic in segs:
            end = start + len(text)
            bounds = [start]
            while ci < len(cuts) and cuts[ci] < end:
                if cuts[ci] > start:
                    bounds.append(cuts[ci])
                ci += 1
            bounds.append(end)
            for a, b in itertools.pairwise(bounds):
                if bookmark is not None and bookmark_left <= 0:
                    _el(p, "bookmarkEnd", id=str(bookmark))
                    bookmark = None
                elif bookmark is None and rng.random() < 0.03:
                    bookmark = self.next_bookmark
                    self.next_bookmark += 1
                    bookmark_left = rng.randint(1, 4)
                    name = f"_Hlk{rng.randrange(10**9):09d}"
                    _el(p, "bookmarkStart", id=str(bookmark), name=name)
                bookmark_left -= 1
                proof = rng.choice(("spell", "gram")) if rng.random() < 0.04 else None
                if proof is not None:
                    _el(p, "proofErr", type=f"{proof}Start")
                self._run(p, text[a - start : b - start], bold, italic)
                if proof is not None:
                    _el(p, "proofErr", type=f"{proof}End")
            start = end
        if bookmark is not None:
            _el(p, "bookmarkEnd", id=str(bookmark))

    def _run(self, p: etree._Element, text: str, bold: bool, italic: bool) -> None:
        rng = self.rng
        r = etree.SubElement(p, _W_R)
        if rng.random() < 0.3:
            r.set(w("rsidRPr"), self._rsid())
        r.set(w("rsidR"), self._rsid())
        if bold or italic:
            rpr = etree.SubElement(r, _W_RPR)
            if bold:
                etree.SubElement(rpr, w("b"))
            if italic:
                etree.SubElement(rpr, w("i"))
        if rng.random() < 0.004:
            etree.SubElement(r, w("lastRenderedPageBreak"))
        t = etree.SubElement(r, _W_T)
        t.text = text
        if text[0].isspace() or text[-1].isspace():
            t.set(XML_SPACE, "preserve")

    def _page_field(self, p: etree._Element) -> None:
        _el(_el(p, "r"), "fldChar", fldCharType="begin")
        instr = _el(_el(p, "r"), "instrText")
        instr.text = " PAGE "
        instr.set(XML_SPACE, "preserve")
        _el(_el(p, "r"), "fldChar", fldCharType="separate")
        _el(_el(p, "r"), "t").text = "1"
        _el(_el(p, "r"), "fldChar", fldCharType="end")


_PPR_ORDER = [
    "pStyle", "keepNext", "keepLines", "pageBreakBefore", "framePr", "widowControl", "numPr",
    "suppressLineNumbers", "pBdr", "shd", "tabs", "suppressAutoHyphens", "kinsoku", "wordWrap",
    "overflowPunct", "topLinePunct", "autoSpaceDE", "autoSpaceDN", "bidi", "adjustRightInd",
    "snapToGrid", "spacing", "ind", "contextualSpacing", "mirrorIndents", "suppressOverlap", "jc",
    "textDirection", "textAlignment", "textboxTightWrap", "outlineLvl", "divId", "cnfStyle", "rPr",
    "sectPr", "pPrChange",
]  # fmt: skip


def _insert_ordered(ppr: etree._Element, child: etree._Element) -> None:
    """Insert ``child`` into a ``w:pPr`` at its schema position."""
    rank = _PPR_ORDER.index(etree.QName(child).localname)
    for i, existing in enumerate(ppr):
        name = etree.QName(existing).localname
        if name in _PPR_ORDER and _PPR_ORDER.index(name) > rank:
            ppr.insert(i, child)
            return
    ppr.append(child)


def _lvl(ilvl: int, fmt: str, text: str, indent: int, style: str | None = None) -> etree._Element:
    lvl = etree.Element(w("lvl"), {w("ilvl"): str(ilvl)})
    _el(lvl, "start", val="1")
    _el(lvl, "numFmt", val=fmt)
    if style is not None:
        _el(lvl, "pStyle", val=style)
    _el(lvl, "lvlText", val=text)
    _el(lvl, "lvlJc", val="left")
    _el(_el(lvl, "pPr"), "ind", left=str(indent), hanging="720")
    return lvl


def _add_numbering(doc: Any, rng: random.Random) -> int:
    """Add the contract's multi-level list to numbering.xml; return its ``numId``."""
    numbering = doc.part.numbering_part.element
    abstracts = numbering.findall(w("abstractNum"))
    nums = numbering.findall(w("num"))
    abstract_id = 1 + max((int(a.get(w("abstractNumId"))) for a in abstracts), default=-1)
    num_id = 1 + max((int(n.get(w("numId"))) for n in nums), default=0)

    abstract = etree.Element(w("abstractNum"), {w("abstractNumId"): str(abstract_id)})
    _el(abstract, "nsid", val=f"{rng.getrandbits(32):08X}")
    _el(abstract, "multiLevelType", val="multilevel")
    _el(abstract, "tmpl", val=f"{rng.getrandbits(32):08X}")
    levels = [
        (0, "decimal", "%1.", 720, _HEADING_STYLE),
        (1, "decimal", "%1.%2", 720, None),
        (2, "lowerLetter", "(%3)", 1440, None),
        (3, "lowerRoman", "(%4)", 2160, None),
        (4, "decimal", "%5.", 2880, None),
        (5, "lowerLetter", "%6.", 3600, None),
        (6, "lowerRoman", "%7.", 4320, None),
        (7, "decimal", "%8.", 5040, None),
        (8, "lowerLetter", "%9.", 5760, None),
    ]
    for ilvl, fmt, text, indent, style in levels:
        abstract.append(_lvl(ilvl, fmt, text, indent, style))
    if abstracts:
        abstracts[-1].addnext(abstract)
    else:
        numbering.insert(0, abstract)
    num = etree.Element(w("num"), {w("numId"): str(num_id)})
    _el(num, "abstractNumId", val=str(abstract_id))
    if nums:
        nums[-1].addnext(num)
    else:
        abstract.addnext(num)
    return num_id


def _setup_styles(doc: Any, num_id: int) -> None:
    from docx.enum.style import WD_STYLE_TYPE
    from docx.shared import Pt, RGBColor

    styles = doc.styles
    normal = styles["Normal"]
    normal.font.name = "Times New Roman"
    normal.font.size = Pt(11)
    for name, size in (("Heading 1", 12), ("Heading 2", 12), ("Title", 16)):
        st = styles[name]
        st.font.name = "Times New Roman"
        st.font.size = Pt(size)
        st.font.bold = True
        st.font.color.rgb = RGBColor(0, 0, 0)
        fonts = st.element.rPr.find(w("rFonts"))
        for attr in ("asciiTheme", "hAnsiTheme", "eastAsiaTheme", "cstheme"):
            fonts.attrib.pop(w(attr), None)
    # Heading 1 is linked to level 0 of the contract's list: its paragraphs are numbered "1.",
    # "2.", … by the style alone, as in Word templates with linked list styles.
    ppr = styles["Heading 1"].element.get_or_add_pPr()
    num = etree.Element(w("numPr"))
    _el(num, "ilvl", val="0")
    _el(num, "numId", val=str(num_id))
    _insert_ordered(ppr, num)
    text = styles.add_style("Footnote Text", WD_STYLE_TYPE.PARAGRAPH)
    text.base_style = normal
    text.font.size = Pt(9)
    ref = styles.add_style("Footnote Reference", WD_STYLE_TYPE.CHARACTER)
    ref.font.superscript = True


_FOOTNOTES_XML = (
    f'<w:footnotes xmlns:w="{W_NS}">'
    '<w:footnote w:type="separator" w:id="-1"><w:p><w:pPr><w:spacing w:after="0" w:line="240" '
    'w:lineRule="auto"/></w:pPr><w:r><w:separator/></w:r></w:p></w:footnote>'
    '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:pPr><w:spacing w:after="0" '
    'w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:continuationSeparator/></w:r></w:p>'
    "</w:footnote></w:footnotes>"
)


def _add_footnotes(doc: Any, writer: _Writer, notes: Sequence[_Para]) -> None:
    from docx.opc.constants import CONTENT_TYPE as CT
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import XmlPart
    from docx.oxml.parser import parse_xml

    root = parse_xml(_FOOTNOTES_XML)
    for i, note in enumerate(notes, 1):
        fn = _el(root, "footnote", id=str(i))
        p = _el(fn, "p")
        writer.paragraph(p, note)
        # the footnote mark comes first, as Word writes it
        r = etree.Element(_W_R)
        _el(_el(r, "rPr"), "rStyle", val="FootnoteReference")
        _el(r, "footnoteRef")
        p.insert(1, r)
    part = XmlPart(PackURI("/word/footnotes.xml"), CT.WML_FOOTNOTES, root, doc.part.package)
    doc.part.relate_to(part, RT.FOOTNOTES)
    settings = doc.settings.element
    pr = etree.Element(w("footnotePr"))
    _el(pr, "footnote", id="-1")
    _el(pr, "footnote", id="0")
    compat = settings.find(w("compat"))
    if compat is not None:
        compat.addprevious(pr)
    else:
        settings.append(pr)


def _set_rsids(doc: Any, rsids: Sequence[str]) -> None:
    settings = doc.settings.element
    old = settings.find(w("rsids"))
    new = etree.Element(w("rsids"))
    _el(new, "rsidRoot", val=rsids[0])
    for r in rsids:
        _el(new, "rsid", val=r)
    if old is not None:
        old.addprevious(new)
        settings.remove(old)
    else:
        settings.append(new)


def _table(doc: Any, writer: _Writer, table: _Table) -> None:
    ncols = len(table.rows[0])
    tbl = doc.add_table(rows=len(table.rows), cols=ncols)
    tbl.style = doc.styles["Table Grid"]
    for row, cells in zip(tbl.rows, table.rows, strict=True):
        for cell, para in zip(row.cells, cells, strict=True):
            writer.paragraph(cell.paragraphs[0]._p, para)


def _render_docx(plan: _Plan, kind: Kind, seed: int, runs_per_paragraph: int) -> bytes:
    import docx

    rng = random.Random(f"contractgen:{kind}:{seed}:layout")
    doc = docx.Document()
    num_id = _add_numbering(doc, rng)
    _setup_styles(doc, num_id)
    writer = _Writer(rng, runs_per_paragraph, num_id)

    section = doc.sections[0]
    from docx.shared import Inches

    section.left_margin = section.right_margin = Inches(1)
    section.top_margin = section.bottom_margin = Inches(1)

    for block in plan.body:
        if isinstance(block, _Table):
            _table(doc, writer, block)
        else:
            writer.paragraph(doc.add_paragraph()._p, block)
    for paras, hf in ((plan.header, section.header), (plan.footer, section.footer)):
        first = hf.paragraphs[0]._p
        for i, para in enumerate(paras):
            writer.paragraph(first if i == 0 else hf.add_paragraph()._p, para)
    if plan.footnotes:
        _add_footnotes(doc, writer, plan.footnotes)
    _set_rsids(doc, writer.rsids)

    core = doc.core_properties
    core.title = plan.title
    core.author = "Redline Contract Generator"
    core.last_modified_by = "Redline Contract Generator"
    core.created = core.modified = _FIXED_DATE
    core.revision = 1
    core.comments = f"kind={kind} seed={seed}"

    buf = io.BytesIO()
    doc.save(buf)
    return reproducible(buf.getvalue())


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def _check_kind(kind: str) -> Kind:
    for known in get_args(Kind):
        if kind == known:
            return cast(Kind, known)
    raise ValueError(f"unknown contract kind {kind!r}; expected one of {sorted(get_args(Kind))}")


def generate_contract(
    kind: Kind,
    *,
    seed: int = 0,
    pages: float | None = None,
    runs_per_paragraph: int = 6,
    parties: tuple[str, str] | None = None,
) -> bytes:
    """A realistic contract of ``kind`` as .docx bytes, the same bytes for the same arguments.

    ``pages`` sets the amount of text (``WORDS_PER_PAGE`` words a page; the clause bank is cycled
    with variations for long documents); None gives the natural 3–6 page contract.
    ``runs_per_paragraph`` is the average number of runs a body paragraph is split into.
    ``parties`` replaces the two parties' names.
    """
    kind = _check_kind(kind)
    plan = _build_plan(kind, seed, pages, parties)
    return _render_docx(plan, kind, seed, runs_per_paragraph)


def contract_paragraphs(
    kind: Kind,
    *,
    seed: int = 0,
    pages: float | None = None,
    parties: tuple[str, str] | None = None,
) -> list[GeneratedParagraph]:
    """Every paragraph of ``generate_contract(kind, …)`` with the same arguments: the text a
    reader should extract, without building the .docx.

    Body paragraphs (table cells row by row) in document order, then the header, the footer
    (its ``PAGE`` field reads ``1``) and the footnotes (each starting with the space that
    follows the footnote mark). A footnote reference adds no text to its paragraph.
    """
    plan = _build_plan(_check_kind(kind), seed, pages, parties)
    out: list[GeneratedParagraph] = []
    path: list[str] = []  # labels of the enclosing article, clause, item, sub-item

    def para(story: Story, p: _Para) -> GeneratedParagraph:
        if story != "body":
            return GeneratedParagraph(story, p.text, None, None, None)
        if p.kind == "schedule":
            path.clear()
        elif p.level is not None and p.label is not None:
            del path[p.level :]
            path.extend([""] * (p.level - len(path)))
            path.append(p.label.rstrip(".") if p.level == 0 else p.label)
        section = "".join(path[1:]) if len(path) > 1 else (path[0] if path else None)
        return GeneratedParagraph(story, p.text, p.label, p.level, section)

    for block in plan.body:
        if isinstance(block, _Table):
            out.extend(para("body", c) for row in block.rows for c in row)
        else:
            out.append(para("body", block))
    out.extend(para("header", p) for p in plan.header)
    out.extend(para("footer", p) for p in plan.footer)
    out.extend(para("footnotes", p) for p in plan.footnotes)
    return out


def contract_text(
    kind: Kind,
    *,
    seed: int = 0,
    pages: float | None = None,
    parties: tuple[str, str] | None = None,
) -> str:
    """The text of every paragraph of :func:`contract_paragraphs`, one per line."""
    paras = contract_paragraphs(kind, seed=seed, pages=pages, parties=parties)
    return "\n".join(p.text for p in paras)


def write_samples(outdir: Path) -> list[Path]:
    """(Re)write the .docx files of ``sample_contracts/`` into ``outdir``."""
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, (kind, seed) in SAMPLES.items():
        path = outdir / f"{stem}.docx"
        path.write_bytes(generate_contract(kind, seed=seed))
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None, *, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m testing.contractgen",
        description="Regenerate sample_contracts/*.docx, or write one generated contract.",
    )
    parser.add_argument("outdir", type=Path, help="directory to write into")
    parser.add_argument("--kind", choices=list(get_args(Kind)), help="write one contract only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pages", type=float, default=None)
    parser.add_argument("--runs-per-paragraph", type=int, default=6)
    args = parser.parse_args(argv)
    if args.kind is None:
        for path in write_samples(args.outdir):
            out(str(path))
        return 0
    args.outdir.mkdir(parents=True, exist_ok=True)
    size = "natural" if args.pages is None else f"{args.pages:g}p"
    path = args.outdir / f"{args.kind}-seed{args.seed}-{size}.docx"
    path.write_bytes(
        generate_contract(
            args.kind,
            seed=args.seed,
            pages=args.pages,
            runs_per_paragraph=args.runs_per_paragraph,
        )
    )
    out(str(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
