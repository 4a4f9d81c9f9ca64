"""`report.html`: one self-contained page a reviewer (a lawyer, not a programmer) reads instead
of JSON.

No network, no external assets: inline CSS, no scripts; the only links are relative, to the
files the batch wrote beside the page (each redlined copy and report).  Per document: its
outcome in plain words, links to its files, the summary's quote check (every unverified quote
with its reason), then per edit the anchor and replacement shown as a redline (deletions struck,
insertions underlined) with the same word diff the writer uses, the model's rationale, where it
landed, and for every edit not applied the reason in plain words (the code beside it, small)
and the hint -- edits not applied first, and styled apart.  The proofreader's findings
(``NAME.check.json``) stand with the applied edit whose paragraph they concern, the rest in a
section of their own, grouped by kind, with clause labels.  A round of a negotiation (a sent
redline and what came back) shows the reconcile's memo by clause: our changes accepted,
rejected, modified or pending, what they changed without tracking, their changes and comments.
Text contrast meets WCAG AA (4.5:1) on its background: tests/test_review.py measures every
colour pair of the stylesheet.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

from redline.proofread.findings import TITLES, Kind
from redline.read.sections import place
from redline.write.writer import word_diff
from shared_schema import BatchOutcome, ChangeStatus, Code, EditStatus, OurOutcome, QuoteStatus

CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d1d1f;background:#f6f6f4}
header{background:#1f2d3d;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px;font-size:20px}
main{padding:18px 28px;max-width:1100px}
.tot{display:flex;gap:14px;flex-wrap:wrap;margin:6px 0 0}
.tot span{background:#34475c;color:#fff;padding:3px 10px;border-radius:12px}
section.doc{background:#fff;border:1px solid #d0d0d0;border-radius:8px;margin:0 0 18px;padding:14px 18px}
section.doc h2{font-size:17px;margin:0 0 6px}
section.doc h3{font-size:14px;margin:14px 0 4px;color:#1d1d1f}
.badge{display:inline-block;font-size:12px;font-weight:600;padding:2px 8px;border-radius:10px;margin-left:6px;vertical-align:2px}
.ok{background:#dff3e3;color:#17622b}
.bad{background:#fde2e1;color:#8a1717}
.files a{color:#0b5394;margin-right:14px}
table{border-collapse:collapse;width:100%;margin-top:8px}
td,th{border-top:1px solid #e4e4e4;padding:7px 8px;vertical-align:top;text-align:left}
th{font-size:12px;color:#555;font-weight:600}
td.n{color:#555;width:2.5em}
td.st{width:13em;font-size:13px}
tr.unapplied td{background:#fff4f3}
tr.unapplied td.n{border-left:4px solid #c62828}
tr.applied td.n{border-left:4px solid #2e7d32}
.status{font-weight:600}
tr.unapplied .status{color:#8a1717}
tr.applied .status{color:#17622b}
del{color:#a0001c;text-decoration:line-through;background:#fdeaea}
ins{color:#0a4f8a;text-decoration:underline;background:#e7f1fb}
.where{color:#555;font-size:13px}
.why{margin-top:4px;font-size:13px}
.rationale{margin-top:4px;font-size:13px;color:#333;font-style:italic}
.note{margin-top:4px;font-size:13px;color:#5c3d00}
.hint{margin-top:3px;font-size:13px;color:#35506b}
.msg{color:#8a1717}
code{font-size:12px;color:#555}
ul.quotes{margin:4px 0 0;padding-left:20px;font-size:13px}
ul.quotes li{margin:3px 0}
"""
# The proofreader's findings and the rounds' clauses: on a page that has them (a page without
# them is byte for byte what it was before either existed).
CSS_MORE = """.finding{margin-top:4px;font-size:13px;color:#5c3d00}
h4{font-size:13px;margin:10px 0 2px}
"""

_BAD_FIRST = {BatchOutcome.REFUSED: 0, BatchOutcome.FAILED: 0, BatchOutcome.UNAPPLIED: 1}

