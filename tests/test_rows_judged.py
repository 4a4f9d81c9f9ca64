"""Table-row entries judged by LibreOffice on real documents ($REDLINE_CORPUS) and, as a
property, mixed with plain edits on generated contracts: reject-all gives back the input's
tables and text, accept-all the rows intended.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.match.locate import Locator
from redline.opc.namespaces import w
from redline.read.load import load_view
from redline.read.view import DocumentView, Paragraph
from testing.contractgen import Kind, generate_contract
from tests.oracles_rows import libreoffice_tables

OPTIONS = ApplyOptions(author="Counsel", date="2026-12-01T00:00:00Z")
_TR, _TC, _TBL = w("tr"), w("tc"), w("tbl")


def _rows(view: DocumentView) -> list[tuple[Any, list[Paragraph]]]:
    """The body's table rows (of tables not nested), each with its view paragraphs."""
    out: dict[int, tuple[Any, list[Paragraph]]] = {}
    for p in view.paragraphs:
        if p.story != "body":
            continue
        el = p.element
        tc = el.getparent()
        if tc is None or tc.tag != _TC:
            continue
        tr = tc.getparent()
        if tr is None or tr.tag != _TR or tr.getparent() is None:
            continue
        holder = tr.getparent()
        holder = holder.getparent() if holder is not None else None
        if holder is not None and holder.tag == _TC:
            continue
        out.setdefault(id(tr), (tr, []))[1].append(p)
    return list(out.values())


def _parent_tag(p: Paragraph) -> str:
    parent = p.element.getparent()
    return "" if parent is None else str(parent.tag)


def _found_once(view: DocumentView, quote: str) -> bool:
    """Whether the matcher finds ``quote`` once: exactly, and under its tolerances too (a
    quote found once verbatim may also be found across a paragraph break, whitespace
    tolerated, and is then ambiguous -- refused, never a pick)."""
    return view.text.count(quote) == 1 and len(Locator(view).find(quote).ranges) == 1


def _unique_anchor(view: DocumentView, paras: list[Paragraph]) -> str | None:
    for p in paras:
        text = view.paragraph_text(p).strip()
        if len(text) >= 4 and "\n" not in text and _found_once(view, text):
            return text
    return None


def _entries(view: DocumentView) -> list[dict[str, Any]]:
    """An insert after one row and a delete of another row (a row of another table if any)."""
    rows = _rows(view)
    entries: list[dict[str, Any]] = []
    used: set[int] = set()
    for n, (tr, paras) in enumerate(rows):
        anchor = _unique_anchor(view, paras)
        if anchor is None:
            continue
        cells = [f"New cell {k}" for k in range(sum(1 for c in tr if c.tag == _TC))]
        entries.append({"action": "insert_row_after", "anchor": anchor, "cells": cells})
        used.add(n)
        break
    for n, (_, paras) in reversed(list(enumerate(rows))):
        anchor = _unique_anchor(view, paras)
        if n in used or anchor is None:
            continue
        entries.append({"action": "delete_row", "anchor": anchor})
        break
    return entries


def _row_counter(tables: list[list[list[str]]]) -> Counter[tuple[str, ...]]:
    return Counter(tuple(row) for table in tables for row in table)


