"""Clause-level edits: striking whole clauses, blank lines in replacements, and the independent
readers' view of them (pandoc for reject-all, LibreOffice for accept-all and its numbering)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.read.view import DocumentView
from tests.oracles import pandoc_plain, rejected
from tests.support import view_of

ROOT = Path(__file__).resolve().parent.parent
LEASE = ROOT / "sample_contracts" / "commercial-lease.docx"


def apply(entries: list[dict[str, object]]) -> bytes:
    outcome = apply_reply(LEASE.read_bytes(), json.dumps(entries), ApplyOptions())
    assert all(e.status.value == "applied" for e in outcome.report.edits), outcome.report.edits
    assert outcome.output is not None
    return outcome.output


def clause(view: DocumentView, label: str) -> str:
    return next(view.paragraph_text(p) for p in view.paragraphs if p.label == label)


def test_striking_a_whole_clause_deletes_its_mark_so_the_list_renumbers() -> None:
    before = view_of(LEASE.read_bytes())
    text = clause(before, "2.2")
    out = apply([{"anchor": text, "replacement": ""}])
    after = view_of(out)  # redline reads a document as if every change were accepted
    assert len(after.paragraphs) == len(before.paragraphs) - 1
    assert not any(after.paragraph_text(p) == "" and p.label for p in after.paragraphs)
    assert clause(after, "2.2") == clause(before, "2.3")  # Holding Over is 2.2 now
    assert rejected(out) == rejected(LEASE.read_bytes())


def test_striking_two_clauses_at_once_and_a_partial_strike_keeps_its_mark() -> None:
    before = view_of(LEASE.read_bytes())
    both = clause(before, "2.2") + "\n" + clause(before, "2.3")
    partial = clause(before, "2.4")[:-1]  # all but the full stop: the paragraph stays
    out = apply([{"anchor": both, "replacement": ""}, {"anchor": partial, "replacement": ""}])
    after = view_of(out)
    assert len(after.paragraphs) == len(before.paragraphs) - 2
    assert clause(after, "2.2") == "."
    assert rejected(out) == rejected(LEASE.read_bytes())


def test_a_blank_line_in_a_replacement_separates_paragraphs_and_makes_none() -> None:
    before = view_of(LEASE.read_bytes())
    anchor = clause(before, "2.4")
    out = apply([{"anchor": anchor, "replacement": anchor + "\n\n\nLandlord shall provide keys.\n\n"}])
    after = view_of(out)
    assert len(after.paragraphs) == len(before.paragraphs) + 1
    assert not any(not after.paragraph_text(p).strip() and p.label for p in after.paragraphs)
    new = next(p for p in after.paragraphs if after.paragraph_text(p) == "Landlord shall provide keys.")
    assert new.label == "2.5"  # the new paragraph carries the list numbering of its clause
    assert rejected(out) == rejected(LEASE.read_bytes())


@pytest.mark.slow
def test_libreoffice_accepts_a_struck_clause_and_renumbers(soffice: str, tmp_path: Path) -> None:
    accept = ROOT / "tests" / "libreoffice_accept.py"
    if not Path("/usr/bin/python3").exists():
        pytest.skip("no system python with LibreOffice's uno module")
    before = view_of(LEASE.read_bytes())
    out = apply([{"anchor": clause(before, "2.2"), "replacement": ""}])
    doc = tmp_path / "struck.docx"
    doc.write_bytes(out)
    (tmp_path / "out").mkdir()
    (tmp_path / "profile").mkdir()
    subprocess.run(
        ["/usr/bin/python3", str(accept), str(tmp_path / "out"), (tmp_path / "profile").as_uri(), str(doc)],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    txt = tmp_path / "out" / "struck.txt"
    if not txt.exists():
        pytest.skip("LibreOffice could not accept the changes here")
    lines = [line.strip() for line in txt.read_text(encoding="utf-8-sig").splitlines()]
    assert any(line.startswith("2.2 Holding Over.") for line in lines), lines[:20]
    assert not any(line.startswith("2.2 Renewal Option") for line in lines)
    assert not any(line in ("2.2", "2.4") for line in lines)  # no empty numbered item


def test_insert_after_and_before_add_whole_numbered_paragraphs_beside_the_anchor() -> None:
    before = view_of(LEASE.read_bytes())
    out = apply(
        [
            {"action": "insert_after", "anchor": "Renewal Option. Provided no Event of Default",
             "text": "Right of First Offer. Landlord offers space.\n\nTenant answers in ten days."},
            {"action": "insert_before", "anchor": "Holding Over. If Tenant remains",
             "text": "A new sub-clause.", "level": "+1"},
        ]
    )  # fmt: skip
    after = view_of(out)
    assert len(after.paragraphs) == len(before.paragraphs) + 3
    assert clause(after, "2.2") == clause(before, "2.2")  # the anchor's paragraph is untouched
    assert clause(after, "2.3").startswith("Right of First Offer.")
    assert clause(after, "2.4") == "Tenant answers in ten days."
    sub = next(p for p in after.paragraphs if after.paragraph_text(p) == "A new sub-clause.")
    assert sub.label == "(a)" and sub.section is not None and sub.section.startswith("2.4(a)")
    assert clause(after, "2.5").startswith("Holding Over.")
    assert rejected(out) == rejected(LEASE.read_bytes())
    assert "Right of First Offer" in pandoc_plain(out, "accept")


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"action": "insert_after", "anchor": "Holding Over."}, "text"),
        ({"action": "insert_after", "text": "x"}, "anchor"),
        ({"action": "insert_before", "anchor": "Holding Over.", "text": "x", "level": "+7"}, "level"),
        ({"action": "insert_before", "anchor": "Holding Over.", "text": ["x"]}, "text"),
    ],
)
def test_an_insert_entry_without_what_it_needs_is_invalid(entry: dict[str, object], reason: str) -> None:
    from shared_schema import parse_edit_reply

    batch = parse_edit_reply(json.dumps([entry, {"anchor": "a", "replacement": "b"}]))
    assert batch is not None and len(batch.edits) == 1 and reason in batch.invalid[0].reason


def test_an_insert_is_located_like_every_anchor() -> None:
    outcome = apply_reply(
        LEASE.read_bytes(),
        json.dumps(
            [
                {"action": "insert_after", "anchor": "Tenant shall", "text": "x"},  # many places
                {"action": "insert_after", "anchor": "No such words here", "text": "x"},
                {
                    "action": "insert_after",
                    "anchor": "Holding Over. If Tenant",
                    "text": "x",
                    "section": "3.1",
                },
            ]
        ),
        ApplyOptions(dry_run=True),
    )
    assert [e.status.value for e in outcome.report.edits] == ["ambiguous", "not_found", "out_of_scope"]


def test_an_anchor_in_another_authors_deletion_is_refused_deleted_text() -> None:
    from testing.docbuild import Del, P, docx

    data = docx(
        P("The Tenant shall pay ", Del("all ", author="Opposing Counsel"), "Operating Expenses monthly."),
        P("Another clause entirely."),
    )
    outcome = apply_reply(
        data, json.dumps([{"anchor": "shall pay all Operating Expenses", "replacement": "x"}]), ApplyOptions()
    )
    [edit] = outcome.report.edits
    assert edit.status.value == "not_found" and edit.error is not None
    assert edit.error.code == "deleted_text"
    assert "Opposing Counsel deleted" in edit.error.message and "2020-01-01" in edit.error.message
    assert "as it now reads" in (edit.error.hint or "")
    # as it now reads, the same words are found
    outcome = apply_reply(
        data, json.dumps([{"anchor": "shall pay Operating Expenses", "replacement": "x"}]), ApplyOptions()
    )
    assert outcome.report.edits[0].status.value == "applied"


def test_a_rationale_on_a_header_edit_is_reported_not_dropped(tmp_path: Path) -> None:
    import io
    import zipfile

    from redline_review.html_report import report_details

    outcome = apply_reply(
        LEASE.read_bytes(),
        json.dumps([{"anchor": "Commercial Lease \u2014 Harbor Point",
                     "replacement": "Lease \u2014 Harbor Point", "rationale": "Shorter running head."}]),
        ApplyOptions(),
    )  # fmt: skip
    [edit] = outcome.report.edits
    assert edit.status.value == "applied"
    assert len(edit.notes) == 1 and "header" in edit.notes[0] and "Shorter running head." in edit.notes[0]
    assert outcome.output is not None
    with zipfile.ZipFile(io.BytesIO(outcome.output)) as z:
        assert all(b"commentReference" not in z.read(n) for n in z.namelist() if n.endswith(".xml"))
    page = report_details(outcome.report.to_dict())
    assert "Note: The rationale could not be attached" in page and "Shorter running head." in page


@pytest.mark.parametrize(
    "anchor",
    [
        "Months 1\u201312",  # a table cell's only paragraph
        "Rentable area is measured in accordance",  # a footnote
        "Confidential \u2014 Page",  # a footer
    ],
)
def test_an_insert_after_a_cell_a_footnote_or_a_footer_stays_in_it(anchor: str) -> None:
    before = view_of(LEASE.read_bytes())
    out = apply([{"action": "insert_after", "anchor": anchor, "text": "Inserted paragraph."}])
    after = view_of(out)
    old = next(p for p in before.paragraphs if anchor in before.paragraph_text(p))
    new = next(p for p in after.paragraphs if after.paragraph_text(p) == "Inserted paragraph.")
    assert new.story == old.story and new.part == old.part
    assert len(after.paragraphs) == len(before.paragraphs) + 1
    assert rejected(out) == rejected(LEASE.read_bytes())


def test_an_insert_after_the_last_paragraph_of_the_document() -> None:
    before = view_of(LEASE.read_bytes())
    last = max((p for p in before.paragraphs if p.story == "body"), key=lambda p: p.index)
    words = " ".join(before.paragraph_text(last).split()[:4])
    out = apply([{"action": "insert_after", "anchor": words, "text": "A closing line."}])
    after = view_of(out)
    body = [p for p in after.paragraphs if p.story == "body"]
    assert after.paragraph_text(body[-1]) == "A closing line."
    assert rejected(out) == rejected(LEASE.read_bytes())