# Each status in the words of the person reading the page; the code stays beside it, small.
PLAIN_STATUS: dict[EditStatus, str] = {
    EditStatus.APPLIED: "applied",
    EditStatus.VERIFIED: "would apply (dry run: nothing written)",
    EditStatus.NOT_FOUND: "not applied: the quoted text is not in the document",
    EditStatus.AMBIGUOUS: "not applied: the quoted text occurs in more than one place",
    EditStatus.COUNT_MISMATCH: "not applied: the quoted text occurs a different number of times than expected",
    EditStatus.OUT_OF_SCOPE: "not applied: the quoted text is not in the clause the edit names",
    EditStatus.OVERLAP: "not applied: it overlaps another proposed edit",
    EditStatus.NO_CHANGE: "not applied: the new text is the same as the old",
    EditStatus.STALE: "not applied: proposed for an earlier version of the document",
    EditStatus.INVALID: "not applied: the proposal could not be read",
    EditStatus.UNSUPPORTED: "not applied: it touches text that cannot be edited safely (a field or a moved passage)",
}
PLAIN_OUTCOME: dict[BatchOutcome, str] = {
    BatchOutcome.APPLIED: "every edit applied",
    BatchOutcome.COMPARED: "compared with its new version",
    BatchOutcome.RECONCILED: "reconciled: nothing changed without tracking",
    BatchOutcome.UNAPPLIED: "some edits not applied",
    BatchOutcome.REFUSED: "document or reply refused",
    BatchOutcome.FAILED: "could not be processed",
}
# A refusal's code in plain words, where the outcome's are not precise enough.
PLAIN_REFUSAL: dict[Code, str] = {
    Code.MISSING_REPLY: "no reply for this document",
    Code.MISSING_DOCUMENT: "no document for this reply",
    Code.AMBIGUOUS_VERSION: "both a reply and a new version: redline or compare, not both",
    Code.MISSING_RETURNED: "the redline we sent, but nothing that came back",
    Code.MISSING_SENT: "came back, but the redline we sent is missing",
    Code.AMBIGUOUS_RETURNED: "two returned files for one round",
}
_KIND_WORDS = {"replace": "replaced", "insert": "inserted", "delete": "deleted", "move": "moved"}


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


def _place(loc: dict[str, Any]) -> str:
    part = loc.get("part") or ""
    story = next(
        (k for k in ("header", "footer", "footnote", "endnote") if k in part.rsplit("/", 1)[-1]), "body"
    )
    return place(loc.get("section"), loc.get("paragraph", 0), story, part)


def _where(edit: dict[str, Any]) -> str:
    locs = edit.get("locations") or []
    if not locs:
        return ""
    more = f" (+{len(locs) - 6} more)" if len(locs) > 6 else ""
    return "; ".join(escape(_place(loc)) for loc in locs[:6]) + more


def _status(edit: dict[str, Any]) -> tuple[bool, str]:
    raw = edit.get("status", "")
    try:
        status = EditStatus(raw)
    except ValueError:
        return False, f"not applied ({raw})"
    return status.ok, PLAIN_STATUS[status]


def _finding_place(f: dict[str, Any]) -> str:
    label, section, paragraph = f.get("label"), f.get("section"), f.get("paragraph")
    where = f"clause {label}" if label else (str(section) if section else "")
    return f"{where}, paragraph {paragraph}" if where else f"paragraph {paragraph}"


def _finding(f: dict[str, Any], with_place: bool) -> str:
    """One finding: its message, the fix it proposes (as a redline), its kind small."""
    where = f"{escape(_finding_place(f))}: " if with_place else ""
    fix = f.get("fix") or {}
    repair = ""
    if isinstance(fix.get("anchor"), str) and isinstance(fix.get("replacement"), str):
        repair = f" Fix: “{redline_html(fix['anchor'], fix['replacement'])}”"
    return f"{where}{escape(str(f.get('message', '')))}{repair} <code>{escape(str(f.get('kind', '')))}</code>"


def _touched(edit: dict[str, Any]) -> set[int]:
    """The view paragraphs an applied (or, in a dry run, verified) edit changes: each of its
    places', and the paragraphs its quoted text runs on into."""
    if not _status(edit)[0]:
        return set()
    more = str(edit.get("anchor") or "").count("\n")
    out: set[int] = set()
    for loc in edit.get("locations") or []:
        p = loc.get("paragraph")
        if isinstance(p, int):
            out.update(range(p, p + more + 1))
    return out


