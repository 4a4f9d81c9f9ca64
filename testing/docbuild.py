"""Build small .docx files for tests from a compact notation.

A document is a list of blocks; a paragraph is a list of inline items::

    docx(
        P("The Tenant |shall pay| rent of ", B("ten (10)"), " dollars."),
        P(Link("the portal"), " and\\tmore", style="Heading1"),
        Table([["cell one", P("cell two")]]),
    )

Inline notation inside :func:`P` (and every container that takes items):

* a ``str`` is plain text; ``|`` separates runs (``"a |b"`` is two runs: ``a `` and ``b``),
  ``\\t`` becomes ``w:tab`` and ``\\n`` becomes ``w:br`` inside the run;
* :func:`R` / :func:`B` / :func:`I` are runs with properties;
* :func:`Link`, :func:`SmartTag`, :func:`Sdt`, :func:`Ins`, :func:`Del`, :func:`MoveFrom`,
  :func:`MoveTo` wrap items;
* :func:`BmStart`, :func:`BmEnd`, :func:`CommentStart`, :func:`CommentEnd`, :func:`Field`,
  :func:`NoteRef` and :func:`Raw` add the other things a paragraph holds.

Every helper returns an XML string using the ``w:`` prefix; :func:`docx` declares the
namespaces (including ``mc:Ignorable="w14 w15"``) and writes the package.  Nothing here
imports the code under test.
"""

from __future__ import annotations

import io
import itertools
import re
import zipfile
import zlib
from xml.sax.saxutils import escape, quoteattr

from .zips import write_member

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
CT_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
CT_WML = "application/vnd.openxmlformats-officedocument.wordprocessingml."

NAMESPACES = (
    f'xmlns:w="{W_NS}" xmlns:r="{R_NS}" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" '
    'xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml" '
    'xmlns:wp14="http://schemas.microsoft.com/office/word/2010/wordprocessingDrawing" '
    'mc:Ignorable="w14 w15 wp14"'
)
DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
DATE = "2020-01-01T00:00:00Z"

_ids = itertools.count(900)
_link_urls: dict[str, str] = {}  # relationship id -> url (deterministic, so never stale)


class Xml(str):
    """An XML fragment (as opposed to text to be escaped)."""


def _items(items: tuple[object, ...]) -> str:
    return "".join(x if isinstance(x, Xml) else _plain(str(x)) for x in items)


def _plain(text: str) -> str:
    return "".join(R(part) for part in text.split("|") if part)


def _run_content(text: str, tag: str = "w:t") -> str:
    out = []
    buf = ""
    for ch in text:
        if ch in "\t\n":
            if buf:
                out.append(f'<{tag} xml:space="preserve">{escape(buf)}</{tag}>')
                buf = ""
            out.append("<w:tab/>" if ch == "\t" else "<w:br/>")
        else:
            buf += ch
    if buf:
        out.append(f'<{tag} xml:space="preserve">{escape(buf)}</{tag}>')
    return "".join(out)


def R(text: str, *, bold: bool = False, italic: bool = False, rpr: str = "") -> Xml:
    """One run of ``text`` (``\\t`` and ``\\n`` become ``w:tab`` / ``w:br``)."""
    props = ("<w:b/>" if bold else "") + ("<w:i/>" if italic else "") + rpr
    head = f"<w:rPr>{props}</w:rPr>" if props else ""
    return Xml(f"<w:r>{head}{_run_content(text)}</w:r>")


def B(text: str) -> Xml:
    return R(text, bold=True)


def I(text: str) -> Xml:  # noqa: E743 - the notation's name for an italic run
    return R(text, italic=True)


def Raw(xml: str) -> Xml:
    return Xml(xml)


def Link(*items: object, url: str = "https://example.com/") -> Xml:
    """A hyperlink to an external ``url`` (its relationship is added by :func:`docx`)."""
    rid = f"rIdLink{zlib.crc32(url.encode()):08x}"
    _link_urls[rid] = url
    return Xml(f'<w:hyperlink r:id="{rid}" w:history="1">{_items(items)}</w:hyperlink>')


def SmartTag(*items: object, name: str = "place") -> Xml:
    return Xml(
        f'<w:smartTag w:uri="urn:schemas-microsoft-com:office:smarttags" w:element="{name}">'
        f"{_items(items)}</w:smartTag>"
    )


def Sdt(*items: object, tag: str = "field") -> Xml:
    """A run-level content control."""
    sid = next(_ids)
    return Xml(
        f'<w:sdt><w:sdtPr><w:alias w:val="{tag}"/><w:tag w:val="{tag}"/><w:id w:val="{sid}"/>'
        f"</w:sdtPr><w:sdtContent>{_items(items)}</w:sdtContent></w:sdt>"
    )


def Ins(*items: object, author: str = "Alice", id: int | None = None) -> Xml:
    """Another author's tracked insertion."""
    rid = next(_ids) if id is None else id
    return Xml(f'<w:ins w:id="{rid}" w:author={quoteattr(author)} w:date="{DATE}">{_items(items)}</w:ins>')


