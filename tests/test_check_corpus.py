"""The differential oracle of ``redline check`` on the real documents of ``$REDLINE_CORPUS``.

Defects are planted in copies -- a definition renamed, a definition duplicated, a defined term
lower-cased, a typed cross-reference pointed at a clause there is not, a REF field's bookmark
renamed, a typed clause number skipped, a reply deleting a cited clause, a reply inserting a
clause before a cited one -- and the findings of the planted copy that the original does not
have must be exactly the planted ones; where the findings carry fixes (a lower-cased term, a
number out of line, a renumbered reference), the copy (or the reply) with the fixes applied
has none of them.  A copy is planted with the project's
own untracked apply (the text as if typed), or, for a bookmark, by renaming it in the XML.
Each document is planted with what it has the material for (a resolving reference, a REF field,
a run of typed numbers, a cited clause); the tests skip when no document has it.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.proofread.check import check
from redline.proofread.findings import Finding, Kind
from redline.proofread.numbering import value_of
from redline.proofread.references import Resolver, references, resolve
from redline.proofread.unique import anchor_for
from redline.read.load import load_view
from redline.read.outline import Head
from redline.read.view import DocumentView
from shared_schema import EditBatch, parse_edit_reply
from tests.support import corpus_paths

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

DOCS = [p for p in corpus_paths() if p.stat().st_size < 3_000_000]
MAX_PARAGRAPHS = 3000  # the reply plants apply twice: the long documents are left to the bench

Key = tuple[str, int, str]


def loaded(data: bytes) -> DocumentView | None:
    got = load_view(data)
    return got[1] if isinstance(got, tuple) else None


def keys(found: list[Finding]) -> Counter[Key]:
    return Counter((str(f.kind), f.place.paragraph, f.place.text) for f in found)


def new_findings(before: list[Finding], after: list[Finding]) -> Counter[Key]:
    return keys(after) - keys(before)


def batch(entries: list[dict[str, Any]]) -> EditBatch:
    parsed = parse_edit_reply(json.dumps({"edits": entries}))
    assert parsed is not None and not parsed.invalid
    return parsed


def planted(data: bytes, entries: list[dict[str, Any]]) -> bytes | None:
    """The document with ``entries`` applied untracked (as if typed), or None when one of them
    does not apply."""
    outcome = apply_reply(data, batch(entries), ApplyOptions(track=False, comments=False))
    if outcome.output is None or not outcome.report.all_applied:
        return None
    return outcome.output


def distinct(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each fix once (findings whose fixes overlap share one)."""
    seen: dict[str, dict[str, Any]] = {}
    for entry in entries:
        seen.setdefault(json.dumps(entry, sort_keys=True), entry)
    return list(seen.values())


def family(text: str) -> str:
    return text.split()[0].casefold().rstrip("s")