def _edit_row(
    edit: dict[str, Any], rationale: str | None, findings: list[dict[str, Any]] | None = None
) -> str:
    ok, words = _status(edit)
    code = edit.get("status", "")
    err = edit.get("error") or {}
    finer = err.get("code") if err.get("code") not in (None, code) else None
    codes = " · ".join(escape(str(c)) for c in (code, finer) if c and not ok)
    secondary = [codes] if codes else []
    if edit.get("match") == "normalized":
        secondary.append("matched tolerantly")
    if edit.get("id"):
        secondary.append(f"id {escape(str(edit['id']))}")
    cell = [f'<div class="status">{escape(words)}</div>', "<br>".join(f"<code>{c}</code>" for c in secondary)]
    body = [f"<div>{redline_html(edit.get('anchor', ''), edit.get('replacement', ''))}</div>"]
    if rationale:
        body.append(f'<div class="rationale">Why: {escape(rationale)}</div>')
    for note in edit.get("notes") or []:
        body.append(f'<div class="note">Note: {escape(str(note))}</div>')
    where = _where(edit)
    if where:
        body.append(f'<div class="where">{"Changed at" if ok else "Found at"} {where}</div>')
    if err:
        body.append(f'<div class="why msg">{escape(err.get("message", ""))}</div>')
        if err.get("hint"):
            body.append(f'<div class="hint">What to send instead: {escape(err["hint"])}</div>')
    for f in findings or []:
        body.append(f'<div class="finding">Proofreading, {_finding(f, True)}</div>')
    kind = EditStatus.APPLIED if ok else BatchOutcome.UNAPPLIED  # the row's class
    return (
        f'<tr class="{kind}"><td class="n">{edit.get("index")}</td><td class="st">{"".join(cell)}</td>'
        f"<td>{''.join(body)}</td></tr>"
    )


def _quote_check(summary: dict[str, Any]) -> str:
    """The summary's quote check: the totals, then every quote not verified and every point
    that cites none, each with its reason."""
    t = summary.get("totals") or {}
    if summary.get("error"):
        err = summary["error"]
        return (
            "<h3>Summary quote check</h3>"
            f'<div class="why msg">The summary could not be checked: {escape(err.get("message", ""))} '
            f"<code>{escape(str(err.get('code', '')))}</code></div>"
        )
    items = []
    for point in summary.get("points") or []:
        title = escape(point.get("title") or f"point {point.get('index')}")
        if not point.get("quotes"):
            items.append(f"<li><b>{title}</b>: cites no quote, so nothing supports it</li>")
        for q in point.get("quotes") or []:
            if q.get("status") == QuoteStatus.VERIFIED:
                continue
            err = q.get("error") or {}
            reason = err.get("message") or "the quote is not in the document"
            items.append(
                f"<li><b>{title}</b>: “{escape(q.get('quote', ''))}” — not verified: {escape(reason)}"
                f" <code>{escape(str(err.get('code') or q.get('status', '')))}</code></li>"
            )
    verified, quotes = t.get("verified", 0), t.get("quotes", 0)
    ok = verified == quotes and not items
    head = (
        f'<h3>Summary quote check <span class="badge {"ok" if ok else "bad"}">'
        f"{verified} of {quotes} quotes verified</span></h3>"
    )
    if not items:
        return head + '<div class="where">Every quote of the summary is in the document.</div>'
    return head + f'<ul class="quotes">{"".join(items)}</ul>'


def report_details(
    report: dict[str, Any],
    rationales: dict[int, str] | None = None,
    summary: dict[str, Any] | None = None,
    check: dict[str, Any] | None = None,
) -> str:
    """The part of a document's section that its reports alone decide: the reply's notes, the
    summary's quote check (``summary``: its summary report), and the table of edits, not
    applied first, each with its ``rationales`` entry (by the edit's index); with ``check``
    (the proofread check: its ``list`` of findings, or its ``error``), each finding beside the
    applied edits that change its paragraph, and the others after the table, by kind.  Made
    where the reports are (a batch's worker), so the batch's client only joins the sections."""
    lines = []
    notes = (report.get("reply") or {}).get("notes") or []
    if notes:
        lines.append(f'<div class="where">Reply: {escape("; ".join(notes))}</div>')
    if summary is not None:
        lines.append(_quote_check(summary))
    edits = sorted(
        report.get("edits") or [],
        key=lambda e: (e.get("status") in (EditStatus.APPLIED, EditStatus.VERIFIED), e.get("index", 0)),
    )
    findings: list[dict[str, Any]] = list((check or {}).get("list") or [])
    shown: set[int] = set()
    if edits:
        why = rationales or {}
        lines.append("<h3>Proposed edits</h3>" if summary is not None else "")
        lines.append("<table><tr><th>#</th><th>outcome</th><th>edit</th></tr>")
        for e in edits:
            touched = _touched(e) if findings else set()
            mine = [f for f in findings if f.get("paragraph") in touched]
            shown.update(id(f) for f in mine)
            lines.append(_edit_row(e, why.get(e.get("index", -1)), mine))
        lines.append("</table>")
    if check is not None:
        lines.append(_proofreading(check, [f for f in findings if id(f) not in shown], len(shown)))
    return "".join(lines)


