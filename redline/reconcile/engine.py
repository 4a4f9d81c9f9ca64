"""Reconcile a round: SENT (our redline) against RETURNED (what came back) -- issue 34.

One chain, read top to bottom:

1. both documents are read as views with their revisions and comments
   (:func:`redline.read.annotations.read_annotations`); a RETURNED in another format is first
   converted (:mod:`redline.reconcile.converted`), and what its format loses is learnt by
   sending SENT itself through the same round trip;
2. SENT's revisions and comments are found again in RETURNED (:mod:`redline.reconcile.pairing`):
   what is left in RETURNED is *theirs*;
3. our changes are grouped and decided (:mod:`redline.reconcile.ours`);
4. SENT as decided is compared with RETURNED outside any revision
   (:mod:`redline.reconcile.untracked`), text and then formatting (:mod:`redline.reconcile.formats`);
5. the report (:mod:`redline.reconcile.report`); its memo is :mod:`redline.reconcile.memo`.

Nothing is written: reconcile reads two documents and reports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from shared_schema import Code, OurOutcome, Refusal

from ..collector import paused
from ..opc.namespaces import REL_COMMENTS_EXTENDED
from ..opc.package import Limits, Package, PackageError
from ..read.annotations import Annotations, DocComment, Revision, read_annotations
from ..read.load import load_view
from ..read.view import DocumentView
from .align import Difference, differences
from .compared import Carry, Computed
from .formats import find_format_changes
from .imported import Chunk, imported, with_imports
from .ours import Change, decide, group_ours
from .pairing import holds_nothing, pair_comments, pair_revisions
from .readings import Reading, read_rejected
from .report import ReconcileReport, ReportWarning, Untracked
from .shown import unshown_parts
from .untracked import find_untracked

__all__ = ["ReconcileOptions", "default_author", "reconcile"]


@dataclass(frozen=True)
class ReconcileOptions:
    """``author``: whose changes in SENT are ours (default: :func:`default_author`);
    ``limits``: what both documents are held to."""

    author: str | None = None
    limits: Limits | None = None


def default_author(annotations: Annotations) -> str | None:
    """The author of SENT's most recent changes: the latest ``w:date`` among its revisions (a
    revision without a date counts as oldest); of several authors at that date, the one with
    the most revisions; None when SENT holds no revision with an author."""
    authored = [r for r in annotations.revisions if r.author]
    if not authored:
        return None
    latest = max(r.date or "" for r in authored)
    at = [r.author or "" for r in authored if (r.date or "") == latest]
    return max(dict.fromkeys(at), key=at.count)


Loaded = tuple[Package, DocumentView, Annotations]


def _load(data: bytes, limits: Limits | None) -> Loaded | Refusal:
    loaded = load_view(data, limits, trees=True)
    if isinstance(loaded, Refusal):
        return loaded
    package, view = loaded
    return package, view, read_annotations(package, view)


def reconcile(
    sent: bytes,
    returned: bytes,
    options: ReconcileOptions | None = None,
    *,
    sent_name: str = "sent.docx",
    returned_name: str = "returned.docx",
    warnings: list[ReportWarning] | None = None,
    sent_through: bytes | None = None,
) -> ReconcileReport:
    """What RETURNED (``.docx`` bytes) did with SENT's changes; a document that cannot be read
    is refused (``report.error``).  ``warnings``: what a conversion of RETURNED lost, reported
    as given; ``sent_through``: SENT sent through RETURNED's format and back
    (:mod:`redline.reconcile.converted`): what differs there is the format's doing."""
    options = options or ReconcileOptions()
    report = ReconcileReport(sent_name, returned_name, warnings=list(warnings or ()))
    with paused():
        a = _load(sent, options.limits)
        if isinstance(a, Refusal):
            report.error = _named(a, sent_name)
            return report
        b = _load(returned, options.limits)
        if isinstance(b, Refusal):
            report.error = _named(b, returned_name)
            return report
        try:
            _reconcile(report, a, b, options)
            if sent_through is not None:
                base = ReconcileReport(sent_name, sent_name)
                c = _load(sent_through, options.limits)
                if isinstance(c, Refusal):
                    report.error = _named(c, f"{sent_name} through the format of {returned_name}")
                    return report
                _reconcile(base, a, c, ReconcileOptions(report.author, options.limits))
                _discount(report, base)
        except PackageError as exc:
            report.error = Refusal.from_error(exc)
    return report


