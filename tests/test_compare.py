"""redline compare: OLD with NEW's differences as tracked changes.

Judged by pandoc: rejecting every change of OUT reads as OLD, accepting every one as NEW -- on
generated documents, on random paragraph edits (hypothesis), and on every corpus document
against a copy edited with ``redline apply --no-track``; untouched zip members byte for byte.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.compare.diff import CompareOptions, compare
from redline.read.load import load_view
from redline_cli.redline import main
from testing.docbuild import B, P, Table, docx
from tests.oracles import check_compare
from tests.support import members

DATE = "2020-01-01T00:00:00Z"


def test_words_and_paragraphs(pandoc: str) -> None:
    old = docx(
        P("The Tenant shall pay ", B("rent"), " monthly."),
        P("Second paragraph here."),
        P("Third one stays."),
        P("Fourth goes away entirely."),
    )
    new = docx(
        P("Intro paragraph new."),
        P("The Tenant shall pay all ", B("rent"), " quarterly."),
        P("Third one stays."),
        P("A brand new one."),
        P("And another."),
    )
    outcome = compare(old, new, CompareOptions(author="Counsel", date=DATE))
    assert outcome.exit_code == 0 and outcome.output is not None
    check_compare(pandoc, old, new, outcome.output)
    kinds = [(c.kind, c.old, c.new) for c in outcome.report.changes]
    assert ("replace", "monthly", "quarterly") in kinds and ("insert", "", "all ") in kinds
    xml = members(outcome.output)["word/document.xml"].decode()
    assert 'w:author="Counsel"' in xml and f'w:date="{DATE}"' in xml
    assert "<w:b/>" in xml  # the bold run is kept
    members_old, members_out = members(old), members(outcome.output)
    assert list(members_old) == list(members_out)
    assert all(members_old[n] == members_out[n] for n in members_old if n != "word/document.xml")


def test_one_word_is_one_revision_and_identical_is_untouched() -> None:
    old = docx(P("Payment is due within thirty days of the invoice."), P("Other."))
    new = docx(P("Payment is due within sixty days of the invoice."), P("Other."))
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert [(c.kind, c.old, c.new) for c in outcome.report.changes] == [("replace", "thirty", "sixty")]
    xml = members(outcome.output or b"")["word/document.xml"].decode()
    assert xml.count("<w:ins ") == 1 and xml.count("<w:del ") == 1
    same = compare(old, old)
    assert same.report.changes == [] and same.output == old  # nothing to change: OLD's very bytes


def test_exact_characters_are_changes(pandoc: str) -> None:
    """Quotes and spaces NEW changed are written as NEW has them (no quote convention applied)."""
    old = docx(P('The "Premises" are  leased.'))
    new = docx(P("The \u201cPremises\u201d are leased."))
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert outcome.report.changes
    check_compare(pandoc, old, new, outcome.output or b"")


def test_table_cells(pandoc: str) -> None:
    old = docx(P("Before."), Table([["Rent", "100"], ["Term", "12 months"]]), P("After."))
    new = docx(P("Before."), Table([["Rent", "120"], ["Term", "24 months"]]), P("After."))
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert [c.new for c in outcome.report.changes] == ["120", "24"]
    check_compare(pandoc, old, new, outcome.output or b"")


_WORDS = st.sampled_from(
    ["rent", "Tenant", "shall", "pay", "the", "Landlord", "within", "days", "10", "notice"]
)
_PARA = st.lists(_WORDS, min_size=1, max_size=8).map(" ".join)


@st.composite
def _edited(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    old = draw(st.lists(_PARA, min_size=1, max_size=6))
    new = list(old)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "word"]))
        at = draw(st.integers(0, max(0, len(new) - 1)))
        if op == "insert":
            new.insert(draw(st.integers(0, len(new))), draw(_PARA))
        elif op == "delete" and len(new) > 1:
            del new[at]
        elif op == "replace":
            new[at] = draw(_PARA)
        elif new:
            words = new[at].split()
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(_WORDS) + draw(st.sampled_from(["", ",", "s"]))
            new[at] = " ".join(words)
    return old, new


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edited())
def test_property_accept_is_new_and_reject_is_old(pandoc: str, docs: tuple[list[str], list[str]]) -> None:
    old_paras, new_paras = docs
    old, new = docx(*[P(t) for t in old_paras]), docx(*[P(t) for t in new_paras])
    outcome = compare(old, new, CompareOptions(date=DATE))
    assert outcome.exit_code == 0 and outcome.output is not None
    check_compare(pandoc, old, new, outcome.output)
    loaded = load_view(outcome.output)
    assert isinstance(loaded, tuple)
    assert loaded[1].text == "\n".join(new_paras)  # our own reader: the view reads accepted


@pytest.mark.slow
def test_corpus_against_untracked_edits(corpus_dir: Path, pandoc: str) -> None:
    compared = 0
    for path in sorted(corpus_dir.glob("*.docx")):
        data = path.read_bytes()
        loaded = load_view(data)
        if not isinstance(loaded, tuple):
            continue
        _, view = loaded
        rnd = random.Random(path.name)
        paras = [p for p in view.paragraphs if p.story == "body" and len(view.paragraph_text(p).split()) > 6]
        edits = []
        for p in rnd.sample(paras, min(3, len(paras))):
            words = view.paragraph_text(p).split()
            k = rnd.randrange(1, len(words) - 3)
            anchor = " ".join(words[k : k + 3])
            edits.append(
                {"anchor": anchor, "replacement": f"{words[k]} CHANGED {words[k + 2]}",
                 "expected_matches": view.text.count(anchor)}
            )  # fmt: skip
        edited = apply_reply(data, json.dumps(edits), ApplyOptions(track=False, comments=False))
        if edited.output is None or not any(e.status.value == "applied" for e in edited.report.edits):
            continue
        new = edited.output
        outcome = compare(data, new, CompareOptions(date=DATE))
        assert outcome.output is not None, (path.name, outcome.report.error)
        assert outcome.exit_code == 0, path.name
        check_compare(pandoc, data, new, outcome.output)
        # a one-word change is a one-word revision
        assert all(c.new in ("CHANGED", "") or "CHANGED" in c.new for c in outcome.report.changes), path.name
        a, b = members(data), members(outcome.output)
        assert list(a) == list(b)
        assert sum(a[n] != b[n] for n in a) == 1, path.name  # only the body changed
        compared += 1
    assert compared >= 25


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new, bad = tmp_path / "old.docx", tmp_path / "new.docx", tmp_path / "bad.docx"
    old.write_bytes(docx(P("Rent is ten dollars.")))
    new.write_bytes(docx(P("Rent is twelve dollars.")))
    bad.write_bytes(b"PK\x03\x04 not really")
    before = old.read_bytes()
    out = tmp_path / "out.docx"
    assert main(["compare", str(old), str(new), "-o", str(out), "--report", "-", "--date", DATE]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["totals"]["written"] == 1 and report["changes"][0]["new"] == "twelve"
    assert out.is_file() and old.read_bytes() == before
    # refused: an unreadable input (3, nothing written), the output over an input (3), a bad date (2)
    out2 = tmp_path / "out2.docx"
    assert main(["compare", str(old), str(bad), "-o", str(out2)]) == 3
    assert not out2.exists()
    assert "refused" in capsys.readouterr().err
    assert main(["compare", str(old), str(new), "-o", str(new)]) == 3
    assert new.read_bytes() == docx(P("Rent is twelve dollars."))
    assert main(["compare", str(old), str(new), "-o", str(out2), "--date", "yesterday"]) == 2
    assert main(["compare", str(old)]) == 2
    assert main(["compare", str(old), str(tmp_path / "missing.docx"), "-o", str(out2)]) == 3
    assert main(["compare", str(old), str(new), "-o", str(tmp_path / "no" / "x.docx")]) == 3
    assert not out2.exists()