def _proofreading(check: dict[str, Any], rest: list[dict[str, Any]], beside: int) -> str:
    """The check's section: its error, or its count and the findings no applied edit
    concerns, grouped by kind, each with its clause and paragraph."""
    error = check.get("error")
    if error:
        return (
            "<h3>Proofreading</h3>"
            f'<div class="why msg">The proofreading check could not run: {escape(str(error.get("message", "")))} '
            f"<code>{escape(str(error.get('code', '')))}</code></div>"
        )
    total = int(check.get("findings") or 0)
    of = "the document and what its reply would break" if check.get("reply") else "the document"
    head = (
        f'<h3>Proofreading <span class="badge {"bad" if total else "ok"}">'
        f"{total} finding{'' if total == 1 else 's'}</span></h3>"
    )
    if not total:
        return (
            head
            + f'<div class="where">Nothing to report in {of}: defined terms, cross-references and numbering.</div>'
        )
    lines = [head, f'<div class="where">Checked: {of}.']
    if beside:
        lines.append(f" {beside} shown above, with the edit that changes their paragraph.")
    lines.append("</div>")
    for kind in Kind:
        group = [f for f in rest if f.get("kind") == kind]
        if group:
            lines.append(f"<h4>{escape(TITLES[kind])} ({len(group)})</h4>")
            lines.append(
                '<ul class="quotes">' + "".join(f"<li>{_finding(f, True)}</li>" for f in group) + "</ul>"
            )
    return "".join(lines)


_OUR_WORDS: dict[OurOutcome, str] = {
    OurOutcome.ACCEPTED: "accepted",
    OurOutcome.REJECTED: "rejected",
    OurOutcome.PENDING: "still open (not decided)",
    OurOutcome.MODIFIED: "changed",
}


def _clause(label: object, section: object) -> str:
    if section:
        return str(section)
    if label:
        return f"Clause {label}"
    return "General"


def _our_change(c: dict[str, Any]) -> str:
    kind = str(c.get("kind", ""))
    deleted, inserted = str(c.get("deleted") or ""), str(c.get("inserted") or "")
    if kind == "replace":
        what = f"<del>{escape(deleted)}</del><ins>{escape(inserted)}</ins>"
    elif kind in ("delete", "row_delete"):
        what = f"deletion of <del>{escape(deleted)}</del>"
    elif kind in ("insert", "row_insert"):
        what = f"insertion of <ins>{escape(inserted)}</ins>"
    else:
        what = f"{escape(kind.replace('_', ' '))} of “{escape(str(c.get('text') or ''))}”"
    try:
        outcome = OurOutcome(str(c.get("outcome")))
    except ValueError:
        return f"Our {what}: {escape(str(c.get('outcome')))}"
    words = _OUR_WORDS[outcome]
    if outcome is OurOutcome.MODIFIED:
        how = "tracked" if c.get("tracked") else "<b>without tracking</b>"
        before, after = str(c.get("before") or ""), str(c.get("after") or "")
        return f"Our {what}: {words}, {how}: {redline_html(before, after)}"
    return f"Our {what}: <b>{escape(words)}</b>"


