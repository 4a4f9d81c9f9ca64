"""Their redline, whatever wrote it (issue 30): counterparty files in the shapes other tools
write (:mod:`testing.counterparty`), and -- when they are at hand -- files those tools wrote
(``$REDLINE_PEER_DOCS``) and the corpus (``$REDLINE_CORPUS``).

For each: every tracked change is listed (as the XML has them: each revision element, by part,
tag and id, empty insertions and deletions aside); accepting and rejecting everything -- every
listed id, or every author -- gives what Word gives, by an lxml oracle that follows Word's rules
(:mod:`tests.word_decide`: each id on its own, a change inside a removed one goes with it, a
decided paragraph mark joins), read as Word shows it (paragraphs, their properties, text runs
with theirs); no revision is left; python-docx opens the output.
"""

from __future__ import annotations

import io
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.apply import ApplyOptions, apply_reply
from redline.read.annotations import Annotations, read_annotations
from redline.read.load import load_view
from testing.counterparty import SHAPES
from tests import word_decide
from tests.support import corpus_paths

OPTIONS = ApplyOptions(author="Us", date="2026-12-01T00:00:00Z")


def annotated(data: bytes) -> Annotations:
    loaded = load_view(data)
    assert isinstance(loaded, tuple), loaded
    return read_annotations(*loaded)


def listed(found: Annotations) -> Counter[tuple[str, str, str]]:
    return Counter(
        (r.part, etree.QName(r.element).localname, r.id) for r in found.revisions if r.element is not None
    )


def in_xml(data: bytes) -> Counter[tuple[str, str, str]]:
    return Counter((part, tag, rid or "") for part, tag, rid, _ in word_decide.revisions(data))


def python_docx_opens(data: bytes) -> None:
    docx = pytest.importorskip("docx")
    assert docx.Document(io.BytesIO(data)).paragraphs is not None


def decide_everything(data: bytes, accept: bool, by: str) -> None:
    """Accept (reject) every listed id -- or every author -- and compare with Word's result."""
    found = annotated(data)
    verb = "accept" if accept else "reject"
    if by == "id":
        count = Counter(r.id for r in found.revisions)
        # an id on unrelated changes (LibreOffice's w:id="0") stays ambiguous: left out
        ids = list(dict.fromkeys(r.id for r in found.revisions))
        entries = [{"action": verb, "revision_id": i} for i in ids]
        out = apply_reply(data, json.dumps({"edits": entries}), OPTIONS)
        statuses = {i: e.status.value for i, e in zip(ids, out.report.edits, strict=True)}
        refused = {i for i, s in statuses.items() if s != "applied"}
        assert all(count[i] > 1 and statuses[i] == "ambiguous" for i in refused), statuses
        decided = {i: accept for i in ids if i not in refused}
        if not refused:  # every listed id decided: no revision is left
            assert out.output is not None and not in_xml(out.output)
        expected = word_decide.decide(
            data,
            lambda el: decided.get(el.get(word_decide.w("id")) or ""),
        )
    else:
        authors = sorted({r.author for r in found.revisions if r.author})
        entries = [{"action": verb, "author": a} for a in authors]
        out = apply_reply(data, json.dumps({"edits": entries}), OPTIONS)
        assert [e.status.value for e in out.report.edits] == ["applied"] * len(authors), [
            (e.status.value, e.error) for e in out.report.edits
        ]
        chosen = dict.fromkeys(authors, accept)
        expected = word_decide.decide(
            data,
            lambda el: chosen.get(el.get(word_decide.w("author")) or ""),
        )
    assert out.output is not None
    assert word_decide.reading(out.output) == word_decide.reading(expected)
    assert in_xml(out.output) == in_xml(expected)
    python_docx_opens(out.output)


# -------------------------------------------------------------------------------------------
# the shapes each writer writes


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_tracked_change_of_each_writer_is_listed(name: str) -> None:
    data = SHAPES[name]()
    assert listed(annotated(data)) == in_xml(data)


