"""redline reconcile (issue 34): constructed rounds on generated contracts -- every outcome of
our changes, their tracked changes and comments, every planted untracked change found and none
where none was made -- and the pieces (the rejected reading, the alignment, the memo, the CLI).

The expectations are the construction's (:mod:`testing.rounds`): SENT written by our apply,
RETURNED decided by id and edited by ``apply`` as another author, and untracked changes planted
directly in the XML.  The real-document and LibreOffice rounds are ``test_reconcile_corpus.py``.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.opc.package import Package
from redline.read.annotations import Revision, read_annotations
from redline.read.load import load_view
from redline.read.roles import RevisionKind
from redline.read.view import DocumentView
from redline.reconcile.align import differences
from redline.reconcile.engine import ReconcileOptions, default_author, reconcile
from redline.reconcile.memo import render_memo
from redline.reconcile.pairing import pair_revisions
from redline.reconcile.readings import read_rejected
from testing.contractgen import Kind, generate_contract
from testing.rounds import OUTCOMES, Round, build_round, plant_bold, renumber_revisions

KINDS: tuple[Kind, ...] = ("lease", "nda", "msa")


def _loaded(data: bytes) -> tuple[Package, DocumentView]:
    loaded = load_view(data, trees=True)
    assert isinstance(loaded, tuple)
    return loaded


def _report(rnd: Round, **kw: Any) -> dict[str, Any]:
    return reconcile(rnd.sent, rnd.returned, **kw).to_dict()


def check_round(rnd: Round, d: dict[str, Any]) -> None:
    """The report matches the construction exactly."""
    got = {tuple(sorted(c["ids"])): (c["outcome"], c["tracked"]) for c in d["ours"]}
    want = {tuple(sorted(c.ids)): rnd.outcome_of(c) for c in rnd.changes}
    assert got == want
    assert sorted((u["before"], u["after"]) for u in d["untracked"]) == sorted(rnd.untracked)
    outside = [r for r in d["theirs"]["revisions"] if not r["in_ours"]]
    deleted: dict[int, str] = {}
    for r in outside:  # (a word split across runs is deleted as two revisions)
        if r["kind"] == "delete":
            deleted[r["start"]] = deleted.get(r["start"], "") + r["text"]
    inserted = {r["start"]: r["text"] for r in outside if r["kind"] == "insert"}
    assert sorted((deleted[k], inserted[k]) for k in inserted) == sorted(rnd.their_words)
    assert set(deleted) == set(inserted) and len(inserted) == rnd.their_revisions
    assert {r["author"] for r in d["theirs"]["revisions"]} <= {"Them"}
    inside = [r for r in d["theirs"]["revisions"] if r["in_ours"]]
    tracked = [c for c in rnd.changes if c.outcome == "modified_tracked"]
    assert {tuple(sorted(r["in_ours"])) for r in inside} == {tuple(sorted(c.ids)) for c in tracked}
    comments = d["theirs"]["comments"]
    assert len(comments) == rnd.their_comments
    if any("keeps no comment threads" in w["message"] for w in d["warnings"]):  # (said, not guessed)
        assert not any(c["reply_to_ours"] for c in comments)
    else:
        assert sum(1 for c in comments if c["reply_to_ours"]) == rnd.replies_to_ours
    clean = not rnd.untracked and not any(c.outcome == "modified_untracked" for c in rnd.changes)
    assert (d["totals"]["untracked"] + d["totals"]["modified_untracked"] == 0) == clean
    for c in d["ours"]:
        if c["outcome"] == "modified" and c["tracked"] is False:
            assert "echo" in (c["after"] or "") and "bravo" in (c["before"] or "")


@pytest.mark.parametrize("seed", range(9))
def test_a_constructed_round_is_reported_exactly(seed: int) -> None:
    doc = generate_contract(KINDS[seed % 3], seed=seed)
    rnd = build_round(doc, random.Random(seed), renumber=seed % 2 == 1)
    check_round(rnd, _report(rnd))


@pytest.mark.parametrize("renumber", [False, True], ids=["ids kept", "ids renumbered"])
def test_every_outcome_in_one_round(renumber: bool) -> None:
    rnd = build_round(
        generate_contract("lease", seed=3), random.Random(5), changes=9, outcomes=[*OUTCOMES, *OUTCOMES],
        renumber=renumber,
    )  # fmt: skip
    d = _report(rnd)
    check_round(rnd, d)
    assert {c["outcome"] for c in d["ours"]} == {"accepted", "rejected", "pending", "modified"}
    assert {c["paired"] for c in d["ours"] if c["outcome"] == "pending"} == {"text" if renumber else "id"}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    outcomes=st.lists(st.sampled_from(OUTCOMES), min_size=6, max_size=6),
    untracked=st.integers(0, 3),
    renumber=st.booleans(),
)
def test_random_rounds_match_their_construction(
    seed: int, outcomes: list[str], untracked: int, renumber: bool
) -> None:
    doc = generate_contract(KINDS[seed % 3], seed=seed % 50)
    rnd = build_round(doc, random.Random(seed), outcomes=outcomes, untracked=untracked, renumber=renumber)
    check_round(rnd, _report(rnd))


def test_a_rejected_new_last_paragraph_is_rejected() -> None:
    """Found by the property test (seed 75): our new clause after the body's last paragraph,
    rejected, leaves that paragraph empty -- its mark, the body's last, cannot go (Word,
    LibreOffice and our own decisions keep it) -- and reads as rejected, not modified."""
    outcomes = ["accepted"] * 5 + ["rejected"]
    rnd = build_round(generate_contract("lease", seed=25), random.Random(75), outcomes=outcomes, untracked=0)
    last = rnd.changes[-1]
    assert last.kind == "insert" and last.outcome == "rejected"
    package, view = _loaded(rnd.sent)
    body = [p for p in view.paragraphs if p.story == "body"]
    assert last.paragraph == body[-1].index  # (the case: the body's last paragraph)
    check_round(rnd, _report(rnd))
    revisions = [r for r in read_annotations(package, view).revisions if r.id in last.ids]
    reading = read_rejected(view, revisions)
    assert reading.text == view.text[: body[-1].start] + view.text[body[-1].end :]  # emptied, kept


def test_the_same_word_deleted_twice_is_two_changes() -> None:
    """Found by the property test (seed 8099): two deletions of "only" in different clauses, one
    left pending and one accepted; the construction told them apart by the words around them."""
    outcomes = ["rejected", "pending", "modified_tracked", "modified_tracked", "accepted", "accepted"]
    rnd = build_round(
        generate_contract(KINDS[8099 % 3], seed=8099 % 50), random.Random(8099), outcomes=outcomes,
        untracked=2, renumber=True,
    )  # fmt: skip
    deletions = [c for c in rnd.changes if c.kind == "delete"]
    assert len({c.marker for c in deletions}) < len(deletions)  # (the case: one word, twice)
    assert len({tuple(c.ids) for c in deletions}) == len(deletions)
    check_round(rnd, _report(rnd))


def test_planted_changes_go_to_different_paragraphs() -> None:
    """Found by the property test (seed 1577): two words planted in one ``w:t`` (the paragraphs
    told apart by ``id()`` of lxml proxies, which is no identity), the second at a stale offset
    ("shallplanted2n"); planted by paragraph position, each lands in a paragraph of its own."""
    outcomes = ["accepted", "rejected", "pending", "modified_tracked", "modified_untracked", "pending"]
    doc = generate_contract(KINDS[1577 % 3], seed=1577 % 50)
    rnd = build_round(doc, random.Random(1577), outcomes=outcomes, untracked=3)
    d = _report(rnd)
    assert len({u["paragraph"] for u in d["untracked"]}) == len(rnd.untracked) == 3
    assert all(re.fullmatch(r"planted\d", u["after"]) for u in d["untracked"])
    check_round(rnd, d)


def test_a_word_changed_next_to_an_accepted_deletion_is_untracked_not_a_modification() -> None:
    """Found by the property test (seed 5231): "senior executives", our deletion of
    "executives" accepted and "senior" then changed untracked -- an untracked change beside
    our deletion, which is still accepted (it read "modified", with nothing before or after)."""
    outcomes = ["rejected", "modified_tracked"] * 3
    doc = generate_contract(KINDS[5231 % 3], seed=5231 % 50)
    rnd = build_round(doc, random.Random(5231), outcomes=outcomes, untracked=3)
    d = _report(rnd)
    deletion = next(c for c in d["ours"] if c["kind"] == "delete" and c["deleted"].strip() == "executives")
    assert deletion["outcome"] == "accepted"
    assert ("senior", "planted1") in rnd.untracked  # (the case: the word before it)
    check_round(rnd, d)


def _sent(seed: int = 1) -> bytes:
    return build_round(generate_contract("lease", seed=seed), random.Random(seed), untracked=0).sent


def test_sent_returned_untouched_is_all_pending_and_clean() -> None:
    sent = _sent()
    report = reconcile(sent, sent)
    d = report.to_dict()
    assert d["ours"] and {c["outcome"] for c in d["ours"]} == {"pending"}
    assert d["untracked"] == [] and d["theirs"] == {"revisions": [], "comments": []}
    assert report.exit_code == 0


def test_only_tracked_changes_of_theirs_are_no_untracked_change() -> None:
    sent = _sent(2)
    _, view = _loaded(sent)
    words = [w for w in view.text.split() if w.isalpha() and len(w) > 6 and view.text.count(w) == 1][:3]
    edits = [{"anchor": w, "replacement": w.upper() + " tracked"} for w in words]
    out = apply_reply(sent, json.dumps(edits), ApplyOptions(author="Them", comments=False))
    assert out.output is not None
    report = reconcile(sent, out.output)
    assert report.untracked == [] and report.exit_code == 0
    assert len(report.their_revisions) >= len(words)
    assert renumber_revisions(out.output) != out.output
    assert reconcile(sent, renumber_revisions(out.output)).untracked == []


def test_a_planted_formatting_change_is_untracked_format() -> None:
    sent = _sent(3)
    returned, text = plant_bold(sent, {"alpha", "Our new clause"})
    d = reconcile(sent, returned).to_dict()
    assert [(u["kind"], u["before"], u["properties"]) for u in d["untracked"]] == [("format", text, ["b"])]
    assert reconcile(sent, returned).exit_code == 1


def test_default_author_is_the_author_of_the_latest_changes() -> None:
    sent = _sent()
    package, view = _loaded(sent)
    assert default_author(read_annotations(package, view)) == "Us"
    d = reconcile(sent, sent, ReconcileOptions(author="Nobody")).to_dict()
    assert d["ours"] == [] and d["author"] == "Nobody"


def test_rejecting_every_change_of_sent_reads_the_original() -> None:
    for seed in range(4):
        doc = generate_contract(KINDS[seed % 3], seed=seed)
        sent = build_round(doc, random.Random(seed), untracked=0).sent
        package, view = _loaded(sent)
        reading = read_rejected(view, read_annotations(package, view).revisions)
        _, original = _loaded(doc)
        assert reading.text == original.text
        assert read_rejected(view, []).text == view.text
        for k in range(0, len(reading.text), 97):  # every kept character maps back to itself
            if not reading.put_back(k, k + 1):
                assert view.text[reading.source(k)] == reading.text[k]


def test_differences_are_word_level_offsets_into_both() -> None:
    a = "The Tenant shall pay rent.\nSecond clause stays.\nThird one."
    b = "The Tenant may pay the rent.\nSecond clause stays.\nA new one.\nThird one."
    for d in differences(a, b):
        assert a[d.a_start : d.a_end] != b[d.b_start : d.b_end]
    got = [(a[d.a_start : d.a_end], b[d.b_start : d.b_end]) for d in differences(a, b)]
    assert ("shall", "may") in got and ("", " the") in got
    assert any("A new one." in after for _, after in got)
    assert differences(a, a) == []


def test_a_refused_document_is_refused() -> None:
    report = reconcile(b"not a zip", _sent())
    assert report.error is not None and report.exit_code == 3 and "sent.docx" in report.error.message


def test_the_memo_is_by_clause_with_every_kind_of_entry() -> None:
    rnd = build_round(generate_contract("lease", seed=4), random.Random(4), outcomes=[*OUTCOMES, "accepted"])
    memo = render_memo(_report(rnd))
    assert memo.startswith("# Round:")
    for words in ("accepted", "rejected", "still open", "without tracking", "Untracked", "commented", "## "):
        assert words in memo, words
    for before, after in rnd.untracked:
        assert before in memo and after in memo


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redline", "reconcile", *args], capture_output=True, text=True, check=False
    )


def test_the_command_writes_report_and_memo_and_says_by_its_exit_code(tmp_path: Path) -> None:
    rnd = build_round(generate_contract("nda", seed=2), random.Random(2))
    sent, returned = tmp_path / "lease.sent.docx", tmp_path / "lease.returned.docx"
    sent.write_bytes(rnd.sent)
    returned.write_bytes(rnd.returned)
    done = _run(
        str(sent),
        str(returned),
        "--json",
        "--report",
        str(tmp_path / "r.json"),
        "--memo",
        str(tmp_path / "m.md"),
    )
    assert done.returncode == 1, done.stderr
    d = json.loads(done.stdout)
    assert set(d) >= {"sent", "returned", "ours", "theirs", "untracked", "warnings", "totals"}
    assert set(d["ours"][0]) >= {
        "ids",
        "kind",
        "text",
        "paragraph",
        "label",
        "section",
        "outcome",
        "before",
        "after",
    }
    assert set(d["untracked"][0]) >= {"paragraph", "label", "section", "before", "after"}
    assert json.loads((tmp_path / "r.json").read_text()) == d
    assert (tmp_path / "m.md").read_text().startswith("# Round:")
    clean = _run(str(sent), str(sent))
    assert clean.returncode == 0 and clean.stdout.startswith("# Round:")
    assert _run(str(sent)).returncode == 2
    (tmp_path / "bad.docx").write_bytes(b"junk")
    refused = _run(str(sent), str(tmp_path / "bad.docx"))
    assert refused.returncode == 3 and "refused" in refused.stderr
    assert _run(str(sent), str(returned), "--report", str(sent)).returncode == 3  # never over an input
    assert sent.read_bytes() == rnd.sent and returned.read_bytes() == rnd.returned


def test_the_memo_goes_in_document_order() -> None:
    """Clauses by where their first paragraph is, whatever kind of entry they hold first."""
    d = reconcile(_sent(), _sent()).to_dict()
    d["ours"] = [{**d["ours"][0], "paragraph": 60, "label": "9.8", "section": "9.8 Late"}]
    d["theirs"]["comments"] = [{"author": "Them", "text": "Early.", "paragraph": 3, "label": "1.1",
                                "section": "1.1 Early", "reply_to_ours": False}]  # fmt: skip
    d["untracked"] = [{"kind": "text", "paragraph": 30, "label": "5.1", "section": "5.1 Middle",
                       "before": "a", "after": "b"}]  # fmt: skip
    heads = [line for line in render_memo(d).splitlines() if line.startswith("## ")]
    assert heads == ["## 1.1 Early", "## 5.1 Middle", "## 9.8 Late"]


def _deletion(rid: str, text: str, at: int, author: str = "Us") -> Revision:
    return Revision(rid, RevisionKind.DELETE, author, None, text, 0, "word/document.xml", at, at)


def test_renumbered_revisions_of_one_text_pair_with_the_nearest() -> None:
    """Found on the 300-page benchmark pair: a long contract repeats itself, and "least "
    deleted in two clauses, one rejected (gone) and one left open (renumbered), paired the open
    one's revision with the rejected one -- by text, the first in order."""
    clause = "The Supplier shall use at reasonable efforts. "  # (the view: deleted text is not in it)
    sent_text = clause * 200
    at_a, at_b = sent_text.index("reasonable"), sent_text.index("reasonable", 5000)
    sent = [_deletion("1", "least ", at_a), _deletion("2", "least ", at_b)]
    returned_text = sent_text[:at_a] + "least " + sent_text[at_a:]  # (the first rejected: back)
    returned = [_deletion("5002", "least ", at_b + len("least "))]
    pairs = pair_revisions(sent, returned, sent_text, returned_text)
    assert pairs.to_returned == {1: [0]} and pairs.how == {1: "text"}
    far = [_deletion("9", "least ", at_b + 3000)]  # (a deletion of that text far away: not it)
    assert pair_revisions(sent, far, sent_text, sent_text).to_returned == {}


def test_whitespace_alone_is_layout_not_an_untracked_change() -> None:
    """A re-save rewrites spacing (a space doubled, an empty paragraph added): no change of the
    text; a word changed beside it still is."""
    from lxml import etree

    from testing.rounds import W, rewrite_part

    sent = _sent(4)

    def spaced(word: bool) -> Callable[[bytes], bytes]:
        def change(xml: bytes) -> bytes:
            root = etree.fromstring(xml)
            body = root.find(f"{{{W}}}body")
            assert body is not None
            first = next(t for t in body.iter(f"{{{W}}}t") if " the " in (t.text or ""))
            first.text = (first.text or "").replace(" the ", "  the " if not word else "  thy ", 1)
            body.insert(0, etree.Element(f"{{{W}}}p"))  # (an empty paragraph)
            return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)

        return change

    d = reconcile(sent, rewrite_part(sent, "word/document.xml", spaced(False))).to_dict()
    assert d["untracked"] == [] and {c["outcome"] for c in d["ours"]} == {"pending"}
    d = reconcile(sent, rewrite_part(sent, "word/document.xml", spaced(True))).to_dict()
    assert [u["after"].strip() for u in d["untracked"]] == ["thy"]
