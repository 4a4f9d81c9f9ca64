"""The reconcile report: what the other side did with the redline we sent (issue 34).

``redline reconcile --json`` (and ``--report``) prints :meth:`ReconcileReport.to_dict`::

    {"sent", "returned", "author",
     "ours": [{"ids", "kind", "text", "deleted", "inserted", "paragraph", "label", "section",
               "outcome", "tracked", "before", "after", "returned_ids", "paired"}],
     "theirs": {"revisions": [...], "comments": [...]},
     "untracked": [{"kind", "paragraph", "label", "section", "before", "after"}],
     "warnings": [{"code": "lossy_conversion", "message"}],
     "totals": {...}, "error": null}

``ours[i].paragraph`` indexes SENT's view; every other ``paragraph`` RETURNED's (as RETURNED's
``redline view --json`` lists them).  ``outcome`` is one of :data:`OUTCOMES`; ``tracked`` says,
for ``modified``, whether they changed our change as tracked changes (``true``) or without
tracking (``false``).  ``paired`` says how our change was found in RETURNED while it is still
tracked there: by its revision ids (``"id"``), or -- the other side's tool renumbered them -- by
author, kind and text in document order (``"text"``), or as a piece of it at its place (``"place"``:
another author's change written into ours split it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shared_schema import OurOutcome, Refusal

from ..exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED

__all__ = ["OUTCOMES", "OurChange", "ReconcileReport", "ReportWarning", "Untracked"]

OUTCOMES = tuple(o.value for o in OurOutcome)


@dataclass
class OurChange:
    """One change of ours in SENT: a deletion, an insertion, or both at one place (a
    replacement), with the paragraph marks and rows they carry; every revision id it covers."""

    ids: list[str]
    kind: str  # insert | delete | replace | format | row_insert | row_delete | ...
    deleted: str
    inserted: str
    paragraph: int | None
    label: str | None
    section: str | None
    outcome: OurOutcome = OurOutcome.PENDING
    tracked: bool | None = None  # modified: tracked (True) or not (False)
    before: str | None = None  # modified: the text our change made ...
    after: str | None = None  # ... and what RETURNED reads there
    returned_ids: list[str] = field(default_factory=list)
    paired: str | None = None  # "id" | "text" | "place": how its revisions were found in RETURNED
    note: str | None = None

    @property
    def text(self) -> str:
        """What the change is about: the text it inserts, else the text it deletes."""
        return self.inserted or self.deleted

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ids": list(self.ids), "kind": self.kind, "text": self.text, "deleted": self.deleted,
            "inserted": self.inserted, "paragraph": self.paragraph, "label": self.label,
            "section": self.section, "outcome": self.outcome, "tracked": self.tracked,
            "before": self.before, "after": self.after, "returned_ids": list(self.returned_ids),
            "paired": self.paired,
        }  # fmt: skip
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class Untracked:
    """A difference between RETURNED outside any revision and SENT as our changes were decided:
    ``kind`` "text" (``before`` became ``after``), "format" (the formatting of ``before``
    changed: ``properties``), "paragraph_format", or "field" (a computed field's
    code ``before`` became ``after``)."""

    paragraph: int | None
    label: str | None
    section: str | None
    before: str
    after: str
    kind: str = "text"
    properties: list[str] | None = None
    start: int = 0  # RETURNED's view offsets of ``after``
    end: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind, "paragraph": self.paragraph, "label": self.label, "section": self.section,
            "before": self.before, "after": self.after, "start": self.start, "end": self.end,
        }  # fmt: skip
        if self.properties is not None:
            out["properties"] = list(self.properties)
        return out


@dataclass(frozen=True)
class ReportWarning:
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


@dataclass
class ReconcileReport:
    sent: str
    returned: str
    author: str | None = None
    ours: list[OurChange] = field(default_factory=list)
    their_revisions: list[dict[str, Any]] = field(default_factory=list)
    their_comments: list[dict[str, Any]] = field(default_factory=list)
    untracked: list[Untracked] = field(default_factory=list)
    warnings: list[ReportWarning] = field(default_factory=list)
    sent_revision: str | None = None
    returned_revision: str | None = None
    error: Refusal | None = None

    def totals(self) -> dict[str, Any]:
        outcomes = {name: sum(1 for c in self.ours if c.outcome == name) for name in OUTCOMES}
        return {
            "ours": len(self.ours),
            **outcomes,
            "modified_untracked": sum(
                1 for c in self.ours if c.outcome == OurOutcome.MODIFIED and c.tracked is False
            ),
            "their_revisions": len(self.their_revisions),
            "their_comments": len(self.their_comments),
            "untracked": len(self.untracked),
            "warnings": len(self.warnings),
        }

    @property
    def clean(self) -> bool:
        """Nothing changed without tracking (not even inside our changes) and nothing lost."""
        t = self.totals()
        return not (t["untracked"] or t["modified_untracked"] or t["warnings"])

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return EXIT_REFUSED
        return EXIT_OK if self.clean else EXIT_UNAPPLIED

    def to_dict(self) -> dict[str, Any]:
        return {
            "sent": self.sent,
            "returned": self.returned,
            "author": self.author,
            "sent_revision": self.sent_revision,
            "returned_revision": self.returned_revision,
            "ours": [c.to_dict() for c in self.ours],
            "theirs": {"revisions": list(self.their_revisions), "comments": list(self.their_comments)},
            "untracked": [u.to_dict() for u in self.untracked],
            "warnings": [w.to_dict() for w in self.warnings],
            "totals": self.totals(),
            "error": None if self.error is None else self.error.model_dump(mode="json", exclude_none=True),
        }
