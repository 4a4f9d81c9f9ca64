"""Verify every quote a model's summary cites, with the same locator and tolerances as anchors."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from redline.exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED
from redline.match.hints import not_found
from redline.match.locate import Locator
from redline.read.load import load_view
from redline.read.view import DocumentView
from redline.report import report_json
from shared_schema import (
    Code,
    ParseLimits,
    PointStatus,
    QuoteCheck,
    QuoteStatus,
    Refusal,
    SummaryReply,
    parse_summary_reply,
)


class PointCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")
    index: int
    title: str
    text: str
    verified: bool
    status: PointStatus = Field(
        description="verified: every quote found; unverified: a quote was not found; "
        "unsupported: the point cites no quote at all."
    )
    quotes: list[QuoteCheck]


class SummaryTotals(BaseModel):
    model_config = ConfigDict(extra="forbid")
    quotes: int
    verified: int
    unverified: int
    points: int = 0
    points_verified: int = 0
    points_unsupported: int = 0


class SummaryReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    document: str
    revision: str | None
    summary: str = ""
    notes: list[str] = Field(default_factory=list)
    points: list[PointCheck] = Field(default_factory=list)
    totals: SummaryTotals
    error: Refusal | None = None

    @property
    def all_verified(self) -> bool:
        return self.error is None and all(p.verified for p in self.points)

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return EXIT_REFUSED
        return EXIT_OK if self.all_verified else EXIT_UNAPPLIED

    def to_json(self) -> str:
        return report_json(self.model_dump(mode="json"))

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def check_quote(locator: Locator, quote: str) -> QuoteCheck:
    """One quote: verified with every location, or not_found with the nearest passage."""
    found = locator.find(quote)
    if found.ranges:
        return QuoteCheck(
            quote=quote,
            status=QuoteStatus.VERIFIED,
            match=found.kind,
            tolerances=list(found.tolerances),
            locations=[locator.location(s, e).model() for s, e in found.ranges],
        )
    error = not_found(locator, quote, noun="quote", hint="Quote the document verbatim, or drop the claim.")
    return QuoteCheck(quote=quote, status=QuoteStatus.NOT_FOUND, error=error.model())


def check(view: DocumentView, reply: SummaryReply, document: str = "document.docx") -> SummaryReport:
    """Verify every quote of ``reply`` against ``view``."""
    locator = Locator(view)
    points: list[PointCheck] = []
    for i, point in enumerate(reply.points):
        quotes = [check_quote(locator, q) for q in point.quotes]
        if not quotes:
            status = PointStatus.UNQUOTED
        elif all(q.status == QuoteStatus.VERIFIED for q in quotes):
            status = PointStatus.VERIFIED
        else:
            status = PointStatus.UNVERIFIED
        points.append(
            PointCheck(
                index=i,
                title=point.title,
                text=point.text,
                verified=status is PointStatus.VERIFIED,
                status=status,
                quotes=quotes,
            )
        )
    all_quotes = [q for p in points for q in p.quotes]
    verified = sum(1 for q in all_quotes if q.status == QuoteStatus.VERIFIED)
    return SummaryReport(
        document=document,
        revision=view.revision,
        summary=reply.summary,
        notes=list(reply.notes),
        points=points,
        totals=SummaryTotals(
            quotes=len(all_quotes),
            verified=verified,
            unverified=len(all_quotes) - verified,
            points=len(points),
            points_verified=sum(1 for p in points if p.verified),
            points_unsupported=sum(1 for p in points if p.status is PointStatus.UNQUOTED),
        ),
    )


def _refused(document: str, refusal: Refusal, revision: str | None = None) -> SummaryReport:
    return SummaryReport(
        document=document,
        revision=revision,
        totals=SummaryTotals(quotes=0, verified=0, unverified=0),
        error=refusal,
    )


def check_reply(
    document: bytes,
    reply: str | bytes | SummaryReply,
    *,
    document_name: str = "document.docx",
    parse_limits: ParseLimits | None = None,
    stream: bool = False,
) -> SummaryReport:
    """The whole summary flow on bytes: load, view, parse, verify. Never raises on bad input.

    ``stream``: read the document with :func:`redline.read.build.verify_only_view` (the main part
    streamed, never held whole: for very large documents on small machines; slower).
    """
    loaded = load_view(document, stream=stream)
    if isinstance(loaded, Refusal):
        return _refused(document_name, loaded)
    _, view = loaded
    parsed = reply if isinstance(reply, SummaryReply) else parse_summary_reply(reply, parse_limits)
    if parsed is None:
        return _refused(
            document_name,
            Refusal(code=Code.UNPARSEABLE_REPLY, message="The reply holds no usable JSON summary."),
            view.revision,
        )
    return check(view, parsed, document_name)
