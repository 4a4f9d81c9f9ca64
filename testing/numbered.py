"""A numbered contract with cross-references, for the clause-level tests and the fuzzers.

Articles are level-0 items of one multi-level list (``%1.``), their clauses level-1 items
(``%1.%2``): every label is Word's, from ``numbering.xml``.  Each clause that is referred to
has a hidden ``_Ref`` bookmark around its text, and clauses refer to others with ``REF _Ref…
\\r \\h`` fields whose cached result is the target's label, as Word writes a cross-reference.
Deterministic from its arguments; imports nothing of the code under test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .docbuild import BmEnd, BmStart, Field, P, docx

NUMBERING = (
    '<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="multilevel"/>'
    '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>'
    '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>'
    '<w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/></w:lvl>'
    '</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>'
)

_VERBS = ("deliver", "maintain", "insure", "report on", "keep confidential", "invoice", "repair", "audit")
_THINGS = ("the Goods", "the Premises", "the Services", "the Records", "the Equipment", "the Deliverables")


def numbered(level: int) -> str:
    """Paragraph properties making a paragraph an item of the contract's list at ``level``."""
    return f'<w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="1"/></w:numPr>'


@dataclass(frozen=True)
class Contract:
    data: bytes
    labels: list[str]  # every clause's label ("2.3"), in order
    refs: list[tuple[str, str]]  # per clause that refers to another: (its label, the target's label)


def contract(articles: int = 10, clauses: int = 6, seed: int = 0) -> Contract:
    """``articles`` articles of ``clauses`` clauses each; every clause names an obligation and
    most refer to another clause ("as set out in Section <REF>")."""
    rng = random.Random(seed)
    labels = [f"{a}.{c}" for a in range(1, articles + 1) for c in range(1, clauses + 1)]
    target_of = {
        label: rng.choice([x for x in labels if x != label]) for label in labels if rng.random() < 0.8
    }
    # only the clauses referred to have a bookmark (a new reference to another one makes one)
    bookmark_of = {label: n for n, label in enumerate(labels) if label in target_of.values()}
    blocks = []
    for a in range(1, articles + 1):
        blocks.append(P(f"Article heading number {a}", ppr=numbered(0)))
        for c in range(1, clauses + 1):
            label = f"{a}.{c}"
            verb, thing = rng.choice(_VERBS), rng.choice(_THINGS)
            n = bookmark_of.get(label)
            body: list[object] = [] if n is None else [BmStart(f"_Ref{700000000 + n}", 5000 + n)]
            days = rng.randint(2, 90)
            body.append(f"Obligation {len(blocks)}: the Supplier shall {verb} {thing} within {days} days")
            target = target_of.get(label)
            if target is not None:
                body += [
                    " as set out in Section ",
                    Field(f" REF _Ref{700000000 + bookmark_of[target]} \\r \\h ", target),
                    " of this Agreement",
                ]
            body.append(".")
            if n is not None:
                body.append(BmEnd(5000 + n))
            blocks.append(P(*body, ppr=numbered(1)))
    return Contract(docx(*blocks, numbering=NUMBERING), labels, sorted(target_of.items()))
