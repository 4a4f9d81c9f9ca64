"""redline review reconciles rounds (issue 34): ``NAME.sent.docx`` beside ``NAME.returned.docx``
(``.doc``, ``.rtf``, ``.odt``) -- ``NAME.reconcile.json`` (what ``redline reconcile --json``
prints), ``NAME.memo.md`` (its memo), an entry in summary.json and the round by clause on
report.html.  A half without the other, two returned files, a file that cannot be read: that
round refused with its reason, and the rest of the batch as it would be without it.

The rounds are constructed (:mod:`testing.rounds`): SENT written by our apply, RETURNED
decided and edited as another author, untracked words planted in the XML.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from redline_cli.redline import main
from redline_review.job import pair
from shared_schema import Code
from testing.contractgen import generate_contract
from testing.docbuild import P, docx
from testing.rounds import Round, build_round

DATE = "2020-01-01T00:00:00Z"


@pytest.fixture(scope="module")
def rnd() -> Round:
    return build_round(generate_contract("nda", seed=2), random.Random(2))


def _review(folder: Path) -> tuple[int, dict[str, Any], dict[str, dict[str, Any]], str]:
    out = folder / "out"
    code = main(["review", str(folder), "-o", str(out), "--jobs", "1", "--quiet", "--date", DATE])
    summary = json.loads((out / "summary.json").read_text())
    return code, summary, {d["name"]: d for d in summary["documents"]}, (out / "report.html").read_text()


def _section(page: str, name: str) -> str:
    at = page.index(f"<h2>{name}<")
    return page[at : page.index("</section>", at)]


NAMES = [
    "a.sent.docx", "A.Returned.ODT",  # a round, names matched ignoring case
    "b.sent.docx",  # nothing came back
    "c.returned.rtf",  # nothing sent
    "d.sent.docx", "d.returned.docx", "d.returned.doc",  # two came back
    "e.sent.docx", "e.sent.reply.json",  # a document with its own reply, as before
    "f.docx", "f.reply.json", "f.sent.docx", "f.returned.docx",  # f is a job: the round is f.sent
    "g.returned.txt",  # not a format a counterparty sends back: no input
]  # fmt: skip


def test_pairs_rounds_by_name() -> None:
    jobs = {j.name: j for j in pair(NAMES)}
    assert jobs["a"].round and jobs["a"].document == "a.sent.docx" and jobs["a"].returned == "A.Returned.ODT"
    assert jobs["a"].problem is None
    assert jobs["b"].problem is not None and jobs["b"].problem[0] == Code.MISSING_RETURNED
    assert jobs["c"].problem is not None and jobs["c"].problem[0] == Code.MISSING_SENT
    assert jobs["c"].returned == "c.returned.rtf" and jobs["c"].document is None
    assert jobs["d"].problem is not None and jobs["d"].problem[0] == Code.AMBIGUOUS_RETURNED
    assert not jobs["e.sent"].round and jobs["e.sent"].reply == "e.sent.reply.json"
    assert jobs["f"].reply == "f.reply.json" and not jobs["f"].round
    assert jobs["f.sent"].round and jobs["f.sent"].returned == "f.returned.docx"
    assert set(jobs) == {"a", "b", "c", "d", "e.sent", "f", "f.sent"}


def test_a_round_is_reconciled_as_redline_reconcile_does(
    rnd: Round, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "nda.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "nda.returned.docx").write_bytes(rnd.returned)
    (tmp_path / "plain.docx").write_bytes(docx(P("The parties agree to meet once a year.")))
    (tmp_path / "plain.reply.json").write_text('[{"anchor": "once", "replacement": "twice"}]')
    code, summary, docs, page = _review(tmp_path)
    assert code == 1  # untracked changes came back
    out = tmp_path / "out"
    sent, returned = str(tmp_path / "nda.sent.docx"), str(tmp_path / "nda.returned.docx")
    capsys.readouterr()
    assert main(["reconcile", sent, returned, "--json"]) == 1
    assert (out / "nda.reconcile.json").read_text() == capsys.readouterr().out
    assert main(["reconcile", sent, returned]) == 1
    assert (out / "nda.memo.md").read_text() == capsys.readouterr().out
    nda = docs["nda"]
    report = json.loads((out / "nda.reconcile.json").read_text())
    assert nda["outcome"] == "reconciled" and nda["exit"] == 1 and nda["code"] is None
    assert nda["sent"] == "nda.sent.docx" and nda["returned"] == "nda.returned.docx"
    r = nda["reconcile"]
    assert r["report"] == "nda.reconcile.json" and r["memo"] == "nda.memo.md"
    assert r["totals"] == report["totals"] and r["author"] == "Us"
    assert r["untracked"] is True and r["lossy"] is False and r["warnings"] == []
    assert r["totals"]["untracked"] == len(rnd.untracked)
    assert summary["totals"]["rounds"] == 1 and summary["totals"]["untracked"] == len(rnd.untracked)
    assert docs["plain"]["outcome"] == "applied"  # the batch's other documents as ever
    section = _section(page, "nda")
    assert "reconciled: changes made without tracking" in section
    assert 'href="nda.reconcile.json"' in section and 'href="nda.memo.md"' in section
    t = report["totals"]
    assert f"Of our {t['ours']} changes they accepted {t['accepted']}, rejected {t['rejected']}" in section
    for word in ("<b>accepted</b>", "<b>rejected</b>", "<b>still open (not decided)</b>", "changed, tracked"):
        assert word in section, word
    for before, after in rnd.untracked:
        assert f"<b>Changed without tracking</b>: <del>{before}</del><ins>{after}</ins>" in section
    assert "Them commented (reply to our comment)" in section
    clauses = {c["section"] for c in report["ours"] if c["section"]}
    assert all(f"<h4>{c}</h4>" in section for c in clauses if "<" not in c and "&" not in c)


def test_a_round_that_came_back_untouched_is_clean(rnd: Round, tmp_path: Path) -> None:
    (tmp_path / "nda.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "nda.returned.docx").write_bytes(rnd.sent)
    code, summary, docs, page = _review(tmp_path)
    assert code == 0 and summary["exit"] == 0
    assert docs["nda"]["outcome"] == "reconciled" and docs["nda"]["exit"] == 0
    assert docs["nda"]["reconcile"]["untracked"] is False
    assert docs["nda"]["reconcile"]["totals"]["pending"] == len(rnd.changes)
    assert "reconciled: nothing changed without tracking" in _section(page, "nda")


def test_halves_alone_and_broken_files_refuse_that_round_only(rnd: Round, tmp_path: Path) -> None:
    (tmp_path / "lonely.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "orphan.returned.odt").write_bytes(b"whatever")
    (tmp_path / "two.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "two.returned.docx").write_bytes(rnd.returned)
    (tmp_path / "two.returned.rtf").write_bytes(b"{\\rtf1 }")
    (tmp_path / "broken.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "broken.returned.docx").write_bytes(b"not a zip at all")
    (tmp_path / "junk.sent.docx").write_bytes(b"PK\x03\x04 junk")
    (tmp_path / "junk.returned.docx").write_bytes(rnd.returned)
    (tmp_path / "good.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "good.returned.docx").write_bytes(rnd.returned)
    code, summary, docs, page = _review(tmp_path)
    assert code == 1
    got = {name: (d["outcome"], d["code"]) for name, d in docs.items()}
    assert got == {
        "lonely": ("refused", Code.MISSING_RETURNED),
        "orphan": ("refused", Code.MISSING_SENT),
        "two": ("refused", Code.AMBIGUOUS_RETURNED),
        "broken": ("refused", Code.NOT_A_ZIP),
        "junk": ("refused", docs["junk"]["code"]),
        "good": ("reconciled", None),
    }
    assert docs["junk"]["code"] is not None and "junk.sent.docx" in docs["junk"]["message"]
    assert "broken.returned.docx" in docs["broken"]["message"]
    assert "nothing came back" in docs["lonely"]["message"]
    assert docs["orphan"]["returned"] == "orphan.returned.odt" and docs["orphan"]["sent"] is None
    assert all(docs[n]["reconcile"] is None for n in ("lonely", "orphan", "two", "broken", "junk"))
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == ["good.memo.md", "good.reconcile.json", "report.html", "summary.json"]
    assert summary["totals"]["rounds"] == 6 and summary["totals"]["by_outcome"] == {
        "reconciled": 1,
        "refused": 5,
    }
    assert "the redline we sent, but nothing that came back" in _section(page, "lonely")


@pytest.mark.slow
def test_a_round_that_came_back_as_odt_is_converted(rnd: Round, tmp_path: Path, soffice: str) -> None:
    from redline.opc.convert import from_docx

    (tmp_path / "nda.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "nda.returned.odt").write_bytes(from_docx(rnd.returned, ".odt", timeout=120))
    code, _, docs, page = _review(tmp_path)
    nda = docs["nda"]
    assert nda["outcome"] == "reconciled" and nda["returned"] == "nda.returned.odt", nda["message"]
    report = json.loads((tmp_path / "out" / "nda.reconcile.json").read_text())
    assert report["returned"] == "nda.returned.odt"
    found = {(u["before"], u["after"]) for u in report["untracked"]}
    assert set(rnd.untracked) <= found or nda["reconcile"]["lossy"]  # found, or the loss is said
    assert code == 1 and nda["exit"] == 1
    assert "nda.returned.odt" in _section(page, "nda")


def test_a_local_pool_writes_what_one_process_writes(
    rnd: Round, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A round and a proofread document go to worker processes and back (every input and
    result pickled) and come out the same; the run's last line counts the rounds."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "nda.sent.docx").write_bytes(rnd.sent)
    (src / "nda.returned.docx").write_bytes(rnd.returned)
    (src / "plain.docx").write_bytes(docx(P("The parties agree to meet once a year.")))
    (src / "plain.reply.json").write_text('[{"anchor": "once", "replacement": "twice"}]')
    for jobs in ("1", "2"):
        args = ["review", str(src), "-o", str(tmp_path / jobs), "--jobs", jobs, "--quiet", "--date", DATE]
        assert main(args) == 1
    err = capsys.readouterr().err
    assert f"1 rounds ({len(rnd.untracked)} untracked changes)" in err
    assert "reconciled  nda: nda.returned.docx against nda.sent.docx" in err
    one = sorted(p.name for p in (tmp_path / "1").iterdir())
    assert one == sorted(p.name for p in (tmp_path / "2").iterdir())
    assert {"nda.reconcile.json", "nda.memo.md", "plain.check.json"} <= set(one)
    for name in one:
        if not name.endswith(".docx"):
            assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name


def test_a_bug_in_a_round_fails_that_round_only(
    rnd: Round, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import redline.reconcile.engine

    def bug(*_args: object, **_kwargs: object) -> object:
        raise KeyError("a bug in reconcile")

    monkeypatch.setattr(redline.reconcile.engine, "reconcile", bug)
    (tmp_path / "nda.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "nda.returned.docx").write_bytes(rnd.returned)
    (tmp_path / "plain.docx").write_bytes(docx(P("The parties agree to meet once a year.")))
    (tmp_path / "plain.reply.json").write_text('[{"anchor": "once", "replacement": "twice"}]')
    code, _, docs, _ = _review(tmp_path)
    assert code == 1
    assert docs["nda"]["outcome"] == "failed" and docs["nda"]["code"] == Code.FAILED
    assert "a bug in reconcile" in docs["nda"]["message"] and docs["nda"]["reconcile"] is None
    assert docs["plain"]["outcome"] == "applied"
    err = capsys.readouterr().err
    assert "the round nda.sent.docx failed (internal_error)" in err and "Traceback" in err


@pytest.mark.slow
def test_a_returned_file_that_cannot_be_converted_refuses_its_round(
    rnd: Round, tmp_path: Path, soffice: str
) -> None:
    (tmp_path / "nda.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "nda.returned.doc").write_bytes(b"PK\x03\x04 this is no Word 97 document")
    (tmp_path / "good.sent.docx").write_bytes(rnd.sent)
    (tmp_path / "good.returned.docx").write_bytes(rnd.sent)
    code, _, docs, page = _review(tmp_path)
    assert code == 1 and docs["good"]["outcome"] == "reconciled" and docs["good"]["exit"] == 0
    nda = docs["nda"]
    assert nda["outcome"] == "refused" and nda["code"] == Code.CONVERSION_FAILED, nda
    assert nda["message"].startswith("nda.returned.doc: ")
    assert not (tmp_path / "out" / "nda.reconcile.json").exists()
    assert "conversion_failed" in _section(page, "nda")
