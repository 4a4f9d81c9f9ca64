"""Hostile inputs, third round: batch names that collide once case is folded, authors that
differ only by case or spacing, unrelated moves that share a ``w:name``, and reports bounded
however many candidates a refusal has."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from redline.apply import ApplyOptions, Outcome, apply_reply
from redline.match.verify import MAX_CANDIDATES
from redline_review.job import pair
from redline_review.runner import InProcess, run_review
from redline_review.storage import LocalStorage, Storage, open_storage
from testing.docbuild import P, Raw, docx
from tests.support import part

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = {"w": W}
DATE = "2020-01-01T00:00:00Z"
OPTIONS = ApplyOptions(author="Us", date="2024-05-01T00:00:00Z")


def run(doc: bytes, entries: list[dict[str, Any]]) -> Outcome:
    return apply_reply(doc, json.dumps({"edits": entries}), OPTIONS)


def codes(out: Outcome) -> list[str]:
    return [e.error.code.value if e.error else e.status.value for e in out.report.edits]


def ins(rid: int, author: str, text: str) -> str:
    return f'<w:ins w:id="{rid}" w:author="{author}" w:date="{DATE}"><w:r><w:t>{text}</w:t></w:r></w:ins>'


# -------------------------------------------------------------------------------------------
# 1. batches: names matched ignoring case, collisions reported, never dropped


def _reply() -> bytes:
    return json.dumps({"edits": [{"anchor": "Rent", "replacement": "Fee"}]}).encode()


def _doc() -> bytes:
    return docx(P("Rent is due."))


def test_pairing_matches_extensions_and_names_ignoring_case() -> None:
    (job,) = pair(["Contract.DOCX", "contract.reply.JSON"])
    assert (job.name, job.document, job.reply, job.problem) == (
        "Contract", "Contract.DOCX", "contract.reply.JSON", None,
    )  # fmt: skip
    (job,) = pair(["CONTRACT.DOCX", "CONTRACT.REPLY.MD", "CONTRACT.SUMMARY.JSON"])
    assert (job.document, job.reply, job.summary) == (
        "CONTRACT.DOCX",
        "CONTRACT.REPLY.MD",
        "CONTRACT.SUMMARY.JSON",
    )
    (job,) = pair(["a.docx", "A.NEW.DOCX"])
    assert job.new == "A.NEW.DOCX" and job.problem is None


def test_same_stem_different_extension_case_are_two_jobs_each_naming_the_other() -> None:
    jobs = pair(["A.docx", "A.DOCX", "A.reply.json"])
    assert sorted(j.document or "" for j in jobs) == ["A.DOCX", "A.docx"]
    assert len({j.name for j in jobs}) == 2  # told apart
    for j in jobs:
        assert j.problem is not None and j.problem[0].value == "duplicate_name"
        other = "A.DOCX" if j.document == "A.docx" else "A.docx"
        assert other in j.problem[1] and "A.reply.json" in j.problem[1]


def test_two_replies_differing_in_case_are_reported_with_or_without_a_document() -> None:
    (job,) = pair(["x.docx", "x.reply.json", "X.reply.json"])
    assert job.problem is not None and job.problem[0].value == "ambiguous_reply"
    assert "x.reply.json" in job.problem[1] and "X.reply.json" in job.problem[1]
    jobs = pair(["o.reply.json", "O.reply.JSON"])
    assert sorted(j.reply or "" for j in jobs) == ["O.reply.JSON", "o.reply.json"]
    assert all(j.problem is not None and j.problem[0].value == "ambiguous_reply" for j in jobs)
    jobs = pair(["s.docx", "s.reply.json", "s.summary.json", "S.summary.json"])
    (job,) = jobs
    assert job.problem is not None and "S.summary.json" in job.problem[1]


def _fill(source: Storage) -> None:
    doc, reply = _doc(), _reply()
    for name, data in [
        ("A.docx", doc), ("A.DOCX", doc), ("A.reply.json", reply),
        ("Lease.docx", doc), ("lease.docx", doc),
        ("CONTRACT.DOCX", doc), ("contract.reply.JSON", reply),
        ("orphan.reply.json", reply), ("ORPHAN.reply.json", reply),
    ]:  # fmt: skip
        source.write(name, data)


_EXPECTED = {
    "A.docx": ("refused", "duplicate_name"),
    "A.DOCX": ("refused", "duplicate_name"),
    "Lease": ("refused", "duplicate_name"),
    "lease": ("refused", "duplicate_name"),
    "CONTRACT": ("applied", None),
    "orphan": ("refused", "ambiguous_reply"),
    "ORPHAN": ("refused", "ambiguous_reply"),
}


def _check_batch(target: Storage) -> None:
    summary = json.loads(target.read("summary.json"))
    got = {d["name"]: (d["outcome"], d["code"]) for d in summary["documents"]}
    assert got == _EXPECTED, got
    assert summary["totals"]["documents"] == len(_EXPECTED)
    by_name = {d["name"]: d for d in summary["documents"]}
    assert "A.DOCX" in by_name["A.docx"]["message"] and "A.docx" in by_name["A.DOCX"]["message"]
    assert "lease.docx" in by_name["Lease"]["message"]
    assert by_name["CONTRACT"]["reply"] == "contract.reply.JSON"
    assert "CONTRACT.redlined.docx" in target.list()
    page = target.read("report.html").decode()
    for name in ("A.docx", "A.DOCX", "Lease.docx", "lease.docx", "ORPHAN.reply.json", "orphan.reply.json"):
        assert name in page, name
    assert "duplicate_name" in page


def test_a_local_batch_reports_every_colliding_name(tmp_path: Path) -> None:
    source, target = LocalStorage(tmp_path / "in"), LocalStorage(tmp_path / "out")
    source.makedirs()
    target.makedirs()
    _fill(source)
    run_review(source, target, OPTIONS, InProcess())
    _check_batch(target)


def test_an_fsspec_batch_reports_every_colliding_name() -> None:
    pytest.importorskip("fsspec")
    source, target = open_storage("memory://hostile3-in"), open_storage("memory://hostile3-out")
    source.makedirs()
    target.makedirs()
    _fill(source)
    run_review(source, target, OPTIONS, InProcess())
    _check_batch(target)


# -------------------------------------------------------------------------------------------
# 2. authors compared exactly

AUTHORS = docx(
    P("A ", Raw(ins(1, "Opp", "one")), " B ", Raw(ins(2, "opp", "two")), " C ", Raw(ins(3, "O  pp", "three")))
)


def _inserted_by(out: Outcome) -> list[str]:
    assert out.output is not None
    return sorted(
        str(e.get(f"{{{W}}}author")) for e in part(out.output, "word/document.xml").iter(f"{{{W}}}ins")
    )


def test_an_exact_author_decides_that_author_only() -> None:
    out = run(AUTHORS, [{"action": "accept", "author": "Opp"}])
    assert codes(out) == ["applied"]
    assert _inserted_by(out) == ["O  pp", "opp"]
    assert "by Opp: r1" in " ".join(out.report.edits[0].notes)


def test_an_author_matching_several_only_once_folded_is_ambiguous_naming_each() -> None:
    out = run(AUTHORS, [{"action": "reject", "author": "OPP"}])
    assert codes(out) == ["ambiguous"]
    error = out.report.edits[0].error
    assert error is not None
    for name in ("'Opp'", "'opp'", "'O  pp'"):
        assert name in error.message
    assert error.actual_matches == 3
    assert out.output is None or _inserted_by(out) == ["O  pp", "Opp", "opp"]


def test_an_author_matching_one_once_folded_is_read_as_it_with_a_note() -> None:
    doc = docx(P("A ", Raw(ins(1, "Opp", "one")), " B ", Raw(ins(2, "Other", "two"))))
    out = run(doc, [{"action": "accept", "author": "o pp"}])
    assert codes(out) == ["applied"]
    assert _inserted_by(out) == ["Other"]
    assert any("read the author 'o pp' as 'Opp'" in n for n in out.report.edits[0].notes)


# -------------------------------------------------------------------------------------------
# 3. moves paired by range, never widened by a shared name


def _move(
    ids: tuple[int, int, int, int], author: str, words: str, tail: str, head: str, name: str = "move1"
) -> str:
    a, b, c, d = ids
    at = f'w:author="{author}" w:date="{DATE}"'
    return (
        f'<w:p><w:moveFromRangeStart w:id="{a}" {at} w:name="{name}"/>'
        f'<w:moveFrom w:id="{b}" {at}><w:r><w:t>{words}</w:t></w:r></w:moveFrom>'
        f'<w:moveFromRangeEnd w:id="{a}"/><w:r><w:t xml:space="preserve"> {tail}</w:t></w:r></w:p>'
        f'<w:p><w:r><w:t xml:space="preserve">{head} </w:t></w:r>'
        f'<w:moveToRangeStart w:id="{c}" {at} w:name="{name}"/>'
        f'<w:moveTo w:id="{d}" {at}><w:r><w:t>{words}</w:t></w:r></w:moveTo>'
        f'<w:moveToRangeEnd w:id="{c}"/></w:p>'
    )


def _paragraphs(data: bytes) -> list[etree._Element]:
    return list(part(data, "word/document.xml").iterfind(".//w:body/w:p", NS))


def _text(p: etree._Element) -> str:
    return "".join(t.text or "" for t in p.iter(f"{{{W}}}t"))


def _same(a: list[etree._Element], b: list[etree._Element]) -> bool:
    return [etree.tostring(x, method="c14n") for x in a] == [etree.tostring(x, method="c14n") for x in b]


@pytest.mark.parametrize("reuse_ids", [False, True])
@pytest.mark.parametrize(
    ("rid", "action"), [("11", "accept"), ("13", "reject"), ("11", "reject"), ("13", "accept")]
)
def test_a_shared_move_name_never_widens_a_decision(rid: str, action: str, reuse_ids: bool) -> None:
    second = (10, 21, 12, 23) if reuse_ids else (20, 21, 22, 23)  # hostile: the same range ids
    doc = docx(
        Raw(_move((10, 11, 12, 13), "Opp", "First moved.", "Stays one.", "Here one.")),
        Raw(_move(second, "Other", "Second moved.", "Stays two.", "Here two.")),
    )
    before = _paragraphs(doc)
    out = run(doc, [{"action": action, "revision_id": rid}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    after = _paragraphs(out.output)
    assert len(after) == 4
    assert _same(after[2:], before[2:])  # the other move exactly as it was
    texts = [_text(p) for p in after[:2]]
    assert texts == (
        [" Stays one.", "Here one. First moved."]
        if action == "accept"
        else ["First moved. Stays one.", "Here one. "]
    )
    left = [el.tag for p in after[:2] for el in p.iter() if "move" in str(el.tag)]
    assert left == []  # this move's sides and its four markers gone
    note = " ".join(out.report.edits[0].notes)
    assert "r21" not in note and "r23" not in note
    assert len(out.report.edits[0].locations) == 2


def test_by_author_decides_that_authors_move_only() -> None:
    doc = docx(
        Raw(_move((10, 11, 12, 13), "Opp", "First moved.", "Stays one.", "Here one.")),
        Raw(_move((20, 21, 22, 23), "Other", "Second moved.", "Stays two.", "Here two.")),
    )
    before = _paragraphs(doc)
    out = run(doc, [{"action": "reject", "author": "Opp"}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    after = _paragraphs(out.output)
    assert _same(after[2:], before[2:])
    assert [_text(p) for p in after[:2]] == ["First moved. Stays one.", "Here one. "]


def test_a_shared_name_that_cannot_be_told_apart_is_ambiguous() -> None:
    doc = docx(
        Raw(_move((10, 11, 12, 13), "Opp", "First moved.", "Stays one.", "Here one.")),
        Raw(_move((20, 21, 22, 23), "Opp", "Second moved.", "Stays two.", "Here two.")),
    )
    out = run(doc, [{"action": "reject", "revision_id": "11"}])
    assert codes(out) == ["ambiguous"]
    error = out.report.edits[0].error
    assert error is not None and "'move1'" in error.message
    assert out.output is None or _same(_paragraphs(out.output), _paragraphs(doc))


def test_a_lone_move_is_still_decided_whole() -> None:
    doc = docx(Raw(_move((10, 11, 12, 13), "Opp", "First moved.", "Stays one.", "Here one.")))
    out = run(doc, [{"action": "reject", "revision_id": "13"}])
    assert codes(out) == ["applied"]
    assert out.output is not None
    assert [_text(p) for p in _paragraphs(out.output)] == ["First moved. Stays one.", "Here one. "]
    assert "with the other side of the move (r11)" in " ".join(out.report.edits[0].notes)


# -------------------------------------------------------------------------------------------
# 4. bounded reports


def test_ten_thousand_revisions_sharing_an_id_make_a_small_report() -> None:
    body = "".join(ins(5, "Opp", f"w{k} ") for k in range(10_000))
    doc = docx(P("Start ", Raw(body)))
    out = run(doc, [{"action": "reject", "revision_id": "5"}])
    assert codes(out) == ["ambiguous"]
    error = out.report.edits[0].error
    assert error is not None
    assert len(error.candidates) == MAX_CANDIDATES
    assert error.actual_matches == 10_000
    assert "9,980 more are not" in error.message
    size = len(json.dumps(out.report.to_dict()))
    assert size < 50_000, size


def test_an_author_count_mismatch_lists_a_bounded_set_of_candidates() -> None:
    body = "".join(ins(k, "Opp", f"w{k} ") for k in range(500))
    out = run(docx(P("Start ", Raw(body))), [{"action": "accept", "author": "Opp", "expected_matches": 3}])
    assert codes(out) == ["count_mismatch"]
    error = out.report.edits[0].error
    assert error is not None and len(error.candidates) == MAX_CANDIDATES and error.actual_matches == 500
    assert "480 more are not" in error.message
