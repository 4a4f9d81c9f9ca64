"""Decisions on every real document with tracked changes or comments ($REDLINE_CORPUS).

* One insertion accepted and one deletion rejected by id: every other revision is still there
  (by id and kind, in the XML), pandoc's accept and reject views are those of an lxml oracle
  that makes the same two decisions by hand, python-docx opens the output.
* A document whose changes are all one author's: accepting them all gives pandoc's accept
  view, rejecting them all its reject view (up to spacing: pandoc puts a space where a
  rejected paragraph mark joins two paragraphs, Word does not).  Table-row revisions are
  left out of this check: pandoc reads no row revisions.
* A reply to the first comment and its thread resolved: the reply reads back under its parent
  (``w15:paraIdParent``), the thread carries ``w15:done="1"``, LibreOffice opens the output and
  shows one annotation more, the thread's first one resolved; python-docx opens it.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from redline.apply import ApplyOptions, apply_reply
from redline.read.annotations import Annotations, Revision, read_annotations
from redline.read.load import load_view
from redline.read.roles import RevisionKind
from tests.oracles import pandoc_unspaced
from tests.oracles import run as run_isolated
from tests.support import corpus_paths

CORPUS_DOCS = corpus_paths()
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"
OPTIONS = ApplyOptions(author="Redline Reviewer", date="2024-05-01T00:00:00Z")


def _annotations(data: bytes) -> Annotations | None:
    loaded = load_view(data)
    if not isinstance(loaded, tuple):
        return None
    return read_annotations(*loaded)


def _with_revisions() -> list[Path]:
    return [p for p in CORPUS_DOCS if _kinds(p)]


def _kinds(path: Path) -> set[RevisionKind]:
    found = _annotations(path.read_bytes())
    return {r.kind for r in found.revisions} if found else set()


def _with_comments() -> list[Path]:
    out = []
    for p in CORPUS_DOCS:
        found = _annotations(p.read_bytes())
        if found and any(c.parent is None and c.paragraph is not None for c in found.comments):
            out.append(p)
    return out


REVISED = _with_revisions()
COMMENTED = _with_comments()
needs_corpus = pytest.mark.skipif(not CORPUS_DOCS, reason="set REDLINE_CORPUS to the real-document corpus")


def python_docx_opens(data: bytes, original: bytes) -> None:
    """python-docx opens ``data`` -- when it opens the ``original`` (it cannot read an altChunk
    part, say)."""
    docx = pytest.importorskip("docx")
    try:
        docx.Document(io.BytesIO(original))
    except Exception:
        return
    document = docx.Document(io.BytesIO(data))
    assert document.paragraphs is not None


def _free(rev: Revision, kind: RevisionKind, decided: list[Revision]) -> bool:
    """A text revision of ``kind`` with text, in no other revision (its decision alone)."""
    el = rev.element
    if rev.kind is not kind or el is None or not rev.text.strip() or rev.paragraph is None:
        return False
    node = el.getparent()
    while node is not None:
        if isinstance(node.tag, str) and node.tag.rsplit("}", 1)[-1] in ("ins", "del", "moveFrom", "moveTo"):
            return False
        node = node.getparent()
    return all(d.element is not None and el not in set(d.element.iter()) for d in decided)


def _inside(rev: Revision, decided: list[Revision]) -> bool:
    return rev.element is not None and any(
        d.element is not None and rev.element in set(d.element.iter()) for d in decided
    )


def oracle(data: bytes, part: str, decisions: dict[str, tuple[str, bool]]) -> bytes:
    """The decisions (id -> (tag, accept)) made by hand on ``part`` with lxml."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        files = {n: z.read(n) for n in z.namelist()}
    root = etree.fromstring(files[part])
    for rid, (tag, accept) in decisions.items():
        (el,) = [e for e in root.iter(f"{{{W}}}{tag}") if e.get(f"{{{W}}}id") == rid]
        if (tag == "ins") == accept:
            for t in el.iter(f"{{{W}}}delText"):
                t.tag = f"{{{W}}}t"
            for t in el.iter(f"{{{W}}}delInstrText"):
                t.tag = f"{{{W}}}instrText"
            for child in list(el):
                el.addprevious(child)
        parent = el.getparent()
        assert parent is not None
        parent.remove(el)
    files[part] = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(n, d)
    return buf.getvalue()


