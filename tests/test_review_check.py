"""redline review proofreads (issue 33): every document with a reply is checked, with what its
reply would break, as ``redline check DOC REPLY --json`` does -- ``NAME.check.json`` (the very
bytes that command prints), the counts in summary.json, and report.html showing each finding
beside the applied edit that changes its paragraph, the rest in a section of their own by kind.
A check that fails is recorded, and the document's apply stands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redline_cli.redline import main
from shared_schema import Code, Refusal
from testing.docbuild import P, docx

DATE = "2020-01-01T00:00:00Z"
NDA = [
    "\u201cConfidential Information\u201d means any information one party discloses to the other.",
    "The recipient shall protect confidential information with care.",
    "The discloser may ask for the return of confidential information at any time.",
    "The recipient shall keep the Confidential Information secret for five years.",
]
REPLY = [
    {"anchor": "with care", "replacement": "with reasonable care"},
    {"anchor": "five years", "replacement": "three years"},
    {"anchor": "no such words", "replacement": "x"},
]


def _folder(folder: Path) -> Path:
    (folder / "nda.docx").write_bytes(docx(*[P(t) for t in NDA]))
    (folder / "nda.reply.json").write_text(json.dumps(REPLY))
    (folder / "plain.docx").write_bytes(docx(P("The parties agree to meet once a year.")))
    (folder / "plain.reply.json").write_text('[{"anchor": "once", "replacement": "twice"}]')
    return folder


def _review(folder: Path, *extra: str) -> tuple[int, dict[str, Any], dict[str, dict[str, Any]], str]:
    out = folder / "out"
    code = main(["review", str(folder), "-o", str(out), "--jobs", "1", "--quiet", "--date", DATE, *extra])
    summary = json.loads((out / "summary.json").read_text())
    page = (out / "report.html").read_text()
    return code, summary, {d["name"]: d for d in summary["documents"]}, page


def test_each_document_is_checked_as_redline_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    code, summary, docs, _ = _review(folder)
    assert code == 1  # an edit not found; findings never change the exit
    out = folder / "out"
    for name in ("nda", "plain"):
        capsys.readouterr()
        assert main(
            ["check", str(folder / f"{name}.docx"), str(folder / f"{name}.reply.json"), "--json"]
        ) in (0, 1)
        assert (out / f"{name}.check.json").read_text() == capsys.readouterr().out
    check = docs["nda"]["check"]
    assert check["report"] == "nda.check.json" and check["reply"] is True and check["error"] is None
    assert check["findings"] == 2 and check["totals"]["lowercase_defined_term"] == 2
    assert set(check["totals"]) >= {"undefined_term", "dangling_reference", "numbering_gap"}
    assert docs["plain"]["check"]["findings"] == 0
    assert summary["totals"]["findings"] == 2
    assert docs["nda"]["outcome"] == "unapplied" and docs["nda"]["totals"]["applied"] == 2


def test_the_page_shows_a_finding_with_the_edit_that_changes_its_paragraph(tmp_path: Path) -> None:
    _, _, _, page = _review(_folder(tmp_path))
    section = page[page.index("<h2>nda") :]
    section = section[: section.index("</section>")]
    row = next(r for r in section.split("<tr") if "reasonable" in r)  # the first edit's row
    # paragraph 1 is changed by the first edit: its finding is in that edit's row
    assert "Proofreading, paragraph 1:" in row and "lowercase_defined_term" in row
    assert "protect <del>confidential information</del><ins>Confidential Information</ins> with" in row
    # paragraph 2 no edit changes: in the proofreading section, under its kind, with its place
    rest = section[section.index("<h3>Proofreading") :]
    assert "2 findings" in rest and "1 shown above" in rest
    assert "<h4>Defined terms in lower case (1)</h4>" in rest and "paragraph 2:" in rest
    assert "paragraph 1:" not in rest
    assert 'href="nda.check.json"' in section
    plain = page[page.index("<h2>plain") :]
    assert "0 findings" in plain[: plain.index("</section>")]


def test_a_check_that_fails_leaves_the_apply_standing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import redline.proofread.check

    def bug(*_args: object, **_kwargs: object) -> object:
        raise KeyError("a bug in the check")

    monkeypatch.setattr(redline.proofread.check, "check_document", bug)
    folder = _folder(tmp_path)
    code, summary, docs, page = _review(folder)
    assert code == 1
    nda = docs["nda"]
    assert nda["outcome"] == "unapplied" and nda["output"] == "nda.redlined.docx"  # the apply stands
    assert (folder / "out" / "nda.redlined.docx").is_file()
    assert nda["check"]["error"]["code"] == Code.INTERNAL_ERROR and nda["check"]["report"] is None
    assert "a bug in the check" in nda["check"]["error"]["message"]
    assert not list((folder / "out").glob("*.check.json"))
    assert summary["totals"]["findings"] == 0
    assert "The proofreading check could not run" in page
    err = capsys.readouterr().err
    assert "the check of nda.docx failed (internal_error)" in err and "Traceback" in err


def test_a_check_that_refuses_is_recorded_with_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redline.proofread.check

    def refuse(*_args: object, **_kwargs: object) -> Refusal:
        return Refusal(code=Code.TOO_COMPLEX, message="The document is too complex to check.")

    monkeypatch.setattr(redline.proofread.check, "check_document", refuse)
    _, _, docs, _ = _review(_folder(tmp_path))
    assert docs["plain"]["outcome"] == "applied"
    assert docs["plain"]["check"]["error"] == {
        "code": "too_complex",
        "message": "The document is too complex to check.",
    }


def test_a_refused_reply_still_has_its_document_checked(tmp_path: Path) -> None:
    (tmp_path / "nda.docx").write_bytes(docx(*[P(t) for t in NDA]))
    (tmp_path / "nda.reply.json").write_text("no edits in here at all")
    _, _, docs, _ = _review(tmp_path)
    nda = docs["nda"]
    assert nda["outcome"] == "refused" and nda["code"] == Code.UNPARSEABLE_REPLY
    assert nda["check"]["reply"] is False and nda["check"]["findings"] == 2


def test_a_document_that_cannot_be_read_records_the_checks_refusal(tmp_path: Path) -> None:
    (tmp_path / "bad.docx").write_bytes(b"not a zip at all")
    (tmp_path / "bad.reply.json").write_text("[]")
    _, _, docs, _ = _review(tmp_path)
    assert docs["bad"]["outcome"] == "refused" and docs["bad"]["check"]["error"]["code"] == "not_a_zip"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "bad.report.json",
        "report.html",
        "summary.json",
    ]


def test_no_check_leaves_the_batch_as_it_was(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    _, summary, docs, page = _review(folder, "--no-check")
    assert "check" not in docs["nda"] and "findings" not in summary["totals"]
    assert not list((folder / "out").glob("*.check.json"))
    assert "Proofreading" not in page


def test_what_the_reply_would_break_stands_with_the_edit_that_breaks_it(tmp_path: Path) -> None:
    """Clause 2 deleted while clause 3 still cites it: the finding is at the deleted clause, in
    the row of the edit that deletes it; the numbering gap the deletion leaves at clause 3
    (a paragraph no edit changes) is in the proofreading section, with its clause label."""
    (tmp_path / "c.docx").write_bytes(
        docx(
            P("1. Payment. The Customer pays the fees monthly."),
            P("2. Term. This agreement lasts for two years."),
            P("3. Termination. Subject to Clause 2, either party may end this agreement on notice."),
        )
    )
    (tmp_path / "c.reply.json").write_text(
        json.dumps([{"anchor": "2. Term. This agreement lasts for two years.", "replacement": ""}])
    )
    _, summary, docs, page = _review(tmp_path)
    totals = docs["c"]["check"]["totals"]
    assert totals["reference_to_deleted_clause"] == 1 and totals["numbering_gap"] == 1
    assert summary["totals"]["findings"] == 2
    section = page[page.index("<h2>c<") :]
    row = next(r for r in section.split("<tr") if "<del>2. Term." in r)
    assert "Proofreading, clause 2., paragraph 1: The reply deletes clause 2" in row
    rest = section[section.index("<h3>Proofreading") :]
    assert "<h4>Clause numbers out of sequence (1)</h4>" in rest and "clause 3., paragraph 2:" in rest
    assert "reference_to_deleted_clause" not in rest
