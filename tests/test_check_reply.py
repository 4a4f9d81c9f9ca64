"""What a reply would break (redline.proofread.reply): deleted and renumbered cited clauses, new
findings of the reply's own text -- and the fixes are real entries: the reply plus its fixes
leaves none of those findings."""

from __future__ import annotations

import json
from typing import Any

from redline.proofread.check import check
from redline.proofread.findings import Finding, Kind
from redline.read.load import load_view
from shared_schema import EditBatch, parse_edit_reply
from testing.docbuild import P, docx
from testing.numbered import NUMBERING, numbered

REPLY_KINDS = {Kind.REFERENCE_TO_DELETED_CLAUSE, Kind.RENUMBERED_REFERENCE}


def contract() -> bytes:
    """Two articles of automatically numbered clauses citing each other as typed text."""
    return docx(
        P("Supply", ppr=numbered(0)),
        P("The Supplier shall deliver the Goods.", ppr=numbered(1)),
        P("The Supplier shall insure the Goods until delivery.", ppr=numbered(1)),
        P("Risk passes on delivery, subject to Clause 1.2 and Clause 2.2.", ppr=numbered(1)),
        P("Payment", ppr=numbered(0)),
        P("The Customer shall pay within thirty days.", ppr=numbered(1)),
        P("Interest accrues on late payment at four percent.", ppr=numbered(1)),
        P("Clause 2.2 does not limit Clause 1.1.", ppr=numbered(1)),
        numbering=NUMBERING,
    )


def batch(*entries: dict[str, Any]) -> EditBatch:
    parsed = parse_edit_reply(json.dumps({"edits": list(entries)}))
    assert parsed is not None and not parsed.invalid
    return parsed


def run(data: bytes, reply: EditBatch | None) -> list[Finding]:
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    return check(loaded[1], reply, document=data)


def of_kind(found: list[Finding], kinds: set[Kind]) -> list[Finding]:
    return [f for f in found if f.kind in kinds]


def test_the_document_alone_is_clean() -> None:
    assert run(contract(), None) == []


def test_reply_deleting_a_cited_clause() -> None:
    data = contract()
    found = run(
        data, batch({"anchor": "Interest accrues on late payment at four percent.", "replacement": ""})
    )
    deleted = of_kind(found, {Kind.REFERENCE_TO_DELETED_CLAUSE})
    assert len(deleted) == 1
    assert deleted[0].place.paragraph == 6  # the original's paragraph of clause 2.2
    assert deleted[0].place.label == "2.2"
    assert sorted(p.paragraph for p in deleted[0].related) == [3, 7]  # the citing places
    assert deleted[0].fix is None


def test_reply_inserting_a_clause_before_a_cited_one() -> None:
    data = contract()
    entry = {
        "action": "insert_before",
        "anchor": "The Supplier shall insure",
        "text": "The Supplier shall pack the Goods.",
    }
    found = run(data, batch(entry))
    renumbered = of_kind(found, {Kind.RENUMBERED_REFERENCE})
    assert [(f.place.paragraph, f.place.text) for f in renumbered] == [(3, "Clause 1.2")]
    fix = renumbered[0].fix
    assert fix is not None and fix["replacement"].count("1.3") == 1
    # the fixes are real entries: the reply with them breaks nothing
    fixed = batch(entry, *[f.fix for f in renumbered if f.fix])
    assert of_kind(run(data, fixed), REPLY_KINDS) == []


def test_reply_deleting_a_clause_renumbers_the_later_ones() -> None:
    data = contract()
    entry = {"anchor": "The Supplier shall deliver the Goods.", "replacement": ""}
    found = run(data, batch(entry))
    deleted = of_kind(found, {Kind.REFERENCE_TO_DELETED_CLAUSE})
    renumbered = of_kind(found, {Kind.RENUMBERED_REFERENCE})
    assert [f.place.label for f in deleted] == ["1.1"]  # cited by "Clause 1.1" in 2.3
    assert [f.place.text for f in renumbered] == ["Clause 1.2"]
    assert all(f.fix is not None for f in renumbered)
    fixed = batch(entry, *[f.fix for f in renumbered if f.fix])
    assert of_kind(run(data, fixed), {Kind.RENUMBERED_REFERENCE}) == []


def test_reply_writing_a_reference_to_no_clause() -> None:
    data = contract()
    reply = batch(
        {"anchor": "within thirty days", "replacement": "within thirty days, subject to Clause 7.4"}
    )
    found = run(data, reply)
    assert [(f.kind, f.place.paragraph, f.place.text) for f in found] == [
        (Kind.DANGLING_REFERENCE, 5, "Clause 7.4")
    ]


def test_reply_changing_nothing_numbered_breaks_nothing() -> None:
    data = contract()
    assert run(data, batch({"anchor": "thirty days", "replacement": "forty days"})) == []


def test_a_refused_reply_breaks_nothing() -> None:
    data = contract()
    assert run(data, batch({"anchor": "no such words anywhere", "replacement": "x"})) == []
