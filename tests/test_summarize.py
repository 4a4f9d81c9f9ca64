"""The summary flow: every quote checked with the same locator and the same result types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import redline.match.verify
import summarize.check
from redline.match.locate import Locator
from redline.opc.package import Package
from redline.read.build import build_view
from redline_cli.summarize import main as summarize_main
from shared_schema import EditResult, Location, QuoteCheck, Refusal
from shared_schema.records import ResultRecord
from summarize.check import check, check_reply
from summarize.render import to_markdown
from tests import support


@pytest.fixture(scope="module")
def lease() -> bytes:  # not conftest's: seed 3
    return support.lease(seed=3)


@pytest.fixture(scope="module")
def view(lease: bytes):  # type: ignore[no-untyped-def]
    return build_view(Package.from_bytes(lease))


def _passage(view, words: int = 9) -> str:  # type: ignore[no-untyped-def]
    """A unique verbatim passage from the body with a curly quote or NBSP in it."""
    loc = Locator(view)
    for para in view.paragraphs:
        text = view.paragraph_text(para)
        if para.story == "body" and ("\u201c" in text or "\u00a0" in text) and len(text.split()) > words:
            start = max(text.find("\u201c"), text.find("\u00a0"), 0)
            start = text.rfind(" ", 0, max(start - 20, 0)) + 1
            quote = " ".join(text[start:].split(" ")[:words])
            if loc.count(quote) == 1:
                return quote
    raise AssertionError("no suitable passage")


def test_verbatim_quote_verifies_at_its_paragraph(view) -> None:  # type: ignore[no-untyped-def]
    quote = _passage(view)
    body = json.dumps({"summary": "s", "points": [{"title": "T", "text": "x", "quotes": [quote]}]})
    reply = f"Summary:\n```json\n{body}\n```"
    from shared_schema import parse_summary_reply

    parsed = parse_summary_reply(reply)
    assert parsed is not None
    report = check(view, parsed)
    q = report.points[0].quotes[0]
    assert q.status == "verified" and q.match == "exact"
    para = view.paragraph_at(q.locations[0].start)
    assert quote in view.paragraph_text(para)
    assert report.points[0].verified and report.exit_code == 0


def test_typography_stripped_quote_verifies_as_normalized(view) -> None:  # type: ignore[no-untyped-def]
    quote = _passage(view)
    plain = quote.replace("\u201c", '"').replace("\u201d", '"').replace("\u00a0", " ").replace("\u2019", "'")
    assert plain != quote
    reply = json.dumps({"summary": "s", "key_points": [{"title": "T", "quote": plain}]})
    report = check_reply(support.lease(seed=3), reply)
    q = report.points[0].quotes[0]
    assert q.status == "verified" and q.match == "normalized" and q.tolerances


def test_one_word_paraphrase_fails_with_the_nearest_passage(view) -> None:  # type: ignore[no-untyped-def]
    quote = _passage(view)
    words = quote.split(" ")
    words[2] = "utterly" if words[2] != "utterly" else "wholly"
    from shared_schema import SummaryPoint, SummaryReply

    report = check(view, SummaryReply(points=[SummaryPoint(title="T", quotes=[" ".join(words)])]))
    q = report.points[0].quotes[0]
    assert q.status == "not_found" and q.error is not None
    assert q.error.nearest is not None and "utterly" not in q.error.nearest
    assert "utterly" in q.error.message or "wholly" in q.error.message
    assert report.points[0].status == "unverified" and report.exit_code == 1


def test_duplicated_quote_is_verified_with_every_location(view) -> None:  # type: ignore[no-untyped-def]
    loc = Locator(view)
    quote = "Tenant shall"
    n = loc.count(quote)
    assert n > 1
    from shared_schema import SummaryPoint, SummaryReply

    report = check(view, SummaryReply(points=[SummaryPoint(title="T", quotes=[quote])]))
    q = report.points[0].quotes[0]
    assert q.status == "verified" and len(q.locations) == n


def test_a_point_without_quotes_is_unsupported_not_verified(view) -> None:  # type: ignore[no-untyped-def]
    from shared_schema import SummaryPoint, SummaryReply

    report = check(view, SummaryReply(points=[SummaryPoint(title="Vibes", text="It is fair.")]))
    assert report.points[0].status == "unsupported" and not report.points[0].verified
    assert report.exit_code == 1 and report.totals.points_unsupported == 1


def test_markdown_puts_unverified_points_first(view) -> None:  # type: ignore[no-untyped-def]
    from shared_schema import SummaryPoint, SummaryReply

    good = _passage(view)
    report = check(
        view,
        SummaryReply(
            points=[
                SummaryPoint(title="Good", quotes=[good]),
                SummaryPoint(title="Bad", quotes=["the moon is made of cheese"]),
            ]
        ),
    )
    md = to_markdown(report)
    assert md.index("Bad") < md.index("Good") and "❌" in md and "✅" in md


def test_redline_and_summarize_report_with_the_very_same_types() -> None:
    # each module's own binding (not a declared export) must be the shared class
    fields = summarize.check.QuoteCheck.model_fields  # type: ignore[attr-defined]
    assert summarize.check.QuoteCheck is QuoteCheck  # type: ignore[attr-defined]
    assert fields["locations"].annotation == list[Location]
    assert EditResult.model_fields["locations"].annotation == list[Location]
    assert fields["error"].annotation == (Refusal | None)
    assert EditResult.model_fields["error"].annotation == (Refusal | None)
    # (the verifier's results are the records of EditResult: tests/test_records.py)
    assert redline.match.verify.ResultRecord is ResultRecord  # type: ignore[attr-defined]
    assert summarize.check.Refusal is Refusal  # type: ignore[attr-defined]


def test_cli_exit_codes_and_report(tmp_path: Path, lease: bytes) -> None:
    doc = tmp_path / "lease.docx"
    doc.write_bytes(lease)
    view = build_view(Package.from_bytes(lease))
    good = _passage(view)
    reply = tmp_path / "r.json"
    reply.write_text(json.dumps({"summary": "s", "points": [{"title": "a", "quotes": [good]}]}))
    report = tmp_path / "rep.json"
    assert summarize_main(["check", str(doc), str(reply), "--report", str(report)]) == 0
    totals = json.loads(report.read_text())["totals"]
    assert totals["quotes"] == totals["verified"] == totals["points_verified"] == 1
    assert totals["unverified"] == totals["points_unsupported"] == 0
    reply.write_text(json.dumps({"summary": "s", "points": [{"title": "a", "quotes": ["not in it at all"]}]}))
    assert summarize_main(["check", str(doc), str(reply)]) == 1
    reply.write_text("I could not summarise this document.")
    assert summarize_main(["check", str(doc), str(reply)]) == 3
    (tmp_path / "bad.docx").write_bytes(b"PK\x03\x04 nope")
    assert summarize_main(["check", str(tmp_path / "bad.docx"), str(reply)]) == 3
    assert summarize_main(["check"]) == 2
    assert summarize_main(["check", str(doc), str(tmp_path / "no-such-reply.json")]) == 3


@pytest.mark.corpus
def test_corpus_quotes_verify_at_the_right_paragraph_and_altered_ones_do_not(corpus_docs: list[Path]) -> None:
    from shared_schema import SummaryPoint, SummaryReply

    checked = 0
    for path in corpus_docs:
        try:
            view = build_view(Package.open(path))
        except Exception:
            continue  # refused documents are the loader's tests' business
        loc = Locator(view)
        quotes, paras = [], []
        for para in view.paragraphs:
            words = view.paragraph_text(para).split()
            if len(words) >= 8:
                quote = " ".join(words[1:7])
                if loc.count(quote) == 1:
                    quotes.append(quote)
                    paras.append(para.index)
            if len(quotes) >= 5:
                break
        if not quotes:
            continue
        altered = [q.replace(" ", " really ", 1) for q in quotes]
        report = check(view, SummaryReply(points=[SummaryPoint(title="x", quotes=quotes + altered)]))
        qs = report.points[0].quotes
        for q, para_index in zip(qs[: len(quotes)], paras, strict=True):
            assert q.status == "verified", (path.name, q.quote)
            assert q.locations[0].paragraph == para_index
        for q in qs[len(quotes) :]:
            assert q.status == "not_found", (path.name, q.quote)
        checked += 1
    assert checked >= 20


def test_a_streamed_check_reports_exactly_what_the_full_check_reports(tmp_path: Path) -> None:
    samples = Path(__file__).resolve().parent.parent / "sample_contracts"
    doc, reply = samples / "commercial-lease.docx", samples / "commercial-lease.summary.json"
    full, streamed = tmp_path / "full.json", tmp_path / "streamed.json"
    code = summarize_main(["check", str(doc), str(reply), "--report", str(full)])
    assert summarize_main(["check", str(doc), str(reply), "--report", str(streamed), "--stream"]) == code
    assert json.loads(streamed.read_text()) == json.loads(full.read_text())
    assert json.loads(full.read_text())["totals"]["quotes"] > 0