def _discount(report: ReconcileReport, base: ReconcileReport) -> None:
    """What the format does to SENT itself (``base``: SENT against SENT sent through it) taken
    out of ``report``, each said in a ``lossy_conversion`` warning."""
    lossy = Code.LOSSY_CONVERSION.value
    for ours, mine in zip(report.ours, base.ours, strict=True):
        if mine.outcome != OurOutcome.PENDING or mine.note:
            what = _short(ours.text)
            report.warnings.append(ReportWarning(lossy, (
                f"our change {', '.join(ours.ids)} ({what}) does not come through the format of "
                f"{report.returned} as it was (SENT itself sent through it reads it {mine.outcome}): "
                f"its outcome here, {ours.outcome}, may be the format's"
            )))  # fmt: skip
    noise = Counter((u.kind, u.before, u.after) for u in base.untracked)
    kept: list[Untracked] = []
    dropped: list[Untracked] = []
    for u in report.untracked:
        if noise[(u.kind, u.before, u.after)] > 0:
            noise[(u.kind, u.before, u.after)] -= 1
            dropped.append(u)
        else:
            kept.append(u)
    if dropped:
        sample = "; ".join(f"{_short(u.before)} -> {_short(u.after)}" for u in dropped[:3])
        report.warnings.append(ReportWarning(lossy, (
            f"{len(dropped)} differences the format of {report.returned} makes by itself (SENT sent "
            f"through it makes them too) are not reported as untracked: {sample}"
        )))  # fmt: skip
    report.untracked = kept
    made = Counter((r.get("kind"), r.get("text"), r.get("author")) for r in base.their_revisions)
    theirs: list[dict[str, Any]] = []
    for r in report.their_revisions:
        if made[(r.get("kind"), r.get("text"), r.get("author"))] > 0:
            made[(r.get("kind"), r.get("text"), r.get("author"))] -= 1
        else:
            theirs.append(r)
    if len(theirs) < len(report.their_revisions):
        report.warnings.append(ReportWarning(lossy, (
            f"{len(report.their_revisions) - len(theirs)} revisions the format of {report.returned} "
            "writes by itself (SENT sent through it has them too) are not reported as theirs"
        )))  # fmt: skip
    report.their_revisions = theirs


def _threads(report: ReconcileReport, package: Package, returned: Annotations) -> None:
    """A RETURNED with comments of theirs but no record of threads at all (no comment with a
    parent, no ``commentsExtended`` part): the tool that wrote it keeps none -- LibreOffice's
    ``.docx`` export, and its way through ``.doc``, ``.rtf`` and ``.odt`` (measured) -- so a
    reply of theirs reads as a comment of its own.  Said, not guessed: which one answers ours
    cannot be told from where it stands (a new comment may stand there too)."""
    if not report.their_comments or any(c.parent is not None for c in returned.comments):
        return
    if package.related(package.main_part, REL_COMMENTS_EXTENDED):
        return
    report.warnings.append(ReportWarning(Code.LOSSY_CONVERSION.value, (
        f"{report.returned} keeps no comment threads (the tool that wrote it records none): its "
        f"{len(report.their_comments)} comments of theirs are listed as comments of their own, "
        "though any may be a reply to one of ours"
    )))  # fmt: skip


def _short(text: str | None, limit: int = 60) -> str:
    t = " ".join((text or "").split())
    return repr(t if len(t) <= limit else t[: limit - 1] + "\u2026")


def _named(refusal: Refusal, name: str) -> Refusal:
    return refusal.model_copy(update={"message": f"{name}: {refusal.message}"})


