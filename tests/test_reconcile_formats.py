"""redline reconcile with RETURNED in every format a counterparty sends: ``.doc``, ``.rtf``,
``.odt`` (made from the constructed ``.docx`` RETURNED by LibreOffice headless, as a
counterparty's tool would), converted back by :func:`redline.reconcile.converted.returned_docx`.

Judged: every change of ours has the construction's outcome, or a ``lossy_conversion`` warning
names it (never a silent wrong outcome); every planted untracked change is found and nothing
else; what the way loses is said (``lossy_conversion``: tracked changes missing, comment
threads); a corrupt ``.doc`` is ``conversion_failed`` (exit 3), with no report written.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from redline.opc.convert import from_docx
from redline.reconcile.converted import returned_docx
from redline.reconcile.engine import reconcile
from testing.contractgen import generate_contract
from testing.rounds import Round, build_round

pytestmark = pytest.mark.slow

OUTCOMES = ["accepted", "rejected", "pending", "modified_tracked", "accepted", "modified_untracked"]


@pytest.fixture(scope="module")
def rnd() -> Round:
    return build_round(generate_contract("lease", seed=3), random.Random(5), outcomes=OUTCOMES, untracked=2)


@pytest.mark.parametrize("suffix", [".odt", ".rtf", ".doc"])
def test_a_returned_in_another_format_reports_the_round_or_says_what_was_lost(
    suffix: str, rnd: Round, soffice: str, tmp_path: Path
) -> None:
    path = tmp_path / f"lease.returned{suffix}"
    path.write_bytes(from_docx(rnd.returned, suffix))
    converted = returned_docx(path, path.read_bytes(), rnd.sent, timeout=180)
    assert isinstance(converted, tuple), converted
    docx, warnings, through = converted
    assert through is not None  # (SENT sent through the same way: what the format does)
    d = reconcile(rnd.sent, docx, warnings=warnings, sent_through=through, returned_name=path.name).to_dict()
    assert d["error"] is None
    lossy = [w["message"] for w in d["warnings"] if w["code"] == "lossy_conversion"]
    assert len(lossy) == len(d["warnings"])
    got = {tuple(sorted(c["ids"])): c for c in d["ours"]}
    assert set(got) == {tuple(sorted(c.ids)) for c in rnd.changes}
    for c in rnd.changes:
        entry = got[tuple(sorted(c.ids))]
        if (entry["outcome"], entry["tracked"]) != rnd.outcome_of(c):  # only where a warning says so
            assert any(", ".join(entry["ids"]) in m for m in lossy), (c.ids, entry["outcome"], lossy)
    assert sorted((u["before"], u["after"]) for u in d["untracked"]) == sorted(rnd.untracked)
    outside = [r for r in d["theirs"]["revisions"] if not r["in_ours"]]
    inserted = sorted(r["text"] for r in outside if r["kind"] == "insert")
    assert inserted == sorted(new for _, new in rnd.their_words)
    assert {r["author"] for r in d["theirs"]["revisions"]} <= {"Them"}
    assert len(d["theirs"]["comments"]) == rnd.their_comments
    if sum(1 for c in d["theirs"]["comments"] if c["reply_to_ours"]) != rnd.replies_to_ours:
        assert any("keeps no comment threads" in m for m in lossy)  # (the way loses threads: said)
    assert d["totals"]["untracked"] == len(rnd.untracked)


def test_a_corrupt_doc_is_conversion_failed(rnd: Round, soffice: str, tmp_path: Path) -> None:
    bad = tmp_path / "lease.returned.doc"
    bad.write_bytes(bytes.fromhex("D0CF11E0A1B11AE1") + b"\x00\xff" * 3000)  # an OLE header, then junk
    refused = returned_docx(bad, bad.read_bytes(), rnd.sent, timeout=120)
    assert not isinstance(refused, tuple) and refused.code == "conversion_failed"
    sent = tmp_path / "lease.sent.docx"
    sent.write_bytes(rnd.sent)
    report = tmp_path / "r.json"
    done = subprocess.run(
        [sys.executable, "-m", "redline", "reconcile", str(sent), str(bad), "--report", str(report)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 3 and "conversion_failed" in done.stderr, done.stderr
    assert not report.exists()
