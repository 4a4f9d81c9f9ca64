"""Compare two versions of a document: OLD with NEW's differences as tracked changes (issue 19).

"They sent it back clean -- what did they change?"  Both documents are read as views (every
revision accepted); their paragraphs are aligned first (the same longest-matching-block diff
the writer uses for words, here over whole paragraphs), then each stretch that differs is
diffed word by word -- exactly, character for character (a changed quote or space is a change)
-- and every word-level change becomes one range for the writer (:class:`redline.verify.Planned`)
on OLD's view.  The same writer that writes a model's edits writes them (formatting kept, runs
split only at change boundaries, new paragraphs with their neighbour's properties, whole
paragraphs deleted with their marks), so every zip member that need not change is copied byte
for byte and only changed paragraphs are re-serialised.

A stretch of OLD's paragraphs is diffed against NEW's only within one container (a story, a
table cell); a change that would cross one is written paragraph by paragraph.  What the writer
must not touch -- a field's result, another author's tracked move -- is left as it is and
reported (``unsupported``), as are paragraphs NEW moved (found: the same text deleted in one
place and inserted in another; written as a deletion and an insertion, and reported ``moved``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shared_schema import Refusal

from .collector import paused
from .exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED
from .load import load_view
from .package import Limits, Package, PackageError
from .sections import place
from .verify import Planned
from .view import DocumentView, Paragraph, SpanFlag
from .writer import WriteOptions, diff_opcodes, word_diff

__all__ = ["Change", "CompareOptions", "CompareOutcome", "CompareReport", "compare"]

_UNTOUCHABLE = SpanFlag.FIELD_RESULT | SpanFlag.MOVE_TO
_MIN_MOVE = 20  # a paragraph shorter than this is not called moved (a blank line, "Yes")


@dataclass(frozen=True)
class CompareOptions:
    author: str = "redline"
    date: str | None = None  # ISO 8601; default: now
    limits: Limits | None = None


@dataclass
class Change:
    """One word-level difference: OLD's text ``old`` at view ``[start, end)`` became ``new``."""

    index: int
    kind: str  # insert | delete | replace
    old: str
    new: str
    start: int
    end: int
    paragraph: int  # OLD's view paragraph it starts in
    where: str  # that paragraph named as messages name it (sections.place)
    status: str = "written"  # written | unsupported
    moved: bool = False  # part of a paragraph NEW moved elsewhere
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index, "kind": self.kind, "old": self.old, "new": self.new,
            "start": self.start, "end": self.end, "paragraph": self.paragraph, "where": self.where,
            "status": self.status,
        }  # fmt: skip
        if self.moved:
            out["moved"] = True
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class CompareReport:
    old: str
    new: str
    output: str | None
    old_revision: str | None = None
    new_revision: str | None = None
    changes: list[Change] = field(default_factory=list)
    paragraphs: dict[str, int] = field(default_factory=dict)  # inserted / deleted / changed / moved
    error: Refusal | None = None

    def to_dict(self) -> dict[str, Any]:
        written = sum(1 for c in self.changes if c.status == "written")
        return {
            "old": self.old,
            "new": self.new,
            "output": self.output,
            "old_revision": self.old_revision,
            "new_revision": self.new_revision,
            "changes": [c.to_dict() for c in self.changes],
            "totals": {
                "changes": len(self.changes),
                "written": written,
                "unsupported": len(self.changes) - written,
                "paragraphs": dict(self.paragraphs),
            },
            "error": None if self.error is None else self.error.model_dump(mode="json", exclude_none=True),
        }


@dataclass
class CompareOutcome:
    report: CompareReport
    output: bytes | None = None

    @property
    def exit_code(self) -> int:
        if self.report.error is not None:
            return EXIT_REFUSED
        return EXIT_OK if all(c.status == "written" for c in self.report.changes) else EXIT_UNAPPLIED