def _reconcile(report: ReconcileReport, a: Loaded, b: Loaded, options: ReconcileOptions) -> None:
    _, sent, sent_ann = a
    ret_package, returned, ret_ann = b
    report.sent_revision, report.returned_revision = sent.revision, returned.revision
    author = options.author or default_author(sent_ann)
    report.author = author
    back = [Difference(d.b_start, d.b_end, d.a_start, d.a_end) for d in differences(sent.text, returned.text)]
    carry = Carry((sent, a[0]), (returned, ret_package), back)
    pairs = pair_revisions(
        sent_ann.revisions,
        ret_ann.revisions,
        sent.text,
        returned.text,
        Computed(returned).covers,
        carry,
        back,
    )
    changes = group_ours(sent, sent_ann.revisions, author) if author else []
    index = {id(r): i for i, r in enumerate(sent_ann.revisions)}
    for c in changes:
        c.found = sum(1 for r in c.revisions if index[id(r)] in pairs.to_returned)
        c.lost = [r for r in c.revisions if index[id(r)] not in pairs.to_returned]
        c.returned = [
            ret_ann.revisions[j] for r in c.revisions for j in pairs.to_returned.get(index[id(r)], ())
        ]
        c.entry.returned_ids = list(dict.fromkeys(r.id for r in c.returned))
        hows = {pairs.how[index[id(r)]] for r in c.revisions if index[id(r)] in pairs.how}
        c.entry.paired = next((h for h in ("place", "text", "id") if h in hows), None)
    paired = pairs.returned
    theirs = [r for j, r in enumerate(ret_ann.revisions) if j not in paired and not holds_nothing(r)]
    plain = read_rejected(returned, theirs)
    rejected = decide(changes, sent, returned, ret_ann, theirs, plain)
    expected = read_rejected(sent, [r for c in rejected for r in c.revisions])
    chunks = (imported(a[0], sent, options.limits), imported(ret_package, returned, options.limits))
    expected, plain = with_imports(expected, chunks[0]), with_imports(plain, chunks[1])
    unshown = (unshown_parts(a[0]), unshown_parts(ret_package))
    notes: list[str] = []
    untracked, kept = find_untracked(
        changes, sent, expected, returned, plain, unshown, (a[0], ret_package), notes
    )
    untracked = _unread(untracked, kept, expected, chunks[0], notes)
    untracked.extend(find_format_changes(changes, sent, expected, returned, plain, theirs))
    untracked.sort(key=lambda u: (u.start, u.end))
    report.untracked = untracked
    report.warnings.extend(ReportWarning(Code.LOSSY_CONVERSION.value, n) for n in notes)
    report.ours = [c.entry for c in changes]
    report.their_revisions = [_their_revision(returned, r, changes) for r in theirs]
    sent_comments = sent_ann.comments + [x for c in chunks[0] for x in c.comments]
    report.their_comments = _their_comments(sent_comments, ret_ann.comments, returned)
    _threads(report, ret_package, ret_ann)


def _unread(
    untracked: list[Untracked],
    kept: list[Difference],
    expected: Reading,
    chunks: list[Chunk],
    notes: list[str],
) -> list[Untracked]:
    """Text RETURNED alone reads at the place of a chunk of SENT's that is not read
    (:mod:`redline.reconcile.imported`): said in ``notes``, not reported as untracked."""
    places = {expected.at(c.place): c for c in chunks if c.text is None}
    if not places:
        return untracked
    out = untracked[len(kept) :]
    for u, d in zip(untracked, kept, strict=False):
        c = places.get(d.a_start) if d.a_start == d.a_end else None
        if c is None:
            out.append(u)
            continue
        notes.append(
            f"{c.part} ({c.kind or 'content of an unknown type'}), content SENT imports and reconcile "
            f"does not read, is written out in RETURNED as {_short(u.after)}: not compared -- "
            "compare it with SENT by eye"
        )
    return out


def _place(view: DocumentView, paragraph: int | None) -> dict[str, Any]:
    if paragraph is None or not 0 <= paragraph < len(view.paragraphs):
        return {"label": None, "section": None}
    p = view.paragraphs[paragraph]
    return {"label": p.label, "section": p.section}


def _their_revision(view: DocumentView, r: Revision, changes: list[Change]) -> dict[str, Any]:
    out: dict[str, Any] = {**r.to_dict(), **_place(view, r.paragraph)}
    inside = [c for c in changes if c.returned and _within(r, c)]
    out["in_ours"] = inside[0].entry.ids if inside else None
    return out


def _within(r: Revision, c: Change) -> bool:
    elements = {x.element for x in c.returned if x.element is not None}
    if r.element is not None and any(a in elements for a in r.element.iterancestors()):
        return True
    lo = min(x.start for x in c.returned)
    hi = max(x.end for x in c.returned)
    return hi > lo and (lo < r.start < hi or lo < r.end < hi)


def _their_comments(
    sent: list[DocComment], returned: list[DocComment], view: DocumentView
) -> list[dict[str, Any]]:
    """RETURNED's comments SENT does not hold (new comments and replies); a reply to a comment
    of SENT's is marked ``reply_to_ours``."""
    pairs = pair_comments(sent, returned)
    old = pairs.returned
    ours_ids = {returned[j].id for j in old}  # (SENT's comments, as RETURNED numbers them)
    out: list[dict[str, Any]] = []
    for j, c in enumerate(returned):
        if j in old:
            continue
        entry: dict[str, Any] = {**c.to_dict(), **_place(view, c.paragraph)}
        entry["reply_to_ours"] = c.parent is not None and c.parent in ours_ids
        out.append(entry)
    return out
