"""Realistic contracts as .docx bytes, deterministic from a seed.

The generator writes what real Word contracts contain and what the pipeline must cope with:

- numbered clauses from one multi-level list in ``numbering.xml`` (``%1.`` headings linked to
  the *Heading 1* style, ``%1.%2`` clauses, ``(%3)`` lower-letter items, ``(%4)`` lower-roman
  sub-items, all set by ``w:numPr``): the labels are computed by Word, never typed as text;
- typography: defined terms in curly quotes (“Premises”), curly apostrophes (Tenant’s), a
  no-break space between "Section"/"Schedule" and its number, en dashes in ranges (2025–2030),
  em dashes, bold defined terms and a few italic runs;
- a table, a header, a footer with a ``PAGE`` field, a footnote;
- heavy run splitting as Word's revision-save ids produce it: each paragraph is cut into about
  ``runs_per_paragraph`` runs at random positions (mid-word too), each with a ``w:rsidR``, with
  adjacent runs of identical formatting, and ``w:proofErr``, ``w:bookmarkStart``/``End`` and
  ``w:lastRenderedPageBreak`` sprinkled between and inside them.

The text depends only on ``(kind, seed, pages, parties)``; ``runs_per_paragraph`` changes the
XML, never the text. The output is byte-for-byte reproducible (fixed zip timestamps and core
properties).

``python -m testing.contractgen OUTDIR`` regenerates the documents of ``sample_contracts/``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import io
import itertools
import random
import re
import sys
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from lxml import etree

from redline.ooxml import W_NS, XML_SPACE, w

Kind = Literal["lease", "nda", "msa"]
Story = Literal["body", "header", "footer", "footnotes"]

WORDS_PER_PAGE = 500
"""How ``pages`` is turned into an amount of text."""

NBSP = "\u00a0"

SAMPLES: dict[str, tuple[Kind, int]] = {
    "commercial-lease": ("lease", 0),
    "mutual-nda": ("nda", 0),
    "master-services-agreement": ("msa", 0),
}
"""The documents of ``sample_contracts/``: file stem → (kind, seed)."""

_FIXED_DATE = _dt.datetime(2025, 1, 6, 9, 0, 0, tzinfo=_dt.UTC)
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


# --------------------------------------------------------------------------------------------
# The clause banks
#
# Template mini-language (resolved in this order):
#   [[a|b|c]]   one alternative, chosen by the seed
#   **bold**    *italic*
#   ~           a no-break space ("Section~{ref:rent.late}")
#   {p1} {p2}   the parties' names;  {ref:article} / {ref:article.clause}  a clause's label
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Item:
    text: str
    children: tuple[str, ...] = ()


@dataclass(frozen=True)
class _TableSpec:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class _Clause:
    key: str
    title: str
    body: str
    items: tuple[_Item, ...] = ()
    footnote: str | None = None
    table: _TableSpec | None = None


@dataclass(frozen=True)
class _Article:
    key: str
    title: str
    clauses: tuple[_Clause, ...]


@dataclass(frozen=True)
class _Spec:
    title: str
    parties: tuple[str, str]
    front: tuple[str, ...]
    articles: tuple[_Article, ...]
    closing: tuple[str, ...]
    signature: tuple[str, ...]
    schedule_title: str
    schedule: tuple[str, ...]
    header: str
    footer: str
    cycle_word: str
    extra: tuple[str, ...]
    cycle_extra: tuple[str, ...]


def _c(
    key: str,
    title: str,
    body: str,
    *items: str | tuple[str, tuple[str, ...]],
    footnote: str | None = None,
    table: _TableSpec | None = None,
) -> _Clause:
    its = tuple(_Item(i) if isinstance(i, str) else _Item(i[0], i[1]) for i in items)
    return _Clause(key, title, body, its, footnote, table)


def _a(key: str, title: str, *clauses: _Clause) -> _Article:
    return _Article(key, title, clauses)


_LEASE = _Spec(
    title="COMMERCIAL LEASE AGREEMENT",
    parties=("Harbor Point Properties LLC", "Bluefin Analytics, Inc."),
    front=(
        "This Commercial Lease Agreement (this “**Lease**”) is entered into as of March 1, 2025 "
        "(the “**Effective Date**”) by and between {p1}, a Delaware limited liability company "
        "(“**Landlord**”), and {p2}, a Delaware corporation (“**Tenant**”).",
        "WHEREAS, Landlord is the owner of the office building commonly known as Harbor Point "
        "Center, 400 Pier Avenue, Oakland, California (the “**Building**”); and",
        "WHEREAS, Tenant desires to lease from Landlord, and Landlord desires to lease to Tenant, "
        "certain premises in the Building on the terms set out in this Lease;",
        "NOW, THEREFORE, in consideration of the mutual covenants in this Lease, and for other "
        "good and valuable consideration, the receipt and sufficiency of which are acknowledged, "
        "the parties agree as follows:",
    ),
    articles=(
        _a(
            "defs",
            "Definitions",
            _c(
                "premises",
                "",
                "“**Premises**” means the space on the fourth (4th) floor of the Building "
                "described in Schedule~1, comprising approximately [[12,400|12,450|12,380]] "
                "rentable square feet.",
                footnote="Rentable area is measured in accordance with ANSI/BOMA Z65.1–2017 "
                "(*Office Buildings: Standard Methods of Measurement*).",
            ),
            _c(
                "common",
                "",
                "“**Common Areas**” means all areas of the Building and the land on which it "
                "stands that Landlord makes available for the non-exclusive use of tenants, "
                "including lobbies, corridors, restrooms, elevators, loading docks and parking "
                "facilities.",
            ),
            _c(
                "opex",
                "",
                "“**Operating Expenses**” means all costs Landlord incurs in operating, "
                "maintaining, insuring and repairing the Building and the Common Areas, excluding "
                "capital expenditures, leasing commissions, and costs reimbursed by insurance.",
            ),
            _c(
                "bday",
                "",
                "“**Business Day**” means any day other than a Saturday, a Sunday or a day on "
                "which banks in [[California|San Francisco]] are authorized to close.",
            ),
        ),
        _a(
            "term",
            "Term",
            _c(
                "initial",
                "Initial Term",
                "The term of this Lease (the “**Term**”) begins on April 1, 2025 (the "
                "“**Commencement Date**”) and ends on March 31, 2030, unless terminated earlier "
                "under this Lease. The lease years 2025–2030 are together the initial term.",
            ),
            _c(
                "renewal",
                "Renewal Option",
                "Provided no Event of Default exists, Tenant may extend the Term for one (1) "
                "additional period of five (5) years by giving Landlord written notice not less "
                "than nine (9) months and not more than fifteen (15) months before the Term "
                "expires. Base Rent for the renewal period shall equal [[ninety-five percent "
                "(95%)|one hundred percent (100%)]] of the fair market rent then prevailing for "
                "comparable space in [[Oakland|the East Bay]].",
            ),
            _c(
                "holdover",
                "Holding Over",
                "If Tenant remains in possession after the Term ends without Landlord’s written "
                "consent, Tenant shall be a tenant at sufferance and shall pay Base Rent at one "
                "hundred fifty percent (150%) of the rate in effect immediately before the "
                "expiration, prorated on a daily basis.",
            ),
            _c(
                "access",
                "Early Access",
                "Landlord shall give Tenant access to the Premises [[thirty (30)|forty-five (45)]] "
                "days before the Commencement Date to install furniture, cabling and equipment. "
                "Tenant’s early access is subject to all terms of this Lease except the obligation "
                "to pay Base Rent.",
            ),
        ),
        _a(
            "use",
            "Use of Premises",
            _c(
                "permitted",
                "Permitted Use",
                "Tenant shall use the Premises solely for general office purposes and for no other "
                "purpose without Landlord’s prior written consent, which Landlord shall not "
                "unreasonably withhold.",
            ),
            _c(
                "laws",
                "Compliance with Laws",
                "Tenant shall comply with all laws, ordinances and regulations applicable to "
                "Tenant’s use of the Premises — including the Americans with Disabilities Act — at "
                "Tenant’s sole cost and expense.",
            ),
            _c(
                "prohibited",
                "Prohibited Activities",
                "Tenant shall not:",
                (
                    "use or store any hazardous materials on the Premises, other than:",
                    (
                        "customary office and janitorial supplies in quantities that comply with law; and",
                        "fuel contained in the equipment of Tenant’s contractors while they are on "
                        "the Premises;",
                    ),
                ),
                "commit any nuisance or permit any activity that unreasonably disturbs other "
                "tenants of the Building; or",
                "overload the floors or the electrical systems of the Building beyond their design capacity.",
            ),
        ),
        _a(
            "rent",
            "Rent",
            _c(
                "base",
                "Base Rent",
                "Tenant shall pay Landlord base rent (“**Base Rent**”) in equal monthly "
                "installments, in advance, on the first (1st) day of each calendar month during "
                "the Term, in the amounts set out in the table below:",
                table=_TableSpec(
                    ("Period", "Annual Base Rent", "Monthly Installment"),
                    (
                        ("Months 1–12", "$396,800.00", "$33,066.67"),
                        ("Months 13–24", "$408,704.00", "$34,058.67"),
                        ("Months 25–36", "$420,965.12", "$35,080.43"),
                        ("Months 37–60", "$433,594.07", "$36,132.84"),
                    ),
                ),
            ),
            _c(
                "opex",
                "Operating Expenses",
                "Tenant shall pay Operating Expenses in an amount equal to Tenant’s Proportionate "
                "Share, being [[14.6%|14.8%|15.1%]], of the Operating Expenses for each calendar "
                "year, in monthly estimated installments together with Base Rent. Within one "
                "hundred twenty (120) days after each calendar year, Landlord shall deliver a "
                "statement of the actual Operating Expenses for that year.",
            ),
            _c(
                "late",
                "Late Payment",
                "If Tenant fails to pay any amount within **ten (10)** days after it is due, "
                "Tenant shall pay a late charge equal to five percent (5%) of the overdue amount, "
                "together with interest at the rate of ten percent (10%) per annum from the due "
                "date until paid.",
            ),
            _c(
                "deposit",
                "Security Deposit",
                "On signing this Lease, Tenant shall deliver to Landlord a security deposit of "
                "$66,133.34 (the “**Security Deposit**”). Landlord shall return the Security "
                "Deposit, less any amounts applied under this Lease, within thirty (30) days after "
                "the Term ends.",
            ),
            _c(
                "abatement",
                "Rent Abatement",
                "Provided no Event of Default exists, Base Rent for months two (2) through four "
                "(4) of the Term is abated. If an Event of Default occurs, the abated Base Rent "
                "becomes immediately due.",
            ),
        ),
        _a(
            "services",
            "Services and Utilities",
            _c(
                "building",
                "Building Services",
                "Landlord shall furnish heating, ventilation and air conditioning to the Premises "
                "from 8:00 a.m. to 6:00 p.m. on Business Days, passenger elevator service at all "
                "times, and janitorial service five (5) days a week.",
            ),
            _c(
                "interruption",
                "Interruption",
                "Landlord is not liable for any interruption of services caused by repairs, "
                "strikes, accidents or events beyond its reasonable control. If an interruption "
                "within Landlord’s control continues for more than five (5) consecutive Business "
                "Days and makes the Premises untenantable, Base Rent abates until the service is "
                "restored.",
            ),
            _c(
                "utilities",
                "Utilities",
                "Tenant shall pay for all electricity consumed in the Premises, as measured by a "
                "separate meter that Landlord installs at its own cost.",
            ),
        ),
        _a(
            "repairs",
            "Maintenance and Repairs",
            _c(
                "landlord",
                "Landlord’s Obligations",
                "Landlord shall maintain in good repair the roof, foundation, structural elements "
                "and base building systems of the Building, the cost of which shall be included in "
                "Operating Expenses to the extent permitted by Section~{ref:defs.opex}.",
            ),
            _c(
                "tenant",
                "Tenant’s Obligations",
                "Tenant shall keep the Premises in good and clean condition and shall promptly "
                "repair any damage caused by Tenant or its employees, agents or invitees, at "
                "Tenant’s sole cost and expense.",
            ),
            _c(
                "alterations",
                "Alterations",
                "Tenant shall not make any alterations to the Premises costing more than "
                "[[$25,000|$30,000]] in any twelve-month period without Landlord’s prior written "
                "consent. All alterations shall be performed by licensed contractors approved by "
                "Landlord.",
            ),
        ),
        _a(
            "insurance",
            "Insurance and Indemnity",
            _c(
                "tenant",
                "Tenant’s Insurance",
                "Tenant shall maintain commercial general liability insurance with limits of not "
                "less than $2,000,000 per occurrence, naming Landlord as an additional insured, "
                "and shall deliver certificates evidencing that insurance before the Commencement "
                "Date.",
            ),
            _c(
                "subrogation",
                "Waiver of Subrogation",
                "Landlord and Tenant each waive all rights of recovery against the other for any "
                "loss covered by property insurance that the waiving party carries or is required "
                "to carry under this Lease.",
            ),
            _c(
                "indemnity",
                "Indemnity",
                "Tenant shall indemnify, defend and hold harmless Landlord from all claims arising "
                "from Tenant’s use of the Premises, except to the extent caused by Landlord’s "
                "negligence or willful misconduct.",
            ),
        ),
        _a(
            "casualty",
            "Casualty and Condemnation",
            _c(
                "damage",
                "Damage",
                "If the Premises are damaged by fire or other casualty, Landlord shall repair the "
                "damage within one hundred eighty (180) days, and Base Rent abates in proportion "
                "to the part of the Premises that is unusable during the repair.",
            ),
            _c(
                "termination",
                "Termination Right",
                "If Landlord reasonably estimates that the repair will take more than two hundred "
                "seventy (270) days, either party may terminate this Lease by written notice given "
                "within thirty (30) days after Landlord delivers its estimate.",
            ),
            _c(
                "condemnation",
                "Condemnation",
                "If all or a material part of the Premises is taken by eminent domain, this Lease "
                "ends on the date of the taking, and Landlord is entitled to the entire award, "
                "except any separate award for Tenant’s moving expenses.",
            ),
        ),
        _a(
            "assignment",
            "Assignment and Subletting",
            _c(
                "consent",
                "Consent Required",
                "Tenant shall not assign this Lease or sublet all or any part of the Premises "
                "without Landlord’s prior written consent, which Landlord shall not unreasonably "
                "withhold, condition or delay.",
            ),
            _c(
                "permitted",
                "Permitted Transfers",
                "Notwithstanding Section~{ref:assignment.consent}, Tenant may assign this Lease to "
                "an affiliate or to a successor by merger without Landlord’s consent, provided "
                "Tenant gives Landlord written notice within ten (10) days after the transfer.",
            ),
        ),
        _a(
            "default",
            "Default and Remedies",
            _c(
                "events",
                "Events of Default",
                "Each of the following is an “**Event of Default**”:",
                "Tenant fails to pay any Rent within five (5) Business Days after written notice "
                "that it is due;",
                "Tenant fails to perform any other obligation within thirty (30) days after "
                "written notice, or, if the failure cannot reasonably be cured within thirty (30) "
                "days, Tenant fails to begin the cure within that period and diligently complete "
                "it; or",
                "Tenant becomes insolvent, makes an assignment for the benefit of creditors, or "
                "files a petition in bankruptcy.",
            ),
            _c(
                "remedies",
                "Remedies",
                "On an Event of Default, Landlord may terminate this Lease by written notice to "
                "Tenant and recover possession of the Premises, in addition to any other remedy "
                "available at law or in equity.",
            ),
            _c(
                "surrender",
                "Surrender",
                "At the end of the Term, Tenant shall surrender the Premises broom clean and in "
                "good condition, ordinary wear and tear and casualty excepted, and shall remove "
                "its personal property and any alterations that Landlord requires it to remove.",
            ),
        ),
        _a(
            "misc",
            "Miscellaneous",
            _c(
                "notices",
                "Notices",
                "All notices under this Lease shall be in writing and delivered by hand, by "
                "nationally recognized overnight courier, or by email with confirmation of "
                "receipt, to the addresses set out on the signature page.",
            ),
            _c(
                "law",
                "Governing Law",
                "This Lease is governed by the laws of the State of California, without regard to "
                "its conflict of laws rules.",
            ),
            _c(
                "quiet",
                "Quiet Enjoyment",
                "So long as no Event of Default exists, Tenant shall peaceably and quietly enjoy "
                "the Premises without disturbance by Landlord or anyone claiming through Landlord.",
            ),
            _c(
                "brokers",
                "Brokers",
                "Each party represents that it has dealt with no broker in connection with this "
                "Lease other than Westshore Realty Advisors, whose commission Landlord shall pay "
                "under a separate agreement.",
            ),
            _c(
                "entire",
                "Entire Agreement",
                "This Lease, together with its Schedules, is the entire agreement between the "
                "parties regarding its subject matter and supersedes all prior negotiations and "
                "agreements — written or oral.",
            ),
        ),
    ),
    closing=("IN WITNESS WHEREOF, the parties have executed this Lease as of the Effective Date.",),
    signature=(
        "LANDLORD: {p1}",
        "By: ______________________________",
        "Name: Dana K. Whitfield, Managing Member",
        "TENANT: {p2}",
        "By: ______________________________",
        "Name: Priya R. Menon, Chief Executive Officer",
    ),
    schedule_title="Schedule~1 — Description of the Premises",
    schedule=(
        "The Premises comprise Suite 400 on the fourth (4th) floor of the Building, shown hatched "
        "on the floor plan attached to this Schedule~1, together with the right to use "
        "twenty-four (24) unreserved parking spaces in the Building’s parking garage.",
    ),
    header="Commercial Lease — {p1} / {p2}",
    footer="Confidential — Page ",
    cycle_word="Phase",
    cycle_extra=(
        "This Section applies to the space added in {cycle} on the same terms as to the original Premises.",
        "For {cycle}, the periods in this Section run from the date Landlord delivers the "
        "additional space to Tenant.",
        "Landlord shall confirm the {cycle} delivery date to Tenant in writing within "
        "[[five (5)|ten (10)]] Business Days after delivery.",
        "Amounts payable under this Section for {cycle} are stated separately in each invoice.",
        "Tenant’s rights under this Section for {cycle} are personal to the original Tenant.",
        "The parties shall record any {cycle} adjustment under this Section in a short amendment.",
    ),
    extra=(
        "Tenant shall provide Landlord with such information as Landlord reasonably requests to "
        "verify compliance with this Section.",
        "Landlord’s consent under this Section shall not be unreasonably withheld, conditioned or delayed.",
        "Any amount payable by Tenant under this Section is Additional Rent.",
        "The parties shall cooperate in good faith to give effect to this Section.",
        "Tenant shall bear the reasonable costs Landlord incurs in reviewing any request made "
        "under this Section.",
        "This Section survives the expiration or earlier termination of the Term.",
        "Nothing in this Section limits Landlord’s rights under Section~{ref:default.remedies}.",
        "Landlord may, but is not obliged to, cure any failure by Tenant under this Section at "
        "Tenant’s expense.",
        "Time is of the essence for each obligation under this Section.",
        "Tenant shall give Landlord not less than [[five (5)|ten (10)|fifteen (15)]] Business "
        "Days’ notice before exercising any right under this Section.",
        "Any dispute under this Section shall be resolved under Section~{ref:misc.law}.",
        "Landlord shall act reasonably and in good faith in making any determination under this Section.",
        "For the period 20[[26|27|28]]–2030, the amounts in this Section are adjusted annually by "
        "[[two|three]] percent.",
        "Tenant’s obligations under this Section are independent covenants — not conditions.",
    ),
)


_NDA = _Spec(
    title="MUTUAL NON-DISCLOSURE AGREEMENT",
    parties=("Northwind Robotics, Inc.", "Alder Systems Ltd."),
    front=(
        "This Mutual Non-Disclosure Agreement (this “**Agreement**”) is made as of January 15, "
        "2025 (the “**Effective Date**”) between {p1}, a Delaware corporation with offices at 1200 "
        "Mission Street, San Francisco, California, and {p2}, a company incorporated in England "
        "and Wales with offices at 18 Charterhouse Square, London (each a “**Party**” and "
        "together the “**Parties**”).",
        "The Parties wish to explore a potential collaboration on autonomous warehouse systems "
        "(the “**Purpose**”) and, in doing so, expect to disclose confidential information to "
        "each other. Each Party’s obligations under this Agreement apply to it both as a "
        "“**Disclosing Party**” and as a “**Receiving Party**”.",
    ),
    articles=(
        _a(
            "ci",
            "Confidential Information",
            _c(
                "definition",
                "Definition",
                "“**Confidential Information**” means all non-public information disclosed by a "
                "Disclosing Party to a Receiving Party, whether orally, in writing or in any other "
                "form, that is marked as confidential or that a reasonable person would understand "
                "to be confidential given the nature of the information and the circumstances of "
                "disclosure.",
            ),
            _c(
                "exclusions",
                "Exclusions",
                "Confidential Information does not include information that:",
                "is or becomes generally available to the public other than through a breach of "
                "this Agreement by the Receiving Party;",
                "was known to the Receiving Party without restriction before it was disclosed by "
                "the Disclosing Party;",
                "is received by the Receiving Party from a third party that is not under an "
                "obligation of confidence; or",
                (
                    "is independently developed by the Receiving Party, provided that the "
                    "Receiving Party can show, by written records:",
                    (
                        "that the development was made by personnel who had no access to the "
                        "Disclosing Party’s Confidential Information; and",
                        "that no Confidential Information was used in the development.",
                    ),
                ),
            ),
            _c(
                "oral",
                "Oral Disclosures",
                "Confidential Information disclosed orally shall be identified as confidential at "
                "the time of disclosure and summarized in writing within thirty (30) days after "
                "the disclosure.",
            ),
        ),
        _a(
            "obligations",
            "Obligations of the Receiving Party",
            _c(
                "use",
                "Non-Use and Non-Disclosure",
                "The Receiving Party shall use the Disclosing Party’s Confidential Information "
                "only for the Purpose and shall not disclose it to any third party except as "
                "permitted by this Agreement.",
            ),
            _c(
                "care",
                "Standard of Care",
                "The Receiving Party shall protect the Disclosing Party’s Confidential Information "
                "using at least the same degree of care it uses to protect its own confidential "
                "information of a similar nature, and in no event less than reasonable care.",
            ),
            _c(
                "security",
                "Security",
                "The Receiving Party shall store Confidential Information in a secure location "
                "and, for electronic records, with access controls and encryption consistent with "
                "industry practice.",
            ),
            _c(
                "reps",
                "Representatives",
                "The Receiving Party may disclose Confidential Information to its employees, "
                "officers, advisers and contractors (its “**Representatives**”) who need to know "
                "it for the Purpose and who are bound by confidentiality obligations no less "
                "protective than those in this Agreement. The Receiving Party shall be responsible "
                "for any breach of this Agreement by its Representatives.",
            ),
            _c(
                "reverse",
                "No Reverse Engineering",
                "The Receiving Party shall not reverse engineer, decompile or disassemble any "
                "prototype, software or other tangible object that embodies the Disclosing Party’s "
                "Confidential Information.",
            ),
            _c(
                "notify",
                "Unauthorized Use",
                "The Receiving Party shall notify the Disclosing Party promptly, and in any event "
                "within [[two (2)|three (3)]] Business Days, after becoming aware of any "
                "unauthorized use or disclosure of the Disclosing Party’s Confidential "
                "Information, and shall cooperate with the Disclosing Party to regain possession "
                "of it.",
                footnote="“Business Day” means a day on which banks are open for general business "
                "in both New York and London.",
            ),
        ),
        _a(
            "compelled",
            "Compelled Disclosure",
            _c(
                "notice",
                "Notice",
                "If the Receiving Party is required by law, regulation or court order to disclose "
                "any Confidential Information, it shall, to the extent legally permitted, give the "
                "Disclosing Party prompt written notice so that the Disclosing Party may seek a "
                "protective order.",
            ),
            _c(
                "limited",
                "Limited Disclosure",
                "The Receiving Party shall disclose only that portion of the Confidential "
                "Information that its counsel advises is legally required to be disclosed, and "
                "shall use reasonable efforts to obtain confidential treatment for it.",
            ),
            _c(
                "whistleblower",
                "Protected Reporting",
                "Nothing in this Agreement prevents either Party from reporting a possible "
                "violation of law to a governmental authority or from making other disclosures "
                "protected under the whistleblower provisions of applicable law.",
            ),
        ),
        _a(
            "term",
            "Term and Return of Information",
            _c(
                "term",
                "Term",
                "This Agreement begins on the Effective Date and continues for two (2) years — "
                "covering disclosures made during 2025–2027 — unless a Party terminates it earlier "
                "on thirty (30) days’ written notice to the other Party.",
            ),
            _c(
                "survival",
                "Survival",
                "The Receiving Party’s obligations under Section~{ref:obligations} survive for "
                "[[three (3)|five (5)]] years after the expiry or termination of this Agreement; "
                "for trade secrets, they survive for as long as the information remains a trade "
                "secret under applicable law.",
            ),
            _c(
                "return",
                "Return or Destruction",
                "Within ten (10) days after the Disclosing Party’s written request, the Receiving "
                "Party shall return or destroy all Confidential Information in its possession and "
                "certify the destruction in writing, except for copies retained under its routine "
                "backup procedures.",
            ),
        ),
        _a(
            "nolicense",
            "No License; No Warranty",
            _c(
                "license",
                "No License",
                "Nothing in this Agreement grants the Receiving Party any license or other right "
                "in the Disclosing Party’s Confidential Information, except the limited right to "
                "use it for the Purpose.",
            ),
            _c(
                "asis",
                "As Is",
                "All Confidential Information is provided “as is”. Neither Party makes any "
                "representation or warranty as to the accuracy or completeness of the Confidential "
                "Information it discloses.",
            ),
            _c(
                "proceed",
                "No Obligation to Proceed",
                "Neither Party is obliged to enter into any further agreement or transaction. "
                "Either Party may end discussions regarding the Purpose at any time, for any "
                "reason, by written notice to the other Party.",
            ),
        ),
        _a(
            "compliance",
            "Export Control and Data Protection",
            _c(
                "export",
                "Export Control",
                "Each Party shall comply with all applicable export control laws and shall not "
                "export, re-export or transfer any Confidential Information except in compliance "
                "with those laws.",
            ),
            _c(
                "personal",
                "Personal Data",
                "Neither Party intends to disclose personal data under this Agreement. If a Party "
                "needs to disclose personal data, the Parties shall first agree in writing on the "
                "terms that applicable data protection law requires.",
            ),
        ),
        _a(
            "ownership",
            "Ownership and Feedback",
            _c(
                "ownership",
                "Ownership",
                "All Confidential Information remains the property of the Disclosing Party, and no "
                "disclosure under this Agreement transfers any right in it to the Receiving Party.",
            ),
            _c(
                "feedback",
                "Feedback",
                "If a Party provides suggestions or feedback about the other Party’s products, the "
                "other Party may use that feedback without restriction or obligation, provided "
                "that it does not identify the Party that gave it.",
            ),
            _c(
                "securities",
                "Securities Laws",
                "Each Party is aware that securities laws prohibit any person who has material, "
                "non-public information about a company from purchasing or selling securities of "
                "that company in reliance on that information.",
            ),
        ),
        _a(
            "remedies",
            "Remedies",
            _c(
                "equitable",
                "Equitable Relief",
                "Each Party acknowledges that a breach of this Agreement may cause the other Party "
                "irreparable harm for which damages would not be an adequate remedy, and that the "
                "other Party may seek injunctive relief without proving actual damages or posting "
                "a bond.",
            ),
            _c(
                "nonsolicit",
                "Non-Solicitation",
                "For twelve (12) months after the Effective Date, neither Party shall solicit for "
                "employment any employee of the other Party with whom it had contact in connection "
                "with the Purpose, except through general advertisements not targeted at those "
                "employees.",
            ),
            _c(
                "costs",
                "Costs",
                "In any action to enforce this Agreement, the prevailing Party is entitled to "
                "recover its reasonable attorneys’ fees and costs.",
            ),
        ),
        _a(
            "general",
            "General",
            _c(
                "law",
                "Governing Law and Jurisdiction",
                "This Agreement is governed by the laws of the State of New York, and each Party "
                "submits to the exclusive jurisdiction of the state and federal courts located in "
                "New York County.",
            ),
            _c(
                "assignment",
                "Assignment",
                "Neither Party may assign this Agreement without the other Party’s prior written "
                "consent, except to a successor to all or substantially all of its business.",
            ),
            _c(
                "amendment",
                "Amendment and Waiver",
                "No amendment of this Agreement is effective unless it is in writing and signed by "
                "both Parties. No failure or delay in exercising any right under this Agreement "
                "operates as a waiver of it.",
            ),
            _c(
                "severability",
                "Severability",
                "If any provision of this Agreement is held invalid or unenforceable, the "
                "remaining provisions remain in full force, and the invalid provision shall be "
                "replaced by a valid provision that comes closest to the Parties’ intent.",
            ),
            _c(
                "relationship",
                "Relationship of the Parties",
                "Nothing in this Agreement creates any agency, partnership or joint venture "
                "between the Parties, and neither Party may bind the other.",
            ),
            _c(
                "notices",
                "Notices",
                "Notices under this Agreement shall be sent to the addresses below, or to any "
                "other address a Party designates by notice to the other Party:",
                table=_TableSpec(
                    ("Party", "Address", "Email"),
                    (
                        (
                            "Northwind Robotics, Inc.",
                            "1200 Mission Street, San Francisco, CA 94103",
                            "legal@northwind.example",
                        ),
                        (
                            "Alder Systems Ltd.",
                            "18 Charterhouse Square, London EC1M 6AX",
                            "notices@alder.example",
                        ),
                    ),
                ),
            ),
            _c(
                "entire",
                "Entire Agreement",
                "This Agreement is the entire agreement between the Parties regarding its subject "
                "matter and supersedes all prior agreements — written or oral — regarding that "
                "subject matter.",
            ),
            _c(
                "counterparts",
                "Counterparts",
                "This Agreement may be executed in counterparts, including by electronic "
                "signature, each of which is an original and all of which together are one "
                "instrument.",
            ),
        ),
    ),
    closing=("Each Party has signed this Agreement by its authorized representative.",),
    signature=(
        "{p1}",
        "By: ______________________________",
        "Name: Marcus Oyelaran, General Counsel",
        "{p2}",
        "By: ______________________________",
        "Name: Helen Achterberg, Director",
    ),
    schedule_title="Schedule~1 — The Purpose",
    schedule=(
        "Evaluation of a joint offering that combines Northwind’s robotic picking arms with "
        "Alder’s warehouse orchestration software, including technical due diligence, site visits "
        "and commercial discussions during the period 2025–2026.",
    ),
    header="Mutual Non-Disclosure Agreement — Strictly Confidential",
    footer="{p1} / {p2} — Page ",
    cycle_word="Program",
    cycle_extra=(
        "For {cycle}, each Party shall designate a program lead responsible for compliance with "
        "this Section.",
        "Disclosures made under {cycle} shall be logged separately from other disclosures.",
        "This Section applies to {cycle} from the date of its kickoff meeting.",
        "The Parties may agree in writing on additional safeguards for {cycle} under this Section.",
        "Confidential Information exchanged in {cycle} shall be labeled with the program name.",
        "Each Party shall report to the other on its compliance with this Section at the end of {cycle}.",
    ),
    extra=(
        "The Receiving Party shall keep a record of each person to whom it discloses Confidential "
        "Information under this Section.",
        "This Section applies equally to Confidential Information disclosed before the Effective Date.",
        "The Disclosing Party may, by written notice, designate additional information as "
        "Confidential Information under this Section.",
        "Each Party shall bear its own costs of complying with this Section.",
        "The obligations in this Section are in addition to, and not in substitution for, those in "
        "Section~{ref:obligations.care}.",
        "Nothing in this Section requires a Party to disclose any particular information.",
        "A Party’s failure to enforce this Section is not a waiver of its rights under it.",
        "The Receiving Party shall ensure that its Representatives comply with this Section.",
        "Any notice under this Section shall be given in accordance with Section~{ref:general.notices}.",
        "For disclosures made during 20[[25|26]]–2027, this Section applies without modification.",
        "The Parties shall discuss in good faith — and document in writing — any question arising "
        "under this Section.",
        "This Section survives for [[three (3)|five (5)]] years after the Agreement ends.",
    ),
)


_MSA = _Spec(
    title="MASTER SERVICES AGREEMENT",
    parties=("Meridian Health Partners, Inc.", "Quarry Lane Software LLC"),
    front=(
        "This Master Services Agreement (this “**Agreement**”) is entered into as of February 3, "
        "2025 (the “**Effective Date**”) between {p1}, a Delaware corporation (“**Customer**”), "
        "and {p2}, a Colorado limited liability company (“**Provider**”).",
        "Customer wishes to engage Provider to provide certain software development, cloud "
        "migration and support services from time to time, and Provider is willing to provide "
        "them on the terms of this Agreement.",
    ),
    articles=(
        _a(
            "defs",
            "Definitions",
            _c(
                "services",
                "",
                "“**Services**” means the professional, software and support services described in "
                "each Statement of Work.",
            ),
            _c(
                "sow",
                "",
                "“**Statement of Work**” or “**SOW**” means a document executed by both parties "
                "that references this Agreement and describes Services, Deliverables, fees and a "
                "schedule. The first Statement of Work is attached as Schedule~1.",
            ),
            _c(
                "deliverables",
                "",
                "“**Deliverables**” means all work product that Provider delivers to Customer "
                "under a Statement of Work.",
            ),
            _c(
                "data",
                "",
                "“**Customer Data**” means all data, including personal information, that Customer "
                "or its users provide to Provider in connection with the Services.",
                footnote="“Personal information” has the meaning given in the California Consumer "
                "Privacy Act and, where applicable, includes protected health information.",
            ),
        ),
        _a(
            "services",
            "Services",
            _c(
                "performance",
                "Performance",
                "Provider shall perform the Services in a professional and workmanlike manner, in "
                "accordance with generally accepted industry standards and each applicable "
                "Statement of Work.",
            ),
            _c(
                "personnel",
                "Personnel",
                "Provider shall assign qualified personnel to perform the Services and shall "
                "replace any individual to whom Customer reasonably objects within ten (10) "
                "Business Days after Customer’s request.",
            ),
            _c(
                "sla",
                "Service Levels",
                "Provider shall meet the service levels in the table below. If Provider fails to "
                "meet a service level in any month, Customer’s sole monetary remedy is the service "
                "credit shown:",
                table=_TableSpec(
                    ("Service level", "Target", "Service credit"),
                    (
                        ("Availability", "99.9% per month", "5% of monthly fees"),
                        ("Severity 1 response", "30 minutes", "2% of monthly fees"),
                        ("Severity 2 response", "4 hours", "1% of monthly fees"),
                    ),
                ),
            ),
            _c(
                "changes",
                "Change Orders",
                "Either party may request changes to a Statement of Work. No change is binding "
                "until both parties sign a written change order describing the change, its effect "
                "on fees and any adjustment to the schedule.",
            ),
            _c(
                "acceptance",
                "Acceptance",
                "Customer shall review each Deliverable within ten (10) Business Days after "
                "delivery and either accept it or describe in writing how it fails to meet the "
                "applicable acceptance criteria. Provider shall correct any failure and redeliver "
                "the Deliverable within ten (10) Business Days.",
            ),
            _c(
                "subcontractors",
                "Subcontractors",
                "Provider may use subcontractors only with Customer’s prior written consent and "
                "remains responsible for the acts and omissions of its subcontractors as if they "
                "were its own.",
            ),
        ),
        _a(
            "fees",
            "Fees and Payment",
            _c(
                "fees",
                "Fees",
                "Customer shall pay the fees set out in each Statement of Work. Unless a Statement "
                "of Work states otherwise, fees are invoiced monthly in arrears.",
            ),
            _c(
                "invoices",
                "Invoices",
                "Customer shall pay each undisputed invoice within thirty (30) days after receipt. "
                "Customer may withhold any amount it disputes in good faith by notifying Provider "
                "of the dispute before the due date.",
            ),
            _c(
                "taxes",
                "Taxes",
                "Fees exclude taxes. Customer shall pay all sales, use and similar taxes on the "
                "Services, other than taxes on Provider’s net income.",
            ),
            _c(
                "expenses",
                "Expenses",
                "Customer shall reimburse Provider’s reasonable travel expenses incurred with "
                "Customer’s prior written approval and in accordance with Customer’s travel "
                "policy.",
            ),
            _c(
                "late",
                "Late Payment",
                "Undisputed amounts not paid when due bear interest at one percent (1%) per month "
                "or the maximum rate permitted by law, whichever is lower.",
            ),
            _c(
                "records",
                "Records and Audit",
                "Provider shall keep accurate records of the time and expenses billed under each "
                "Statement of Work for three (3) years after the related invoice, and Customer may "
                "audit them once a year on reasonable notice.",
            ),
        ),
        _a(
            "ip",
            "Intellectual Property",
            _c(
                "deliverables",
                "Deliverables",
                "On payment in full, Provider assigns to Customer all right, title and interest in "
                "the Deliverables, excluding Provider Materials.",
            ),
            _c(
                "materials",
                "Provider Materials",
                "Provider retains ownership of its pre-existing tools, software and know-how "
                "(“**Provider Materials**”) and grants Customer a non-exclusive, perpetual, "
                "royalty-free license to use any Provider Materials incorporated in a "
                "Deliverable.",
            ),
        ),
        _a(
            "confidentiality",
            "Confidentiality and Data Protection",
            _c(
                "confidentiality",
                "Confidentiality",
                "Each party shall keep the other party’s confidential information confidential and "
                "use it only to perform or receive the Services.",
            ),
            _c(
                "data",
                "Customer Data",
                "Provider shall process Customer Data only on Customer’s documented instructions "
                "and shall implement appropriate technical and organizational measures to protect "
                "it against unauthorized access, loss or alteration.",
            ),
            _c(
                "incidents",
                "Security Incidents",
                "Provider shall notify Customer without undue delay, and in any event within "
                "[[forty-eight (48)|seventy-two (72)]] hours, after becoming aware of any breach "
                "of security affecting Customer Data.",
            ),
            _c(
                "compliance",
                "Compliance",
                "Provider shall comply with all laws applicable to its performance of the "
                "Services, including the Health Insurance Portability and Accountability Act, and "
                "shall sign a business associate agreement on Customer’s request.",
            ),
            _c(
                "screening",
                "Personnel Screening",
                "Provider shall ensure that each individual who has access to Customer Data has "
                "passed a background check consistent with Customer’s policies.",
            ),
        ),
        _a(
            "warranties",
            "Warranties",
            _c(
                "services",
                "Services Warranty",
                "Provider warrants that the Services will conform to the applicable Statement of "
                "Work for ninety (90) days after acceptance. Customer’s exclusive remedy for "
                "breach of this warranty is re-performance of the non-conforming Services or, if "
                "Provider cannot re-perform them, a refund of the fees paid for them.",
            ),
            _c(
                "disclaimer",
                "Disclaimer",
                "EXCEPT AS EXPRESSLY STATED IN THIS AGREEMENT, NEITHER PARTY MAKES ANY WARRANTY, "
                "EXPRESS OR IMPLIED, INCLUDING ANY WARRANTY OF MERCHANTABILITY OR FITNESS FOR A "
                "PARTICULAR PURPOSE.",
            ),
        ),
        _a(
            "liability",
            "Limitation of Liability",
            _c(
                "cap",
                "Cap",
                "Each party’s total liability arising out of this Agreement shall not exceed the "
                "fees paid or payable by Customer in the twelve (12) months preceding the claim.",
            ),
            _c(
                "exclusion",
                "Exclusion",
                "Neither party is liable for any indirect, consequential, special or punitive "
                "damages, or for lost profits or revenues, even if advised of their possibility.",
            ),
            _c(
                "exceptions",
                "Exceptions",
                "The limits in Section~{ref:liability.cap} and Section~{ref:liability.exclusion} "
                "do not apply to:",
                "a party’s indemnification obligations;",
                "a party’s breach of Section~{ref:confidentiality}; or",
                "a party’s gross negligence, fraud or willful misconduct.",
            ),
        ),
        _a(
            "indemnity",
            "Indemnification",
            _c(
                "provider",
                "Provider’s Indemnity",
                "Provider shall defend Customer against any third-party claim alleging that a "
                "Deliverable infringes any patent, copyright or trade secret, and shall pay any "
                "damages finally awarded on that claim.",
            ),
            _c(
                "customer",
                "Customer’s Indemnity",
                "Customer shall defend Provider against any third-party claim arising from "
                "Customer Data or from Customer’s use of the Services in breach of this Agreement.",
            ),
            _c(
                "procedure",
                "Procedure",
                "The indemnified party shall give prompt notice of the claim, allow the "
                "indemnifying party to control its defense, and provide reasonable assistance at "
                "the indemnifying party’s expense.",
            ),
        ),
        _a(
            "insurance",
            "Insurance",
            _c(
                "coverage",
                "Coverage",
                "Provider shall maintain, during the term of this Agreement and for two (2) years "
                "after it, commercial general liability insurance of at least $2,000,000 per "
                "occurrence, professional liability insurance of at least $5,000,000 per claim, "
                "and cyber liability insurance of at least $5,000,000 per claim.",
            ),
        ),
        _a(
            "termination",
            "Term and Termination",
            _c(
                "term",
                "Term",
                "This Agreement begins on the Effective Date and continues for three (3) years "
                "(2025–2028), after which it renews for successive one-year periods unless either "
                "party gives notice of non-renewal at least sixty (60) days before the renewal "
                "date.",
            ),
            _c(
                "cause",
                "Termination for Cause",
                "Either party may terminate this Agreement or any Statement of Work by written "
                "notice if the other party materially breaches it and fails to cure the breach "
                "within thirty (30) days after notice.",
            ),
            _c(
                "effect",
                "Effect of Termination",
                "On termination, Customer shall pay Provider for Services performed through the "
                "termination date, and Provider shall return all Customer Data within thirty (30) "
                "days and then delete its copies.",
            ),
        ),
        _a(
            "general",
            "General",
            _c(
                "contractors",
                "Independent Contractors",
                "The parties are independent contractors. Nothing in this Agreement creates a "
                "partnership, joint venture or agency relationship between them.",
            ),
            _c(
                "law",
                "Governing Law",
                "This Agreement is governed by the laws of the State of Delaware, excluding its "
                "conflict of laws rules.",
            ),
            _c(
                "force",
                "Force Majeure",
                "Neither party is liable for any delay or failure to perform caused by events "
                "beyond its reasonable control — including fire, flood, pandemic or failure of "
                "public utilities — other than a failure to pay money.",
            ),
            _c(
                "assignment",
                "Assignment",
                "Neither party may assign this Agreement without the other party’s prior written "
                "consent, except to a successor in a merger or sale of substantially all of its "
                "assets.",
            ),
            _c(
                "disputes",
                "Dispute Resolution",
                "The parties shall try to resolve any dispute through negotiation between senior "
                "executives for thirty (30) days before starting litigation, except for claims for "
                "injunctive relief.",
            ),
            _c(
                "entire",
                "Entire Agreement",
                "This Agreement, with every Statement of Work, is the entire agreement between the "
                "parties — and it prevails over any conflicting term of a Statement of Work unless "
                "that Statement of Work expressly states otherwise.",
            ),
        ),
    ),
    closing=("Each party has executed this Agreement by its duly authorized officer.",),
    signature=(
        "CUSTOMER: {p1}",
        "By: ______________________________",
        "Name: Lauren Petrakis, Chief Operating Officer",
        "PROVIDER: {p2}",
        "By: ______________________________",
        "Name: Tomasz Wierzbicki, Managing Partner",
    ),
    schedule_title="Schedule~1 — Statement of Work No.~1",
    schedule=(
        "Provider shall migrate Customer’s patient-scheduling platform to a managed cloud "
        "environment in three phases during 2025–2026, for a fixed fee of $480,000 payable in "
        "three equal milestone payments on acceptance of each phase.",
    ),
    header="Master Services Agreement — {p1} and {p2}",
    footer="Confidential — Page ",
    cycle_word="Workstream",
    cycle_extra=(
        "For {cycle}, Provider shall report on this Section to the joint steering committee.",
        "The {cycle} Statement of Work may vary this Section only by express reference to it.",
        "Customer’s {cycle} project sponsor shall approve any deliverable under this Section.",
        "This Section applies to {cycle} from the start date stated in its Statement of Work.",
        "Fees for {cycle} under this Section are invoiced separately from other workstreams.",
        "Provider shall name a {cycle} lead who is accountable for compliance with this Section.",
    ),
    extra=(
        "Provider shall document its performance under this Section in the monthly service report.",
        "Customer shall cooperate reasonably with Provider as needed for Provider to perform under "
        "this Section.",
        "Any change to the obligations in this Section requires a change order under "
        "Section~{ref:services.changes}.",
        "The parties’ project managers shall meet [[weekly|monthly]] to review matters arising "
        "under this Section.",
        "Provider shall not subcontract its obligations under this Section without Customer’s "
        "prior written consent.",
        "This Section survives the termination or expiry of this Agreement.",
        "Customer’s approval under this Section shall not be unreasonably withheld or delayed.",
        "Each party shall bear its own costs of performing this Section.",
        "For the period 20[[25|26]]–2028, the rates relevant to this Section are fixed.",
        "Provider’s obligations under this Section apply to each Statement of Work — current or future.",
        "Any dispute under this Section is subject to Section~{ref:general.law}.",
        "Customer may audit Provider’s compliance with this Section on thirty (30) days’ notice.",
    ),
)

_SPECS: dict[Kind, _Spec] = {"lease": _LEASE, "nda": _NDA, "msa": _MSA}


# --------------------------------------------------------------------------------------------
# The plan: every paragraph's text and formatting, before any XML
# --------------------------------------------------------------------------------------------

_Seg = tuple[str, bool, bool]  # text, bold, italic

_ParaKind = Literal[
    "title", "heading", "clause", "item", "subitem", "body", "signature", "schedule",
    "cell", "header", "footer", "footnote",
]  # fmt: skip


@dataclass
class _Para:
    kind: _ParaKind
    segs: list[_Seg]
    level: int | None = None
    label: str | None = None
    footnote: int | None = None  # id of the footnote referenced at the paragraph's end
    page_field: bool = False  # a PAGE field (cached result "1") at the paragraph's end
    right: bool = False  # right-aligned (amounts in a table)

    @property
    def text(self) -> str:
        return "".join(s[0] for s in self.segs) + ("1" if self.page_field else "")


@dataclass
class _Table:
    rows: list[list[_Para]]


@dataclass
class _Plan:
    title: str
    body: list[_Para | _Table] = field(default_factory=list)
    header: list[_Para] = field(default_factory=list)
    footer: list[_Para] = field(default_factory=list)
    footnotes: list[_Para] = field(default_factory=list)


@dataclass(frozen=True)
class GeneratedParagraph:
    """One paragraph of a generated contract, as a reader of the .docx should see it.

    ``label`` is what Word displays for the paragraph's list number (``"4."``, ``"4.2"``,
    ``"(a)"``, ``"(ii)"``) or None; ``level`` its list level (0 = article heading);
    ``section`` the label path of the enclosing clause (``"4.2"``) or None.
    """

    story: Story
    text: str
    label: str | None
    level: int | None
    section: str | None


_VAR_RE = re.compile(r"\[\[(.+?)\]\]")
_FMT_RE = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*")
_SLOT_RE = re.compile(r"\{(p1|p2|ref:[\w.]+)\}")


class _Renderer:
    def __init__(self, spec: _Spec, rng: random.Random, parties: tuple[str, str]) -> None:
        self.rng = rng
        self.parties = parties
        self.labels: dict[str, str] = {}
        for ai, art in enumerate(spec.articles, 1):
            self.labels[art.key] = str(ai)
            for ci, cl in enumerate(art.clauses, 1):
                self.labels[f"{art.key}.{cl.key}"] = f"{ai}.{ci}"

    def _slot(self, m: re.Match[str]) -> str:
        name = m.group(1)
        if name == "p1":
            return self.parties[0]
        if name == "p2":
            return self.parties[1]
        return self.labels[name[4:]]

    def __call__(self, template: str, *, bold: bool = False) -> list[_Seg]:
        text = _VAR_RE.sub(lambda m: self.rng.choice(m.group(1).split("|")), template)
        segs: list[_Seg] = []
        pos = 0
        for m in _FMT_RE.finditer(text):
            if m.start() > pos:
                segs.append((text[pos : m.start()], bold, False))
            if m.group(1) is not None:
                segs.append((m.group(1), True, False))
            else:
                segs.append((m.group(2), bold, True))
            pos = m.end()
        if pos < len(text):
            segs.append((text[pos:], bold, False))
        out: list[_Seg] = []
        for t, b, i in segs:
            t = _SLOT_RE.sub(self._slot, t.replace("~", NBSP))
            if out and out[-1][1] == b and out[-1][2] == i:
                out[-1] = (out[-1][0] + t, b, i)
            elif t:
                out.append((t, b, i))
        return out


def _words(segs: Sequence[_Seg]) -> int:
    return sum(len(s[0].split()) for s in segs)


def _letters(n: int) -> str:
    """Word's lowerLetter: a, b, … z, aa, bb, …"""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def _roman(n: int) -> str:
    out = ""
    for value, numeral in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while n >= value:
            out += numeral
            n -= value
    return out


