"""The redline report: every edit of a reply, applied or refused with its reason.

Shape documented in docs/report.md ("The redline report").  Like mammoth's ``Result``, the report
travels with the output: nothing is logged instead of reported.  The report's models are built
when a report is first dumped or validated (``defer_build``; the apply path makes them of checked
values, :func:`report_of` of the run's records, :mod:`redline.results`): an ``apply`` asked for no
report builds none, and imports neither this module nor pydantic.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from shared_schema import EditBatch, EditResult, InvalidEntry, Refusal
from shared_schema.construct import construct
from shared_schema.records import BatchRecord, ResultRecord

from . import results


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
    """Entries the parser could not use, as report entries with status ``invalid``
    (:func:`redline.results.invalid_results`, as the public models)."""
    return [r.model() for r in results.invalid_results(BatchRecord.of(batch))]


def totals(made: list[EditResult]) -> Totals:
    """The totals of these results (:func:`redline.results.totals`, as the public model)."""
    counted = results.totals([ResultRecord(r.index, r.id, r.anchor, r.replacement, r.status) for r in made])
    return _totals_of(counted)


def _totals_of(record: results.TotalsRecord) -> Totals:
    return construct(
        Totals,
        {"proposed": record.proposed, "applied": record.applied, "unapplied": record.unapplied,
         "by_status": record.by_status},
    )  # fmt: skip


def report_of(record: results.ReportRecord) -> Report:
    """The public :class:`Report` of a run's records (made of checked values, no validator built
    until it is dumped: :func:`shared_schema.construct.construct`)."""
    reply = construct(
        ReplyInfo,
        {"parsed": record.reply.parsed, "notes": list(record.reply.notes),
         "invalid": [i.model() for i in record.reply.invalid]},
    )  # fmt: skip
    return construct(
        Report,
        {
            "document": record.document,
            "revision": record.revision,
            "output": record.output,
            "reply": reply,
            "edits": [r.model() for r in record.edits],
            "totals": _totals_of(record.totals),
            "error": None if record.error is None else record.error.model(),
        },
    )