def compare(
    old: bytes,
    new: bytes,
    options: CompareOptions | None = None,
    *,
    old_name: str = "old.docx",
    new_name: str = "new.docx",
    output_name: str | None = None,
) -> CompareOutcome:
    """OLD (bytes) with NEW's differences written as tracked changes, and the report of them;
    a document that cannot be read is refused (``report.error``, no output)."""
    options = options or CompareOptions()
    report = CompareReport(old_name, new_name, output_name)
    with paused():
        loaded_old = load_view(old, options.limits)
        if isinstance(loaded_old, Refusal):
            report.error = _which(loaded_old, old_name)
            return CompareOutcome(report)
        loaded_new = load_view(new, options.limits)
        if isinstance(loaded_new, Refusal):
            report.error = _which(loaded_new, new_name)
            return CompareOutcome(report)
        package, old_view = loaded_old
        _, new_view = loaded_new
        report.old_revision, report.new_revision = old_view.revision, new_view.revision
        try:
            planned = _plan(old_view, new_view, report)
            output = _write(package, old_view, planned, options)
        except PackageError as exc:
            report.error = Refusal.from_error(exc)
            return CompareOutcome(report)
        return CompareOutcome(report, output)


def _which(refusal: Refusal, name: str) -> Refusal:
    return refusal.model_copy(update={"message": f"{name}: {refusal.message}"})


# -------------------------------------------------------------------------------------------
# Alignment


def _container(p: Paragraph) -> tuple[int, Any]:
    """What a paragraph's neighbours must share with it to be diffed as one stretch: its story
    and the element that holds it (the body, a table cell, a text box, a content control)."""
    parent = p.element.getparent()
    return (p.story_no, parent)


def _plan(old: DocumentView, new: DocumentView, report: CompareReport) -> list[Planned]:
    a = [old.paragraph_text(p) for p in old.paragraphs]
    b = [new.paragraph_text(p) for p in new.paragraphs]
    hunks: list[tuple[int, int, int, int]] = []  # OLD paragraphs [i1, i2], NEW [j1, j2], inclusive
    counts = {"inserted": 0, "deleted": 0, "changed": 0, "moved": 0}
    deleted_texts: dict[str, int] = {}
    inserted_texts: dict[str, int] = {}
    for tag, i1, i2, j1, j2 in diff_opcodes(a, b):
        if tag == "equal":
            continue
        if tag == "replace":
            counts["changed"] += min(i2 - i1, j2 - j1)
            counts["inserted"] += max(0, (j2 - j1) - (i2 - i1))
            counts["deleted"] += max(0, (i2 - i1) - (j2 - j1))
        for t in a[i1:i2]:
            deleted_texts[t] = deleted_texts.get(t, 0) + 1
        for t in b[j1:j2]:
            inserted_texts[t] = inserted_texts.get(t, 0) + 1
        if tag == "insert":
            counts["inserted"] += j2 - j1
            if i1 > 0:
                hunks.append((i1 - 1, i1 - 1, j1 - 1, j2 - 1))  # after the paragraph before
            elif i1 < len(a):
                hunks.append((0, 0, j1, j2))  # before the first paragraph
            continue
        if tag == "delete":
            counts["deleted"] += i2 - i1
            if i2 < len(a) and _container(old.paragraphs[i2]) == _container(old.paragraphs[i1]):
                hunks.append((i1, i2, j1, j1))  # through the mark of the last, into the next
            elif i1 > 0:
                hunks.append((i1 - 1, i2 - 1, j1 - 1, j1 - 1))  # from the mark before
            else:
                hunks.append((i1, i2 - 1, j1, j1 - 1))  # everything goes: the text of each
            continue
        hunks.append((i1, i2 - 1, j1, j2 - 1))
    moved = {t for t in deleted_texts if len(t.strip()) >= _MIN_MOVE and t in inserted_texts}
    counts["moved"] = sum(min(deleted_texts[t], inserted_texts[t]) for t in moved)
    report.paragraphs = counts
    planned: list[Planned] = []
    for hunk in _merge(hunks):
        for i1, i2, j1, j2 in _by_container(old, hunk):
            _plan_stretch(old, new, b, (i1, i2, j1, j2), moved, report, planned)
    return planned