@needs_corpus
@pytest.mark.parametrize("path", REVISED, ids=[p.name for p in REVISED])
def test_one_insertion_accepted_and_one_deletion_rejected_by_id(path: Path) -> None:
    data = path.read_bytes()
    found = _annotations(data)
    assert found is not None
    ins = next((r for r in found.revisions if _free(r, RevisionKind.INSERT, [])), None)
    dele = next(
        (
            r
            for r in found.revisions
            if _free(r, RevisionKind.DELETE, [ins] if ins else []) and (ins is None or r.part == ins.part)
        ),
        None,
    )  # fmt: skip
    chosen = [r for r in (ins, dele) if r is not None]
    if not chosen:
        pytest.skip(f"{path.name} has no free insertion or deletion")
    entries = [{"action": "accept" if r is ins else "reject", "revision_id": r.id} for r in chosen]
    out = apply_reply(data, json.dumps(entries), OPTIONS)
    assert [e.status.value for e in out.report.edits] == ["applied"] * len(chosen), out.report.edits
    assert out.output is not None
    # every other revision in place, by id and kind
    after = _annotations(out.output)
    assert after is not None
    expected = sorted(
        (r.id, r.kind.value) for r in found.revisions if r not in chosen and not _inside(r, chosen)
    )
    assert sorted((r.id, r.kind.value) for r in after.revisions) == expected
    # pandoc reads what an lxml oracle making the same decisions gives
    hand = oracle(data, chosen[0].part, {r.id: ("ins" if r is ins else "del", r is ins) for r in chosen})
    for mode in ("accept", "reject"):
        assert pandoc_unspaced(out.output, mode) == pandoc_unspaced(hand, mode), mode
    if dele is None:  # accepting an insertion alone leaves the accept view as it was
        assert pandoc_unspaced(out.output, "accept") == pandoc_unspaced(data, "accept")
    python_docx_opens(out.output, data)


@needs_corpus
@pytest.mark.parametrize("path", REVISED, ids=[p.name for p in REVISED])
def test_all_of_one_authors_changes_accepted_or_rejected(path: Path) -> None:
    data = path.read_bytes()
    found = _annotations(data)
    assert found is not None
    authors = {r.author for r in found.revisions}
    if len(authors) != 1 or None in authors:
        pytest.skip(f"{path.name}: not a single author's changes")
    if {r.kind for r in found.revisions} & {RevisionKind.ROW_INSERT, RevisionKind.ROW_DELETE}:
        pytest.skip(f"{path.name}: table-row revisions, which pandoc does not read")
    (author,) = authors
    assert author is not None
    for action in ("accept", "reject"):
        reply = [{"action": action, "author": author, "expected_matches": len(found.revisions)}]
        out = apply_reply(data, json.dumps(reply), OPTIONS)
        assert [e.status.value for e in out.report.edits] == ["applied"], out.report.edits
        assert out.output is not None
        after = _annotations(out.output)
        assert after is not None and not after.revisions
        assert pandoc_unspaced(out.output, "all") == pandoc_unspaced(data, action), action
        python_docx_opens(out.output, data)