def round_details(report: dict[str, Any]) -> str:
    """A round (its ``redline reconcile`` report): the counts, every warning of what a
    conversion lost, then by clause -- as the memo is -- our changes and their outcomes, what
    they changed without tracking, their tracked changes and their comments."""
    t = report.get("totals") or {}
    lines = []
    for w in report.get("warnings") or []:
        lines.append(
            f'<div class="why msg">Warning: {escape(str(w.get("message", "")))} '
            f"<code>{escape(str(w.get('code', '')))}</code></div>"
        )
    untracked = int(t.get("untracked", 0))
    lines.append(
        f'<div class="where">Of our {t.get("ours", 0)} changes they accepted {t.get("accepted", 0)}, '
        f"rejected {t.get('rejected', 0)}, changed {t.get('modified', 0)} and left {t.get('pending', 0)} "
        f"open; {t.get('their_revisions', 0)} tracked changes and {t.get('their_comments', 0)} comments "
        f"of theirs; {untracked} change{'' if untracked == 1 else 's'} without tracking.</div>"
    )
    order: list[str] = []
    by: dict[str, list[tuple[int, str]]] = {}

    def add(item: dict[str, Any], rank: int, line: str) -> None:
        key = _clause(item.get("label"), item.get("section"))
        if key not in by:
            by[key] = []
            order.append(key)
        by[key].append((rank, line))

    for c in report.get("ours") or []:
        add(c, 0, _our_change(c))
    for u in report.get("untracked") or []:
        before, after = str(u.get("before") or ""), str(u.get("after") or "")
        if u.get("kind") == "format":
            names = ", ".join(str(n) for n in u.get("properties") or [])
            add(
                u,
                1,
                f"<b>Changed without tracking</b>: the formatting of “{escape(before)}” ({escape(names)})",
            )
        else:
            add(u, 1, f"<b>Changed without tracking</b>: {redline_html(before, after)}")
    theirs = report.get("theirs") or {}
    for r in theirs.get("revisions") or []:
        who = escape(str(r.get("author") or "They"))
        inside = " (inside our change)" if r.get("in_ours") else ""
        kind = escape(str(r.get("kind", "change")).replace("_", " "))
        add(r, 2, f"{who}: tracked {kind} “{escape(str(r.get('text') or ''))}”{inside}")
    for c in theirs.get("comments") or []:
        who = escape(str(c.get("author") or "They"))
        reply = " (reply to our comment)" if c.get("reply_to_ours") else ""
        add(c, 3, f"{who} commented{reply}: “{escape(str(c.get('text') or ''))}”")
    for key in order:
        items = "".join(f"<li>{line}</li>" for _, line in sorted(by[key], key=lambda x: x[0]))
        lines.append(f'<h4>{escape(key)}</h4><ul class="quotes">{items}</ul>')
    return "".join(lines)


def compare_details(report: dict[str, Any]) -> str:
    """A compared document's changes (its ``redline compare`` report): how many of each kind,
    then each change with its paragraph (and clause), the old words struck and the new
    underlined; a move says where the paragraphs went and the words changed inside them;
    a change not written says why."""
    changes = report.get("changes") or []
    if report.get("error"):
        return ""
    counts: dict[str, int] = {}
    for c in changes:
        counts[c.get("kind", "")] = counts.get(c.get("kind", ""), 0) + 1
    if not changes:
        return '<div class="where">No differences: the new version reads as this document.</div>'
    summary = ", ".join(f"{n} {_KIND_WORDS.get(k, k)}" for k, n in sorted(counts.items()))
    lines = [f"<h3>Changes in the new version ({escape(summary)})</h3>"]
    lines.append("<table><tr><th>#</th><th>change</th><th>where and what</th></tr>")
    for c in changes:
        kind = str(c.get("kind", ""))
        ok = c.get("status") == ChangeStatus.WRITTEN
        old, new = str(c.get("old", "")), str(c.get("new", ""))
        body = []
        if kind == "move":
            body.append(
                f'<div class="where">Moved from {escape(str(c.get("where", "")))} to '
                f"{escape(str(c.get('to_where', '')))} of the new version "
                f"({c.get('paragraphs', 1)} paragraph{'s' if c.get('paragraphs', 1) != 1 else ''})</div>"
            )
            body.append(f"<div>{redline_html(old, new) if old != new else escape(old)}</div>")
        else:
            text = (f"<del>{escape(old)}</del>" if old else "") + (f"<ins>{escape(new)}</ins>" if new else "")
            body.append(f"<div>{text}</div>")
            body.append(f'<div class="where">At {escape(str(c.get("where", "")))}</div>')
        if not ok:
            body.append(
                f'<div class="why msg">Not written: {escape(str(c.get("reason") or c.get("status")))}</div>'
            )
        words = _KIND_WORDS.get(kind, kind) if ok else f"{_KIND_WORDS.get(kind, kind)}, not written"
        row = EditStatus.APPLIED if ok else BatchOutcome.UNAPPLIED  # the row's class
        lines.append(
            f'<tr class="{row}"><td class="n">{c.get("index")}</td><td class="st"><div class="status">'
            f"{escape(words)}</div></td><td>{''.join(body)}</td></tr>"
        )
    lines.append("</table>")
    return "".join(lines)