def _merge(hunks: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Hunks that share an OLD paragraph (one lent as context to an insertion) become one."""
    out: list[tuple[int, int, int, int]] = []
    for h in sorted(hunks):
        if out and h[0] <= out[-1][1]:
            p = out[-1]
            out[-1] = (p[0], max(p[1], h[1]), min(p[2], h[2]), max(p[3], h[3]))
        else:
            out.append(h)
    return out


def _by_container(old: DocumentView, hunk: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    """The hunk as stretches that each lie in one container: itself when it does; else its
    OLD paragraphs grouped by container, NEW's paragraphs shared out in order (one each, the
    rest to the last group)."""
    i1, i2, j1, j2 = hunk
    keys = [_container(old.paragraphs[i]) for i in range(i1, i2 + 1)]
    if all(k == keys[0] for k in keys):
        return [hunk]
    groups: list[list[int]] = []
    for offset, k in enumerate(keys):
        if groups and keys[groups[-1][0] - i1] == k:
            groups[-1].append(i1 + offset)
        else:
            groups.append([i1 + offset])
    out: list[tuple[int, int, int, int]] = []
    j = j1
    for n, g in enumerate(groups):
        last_group = n == len(groups) - 1
        take = (j2 - j + 1) if last_group else min(len(g), j2 - j + 1)
        out.append((g[0], g[-1], j, j + take - 1))
        j += take
    return out


def _plan_stretch(
    old: DocumentView,
    new: DocumentView,
    b: list[str],
    hunk: tuple[int, int, int, int],
    moved: set[str],
    report: CompareReport,
    planned: list[Planned],
) -> None:
    i1, i2, j1, j2 = hunk
    if i2 < i1:
        return
    first, last = old.paragraphs[i1], old.paragraphs[i2]
    start, end = first.start, last.end
    replacement = "\n".join(b[j1 : j2 + 1])
    base = start
    ops = word_diff(old.text[start:end], replacement, literal=True)
    for kind, a, z, text in ops:
        s, e = base + a, base + z
        para = old.paragraph_at(s)
        change = Change(
            index=len(report.changes), kind=kind, old=old.text[s:e], new=text, start=s, end=e,
            paragraph=para.index, where=place(para.section, para.index, para.story, para.part),
        )  # fmt: skip
        paras_touched = old.paragraphs_between(s, max(s, e))
        if any(old.paragraph_text(p) in moved for p in paras_touched if e > s) or any(
            t in moved for t in text.split("\n")
        ):
            change.moved = True
        if _touches_flagged(old, s, e):
            change.status = "unsupported"
            change.reason = (
                "inside a field's result or another author's tracked move, which the writer leaves as it is"
            )
        else:
            planned.append(Planned(change.index, s, e, text, exact=True))
        report.changes.append(change)


def _touches_flagged(view: DocumentView, start: int, end: int) -> bool:
    """Does a change at ``[start, end)`` touch a flagged span (for an insertion: is it inside
    one, between two flagged characters)?"""
    if end > start:
        return bool(view.flags_between(start, end) & _UNTOUCHABLE)
    if start == 0 or start >= len(view.text):
        return False
    return bool(
        view.flags_between(start - 1, start) & _UNTOUCHABLE
        and view.flags_between(start, start + 1) & _UNTOUCHABLE
    )


# -------------------------------------------------------------------------------------------


def _write(package: Package, view: DocumentView, planned: list[Planned], options: CompareOptions) -> bytes:
    from .apply import make_writer

    view.check_tree()
    if not planned:
        data: bytes = package.to_bytes({})
        return data
    writer = make_writer(package, view, WriteOptions(options.author, options.date, True, False, literal=True))
    result = writer.write(planned)
    splice = writer.splice
    assert splice is not None
    out: bytes = package.to_bytes(splice.changed(result.touched_parts))
    return out
