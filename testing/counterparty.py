"""Counterparty redlines as other tools write them (issue 30), on small generated documents.

Each function returns a .docx whose tracked changes have the XML shapes one writer was seen
to produce (run here, 2026-12, over the samples: docx-redline 1.0.3, adeu 3.0.7, python-redlines
2.0.0 (its Docxodus engine), docx-editor 0.8.2, LibreOffice 7.4 recording changes over UNO),
and the nested shapes Word itself writes.  :data:`SHAPES` lists them by name.  Nothing here
imports the code under test; the ids are fixed, so a test can name them.

* **docx-redline**: a second author's deletion and format change inside the first one's
  insertion; ``w:rPrChange`` on a run with an empty old ``w:rPr``; ``w:pPrChange``; a deleted
  and an inserted paragraph (content and mark, each its own id); a row inserted and one
  deleted with their contents and marks marked; a move (``w:delText`` under ``w:moveFrom``).
* **adeu**: a deleted paragraph whose content and mark share one id (a tab kept between
  them; a footnote reference, in the file seen); a paragraph rewritten as a deletion and an
  insertion that runs on into a new paragraph (content, the new mark, its content: one id);
  rows marked in ``w:trPr`` only.
* **python-redlines**: ``w:numberingChange`` in ``w:numPr`` beside a paragraph's insertions,
  ``w:rPrChange``, a paragraph mark inserted and one deleted.
* **docx-editor**: a second author's deletion and insertion inside the first one's insertion.
* **LibreOffice**: ``w:rPrChange`` with no old ``w:rPr`` and ``w:id="0"`` (the same id as an
  insertion: ambiguous by id, decided by author), a row inserted with its contents marked.
* **Word**: an insertion inside a moved-away passage (with ``w:t`` under ``w:moveFrom``),
  revisions inside an inserted text box, a format change inside an insertion, and every
  record that changes no text (section, table, row, cell properties, a merge, numbering
  inserted, a content control's run properties, custom XML markup inserted and deleted, a
  cell inserted and one deleted), plus
  an empty ``w:ins``.
"""

from __future__ import annotations

from collections.abc import Callable

from .docbuild import P, Raw, docx

__all__ = ["SHAPES", "adeu", "docx_editor", "docx_redline", "libreoffice", "python_redlines", "word"]

_DATE = "2026-11-01T00:00:00Z"


def _a(rid: int, author: str) -> str:
    return f'w:id="{rid}" w:author="{author}" w:date="{_DATE}"'


def _ins(rid: int, author: str, body: str) -> str:
    return f"<w:ins {_a(rid, author)}>{body}</w:ins>"


def _del(rid: int, author: str, body: str) -> str:
    return f"<w:del {_a(rid, author)}>{body}</w:del>"


def _r(text: str, rpr: str = "") -> str:
    return f'<w:r>{f"<w:rPr>{rpr}</w:rPr>" if rpr else ""}<w:t xml:space="preserve">{text}</w:t></w:r>'


def _dr(text: str) -> str:
    return f'<w:r><w:delText xml:space="preserve">{text}</w:delText></w:r>'


def _row(cells: list[str], trpr: str = "", mark: str = "", wrap: Callable[[str], str] | None = None) -> str:
    out = [f"<w:tr>{f'<w:trPr>{trpr}</w:trPr>' if trpr else ''}"]
    for text in cells:
        body = wrap(text) if wrap else _r(text)
        head = f"<w:pPr><w:rPr>{mark}</w:rPr></w:pPr>" if mark else ""
        out.append(f'<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p>{head}{body}</w:p></w:tc>')
    out.append("</w:tr>")
    return "".join(out)


def _bold(rid: int, author: str, text: str) -> str:
    """A run made bold, recorded: ``w:rPrChange`` with an empty old ``w:rPr``."""
    return (
        f"<w:r><w:rPr><w:b/><w:rPrChange {_a(rid, author)}><w:rPr/></w:rPrChange></w:rPr>"
        f"<w:t>{text}</w:t></w:r>"
    )


