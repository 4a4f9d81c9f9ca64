"""One finding of the proofreader: what is wrong, where, and the reply entry that repairs it.

The JSON form (``redline check --json``, the MCP ``check`` tool, ``NAME.check.json``) is
``{"kind", "message", "paragraph", "label", "section", "text", "related", "fix"}``: ``paragraph``
indexes the checked document's view, ``related`` lists the other places concerned (a duplicate's
first definition, the clauses citing a deleted one) in the same form, and ``fix`` is a reply
entry -- a dict a model could have written -- or None where no one repair is clear.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    """Every finding kind (public: ``totals`` and reports group by them)."""

    UNDEFINED_TERM = "undefined_term"
    UNUSED_DEFINITION = "unused_definition"
    DUPLICATE_DEFINITION = "duplicate_definition"
    LOWERCASE_DEFINED_TERM = "lowercase_defined_term"
    DANGLING_REFERENCE = "dangling_reference"
    BROKEN_FIELD_REFERENCE = "broken_field_reference"
    REFERENCE_TO_DELETED_CLAUSE = "reference_to_deleted_clause"
    RENUMBERED_REFERENCE = "renumbered_reference"
    NUMBERING_GAP = "numbering_gap"


# Each kind as the heading of its group (``redline check``'s plain output, ``report.html``).
TITLES: dict[Kind, str] = {
    Kind.UNDEFINED_TERM: "Undefined terms",
    Kind.UNUSED_DEFINITION: "Definitions never used",
    Kind.DUPLICATE_DEFINITION: "Terms defined twice",
    Kind.LOWERCASE_DEFINED_TERM: "Defined terms in lower case",
    Kind.DANGLING_REFERENCE: "References to clauses that do not exist",
    Kind.BROKEN_FIELD_REFERENCE: "Cross-reference fields without their bookmark",
    Kind.REFERENCE_TO_DELETED_CLAUSE: "Clauses the reply deletes that are still cited",
    Kind.RENUMBERED_REFERENCE: "References the reply's renumbering would break",
    Kind.NUMBERING_GAP: "Clause numbers out of sequence",
}


@dataclass(frozen=True)
class Place:
    """A paragraph of the checked view, as a lawyer finds it: its label and its section."""

    paragraph: int
    label: str | None
    section: str | None
    text: str  # the words concerned (a term, a reference), not the whole paragraph

    def to_json(self) -> dict[str, Any]:
        return {"paragraph": self.paragraph, "label": self.label, "section": self.section, "text": self.text}


@dataclass(frozen=True)
class Finding:
    kind: Kind
    message: str  # one sentence a lawyer reads
    place: Place
    related: tuple[Place, ...] = ()
    fix: dict[str, Any] | None = field(default=None, compare=False)  # a reply entry, or None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": str(self.kind), "message": self.message}
        out.update(self.place.to_json())
        out["related"] = [p.to_json() for p in self.related]
        out["fix"] = self.fix
        return out
