"""Clause moves on the real documents of ``$REDLINE_CORPUS``, judged by LibreOffice (slow).

For each document, the first few numbered clauses that can move after their next sibling are
moved there, one output each.  LibreOffice rejects every change of the output and gets the
input's own reject-all, labels included; it accepts every change and gets the input's
accept-all with the clause's paragraphs in their new place (labels left out: they renumber).
python-docx opens every output; pandoc reads the moved text once under accept and under reject.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.match.locate import Locator
from redline.match.verify import verify
from redline.read.load import load_view
from redline.read.view import DocumentView
from shared_schema import parse_edit_reply
from tests import oracles, word_decide
from tests.oracles_moves import decided, lines, texts

PER_DOCUMENT = 1  # moves tried per document (each one output)
# LibreOffice 7.4 misreads a move whose moveTo range ends in an empty paragraph (its mark
# w:moveTo, no run): rejecting all leaves the first moved paragraph in place, emptied, with its
# numbering ("3." and the next item "4."). Word's rules (ECMA-376 §17.13.5.25-.28: each moved
# paragraph's mark is moveTo, rejected it joins its paragraph to the next) give the input back,
# paragraph for paragraph (tests/word_decide.py); LibreOffice reads the same move right when
# that empty paragraph is left out of the block, and when the marks are plain w:ins / w:del. Here
# ("Medidas de Gestion ...", its clause ending in an empty paragraph) reject is judged by Word's
# rules, and LibreOffice's reading is held to exactly that one empty item.
EMPTY_LAST_MOVED = {"poi-stress018-cr.docx"}


def _clean(text: str) -> str:
    return " ".join(text.split())


def _candidates(view: DocumentView) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for p in view.paragraphs:
        head = p.node
        if not p.heads or p.story != "body" or head is None or head.number is None:
            continue
        family = (
            head.parent.children
            if head.parent is not None
            else [h for h in view.outline.heads if h.parent is None]
        )
        later = [h for h in family if h.index > head.index]
        if not later:
            continue
        anchor = view.paragraph_text(p)[:50]
        target = view.paragraph_text(view.paragraphs[later[0].index])[:50]
        if min(len(anchor.strip()), len(target.strip())) < 8:
            continue
        if view.text.count(anchor) == 1 and view.text.count(target) == 1:
            out.append({"action": "move_after", "anchor": anchor, "target_anchor": target})
    return out


def _expected(view: DocumentView, entry: dict[str, str], base: list[str]) -> list[str] | None:
    """``base`` (LibreOffice's accepted text of the input, paragraph by paragraph) with the
    moved clause's paragraphs in their new place; None when they cannot be told apart there."""
    batch = parse_edit_reply(json.dumps([entry]))
    assert batch is not None
    plans = [p.move for p in verify(Locator(view), batch).planned if p.move is not None]
    assert len(plans) == 1
    plan = plans[0]
    block = [_clean(view.paragraph_text(view.paragraphs[k])) for k in range(plan.first, plan.last + 1)]
    block = [t for t in block if t]
    starts = [i for i in range(len(base)) if base[i : i + len(block)] == block]
    if len(starts) != 1 or plan.after is None:
        return None
    rest = base[: starts[0]] + base[starts[0] + len(block) :]
    k = plan.after
    while k >= 0 and not _clean(view.paragraph_text(view.paragraphs[k])):
        k -= 1
    marker = _clean(view.paragraph_text(view.paragraphs[k]))
    at = [i for i, line in enumerate(rest) if line == marker]
    if len(at) != 1:
        return None
    return rest[: at[0] + 1] + block + rest[at[0] + 1 :]


@pytest.mark.slow
@pytest.mark.corpus
def test_libreoffice_judges_moves_in_real_documents(
    corpus_docs: list[Path], soffice: str, tmp_path: Path
) -> None:
    import docx as python_docx

    cases: list[tuple[Path, Path, DocumentView, dict[str, str]]] = []
    for doc in corpus_docs:
        data = doc.read_bytes()
        loaded = load_view(data)
        if not isinstance(loaded, tuple):
            continue
        view = loaded[1]
        made = 0
        for entry in _candidates(view):
            out = apply_reply(data, json.dumps([entry]), ApplyOptions(author="Counsel"))
            if out.report.edits[0].status != "applied" or out.output is None:
                continue
            python_docx.Document(io.BytesIO(out.output))
            path = tmp_path / f"{doc.stem}.move{made}.docx"
            path.write_bytes(out.output)
            pandoc = oracles.tool("pandoc")
            for mode in ("accept", "reject"):
                words = oracles.pandoc_folded(pandoc, out.output, mode)
                assert len(words) == len(oracles.pandoc_folded(pandoc, data, mode)), (path, mode)
            cases.append((doc, path, view, entry))
            made += 1
            if made == PER_DOCUMENT:
                break
    assert len(cases) >= 8, "too few corpus clauses could move"
    inputs = sorted({doc for doc, _, _, _ in cases})
    outputs = [path for _, path, _, _ in cases]
    accepted = decided([*inputs, *outputs], tmp_path / "lo", soffice, "accept")
    rejected = decided([*inputs, *outputs], tmp_path / "lo", soffice, "reject")
    judged = 0
    for doc, path, view, entry in cases:
        if doc not in accepted or doc not in rejected or path not in accepted or path not in rejected:
            continue  # LibreOffice failed on the input itself
        if doc.name in EMPTY_LAST_MOVED:
            word_rejected = word_decide.reject_all(path.read_bytes())
            assert word_decide.reading(word_rejected) == word_decide.reading(doc.read_bytes()), path
            got, original = texts(rejected[path]), texts(rejected[doc])
            bare = [i for i, t in enumerate(got) if re.fullmatch(r"\d+\.", t)]  # an empty item: "3."
            assert [i for i in bare if got[:i] + got[i + 1 :] == original], path
        else:
            assert lines(rejected[path]) == lines(rejected[doc]), path
        want = _expected(view, entry, texts(accepted[doc]))
        if want is None:
            continue
        assert texts(accepted[path]) == want, path
        judged += 1
    assert judged >= 5, f"only {judged} moves judged"