def _table(*rows: str) -> str:
    grid = '<w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>'
    return Raw(f'<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr>{grid}{"".join(rows)}</w:tbl>')


def docx_redline() -> bytes:
    a, b = "DR Counsel", "DR Partner"
    nested = _ins(
        10,
        a,
        _r("due monthly ") + _del(11, b, _dr("and binding ")) + f"<w:r><w:rPr><w:i/><w:rPrChange {_a(12, b)}>"
        '<w:rPr/></w:rPrChange></w:rPr><w:t xml:space="preserve">forever </w:t></w:r>',
    )
    return docx(
        P("Fees are ", Raw(nested), "in arrears."),
        P(
            "The ",
            Raw(_bold(13, a, "Services")),
            " are described below.",
        ),
        P("Centred clause.", ppr=f'<w:jc w:val="center"/><w:pPrChange {_a(14, a)}><w:pPr/></w:pPrChange>'),
        P(Raw(_del(16, a, _dr("A whole paragraph struck."))), mark=f"<w:del {_a(15, a)}/>"),
        P(Raw(_ins(18, a, _r("A new clause inserted."))), mark=f"<w:ins {_a(17, a)}/>"),
        P("Kept clause one."),
        _table(
            _row(["Tier", "Fee"]),
            _row(
                ["Gold", "10%"],
                trpr=f"<w:ins {_a(19, a)}/>",
                mark=f"<w:ins {_a(20, a)}/>",
                wrap=lambda t: _ins(21 if t == "Gold" else 25, a, _r(t)),
            ),
            _row(
                ["Bronze", "1%"],
                trpr=f"<w:del {_a(22, a)}/>",
                mark=f"<w:del {_a(23, a)}/>",
                wrap=lambda t: _del(24 if t == "Bronze" else 26, a, _dr(t)),
            ),
        ),
        P(
            Raw(
                f'<w:moveFromRangeStart {_a(30, a)} w:name="move100"/>'
                f"<w:moveFrom {_a(31, a)}>{_dr('Audit rights apply.')}</w:moveFrom>"
                '<w:moveFromRangeEnd w:id="30"/>'
            ),
            mark=f"<w:moveFrom {_a(32, a)}/>",
        ),
        P("Reports are monthly."),
        P(
            Raw(
                f'<w:moveToRangeStart {_a(33, a)} w:name="move100"/>'
                f'<w:moveTo {_a(34, a)}>{_r("Audit rights apply.")}</w:moveTo><w:moveToRangeEnd w:id="33"/>'
            ),
            mark=f"<w:moveTo {_a(35, a)}/>",
        ),
        P("Last clause."),
    )


def adeu() -> bytes:
    a = "Adeu Counsel"
    return docx(
        P("Premises means the fourth floor."),
        P(
            Raw(_del(3, a, _dr("Common Areas means the lobbies and corridors."))),
            Raw("<w:r><w:tab/></w:r>"),
            mark=f"<w:del {_a(3, a)}/>",
        ),
        P(
            Raw(
                _del(4, a, _dr("Operating Expenses means costs."))
                + _ins(5, a, _r("Operating Expenses means all costs."))
            ),
            mark=f"<w:del {_a(4, a)}/>",
        ),
        P(Raw(_ins(5, a, _r("A new paragraph added by adeu."))), mark=f"<w:ins {_a(5, a)}/>"),
        P("Business Day means a weekday."),
        _table(
            _row(["Period", "Rent"]),
            _row(["Months 1-12", "$10"], trpr=f"<w:del {_a(6, a)}/>"),
            _row(["Months 13-24", "$11"]),
            _row(["new 0", "new 1"], trpr=f"<w:ins {_a(7, a)}/>"),
        ),
        P("The end."),
    )


_NUMBERING = (
    '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/>'
    '<w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum>'
    '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>'
)


