"""A summary report rendered for a person: Markdown, unverified points first."""

from __future__ import annotations

from redline.read.sections import place
from shared_schema import PointStatus, QuoteCheck, QuoteStatus

from .check import PointCheck, SummaryReport

_ORDER = {PointStatus.UNVERIFIED: 0, PointStatus.UNQUOTED: 1, PointStatus.VERIFIED: 2}
_BADGE = {
    PointStatus.VERIFIED: "✅ verified",
    PointStatus.UNVERIFIED: "❌ unverified",
    PointStatus.UNQUOTED: "⚠️ no quote",
}


def _where(q: QuoteCheck) -> str:
    if not q.locations:
        return ""
    parts = []
    for loc in q.locations[:5]:
        parts.append(place(loc.section, loc.paragraph))
    more = f" and {len(q.locations) - 5} more" if len(q.locations) > 5 else ""
    return "found in " + ", ".join(parts) + more


def _point(p: PointCheck) -> list[str]:
    lines = [f"### {p.title or f'Point {p.index + 1}'} — {_BADGE[p.status]}", ""]
    if p.text:
        lines += [p.text, ""]
    if not p.quotes:
        lines += ["- The point cites no quote from the document.", ""]
    for q in sorted(p.quotes, key=lambda q: q.status == QuoteStatus.VERIFIED):
        if q.status == QuoteStatus.VERIFIED:
            how = " (typography differs)" if q.match and q.match.value == "normalized" else ""
            lines.append(f"- ✅ “{q.quote}” — {_where(q)}{how}")
        else:
            msg = q.error.message if q.error else "not found"
            lines.append(f"- ❌ “{q.quote}” — {msg}")
    lines.append("")
    return lines


def to_markdown(report: SummaryReport) -> str:
    t = report.totals
    lines = [f"# Summary check: {report.document}", ""]
    if report.error is not None:
        return "\n".join([*lines, f"**Refused:** {report.error.message}", ""])
    lines += [
        f"{t.verified} of {t.quotes} quotes verified; "
        f"{t.points_verified} of {t.points} points fully supported"
        + (f"; {t.points_unsupported} without any quote" if t.points_unsupported else "")
        + ".",
        "",
    ]
    if report.summary:
        lines += ["> " + report.summary.replace("\n", "\n> "), ""]
    for p in sorted(report.points, key=lambda p: (_ORDER[p.status], p.index)):
        lines += _point(p)
    return "\n".join(lines)
