"""Issue 35's classes on the real documents (``$REDLINE_CORPUS``), each against a reading of the
page made here (the paragraph's text, its table cell), not the outline's own:

* a number typed after spaces, tabs or no-break spaces heads a section cited by that number;
* a typed "4.2" lies inside the typed "4" before it (and "4.2.1" inside "4.2");
* no paragraph outside a table lies in a section a table's paragraph heads;
* a label as the page shows it names that paragraph (an exact label is never beaten by an
  equivalent);
* a label several clauses show is refused ``ambiguous_section`` with a citation of each that names
  it alone, never the refused name.

Contents pages, label+title cites and formatted headings are held on the corpus in
``tests/test_sections.py`` and ``tests/test_sections_corpus.py``; LibreOffice's labels in
``tests/test_numbering.py``; lawyers' cites end to end in ``tests/test_cite_outcomes_corpus.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from redline.match.locate import Locator
from redline.match.verify import verify
from redline.opc.package import Package, PackageError
from redline.read.build import build_view
from redline.read.view import DocumentView
from shared_schema import Code, Edit, EditBatch, EditStatus
from tests.support import corpus_paths

DOCS = corpus_paths()
pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not DOCS, reason="set REDLINE_CORPUS to the real-document corpus"),
]
_LEADING = re.compile(r"[ \t\u00a0]+(\d{1,3}(?:\.\d{1,3})+\.?|\d{1,3}\.)[ \t\u00a0]+\S")
_TYPED_DECIMAL = re.compile(r"[ \t\u00a0]*(\d{1,3}(?:\.\d{1,3})*)(?:\.|(?<=\d)(?=[ \t]))[ \t\u00a0]")


def _views() -> list[tuple[str, DocumentView]]:
    out = []
    for path in DOCS:
        try:
            out.append((path.name, build_view(Package.from_bytes(path.read_bytes()))))
        except PackageError:
            continue
    return out


@pytest.fixture(scope="module")
def views() -> list[tuple[str, DocumentView]]:
    return _views()


def test_a_number_typed_after_spaces_heads_its_section(views: list[tuple[str, DocumentView]]) -> None:
    seen, wrong = 0, []
    for name, view in views:
        for p in view.paragraphs:
            if p.story != "body" or p.label:
                continue
            m = _LEADING.match(view.paragraph_text(p))
            if m is None:
                continue
            seen += 1
            if not (p.heads and p.node is not None and p.node.cite.endswith(m.group(1).rstrip("."))):
                wrong.append(f"{name} {p.index}: {view.paragraph_text(p)[:50]!r} -> {p.node and p.node.cite}")
    assert seen >= 2, seen  # the corpus has few (an ordinance, a report)
    assert not wrong, wrong[:10]


def test_a_typed_sub_clause_lies_inside_the_typed_clause_before_it(
    views: list[tuple[str, DocumentView]],
) -> None:
    seen, wrong = 0, []
    for name, view in views:
        last: dict[str, int] = {}  # a typed number -> the paragraph it was last typed at
        for p in view.paragraphs:
            if p.story != "body" or p.label or p.cell:
                continue
            m = _TYPED_DECIMAL.match(view.paragraph_text(p))
            if m is None:
                continue
            number = m.group(1)
            last[number] = p.index
            parent = number.rsplit(".", 1)[0] if "." in number else None
            if parent is None or parent not in last or not p.heads or p.node is None:
                continue
            at = last[parent]
            if any(last.get(other, -1) > at for other in _siblings_after(number, last)):
                continue  # another clause of the parent's rank came between: not its parent
            outer = view.paragraphs[at].node
            seen += 1
            if outer is None or not view.paragraphs[at].heads or not p.node.within(outer):
                wrong.append(f"{name} {p.index}: {number} not inside {parent} (paragraph {at})")
    assert seen >= 100, seen
    assert not wrong, wrong[:10]


def _siblings_after(number: str, last: dict[str, int]) -> list[str]:
    """The typed numbers of the parent's rank (as many parts) other than the parent."""
    parent = number.rsplit(".", 1)[0]
    depth = parent.count(".")
    return [n for n in last if n.count(".") == depth and n != parent]


def test_no_paragraph_after_a_table_lies_in_a_section_the_table_heads(
    views: list[tuple[str, DocumentView]],
) -> None:
    cells = 0
    wrong: list[str] = []
    for name, view in views:
        for p in view.paragraphs:
            if p.story != "body":
                continue
            if p.cell:
                cells += 1
            elif p.node is not None and view.paragraphs[p.node.index].cell:
                wrong.append(f"{name} {p.index} lies in the cell's section {p.node.title!r}")
    assert cells > 1000
    assert not wrong, wrong[:10]


def test_a_label_as_shown_names_its_paragraph(views: list[tuple[str, DocumentView]]) -> None:
    seen, wrong = 0, []
    for name, view in views:
        outline = view.outline
        for head in outline.heads[:400]:
            namespace = head.namespace
            if head.shown is None or head.cell or (namespace is not None and namespace is not head):
                continue
            seen += 1
            if head not in outline.named(head.cite):
                wrong.append(
                    f"{name} {head.index}: {head.cite!r} -> {[h.index for h in outline.named(head.cite)]}"
                )
    assert seen >= 500, seen
    assert not wrong, wrong[:10]


def test_a_label_several_clauses_show_is_ambiguous_section_with_a_cite_of_each(
    views: list[tuple[str, DocumentView]],
) -> None:
    seen, wrong = 0, []
    for name, view in views:
        locator = Locator(view)
        tried = 0
        for head in view.outline.heads:
            if tried >= 8 or head.shown is None:
                continue
            named = view.outline.named(head.cite)
            if len(named) < 2:
                continue
            words = view.paragraph_text(view.paragraphs[head.index]).split()
            quote = " ".join(words[1:7])
            if len(words) < 8 or locator.count(quote, 1) != 1:
                continue
            tried += 1
            seen += 1
            edit = Edit(anchor=quote, replacement=quote + " (amended)", section=head.cite)
            [result] = verify(locator, EditBatch(edits=[edit]), dry_run=True).results
            error = result.error
            if (
                result.status != EditStatus.OUT_OF_SCOPE
                or error is None
                or error.code != Code.AMBIGUOUS_SECTION
            ):
                wrong.append(f"{name} {head.cite!r}: {result.status} {error and error.code}")
                continue
            hint = error.hint or ""
            cited = re.findall(r"\u201c([^\u201d]+)\u201d for paragraph (\d+)", hint)
            if f"\u201c{head.cite}\u201d for" in hint:
                wrong.append(f"{name} {head.cite!r}: the hint repeats the refused name")
            for cite, paragraph in cited:
                named_by = view.outline.named(cite)
                if [h.index for h in named_by] != [int(paragraph)]:
                    wrong.append(f"{name} {head.cite!r}: hint cite {cite!r} names {view.outline.named(cite)}")
    assert seen >= 20, seen
    assert not wrong, wrong[:10]


if __name__ == "__main__":  # pragma: no cover - a look at the numbers
    for doc_name, doc_view in _views():
        print(doc_name, len(doc_view.outline.heads), sum(1 for p in doc_view.paragraphs if p.cell))
    print(Path(DOCS[0]).parent if DOCS else "no corpus")
