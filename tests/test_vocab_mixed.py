"""Issue 29's property: ``format``, row and move entries mixed with plain edits in one reply on
generated contracts -- our own reject of our author's changes gives back the input's view and
its properties (every paragraph's properties and mark, every run's text and properties, rows
in order, as :mod:`tests.word_decide` reads a document), and so does Word's reject (the lxml
oracle) of the same output; our accept and Word's accept read alike.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.read.load import load_view
from redline.read.view import DocumentView, Paragraph
from testing.contractgen import Kind, generate_contract
from tests import word_decide
from tests.test_rows_judged import _parent_tag, _rows, _unique_anchor

AUTHOR, DATE = "Counsel", "2026-12-01T00:00:00Z"
_TC = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}tc"
_CONTRACTS: dict[tuple[str, int], tuple[bytes, DocumentView]] = {}


def _contract(kind: Kind, seed: int) -> tuple[bytes, DocumentView]:
    if (kind, seed) not in _CONTRACTS:
        data = generate_contract(kind, seed=seed)
        loaded = load_view(data)
        assert isinstance(loaded, tuple)
        _CONTRACTS[kind, seed] = (data, loaded[1])
    return _CONTRACTS[kind, seed]


def _word(view: DocumentView, p: Paragraph) -> str | None:
    """A word of ``p`` found once in the whole view."""
    for word in view.paragraph_text(p).split():
        if len(word) > 6 and word.isalpha() and view.text.count(word) == 1:
            return word
    return None


@st.composite
def _batch(draw: st.DrawFn) -> tuple[bytes, DocumentView, list[dict[str, Any]]]:
    kind: Kind = draw(st.sampled_from(["lease", "nda", "msa"]))
    data, view = _contract(kind, draw(st.integers(0, 2)))
    entries: list[dict[str, Any]] = []
    busy: set[int] = set()  # paragraphs an entry uses (and their neighbours): no overlap
    # a clause moved
    heads = [p for p in view.paragraphs if p.heads and p.story == "body" and p.node is not None]
    if len(heads) > 0 and draw(st.booleans()):
        src, dst = draw(st.sampled_from(heads)), draw(st.sampled_from(heads))
        assert src.node is not None
        anchor, target = view.paragraph_text(src)[:40], view.paragraph_text(dst)[:40]
        if len(anchor) > 12 and len(target) > 12 and view.text.count(anchor) == view.text.count(target) == 1:
            entries.append({"action": draw(st.sampled_from(["move_after", "move_before"])), "anchor": anchor,
                            "target_anchor": target})  # fmt: skip
            last = src.node.last
            busy |= set(range(src.index - 1, last + 2)) | {dst.index - 1, dst.index}
            if dst.node is not None:
                busy |= {dst.node.last, dst.node.last + 1}
    # a row inserted or deleted
    rows = _rows(view)
    if len(rows) > 0 and draw(st.booleans()):
        tr, paras = rows[draw(st.integers(0, len(rows) - 1))]
        cell = _unique_anchor(view, paras)
        if cell is not None and not busy & {p.index for p in paras}:
            action = draw(st.sampled_from(["insert_row_after", "insert_row_before", "delete_row"]))
            entry: dict[str, Any] = {"action": action, "anchor": cell}
            if action != "delete_row":
                entry["cells"] = [f"New {k}" for k in range(sum(1 for c in tr if c.tag == _TC))]
            entries.append(entry)
            busy |= {p.index for p in paras}
    # formatting and plain edits, each in a paragraph of its own outside tables
    plain = [p for p in view.paragraphs if p.story == "body" and _parent_tag(p) != _TC]
    picks = draw(st.lists(st.sampled_from(plain), max_size=5, unique_by=lambda p: p.index))
    for p in picks:
        word = _word(view, p)
        if word is None or p.index in busy:
            continue
        busy |= {p.index - 1, p.index, p.index + 1}
        what = draw(st.sampled_from(["bold", "italic", "underline", "highlight", "style", "edit"]))
        if what == "edit":
            entries.append({"anchor": word, "replacement": word.swapcase()})
        elif what == "style":
            fmt = {"style": draw(st.sampled_from(["Heading 1", "Normal"]))}
            entries.append({"action": "format", "anchor": word, "format": fmt})
        else:
            value: object = "yellow" if what == "highlight" else draw(st.booleans())
            entries.append({"action": "format", "anchor": word, "format": {what: value}})
    return data, view, entries


def _decided(data: bytes, mode: str) -> bytes:
    """Our own decision on every change of ours (made by another author, who may decide them)."""
    out = apply_reply(data, json.dumps([{"action": mode, "author": AUTHOR}]), ApplyOptions(author="Other"))
    assert out.output is not None, out.report
    return out.output


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(_batch())
def test_our_reject_of_a_mixed_reply_gives_back_the_input(
    case: tuple[bytes, DocumentView, list[Any]],
) -> None:
    data, view, entries = case
    out = apply_reply(data, json.dumps({"edits": entries}), ApplyOptions(author=AUTHOR, date=DATE))
    statuses = [r.status.value for r in out.report.edits]
    # (a clause holding a table or field, a row with merged cells: refused, not this test's;
    # formatting that already holds: no_change)
    assume(all(s in ("applied", "no_change") for s in statuses) and "applied" in statuses)
    assert out.output is not None
    rejected = _decided(out.output, "reject")
    loaded = load_view(rejected)
    assert isinstance(loaded, tuple)
    assert loaded[1].text == view.text
    original = word_decide.reading(data)
    assert word_decide.reading(rejected) == original, entries
    assert word_decide.reading(word_decide.reject_all(out.output)) == original, entries
    accepted = _decided(out.output, "accept")
    assert word_decide.reading(accepted) == word_decide.reading(word_decide.accept_all(out.output)), entries