def _link(name: str, label: str) -> str:
    return f'<a href="{escape(quote(name))}">{escape(label)}</a>'


def _document(entry: dict[str, Any], details: str) -> str:
    outcome = BatchOutcome(entry["outcome"])
    code = entry.get("code")
    t = entry.get("totals") or {}
    good = outcome in (BatchOutcome.APPLIED, BatchOutcome.COMPARED, BatchOutcome.RECONCILED)
    words = PLAIN_REFUSAL.get(Code(code), PLAIN_OUTCOME[outcome]) if code else PLAIN_OUTCOME[outcome]
    if outcome == BatchOutcome.UNAPPLIED and entry.get("compare_totals"):
        words = "compared; some changes could not be written"
    if outcome == BatchOutcome.RECONCILED and entry.get("exit"):
        good = False
        words = "reconciled: " + (" and ".join(
            w for w, key in (("changes made without tracking", "untracked"), ("a lossy conversion", "lossy"))
            if (entry.get("reconcile") or {}).get(key)
        ) or "see the warnings")  # fmt: skip
    head = f'<h2>{escape(entry["name"])}<span class="badge {"ok" if good else "bad"}">{escape(words)}</span></h2>'
    lines = [head]
    if not good and code:  # the code, secondary, for whoever acts on it
        lines.append(f'<div class="where">code <code>{escape(str(code))}</code></div>')
    if t:
        lines.append(
            f'<div class="where">{t.get("applied", 0)} of {t.get("proposed", 0)} edits applied</div>'
        )
    if entry.get("returned"):
        lines.append(
            f'<div class="where">The redline sent, {escape(str(entry.get("sent") or "(missing)"))}, '
            f"and what came back, {escape(str(entry['returned']))}</div>"
        )
    ct = entry.get("compare_totals") or {}
    if ct:
        lines.append(
            f'<div class="where">Compared with {escape(str(entry.get("new", "")))}: {ct.get("written", 0)} of '
            f"{ct.get('changes', 0)} changes written as tracked changes</div>"
        )
    links = [
        _link(entry[key], label)
        for key, label in (
            ("output", "redlined copy (Word)"),
            ("report", "edit report (JSON)"),
            ("summary_report", "summary report (JSON)"),
            ("compared", "compared copy (Word)"),
            ("compare_report", "compare report (JSON)"),
        )
        if entry.get(key)
    ]
    links += [
        _link(part[key], label)
        for part, key, label in (
            (entry.get("check") or {}, "report", "proofreading (JSON)"),
            (entry.get("reconcile") or {}, "report", "reconcile report (JSON)"),
            (entry.get("reconcile") or {}, "memo", "memo (Markdown)"),
        )
        if part.get(key)
    ]
    if links:
        lines.append(f'<div class="files where">Files: {"".join(links)}</div>')
    if entry.get("message"):
        lines.append(f'<div class="why msg">{escape(entry["message"])}</div>')
    lines.append(details)
    return f'<section class="doc">{"".join(lines)}</section>'


def _rank(entry: dict[str, Any]) -> int:
    """Refused and failed documents first, then those with something to act on."""
    if entry["outcome"] == BatchOutcome.RECONCILED and entry.get("exit"):
        return 1
    return _BAD_FIRST.get(entry["outcome"], 2)


def render_batch(summary: dict[str, Any], details: dict[str, str]) -> str:
    """The batch page: ``summary`` as summary.json holds it, ``details`` each document's
    :func:`report_details` by name (none for a document without a report)."""
    t = summary["totals"]
    docs = sorted(summary["documents"], key=lambda d: (_rank(d), d["name"]))
    extra = [(k, t[key]) for k, key in (("proofreading findings", "findings"), ("rounds", "rounds"),
             ("changed without tracking", "untracked")) if key in t]  # fmt: skip
    stats = "".join(
        f"<span>{escape(k)}: {v}</span>"
        for k, v in [
            ("documents", t["documents"]),
            ("edits proposed", t["proposed"]),
            ("applied", t["applied"]),
            ("not applied", t["unapplied"]),
            *extra,
        ]
    )
    body = "".join(_document(d, details.get(d["name"], "")) for d in docs)
    more = CSS_MORE if any("check" in d or "returned" in d for d in docs) else ""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>Redline review</title><style>{CSS}{more}</style></head><body>"
        f"<header><h1>Redline review</h1><div class=tot>{stats}</div></header>"
        f"<main>{body}</main></body></html>\n"
    )
