"""On the real documents: an edit that cites its clause in any form a lawyer writes is applied;
the same edit citing a neighbouring clause is ``out_of_scope``, with the right names in the hint.

For every numbered clause of a corpus document whose citation names it alone, an anchor is
quoted from its own paragraph (six or more words that occur once); the replies cite the clause
as "4.2", "4.2.", "Clause 4.2", "clause 4.2", "Section 4.2", "§ 4.2", "§4.2", its title, the
citation in quotes, and with an "Art." for an article; a sub-item also as "4.2 (b)".  The
oracle is the outline itself (which clause the paragraph is in) -- the numbers themselves are
held to LibreOffice's in ``tests/test_numbering.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.match.locate import Locator
from redline.match.verify import verify
from redline.opc.package import Package, PackageError
from redline.read.build import build_view
from redline.read.outline import Head
from redline.read.sections import Kind
from redline.read.view import DocumentView
from shared_schema import Edit, EditBatch, EditStatus
from tests.support import corpus_folder, corpus_paths

CORPUS = corpus_folder()
CORPUS_DOCS = corpus_paths()
PER_DOCUMENT = 12  # clauses tried per document


def forms(head: Head) -> list[str]:
    """Every way the tests cite ``head``."""
    cite = head.cite
    number = head.number
    assert number is not None
    out = [cite, f"\u201c{cite}\u201d", head.title]
    if number.kind is Kind.CLAUSE and not cite[:1].isalpha():
        out += [
            f"{cite}.",
            f"Clause {cite}",
            f"clause {cite}",
            f"Section {cite}",
            f"\u00a7 {cite}",
            f"\u00a7{cite}",
        ]
        if "(" in cite:
            out.append(cite.replace("(", " (", 1))
    elif number.kind is Kind.ARTICLE:
        out += [f"Art. {number.path[0]}", f"article {number.path[0]}"]
    if head.namespace is not None and head.namespace is not head:
        out = [f"{head.namespace.cite}, {f}" for f in out[:1] + out[3:]] + [head.title]
    return out


def title_forms(head: Head) -> list[str]:
    """The label with its title as lawyers write it (issue 35): "3. Payment Terms", "3 Payment",
    "Clause 3 \u2013 Payment Terms" -- for a clause outside a schedule, with a title of words."""
    number = head.number
    words = head.title[len(head.cite) :].strip().rstrip(".:").replace("\u2026", "").split()
    if number is None or head.namespace is not None or not words or not head.title.startswith(head.cite):
        return []
    title = " ".join(words[:6])
    out = [f"{head.cite}. {title}", f"{head.cite} {words[0]}"]
    if number.kind is Kind.CLAUSE and not head.cite[:1].isalpha():
        out.append(f"Clause {head.cite} \u2013 {title}")
    return out


def outcomes(view: DocumentView) -> tuple[int, int, list[str]]:
    """(ideal, misplaced, the misses) of one edit per clause and citation form: ideal when it
    is verified inside the clause it cites, misplaced when verified anywhere else."""
    locator = Locator(view)
    ideal = misplaced = 0
    misses: list[str] = []
    for head, quote in cases(view):
        start, end = view.paragraphs[head.index].start, view.section_end(head)
        for form in forms(head) + title_forms(head):
            edit = Edit(anchor=quote, replacement=quote + " (amended)", section=form)
            [result] = verify(locator, EditBatch(edits=[edit]), dry_run=True).results
            if result.status != EditStatus.VERIFIED:
                misses.append(f"{head.cite!r} as {form!r}: {result.error.message if result.error else ''}")
            elif all(start <= loc.start and loc.end <= end for loc in result.locations):
                ideal += 1
            else:
                misplaced += 1
                misses.append(f"{head.cite!r} as {form!r}: MISPLACED at {result.locations}")
    return ideal, misplaced, misses


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.skipif(not CORPUS_DOCS, reason="set REDLINE_CORPUS to the real-document corpus")
def test_lawyers_citations_on_real_contracts_get_their_ideal_outcome() -> None:
    """Every corpus document, one edit per clause and citation form (the forms above and the
    label with its title): at least 97% ideal outcomes, none misplaced (issue 35)."""
    ideal = misplaced = total = 0
    misses: list[str] = []
    for path in CORPUS_DOCS:
        try:
            view = build_view(Package.from_bytes(path.read_bytes()))
        except PackageError:
            continue
        good, wrong, missed = outcomes(view)
        ideal, misplaced = ideal + good, misplaced + wrong
        total += good + len(missed)
        misses += [f"{path.name}: {m}" for m in missed]
    assert total > 500
    assert misplaced == 0, misses
    assert ideal >= 0.97 * total, f"{ideal}/{total} ideal; " + "\n".join(misses[:30])


def quote_of(view: DocumentView, locator: Locator, head: Head) -> str | None:
    words = view.paragraph_text(view.paragraphs[head.index]).split()
    for start in range(0, max(1, len(words) - 6), 3):
        quote = " ".join(words[start : start + 8])
        if len(quote.split()) >= 6 and locator.count(quote, 1) == 1:
            return quote
    return None


def cases(view: DocumentView) -> list[tuple[Head, str]]:
    locator = Locator(view)
    out: list[tuple[Head, str]] = []
    for head in view.outline.heads:
        if head.number is None or view.outline.named(head.cite) != [head]:
            continue
        quote = quote_of(view, locator, head)
        if quote is not None:
            out.append((head, quote))
        if len(out) == PER_DOCUMENT:
            break
    return out


def _view(path: Path) -> DocumentView:
    try:
        return build_view(Package.from_bytes(path.read_bytes()))
    except PackageError as exc:
        pytest.skip(f"{path.name} is refused at load ({exc.code})")


def _neighbour(view: DocumentView, head: Head) -> Head | None:
    """A numbered clause beside ``head`` (neither inside it nor containing it), named alone."""
    family = (
        head.parent.children
        if head.parent is not None
        else [h for h in view.outline.heads if h.parent is None]
    )
    for other in family:
        if other is head or other.number is None or head.within(other) or other.within(head):
            continue
        if view.outline.named(other.cite) == [other]:
            return other
    return None


@pytest.mark.skipif(not CORPUS_DOCS, reason="set REDLINE_CORPUS to the real-document corpus")
@pytest.mark.parametrize("path", CORPUS_DOCS, ids=[p.name for p in CORPUS_DOCS])
def test_every_citation_form_of_a_clause_is_accepted_and_a_neighbour_is_not(path: Path) -> None:
    view = _view(path)
    found = cases(view)
    if not found:
        pytest.skip(f"{path.name} has no numbered clause with a unique quote")
    locator = Locator(view)
    wrong: list[str] = []
    for head, quote in found:
        for form in forms(head):
            edit = Edit(anchor=quote, replacement=quote + " (amended)", section=form)
            [result] = verify(locator, EditBatch(edits=[edit]), dry_run=True).results  # one edit a reply
            if result.status != EditStatus.VERIFIED:
                wrong.append(f"{head.cite!r} cited as {form!r}: {result.error}")
        other = _neighbour(view, head)
        if other is None:
            continue
        [result] = verify(
            locator, [Edit(anchor=quote, replacement="x", section=other.cite)], dry_run=True
        ).results
        hint = result.error.hint if result.error is not None else ""
        full = f"{head.namespace.cite}, {head.cite}" if head.namespace not in (None, head) else head.cite
        if result.status != EditStatus.OUT_OF_SCOPE or f"\u201c{full}\u201d" not in (hint or ""):
            wrong.append(f"{head.cite!r} cited as its neighbour {other.cite!r}: {result.status} {hint}")
    assert not wrong, "\n".join(wrong[:20])


@pytest.mark.skipif(not CORPUS_DOCS, reason="set REDLINE_CORPUS to the real-document corpus")
@pytest.mark.parametrize("path", CORPUS_DOCS, ids=[p.name for p in CORPUS_DOCS])
def test_a_reply_citing_each_clause_in_turn_is_applied(path: Path) -> None:
    view = _view(path)
    found = cases(view)
    if not found:
        pytest.skip(f"{path.name} has no numbered clause with a unique quote")
    entries = []
    for n, (head, quote) in enumerate(found):
        options = forms(head)
        entries.append(
            {"anchor": quote, "replacement": quote + " (amended)", "section": options[n % len(options)]}
        )
    outcome = apply_reply(path.read_bytes(), json.dumps({"edits": entries}), ApplyOptions())
    statuses = [(e.section, r.status.value, r.error.message if r.error else "") for e, r in
                zip(entries_as_edits(entries), outcome.report.edits, strict=True)]  # fmt: skip
    assert all(status == "applied" for _, status, _ in statuses), statuses
    assert outcome.output is not None


def entries_as_edits(entries: list[dict[str, str]]) -> list[Edit]:
    return [Edit(**e) for e in entries]


SHOWN = ["cp-csa-with-sla.docx", "cp-psa.docx", "cp-software-license.docx"]


@pytest.mark.skipif(not CORPUS_DOCS, reason="set REDLINE_CORPUS to the real-document corpus")
@pytest.mark.parametrize("name", SHOWN)
def test_the_plain_view_of_a_numbered_contract_shows_its_labels(name: str) -> None:
    import subprocess
    import sys

    path = Path(CORPUS or "") / name
    if not path.exists():
        pytest.skip(f"{name} is not in the corpus")
    view = _view(path)
    out = subprocess.run(
        [sys.executable, "-m", "redline", "view", str(path)], capture_output=True, text=True, check=True
    ).stdout
    lines = out.split("\n")
    labelled = [p for p in view.paragraphs if p.label]
    assert len(labelled) >= 10
    shown = sum(1 for p in labelled if f"{p.label} {view.paragraph_text(p)}" in lines)
    assert shown == len(labelled), (shown, len(labelled))


# -- formatted headings (issue 35), held to python-docx's reading of the same runs ----------------


def _docx_look(paragraph: Any) -> tuple[bool, bool, bool, float] | None:
    """python-docx's reading of a paragraph's look: every text run bold, caps (or typed in
    capitals), underlined; the smallest size (half-points, 0 unknown). Run, character style,
    paragraph style chain, as python-docx resolves each."""

    def along(run: Any, name: str) -> Any:
        value = getattr(run.font, name)
        style = run.style
        while value is None and style is not None:
            value = getattr(style.font, name)
            style = style.base_style
        style = paragraph.style
        while value is None and style is not None:
            value = getattr(style.font, name)
            style = style.base_style
        return value

    runs = [r for r in paragraph.runs if r.text.strip()]
    if not runs:
        return None
    bold = all(bool(along(r, "bold")) for r in runs)
    caps = all(bool(along(r, "all_caps")) or (r.text.upper() == r.text and any(c.isalpha() for c in r.text))
               for r in runs)  # fmt: skip
    underline = all(bool(along(r, "underline")) for r in runs)
    sizes = [along(r, "size") for r in runs]
    size = min(s.pt * 2 for s in sizes) if all(s is not None for s in sizes) else 0.0
    return bold, caps, underline, size


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.skipif(not CORPUS_DOCS, reason="set REDLINE_CORPUS to the real-document corpus")
def test_formatted_headings_found_on_the_corpus_look_so_to_python_docx() -> None:
    """Every formatted heading redline finds among a corpus document's top-level paragraphs is,
    to python-docx too, set apart from the paragraph after it by bold, caps, underline or size;
    and each is a section a `section` naming its text lands in."""
    import docx  # the third reader (a test dependency)

    from redline.read.headings import sections_named

    checked = 0
    disagree: list[str] = []
    for path in CORPUS_DOCS:
        try:
            view = build_view(Package.from_bytes(path.read_bytes()))
        except PackageError:
            continue
        if len(view.paragraphs) > 2000:
            continue  # one look-up reads every paragraph; this asks one per paragraph
        try:
            theirs = [p for p in docx.Document(str(path)).paragraphs if p.text.strip()]
        except Exception:  # python-docx cannot open every document redline reads
            continue
        by_text: dict[str, list[int]] = {}
        for k, p in enumerate(theirs):
            by_text.setdefault(p.text.strip(), []).append(k)
        locator = Locator(view)
        for para in view.paragraphs:
            text = view.paragraph_text(para).strip()
            if para.story != "body" or para.heads or not text or view.outline.named(text):
                continue
            heads = [h for h in sections_named(view, text) if h.index == para.index]
            spots = by_text.get(text, [])
            if not heads or len(spots) != 1 or spots[0] + 1 >= len(theirs):
                continue
            mine, after = _docx_look(theirs[spots[0]]), _docx_look(theirs[spots[0] + 1])
            if mine is None or after is None:
                continue
            apart = (
                (mine[0] and not after[0]) or (mine[1] and not after[1]) or (mine[2] and not after[2])
                or (mine[3] > after[3] > 0)
            )  # fmt: skip
            if not apart:
                disagree.append(f"{path.name}: {text!r} {mine} over {after}")
            checked += 1
            body = view.paragraphs[para.index + 1] if para.index + 1 < len(view.paragraphs) else None
            quote = None if body is None else quote_of(view, locator, _as_head(heads[0], body.index))
            if quote is not None:
                edit = Edit(anchor=quote, replacement=quote + " (amended)", section=text)
                [result] = verify(locator, EditBatch(edits=[edit]), dry_run=True).results
                if result.status != EditStatus.VERIFIED:
                    disagree.append(f"{path.name}: cite {text!r}: {result.error}")
    print(f"{checked} formatted headings, {len(disagree)} disagreements", file=sys.stderr)
    assert checked >= 50, checked
    assert len(disagree) <= checked // 50, "\n".join(disagree[:20])


def _as_head(head: Head, index: int) -> Head:
    """A stand-in naming paragraph ``index`` (what quote_of reads)."""
    return Head(index, head.number, head.shown, head.typed, head.heading, head.rank)