_NUMBER_WORDS = (
    ("two", 2), ("three", 3), ("five", 5), ("seven", 7), ("ten", 10), ("fifteen", 15),
    ("twenty", 20), ("thirty", 30), ("forty-five", 45), ("sixty", 60), ("ninety", 90),
    ("one hundred twenty", 120), ("one hundred eighty", 180),
)  # fmt: skip
_NUMBER_RE = re.compile(r"\b(one hundred [a-z]+|[a-z]+(?:-[a-z]+)?) \((\d+)\)(?= [a-z])")
_AMOUNT_RE = re.compile(r"\$(\d{1,3})((?:,\d{3})+)")


def _vary_numbers(text: str, rng: random.Random) -> str:
    """Change the periods and amounts of a repeated clause, so long contracts do not repeat
    whole paragraphs: "thirty (30) days" → "sixty (60) days", "$25,000" → "$41,000"."""

    def number(m: re.Match[str]) -> str:
        if int(m.group(2)) < 2 or m.group(1) not in {w for w, _ in _NUMBER_WORDS}:
            return m.group(0)
        word, n = rng.choice(_NUMBER_WORDS)
        return f"{word} ({n})"

    def amount(m: re.Match[str]) -> str:
        return f"${rng.randint(10, 999)}{m.group(2)}"

    return _AMOUNT_RE.sub(amount, _NUMBER_RE.sub(number, text))


