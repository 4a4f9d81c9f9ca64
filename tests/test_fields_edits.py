"""Edits beside fields: a cross-reference, page or note reference inside an anchor does not
refuse the edit when the edit leaves the field's result alone; the field stays whole."""

from __future__ import annotations

import io
import json
import random
import re
import zipfile
from typing import Any

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.read.load import load_view
from testing.docbuild import Field, P, docx
from tests.oracles import pandoc_plain

SENTENCES = 200


def contract(n: int) -> bytes:
    paras = []
    for i in range(n):
        target = f"{(i % 27) + 1}.{(i % 9) + 1}"
        paras.append(
            P(
                f"Clause {i}: the Supplier shall comply with the obligations in clause ",
                Field(f" REF _Ref{i:05d} \\r \\h ", target),
                " (see also page ",
                Field(f" PAGEREF _Ref{i:05d} \\h ", str(i % 40 + 1)),
                f") within {i % 30 + 5} days of notice number {i}.",
            )
        )
    return docx(*paras)


def fields_of(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        xml = z.read("word/document.xml").decode()
    # every field, from its begin to its end, as written
    return re.findall(r'<w:fldChar w:fldCharType="begin"/>.*?<w:fldChar w:fldCharType="end"/>', xml)


def test_two_hundred_edits_beside_fields_are_applied_and_every_field_survives() -> None:
    data = contract(SENTENCES)
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    view = loaded[1]
    rnd = random.Random(7)
    edits = []
    for i, para in enumerate(view.paragraphs[:SENTENCES]):
        text = view.paragraph_text(para)
        start = text.index("clause ", 10)  # the anchor runs across both fields
        anchor = text[start : text.index(" days", start) + 5]
        kind = rnd.choice(["append", "days", "prefix"])
        if kind == "append":
            replacement = anchor + " in writing"
        elif kind == "days":
            replacement = re.sub(r"within \d+ days", f"within {i % 30 + 50} days", anchor)
        else:
            replacement = "Section" + anchor[len("clause") :]
        edits.append({"anchor": anchor, "replacement": replacement})
    outcome = apply_reply(data, json.dumps(edits), ApplyOptions())
    statuses = [e.status.value for e in outcome.report.edits]
    assert statuses == ["applied"] * SENTENCES, [e.error for e in outcome.report.edits if e.error][:3]
    assert outcome.output is not None
    assert fields_of(outcome.output) == fields_of(data)  # every field whole and unchanged


@pytest.mark.parametrize(
    "change",
    [
        lambda a: a.replace("clause 4.4", "clause 4.6"),  # the REF's own number
        lambda a: a.replace("page 4", "page 6"),  # the PAGEREF's number
        lambda a: a + " promptly",
        lambda a: a.replace("(see also", "(as to which see also"),
    ],
)
@pytest.mark.parametrize("track", [True, False], ids=["tracked", "untracked"])
def test_typing_over_a_fields_result_deletes_the_field_as_word_does(change: Any, track: bool) -> None:
    data = contract(4)
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    view = loaded[1]
    text = view.paragraph_text(view.paragraphs[3])
    anchor = text[text.index("clause ", 10) : text.index(" days") + 5]
    replacement = change(anchor)
    outcome = apply_reply(
        data, json.dumps([{"anchor": anchor, "replacement": replacement}]), ApplyOptions(track=track)
    )
    [edit] = outcome.report.edits
    assert edit.status.value == "applied", edit.error
    assert outcome.output is not None
    after = load_view(outcome.output)
    assert isinstance(after, tuple)
    assert replacement in after[1].paragraph_text(after[1].paragraphs[3])  # read as accepted
    typed_over = replacement.count("4.6") + replacement.count("page 6")
    assert len(edit.notes) == typed_over  # one note per field typed over
    kept = len(fields_of(data)) - typed_over
    if track:
        assert pandoc_plain(outcome.output, "reject") == pandoc_plain(data, "reject")  # the field is back
        assert len(fields_of(outcome.output)) == len(fields_of(data))  # in a w:del, not gone
        assert len(_live_fields(outcome.output)) == kept
    else:
        assert len(fields_of(outcome.output)) == kept


def _live_fields(data: bytes) -> list[str]:
    return [f for f in fields_of(data) if "delInstrText" not in f]
