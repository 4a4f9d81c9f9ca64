"""New text follows the document's quote convention: English curly, German, French, straight."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.text.typography import follow_quotes, guillemet_space, quote_style
from testing.docbuild import P, docx


@pytest.mark.parametrize(
    ("text", "style"),
    [
        ("Der \u201eMieter\u201c zahlt. Die \u201eMiete\u201c ist f\u00e4llig.", "german"),
        ("Le \u00ab\u00a0Locataire\u00a0\u00bb paie le \u00ab\u00a0Loyer\u00a0\u00bb.", "french"),
        ("The \u201cTenant\u201d pays the \u201cRent\u201d.", "curly"),
        ('The "Tenant" pays the "Rent".', "straight"),
        ("No quotes at all.", None),
    ],
)
def test_the_convention_is_read_from_the_document(text: str, style: str | None) -> None:
    assert quote_style(text) == style


@pytest.mark.parametrize(
    ("style", "space", "expected"),
    [
        ("curly", "", "the \u201cLandlord\u201d and Tenant\u2019s \u2018share\u2019"),
        ("german", "", "the \u201eLandlord\u201c and Tenant\u2019s \u201ashare\u2018"),
        ("french", "\u00a0", "the \u00ab\u00a0Landlord\u00a0\u00bb and Tenant\u2019s \u2039share\u203a"),
        ("straight", "", "the \"Landlord\" and Tenant's 'share'"),
    ],
)
def test_new_text_takes_the_convention(style: str, space: str, expected: str) -> None:
    for typed in (
        "the \"Landlord\" and Tenant's 'share'",
        "the \u201cLandlord\u201d and Tenant\u2019s \u2018share\u2019",
    ):
        assert follow_quotes(typed, style, "", space) == expected


@given(
    st.text(alphabet="ab '\"\u201c\u201d\u201e\u00ab\u00bb ", max_size=30),
    st.sampled_from(["curly", "german", "french", "straight"]),
)
def test_following_is_deterministic_and_keeps_the_words(text: str, style: str) -> None:
    once = follow_quotes(text, style, "", "\u00a0" if style == "french" else "")
    assert once == follow_quotes(text, style, "", "\u00a0" if style == "french" else "")
    assert [c for c in once if c.isalnum()] == [c for c in text if c.isalnum()]


def test_a_french_document_keeps_its_space_inside_guillemets() -> None:
    assert guillemet_space("le \u00ab\u202fLoyer\u202f\u00bb et le \u00ab\u202fBail\u202f\u00bb") == "\u202f"
    assert guillemet_space("le \u00abLoyer\u00bb") == ""


@pytest.mark.parametrize(
    ("body", "replacement", "written"),
    [
        (
            "Der \u201eMieter\u201c zahlt die \u201eMiete\u201c monatlich im Voraus.",
            'die "Nebenkosten"',
            "die \u201eNebenkosten\u201c",
        ),
        (
            "Le \u00ab\u00a0Locataire\u00a0\u00bb paie le \u00ab\u00a0Loyer\u00a0\u00bb chaque mois.",
            'les "Charges"',
            "les \u00ab\u00a0Charges\u00a0\u00bb",
        ),
    ],
)
def test_an_applied_edit_writes_the_documents_quotes(body: str, replacement: str, written: str) -> None:
    data = docx(P(body), P("Zweiter Absatz."))
    anchor = body.split()[-1]  # "Voraus." / "mois."
    reply = json.dumps([{"anchor": anchor, "replacement": f"{anchor} Und {replacement}."}])
    outcome = apply_reply(data, reply, ApplyOptions(track=False))
    assert outcome.report.edits[0].status.value == "applied"
    assert outcome.output is not None
    with zipfile.ZipFile(io.BytesIO(outcome.output)) as z:
        xml = z.read("word/document.xml").decode()
    assert written in xml
