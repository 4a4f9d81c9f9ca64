"""The memo of a round: Markdown a lawyer pastes into an email (``redline reconcile --memo``).

By clause, in document order (a clause goes where its first paragraph is: SENT's paragraph for
a change of ours, RETURNED's for the rest -- the two differ by the paragraphs decided between
them, a few at most): for each clause (its label and heading, else "General") what they
accepted, rejected, changed (tracked or not), left open, what they changed without tracking,
their new tracked changes and their comments; a first paragraph counts it all, and warns
first when a conversion lost something.  Quotes are shortened to a readable length; nothing in
a document's text can break the Markdown (backticks, asterisks and the like are escaped).
"""

from __future__ import annotations

import re
from typing import Any

from shared_schema import OurOutcome

__all__ = ["render_memo"]

_LIMIT = 160
_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")


def _esc(text: str) -> str:
    return _SPECIAL.sub(r"\\\1", text)


def _quote(text: str | None) -> str:
    t = " ".join((text or "").split())
    if len(t) > _LIMIT:
        t = t[: _LIMIT - 1].rstrip() + "\u2026"
    return "\u201c" + _esc(t) + "\u201d" if t else "(nothing)"


def _clause(label: str | None, section: str | None) -> str:
    if section:
        return _esc(section)
    if label:
        return "Clause " + _esc(label)
    return "General"


def _ours_line(c: dict[str, Any]) -> str:
    outcome = c["outcome"]
    if c["kind"] == "replace":
        what = f"{_quote(c['deleted'])} \u2192 {_quote(c['inserted'])}"
    elif c["kind"] in ("delete", "row_delete"):
        what = f"deletion of {_quote(c['deleted'])}"
    elif c["kind"] in ("insert", "row_insert"):
        what = f"insertion of {_quote(c['inserted'])}"
    else:
        what = f"{c['kind'].replace('_', ' ')} of {_quote(c['text'])}"
    if outcome == OurOutcome.MODIFIED:
        how = "changed, tracked" if c.get("tracked") else "changed **without tracking**"
        return f"- Our {what}: {how}: now reads {_quote(c.get('after'))}"
    verb = {"accepted": "accepted", "rejected": "rejected", "pending": "still open (not decided)"}[outcome]
    return f"- Our {what}: {verb}"


def render_memo(report: dict[str, Any]) -> str:
    """The memo of a reconcile report (:meth:`~redline.reconcile.report.ReconcileReport.to_dict`)."""
    t = report["totals"]
    lines = [f"# Round: {report['returned']} against {report['sent']}", ""]
    for w in report.get("warnings", []):
        lines.append(f"> **Warning ({w['code']}):** {_esc(w['message'])}")
        lines.append("")
    lines.append(
        f"Of our {t['ours']} changes they accepted {t['accepted']}, rejected {t['rejected']}, "
        f"changed {t['modified']} and left {t['pending']} open. They made {t['their_revisions']} "
        f"tracked changes and {t['their_comments']} comments of their own"
        + (f", and **{t['untracked']} changes without tracking**." if t["untracked"] else
           "; nothing was changed without tracking" + ("." if not t["modified_untracked"] else
                                                         " outside our changes."))
    )  # fmt: skip
    lines.append("")
    first: dict[str, float] = {}  # a clause's first paragraph: where it goes in the memo
    by: dict[str, list[tuple[int, str]]] = {}

    def add(label: str | None, section: str | None, rank: int, line: str, at: int | None = None) -> None:
        key = _clause(label, section)
        by.setdefault(key, []).append((rank, line))
        where = float("inf") if at is None else float(at)
        first[key] = min(first.get(key, where), where)

    for c in report["ours"]:
        add(c.get("label"), c.get("section"), 0, _ours_line(c), c.get("paragraph"))
    for u in report["untracked"]:
        if u.get("kind") == "format":
            names = ", ".join(u.get("properties") or [])
            line = f"- **Untracked** formatting of {_quote(u['before'])} ({names})"
        else:
            line = f"- **Untracked:** {_quote(u['before'])} \u2192 {_quote(u['after'])}"
        add(u.get("label"), u.get("section"), 1, line, u.get("paragraph"))
    for r in report["theirs"]["revisions"]:
        who = r.get("author") or "They"
        kind = str(r.get("kind", "change")).replace("_", " ")
        inside = " (inside our change)" if r.get("in_ours") else ""
        line = f"- {who}: tracked {kind} {_quote(r.get('text'))}{inside}"
        add(r.get("label"), r.get("section"), 2, line, r.get("paragraph"))
    for c in report["theirs"]["comments"]:
        who = c.get("author") or "They"
        reply = " (reply to our comment)" if c.get("reply_to_ours") else ""
        add(
            c.get("label"),
            c.get("section"),
            3,
            f"- {who} commented{reply}: {_quote(c.get('text'))}",
            c.get("paragraph"),
        )
    for key in sorted(by, key=lambda k: first[k]):  # (stable: ties keep the order first seen)
        lines.append(f"## {key}")
        lines.append("")
        lines.extend(line for _, line in sorted(by[key], key=lambda x: x[0]))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