def _build_plan(kind: Kind, seed: int, pages: float | None, parties: tuple[str, str] | None) -> _Plan:
    spec = _SPECS[kind]
    rng = random.Random(f"contractgen:{kind}:{seed}:text")
    render = _Renderer(spec, rng, parties or spec.parties)
    plan = _Plan(title=spec.title.title())

    front = [_Para("title", render(spec.title, bold=True))]
    front += [_Para("body", render(t)) for t in spec.front]
    back: list[_Para | _Table] = [_Para("body", render(t)) for t in spec.closing]
    back += [_Para("signature", render(t)) for t in spec.signature]
    back.append(_Para("schedule", render(spec.schedule_title)))
    back += [_Para("body", render(t)) for t in spec.schedule]
    plan.header.append(_Para("header", render(spec.header)))
    plan.footer.append(_Para("footer", render(spec.footer), page_field=True))

    budget = None if pages is None else max(0.0, pages) * WORDS_PER_PAGE
    fixed = front + [b for b in back if isinstance(b, _Para)] + plan.header + plan.footer
    words = sum(_words(p.segs) for p in fixed)
    plan.body.extend(front)

    def render_clause(
        clause: _Clause, a_no: int, c_no: int, cycle: int, cycle_name: str
    ) -> tuple[list[_Para | _Table], _Para | None, int]:
        body = clause.body
        if cycle > 0 and not body.endswith(":"):
            body = _vary_numbers(body, rng)
            body += " " + rng.choice(spec.cycle_extra).replace("{cycle}", cycle_name)
            body += "".join(" " + rng.choice(spec.extra) for _ in range(rng.randint(0, 1)))
        segs = render(f"**{clause.title}.** {body}" if clause.title else body)
        blocks: list[_Para | _Table] = [_Para("clause", segs, level=1, label=f"{a_no}.{c_no}")]
        n = _words(segs)
        note = None
        if clause.footnote is not None:
            note = _Para("footnote", render(" " + clause.footnote))
            n += _words(note.segs)
        for ii, item in enumerate(clause.items, 1):
            segs = render(item.text)
            blocks.append(_Para("item", segs, level=2, label=f"({_letters(ii)})"))
            n += _words(segs)
            for ci, child in enumerate(item.children, 1):
                segs = render(child)
                blocks.append(_Para("subitem", segs, level=3, label=f"({_roman(ci)})"))
                n += _words(segs)
        if clause.table is not None:
            rows = [[_Para("cell", render(h, bold=True)) for h in clause.table.header]]
            for row in clause.table.rows:
                rows.append([_Para("cell", render(c), right=c[:1] == "$") for c in row])
            blocks.append(_Table(rows))
            n += sum(_words(c.segs) for r in rows for c in r)
        return blocks, note, n

    # Articles in order, cycled with variations for long documents. With a budget, a clause is
    # added only while that brings the word count closer to the budget, so that the amount of
    # text stays proportional to ``pages``.
    a_no = 0
    cycle = 0
    emitted = False
    done = False
    while not done:
        for art in spec.articles:
            a_no += 1
            cycle_name = f"{spec.cycle_word} {cycle + 1}"
            heading = _Para(
                "heading",
                render(art.title if cycle == 0 else f"{art.title} ({cycle_name})"),
                level=0,
                label=f"{a_no}.",
            )
            pending: _Para | None = heading
            for c_no, clause in enumerate(art.clauses, 1):
                blocks, note, n = render_clause(clause, a_no, c_no, cycle, cycle_name)
                if pending is not None:
                    n += _words(pending.segs)
                if budget is not None and emitted and words + n - budget > budget - words:
                    done = True
                    break
                if pending is not None:
                    plan.body.append(pending)
                    pending = None
                if note is not None:
                    plan.footnotes.append(note)
                    first = blocks[0]
                    assert isinstance(first, _Para)
                    first.footnote = len(plan.footnotes)
                plan.body.extend(blocks)
                words += n
                emitted = True
                if budget is not None and words >= budget:
                    done = True
                    break
            if done:
                break
        cycle += 1
        if budget is None:
            done = True
    plan.body.extend(back)
    return plan


