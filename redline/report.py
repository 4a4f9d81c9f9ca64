"""The redline report: every edit of a reply, applied or refused with its reason.

Shape documented in docs/report.md ("The redline report").  Like mammoth's ``Result``, the report
travels with the output: nothing is logged instead of reported.  The report's models are built
when a report is first dumped or validated (``defer_build``; the apply path makes them of checked
values, :func:`shared_schema.construct.construct`): an ``apply`` asked for no report builds none.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from shared_schema import Code, EditBatch, EditResult, EditStatus, InvalidEntry, Refusal
from shared_schema.construct import construct


def report_json(data: dict[str, Any]) -> str:
    """A report file's text (every report the project writes): indented JSON, non-ASCII as it
    is, a final newline."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


class ReplyInfo(BaseModel):
    """What the parser made of the reply: parsed at all, what it coerced, what it could not use."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    parsed: bool
    notes: list[str] = Field(default_factory=list)
    invalid: list[InvalidEntry] = Field(default_factory=list)


class Totals(BaseModel):
    """How many edits a reply proposed, how many were applied, and each status's count."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    proposed: int
    applied: int
    unapplied: int
    by_status: dict[str, int]


class Report(BaseModel):
    """One reply applied to one document: every edit with its status (applied, or refused with
    its code, message and hint), the reply's parse notes, the totals; ``error`` when the
    document or the reply was refused whole (docs/report.md, "The redline report")."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    document: str
    revision: str | None
    output: str | None
    reply: ReplyInfo
    edits: list[EditResult]
    totals: Totals
    error: Refusal | None = Field(
        default=None, description="Set when the document or the reply was refused as a whole."
    )

    @property
    def all_applied(self) -> bool:
        return self.error is None and self.totals.unapplied == 0

    def to_json(self) -> str:
        return report_json(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def invalid_results(batch: EditBatch) -> list[EditResult]:
    """Entries the parser could not use, as report entries with status ``invalid``."""
    out = []
    for entry in batch.invalid:
        raw = entry.raw if isinstance(entry.raw, dict) else {}
        anchor = raw.get("anchor", "")
        replacement = raw.get("replacement", "")
        out.append(
            EditResult(
                index=entry.index,
                id=str(raw["id"]) if isinstance(raw.get("id"), (str, int)) else None,
                anchor=anchor if isinstance(anchor, str) else "",
                replacement=replacement if isinstance(replacement, str) else "",
                status=EditStatus.INVALID,
                error=Refusal(
                    code=Code.INVALID,
                    message=f"This entry could not be used: {entry.reason}",
                    hint="Send each edit as an object with a non-empty 'anchor' string and a "
                    "'replacement' string.",
                ),
            )
        )
    return out


def totals(results: list[EditResult]) -> Totals:
    by_status = Counter(r.status.value for r in results)
    applied = sum(1 for r in results if r.status.ok)
    return construct(
        Totals,
        {
            "proposed": len(results),
            "applied": applied,
            "unapplied": len(results) - applied,
            "by_status": dict(sorted(by_status.items())),
        },
    )
