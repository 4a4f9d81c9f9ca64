"""Other authors' revisions and comments: read by their own ids, placed in the view, shown inline.

Oracles: the XML itself (every ``w:ins``/``w:del``/move of every story part, counted with lxml,
must be listed by its id), pandoc's ``--track-changes=all`` (the insertions and deletions it
sees, on documents where it does not merge neighbours), and the view (the markup with its marks
taken out is exactly the text a model quotes from).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from redline.opc.package import Package
from redline.read.annotations import Annotations, read_annotations
from redline.read.load import load_view
from redline.read.markup import HEADER, render
from redline.read.roles import RevisionKind
from redline.read.view import DocumentView
from redline.tools.session import DocumentTools
from redline_cli.redline import main
from testing.docbuild import DATE, CommentEnd, CommentStart, Del, Ins, P, Raw, Table, docx

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


def _load(data: bytes) -> tuple[Package, DocumentView, Annotations]:
    loaded = load_view(data)
    assert isinstance(loaded, tuple), loaded
    package, view = loaded
    return package, view, read_annotations(package, view)


_MARK = re.compile(
    r"\{(?:\+\+|@@)(?:\u00b6|row)(?:\+\+|@@)\}\[[^\]]*\]|\{@@(?:table|cell)@@\}\[[^\]]*\]|\{--.*?--\}\[[^\]]*\]|\{(?:\+\+|@@|==)|(?:\+\+|@@)\}\[[^\]]*\]|==\}(?:\{>>.*?<<\}\[[^\]]*\])+"
    r"|(?:\{>>.*?<<\}\[[^\]]*\])+",
    re.S,
)


def strip_markup(text: str) -> str:
    """The markup with every mark taken out (what remains must be the labelled view)."""
    assert text.startswith(HEADER)
    return _MARK.sub("", text[len(HEADER) :])


def _comments(*items: str) -> str:
    return "".join(items)


def _comment(cid: int, text: str, para_id: str, author: str = "Opposing Counsel") -> str:
    return (
        f'<w:comment w:id="{cid}" w:author="{author}" w:date="{DATE}" w:initials="OC">'
        f'<w:p w14:paraId="{para_id}"><w:r><w:annotationRef/></w:r><w:r><w:t>{text}</w:t></w:r></w:p>'
        "</w:comment>"
    )


def _with_extended(data: bytes, entries: str) -> bytes:
    """``data`` with a commentsExtended part holding ``entries`` (w15:commentEx elements)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "word/_rels/document.xml.rels":
                body = body.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdEx" Type="http://schemas.microsoft.com/office/2011/'
                    b'relationships/commentsExtended" Target="commentsExtended.xml"/></Relationships>',
                )
            if info.filename == "[Content_Types].xml":
                body = body.replace(
                    b"</Types>",
                    b'<Override PartName="/word/commentsExtended.xml" ContentType="application/'
                    b'vnd.openxmlformats-officedocument.wordprocessingml.commentsExtended+xml"/></Types>',
                )
            z.writestr(info, body)
        z.writestr(
            "word/commentsExtended.xml",
            f'<w15:commentsEx xmlns:w15="{W15}">{entries}</w15:commentsEx>',
        )
    return out.getvalue()