@pytest.mark.parametrize("by", ["id", "author"])
@pytest.mark.parametrize("accept", [True, False], ids=["accept", "reject"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_deciding_everything_gives_words_result(name: str, accept: bool, by: str) -> None:
    decide_everything(SHAPES[name](), accept, by)


def test_the_nested_shapes_read_as_word_gives_them() -> None:
    data = SHAPES["word"]()
    out = apply_reply(
        data, json.dumps([{"action": "reject", "author": a} for a in ("Author", "Reviewer")]), OPTIONS
    )
    assert out.output is not None
    first = word_decide.reading(out.output)["word/document.xml"][0][1]
    assert "".join(t for t, _ in first) == "s stays."  # an insertion inside a moved-away passage
    one = apply_reply(data, json.dumps([{"action": "reject", "revision_id": "71"}]), OPTIONS)
    notes = " ".join(one.report.edits[0].notes)
    assert "r72" in notes and "r73" in notes and "Removed with it" in notes  # the text box's
    # an inner decision needs no outer one: the reviewer's deletion inside the insertion
    inner = apply_reply(data, json.dumps([{"action": "reject", "revision_id": "77"}]), OPTIONS)
    assert inner.report.edits[0].status.value == "applied" and inner.output is not None
    assert ("word/document.xml", "ins", "76") in in_xml(inner.output)


def test_accepting_an_outer_insertion_leaves_the_nested_deletion_pending() -> None:
    data = SHAPES["docx-editor"]()
    out = apply_reply(data, json.dumps([{"action": "accept", "revision_id": "60"}]), OPTIONS)
    assert out.report.edits[0].status.value == "applied" and out.output is not None
    left = in_xml(out.output)
    assert ("word/document.xml", "del", "61") in left and ("word/document.xml", "ins", "60") not in left


def test_one_id_on_a_paragraph_and_its_mark_is_one_change_but_not_on_unrelated_ones() -> None:
    data = SHAPES["adeu"]()
    out = apply_reply(data, json.dumps([{"action": "accept", "revision_id": "3"}]), OPTIONS)
    assert out.report.edits[0].status.value == "applied"
    assert any("decided together" in n for n in out.report.edits[0].notes)
    lo = apply_reply(SHAPES["libreoffice"](), json.dumps([{"action": "accept", "revision_id": "0"}]), OPTIONS)
    assert lo.report.edits[0].status.value == "ambiguous"


def test_numbering_changes_are_decided_not_taken_for_table_cells() -> None:
    data = SHAPES["python-redlines"]()
    found = annotated(data)
    assert {
        r.kind.value
        for r in found.revisions
        if r.element is not None and r.element.tag.endswith("numberingChange")
    } == {"numbering"}
    out = apply_reply(data, json.dumps([{"action": "reject", "author": "PR Counsel"}]), OPTIONS)
    assert out.report.edits[0].status.value == "applied"


def test_empty_insertions_are_not_listed_and_go_with_their_authors_changes() -> None:
    data = SHAPES["word"]()
    found = annotated(data)
    assert "79" not in {r.id for r in found.revisions} and "79" in {r.id for r in found.empty}
    out = apply_reply(data, json.dumps([{"action": "accept", "author": "Author"}]), OPTIONS)
    assert out.output is not None
    assert all(rid != "79" for _, _, rid, _ in word_decide.revisions(out.output, with_empty=True))


# -------------------------------------------------------------------------------------------
# a property: any decisions, in any order, on nested revisions of two authors


def t(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def d(text: str) -> str:
    return f'<w:r><w:delText xml:space="preserve">{text}</w:delText></w:r>'


def _nested_doc(shape: list[int]) -> tuple[bytes, list[str]]:
    """Paragraphs of nested revisions: each number picks one shape (an insertion by A holding
    B's deletion, insertion and format change; A's deletion; B's format change inside A's
    insertion inside a paragraph whose mark A inserted; a paragraph A deleted whole)."""
    from testing.docbuild import P, Raw, docx

    blocks = []
    ids: list[str] = []
    for k, pick in enumerate(shape):
        base = 100 + 10 * k
        a = 'w:author="A" w:date="2026-01-01T00:00:00Z"'
        b = 'w:author="B" w:date="2026-01-02T00:00:00Z"'
        bold = (
            f'<w:r><w:rPr><w:b/><w:rPrChange w:id="{base + 3}" {b}><w:rPr/></w:rPrChange></w:rPr>'
            "<w:t>bold</w:t></w:r>"
        )
        if pick == 0:
            inner = (
                f'{t("in ")}<w:del w:id="{base + 1}" {b}>{d("gone ")}</w:del>'
                f'<w:ins w:id="{base + 2}" {b}>{t("new ")}</w:ins>{bold}'
            )
            blocks.append(P(f"p{k} ", Raw(f'<w:ins w:id="{base}" {a}>{inner}</w:ins>'), " end."))
            ids += [str(base + j) for j in range(4)]
        elif pick == 1:
            blocks.append(P(f"p{k} ", Raw(f'<w:del w:id="{base}" {a}>{d("struck ")}</w:del>'), "kept."))
            ids.append(str(base))
        elif pick == 2:
            blocks.append(
                P(
                    Raw(f'<w:ins w:id="{base}" {a}>{t(f"p{k} added ")}{bold}</w:ins>'),
                    mark=f'<w:ins w:id="{base + 1}" {a}/>',
                )
            )
            ids += [str(base), str(base + 1), str(base + 3)]
        else:
            blocks.append(
                P(
                    Raw(f'<w:del w:id="{base}" {a}>{d(f"p{k} struck whole.")}</w:del>'),
                    mark=f'<w:del w:id="{base}" {a}/>',
                )
            )
            ids.append(str(base))
    blocks.append(P("The end."))
    return docx(*blocks), ids


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.lists(st.integers(0, 3), min_size=1, max_size=4),
    picks=st.lists(st.tuples(st.integers(0, 15), st.booleans()), max_size=12),
)
def test_any_decisions_on_nested_revisions_give_words_result(
    shape: list[int], picks: list[tuple[int, bool]]
) -> None:
    data, ids = _nested_doc(shape)
    chosen: dict[str, bool] = {}
    for k, accept in picks:  # each id once, in the order picked
        rid = ids[k % len(ids)]
        chosen.setdefault(rid, accept)
    if not chosen:
        return
    entries = [{"action": "accept" if v else "reject", "revision_id": rid} for rid, v in chosen.items()]
    out = apply_reply(data, json.dumps({"edits": entries}), OPTIONS)
    assert [e.status.value for e in out.report.edits] == ["applied"] * len(entries)
    assert out.output is not None
    expected = word_decide.by_ids(data, chosen)
    assert word_decide.reading(out.output) == word_decide.reading(expected)
    assert in_xml(out.output) == in_xml(expected)


# -------------------------------------------------------------------------------------------
# files the tools themselves wrote, and the corpus


def _peer_docs() -> list[Path]:
    folder = os.environ.get("REDLINE_PEER_DOCS")
    return sorted(Path(folder).glob("*.docx")) if folder else []


PEER_DOCS = _peer_docs()


@pytest.mark.slow
@pytest.mark.skipif(not PEER_DOCS, reason="set REDLINE_PEER_DOCS to a folder of files other tools wrote")
@pytest.mark.parametrize("path", PEER_DOCS, ids=[p.name for p in PEER_DOCS])
def test_files_other_tools_wrote(path: Path) -> None:
    data = path.read_bytes()
    assert listed(annotated(data)) == in_xml(data)
    for accept in (True, False):
        for by in ("id", "author"):
            decide_everything(data, accept, by)


def _with_revisions() -> list[Path]:
    out = []
    for p in corpus_paths():
        loaded = load_view(p.read_bytes())
        if isinstance(loaded, tuple) and read_annotations(*loaded).revisions:
            out.append(p)
    return out


CORPUS = _with_revisions()


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS, reason="set REDLINE_CORPUS to the real-document corpus")
@pytest.mark.parametrize("accept", [True, False], ids=["accept", "reject"])
@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_corpus_deciding_every_listed_id(path: Path, accept: bool) -> None:
    decide_everything(path.read_bytes(), accept, "id")


@pytest.mark.slow
def test_every_decided_output_opens_in_libreoffice(tmp_path: Path) -> None:
    import shutil

    from tests.libreoffice import text_exports

    soffice = shutil.which("soffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    written: list[Path] = []
    sources = {name: SHAPES[name]() for name in sorted(SHAPES)}
    sources.update({p.stem: p.read_bytes() for p in PEER_DOCS})  # and the tools' own, when set
    for name, data in sources.items():
        authors = sorted({r.author for r in annotated(data).revisions if r.author})
        for verb in ("accept", "reject"):
            out = apply_reply(data, json.dumps([{"action": verb, "author": a} for a in authors]), OPTIONS)
            assert out.output is not None
            path = tmp_path / f"{name}-{verb}.docx"
            path.write_bytes(out.output)
            written.append(path)
    texts, _ = text_exports(written, [], tmp_path / "lo", soffice)
    assert sorted(p.name for p in texts) == sorted(p.name for p in written)
    assert all(t.strip() for t in texts.values())
