"""A quote of text another author deleted is refused ``deleted_text`` (issue 30), however long
the deleted passage, however many runs, kept words and paragraphs it crosses; text moved away
(``w:moveFrom``) is said to be "moved away".

The property's oracle is the simplest reading there is: the document's words in order with
their deletion beside each (a deleted paragraph mark a space), the quote a stretch of it that
holds a deleted word.  The documents are generated here: every word unique (so a quote holding
a deleted word is in the document as it reads nowhere), each deletion by an author of its own
(so the refusal must name the deletion the quote runs through), split into runs anywhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from xml.sax.saxutils import escape

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from shared_schema import Code
from testing.docbuild import Del, Ins, MoveFrom, MoveTo, P, Raw, docx

DATE = "2020-01-01T00:00:00Z"


def refusal(doc: bytes, anchor: str) -> tuple[str | None, str]:
    out = apply_reply(
        doc,
        json.dumps({"edits": [{"anchor": anchor, "replacement": "X"}]}),
        ApplyOptions(author="Us", date="2024-05-01T00:00:00Z", dry_run=True),
    )
    error = out.report.edits[0].error
    return (error.code.value, error.message) if error is not None else (None, "")


# -------------------------------------------------------------------------------------------
# Shapes, one by one

LONG = " ".join(f"term{i}" for i in range(400))  # some 3,600 characters


def test_a_short_deletion() -> None:
    doc = docx(P("The rent is ", Del("due within ten days", author="Opp"), " of notice."))
    code, message = refusal(doc, "rent is due within ten days of notice")
    assert code == Code.DELETED_TEXT and "Opp deleted" in message


def test_a_long_deletion_quoted_through_its_middle_into_kept_text() -> None:
    doc = docx(P("The rent is ", Del(LONG, author="Opp"), " of notice."))
    assert refusal(doc, LONG[1800:] + " of notice")[0] == Code.DELETED_TEXT
    assert refusal(doc, "rent is " + LONG[:2500])[0] == Code.DELETED_TEXT  # past the hints' limit


def test_a_deletion_over_many_runs_and_kept_words() -> None:
    runs = "".join(
        f'<w:del w:id="{500 + i}" w:author="Opp" w:date="{DATE}"><w:r><w:delText xml:space="preserve">'
        f'{w} </w:delText></w:r></w:del><w:r><w:t xml:space="preserve">kept{i} </w:t></w:r>'
        for i, w in enumerate(["alpha", "beta", "gamma", "delta"])
    )
    doc = docx(P("Start ", Raw(runs), "end."))
    assert refusal(doc, "Start alpha kept0 beta kept1 gamma kept2 delta kept3 end.")[0] == Code.DELETED_TEXT


def test_a_deletion_across_paragraphs_and_a_whole_deleted_paragraph() -> None:
    mark = f'<w:del w:id="88" w:author="Opp" w:date="{DATE}"/>'
    doc = docx(
        P("First kept words ", Del("and the deleted end", author="Opp"), mark=mark),
        P(Del("A whole paragraph that is gone.", author="Opp"), mark=mark.replace("88", "89")),
        P(Del("Its start deleted", author="Opp"), " and its end kept."),
    )
    assert (
        refusal(doc, "and the deleted end A whole paragraph that is gone. Its start")[0] == Code.DELETED_TEXT
    )
    assert refusal(doc, "paragraph that is gone")[0] == Code.DELETED_TEXT
    assert refusal(doc, "kept words and the deleted")[0] == Code.DELETED_TEXT


def test_a_deletion_with_tabs_breaks_and_a_field() -> None:
    deleted = (
        f'<w:del w:id="91" w:author="Opp" w:date="{DATE}"><w:r><w:delText>one</w:delText><w:tab/>'
        "<w:delText>two</w:delText><w:br/><w:delText>three</w:delText></w:r>"
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:delInstrText> PAGE </w:delInstrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:delText>7</w:delText></w:r>'
        '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:del>'
    )
    doc = docx(P("Lead ", Raw(deleted), " tail."))
    assert refusal(doc, "Lead one two three7 tail")[0] == Code.DELETED_TEXT


def test_text_moved_away_is_said_to_be_moved() -> None:
    doc = docx(
        P("Start ", MoveFrom("moved words here", author="Opp"), " end."), P(MoveTo("moved words here"))
    )
    code, message = refusal(doc, "Start moved words here end")
    assert code == Code.DELETED_TEXT and "moved away" in message


def test_a_deletion_inside_another_authors_insertion() -> None:
    doc = docx(
        P("Kept ", Ins("inserted ", Raw(Del("then deleted", author="Bea")), " words", author="Al"), ".")
    )
    code, message = refusal(doc, "inserted then deleted words")
    assert code == Code.DELETED_TEXT and "Bea deleted" in message


def test_a_quote_that_is_simply_wrong_is_still_not_found() -> None:
    doc = docx(P("The rent is ", Del("due within ten days", author="Opp"), " of notice."))
    assert refusal(doc, "rent is payable within ten days")[0] == Code.NOT_FOUND.value


# -------------------------------------------------------------------------------------------
# The property


@dataclass
class Segment:
    words: list[str]
    deletion: str | None  # None: kept; "del" / "move": by an author of its own
    cuts: list[int]  # where its text is split into runs (character offsets)


@dataclass
class Para:
    segments: list[Segment]
    mark_deleted: bool


@st.composite
def documents(draw: st.DrawFn) -> list[Para]:
    paras = []
    counter = iter(range(10**9))  # every word of the document its own
    for _ in range(draw(st.integers(1, 4))):
        segments = []
        for _ in range(draw(st.integers(1, 5))):
            n = draw(st.integers(1, 60))
            words = [f"wd{next(counter)}z" for _ in range(n)]
            deletion = draw(st.sampled_from([None, None, "del", "del", "move"]))
            size = len(" ".join(words)) + 1
            cuts = sorted(set(draw(st.lists(st.integers(1, size - 1), max_size=6)))) if size > 1 else []
            segments.append(Segment(words, deletion, cuts))
        paras.append(Para(segments, draw(st.booleans())))
    paras[-1].mark_deleted = False  # a story's last mark stays (as Word's must)
    return paras


def build(paras: list[Para]) -> tuple[bytes, list[tuple[str, str | None, str | None]]]:
    """The document, and the oracle: every word (and deleted mark, as "") with the author and
    kind of the deletion holding it (None when kept)."""
    oracle: list[tuple[str, str | None, str | None]] = []
    blocks = []
    ids = iter(range(1000, 10**6))
    for p_no, para in enumerate(paras):
        xml = []
        for s_no, seg in enumerate(para.segments):
            text = " ".join(seg.words) + " "
            author = f"Author{p_no}x{s_no}" if seg.deletion else None
            oracle.extend((word, author, seg.deletion) for word in seg.words)
            pieces = [text[a:b] for a, b in zip([0, *seg.cuts], [*seg.cuts, len(text)], strict=True)]
            tag = "w:delText" if seg.deletion else "w:t"
            runs = "".join(
                f'<w:r><{tag} xml:space="preserve">{escape(piece)}</{tag}></w:r>' for piece in pieces if piece
            )
            if seg.deletion == "del":
                xml.append(f'<w:del w:id="{next(ids)}" w:author="{author}" w:date="{DATE}">{runs}</w:del>')
            elif seg.deletion == "move":
                rng, rid = next(ids), next(ids)
                xml.append(
                    f'<w:moveFromRangeStart w:id="{rng}" w:author="{author}" w:date="{DATE}" '
                    f'w:name="m{rng}"/>'
                    f'<w:moveFrom w:id="{rid}" w:author="{author}" w:date="{DATE}">{runs}</w:moveFrom>'
                    f'<w:moveFromRangeEnd w:id="{rng}"/>'
                )
            else:
                xml.append(runs)
        mark = ""
        if para.mark_deleted:
            mark_author = f"Mark{p_no}"
            mark = f'<w:del w:id="{next(ids)}" w:author="{mark_author}" w:date="{DATE}"/>'
            oracle.append(("", mark_author, "del"))
        else:
            oracle.append(("", None, None))
        blocks.append(P(Raw("".join(xml)), mark=mark))
    return docx(*blocks), oracle


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.data())
def test_every_quote_through_deleted_text_is_deleted_text(paras: list[Para], data: st.DataObject) -> None:
    doc, oracle = build(paras)
    deleted = [k for k, (word, author, _) in enumerate(oracle) if author is not None and word]
    if not deleted:
        return
    k = data.draw(st.sampled_from(deleted))
    lo = data.draw(st.integers(max(0, k - 80), k))
    hi = data.draw(st.integers(k, min(len(oracle) - 1, k + 80)))
    words = [w for w, _, _ in oracle[lo : hi + 1] if w]
    quote = " ".join(words)
    code, message = refusal(doc, quote)
    assert code == Code.DELETED_TEXT, (quote[:200], message)
    # the deletion named is the first one the quote runs through (its first deleted word)
    first = next(oracle[j] for j in range(lo, hi + 1) if oracle[j][1] is not None and oracle[j][0])
    first_mark = next((oracle[j] for j in range(lo, hi + 1) if oracle[j][1] is not None), first)
    named = [first[1], first_mark[1]]
    assert any(f"{a} " in message for a in named if a), (named, message)
    kinds = {first[2], first_mark[2]}
    assert ("moved away" in message) == ("move" in kinds and "deleted" not in message), message
