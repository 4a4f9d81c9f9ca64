"""A run split while it carries another author's pending change keeps one id per record
(issue 30, "one id on two elements"): our writer's copy of a ``w:rPrChange`` (or a mark's, or
numbering's ``w:ins``) takes an id of its own, so deciding by id works on our output, and
deciding by author still decides every piece -- as Word gives it (:mod:`tests.word_decide`).
Files whose pieces share an id (what we wrote before, and what other tools write) are decided
together by that id when they are plainly one change: same author, date and old properties,
nothing but added text between them.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.apply import ApplyOptions, apply_reply
from redline.compare import CompareOptions, compare
from redline_cli.redline import main
from testing.docbuild import P, Raw, docx
from tests import word_decide
from tests.test_their_redlines import annotated, in_xml, python_docx_opens

OPTIONS = ApplyOptions(author="Us", date="2026-12-01T00:00:00Z")
READER = ApplyOptions(author="Reader", date="2026-12-02T00:00:00Z")  # decides both sides' changes
THEM = 'w:author="Them" w:date="2026-11-01T00:00:00Z"'
TEXT = "shall pay the rent monthly"


def formatted(text: str = TEXT, rid: int = 50, old: str = "<w:rPr/>") -> str:
    """A run made bold by Them, recorded (``w:rPrChange`` ``rid``)."""
    return (
        f'<w:r><w:rPr><w:b/><w:rPrChange w:id="{rid}" {THEM}>{old}</w:rPrChange></w:rPr>'
        f'<w:t xml:space="preserve">{text}</w:t></w:r>'
    )


def theirs() -> bytes:
    return docx(P("The Tenant ", Raw(formatted()), " in advance."), P("Second paragraph."))


def marked() -> bytes:
    """A paragraph whose mark Them made bold and whose numbering Them inserted (both recorded)."""
    ppr = (
        f'<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/><w:ins w:id="60" {THEM}/></w:numPr>'
        f'<w:rPr><w:b/><w:rPrChange w:id="61" {THEM}><w:rPr/></w:rPrChange></w:rPr>'
    )
    return docx(P("The Tenant ", Raw(formatted()), " in advance.", ppr=ppr), P("Second paragraph."))


def ids_in(data: bytes) -> Counter[str]:
    return Counter(rid or "" for _part, _tag, rid, _ in word_decide.revisions(data))


def apply(data: bytes, *entries: dict[str, object], options: ApplyOptions = OPTIONS) -> bytes:
    out = apply_reply(data, json.dumps({"edits": list(entries)}), options)
    assert [e.status.value for e in out.report.edits] == ["applied"] * len(entries), [
        (e.status.value, e.error) for e in out.report.edits
    ]
    assert out.output is not None
    return out.output


def same_as_word(data: bytes, entries: list[dict[str, object]], verdict: word_decide.Verdict) -> bytes:
    out = apply(data, *entries, options=READER)
    expected = word_decide.decide(data, verdict)
    assert word_decide.reading(out) == word_decide.reading(expected)
    assert in_xml(out) == in_xml(expected)
    python_docx_opens(out)
    return out


def every_way(data: bytes) -> None:
    """Every id unique; every listed id decided by id, and every author by author, as Word does."""
    count = ids_in(data)
    assert all(n == 1 for n in count.values()), count
    found = annotated(data)
    assert Counter(r.id for r in found.revisions) == count  # the view lists each record once
    ids = list(dict.fromkeys(r.id for r in found.revisions))
    for accept in (True, False):
        verb = "accept" if accept else "reject"

        def every(el: etree._Element, accept: bool = accept) -> bool:
            return accept

        def theirs_only(el: etree._Element, accept: bool = accept) -> bool:
            return accept if el.get(word_decide.w("author")) == "Them" else False

        same_as_word(data, [{"action": verb, "revision_id": i} for i in ids], every)
        same_as_word(
            data, [{"action": "reject", "author": "Us"}, {"action": verb, "author": "Them"}], theirs_only
        )


# -------------------------------------------------------------------------------------------
# our writer: a copied record takes an id of its own


@pytest.mark.parametrize(
    "anchor, replacement",
    [
        ("pay the", "remit the"),  # both ends inside the run
        ("the rent monthly in", "the rent quarterly in"),  # begins inside, ends after
        ("Tenant shall", "Lessee must"),  # begins before, ends inside
        ("rent", "rent\nand the service charge"),  # a paragraph break inside the run
    ],
)
def test_a_replacement_inside_their_formatted_run_gives_every_piece_its_own_id(
    anchor: str, replacement: str
) -> None:
    out = apply(theirs(), {"action": "replace", "anchor": anchor, "replacement": replacement})
    changes = [r for r in annotated(out).revisions if r.author == "Them"]
    assert len(changes) >= 2 and "50" in {r.id for r in changes}  # the first piece keeps its id
    assert {r.date for r in changes} == {"2026-11-01T00:00:00Z"}
    every_way(out)


def test_the_views_json_lists_each_piece_once_with_its_own_id(tmp_path: Path) -> None:
    out = apply(theirs(), {"action": "replace", "anchor": "pay the", "replacement": "remit the"})
    doc = tmp_path / "out.docx"
    doc.write_bytes(out)
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        assert main(["view", str(doc), "--json"]) == 0
    listed = json.loads(shown.getvalue())["revisions"]
    ids = [r["id"] for r in listed]
    assert len(ids) == len(set(ids)), ids
    pieces = [r for r in listed if r["author"] == "Them"]
    assert [r["kind"] for r in pieces] == ["format"] * 3 and pieces[0]["id"] == "50"
    assert "".join(r["text"] for r in pieces) == "shall pay the rent monthly"


def test_deciding_the_original_id_decides_its_piece_and_the_author_decides_all() -> None:
    out = apply(theirs(), {"action": "replace", "anchor": "pay the", "replacement": "remit the"})
    one = apply_reply(out, json.dumps([{"action": "reject", "revision_id": "50"}]), READER)
    assert one.report.edits[0].status.value == "applied" and one.output is not None
    left = [r for r in annotated(one.output).revisions if r.author == "Them"]
    assert left and "50" not in {r.id for r in left}
    everything = apply(
        out, {"action": "reject", "author": "Them"}, {"action": "reject", "author": "Us"}, options=READER
    )
    assert word_decide.reading(everything) == word_decide.reading(word_decide.reject_all(theirs()))


def test_a_paragraph_break_copies_the_marks_records_with_ids_of_their_own() -> None:
    out = apply(marked(), {"action": "replace", "anchor": "rent", "replacement": "rent\nand the charge"})
    tags = Counter((tag, author) for _part, tag, _rid, author in word_decide.revisions(out))
    assert tags[("rPrChange", "Them")] == 4  # the run's two pieces and the two marks
    every_way(out)


def test_a_paragraph_break_keeps_their_property_change_on_both_halves() -> None:
    """Them centred the paragraph (``w:pPrChange``, the old properties: left); our edit breaks
    it in two.  Both halves are Them's centred paragraph: rejecting Them's change puts both
    back to the old properties, accepting keeps both centred -- whatever is done with ours."""
    ppr = (
        f'<w:jc w:val="center"/><w:pPrChange w:id="70" {THEM}>'
        '<w:pPr><w:jc w:val="left"/></w:pPr></w:pPrChange>'
    )
    data = docx(P("The Tenant shall pay the rent monthly in advance.", ppr=ppr), P("Second paragraph."))
    out = apply(data, {"action": "replace", "anchor": "rent", "replacement": "rent\nand the charge"})
    tags = Counter((tag, author) for _part, tag, _rid, author in word_decide.revisions(out))
    assert tags[("pPrChange", "Them")] == 2  # one on each half, each with an id of its own
    every_way(out)
    left, centred = '<w:jc w:val="left"/>', '<w:jc w:val="center"/>'
    for ours in (True, False):
        for them, jc in ((False, left), (True, centred)):
            decided = word_decide.by_authors(out, {"Us": ours, "Them": them})
            paras = word_decide.reading(decided)["word/document.xml"]
            body = [props for props, runs in paras if "Second" not in "".join(t for t, _ in runs)]
            assert len(body) == (2 if ours else 1)
            assert all(jc in props for props in body), (ours, them, body)


def test_a_new_paragraph_after_theirs_takes_none_of_their_records() -> None:
    out = apply(marked(), {"action": "insert_after", "anchor": "in advance.", "replacement": "New clause."})
    assert ids_in(out)["60"] == 1 and ids_in(out)["61"] == 1
    new = [r for r in annotated(out).revisions if "New clause" in r.text]
    assert new and {r.author for r in new} == {"Us"}
    every_way(out)


def test_a_format_entry_on_their_pending_formatting_is_refused_not_split() -> None:
    out = apply_reply(
        theirs(),
        json.dumps([{"action": "format", "anchor": "the rent", "format": {"italic": True}}]),
        OPTIONS,
    )
    assert out.report.edits[0].status.value == "unsupported"


def test_deleting_a_simple_field_whose_result_they_formatted() -> None:
    """The field is unfolded into runs (a deletion holds runs): each copy of its result's
    properties, their w:rPrChange with it, takes an id of its own."""
    field = (
        f'<w:fldSimple w:instr=" PAGE "><w:r><w:rPr><w:b/><w:rPrChange w:id="80" {THEM}><w:rPr/>'
        "</w:rPrChange></w:rPr><w:t>12</w:t></w:r></w:fldSimple>"
    )
    data = docx(P("See ", Raw(field), " for details, as agreed."), P("Next."))
    out = apply(data, {"action": "replace", "anchor": "See 12 for", "replacement": "See"})
    every_way(out)


def test_compare_writing_inside_their_formatted_run() -> None:
    new = docx(P("The Tenant shall remit the rent monthly in advance."), P("Second paragraph."))
    out = compare(theirs(), new, CompareOptions(author="Us", date="2026-12-01T00:00:00Z")).output
    assert out is not None
    count = ids_in(out)
    assert all(n == 1 for n in count.values()), count


def test_compare_moving_a_paragraph_that_holds_their_formatting() -> None:
    """A moved paragraph's copy (the destination) and the source's pieces: one id a record."""
    a = "The Landlord shall keep the structure of the building in good repair at all times."
    b = "The Tenant shall insure the premises against fire and other usual risks with an insurer."
    c = "Either party may end this lease by giving the other not less than six months notice."
    tail = " in advance of each quarter day without deduction."
    old = docx(P("The Tenant ", Raw(formatted()), tail), P(a), P(b), P(c))
    new = docx(P(a), P(b), P(c), P("The Tenant shall pay the rent quarterly" + tail))
    outcome = compare(old, new, CompareOptions(author="Us", date="2026-12-01T00:00:00Z"))
    assert outcome.output is not None
    assert any(c["kind"] == "move" for c in outcome.report.to_dict()["changes"])
    count = ids_in(outcome.output)
    assert count["50"] == 1 and all(n == 1 for n in count.values()), count


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(TEXT) - 1), st.integers(1, 8), st.sampled_from(["X", "", "new words", "a\nb"]))
def test_property_any_replacement_inside_their_run_leaves_ids_unique(lo: int, size: int, new: str) -> None:
    data = docx(P("The Tenant ", Raw(formatted()), " in advance."), P("Second paragraph."))
    old = (TEXT + " in advance.")[lo : lo + size]
    if not old.strip() or (TEXT + " in advance.").count(old) != 1 or old.strip() != old:
        return
    out = apply_reply(data, json.dumps([{"action": "replace", "anchor": old, "replacement": new}]), OPTIONS)
    if out.output is None or out.report.edits[0].status.value != "applied":
        return
    count = ids_in(out.output)
    assert all(n == 1 for n in count.values()), count


# -------------------------------------------------------------------------------------------
# files whose pieces share the id: one change when they plainly are


def split_by_a_tool(between: str, old2: str = "<w:rPr/>", date2: str = "2026-11-01T00:00:00Z") -> bytes:
    """Their formatted run in two pieces, one id (what our writer wrote before, and other tools
    write), with ``between`` between them."""
    second = formatted(" the rent monthly", old=old2).replace("2026-11-01T00:00:00Z", date2)
    return docx(P("The Tenant ", Raw(formatted("shall pay")), Raw(between), Raw(second), " in advance."))


ADDED = '<w:ins w:id="70" w:author="Us" w:date="2026-12-01T00:00:00Z"><w:r><w:t>ly</w:t></w:r></w:ins>'


@pytest.mark.parametrize("between", ["", ADDED], ids=["adjacent", "our-insertion-between"])
@pytest.mark.parametrize("accept", [True, False], ids=["accept", "reject"])
def test_one_id_on_the_pieces_of_one_run_is_one_change(between: str, accept: bool) -> None:
    data = split_by_a_tool(between)
    verb = "accept" if accept else "reject"
    out = apply_reply(data, json.dumps([{"action": verb, "revision_id": "50"}]), OPTIONS)
    edit = out.report.edits[0]
    assert edit.status.value == "applied", edit.error
    assert "decided together" in " ".join(edit.notes)
    assert out.output is not None
    expected = word_decide.by_ids(data, {"50": accept})
    assert word_decide.reading(out.output) == word_decide.reading(expected)
    assert in_xml(out.output) == in_xml(expected)


@pytest.mark.parametrize(
    "data",
    [
        split_by_a_tool("", old2="<w:rPr><w:i/></w:rPr>"),  # other old properties
        split_by_a_tool("", date2="2026-11-02T00:00:00Z"),  # another date
        split_by_a_tool("<w:r><w:t>kept</w:t></w:r>"),  # kept text between them
    ],
    ids=["old-properties", "date", "kept-text"],
)
def test_one_id_on_unrelated_formatting_changes_stays_ambiguous(data: bytes) -> None:
    out = apply_reply(data, json.dumps([{"action": "accept", "revision_id": "50"}]), OPTIONS)
    assert out.report.edits[0].status.value == "ambiguous"
    by_author = apply_reply(data, json.dumps([{"action": "accept", "author": "Them"}]), OPTIONS)
    assert by_author.report.edits[0].status.value == "applied"


@pytest.mark.slow
def test_libreoffice_decides_our_output_as_word_does(tmp_path: Path) -> None:
    """LibreOffice's accept-all and reject-all of our output (over UNO: text and character
    attributes per portion) read as its reading of Word's result (:mod:`tests.word_decide`)."""
    from tests.libreoffice import uno_readings

    outs = [
        apply(theirs(), {"action": "replace", "anchor": "pay the", "replacement": "remit the"}),
        apply(marked(), {"action": "replace", "anchor": "rent", "replacement": "rent\nand the charge"}),
    ]
    jobs: list[tuple[str, bytes]] = []
    for out in outs:
        jobs += [("accept", out), ("none", word_decide.accept_all(out))]
    # (rejecting: not the first, whose middle piece lies in our deletion -- LibreOffice keeps
    # one change a range and loses a format change inside a deletion: "pay" stays bold, the
    # same before and after this fix)
    jobs += [("reject", outs[1]), ("none", word_decide.reject_all(outs[1]))]
    try:
        found = uno_readings(jobs, tmp_path)
    except FileNotFoundError:
        pytest.skip("LibreOffice's uno is not installed")
    for k in range(0, len(found), 2):
        ours, words = found[k], found[k + 1]
        assert ours is not None and words is not None
        assert _joined(ours["blocks"]) == _joined(words["blocks"]), k


def _joined(blocks: list[dict[str, Any]]) -> list[tuple[str, list[list[Any]]]]:
    """Paragraphs with adjacent portions of the same attributes joined (where a rejected
    paragraph break leaves LibreOffice's portions is no difference)."""
    out = []
    for block in blocks:
        portions: list[list[Any]] = []
        for text, *attrs in block.get("portions", []):
            if portions and portions[-1][1:] == attrs:
                portions[-1][0] += text
            else:
                portions.append([text, *attrs])
        out.append((block.get("text", ""), portions))
    return out
