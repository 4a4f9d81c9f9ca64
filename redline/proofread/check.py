"""The proofreader as one function: a view (and a reply's entries) -> its findings, in order.

:func:`check` runs every check on the document -- defined terms (:mod:`redline.proofread.terms`),
cross-references (:mod:`redline.proofread.references`), numbering
(:mod:`redline.proofread.numbering`) -- and, given a reply, what the reply would break
(:mod:`redline.proofread.reply`).  Findings are sorted by paragraph (of the checked document's
view), then kind; :func:`totals` counts them by kind.  :func:`check_document` is the same from
a document's bytes, or the refusal that says why it cannot be read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..opc.package import Limits, Package
from ..read.load import load_view
from ..read.view import DocumentView
from .findings import TITLES, Finding, Kind
from .numbering import numbering_gaps
from .references import broken_fields, dangling, references
from .terms import term_findings

if TYPE_CHECKING:  # (a reply's check imports the applier and the schema's models; the
    # document's alone needs neither: a refusal is made where a document cannot be read)
    from shared_schema import Edit, EditBatch, Refusal

__all__ = [
    "Checked",
    "check",
    "check_document",
    "check_parts",
    "document_findings",
    "plain",
    "sort_findings",
    "totals",
]

_ORDER = {kind: n for n, kind in enumerate(Kind)}


def _story_parts(view: DocumentView, package: Package | None) -> dict[str, bytes]:
    if package is None and view.working is not None:
        package = view.working.package
    if package is None:
        return {}
    return {part: package.read(part) for part in dict.fromkeys(p.part for p in view.paragraphs)}


def document_findings(view: DocumentView, package: Package | None = None) -> list[Finding]:
    """The document's own findings: terms, references, fields, numbering (unsorted)."""
    found = term_findings(view)
    found += dangling(view, references(view))
    found += broken_fields(view, _story_parts(view, package))
    found += numbering_gaps(view)
    return found


def sort_findings(findings: list[Finding]) -> list[Finding]:
    """Findings in the order :func:`check` gives them: by paragraph, then kind."""
    return sorted(findings, key=lambda f: (f.place.paragraph, _ORDER[f.kind]))


def check(
    view: DocumentView,
    entries: EditBatch | Sequence[Edit] | None = None,
    *,
    package: Package | None = None,
    document: bytes | None = None,
) -> list[Finding]:
    """Every finding of ``view``'s document and, with ``entries`` (a reply), of what the reply
    would break, sorted by paragraph.  The reply is applied to ``document`` (the bytes the view
    was read from; required with entries); ``package``: its package (the story parts' XML for
    the field check; else the view's working copy's, when it has one)."""
    own, caused = check_parts(view, entries, package=package, document=document)
    return sort_findings(own + caused)


def check_parts(
    view: DocumentView,
    entries: EditBatch | Sequence[Edit] | None = None,
    *,
    package: Package | None = None,
    document: bytes | None = None,
) -> tuple[list[Finding], list[Finding]]:
    """:func:`check` in two parts, each sorted: the document's own findings, and those of what
    the reply would break (empty without ``entries``) -- what a model must repair in its reply."""
    own = document_findings(view, package)
    caused: list[Finding] = []
    if entries is not None:
        from shared_schema import EditBatch

        from .reply import after_view, reply_findings

        if document is None:
            raise ValueError("checking a reply needs the document's bytes (document=...)")
        batch = entries if isinstance(entries, EditBatch) else EditBatch(edits=list(entries))
        if batch.edits:
            after = after_view(document, view, batch)
            if after is not None:
                caused = reply_findings(view, after, own, lambda v: document_findings(v))
    return sort_findings(own), sort_findings(caused)


def totals(findings: Sequence[Finding]) -> dict[str, int]:
    """Findings counted by kind (every kind, zeros included, in the kinds' order)."""
    counts = Counter(str(f.kind) for f in findings)
    return {str(kind): counts.get(str(kind), 0) for kind in Kind}


@dataclass
class Checked:
    """One document checked: its name, revision, findings (the JSON of ``redline check --json``)."""

    document: str
    revision: str
    findings: list[Finding] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "document": self.document,
            "revision": self.revision,
            "findings": [f.to_json() for f in self.findings],
            "totals": totals(self.findings),
        }


def check_document(
    data: bytes,
    entries: EditBatch | Sequence[Edit] | None = None,
    *,
    name: str = "document.docx",
    limits: Limits | None = None,
) -> Checked | Refusal:
    """:func:`check` of a document's bytes, or the refusal that says why it cannot be read."""
    loaded = load_view(data, limits)
    if not isinstance(loaded, tuple):
        return loaded  # (a refusal)
    package, view = loaded
    return Checked(name, view.revision, check(view, entries, package=package, document=data))


def plain(checked: Checked) -> str:
    """The findings for a person: grouped by kind, each with its clause and paragraph."""
    if not checked.findings:
        return f"{checked.document}: no findings\n"
    lines = [f"{checked.document}: {len(checked.findings)} finding(s)"]
    for kind in Kind:
        group = [f for f in checked.findings if f.kind is kind]
        if not group:
            continue
        lines.append("")
        lines.append(f"{TITLES[kind]} ({kind}): {len(group)}")
        for f in group:
            where = f"clause {f.place.label}" if f.place.label else (f.place.section or "")
            where = f"{where}, paragraph {f.place.paragraph}" if where else f"paragraph {f.place.paragraph}"
            lines.append(f"  {where}: {f.message}")
            if f.fix is not None:
                fix = f.fix
                if "anchor" in fix and "replacement" in fix:
                    lines.append(
                        f"      fix: \u201c{fix['anchor']}\u201d -> \u201c{fix['replacement']}\u201d"
                    )
    return "\n".join(lines) + "\n"