def resolving(view: DocumentView) -> list[tuple[int, int, int, str]]:
    """(paragraph, number start, number end, number) of each typed reference of one decimal
    number that names one clause of the body."""
    out = []
    for ref in references(view):
        if len(ref.targets) != 1:
            continue
        target = ref.targets[0]
        if target.relative or not re.fullmatch(r"\d{1,2}(?:\.\d{1,2})*", target.number):
            continue
        if " of " in target.name or not target.name.startswith("Clause"):
            continue
        if len(resolve(view, target, ref.paragraph)) == 1 and view.paragraphs[ref.paragraph].story == "body":
            out.append((ref.paragraph, target.start, target.end, target.number, family(ref.text)))
    # the document's own citing word: the one most of its references use, which names its
    # clauses (a word most of whose references name none cites another document's)
    common = Counter(c[4] for c in out).most_common(1)
    if not common:
        return []
    word = common[0][0]
    resolver = Resolver(view)
    tally = Counter(
        resolver.exists(t, r.paragraph)
        for r in references(view)
        if family(r.text) == word
        for t in r.targets
        if resolver.applies(t)
    )
    if tally[True] < 3 * (tally[False] + 1):
        return []
    return [c[:4] for c in out if c[4] == word]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_planted_dangling_reference(path: Path) -> None:
    data = path.read_bytes()
    view = loaded(data)
    if view is None:
        pytest.skip("refused")
    cands = resolving(view)
    if not cands:
        pytest.skip("no typed reference to plant on")
    top = max(
        [
            int(h.number.path[0])
            for h in view.outline.heads
            if h.number is not None and h.number.path[0].isdigit()
        ]
    )
    missing = str(min(top + 3, 99))
    paragraph, s, e, number = cands[len(cands) // 2]
    new_number = ".".join([missing, *number.split(".")[1:]])
    found = anchor_for(view, s, e)
    assert found is not None
    anchor, a, _b = found
    replacement = anchor[: s - a] + new_number + anchor[e - a :]
    copy = planted(data, [{"anchor": anchor, "replacement": replacement}])
    assert copy is not None
    after = loaded(copy)
    assert after is not None
    new = new_findings(check(view), check(after))
    assert sum(new.values()) == 1, new
    kind, where, text = next(iter(new))
    assert (kind, where) == (str(Kind.DANGLING_REFERENCE), paragraph) and text.endswith(new_number), new


_BOOKMARK = re.compile(rb'(<w:bookmarkStart\b[^>]*?w:name=")([^"]+)(")')
_REF_NAME = re.compile(rb"(?:REF|PAGEREF)\s+(_?[A-Za-z0-9_]+)")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_planted_renamed_bookmark(path: Path) -> None:
    data = path.read_bytes()
    view = loaded(data)
    if view is None:
        pytest.skip("refused")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {i.filename: z.read(i.filename) for i in z.infolist()}
    names = {m.group(2) for body in members.values() for m in _BOOKMARK.finditer(body)}
    cited = [n for body in members.values() for n in _REF_NAME.findall(body) if n in names]
    if not cited:
        pytest.skip("no REF field with its bookmark")
    name = Counter(cited).most_common()[-1][0]
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = members[info.filename]
            body = _BOOKMARK.sub(
                lambda m: m.group(1) + (m.group(2) + b"X" if m.group(2) == name else m.group(2)) + m.group(3),
                body,
            )
            dst.writestr(info, body)
    after = loaded(out.getvalue())
    assert after is not None
    new = new_findings(check(view), check(after))
    assert set(k[0] for k in new) == {str(Kind.BROKEN_FIELD_REFERENCE)}
    assert sum(new.values()) == cited.count(name)


def in_table(view: DocumentView, head: Head) -> bool:
    return any(el.tag.endswith("}tc") for el in view.paragraphs[head.index].element.iterancestors())


def _typed_run(view: DocumentView) -> Head | None:
    """A typed clause whose siblings before and after count k-1, k, k+1 (retyped k+1: one gap)."""
    families = [[h for h in view.outline.heads if h.parent is None]] + [
        h.children for h in view.outline.heads
    ]
    for family in families:
        for a, b, c in zip(family, family[1:], family[2:], strict=False):
            if not (a.typed and b.typed and c.typed) or view.paragraphs[b.index].story != "body":
                continue
            if any(in_table(view, h) for h in (a, b, c)):
                continue  # (a table's numbers are its data)
            va, vb, vc = value_of(a), value_of(b), value_of(c)
            if va is None or vb is None or vc is None or not (vb == va + 1 and vc == vb + 1) or va < 1:
                continue
            na, nb = a.number, b.number
            if na is None or nb is None or na.path[:-1] != nb.path[:-1] or not nb.path[-1].isdigit():
                continue
            return b
    return None


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_planted_numbering_gap(path: Path) -> None:
    data = path.read_bytes()
    view = loaded(data)
    if view is None:
        pytest.skip("refused")
    head = _typed_run(view)
    if head is None:
        pytest.skip("no run of typed numbers")
    para = view.paragraphs[head.index]
    shown = head.shown or ""
    at = view.text.find(shown, para.start, para.end)
    assert at >= 0
    found = anchor_for(view, at, at + len(shown))
    if found is None:
        pytest.skip("the number's paragraph is not unique")
    anchor, s, _e = found
    last = (head.number.path[-1]) if head.number else "0"
    retyped = re.sub(rf"{last}(?=\D*$)", str(int(last) + 1), shown, count=1)
    replacement = anchor[: at - s] + retyped + anchor[at - s + len(shown) :]
    copy = planted(data, [{"anchor": anchor, "replacement": replacement}])
    if copy is None:
        pytest.skip("the plant did not apply")
    after = loaded(copy)
    assert after is not None
    original = check(view)
    found_after = check(after)
    new = new_findings(original, found_after)
    assert list(new) == [(str(Kind.NUMBERING_GAP), head.index, retyped)], new
    # one number out of line: the finding's fix retypes it, and the copy with it checks clean
    [gap] = [f for f in found_after if f.kind is Kind.NUMBERING_GAP and f.place.paragraph == head.index]
    assert gap.fix is not None, gap
    assert not _fixed(copy, [gap.fix], original), gap.fix


def _cited_heads(view: DocumentView) -> dict[int, list[tuple[int, str]]]:
    """Per clause (its head's paragraph), the typed references naming it alone."""
    cited: dict[int, list[tuple[int, str]]] = {}
    for ref in references(view):
        for target in ref.targets:
            heads = resolve(view, target, ref.paragraph)
            if len(heads) == 1:
                cited.setdefault(heads[0].index, []).append((ref.paragraph, ref.text))
    return cited


def _unique_text(view: DocumentView, index: int) -> str | None:
    para = view.paragraphs[index]
    text = view.text[para.start : para.end]
    return text if len(text) > 15 and view.text.count(text) == 1 and "\n" not in text else None


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_planted_reply_deleting_a_cited_clause(path: Path) -> None:
    data = path.read_bytes()
    view = loaded(data)
    if view is None or len(view.paragraphs) > MAX_PARAGRAPHS:
        pytest.skip("refused, or long")
    cited = _cited_heads(view)
    pick = None
    for index, places in cited.items():
        head = view.paragraphs[index].node
        if head is None or head.children or head.number is None or view.paragraphs[index].story != "body":
            continue
        family = (
            head.parent.children
            if head.parent is not None
            else [h for h in view.outline.heads if h.parent is None]
        )
        if family[-1] is not head or all(p == index for p, _ in places):
            continue
        text = _unique_text(view, index)
        if text is not None and head.last == head.index:
            pick = (index, text)
            break
    if pick is None:
        pytest.skip("no cited last clause to delete")
    index, text = pick
    reply = batch([{"anchor": text, "replacement": ""}])
    new = new_findings(check(view), check(view, reply, document=data))
    node = view.paragraphs[index].node
    assert node is not None
    assert list(new) == [(str(Kind.REFERENCE_TO_DELETED_CLAUSE), index, node.cite)], new


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_planted_reply_inserting_before_a_cited_clause(path: Path) -> None:
    data = path.read_bytes()
    view = loaded(data)
    if view is None or len(view.paragraphs) > MAX_PARAGRAPHS:
        pytest.skip("refused, or long")
    cited = _cited_heads(view)
    pick = None
    for index in sorted(cited):
        head = view.paragraphs[index].node
        if head is None or head.typed or head.number is None or view.paragraphs[index].story != "body":
            continue
        if head.number.parenthesised:
            continue
        quoted = anchor_for(
            view,
            view.paragraphs[index].start,
            min(view.paragraphs[index].end, view.paragraphs[index].start + 12),
        )
        if quoted is not None:
            pick = (head, quoted[0])
            break
    if pick is None:
        pytest.skip("no cited clause with automatic numbering")
    head, anchor = pick
    family = (
        head.parent.children
        if head.parent is not None
        else [h for h in view.outline.heads if h.parent is None]
    )
    shifted = family[family.index(head) :]
    expected: Counter[Key] = Counter()
    resolver = Resolver(view)
    for ref in references(view):
        hit = False
        for target in ref.targets:
            heads = resolve(view, target, ref.paragraph)
            if len(heads) == 1 and any(heads[0].within(s) for s in shifted) and not target.relative:
                hit = hit or resolver.exists(target, ref.paragraph)
        if hit:
            expected[(str(Kind.RENUMBERED_REFERENCE), ref.paragraph, ref.text)] += 1
    if not expected:
        pytest.skip("the cited clause is cited only relatively")
    entry = {"action": "insert_before", "anchor": anchor, "text": "A clause the oracle inserts here."}
    found = check(view, batch([entry]), document=data)
    new = new_findings(check(view), found)
    assert new == expected
    fixes = distinct([f.fix for f in found if f.kind is Kind.RENUMBERED_REFERENCE and f.fix is not None])
    fixed = check(view, batch([entry, *fixes]), document=data)
    remaining = [f for f in fixed if f.kind is Kind.RENUMBERED_REFERENCE]
    assert len(remaining) == sum(1 for f in found if f.kind is Kind.RENUMBERED_REFERENCE and f.fix is None)


# -- defined terms, through the whole check ------------------------------------------------------
#
# tests/test_terms.py plants the same defects and judges term_findings alone; here the judge is
# the whole check (terms, references, fields, numbering), so a plant that disturbed any other
# finding would show, and each fix is applied to the planted copy and checked again.

PER_DOC = 2  # plants of each kind a document


def _term_candidates(view: DocumentView) -> list[Any]:
    from tests.test_terms import _multiword_terms

    return [d for d in _multiword_terms(view) if d.scope is None]


def _uses(view: DocumentView, term: str, not_in: set[int]) -> list[int]:
    from tests.test_terms import _mid_sentence_uses

    return _mid_sentence_uses(view, term, not_in)


def _replace(view: DocumentView, start: int, end: int, new: str) -> dict[str, Any] | None:
    found = anchor_for(view, start, end)
    if found is None:
        return None
    anchor, s, _e = found
    return {"anchor": anchor, "replacement": anchor[: start - s] + new + anchor[end - s :]}


def _fixed(copy: bytes, fixes: list[dict[str, Any]], original: list[Finding]) -> Counter[Key]:
    """What the fixes leave of the planted findings: the findings of the planted copy with the
    fixes applied (untracked) that the original does not have."""
    again = planted(copy, fixes)
    assert again is not None, fixes
    after = loaded(again)
    assert after is not None
    return new_findings(original, check(after))


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_planted_lowercase_defined_term(path: Path) -> None:
    data = path.read_bytes()
    view = loaded(data)
    if view is None:
        pytest.skip("refused")
    from redline.proofread.definitions import definitions

    defining = {d.paragraph for d in definitions(view)}
    original = check(view)
    done = 0
    for d in _term_candidates(view):
        uses = _uses(view, d.term, defining)
        if not uses:
            continue
        entry = _replace(view, uses[0], uses[0] + len(d.term), d.term.lower())
        copy = planted(data, [entry]) if entry is not None else None
        if copy is None:
            continue
        after = loaded(copy)
        assert after is not None
        found = check(after)
        new = new_findings(original, found)
        at = view.paragraph_at(uses[0]).index
        assert list(new) == [(str(Kind.LOWERCASE_DEFINED_TERM), at, d.term.lower())], (d.term, new)
        fixes = [
            f.fix
            for f in found
            if f.kind is Kind.LOWERCASE_DEFINED_TERM and f.place.paragraph == at and f.fix is not None
        ]
        assert len(fixes) >= 1, "a lower-cased defined term comes with its fix"
        assert not _fixed(copy, distinct(fixes), original), (d.term, fixes)
        done += 1
        if done == PER_DOC:
            break
    if not done:
        pytest.skip("no multi-word term defined by \u201cX\u201d means used mid-sentence")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_planted_renamed_definition(path: Path) -> None:
    data = path.read_bytes()
    view = loaded(data)
    if view is None:
        pytest.skip("refused")
    original = check(view)
    done = 0
    for d in _term_candidates(view):
        if not _uses(view, d.term, {d.paragraph}):
            continue
        renamed = d.term.rsplit(" ", 1)[0] + " Zyqwex"
        entry = _replace(view, d.span[0], d.span[1], renamed)
        copy = planted(data, [entry]) if entry is not None else None
        if copy is None:
            continue
        after = loaded(copy)
        assert after is not None
        new = new_findings(original, check(after))
        unused = {k for k in new if k[0] == str(Kind.UNUSED_DEFINITION)}
        undefined = {k for k in new if k[0] == str(Kind.UNDEFINED_TERM)}
        # the new name is never used; the old name's uses may read as undefined terms (where
        # the rules of an undefined term call them one), and nothing else changes
        assert unused == {(str(Kind.UNUSED_DEFINITION), d.paragraph, renamed)}, (d.term, new)
        assert set(new) == unused | undefined, (d.term, new)
        assert all(d.term.rstrip("s") in k[2] for k in undefined), (d.term, undefined)
        done += 1
        if done == PER_DOC:
            break
    if not done:
        pytest.skip("no multi-word term defined by \u201cX\u201d means and used")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_planted_duplicate_definition(path: Path) -> None:
    data = path.read_bytes()
    view = loaded(data)
    if view is None:
        pytest.skip("refused")
    from redline.proofread.definitions import definitions

    defining = {x.paragraph for x in definitions(view)}
    original = check(view)
    done = 0
    for d in _term_candidates(view):
        # another body sentence that defines nothing takes a second definition at its end
        # (a later one where there is one: definitions may also come last)
        target = None
        for para in [*view.paragraphs[d.paragraph + 1 :], *view.paragraphs[: d.paragraph][::-1]]:
            text = view.paragraph_text(para)
            if (
                para.story == "body"
                and para.index not in defining
                and len(text.split()) >= 12
                and text.rstrip().endswith(".")
                and "\u201c" not in text
                and '"' not in text
            ):
                target = para
                break
        if target is None:
            continue
        end = target.start + len(view.paragraph_text(target).rstrip())
        entry = _replace(view, end - 1, end, f". \u201c{d.term}\u201d has the meaning given to it above.")
        copy = planted(data, [entry]) if entry is not None else None
        if copy is None:
            continue
        after = loaded(copy)
        assert after is not None
        new = new_findings(original, check(after))
        second = max(target.index, d.paragraph)  # the finding stands at the later definition
        assert list(new) == [(str(Kind.DUPLICATE_DEFINITION), second, d.term)], (d.term, new)
        done += 1
        if done == PER_DOC:
            break
    if not done:
        pytest.skip("no multi-word term defined by \u201cX\u201d means, and another sentence")