def _numbered(rid: int, author: str, original: str) -> str:
    return (
        f'<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/>'
        f'<w:numberingChange {_a(rid, author)} w:original="{original}"/></w:numPr>'
    )


def python_redlines() -> bytes:
    a = "PR Counsel"
    return docx(
        P("Definitions", ppr=_numbered(50, a, "%1:1:0:.")),
        P(
            "The Services are ",
            Raw(_del(51, a, _dr("professional")) + _ins(52, a, _r("very professional"))),
            " services.",
            ppr=_numbered(53, a, "%1:2:0:."),
        ),
        P(
            Raw(_bold(54, a, "Fees")),
            " are due.",
            ppr=_numbered(55, a, "%1:3:0:."),
        ),
        P(Raw(_del(57, a, _dr("A struck clause."))), mark=f"<w:del {_a(56, a)}/>"),
        P(Raw(_ins(59, a, _r("An added clause."))), mark=f"<w:ins {_a(58, a)}/>"),
        P("The end."),
        numbering=_NUMBERING,
    )


def docx_editor() -> bytes:
    a, b = "DE Counsel", "DE Partner"
    nested = _ins(60, a, _r("(as ") + _del(61, b, _dr("amended")) + _ins(62, b, _r("revised")) + _r(")"))
    return docx(
        P("The Term ", Raw(_del(63, a, _dr("of five years "))), "begins now."),
        P("This Agreement ", Raw(nested), " binds the parties."),
        P("The end."),
    )


def libreoffice() -> bytes:
    a = "LO Counsel"
    return docx(
        P("Rent is ", Raw(_ins(0, a, _r("[inserted by LO] "))), "due monthly."),
        P(
            Raw(f"<w:r><w:rPr><w:b/><w:rPrChange {_a(0, a)}></w:rPrChange></w:rPr><w:t>Deposit.</w:t></w:r>"),
            " Paid.",
        ),
        P(Raw(_del(1, a, _dr("A deleted paragraph."))), mark=f"<w:del {_a(2, a)}/>"),
        P("Kept."),
        _table(
            _row(["Period", "Rent"]),
            _row(["LO row", ""], trpr=f"<w:ins {_a(3, a)}/>", wrap=lambda t: _ins(4, a, _r(t)) if t else ""),
        ),
        P("The end."),
    )


_V = 'xmlns:v="urn:schemas-microsoft-com:vml"'