def negotiated() -> bytes:
    """A clause that came back with the other side's changes and a comment thread."""
    body = (
        P(
            "The Tenant shall pay ",
            Del("monthly", author="Opposing Counsel", id=13),
            Ins("quarterly", author="Opposing Counsel", id=12),
            " rent ",
            CommentStart(4),
            "within ten days",
            CommentEnd(4),
            Raw('<w:commentRangeStart w:id="5"/><w:commentRangeEnd w:id="5"/>'),
            Raw('<w:r><w:commentReference w:id="5"/></w:r>'),
            ".",
        ),
        P("Second clause stays.", mark=f'<w:ins w:id="20" w:author="Opposing Counsel" w:date="{DATE}"/>'),
        P(Del("A paragraph they struck.", author="Opposing Counsel", id=21),
          mark='<w:del w:id="22" w:author="Opposing Counsel" w:date="2020-01-01T00:00:00Z"/>'),
        P(Raw('<w:r><w:rPr><w:b/><w:rPrChange w:id="30" w:author="Opposing Counsel"><w:rPr/>'
              '</w:rPrChange></w:rPr><w:t>Bold now</w:t></w:r>'), " and plain."),
        Table([["cell text", P("other ", Ins("cell", author="Bob", id=40))]]),
    )  # fmt: skip
    comments = _comment(4, "Too short.", "00000004") + _comment(5, "Agreed, 30 days.", "00000005", "Us")
    data = docx(*body, comments=comments)
    return _with_extended(
        data,
        '<w15:commentEx w15:paraId="00000004" w15:done="0"/>'
        '<w15:commentEx w15:paraId="00000005" w15:paraIdParent="00000004" w15:done="1"/>',
    )


def test_every_revision_and_comment_by_its_own_id() -> None:
    _, view, found = _load(negotiated())
    by_id = {r.id: r for r in found.revisions}
    assert set(by_id) == {"12", "13", "20", "21", "22", "30", "40"}
    kinds = {rid: r.kind for rid, r in by_id.items()}
    assert kinds == {
        "12": RevisionKind.INSERT, "13": RevisionKind.DELETE, "20": RevisionKind.PARAGRAPH_INSERT,
        "21": RevisionKind.DELETE, "22": RevisionKind.PARAGRAPH_DELETE, "30": RevisionKind.FORMAT,
        "40": RevisionKind.INSERT,
    }  # fmt: skip
    ins, gone = by_id["12"], by_id["13"]
    assert (ins.text, ins.author, ins.date, ins.paragraph) == ("quarterly", "Opposing Counsel", DATE, 0)
    assert view.text[ins.start : ins.end] == "quarterly"
    assert gone.text == "monthly" and gone.start == gone.end == ins.start  # where it stood
    assert by_id["21"].text == "A paragraph they struck."
    # the struck paragraph is dropped by the view: what it held lies in the one it joins
    assert view.paragraph_text(view.paragraphs[by_id["21"].paragraph or 0]).startswith("Bold now")
    assert by_id["30"].text == "Bold now"
    assert by_id["40"].text == "cell" and by_id["40"].element is not None
    assert by_id["40"].element.tag == f"{{{W}}}ins"
    c4, c5 = found.comment("4")[0], found.comment("5")[0]
    assert (c4.text, c4.quote, c4.parent, c4.resolved, c4.paragraph) == (
        "Too short.",
        "within ten days",
        None,
        False,
        0,
    )
    assert (c5.parent, c5.resolved, c5.author) == ("4", True, "Us")
    assert found.threads and found.comments_part == "word/comments.xml"


def test_markup_shows_them_inline_and_strips_back_to_the_view() -> None:
    _, view, found = _load(negotiated())
    text = render(view, found)
    assert text.startswith(HEADER)
    assert "{--monthly--}[r13 Opposing Counsel]{++quarterly++}[r12 Opposing Counsel]" in text
    assert "{==within ten days==}{>>Too short.<<}[c4 Opposing Counsel]" in text
    assert "{>>Agreed, 30 days.<<}[c5 Us, reply to c4, resolved]" in text
    assert "Second clause stays.{++\u00b6++}[r20 Opposing Counsel]" in text
    assert "{--A paragraph they struck.--}[r21 Opposing Counsel]{--\u00b6--}[r22 Opposing Counsel]" in text
    assert "{@@Bold now@@}[r30 Opposing Counsel, formatting]" in text
    assert strip_markup(text) == view.labelled()
    # a range: only what lies in it
    part = render(view, found, 4, 4)
    assert "r40 Bob" in part and "r12 " not in part[len(HEADER) :]
    assert strip_markup(part) == view.labelled(4, 4)