# --------------------------------------------------------------------------------------------
# From plan to WordprocessingML
# --------------------------------------------------------------------------------------------

_W_R, _W_T, _W_RPR, _W_PPR = w("r"), w("t"), w("rPr"), w("pPr")
_HEADING_STYLE = "Heading1"


def _el(parent: etree._Element, tag: str, **attrs: str) -> etree._Element:
    return etree.SubElement(parent, w(tag), {w(k): v for k, v in attrs.items()})


class _Writer:
    """Turns planned paragraphs into heavily run-split ``w:p`` content."""

    def __init__(self, rng: random.Random, runs_per_paragraph: int, num_id: int) -> None:
        self.rng = rng
        self.rpp = max(1, runs_per_paragraph)
        self.num_id = str(num_id)
        self.rsids = sorted({f"00{rng.getrandbits(24):06X}" for _ in range(14)})
        self.next_bookmark = 0

    def _rsid(self) -> str:
        return self.rsids[self.rng.randrange(len(self.rsids))]

    def _ppr(self, p: etree._Element, para: _Para) -> None:
        ppr = etree.Element(_W_PPR)
        p.insert(0, ppr)
        k = para.kind
        style = {
            "title": "Title",
            "heading": _HEADING_STYLE,
            "schedule": "Heading2",
            "header": "Header",
            "footer": "Footer",
            "footnote": "FootnoteText",
            "cell": None,
        }.get(k, "BodyText")
        if style is not None:
            _el(ppr, "pStyle", val=style)
        if k == "heading":
            _el(ppr, "keepNext")
        if k in ("clause", "item", "subitem"):
            num = _el(ppr, "numPr")
            _el(num, "ilvl", val=str(para.level))
            _el(num, "numId", val=self.num_id)
        if k == "cell":
            _el(ppr, "spacing", before="40", after="40")
        jc = {"title": "center", "schedule": "center", "footer": "center", "header": "right"}.get(
            k, "both" if k in ("body", "clause", "item", "subitem") else None
        )
        if para.right:
            jc = "right"
        if jc is not None:
            _el(ppr, "jc", val=jc)

    def paragraph(self, p: etree._Element, para: _Para) -> None:
        for child in list(p):
            p.remove(child)
        rsid = self._rsid()
        p.set(w("rsidR"), rsid)
        p.set(w("rsidRDefault"), self._rsid())
        p.set(w("rsidP"), rsid)
        self._ppr(p, para)
        self._runs(p, para.segs, para.kind in ("title", "heading", "schedule", "cell"))
        if para.footnote is not None:
            r = _el(p, "r", rsidR=self._rsid())
            _el(_el(r, "rPr"), "rStyle", val="FootnoteReference")
            _el(r, "footnoteReference", id=str(para.footnote))
        if para.page_field:
            self._page_field(p)

    def _runs(self, p: etree._Element, segs: Sequence[_Seg], short: bool) -> None:
        rng = self.rng
        length = sum(len(s[0]) for s in segs)
        if length == 0:
            return
        target = self.rpp
        if short:  # headings and cells: Word splits short paragraphs less
            target = max(1, target // 3)
        n = max(1, round(target * rng.uniform(0.7, 1.3)))
        n = min(n, max(1, length // 3))
        cuts = sorted(rng.sample(range(1, length), n - 1)) if n > 1 and length > 1 else []
        bookmark: int | None = None
        bookmark_left = 0
        start = 0
        ci = 0
        for text, bold, italic in segs:
            end = start + len(text)
            bounds = [start]
            while ci < len(cuts) and cuts[ci] < end:
                if cuts[ci] > start:
                    bounds.append(cuts[ci])
                ci += 1
            bounds.append(end)
            for a, b in itertools.pairwise(bounds):
                if bookmark is not None and bookmark_left <= 0:
                    _el(p, "bookmarkEnd", id=str(bookmark))
                    bookmark = None
                elif bookmark is None and rng.random() < 0.03:
                    bookmark = self.next_bookmark
                    self.next_bookmark += 1
                    bookmark_left = rng.randint(1, 4)
                    name = f"_Hlk{rng.randrange(10**9):09d}"
                    _el(p, "bookmarkStart", id=str(bookmark), name=name)
                bookmark_left -= 1
                proof = rng.choice(("spell", "gram")) if rng.random() < 0.04 else None
                if proof is not None:
                    _el(p, "proofErr", type=f"{proof}Start")
                self._run(p, text[a - start : b - start], bold, italic)
                if proof is not None:
                    _el(p, "proofErr", type=f"{proof}End")
            start = end
        if bookmark is not None:
            _el(p, "bookmarkEnd", id=str(bookmark))

    def _run(self, p: etree._Element, text: str, bold: bool, italic: bool) -> None:
        rng = self.rng
        r = etree.SubElement(p, _W_R)
        if rng.random() < 0.3:
            r.set(w("rsidRPr"), self._rsid())
        r.set(w("rsidR"), self._rsid())
        if bold or italic:
            rpr = etree.SubElement(r, _W_RPR)
            if bold:
                etree.SubElement(rpr, w("b"))
            if italic:
                etree.SubElement(rpr, w("i"))
        if rng.random() < 0.004:
            etree.SubElement(r, w("lastRenderedPageBreak"))
        t = etree.SubElement(r, _W_T)
        t.text = text
        if text[0].isspace() or text[-1].isspace():
            t.set(XML_SPACE, "preserve")

    def _page_field(self, p: etree._Element) -> None:
        _el(_el(p, "r"), "fldChar", fldCharType="begin")
        instr = _el(_el(p, "r"), "instrText")
        instr.text = " PAGE "
        instr.set(XML_SPACE, "preserve")
        _el(_el(p, "r"), "fldChar", fldCharType="separate")
        _el(_el(p, "r"), "t").text = "1"
        _el(_el(p, "r"), "fldChar", fldCharType="end")


_PPR_ORDER = [
    "pStyle", "keepNext", "keepLines", "pageBreakBefore", "framePr", "widowControl", "numPr",
    "suppressLineNumbers", "pBdr", "shd", "tabs", "suppressAutoHyphens", "kinsoku", "wordWrap",
    "overflowPunct", "topLinePunct", "autoSpaceDE", "autoSpaceDN", "bidi", "adjustRightInd",
    "snapToGrid", "spacing", "ind", "contextualSpacing", "mirrorIndents", "suppressOverlap", "jc",
    "textDirection", "textAlignment", "textboxTightWrap", "outlineLvl", "divId", "cnfStyle", "rPr",
    "sectPr", "pPrChange",
]  # fmt: skip


def _insert_ordered(ppr: etree._Element, child: etree._Element) -> None:
    """Insert ``child`` into a ``w:pPr`` at its schema position."""
    rank = _PPR_ORDER.index(etree.QName(child).localname)
    for i, existing in enumerate(ppr):
        name = etree.QName(existing).localname
        if name in _PPR_ORDER and _PPR_ORDER.index(name) > rank:
            ppr.insert(i, child)
            return
    ppr.append(child)


def _lvl(ilvl: int, fmt: str, text: str, indent: int, style: str | None = None) -> etree._Element:
    lvl = etree.Element(w("lvl"), {w("ilvl"): str(ilvl)})
    _el(lvl, "start", val="1")
    _el(lvl, "numFmt", val=fmt)
    if style is not None:
        _el(lvl, "pStyle", val=style)
    _el(lvl, "lvlText", val=text)
    _el(lvl, "lvlJc", val="left")
    _el(_el(lvl, "pPr"), "ind", left=str(indent), hanging="720")
    return lvl


def _add_numbering(doc: Any, rng: random.Random) -> int:
    """Add the contract's multi-level list to numbering.xml; return its ``numId``."""
    numbering = doc.part.numbering_part.element
    abstracts = numbering.findall(w("abstractNum"))
    nums = numbering.findall(w("num"))
    abstract_id = 1 + max((int(a.get(w("abstractNumId"))) for a in abstracts), default=-1)
    num_id = 1 + max((int(n.get(w("numId"))) for n in nums), default=0)

    abstract = etree.Element(w("abstractNum"), {w("abstractNumId"): str(abstract_id)})
    _el(abstract, "nsid", val=f"{rng.getrandbits(32):08X}")
    _el(abstract, "multiLevelType", val="multilevel")
    _el(abstract, "tmpl", val=f"{rng.getrandbits(32):08X}")
    levels = [
        (0, "decimal", "%1.", 720, _HEADING_STYLE),
        (1, "decimal", "%1.%2", 720, None),
        (2, "lowerLetter", "(%3)", 1440, None),
        (3, "lowerRoman", "(%4)", 2160, None),
        (4, "decimal", "%5.", 2880, None),
        (5, "lowerLetter", "%6.", 3600, None),
        (6, "lowerRoman", "%7.", 4320, None),
        (7, "decimal", "%8.", 5040, None),
        (8, "lowerLetter", "%9.", 5760, None),
    ]
    for ilvl, fmt, text, indent, style in levels:
        abstract.append(_lvl(ilvl, fmt, text, indent, style))
    if abstracts:
        abstracts[-1].addnext(abstract)
    else:
        numbering.insert(0, abstract)
    num = etree.Element(w("num"), {w("numId"): str(num_id)})
    _el(num, "abstractNumId", val=str(abstract_id))
    if nums:
        nums[-1].addnext(num)
    else:
        abstract.addnext(num)
    return num_id


def _setup_styles(doc: Any, num_id: int) -> None:
    from docx.enum.style import WD_STYLE_TYPE
    from docx.shared import Pt, RGBColor

    styles = doc.styles
    normal = styles["Normal"]
    normal.font.name = "Times New Roman"
    normal.font.size = Pt(11)
    for name, size in (("Heading 1", 12), ("Heading 2", 12), ("Title", 16)):
        st = styles[name]
        st.font.name = "Times New Roman"
        st.font.size = Pt(size)
        st.font.bold = True
        st.font.color.rgb = RGBColor(0, 0, 0)
        fonts = st.element.rPr.find(w("rFonts"))
        for attr in ("asciiTheme", "hAnsiTheme", "eastAsiaTheme", "cstheme"):
            fonts.attrib.pop(w(attr), None)
    # Heading 1 is linked to level 0 of the contract's list: its paragraphs are numbered "1.",
    # "2.", … by the style alone, as in Word templates with linked list styles.
    ppr = styles["Heading 1"].element.get_or_add_pPr()
    num = etree.Element(w("numPr"))
    _el(num, "ilvl", val="0")
    _el(num, "numId", val=str(num_id))
    _insert_ordered(ppr, num)
    text = styles.add_style("Footnote Text", WD_STYLE_TYPE.PARAGRAPH)
    text.base_style = normal
    text.font.size = Pt(9)
    ref = styles.add_style("Footnote Reference", WD_STYLE_TYPE.CHARACTER)
    ref.font.superscript = True


_FOOTNOTES_XML = (
    f'<w:footnotes xmlns:w="{W_NS}">'
    '<w:footnote w:type="separator" w:id="-1"><w:p><w:pPr><w:spacing w:after="0" w:line="240" '
    'w:lineRule="auto"/></w:pPr><w:r><w:separator/></w:r></w:p></w:footnote>'
    '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:pPr><w:spacing w:after="0" '
    'w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:continuationSeparator/></w:r></w:p>'
    "</w:footnote></w:footnotes>"
)


def _add_footnotes(doc: Any, writer: _Writer, notes: Sequence[_Para]) -> None:
    from docx.opc.constants import CONTENT_TYPE as CT
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import XmlPart
    from docx.oxml.parser import parse_xml

    root = parse_xml(_FOOTNOTES_XML)
    for i, note in enumerate(notes, 1):
        fn = _el(root, "footnote", id=str(i))
        p = _el(fn, "p")
        writer.paragraph(p, note)
        # the footnote mark comes first, as Word writes it
        r = etree.Element(_W_R)
        _el(_el(r, "rPr"), "rStyle", val="FootnoteReference")
        _el(r, "footnoteRef")
        p.insert(1, r)
    part = XmlPart(PackURI("/word/footnotes.xml"), CT.WML_FOOTNOTES, root, doc.part.package)
    doc.part.relate_to(part, RT.FOOTNOTES)
    settings = doc.settings.element
    pr = etree.Element(w("footnotePr"))
    _el(pr, "footnote", id="-1")
    _el(pr, "footnote", id="0")
    compat = settings.find(w("compat"))
    if compat is not None:
        compat.addprevious(pr)
    else:
        settings.append(pr)


def _set_rsids(doc: Any, rsids: Sequence[str]) -> None:
    settings = doc.settings.element
    old = settings.find(w("rsids"))
    new = etree.Element(w("rsids"))
    _el(new, "rsidRoot", val=rsids[0])
    for r in rsids:
        _el(new, "rsid", val=r)
    if old is not None:
        old.addprevious(new)
        settings.remove(old)
    else:
        settings.append(new)


def _table(doc: Any, writer: _Writer, table: _Table) -> None:
    ncols = len(table.rows[0])
    tbl = doc.add_table(rows=len(table.rows), cols=ncols)
    tbl.style = doc.styles["Table Grid"]
    for row, cells in zip(tbl.rows, table.rows, strict=True):
        for cell, para in zip(row.cells, cells, strict=True):
            writer.paragraph(cell.paragraphs[0]._p, para)


def _reproducible_zip(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=_ZIP_DATE)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o644 << 16
            fixed.create_system = 3
            dst.writestr(fixed, src.read(info.filename), compresslevel=6)
    return out.getvalue()


def _render_docx(plan: _Plan, kind: Kind, seed: int, runs_per_paragraph: int) -> bytes:
    import docx

    rng = random.Random(f"contractgen:{kind}:{seed}:layout")
    doc = docx.Document()
    num_id = _add_numbering(doc, rng)
    _setup_styles(doc, num_id)
    writer = _Writer(rng, runs_per_paragraph, num_id)

    section = doc.sections[0]
    from docx.shared import Inches

    section.left_margin = section.right_margin = Inches(1)
    section.top_margin = section.bottom_margin = Inches(1)

    for block in plan.body:
        if isinstance(block, _Table):
            _table(doc, writer, block)
        else:
            writer.paragraph(doc.add_paragraph()._p, block)
    for paras, hf in ((plan.header, section.header), (plan.footer, section.footer)):
        first = hf.paragraphs[0]._p
        for i, para in enumerate(paras):
            writer.paragraph(first if i == 0 else hf.add_paragraph()._p, para)
    if plan.footnotes:
        _add_footnotes(doc, writer, plan.footnotes)
    _set_rsids(doc, writer.rsids)

    core = doc.core_properties
    core.title = plan.title
    core.author = "Redline Contract Generator"
    core.last_modified_by = "Redline Contract Generator"
    core.created = core.modified = _FIXED_DATE
    core.revision = 1
    core.comments = f"kind={kind} seed={seed}"

    buf = io.BytesIO()
    doc.save(buf)
    return _reproducible_zip(buf.getvalue())


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def _check_kind(kind: str) -> Kind:
    for known in _SPECS:
        if kind == known:
            return known
    raise ValueError(f"unknown contract kind {kind!r}; expected one of {sorted(_SPECS)}")


def generate_contract(
    kind: Kind,
    *,
    seed: int = 0,
    pages: float | None = None,
    runs_per_paragraph: int = 6,
    parties: tuple[str, str] | None = None,
) -> bytes:
    """A realistic contract of ``kind`` as .docx bytes, the same bytes for the same arguments.

    ``pages`` sets the amount of text (``WORDS_PER_PAGE`` words a page; the clause bank is cycled
    with variations for long documents); None gives the natural 3–6 page contract.
    ``runs_per_paragraph`` is the average number of runs a body paragraph is split into.
    ``parties`` replaces the two parties' names.
    """
    kind = _check_kind(kind)
    plan = _build_plan(kind, seed, pages, parties)
    return _render_docx(plan, kind, seed, runs_per_paragraph)


def contract_paragraphs(
    kind: Kind,
    *,
    seed: int = 0,
    pages: float | None = None,
    parties: tuple[str, str] | None = None,
) -> list[GeneratedParagraph]:
    """Every paragraph of ``generate_contract(kind, …)`` with the same arguments: the text a
    reader should extract, without building the .docx.

    Body paragraphs (table cells row by row) in document order, then the header, the footer
    (its ``PAGE`` field reads ``1``) and the footnotes (each starting with the space that
    follows the footnote mark). A footnote reference adds no text to its paragraph.
    """
    plan = _build_plan(_check_kind(kind), seed, pages, parties)
    out: list[GeneratedParagraph] = []
    path: list[str] = []  # labels of the enclosing article, clause, item, sub-item

    def para(story: Story, p: _Para) -> GeneratedParagraph:
        if story != "body":
            return GeneratedParagraph(story, p.text, None, None, None)
        if p.kind == "schedule":
            path.clear()
        elif p.level is not None and p.label is not None:
            del path[p.level :]
            path.extend([""] * (p.level - len(path)))
            path.append(p.label.rstrip(".") if p.level == 0 else p.label)
        section = "".join(path[1:]) if len(path) > 1 else (path[0] if path else None)
        return GeneratedParagraph(story, p.text, p.label, p.level, section)

    for block in plan.body:
        if isinstance(block, _Table):
            out.extend(para("body", c) for row in block.rows for c in row)
        else:
            out.append(para("body", block))
    out.extend(para("header", p) for p in plan.header)
    out.extend(para("footer", p) for p in plan.footer)
    out.extend(para("footnotes", p) for p in plan.footnotes)
    return out


def contract_text(
    kind: Kind,
    *,
    seed: int = 0,
    pages: float | None = None,
    parties: tuple[str, str] | None = None,
) -> str:
    """The text of every paragraph of :func:`contract_paragraphs`, one per line."""
    paras = contract_paragraphs(kind, seed=seed, pages=pages, parties=parties)
    return "\n".join(p.text for p in paras)


def write_samples(outdir: Path) -> list[Path]:
    """(Re)write the .docx files of ``sample_contracts/`` into ``outdir``."""
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, (kind, seed) in SAMPLES.items():
        path = outdir / f"{stem}.docx"
        path.write_bytes(generate_contract(kind, seed=seed))
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None, *, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m testing.contractgen",
        description="Regenerate sample_contracts/*.docx, or write one generated contract.",
    )
    parser.add_argument("outdir", type=Path, help="directory to write into")
    parser.add_argument("--kind", choices=list(get_args(Kind)), help="write one contract only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pages", type=float, default=None)
    parser.add_argument("--runs-per-paragraph", type=int, default=6)
    args = parser.parse_args(argv)
    if args.kind is None:
        for path in write_samples(args.outdir):
            out(str(path))
        return 0
    args.outdir.mkdir(parents=True, exist_ok=True)
    size = "natural" if args.pages is None else f"{args.pages:g}p"
    path = args.outdir / f"{args.kind}-seed{args.seed}-{size}.docx"
    path.write_bytes(
        generate_contract(
            args.kind,
            seed=args.seed,
            pages=args.pages,
            runs_per_paragraph=args.runs_per_paragraph,
        )
    )
    out(str(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