def Del(text: str, *, author: str = "Alice", id: int | None = None) -> Xml:
    """Another author's tracked deletion of ``text``."""
    rid = next(_ids) if id is None else id
    return Xml(
        f'<w:del w:id="{rid}" w:author={quoteattr(author)} w:date="{DATE}">'
        f"<w:r>{_run_content(text, 'w:delText')}</w:r></w:del>"
    )


def MoveFrom(*items: object, name: str = "move1", author: str = "Alice") -> Xml:
    """The source of another author's tracked move (``w:moveFromRangeStart``, ``w:moveFrom``
    around ``items`` -- plain text becomes ``w:delText`` runs -- and ``w:moveFromRangeEnd``),
    paired by ``name`` with a :func:`MoveTo`."""
    rng, rid = next(_ids), next(_ids)
    body = "".join(
        x if isinstance(x, Xml) else f"<w:r>{_run_content(str(x), 'w:delText')}</w:r>" for x in items
    )
    return Xml(
        f'<w:moveFromRangeStart w:id="{rng}" w:author={quoteattr(author)} w:date="{DATE}" '
        f'w:name="{name}"/><w:moveFrom w:id="{rid}" w:author={quoteattr(author)} w:date="{DATE}">'
        f'{body}</w:moveFrom><w:moveFromRangeEnd w:id="{rng}"/>'
    )


def MoveTo(*items: object, name: str = "move1", author: str = "Alice") -> Xml:
    """The destination of another author's tracked move: ``w:moveToRangeStart``, ``w:moveTo``
    around ``items`` (runs, as :func:`P` reads them), ``w:moveToRangeEnd``."""
    rng, rid = next(_ids), next(_ids)
    return Xml(
        f'<w:moveToRangeStart w:id="{rng}" w:author={quoteattr(author)} w:date="{DATE}" '
        f'w:name="{name}"/><w:moveTo w:id="{rid}" w:author={quoteattr(author)} w:date="{DATE}">'
        f'{_items(items)}</w:moveTo><w:moveToRangeEnd w:id="{rng}"/>'
    )


def BmStart(name: str, id: int) -> Xml:
    return Xml(f'<w:bookmarkStart w:id="{id}" w:name="{name}"/>')


def BmEnd(id: int) -> Xml:
    return Xml(f'<w:bookmarkEnd w:id="{id}"/>')


def CommentStart(id: int) -> Xml:
    return Xml(f'<w:commentRangeStart w:id="{id}"/>')


def CommentEnd(id: int) -> Xml:
    return Xml(f'<w:commentRangeEnd w:id="{id}"/><w:r><w:commentReference w:id="{id}"/></w:r>')


def Field(instr: str, result: str) -> Xml:
    """A complex field: begin, instruction, separate, result run, end."""
    return Xml(
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        f'<w:r><w:instrText xml:space="preserve">{escape(instr)}</w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        f"{R(result)}"
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )


def NoteRef(id: int, kind: str = "footnote") -> Xml:
    """The reference mark of footnote (``kind="endnote"``: endnote) ``id``, a run of its own."""
    style = "FootnoteReference" if kind == "footnote" else "EndnoteReference"
    return Xml(f'<w:r><w:rPr><w:rStyle w:val="{style}"/></w:rPr><w:{kind}Reference w:id="{id}"/></w:r>')


def _notes(kind: str, notes: dict[int, list[object]]) -> str:
    """A footnotes / endnotes part: Word's two separators, then each note's paragraphs (its
    first one opens with the note's own mark, ``w:footnoteRef`` / ``w:endnoteRef``)."""
    out = [
        f'<w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>',
        f'<w:{kind} w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/>'
        f"</w:r></w:p></w:{kind}>",
    ]
    for nid, paras in notes.items():
        body = []
        for i, para in enumerate(paras):
            if isinstance(para, Xml) and para.startswith("<w:p"):
                body.append(para)
                continue
            mark = Xml(f"<w:r><w:{kind}Ref/></w:r><w:r><w:t xml:space=\"preserve\"> </w:t></w:r>")
            body.append(P(mark, para) if i == 0 else P(para))
        out.append(f'<w:{kind} w:id="{nid}">{"".join(body)}</w:{kind}>')
    return f"{DECL}<w:{kind}s {NAMESPACES}>{''.join(out)}</w:{kind}s>"


def P(*items: object, style: str | None = None, ppr: str = "", mark: str = "") -> Xml:
    """A paragraph; ``ppr`` is extra paragraph-property XML, ``mark`` the mark's run props."""
    props = (f'<w:pStyle w:val="{style}"/>' if style else "") + ppr
    if mark:
        props += f"<w:rPr>{mark}</w:rPr>"
    head = f"<w:pPr>{props}</w:pPr>" if props else ""
    return Xml(f"<w:p>{head}{_items(items)}</w:p>")


def Table(rows: list[list[object]]) -> Xml:
    """A table; each cell is a ``str`` (one paragraph), a :func:`P`, or a list of them."""
    out = ['<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid>']
    width = max(len(r) for r in rows)
    out.append('<w:gridCol w:w="2000"/>' * width + "</w:tblGrid>")
    for row in rows:
        out.append("<w:tr>")
        for cell in row:
            paras = cell if isinstance(cell, list) else [cell]
            body = "".join(p if isinstance(p, Xml) else P(str(p)) for p in paras)
            out.append(f'<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>{body}</w:tc>')
        out.append("</w:tr>")
    out.append("</w:tbl>")
    return Xml("".join(out))