def _fodt_annotations(data: bytes, tmp: Path) -> list[tuple[str, bool]]:
    """(text, resolved) of every annotation LibreOffice shows (its flat ODF export)."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice is not installed")
    src = tmp / "doc.docx"
    src.write_bytes(data)
    env = {**os.environ, "HOME": str(tmp)}
    profile = (tmp / "profile").as_uri()
    cmd = [
        soffice,
        f"-env:UserInstallation={profile}",
        "--headless",
        "--convert-to",
        "fodt",
        "--outdir",
        str(tmp),
        str(src),
    ]
    run_isolated(cmd, env, timeout=300)
    out = tmp / "doc.fodt"
    assert out.exists(), "LibreOffice did not open the document"
    root = etree.parse(str(out)).getroot()
    office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    loext = "urn:org:documentfoundation:names:experimental:office:xmlns:loext:1.0"
    found = []
    for note in root.iter(f"{{{office}}}annotation"):
        paras = [
            "".join(str(t) for t in p.itertext())
            for p in note
            if isinstance(p.tag, str) and p.tag.endswith("}p")
        ]  # fmt: skip
        found.append((" ".join(paras), note.get(f"{{{loext}}}resolved") == "true"))
    out.unlink()
    return found


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("path", COMMENTED, ids=[p.name for p in COMMENTED])
def test_a_reply_threads_under_its_parent_and_a_resolved_thread_is_done(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    found = _annotations(data)
    assert found is not None
    root = next(c for c in found.comments if c.parent is None and c.paragraph is not None and not c.resolved)
    text = "Agreed in principle; see our redline."
    reply = [
        {"action": "reply", "comment_id": root.id, "text": text},
        {"action": "resolve", "comment_id": root.id},
    ]
    out = apply_reply(data, json.dumps(reply), OPTIONS)
    assert [e.status.value for e in out.report.edits] == ["applied", "applied"], out.report.edits
    assert out.output is not None
    after = _annotations(out.output)
    assert after is not None
    (mine,) = [c for c in after.comments if c.text == text]
    assert mine.parent == root.id and mine.quote == root.quote and mine.author == OPTIONS.author
    again = next(c for c in after.comments if c.id == root.id)
    assert again.resolved and again.text == root.text
    with zipfile.ZipFile(io.BytesIO(out.output)) as z:
        ex = etree.fromstring(z.read("word/commentsExtended.xml"))
        comments = etree.fromstring(z.read("word/comments.xml"))
    pids = {
        c.get(f"{{{W}}}id"): c.findall(f".//{{{W}}}p")[-1].get("{http://schemas.microsoft.com/office/word/2010/wordml}paraId")
        for c in comments
    }  # fmt: skip
    entries = {e.get(f"{{{W15}}}paraId"): e for e in ex}
    assert entries[pids[mine.id]].get(f"{{{W15}}}paraIdParent") == pids[root.id]
    assert entries[pids[root.id]].get(f"{{{W15}}}done") == "1"
    assert pandoc_unspaced(out.output, "accept") == pandoc_unspaced(data, "accept")
    python_docx_opens(out.output, data)
    before_notes = _fodt_annotations(data, tmp_path)
    after_notes = _fodt_annotations(out.output, tmp_path)
    assert len(after_notes) == len(before_notes) + 1
    assert [r for t, r in after_notes if re.sub(r"\s+", " ", t).strip() == text] == [False]
    assert any(resolved for _, resolved in after_notes)


ROWS = [p for p in REVISED if _kinds(p) & {RevisionKind.ROW_INSERT, RevisionKind.ROW_DELETE}]


def _rows(data: bytes) -> list[str]:
    """Each table row of the main part: "ins", "del" or "" (its trPr's revision), in order."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        root = etree.fromstring(z.read("word/document.xml"))
    out = []
    for tr in root.iter(f"{{{W}}}tr"):
        trpr = tr.find(f"{{{W}}}trPr")
        marks = {c.tag.rsplit("}", 1)[-1] for c in trpr} if trpr is not None else set()
        out.append("del" if "del" in marks else "ins" if "ins" in marks else "")
    return out


@needs_corpus
@pytest.mark.parametrize("path", ROWS, ids=[p.name for p in ROWS])
def test_table_rows_of_one_author_accepted_or_rejected_in_the_xml(path: Path) -> None:
    # pandoc reads no row revisions: raw lxml is the oracle -- accepting keeps the inserted rows
    # and drops the deleted ones, rejecting the other way round, and no row revision is left
    data = path.read_bytes()
    found = _annotations(data)
    assert found is not None
    rows = _rows(data)
    for action, gone in (("accept", "del"), ("reject", "ins")):
        authors = sorted({r.author for r in found.revisions if r.author})
        entries = [{"action": action, "author": a} for a in authors]
        out = apply_reply(data, json.dumps(entries), OPTIONS)
        assert all(e.status.value == "applied" for e in out.report.edits), out.report.edits
        assert out.output is not None
        assert _rows(out.output) == [""] * sum(1 for r in rows if r != gone), action
        python_docx_opens(out.output, data)