def word() -> bytes:
    a, b = "Author", "Reviewer"
    box = (
        f'<w:r><w:pict><v:shape {_V} style="width:100pt;height:40pt"><v:textbox><w:txbxContent>'
        f"<w:p>{_r('Box says ')}{_ins(72, b, _r('more '))}{_del(73, b, _dr('less'))}</w:p>"
        "</w:txbxContent></v:textbox></v:shape></w:pict></w:r>"
    )
    sect_change = (
        '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" '
        f'w:left="1440" w:header="720" w:footer="720" w:gutter="0"/><w:sectPrChange {_a(90, a)}><w:sectPr>'
        '<w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:sectPrChange></w:sectPr>'
    )
    tbl = (
        f'<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/><w:jc w:val="center"/><w:tblPrChange {_a(91, a)}>'
        '<w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr></w:tblPrChange></w:tblPr>'
        f'<w:tblGrid><w:gridCol w:w="3000"/><w:gridCol w:w="3000"/><w:tblGridChange w:id="92">'
        '<w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid></w:tblGridChange></w:tblGrid>'
        f"<w:tr><w:trPr><w:cantSplit/><w:trPrChange {_a(93, a)}><w:trPr/></w:trPrChange></w:trPr>"
        f'<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/><w:shd w:val="clear" w:fill="FFFF00"/>'
        f'<w:tcPrChange {_a(94, a)}><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr></w:tcPrChange></w:tcPr>'
        f"<w:p>{_r('Top left')}</w:p></w:tc>"
        f'<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/><w:vMerge w:val="restart"/>'
        f'<w:cellMerge {_a(95, a)} w:vMerge="rest"/></w:tcPr><w:p>{_r("Top right")}</w:p></w:tc></w:tr>'
        f'<w:tr><w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr><w:p>{_r("Low left")}</w:p></w:tc>'
        f'<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr></w:tbl>'
    )
    sdt = (
        f"<w:sdt><w:sdtPr><w:rPr><w:b/><w:rPrChange {_a(96, a)}><w:rPr/></w:rPrChange></w:rPr>"
        f'<w:id w:val="5"/></w:sdtPr><w:sdtContent>{_r("Party name")}</w:sdtContent></w:sdt>'
    )
    return docx(
        P(
            Raw(
                f'<w:moveFromRangeStart {_a(80, a)} w:name="move1"/><w:moveFrom {_a(81, a)}>{_r("s")}'
                f'{_ins(82, b, _r(" / b"))}</w:moveFrom><w:moveFromRangeEnd w:id="80"/>'
            ),
            " stays.",
        ),
        P("Middle clause."),
        P(
            Raw(
                f'<w:moveToRangeStart {_a(83, a)} w:name="move1"/><w:moveTo {_a(84, a)}>{_r("s")}</w:moveTo>'
                '<w:moveToRangeEnd w:id="83"/>'
            ),
            " arrives.",
        ),
        P("A picture: ", Raw(_ins(71, a, box)), " and text."),
        P(
            "Fees ",
            Raw(
                _ins(
                    74,
                    a,
                    _bold(75, b, "bold"),
                )
            ),
            " here.",
        ),
        P("One ", Raw(_ins(76, a, _r("inserted ") + _del(77, b, _dr("and deleted ")))), "word."),
        P(
            "Numbered now.",
            ppr=f'<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/><w:ins {_a(78, a)}/></w:numPr>',
        ),
        P("An empty insertion: ", Raw(f"<w:ins {_a(79, a)}/>"), "nothing."),
        Raw(tbl),
        P("Between the tables."),
        _table(
            f'<w:tr><w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p>{_r("Kept")}</w:p></w:tc>'
            f'<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/><w:cellIns {_a(85, a)}/></w:tcPr>'
            f"<w:p>{_ins(86, a, _r('New cell'))}</w:p></w:tc></w:tr>",
            f'<w:tr><w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p>{_r("Kept too")}</w:p></w:tc>'
            f'<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/><w:cellDel {_a(87, b)}/></w:tcPr>'
            f"<w:p>{_del(88, b, _dr('Old cell'))}</w:p></w:tc></w:tr>",
        ),
        P("Party: ", Raw(sdt), ".", ppr=""),
        P(
            "Tagged: ",
            Raw(
                f'<w:customXml w:element="party"><w:customXmlInsRangeStart {_a(97, a)}/>{_r("Acme")}'
                '<w:customXmlInsRangeEnd w:id="97"/></w:customXml>'
                f'<w:customXml w:element="role"><w:customXmlDelRangeStart {_a(98, b)}/>{_r(" Seller")}'
                '<w:customXmlDelRangeEnd w:id="98"/></w:customXml>'
            ),
            ".",
        ),
        P(
            "Formatted as issue 29 writes it.",
            ppr=(
                f'<w:jc w:val="right"/><w:rPr><w:ins {_a(99, a)}/><w:b/><w:rPrChange {_a(100, a)}>'
                f"<w:rPr><w:i/></w:rPr></w:rPrChange></w:rPr><w:pPrChange {_a(101, b)}><w:pPr>"
                '<w:jc w:val="left"/></w:pPr></w:pPrChange>'
            ),
        ),
        P("Section one ends.", ppr=sect_change),
        P("The end."),
        numbering=_NUMBERING,
    )


SHAPES: dict[str, Callable[[], bytes]] = {
    "docx-redline": docx_redline,
    "adeu": adeu,
    "python-redlines": python_redlines,
    "docx-editor": docx_editor,
    "libreoffice": libreoffice,
    "word": word,
}
"""Every writer's shapes, by the writer's name."""