@pytest.mark.slow
@pytest.mark.corpus
def test_row_entries_on_corpus_documents_libreoffice_decides_them(corpus_docs: list[Path]) -> None:
    outputs: list[bytes] = []
    originals: list[bytes] = []
    applied: list[list[dict[str, Any]]] = []
    for path in corpus_docs:
        data = path.read_bytes()
        if len(data) > 400_000:  # (LibreOffice takes minutes over the largest)
            continue
        loaded = load_view(data)
        if not isinstance(loaded, tuple):
            continue
        entries = _entries(loaded[1])
        if not entries:
            continue
        out = apply_reply(data, json.dumps({"edits": entries}), OPTIONS)
        done = [e for e, r in zip(entries, out.report.edits, strict=True) if r.status.value == "applied"]
        for e, r in zip(entries, out.report.edits, strict=True):
            assert r.status.value in ("applied", "unsupported", "invalid"), (path.name, e, r)
        if not done or out.output is None:
            continue
        if len(done) < len(entries):
            out = apply_reply(data, json.dumps({"edits": done}), OPTIONS)
        assert out.output is not None
        outputs.append(out.output)
        originals.append(data)
        applied.append(done)
    assert len(outputs) >= 5, "too few corpus documents with rows to change"
    read = libreoffice_tables([*outputs, *originals])
    n = len(outputs)
    judged = 0
    for k in range(n):
        mine, orig = read[k], read[n + k]
        if "error" in orig["original"] or any("error" in mine[m] for m in ("accept", "reject")):
            continue  # LibreOffice failed on the document itself
        if mine["original"]["redlines"] == 0:
            # LibreOffice reads no tracked change of this document at all (a plain edit's
            # neither: oxpt-RP051-arabic-itu): it cannot judge it
            continue
        judged += 1
        want = orig["original"]
        assert mine["reject"]["tables"] == want["tables"], k
        assert mine["reject"]["paragraphs"] == want["paragraphs"], k
        before, after = _row_counter(want["tables"]), _row_counter(mine["accept"]["tables"])
        inserted = [e for e in applied[k] if e["action"] == "insert_row_after"]
        deleted = [e for e in applied[k] if e["action"] == "delete_row"]
        assert sum(after.values()) == sum(before.values()) + len(inserted) - len(deleted), k
        for e in inserted:
            assert after[tuple(e["cells"])] == before[tuple(e["cells"])] + 1, k
        assert mine["accept"]["paragraphs"] == want["paragraphs"], k
    assert judged >= 5


# -----------------------------------------------------------------------------------------
# A property: row entries mixed with plain edits on generated contracts


@st.composite
def _mixed(draw: st.DrawFn) -> tuple[bytes, list[dict[str, Any]]]:
    kind: Kind = draw(st.sampled_from(["lease", "nda", "msa"]))
    seed = draw(st.integers(0, 3))
    data = generate_contract(kind, seed=seed)
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    view = loaded[1]
    rows = _rows(view)
    entries: list[dict[str, Any]] = []
    used_rows = draw(st.lists(st.integers(0, len(rows) - 1), min_size=1, max_size=3, unique=True))
    for n in used_rows:
        tr, paras = rows[n]
        anchor = _unique_anchor(view, paras)
        if anchor is None:
            continue
        action = draw(st.sampled_from(["insert_row_after", "insert_row_before", "delete_row"]))
        if action == "delete_row":
            entries.append({"action": action, "anchor": anchor})
        else:
            width = sum(1 for c in tr if c.tag == _TC)
            cells = draw(st.lists(st.sampled_from(["Gold", "99.9%", "", "USD 5,000", "two\nlines"]),
                                  min_size=width, max_size=width))  # fmt: skip
            entries.append({"action": action, "anchor": anchor, "cells": cells})
    # plain edits on body paragraphs outside tables
    plain = [p for p in view.paragraphs if p.story == "body" and _parent_tag(p) != _TC]
    for p in draw(st.lists(st.sampled_from(plain), max_size=3, unique_by=lambda p: p.index)):
        words = view.paragraph_text(p).split()
        if len(words) >= 3 and _found_once(view, " ".join(words[:3])):
            entries.append({"anchor": " ".join(words[:3]), "replacement": "Amended text"})
    return data, entries


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(_mixed())
def test_mixed_with_plain_edits_libreoffice_reject_all_is_the_input(case: tuple[bytes, list[Any]]) -> None:
    data, entries = case
    out = apply_reply(data, json.dumps({"edits": entries}), OPTIONS)
    assert out.output is not None
    assert all(r.status.value == "applied" for r in out.report.edits), out.report.edits
    mine, orig = libreoffice_tables([out.output, data])
    assert mine["reject"]["tables"] == orig["original"]["tables"]
    assert mine["reject"]["paragraphs"] == orig["original"]["paragraphs"]
    inserted = [e for e in entries if e.get("action", "").startswith("insert_row")]
    deleted = [e for e in entries if e.get("action") == "delete_row"]
    rows_before = sum(len(t) for t in orig["original"]["tables"])
    assert sum(len(t) for t in mine["accept"]["tables"]) == rows_before + len(inserted) - len(deleted)
