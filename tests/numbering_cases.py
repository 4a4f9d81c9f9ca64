"""Numbering cases with the labels LibreOffice shows for them, one rule of ECMA-376 §17.9 each.

Each :class:`Case` is a small document (its ``numbering.xml``, its paragraph styles and a
sequence of paragraphs) with the labels LibreOffice 7.4 computes for it, recorded here as the
witness of how a word processor counts. ``tests/test_numbering.py`` holds :mod:`redline`'s
labels to them, and (marked slow, when ``soffice`` is installed) re-asks LibreOffice, so a
recorded label that LibreOffice no longer shows is caught too.

    python -m tests.numbering_cases     # LibreOffice's labels for every case, against the record

Nothing here imports the code under test.
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests import oracles

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
CT = "application/vnd.openxmlformats-officedocument.wordprocessingml."
DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'


# ---------------------------------------------------------------------------------------------
# Notation


def lvl(ilvl: int, text: str, fmt: str = "decimal", *, start: int | None = 1, extra: str = "") -> str:
    """A ``w:lvl``; ``extra``: more of its children (``w:isLgl``, ``w:lvlRestart``, ``w:pStyle``)."""
    start_xml = "" if start is None else f'<w:start w:val="{start}"/>'
    return (
        f'<w:lvl w:ilvl="{ilvl}">{start_xml}<w:numFmt w:val="{fmt}"/>{extra}'
        f'<w:lvlText w:val="{text}"/><w:lvlJc w:val="left"/></w:lvl>'
    )


def abstract(abstract_id: int, *levels: str, extra: str = "") -> str:
    return f'<w:abstractNum w:abstractNumId="{abstract_id}">{extra}{"".join(levels)}</w:abstractNum>'


def num(num_id: int, abstract_id: int, *overrides: str) -> str:
    return f'<w:num w:numId="{num_id}"><w:abstractNumId w:val="{abstract_id}"/>{"".join(overrides)}</w:num>'


def start_override(ilvl: int, start: int) -> str:
    return f'<w:lvlOverride w:ilvl="{ilvl}"><w:startOverride w:val="{start}"/></w:lvlOverride>'


def numpr(num_id: int | None = None, ilvl: int | None = None) -> str:
    inner = ("" if ilvl is None else f'<w:ilvl w:val="{ilvl}"/>') + (
        "" if num_id is None else f'<w:numId w:val="{num_id}"/>'
    )
    return f"<w:numPr>{inner}</w:numPr>"


def style(style_id: str, *, based_on: str | None = None, ppr: str = "", kind: str = "paragraph") -> str:
    return (
        f'<w:style w:type="{kind}" w:styleId="{style_id}"><w:name w:val="{style_id}"/>'
        + ("" if based_on is None else f'<w:basedOn w:val="{based_on}"/>')
        + (f"<w:pPr>{ppr}</w:pPr>" if ppr else "")
        + "</w:style>"
    )


@dataclass(frozen=True)
class Para:
    """A paragraph: its ``w:pPr`` content (``style``, ``ppr``) and whether it sits in a table."""

    ppr: str = ""
    style: str | None = None
    in_table: bool = False
    deleted_mark: bool = False  # w:pPr/w:rPr/w:del: the paragraph joins the next once accepted
    deleted_text: bool = False  # its text is a tracked deletion too (with the mark: all of it)


def P(num_id: int | None = None, ilvl: int | None = None, *, style: str | None = None, **kw: bool) -> Para:
    """A paragraph numbered directly (``num_id``/``ilvl``) or through its ``style``."""
    ppr = numpr(num_id, ilvl) if num_id is not None or ilvl is not None else ""
    return Para(ppr=ppr, style=style, **kw)


@dataclass(frozen=True)
class Case:
    name: str
    rule: str  # what it shows, with the section of ECMA-376 Part 1
    numbering: str  # the children of w:numbering
    paragraphs: tuple[Para, ...]
    expected: tuple[str | None, ...]  # LibreOffice's label per paragraph ("" / None: none)
    styles: str = ""  # paragraph styles beyond Normal
    accepted: bool = False  # witnessed once LibreOffice accepted its tracked changes

    def text(self, i: int) -> str:
        return f"Para{i:03d} {self.name}"

    def document_xml(self) -> str:
        body: list[str] = []
        table: list[str] = []

        def flush() -> None:
            if table:
                rows = "".join(f"<w:tr><w:tc>{cell}</w:tc></w:tr>" for cell in table)
                body.append(f'<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr>'
                            f'<w:tblGrid><w:gridCol w:w="4000"/></w:tblGrid>{rows}</w:tbl>')  # fmt: skip
                table.clear()

        for i, p in enumerate(self.paragraphs):
            ppr = ("" if p.style is None else f'<w:pStyle w:val="{p.style}"/>') + p.ppr
            if p.deleted_mark:
                ppr += (
                    '<w:rPr><w:del w:id="9'
                    + str(i)
                    + '" w:author="A" w:date="2024-01-01T00:00:00Z"/></w:rPr>'
                )
            run = f"<w:r><w:t>{self.text(i)}</w:t></w:r>"
            if p.deleted_text:
                run = (f'<w:del w:id="8{i}" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r>'
                       f"<w:delText>{self.text(i)}</w:delText></w:r></w:del>")  # fmt: skip
            xml = f"<w:p><w:pPr>{ppr}</w:pPr>{run}</w:p>"
            if p.in_table:
                table.append(xml)
            else:
                flush()
                body.append(xml)
        flush()
        body.append('<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr>')
        return f'{DECL}<w:document xmlns:w="{W_NS}"><w:body>{"".join(body)}</w:body></w:document>'

    def docx(self) -> bytes:
        styles = (
            f'{DECL}<w:styles xmlns:w="{W_NS}">'
            '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
            f"{self.styles}</w:styles>"
        )
        numbering = f'{DECL}<w:numbering xmlns:w="{W_NS}">{self.numbering}</w:numbering>'
        types = (
            f'{DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/word/document.xml" ContentType="{CT}document.main+xml"/>'
            f'<Override PartName="/word/styles.xml" ContentType="{CT}styles+xml"/>'
            f'<Override PartName="/word/numbering.xml" ContentType="{CT}numbering+xml"/></Types>'
        )
        rels_ns = "http://schemas.openxmlformats.org/package/2006/relationships"
        root_rels = (
            f'{DECL}<Relationships xmlns="{rels_ns}"><Relationship Id="rId1" '
            f'Type="{REL}officeDocument" Target="word/document.xml"/></Relationships>'
        )
        doc_rels = (
            f'{DECL}<Relationships xmlns="{rels_ns}">'
            f'<Relationship Id="rId1" Type="{REL}styles" Target="styles.xml"/>'
            f'<Relationship Id="rId2" Type="{REL}numbering" Target="numbering.xml"/></Relationships>'
        )
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("[Content_Types].xml", types)
            z.writestr("_rels/.rels", root_rels)
            z.writestr("word/document.xml", self.document_xml())
            z.writestr("word/_rels/document.xml.rels", doc_rels)
            z.writestr("word/styles.xml", styles)
            z.writestr("word/numbering.xml", numbering)
        return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# LibreOffice


def libreoffice_labels(cases: Sequence[Case], soffice: str | None = None) -> dict[str, list[str | None]]:
    """LibreOffice's label of every paragraph of every case (None: no label), by case name; a
    case marked ``accepted`` once LibreOffice accepted its tracked changes (left out without
    a Python that has ``uno``)."""
    soffice = soffice or shutil.which("soffice")
    if soffice is None:
        return {}
    with tempfile.TemporaryDirectory(prefix="numbering-cases-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        docs: dict[str, Path] = {}
        for case in cases:
            docs[case.name] = src / f"{case.name}.docx"
            docs[case.name].write_bytes(case.docx())
        plain, accepted = oracles.text_exports(
            [docs[c.name] for c in cases if not c.accepted],
            [docs[c.name] for c in cases if c.accepted],
            Path(tmp) / "work",
            soffice,
        )
        found: dict[str, list[str | None]] = {}
        for case in cases:
            txt = (accepted if case.accepted else plain).get(docs[case.name])
            if txt is None:
                continue
            lines = txt.lstrip("\ufeff").split("\n")
            labels: list[str | None] = []
            for i in range(len(case.paragraphs)):
                marker = case.text(i)
                line = next((ln for ln in lines if ln.endswith(marker)), None)
                # the text before the first paragraph's text: a paragraph joined to the next
                # (its mark deleted) writes both texts on one line
                label = None if line is None else line.split("Para", 1)[0].strip()
                labels.append(label or None)
            found[case.name] = labels
    return found


# ---------------------------------------------------------------------------------------------
# The cases

OUTLINE = abstract(
    0,
    lvl(0, "%1."),
    lvl(1, "%1.%2"),
    lvl(2, "%1.%2.%3"),
    lvl(3, "(%4)", "lowerLetter"),
)
HEADINGS = (
    style("H1", ppr=numpr(1, 0))
    + style("H2", ppr=numpr(1, 1))
    + style("H3", based_on="H2", ppr=numpr(ilvl=2))
    + style("Plain", based_on="H1")
    + style("Zero", based_on="H1", ppr=numpr(0))
)
LIST_STYLE = style("ListStyleA", kind="numbering", ppr=numpr(5))
LINKED = (
    abstract(5, lvl(0, "%1."), lvl(1, "%1.%2"), lvl(2, "(%3)", "lowerLetter"),
             extra='<w:styleLink w:val="ListStyleA"/>')
    + abstract(6, extra='<w:numStyleLink w:val="ListStyleA"/>')
    + abstract(7, extra='<w:numStyleLink w:val="ListStyleA"/>')
)  # fmt: skip
LEVEL_0_AS_ARTICLE = '<w:lvlOverride w:ilvl="0">' + lvl(0, "Art %1", "upperRoman") + "</w:lvlOverride>"
LEVEL_0_FROM_7 = '<w:lvlOverride w:ilvl="0">' + lvl(0, "%1.", start=7) + "</w:lvlOverride>"

CASES: tuple[Case, ...] = (
    Case(
        "shared_abstract",
        "w:num instances of one w:abstractNum share its counters (§17.9.16, §17.9.2)",
        OUTLINE + num(1, 0) + num(2, 0),
        (P(1, 0), P(1, 0), P(2, 0), P(1, 0), P(2, 1), P(1, 1)),
        ("1.", "2.", "3.", "4.", "4.1", "4.2"),
    ),
    Case(
        "start_override_restarts_once",
        "w:startOverride restarts the shared counter where its w:num is first used (§17.9.27); "
        "the other instance then continues from there",
        OUTLINE + num(1, 0) + num(2, 0, start_override(0, 1)),
        (P(1, 0), P(1, 0), P(1, 0), P(2, 0), P(1, 0), P(2, 0), P(1, 1), P(2, 1)),
        ("1.", "2.", "3.", "1.", "2.", "3.", "3.1", "3.2"),
    ),
    Case(
        "start_override_value",
        "w:startOverride with a value (§17.9.27)",
        OUTLINE + num(1, 0) + num(2, 0, start_override(0, 5)),
        (P(1, 0), P(2, 0), P(1, 0), P(2, 0), P(1, 0)),
        ("1.", "5.", "6.", "7.", "8."),
    ),
    Case(
        "start_override_sublevel",
        "w:startOverride on a sublevel restarts only that level (§17.9.27)",
        OUTLINE + num(1, 0) + num(2, 0, start_override(1, 4)),
        (P(1, 0), P(1, 1), P(2, 1), P(2, 0), P(2, 1), P(1, 0), P(2, 1)),
        ("1.", "1.1", "1.4", "2.", "2.1", "3.", "3.1"),
    ),
    Case(
        "start_override_unused_level",
        "a w:startOverride of a level its w:num has not used yet does not touch that level",
        OUTLINE + num(1, 0) + num(2, 0, start_override(0, 5)),
        (P(1, 0), P(2, 1), P(2, 0), P(2, 1)),
        ("1.", "1.1", "5.", "5.1"),
    ),
    Case(
        "level_override",
        "w:lvlOverride/w:lvl replaces the level for its w:num only; counters stay shared (§17.9.9)",
        OUTLINE + num(1, 0) + num(2, 0, LEVEL_0_AS_ARTICLE),
        (P(1, 0), P(1, 0), P(2, 0), P(1, 0), P(2, 1), P(1, 1)),
        ("1.", "2.", "Art III", "4.", "IV.1", "4.2"),
    ),
    Case(
        "num_style_link",
        "w:numStyleLink: abstract definitions linked to one list style are one list (§17.9.22)",
        LINKED + num(5, 5) + num(6, 6) + num(7, 7),
        (P(6, 0), P(6, 0), P(7, 1), P(5, 0), P(7, 0), P(6, 2)),
        ("1.", "2.", "2.1", "3.", "4.", "(a)"),
        styles=LIST_STYLE,
    ),
    Case(
        "skipped_levels",
        "a shallower level not used since it (re)started shows its start value and counts as "
        "used (§17.9.26 w:start, §17.9.12 w:lvlText)",
        OUTLINE + num(1, 0),
        (P(1, 1), P(1, 0), P(1, 2), P(1, 1), P(1, 3), P(1, 0), P(1, 3)),
        ("1.1", "2.", "2.1.1", "2.2", "(a)", "3.", "(a)"),
    ),
    Case(
        "skipped_levels_start_values",
        "a skipped level takes its own w:start (§17.9.26)",
        abstract(0, lvl(0, "%1.", start=4), lvl(1, "%1.%2", start=3), lvl(2, "%1.%2.%3")) + num(1, 0),
        (P(1, 2), P(1, 1), P(1, 0), P(1, 2)),
        ("4.3.1", "4.4", "5.", "5.3.1"),
    ),
    Case(
        "skipped_levels_zero_start",
        "levels that start at 0 (§17.9.26)",
        abstract(0, lvl(0, "%1.", start=0), lvl(1, "%1.%2", start=0), lvl(2, "%1.%2.%3", start=3))
        + num(1, 0),
        (P(1, 1), P(1, 0), P(1, 2), P(1, 1)),
        ("0.0", "1.", "1.0.3", "1.1"),
    ),
    Case(
        "skipped_level_of_an_override",
        "a skipped level's start is that of its w:num's own level (w:lvlOverride/w:lvl), "
        "not a w:startOverride",
        OUTLINE + num(1, 0) + num(2, 0, LEVEL_0_FROM_7) + num(3, 0, start_override(0, 5)),
        (P(2, 1), P(2, 0), P(1, 0), P(3, 1)),
        ("7.1", "8.", "9.", "9.1"),
    ),
    Case(
        "skipped_level_other_list",
        "a second list counts on its own, and its skipped levels too",
        OUTLINE + abstract(1, lvl(0, "%1)"), lvl(1, "%1)%2")) + num(1, 0) + num(2, 1),
        (P(1, 0), P(2, 1), P(1, 1), P(2, 1), P(1, 0), P(2, 0)),
        ("1.", "1)1", "1.1", "1)2", "2.", "2)"),
    ),
    Case(
        "style_numbering",
        "numbering from the paragraph style and its w:basedOn chain, at the style's w:ilvl; a "
        "paragraph's own w:ilvl or w:numId wins; w:numId 0 removes it (§17.3.1.19, §17.9.19)",
        OUTLINE + num(1, 0) + num(2, 0),
        (
            P(style="H1"),
            P(style="H2"),
            P(2, 2),
            P(style="H3"),
            P(style="H1"),
            P(style="Plain"),
            P(style="Zero"),
            P(style="H2", ilvl=0),
            P(0, style="H1"),
            P(style="H2"),
        ),
        ("1.", "1.1", "1.1.1", "1.1.2", "2.", "3.", None, "4.", None, "4.1"),
        styles=HEADINGS,
    ),
    Case(
        "style_numbering_restarted",
        "a paragraph's own w:numId (with a w:startOverride) over its style's",
        OUTLINE + num(1, 0) + num(2, 0, start_override(0, 1)),
        (P(style="H1"), P(style="H1"), P(2, style="H1"), P(style="H1"), P(style="H2")),
        ("1.", "2.", "1.", "2.", "2.1"),
        styles=HEADINGS,
    ),
    Case(
        "num_id_zero",
        "w:numId 0: no number, and not counted (§17.9.19)",
        OUTLINE + num(1, 0),
        (P(1, 0), P(0, 0), P(1, 0)),
        ("1.", None, "2."),
    ),
    Case(
        "undefined_num_and_level",
        "a w:numId without a w:num, or a w:ilvl beyond 8: no number, nothing counted",
        OUTLINE + num(1, 0),
        (P(1, 0), P(9, 0), P(1, 9), P(1, 0)),
        ("1.", None, None, "2."),
    ),
    Case(
        "empty_levels",
        "an empty w:lvlText or w:numFmt none shows no label (§17.9.12, §17.9.18)",
        abstract(0, lvl(0, "", "none"), lvl(1, "%2)"), lvl(2, "", "decimal")) + num(1, 0),
        (P(1, 0), P(1, 1), P(1, 2), P(1, 0), P(1, 1)),
        (None, "1)", None, None, "1)"),
    ),
    Case(
        "tables",
        "list paragraphs inside tables count with those around them",
        OUTLINE + num(1, 0),
        (P(1, 0), P(1, 1, in_table=True), P(1, 1, in_table=True), P(1, 1), P(1, 0, in_table=True), P(1, 0)),
        ("1.", "1.1", "1.2", "1.3", "2.", "3."),
    ),
    Case(
        "deleted_paragraphs",
        "read with revisions accepted: a paragraph whose mark is deleted joins the next and "
        "takes no number of its own; a whole deleted paragraph is gone (§17.13.5)",
        OUTLINE + num(1, 0),
        (
            P(1, 0),
            P(1, 0, deleted_mark=True),
            P(1, 0),
            P(1, 1),
            P(1, 1, deleted_mark=True, deleted_text=True),
            P(1, 0),
        ),
        ("1.", None, "2.", "2.1", None, "3."),
        accepted=True,
    ),
)
"""Each with LibreOffice 7.4's labels.  Not here, because LibreOffice 7.4 does not implement
them (``tests/test_numbering.py`` holds them to the spec instead): ``w:lvlRestart``
(§17.9.11), ``w:isLgl`` (§17.9.4), and a level linked to the paragraph's style by
``w:lvl/w:pStyle`` winning over the style's own ``w:ilvl`` (§17.9.24)."""


def main() -> int:
    got = libreoffice_labels(CASES)
    bad = 0
    for case in CASES:
        labels = got.get(case.name)
        same = labels == list(case.expected)
        bad += not same
        print(f"{'ok  ' if same else 'DIFF'} {case.name}: {case.rule}")
        if not same:
            print(f"     recorded    {list(case.expected)}\n     LibreOffice {labels}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
