"""redline review: a document with its new version beside it (NAME.new.docx) is compared.

Outputs NAME.compared.docx (pandoc reads it accepted as the new version, rejected as the
document) and NAME.compare.json; summary.json names them and report.html lists the changes.
"""

from __future__ import annotations

import json
from pathlib import Path

from redline_cli.redline import main
from redline_review.job import pair
from shared_schema import Code
from testing.docbuild import P, docx
from tests.oracles import pandoc_folded

DATE = "2020-01-01T00:00:00Z"
L = [
    "The Tenant shall pay the rent monthly in advance to the Landlord.",
    "The Landlord shall keep the structure and the roof of the premises in good repair.",
    "Either party may terminate this lease by giving three months written notice.",
    "Rent is ten dollars per square foot.",
]


def _batch(folder: Path) -> None:
    (folder / "lease.docx").write_bytes(docx(*[P(t) for t in L]))
    (folder / "lease.new.docx").write_bytes(docx(P(L[1]), P(L[2]), P(L[0]), P(L[3].replace("ten", "twelve"))))
    (folder / "nda.docx").write_bytes(docx(P("Confidential information stays confidential for five years.")))
    (folder / "nda.reply.json").write_text('[{"anchor": "five", "replacement": "three"}]')
    (folder / "same.docx").write_bytes(docx(P("Nothing changes here at all.")))
    (folder / "same.new.docx").write_bytes((folder / "same.docx").read_bytes())


def _run(folder: Path, *extra: str) -> tuple[int, dict[str, dict[str, object]], str]:
    out = folder / "out"
    code = main(["review", str(folder), "-o", str(out), "--jobs", "1", "--quiet", "--date", DATE, *extra])
    summary = json.loads((out / "summary.json").read_text())
    return code, {d["name"]: d for d in summary["documents"]}, (out / "report.html").read_text()


def test_pairs_by_name() -> None:
    jobs = {
        j.name: j
        for j in pair(["a.docx", "a.new.docx", "b.new.docx", "c.docx", "c.new.docx", "c.reply.json"])
    }
    assert jobs["a"].new == "a.new.docx" and jobs["a"].reply is None and jobs["a"].problem is None
    assert jobs["b.new"].document == "b.new.docx" and jobs["b.new"].new is None  # alone: a document
    assert jobs["c"].problem is not None and jobs["c"].problem[0] == Code.AMBIGUOUS_VERSION
    assert set(jobs) == {"a", "b.new", "c"}
    assert [j.name for j in pair(["a.docx", "a.compared.docx", "a.new.docx"])] == [
        "a"
    ]  # outputs are no inputs


def test_batch_compares(tmp_path: Path, pandoc: str) -> None:
    _batch(tmp_path)
    code, docs, page = _run(tmp_path)
    assert code == 0  # compared and applied documents only
    lease = docs["lease"]
    assert lease["outcome"] == "compared" and lease["new"] == "lease.new.docx"
    assert lease["compared"] == "lease.compared.docx" and lease["compare_report"] == "lease.compare.json"
    assert lease["compare_totals"]["paragraphs"]["moved"] == 1  # type: ignore[index]
    out = tmp_path / "out"
    report = json.loads((out / "lease.compare.json").read_text())
    assert [c["kind"] for c in report["changes"]] == ["move", "replace"]
    compared = (out / "lease.compared.docx").read_bytes()
    assert pandoc_folded(pandoc, compared, "accept") == pandoc_folded(
        pandoc, (tmp_path / "lease.new.docx").read_bytes(), "accept"
    )
    assert pandoc_folded(pandoc, compared, "reject") == pandoc_folded(
        pandoc, (tmp_path / "lease.docx").read_bytes(), "reject"
    )
    assert docs["nda"]["outcome"] == "applied"
    assert docs["same"]["outcome"] == "compared" and docs["same"]["compare_totals"]["changes"] == 0  # type: ignore[index]
    # OLD == NEW: the compared copy is still written, and is the document's very bytes
    assert (out / "same.compared.docx").read_bytes() == (tmp_path / "same.docx").read_bytes()
    assert "Changes in the new version (1 moved, 1 replaced)" in page
    assert "Moved from paragraph 0 to paragraph 2 of the new version" in page
    assert "<del>ten</del><ins>twelve</ins>" in page
    assert 'href="lease.compared.docx"' in page and 'href="lease.compare.json"' in page
    assert "No differences" in page


def test_refusals(tmp_path: Path) -> None:
    (tmp_path / "both.docx").write_bytes(docx(P("Hello there.")))
    (tmp_path / "both.new.docx").write_bytes(docx(P("Hello here.")))
    (tmp_path / "both.reply.json").write_text("[]")
    (tmp_path / "bad.docx").write_bytes(docx(P("Hello there.")))
    (tmp_path / "bad.new.docx").write_bytes(b"PK\x03\x04 not a document")
    code, docs, page = _run(tmp_path)
    assert code == 1
    assert docs["both"]["outcome"] == "refused" and docs["both"]["code"] == Code.AMBIGUOUS_VERSION
    assert docs["both"]["compared"] is None
    assert docs["bad"]["outcome"] == "refused" and "bad.new.docx" in str(docs["bad"]["message"])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "bad.compare.json",
        "report.html",
        "summary.json",
    ]
    assert "ambiguous_version" in page


def test_dry_run_writes_the_report_only(tmp_path: Path) -> None:
    _batch(tmp_path)
    code, docs, _ = _run(tmp_path, "--dry-run")
    assert (
        code == 0
        and docs["lease"]["compared"] is None
        and docs["lease"]["compare_report"] == "lease.compare.json"
    )
    assert not (tmp_path / "out" / "lease.compared.docx").exists()


def test_a_change_that_cannot_be_written(tmp_path: Path) -> None:
    """A change inside a field's result is not written: the document is ``unapplied``, the
    page says so in the compare's words and gives the reason."""
    from testing.docbuild import Field

    (tmp_path / "f.docx").write_bytes(docx(P("See page ", Field("PAGE", "3"), " of the lease.")))
    (tmp_path / "f.new.docx").write_bytes(docx(P("See page 4 of the lease.")))
    code, docs, page = _run(tmp_path)
    assert code == 1 and docs["f"]["outcome"] == "unapplied" and docs["f"]["compared"] == "f.compared.docx"
    assert "compared; some changes could not be written" in page and "Not written: inside a field" in page
