"""Defined terms (issue 33): every definition form, every finding, the fixes applied and checked
again, a differential oracle on the real corpus and on generated contracts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.proofread.definitions import Definition, Form, definitions
from redline.proofread.findings import Finding, Kind
from redline.proofread.terms import term_findings, use_forms
from redline.read.view import DocumentView
from testing.contractgen import generate_contract
from testing.docbuild import B, P, docx
from tests.support import corpus_paths, view_of

# Three definitions every document below carries, so that it has a defining style.
BASE = (
    P("This Agreement (this \u201cAgreement\u201d) is made between Northwind Traders Ltd "
      "(\u201cCustomer\u201d) and Fabrikam Software Inc (\u201cSupplier\u201d)."),
    P("Customer and Supplier agree as follows under this Agreement."),
)  # fmt: skip


def view(*paragraphs: object, base: bool = True) -> DocumentView:
    return view_of(docx(*(BASE if base else ()), *paragraphs))


def defs(*paragraphs: object) -> dict[str, Definition]:
    return {d.term: d for d in definitions(view(*paragraphs, base=False))}


def kinds(findings: list[Finding], kind: Kind) -> list[str]:
    return [f.place.text for f in findings if f.kind is kind]


# -- definition forms ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "term", "form"),
    [
        ("\u201cPremises\u201d means the fourth floor.", "Premises", Form.MEANS),
        ('"Premises" means the fourth floor.', "Premises", Form.MEANS),
        ("\u2018Premises\u2019 means the fourth floor.", "Premises", Form.MEANS),
        ("\u00abPremises\u00bb means the fourth floor.", "Premises", Form.MEANS),
        ("\u201cBusiness Day\u201d shall mean a day on which banks open.", "Business Day", Form.MEANS),
        ("\u201cPersonal Data\u201d has the meaning given in the GDPR.", "Personal Data", Form.MEANS),
        ("\u201cPersonal Data\u201d will have the meaning given in the GDPR.", "Personal Data", Form.MEANS),
        ('"Key Terms\u201d means the cover page.', "Key Terms", Form.MEANS),  # mixed quotes
        ("In this Agreement, \u201cLoss\u201d means any loss.", "Loss", Form.MEANS),
        ("The lease of the site (the \u201cLease\u201d) is attached.", "Lease", Form.PARENTHETICAL),
        ("Acme Corp (\u201cLandlord\u201d) agrees.", "Landlord", Form.PARENTHETICAL),
        ("Acme Corp (hereinafter \u201cLandlord\u201d) agrees.", "Landlord", Form.PARENTHETICAL),
        ("A (hereinafter referred to as the \u201cLandlord\u201d) agrees.", "Landlord", Form.PARENTHETICAL),
        ("Acme, hereinafter referred to as \u201cLandlord\u201d, agrees.", "Landlord", Form.PARENTHETICAL),
        ("its subsidiaries (each, a \u201cGroup Company\u201d) agree.", "Group Company", Form.PARENTHETICAL),
        ("its subsidiaries (together, the \u201cGroup\u201d) agree.", "Group", Form.PARENTHETICAL),
        ("rent of $10 (the \u201cBase Rent,\u201d) is due.", "Base Rent", Form.PARENTHETICAL),
        ("Each of the following is an \u201cEvent of Default\u201d:", "Event of Default", Form.DESIGNATION),
        ("\u201cDeposit\u201d: the sum of $5,000 paid on signing.", "Deposit", Form.ENTRY),
    ],
)
def test_definition_forms(text: str, term: str, form: Form) -> None:
    found = defs(P(text))
    assert term in found, found
    d = found[term]
    assert d.form is form
    assert d.scope is None
    v = view(P(text), base=False)
    assert v.text[d.span[0] : d.span[1]] == term


def test_several_terms_defined_at_once() -> None:
    found = defs(P("\u201cStatement of Work\u201d or \u201cSOW\u201d means a work order."))
    assert set(found) == {"Statement of Work", "SOW"}
    assert all(d.form is Form.MEANS for d in found.values())


def test_parenthetical_with_two_terms() -> None:
    found = defs(P("Acme Corp (\u201cProvider\u201d or \u201cwe\u201d) agrees."))
    assert set(found) == {"Provider", "we"}


def test_entries_of_a_definitions_clause() -> None:
    found = defs(
        P("Definitions", style="Heading1"),
        P("Affiliate: any entity controlling or controlled by a party."),
        P("Business Day \u2013 a day other than a Saturday or Sunday."),
        P("Services", style="Heading1"),
        P("Fees: this is no definition, the clause is not a definitions clause."),
    )
    assert found["Affiliate"].form is Form.ENTRY
    assert found["Business Day"].form is Form.ENTRY
    assert "Fees" not in found


def test_bold_terms() -> None:
    found = defs(
        P(B("Agreement"), " means this agreement and its schedules."),
        P("Terms", style="Heading1"),
        P(B("Services:"), " the services in the order form."),
        P(B("Fees:"), " the amounts in the order form."),
        P("Other", style="Heading1"),
        P("The parties agree as follows."),
        P(B("Lonely:"), " one bold line is a run-in heading, not a list."),
        P("Last", style="Heading1"),
        P("Notes: plain text is no entry outside a definitions clause."),
    )
    assert found["Agreement"].form is Form.BOLD
    assert found["Services"].form is Form.ENTRY
    assert found["Fees"].form is Form.ENTRY
    assert "Lonely" not in found
    assert "Notes" not in found


@pytest.mark.parametrize(
    "text",
    [
        "The Product is provided \u201cAS IS\u201d without warranty.",
        "The software is deemed \u201ccommercial items\u201d under FAR.",
        "All uses of \u201cincluding\u201d are non-exhaustive.",
        "He said \u201cwe will pay on Monday\u201d and left.",
        "the parties' rights and the Tenant's obligations remain.",
        "The rent is $10,000 per year (payable monthly) from 2025.",
        "(as defined in the Master Lease) and (see Clause 4).",
    ],
)
def test_quoted_phrases_that_are_no_definitions(text: str) -> None:
    assert defs(P(text)) == {}


def test_scope_of_a_schedule() -> None:
    v = view(
        P("1. Services"),
        P("The Supplier shall provide the Services."),
        P("Schedule 1 \u2013 Site Rules"),
        P("In this Schedule, \u201cSite\u201d means the premises at 1 Quay Street."),
        P("The Site is open on weekdays."),
        P("Schedule 2 \u2013 Prices"),
        P("The prices are fixed."),
    )
    site = next(d for d in definitions(v) if d.term == "Site")
    assert site.scope is not None
    assert site.scope.title.startswith("Schedule 1")
    assert site.paragraph in site.scope
    assert v.paragraphs[site.scope.last].index < next(
        p.index for p in v.paragraphs if v.paragraph_text(p).startswith("Schedule 2")
    )


# -- the findings -------------------------------------------------------------------------------


def test_undefined_term() -> None:
    v = view(
        P("The Supplier shall deliver the licensed software and keep the software up to date."),
        P("Customer may use the Licensed Software at its sites."),
    )
    found = term_findings(v)
    assert kinds(found, Kind.UNDEFINED_TERM) == ["Licensed Software"]
    f = next(f for f in found if f.kind is Kind.UNDEFINED_TERM)
    assert "Licensed Software" in f.message and f.place.paragraph == 3


@pytest.mark.parametrize(
    "text",
    [
        "Licensed Software is installed on site.",  # a sentence's first words
        "Payment is due on the March Payment Date.",  # a month
        "The laws of the State of California govern; see the Americans with Disabilities Act.",
        "Notices go to the Data Protection Officer (DPO) of the Customer.",
        "Notices go to the Chief Privacy Officer (\u201cCPO\u201d) of the Customer.",
        "The building is known as Harbor Point Center in Oakland.",
        "The rent for 2025 is $10,000 (ten thousand dollars), due on 1 January 2025.",
        "Section 4.2 of the Lease applies; see Clause 7 and Schedule 2.",
        "The Customer shall comply with the \u201cAcceptable Use Policy\u201d of the host.",
    ],
)
def test_not_undefined_terms(text: str) -> None:
    v = view(
        P("the data, the officer, the privacy, the payment, the date, the use, the policy, the software."),
        P(text),
    )
    assert kinds(term_findings(v), Kind.UNDEFINED_TERM) == []


def test_headings_are_not_undefined_terms() -> None:
    v = view(
        P("Licensed Software", style="Heading1"),
        P("Licensed Software Terms And Conditions"),
        P("Initial Term. The Supplier grants the licence for the term stated."),
        P("the licensed software, the initial term, the terms and conditions."),
    )
    assert kinds(term_findings(v), Kind.UNDEFINED_TERM) == []


def test_incorporated_definitions_are_not_undefined() -> None:
    v = view(
        P("Capitalised terms used but not defined here have the meanings given in the Master Agreement."),
        P("the licensed software."),
        P("Customer may use the Licensed Software."),
    )
    assert kinds(term_findings(v), Kind.UNDEFINED_TERM) == []


def test_unused_definition_and_its_uses() -> None:
    v = view(
        P("\u201cAffiliate\u201d means an entity controlling a party."),
        P("\u201cDeposit Account\u201d means the account in Schedule 1."),
        P("\u201cReport\u201d means the monthly report."),
        P("The Customer\u2019s Affiliates may receive each Report\u2019s summary."),
    )
    assert kinds(term_findings(v), Kind.UNUSED_DEFINITION) == ["Deposit Account"]


def test_aliases_defined_together_are_used_together() -> None:
    v = view(
        P("\u201cStatement of Work\u201d or \u201cSOW\u201d means a work order."),
        P("Each SOW is signed by both parties."),
    )
    assert kinds(term_findings(v), Kind.UNUSED_DEFINITION) == []


def test_duplicate_definition() -> None:
    v = view(
        P("\u201cFees\u201d means the fees in the order form."),
        P("The Customer pays the Fees monthly."),
        P("\u201cFees\u201d means the charges in Schedule 2."),
    )
    found = [f for f in term_findings(v) if f.kind is Kind.DUPLICATE_DEFINITION]
    assert len(found) == 1
    assert found[0].place.paragraph == 4
    assert [p.paragraph for p in found[0].related] == [2]


def test_scoped_definitions_are_no_duplicates() -> None:
    v = view(
        P("\u201cSite\u201d means the head office."),
        P("The Site is in Leeds."),
        P("Schedule 1 \u2013 Works"),
        P("In this Schedule, \u201cSite\u201d means the works area."),
        P("The Site is fenced."),
    )
    assert kinds(term_findings(v), Kind.DUPLICATE_DEFINITION) == []


def test_lowercase_defined_term_and_its_fix() -> None:
    data = docx(
        *BASE,
        P("\u201cConfidential Information\u201d means all non-public information."),
        P("Each party keeps the Confidential Information safe."),
        P("Neither party shall disclose confidential information to a third party."),
    )
    v = view_of(data)
    found = [f for f in term_findings(v) if f.kind is Kind.LOWERCASE_DEFINED_TERM]
    assert [f.place.text for f in found] == ["confidential information"]
    fix = found[0].fix
    assert fix is not None and "Confidential Information" in fix["replacement"]
    after = _apply(data, [fix])
    assert kinds(term_findings(after), Kind.LOWERCASE_DEFINED_TERM) == []


def test_all_caps_and_quoted_uses_are_not_lowercase() -> None:
    v = view(
        P("\u201cConfidential Information\u201d means all non-public information."),
        P("NOTHING IN THIS AGREEMENT LIMITS CONFIDENTIAL INFORMATION."),
        P("The term \u201cconfidential information\u201d is read broadly."),
    )
    assert kinds(term_findings(v), Kind.LOWERCASE_DEFINED_TERM) == []
    assert kinds(term_findings(v), Kind.UNUSED_DEFINITION) == []


def test_use_forms() -> None:
    forms = use_forms("Affiliate")
    assert {"Affiliate", "Affiliates", "Affiliate\u2019s", "Affiliates\u2019"} <= set(forms)
    assert "Parties" in use_forms("Party") and "Party" in use_forms("Parties")


# -- helpers --------------------------------------------------------------------------------------


def _apply(data: bytes, fixes: list[dict[str, object]]) -> DocumentView:
    outcome = apply_reply(data, json.dumps({"edits": fixes}), ApplyOptions(author="check"))
    statuses = [e.status for e in outcome.report.edits]
    assert outcome.output is not None, outcome.report
    assert all(s == "applied" for s in statuses), outcome.report.edits
    return view_of(outcome.output)


def test_a_misspelt_defined_term_is_fixed_everywhere() -> None:
    data = docx(
        *BASE,
        P("\u201cLicensed Software\u201d means the software in Schedule 1."),
        P("Customer may install the Licenced Software on the Licensed Software servers."),
        P("Supplier supports the Licenced Software for a year."),
    )
    found = [f for f in term_findings(view_of(data)) if f.kind is Kind.UNDEFINED_TERM]
    assert [f.place.text for f in found] == ["Licenced Software"]
    assert [p.paragraph for p in found[0].related] == [4]
    fix = found[0].fix
    assert fix == {
        "anchor": "Licenced Software",
        "replacement": "Licensed Software",
        "rationale": "Use the defined term \u201cLicensed Software\u201d.",
        "expected_matches": 2,
    }
    after = term_findings(_apply(data, [fix]))
    assert kinds(after, Kind.UNDEFINED_TERM) == [] and kinds(after, Kind.UNUSED_DEFINITION) == []


# -- the differential oracle: defects planted in copies ---------------------------------------------
#
# Each defect is planted with the project's own apply (a tracked change, which the view reads
# accepted); the findings of the planted copy that the original does not have must be exactly the
# planted ones, and the fixes they carry must remove them again.

Identity = tuple[Kind, str, int]


def _identities(findings: list[Finding], shift: int | None = None) -> set[Identity]:
    """Findings as compared across copies: kind, words, paragraph (in the planted copy's
    numbering: ``shift`` is where one paragraph was inserted)."""
    out = set()
    for f in findings:
        p = f.place.paragraph
        out.add((f.kind, f.place.text, p + 1 if shift is not None and p > shift else p))
    return out


def _unique_window(v: DocumentView, start: int, end: int) -> tuple[int, int]:
    """The smallest range of whole words around [start, end) that occurs once in the text."""
    para = v.paragraph_at(start)
    text = v.text
    lo, hi = start, end
    while text.count(text[lo:hi]) > 1:
        wider = False
        left = text.rfind(" ", para.start, lo - 1)
        if lo > para.start:
            lo, wider = (left + 1 if left >= 0 else para.start), True
        right = text.find(" ", hi + 1, para.end)
        if hi < para.end:
            hi, wider = (right if right >= 0 else para.end), True
        if not wider:
            break
    return lo, hi


def _edit(v: DocumentView, start: int, end: int, new: str) -> dict[str, object]:
    lo, hi = _unique_window(v, start, end)
    return {"anchor": v.text[lo:hi], "replacement": v.text[lo:start] + new + v.text[end:hi]}


def _multiword_terms(v: DocumentView) -> list[Definition]:
    """Defined once, by "X" means, in several capitalised words."""
    defs_ = definitions(v)
    counts: dict[str, int] = {}
    for d in defs_:
        counts[d.term] = counts.get(d.term, 0) + 1
    return [
        d
        for d in defs_
        if d.form is Form.MEANS
        and counts[d.term] == 1
        and len(d.term.split()) > 1
        and all(w[:1].isupper() for w in d.term.split())
        and v.paragraphs[d.paragraph].story == "body"
    ]


def _mid_sentence_uses(v: DocumentView, term: str, not_in: set[int]) -> list[int]:
    """Offsets of ``term`` written after a lower-case word in a body paragraph that defines
    nothing, holds no quotes and is a sentence (after a run-in heading, if it has one)."""
    import re

    out = []
    for m in re.finditer(rf"(?<=[a-z] ){re.escape(term)}(?=[\s,.;:)])", v.text):
        para = v.paragraph_at(m.start())
        ptext = v.paragraph_text(para)
        if para.index in not_in or para.story != "body" or any(q in ptext for q in '"\u201c\u201d\u2018'):
            continue
        dot = ptext.find(". ")
        if len(ptext.split()) < 8 or (para.heads and (dot < 0 or m.start() - para.start < dot)):
            continue
        out.append(m.start())
    return out


def _detectable_when_undefined(v: DocumentView, term: str) -> bool:
    """Whether the rules of an undefined term (see redline.proofread.terms) call ``term`` one once
    its definition is gone: a use after "the" mid-sentence, its words in the document's lower-case
    vocabulary, no heading or run-in heading of its name, no clause taking definitions from
    elsewhere."""
    import re

    text = v.text
    if re.search(r"have the meanings? (?:or \w+ )?given", text, re.IGNORECASE):
        return False
    words = set(re.findall(r"[a-z]+", text))
    if not all(w.lower() in words or w.lower().rstrip("s") in words for w in term.split()):
        return False
    folded = term.casefold()
    for p in v.paragraphs:
        t = v.paragraph_text(p).strip().casefold()
        if t.rstrip(".:") == folded or t.startswith((folded + ".", folded + ":")):
            return False
    return any(text[s - 4 : s] == "the " for s in _mid_sentence_uses(v, term, set()))


class Planted:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.view = view_of(data)
        self.before = term_findings(self.view)

    def plant(self, edits: list[dict[str, object]]) -> tuple[bytes, list[Finding]]:
        outcome = apply_reply(self.data, json.dumps({"edits": edits}), ApplyOptions(author="plant"))
        assert outcome.output is not None, outcome.report
        assert [e.status for e in outcome.report.edits] == ["applied"] * len(edits), outcome.report.edits
        return outcome.output, term_findings(view_of(outcome.output))

    def added(self, after: list[Finding], shift: int | None = None) -> set[Identity]:
        return _identities(after) - _identities(self.before, shift)

    def check_fixes(self, data: bytes, after: list[Finding], added: set[Identity]) -> None:
        fixes = [
            f.fix for f in after if f.fix is not None and (f.kind, f.place.text, f.place.paragraph) in added
        ]
        if not fixes:
            return
        outcome = apply_reply(data, json.dumps({"edits": fixes}), ApplyOptions(author="fix"))
        assert outcome.output is not None
        assert [e.status for e in outcome.report.edits] == ["applied"] * len(fixes), outcome.report.edits
        again = _identities(term_findings(view_of(outcome.output)))
        assert not (again & added), again & added


PER_KIND = 3  # defects of each kind planted in one document (each in its own copy)


def plant_every_defect(data: bytes) -> dict[str, int]:
    """Plant each defect the document allows; returns how many of each were planted."""
    doc = Planted(data)
    v = doc.view
    planted = {
        "lowercase": 0,
        "duplicate": 0,
        "rename": 0,
        "delete": 0,
        "undefined found": 0,
        "detectable": 0,
    }
    candidates = _multiword_terms(v)
    # 1. a defined term lower-cased once
    for d in candidates:
        uses = _mid_sentence_uses(v, d.term, {x.paragraph for x in definitions(v)})
        if uses:
            s = uses[0]
            copy, after = doc.plant([_edit(v, s, s + len(d.term), d.term.lower())])
            added = doc.added(after)
            assert added == {(Kind.LOWERCASE_DEFINED_TERM, d.term.lower(), v.paragraph_at(s).index)}, added
            doc.check_fixes(copy, after, added)
            planted["lowercase"] += 1
            if planted["lowercase"] == PER_KIND:
                break
    # 2. a definition duplicated (its paragraph repeated after it)
    for d in candidates:
        para = v.paragraphs[d.paragraph]
        text = v.paragraph_text(para)
        if "\n" in text or len({x.term for x in definitions(v) if x.paragraph == d.paragraph}) != 1:
            continue
        lo, hi = _unique_window(v, para.start, min(para.end, para.start + 30))
        copy, after = doc.plant([{"action": "insert_after", "anchor": v.text[lo:hi], "text": text}])
        added = doc.added(after, shift=d.paragraph)
        assert added == {(Kind.DUPLICATE_DEFINITION, d.term, d.paragraph + 1)}, added
        planted["duplicate"] += 1
        if planted["duplicate"] == PER_KIND:
            break
    # 3. a definition renamed, and 4. deleted: its uses become undefined
    for d in candidates:
        if not _mid_sentence_uses(v, d.term, {d.paragraph}):
            continue
        detectable = _detectable_when_undefined(v, d.term)
        renamed = d.term.rsplit(" ", 1)[0] + " Zyqwex"
        copy, after = doc.plant([_edit(v, d.span[0], d.span[1], renamed)])
        added = doc.added(after)
        expected = {(Kind.UNUSED_DEFINITION, renamed, d.paragraph)}
        undefined = {a for a in added if a[0] is Kind.UNDEFINED_TERM}
        assert added - undefined == expected, added
        # (a longer phrase holding the term, "Customer Confidential Information", is one too)
        assert all(d.term.rstrip("s") in a[1] for a in undefined), undefined
        if detectable:
            assert undefined and any(a[1].startswith(d.term.rstrip("s")) for a in undefined), added
        planted["rename"] += 1
        verb = v.text.find("mean", d.span[1])
        quote_start, verb_end = d.span[0] - 1, v.text.find(" ", verb)
        copy, after = doc.plant([_edit(v, quote_start, verb_end + 1, "")])
        # (what is left of the paragraph is ordinary text now: a lower-case defined term in it
        # is reported as anywhere else)
        added = {
            a for a in doc.added(after) if not (a[0] is Kind.LOWERCASE_DEFINED_TERM and a[2] == d.paragraph)
        }
        assert {a[0] for a in added} <= {Kind.UNDEFINED_TERM}, added
        assert all(d.term.rstrip("s") in a[1] for a in added), added
        if detectable:
            assert added and any(a[1].startswith(d.term.rstrip("s")) for a in added), added
        planted["undefined found"] += bool(added) + bool(undefined)
        planted["detectable"] += 2 * detectable
        planted["delete"] += 1
        if planted["delete"] == PER_KIND:
            break
    return planted


CONTRACTS = [
    p for p in corpus_paths() if p.name.startswith(("cp-", "bonterms", "oxpt-HC048", "poi-stress023"))
]


@pytest.mark.slow
@pytest.mark.parametrize("path", CONTRACTS, ids=[p.stem for p in CONTRACTS])
def test_planted_defects_in_corpus_contracts(path: Path) -> None:
    data = path.read_bytes()
    if len(definitions(view_of(data))) < 3:
        pytest.skip("too few definitions to plant in")
    planted = plant_every_defect(data)
    print(path.stem, planted)
    if not sum(planted.values()):
        pytest.skip("no term defined by \u201cX\u201d means in several capitalised words")


@pytest.mark.parametrize(("kind", "seed"), [("lease", 0), ("nda", 1), ("msa", 2), ("lease", 3)])
def test_planted_defects_in_generated_contracts(kind: str, seed: int) -> None:
    planted = plant_every_defect(generate_contract(kind, seed=seed))  # type: ignore[arg-type]
    print(kind, seed, planted)
    assert planted["duplicate"] >= 1 and planted["rename"] >= 1 and planted["delete"] >= 1, planted
