"""`report.html`: one self-contained page a reviewer reads instead of JSON.

No network, no external assets: inline CSS, no scripts.  Per document, per edit: the anchor and
replacement shown as a redline (deletions struck, insertions underlined) with the same word diff
the writer uses, where it landed, and for every unapplied edit the reason and the hint --
unapplied edits and documents first.
"""

from __future__ import annotations

from html import escape
from typing import Any

from redline.sections import place
from redline.writer import word_diff

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d1d1f;background:#f6f6f4}
header{background:#1f2d3d;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px;font-size:20px}
main{padding:18px 28px;max-width:1100px}
.tot{display:flex;gap:14px;flex-wrap:wrap;margin:6px 0 0}
.tot span{background:rgba(255,255,255,.12);padding:3px 10px;border-radius:12px}
section.doc{background:#fff;border:1px solid #ddd;border-radius:8px;margin:0 0 18px;padding:14px 18px}
section.doc h2{font-size:17px;margin:0 0 6px}
.badge{display:inline-block;font-size:12px;font-weight:600;padding:2px 8px;border-radius:10px;margin-left:6px;vertical-align:2px}
.b-applied,.b-verified{background:#dff3e3;color:#17622b}
.b-unapplied,.b-bad{background:#fde2e1;color:#9b1c1c}
.b-refused,.b-failed,.b-missing_reply,.b-missing_document{background:#fde2e1;color:#9b1c1c}
table{border-collapse:collapse;width:100%;margin-top:8px}
td,th{border-top:1px solid #eee;padding:7px 8px;vertical-align:top;text-align:left}
th{font-size:12px;color:#666;font-weight:600}
td.n{color:#888;width:2.5em}
td.st{width:9em}
del{color:#b00020;text-decoration:line-through;background:#fdeaea}
ins{color:#0b5fa5;text-decoration:underline;background:#e7f1fb}
.where{color:#555;font-size:13px}
.why{margin-top:4px;font-size:13px}
.hint{margin-top:3px;font-size:13px;color:#35506b}
.msg{color:#9b1c1c}
code{font-size:12px;color:#666}
"""

_BAD_FIRST = {"refused": 0, "failed": 0, "missing_reply": 0, "missing_document": 0, "unapplied": 1}


def redline_html(anchor: str, replacement: str) -> str:
    """The anchor turned into the replacement, deletions struck and insertions underlined."""
    out: list[str] = []
    pos = 0
    for kind, s, e, text in word_diff(anchor, replacement):
        out.append(escape(anchor[pos:s]))
        if kind in ("delete", "replace"):
            out.append(f"<del>{escape(anchor[s:e])}</del>")
        if text:
            out.append(f"<ins>{escape(text)}</ins>")
        pos = e
    out.append(escape(anchor[pos:]))
    return "".join(out)


def _where(edit: dict[str, Any]) -> str:
    locs = edit.get("locations") or []
    if not locs:
        return ""
    parts = []
    for loc in locs[:6]:
        part = loc.get("part")
        story = "body" if not part or part == "word/document.xml" else "part"
        parts.append(place(loc.get("section"), loc.get("paragraph", 0), story, part))
    more = f" (+{len(locs) - 6} more)" if len(locs) > 6 else ""
    return "; ".join(escape(p) for p in parts) + more


def _edit_row(edit: dict[str, Any]) -> str:
    status = edit.get("status", "")
    ok = status in ("applied", "verified")
    badge = f'<span class="badge {"b-applied" if ok else "b-bad"}">{escape(status)}</span>'
    match = edit.get("match")
    extra = f" <code>{escape(match)}</code>" if match == "normalized" else ""
    body = [f"<div>{redline_html(edit.get('anchor', ''), edit.get('replacement', ''))}</div>"]
    where = _where(edit)
    if where:
        body.append(f'<div class="where">{"landed in" if ok else "candidates:"} {where}</div>')
    err = edit.get("error")
    if err:
        body.append(f'<div class="why msg">{escape(err.get("message", ""))}</div>')
        if err.get("hint"):
            body.append(f'<div class="hint">Hint: {escape(err["hint"])}</div>')
    ident = f"<br><code>{escape(str(edit['id']))}</code>" if edit.get("id") else ""
    return (
        f'<tr><td class="n">{edit.get("index")}</td><td class="st">{badge}{extra}{ident}</td>'
        f"<td>{''.join(body)}</td></tr>"
    )


def report_details(report: dict[str, Any]) -> str:
    """The part of a document's section that its report alone decides: the reply's notes and
    the table of edits, unapplied first.  Made where the report is (a batch's worker), so the
    batch's client only joins the sections."""
    lines = []
    notes = (report.get("reply") or {}).get("notes") or []
    if notes:
        lines.append(f'<div class="where">Reply: {escape("; ".join(notes))}</div>')
    edits = sorted(
        report.get("edits") or [],
        key=lambda e: (e.get("status") in ("applied", "verified"), e.get("index", 0)),
    )
    if edits:
        lines.append("<table><tr><th>#</th><th>status</th><th>edit</th></tr>")
        lines.extend(_edit_row(e) for e in edits)
        lines.append("</table>")
    return "".join(lines)


def _document(entry: dict[str, Any], details: str) -> str:
    outcome = entry["outcome"]
    t = entry.get("totals") or {}
    head = f'<h2>{escape(entry["name"])}<span class="badge b-{escape(outcome)}">{escape(outcome)}</span></h2>'
    lines = [head]
    if t:
        lines.append(
            f'<div class="where">{t.get("applied", 0)} of {t.get("proposed", 0)} edits applied'
            + (f" · output <code>{escape(entry['output'])}</code>" if entry.get("output") else "")
            + "</div>"
        )
    if entry.get("message"):
        lines.append(f'<div class="why msg">{escape(entry["message"])}</div>')
    lines.append(details)
    return f'<section class="doc">{"".join(lines)}</section>'


def render_batch(summary: dict[str, Any], details: dict[str, str]) -> str:
    """The batch page: ``summary`` as summary.json holds it, ``details`` each document's
    :func:`report_details` by name (none for a document without a report)."""
    t = summary["totals"]
    docs = sorted(summary["documents"], key=lambda d: (_BAD_FIRST.get(d["outcome"], 2), d["name"]))
    stats = "".join(
        f"<span>{escape(k)}: {v}</span>"
        for k, v in [
            ("documents", t["documents"]),
            ("edits proposed", t["proposed"]),
            ("applied", t["applied"]),
            ("unapplied", t["unapplied"]),
        ]
    )
    body = "".join(_document(d, details.get(d["name"], "")) for d in docs)
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>Redline review</title><style>{_CSS}</style></head><body>"
        f"<header><h1>Redline review</h1><div class=tot>{stats}</div></header>"
        f"<main>{body}</main></body></html>\n"
    )