def test_view_json_and_markup_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "back.docx"
    doc.write_bytes(negotiated())
    assert main(["view", str(doc), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rev = next(r for r in out["revisions"] if r["id"] == "12")
    assert {k: rev[k] for k in ("id", "kind", "author", "date", "text", "paragraph")} == {
        "id": "12", "kind": "insert", "author": "Opposing Counsel", "date": DATE, "text": "quarterly",
        "paragraph": 0,
    }  # fmt: skip
    com = next(c for c in out["comments"] if c["id"] == "5")
    assert {k: com[k] for k in ("id", "author", "text", "paragraph", "parent", "resolved", "quote")} == {
        "id": "5", "author": "Us", "text": "Agreed, 30 days.", "paragraph": 0, "parent": "4",
        "resolved": True, "quote": "",
    }  # fmt: skip
    assert main(["view", str(doc), "--markup"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(HEADER) and "[r12 Opposing Counsel]" in shown
    assert main(["view", str(doc), "--markup", "--json"]) == 2
    # a document without any: the lists are empty, the markup is the plain view after the header
    plain = tmp_path / "plain.docx"
    plain.write_bytes(docx(P("Nothing tracked.")))
    assert main(["view", str(plain), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["revisions"] == [] and out["comments"] == []
    assert main(["view", str(plain), "--markup"]) == 0
    assert capsys.readouterr().out == HEADER + "Nothing tracked.\n"


def test_read_region_markup(tmp_path: Path) -> None:
    (tmp_path / "back.docx").write_bytes(negotiated())
    tools = DocumentTools(tmp_path)
    plain = tools.read_region("back.docx", paragraphs="0-1")
    marked = tools.read_region("back.docx", paragraphs="0-1", markup=True)
    assert "revisions" not in plain and "{++" not in plain["text"]
    assert marked["revision"] == plain["revision"] and marked["paragraphs"] == plain["paragraphs"]
    assert strip_markup(marked["text"]) == plain["text"]
    assert {r["id"] for r in marked["revisions"]} == {"12", "13", "20"}
    assert {c["id"] for c in marked["comments"]} == {"4", "5"}
    bad = tools.handle("read_region", {"path": "back.docx", "paragraphs": "0-1", "markup": "yes"})
    assert bad["error"]["code"] == "invalid_arguments"


def test_hostile_ids_and_parts() -> None:
    # ids that are not numbers, two comments with one id, a comments part without
    # commentsExtended, a reply whose parent is missing
    body = P(
        Ins("new", id=0, author="A"),
        Raw('<w:ins w:id="x-1" w:author="A"><w:r><w:t>odd</w:t></w:r></w:ins>'),
        Raw('<w:del w:author="A"><w:r><w:delText>no id</w:delText></w:r></w:del>'),
        CommentStart(7), "passage", CommentEnd(7),
    )  # fmt: skip
    data = docx(body, comments=_comment(7, "one", "0A") + _comment(7, "two", "0B"))
    _, view, found = _load(data)
    assert [r.id for r in found.revisions] == ["0", "x-1", ""]
    assert [c.text for c in found.comment("7")] == ["one", "two"]
    assert not found.threads and all(c.parent is None and not c.resolved for c in found.comments)
    assert strip_markup(render(view, found)) == view.labelled()
    orphan = _with_extended(data, '<w15:commentEx w15:paraId="0B" w15:paraIdParent="FFFF" w15:done="1"/>')
    _, _, found = _load(orphan)
    two = found.comments[1]
    assert two.parent is None and two.resolved


# -------------------------------------------------------------------------------------------
# The corpus


_STORY = re.compile(r"word/(document|header\d*|footer\d*|footnotes|endnotes)\.xml$")
_TAGS = {f"{{{W}}}{t}" for t in ("ins", "del", "moveFrom", "moveTo")}


def _xml_revisions(data: bytes) -> Counter[tuple[str, str]]:
    """Every w:ins / w:del / w:moveFrom / w:moveTo of the story parts, by (id, local name)."""
    found: Counter[tuple[str, str]] = Counter()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in z.namelist():
            if _STORY.match(name):
                root = etree.fromstring(z.read(name))
                for el in root.iter(*_TAGS):
                    found[(el.get(f"{{{W}}}id") or "", etree.QName(el).localname)] += 1
    return found


def test_corpus_every_revision_and_comment_listed(corpus_docs: list[Path]) -> None:
    with_any = 0
    for path in corpus_docs:
        data = path.read_bytes()
        loaded = load_view(data)
        if not isinstance(loaded, tuple):
            continue
        package, view = loaded
        found = read_annotations(package, view)
        ours = Counter(
            (r.id, etree.QName(r.element).localname)
            for r in found.revisions
            if r.element is not None and r.element.tag in _TAGS
        )
        xml = _xml_revisions(data)  # (every story part of this corpus is one the view reads)
        assert ours == xml, (path.name, ours - xml, xml - ours)
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = z.namelist()
            ids = (
                [
                    c.get(f"{{{W}}}id")
                    for c in etree.fromstring(z.read("word/comments.xml")).iter(f"{{{W}}}comment")
                ]
                if "word/comments.xml" in names
                else []
            )
        assert [c.id for c in sorted(found.comments, key=lambda c: int(c.id))] == sorted(
            ids, key=lambda i: int(i or 0)
        ), path.name
        text = render(view, found)
        assert strip_markup(text) == view.labelled(), path.name
        for r in found.revisions:
            if r.kind in (RevisionKind.INSERT, RevisionKind.MOVE_TO) and r.end > r.start:
                assert r.text == view.text[r.start : r.end] or "\n" in view.text[r.start : r.end]
        with_any += bool(found)
    assert with_any >= 8


def _pandoc_spans(pandoc: str, data: bytes) -> Counter[str]:
    import subprocess
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".docx") as f:
        f.write(data)
        f.flush()
        proc = subprocess.run(
            [pandoc, "--track-changes=all", "-t", "json", f.name], capture_output=True, check=True
        )
    found: Counter[str] = Counter()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("t") == "Span":
                for cls in node["c"][0][1]:
                    if cls in ("insertion", "deletion"):
                        found[cls] += 1
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(proc.stdout)["blocks"])
    return found


@pytest.mark.parametrize(
    "name", ["pyredlines-expected-redline", "oxpt-HC031-complicated", "poi-stress023-adu-ordinance"]
)
def test_corpus_agrees_with_pandoc(corpus_dir: Path, pandoc: str, name: str) -> None:
    """pandoc's --track-changes=all sees as many insertions and deletions holding text in the
    body (on these documents it does not merge neighbouring ones)."""
    data = (corpus_dir / f"{name}.docx").read_bytes()
    _, _, found = _load(data)
    body = [r for r in found.revisions if r.part == "word/document.xml" and r.text]
    ours = Counter(
        {"insertion": sum(r.kind is RevisionKind.INSERT for r in body),
         "deletion": sum(r.kind is RevisionKind.DELETE for r in body)}
    )  # fmt: skip
    assert ours == _pandoc_spans(pandoc, data)


def test_corpus_comment_threads(corpus_dir: Path) -> None:
    """d2p-file-with-comments: two replies (threads in commentsExtended) and one resolved."""
    _, view, found = _load((corpus_dir / "d2p-file-with-comments.docx").read_bytes())
    assert {c.id: c.parent for c in found.comments if c.parent} == {"5": "4", "8": "7"}
    assert [c.id for c in found.comments if c.resolved] == ["9"]
    assert all(c.paragraph is not None for c in found.comments)
    assert [c.id for c in found.comments if not c.quote] == ["11"]  # (it comments on a picture)
    assert "[c5 Randy Bartels, reply to c4]" in render(view, found)