def BlockSdt(*paras: object, tag: str = "block") -> Xml:
    sid = next(_ids)
    body = "".join(p if isinstance(p, Xml) else P(str(p)) for p in paras)
    return Xml(
        f'<w:sdt><w:sdtPr><w:tag w:val="{tag}"/><w:id w:val="{sid}"/></w:sdtPr>'
        f"<w:sdtContent>{body}</w:sdtContent></w:sdt>"
    )


STYLES = (
    f'<w:styles xmlns:w="{W_NS}">'
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/>'
    "</w:style>"
    '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>'
    '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/></w:rPr>'
    "</w:style>"
    '<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/>'
    '<w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr></w:style>'
    "</w:styles>"
)


def docx(
    *blocks: object,
    comments: str | None = None,
    extra: dict[str, bytes] | None = None,
    numbering: str | None = None,
    sect: bool = True,
    styles: str = "",
    footnotes: dict[int, list[object]] | None = None,
    endnotes: dict[int, list[object]] | None = None,
) -> bytes:
    """A complete package with ``blocks`` as its body.

    ``comments`` is the inner XML of an existing ``w:comments`` part (``None``: no comments
    part).  ``extra`` adds untouched members (e.g. media) after the XML parts.  ``numbering``
    is the inner XML of a ``w:numbering`` part (``None``: none).  ``styles``: more ``w:style``
    (or ``w:docDefaults``) elements for the styles part.  ``footnotes`` / ``endnotes``:
    note id -> its paragraphs (items as :func:`P` takes them, or paragraphs made by
    :func:`P`), referred to from the body by :func:`NoteRef`.
    """
    body = "".join(b if isinstance(b, Xml) else P(str(b)) for b in blocks)
    if sect:
        body += '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr>'
    document = f"{DECL}<w:document {NAMESPACES}><w:body>{body}</w:body></w:document>"
    rels = [f'<Relationship Id="rIdStyles" Type="{REL}styles" Target="styles.xml"/>']
    for rid in sorted(set(re.findall(r'r:id="(rIdLink[0-9a-f]+)"', body))):
        rels.append(
            f'<Relationship Id="{rid}" Type="{REL}hyperlink" '
            f'Target={quoteattr(_link_urls[rid])} TargetMode="External"/>'
        )
    overrides = [
        f'<Override PartName="/word/document.xml" ContentType="{CT_MAIN}"/>',
        f'<Override PartName="/word/styles.xml" ContentType="{CT_WML}styles+xml"/>',
    ]
    parts: list[tuple[str, bytes]] = []
    if comments is not None:
        rels.append(f'<Relationship Id="rIdComments" Type="{REL}comments" Target="comments.xml"/>')
        overrides.append(f'<Override PartName="/word/comments.xml" ContentType="{CT_WML}comments+xml"/>')
        xml = f"{DECL}<w:comments {NAMESPACES}>{comments}</w:comments>"
        parts.append(("word/comments.xml", xml.encode()))
    for kind, notes in (("footnote", footnotes), ("endnote", endnotes)):
        if notes is not None:
            rels.append(f'<Relationship Id="rId{kind}s" Type="{REL}{kind}s" Target="{kind}s.xml"/>')
            overrides.append(f'<Override PartName="/word/{kind}s.xml" ContentType="{CT_WML}{kind}s+xml"/>')
            parts.append((f"word/{kind}s.xml", _notes(kind, notes).encode()))
    if numbering is not None:
        rels.append(f'<Relationship Id="rIdNumbering" Type="{REL}numbering" Target="numbering.xml"/>')
        overrides.append(f'<Override PartName="/word/numbering.xml" ContentType="{CT_WML}numbering+xml"/>')
        parts.append(
            ("word/numbering.xml", f"{DECL}<w:numbering {NAMESPACES}>{numbering}</w:numbering>".encode())
        )
    types = (
        f'{DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        '<Default Extension="png" ContentType="image/png"/>' + "".join(overrides) + "</Types>"
    )
    root_rels = (
        f'{DECL}<Relationships xmlns="{REL_NS}"><Relationship Id="rId1" '
        f'Type="{REL}officeDocument" Target="word/document.xml"/></Relationships>'
    )
    doc_rels = f'{DECL}<Relationships xmlns="{REL_NS}">{"".join(rels)}</Relationships>'
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        write_member(z, "[Content_Types].xml", types)
        write_member(z, "_rels/.rels", root_rels)
        write_member(z, "word/document.xml", document)
        write_member(z, "word/_rels/document.xml.rels", doc_rels)
        write_member(z, "word/styles.xml", DECL + STYLES.replace("</w:styles>", styles + "</w:styles>"))
        for name, data in parts:
            write_member(z, name, data)
        for name, data in (extra or {}).items():
            write_member(z, name, data, compress_type=zipfile.ZIP_STORED)
    return buf.getvalue()
