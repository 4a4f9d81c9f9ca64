"""A run's report as the apply path's records: what :class:`redline.report.Report` is made of.

A plain ``redline apply`` -- no ``--report``, no ``--json`` -- needs a report's counts and
statuses, never its pydantic model (issue 32: importing pydantic costs more than python-docx's
whole open and save).  So a run builds these records (:mod:`shared_schema.records` for the
entries' results), and :func:`redline.report.report_of` makes the public model of them when a
report is written, dumped or handed to a caller (:attr:`redline.apply.Outcome.report`).
"""

from __future__ import annotations

from collections import Counter

from shared_schema import Code, EditStatus
from shared_schema.records import BatchRecord, InvalidRecord, RefusalRecord, ResultRecord


class ReplyRecord:
    """What the parser made of the reply (:class:`redline.report.ReplyInfo`)."""

    __slots__ = ("invalid", "notes", "parsed")

    def __init__(
        self, parsed: bool, notes: list[str] | None = None, invalid: list[InvalidRecord] | None = None
    ) -> None:
        self.parsed = parsed
        self.notes = [] if notes is None else notes
        self.invalid = [] if invalid is None else invalid


class TotalsRecord:
    """How many edits were proposed and applied, and each status's count (:class:`redline.report.Totals`)."""

    __slots__ = ("applied", "by_status", "proposed", "unapplied")

    def __init__(self, proposed: int, applied: int, unapplied: int, by_status: dict[str, int]) -> None:
        self.proposed = proposed
        self.applied = applied
        self.unapplied = unapplied
        self.by_status = by_status


class ReportRecord:
    """One reply applied to one document (:class:`redline.report.Report`, field for field)."""

    __slots__ = ("document", "edits", "error", "output", "reply", "revision", "totals")

    def __init__(
        self,
        document: str,
        revision: str | None,
        output: str | None,
        reply: ReplyRecord,
        edits: list[ResultRecord],
        totals: TotalsRecord,
        error: RefusalRecord | None = None,
    ) -> None:
        self.document = document
        self.revision = revision
        self.output = output
        self.reply = reply
        self.edits = edits
        self.totals = totals
        self.error = error

    @property
    def all_applied(self) -> bool:
        return self.error is None and self.totals.unapplied == 0


def invalid_results(batch: BatchRecord) -> list[ResultRecord]:
    """Entries the parser could not use, as report entries with status ``invalid``."""
    out = []
    for entry in batch.invalid:
        raw = entry.raw if isinstance(entry.raw, dict) else {}
        anchor = raw.get("anchor", "")
        replacement = raw.get("replacement", "")
        out.append(
            ResultRecord(
                index=entry.index,
                id=str(raw["id"]) if isinstance(raw.get("id"), (str, int)) else None,
                anchor=anchor if isinstance(anchor, str) else "",
                replacement=replacement if isinstance(replacement, str) else "",
                status=EditStatus.INVALID,
                error=RefusalRecord(
                    code=Code.INVALID,
                    message=f"This entry could not be used: {entry.reason}",
                    hint="Send each edit as an object with a non-empty 'anchor' string and a "
                    "'replacement' string.",
                ),
            )
        )
    return out


def totals(results: list[ResultRecord]) -> TotalsRecord:
    by_status = Counter(r.status.value for r in results)
    applied = sum(1 for r in results if r.status.ok)
    return TotalsRecord(len(results), applied, len(results) - applied, dict(sorted(by_status.items())))
