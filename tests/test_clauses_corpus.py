"""Clause-level edits on every real document with numbered clauses: striking a clause removes
its paragraph (no empty numbered item) and rejecting gives the original; inserting after a
clause gives a paragraph with the neighbour's numbering and style."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from redline.apply import ApplyOptions, apply_reply
from redline.load import load_view
from redline.view import DocumentView
from tests.test_clauses import rejected

CORPUS = os.environ.get("REDLINE_CORPUS")
CORPUS_DOCS = sorted(Path(CORPUS).glob("*.docx")) if CORPUS else []
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _view(data: bytes) -> DocumentView | None:
    loaded = load_view(data)
    return loaded[1] if isinstance(loaded, tuple) else None


def _clause(view: DocumentView) -> int | None:
    """A numbered body paragraph with a unique text of a few words, another paragraph after it."""
    texts = [view.paragraph_text(p) for p in view.paragraphs]
    for p in view.paragraphs[:-1]:
        nxt = view.paragraphs[p.index + 1]
        text = texts[p.index]
        if (
            p.story == "body" and p.label and len(text.split()) >= 4 and not p.field_code
            and nxt.story_no == p.story_no and view.text.count(text) == 1 and text.strip() == text
        ):  # fmt: skip
            return p.index
    return None


def _cases() -> list[Path]:
    return CORPUS_DOCS


@pytest.mark.skipif(not CORPUS_DOCS, reason="set REDLINE_CORPUS to the real-document corpus")
@pytest.mark.parametrize("path", _cases(), ids=[p.name for p in _cases()])
def test_striking_and_inserting_a_clause_on_a_real_document(path: Path) -> None:
    data = path.read_bytes()
    view = _view(data)
    if view is None:
        pytest.skip(f"{path.name} is refused at load")
    index = _clause(view)
    if index is None:
        pytest.skip(f"{path.name} has no numbered clause to strike")
    para = view.paragraphs[index]
    text = view.paragraph_text(para)
    struck = apply_reply(data, json.dumps([{"anchor": text, "replacement": ""}]), ApplyOptions())
    [edit] = struck.report.edits
    if edit.status.value != "applied":
        pytest.skip(f"{path.name}: the clause is refused ({edit.error and edit.error.code})")
    assert struck.output is not None
    after = _view(struck.output)
    assert after is not None
    assert len(after.paragraphs) == len(view.paragraphs) - 1, "the struck clause's paragraph is gone"
    assert text not in after.text
    assert rejected(struck.output) == rejected(data)

    words = " ".join(text.split()[:6])
    added = apply_reply(
        data, json.dumps([{"action": "insert_after", "anchor": words, "text": "A clause added here."}]),
        ApplyOptions(),
    )  # fmt: skip
    [edit] = added.report.edits
    if edit.status.value != "applied":
        pytest.skip(f"{path.name}: the insertion is refused ({edit.error and edit.error.code})")
    assert added.output is not None
    after = _view(added.output)
    assert after is not None
    new = next(p for p in after.paragraphs if after.paragraph_text(p) == "A clause added here.")
    assert new.index == index + 1 and new.story == para.story
    assert new.label, "the new clause is numbered like its neighbour"
    with zipfile.ZipFile(io.BytesIO(added.output)) as z:
        root = etree.fromstring(z.read(para.part))
    mine = next(p for p in root.iter(f"{W}p") if "".join(map(str, p.itertext())) == "A clause added here.")
    before = mine.getprevious()
    while before is not None and before.tag != f"{W}p":
        before = before.getprevious()
    assert before is not None

    def props(p: etree._Element) -> tuple[str | None, ...]:
        ppr = p.find(f"{W}pPr")
        out: list[str | None] = []
        for path in (f"{W}pStyle", f"{W}numPr/{W}numId", f"{W}numPr/{W}ilvl"):
            el = None if ppr is None else ppr.find(path)
            out.append(None if el is None else el.get(f"{W}val"))
        return tuple(out)

    assert props(mine) == props(before)
    assert rejected(added.output) == rejected(data)
