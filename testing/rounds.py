"""Constructed negotiation rounds (issue 34): SENT written by our apply, RETURNED made from it
the ways a counterparty makes one, and what a reconcile must report -- known by construction.

:func:`build_round` takes any ``.docx`` (a generated contract, a corpus document) and:

1. writes SENT with ``redline apply`` as author ``Us``: replacements of one word by three
   marked words (``alpha3 bravo3 charlie3``), deletions of one word, new paragraphs after a
   paragraph, and one comment;
2. gives each change of ours an outcome: ``accepted`` / ``rejected`` (decided by revision id,
   by ``apply`` as author ``Them``), ``pending`` (left alone), ``modified_tracked`` (``Them``
   replaces a word inside our insertion, tracked), ``modified_untracked`` (a word inside our
   insertion rewritten in the XML, untracked);
3. adds their tracked replacements elsewhere, a comment of theirs and a reply to ours;
4. plants untracked word changes directly in ``word/document.xml`` (a whole word of a ``w:t``
   outside any revision replaced by ``plantedN``);
5. optionally renumbers every revision id of RETURNED (as Word and LibreOffice do on save).

Nothing here imports the code under test except ``redline.apply`` (to write SENT and
RETURNED's tracked changes, as a counterparty's tool would) and the view (to choose places);
the expectations are the construction's.
"""

from __future__ import annotations

import io
import json
import random
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

__all__ = [
    "OUTCOMES",
    "Round",
    "build_round",
    "plant_bold",
    "plant_untracked",
    "renumber_revisions",
    "rewrite_part",
]

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_W = f"{{{W}}}"
OUTCOMES = ("accepted", "rejected", "pending", "modified_tracked", "modified_untracked")
_WORD = re.compile(r"(?<![\w’'\-])([a-z]{5,})(?![\w’'\-])")
_REVISION_TAGS = {f"{_W}{t}" for t in ("ins", "del", "moveFrom", "moveTo", "rPrChange", "pPrChange")}


@dataclass
class PlannedChange:
    kind: str  # replace | delete | insert
    marker: str  # the text that finds it in SENT (our inserted text, or the deleted word)
    outcome: str
    ids: list[str] = field(default_factory=list)
    paragraph: int = -1  # SENT's view paragraph
    around: tuple[str, str] = ("", "")  # a deletion's words before and after it (its place)


@dataclass
class Round:
    sent: bytes
    returned: bytes
    changes: list[PlannedChange]
    untracked: list[tuple[str, str]]  # (before, after) planted
    their_revisions: int  # tracked replacements of theirs outside our changes
    their_comments: int
    replies_to_ours: int
    their_words: list[tuple[str, str]] = field(default_factory=list)  # (word, theirN) replaced, tracked

    def outcome_of(self, c: PlannedChange) -> tuple[str, bool | None]:
        """The outcome a reconcile must report, and its ``tracked``."""
        if c.outcome == "modified_tracked":
            return "modified", True
        if c.outcome == "modified_untracked":
            return "modified", False
        return c.outcome, None


def rewrite_part(data: bytes, part: str, change: Callable[[bytes], bytes]) -> bytes:
    """``data`` with zip member ``part`` replaced by ``change(its bytes)``, every other member
    copied as it was, in order."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == part:
                body = change(body)
            dst.writestr(info, body)
    return out.getvalue()


_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_SKIP = {f"{_W}{t}" for t in ("ins", "del", "moveFrom", "moveTo", "fldSimple", "txbxContent", "sdt")}
_SKIP |= {f"{{{_MC}}}AlternateContent"}


def _inside_revision(el: etree._Element) -> bool:
    """Inside a revision, a simple field, a text box, a content control or a choice of
    alternative content (a reader shows one of its copies only)?"""
    return any(a.tag in _SKIP for a in el.iterancestors())


def _in_field(t: etree._Element) -> bool:
    """Is the w:t inside a complex field (between a begin and an end in its paragraph)?"""
    p = next((a for a in t.iterancestors() if a.tag == f"{_W}p"), None)
    if p is None:
        return True
    depth = 0
    for el in p.iter(f"{_W}fldChar", f"{_W}t"):
        if el is t:
            return depth > 0
        kind = el.get(f"{_W}fldCharType")
        if kind == "begin":
            depth += 1
        elif kind == "end":
            depth = max(0, depth - 1)
    return False


def plant_untracked(
    data: bytes, avoid: set[str], count: int, rng: random.Random
) -> tuple[bytes, list[tuple[str, str]]]:
    """``count`` untracked word changes in the body: a whole word (5+ lower-case letters, not in
    ``avoid``, not next to another letter in its ``w:t``) of a ``w:t`` outside any revision and
    field replaced by ``plantedN``, in different paragraphs whose text holds none of ``avoid``."""
    planted: list[tuple[str, str]] = []

    def change(xml: bytes) -> bytes:
        root = etree.fromstring(xml)
        # (a paragraph by its position: id() of an lxml proxy is not the element's identity)
        candidates: list[tuple[int, etree._Element, re.Match[str]]] = []
        used_paragraphs: set[int] = set()
        for k, p in enumerate(root.iter(f"{_W}p")):
            if any(a.tag == f"{_W}tbl" for a in p.iterancestors()):
                continue
            text = "".join(t.text or "" for t in p.iter(f"{_W}t", f"{_W}delText"))
            if (
                any(word in text for word in avoid)
                or p.find(f".//{_W}ins") is not None
                or (p.find(f".//{_W}del") is not None)
            ):
                continue
            for t in p.iter(f"{_W}t"):
                if _inside_revision(t) or _in_field(t):
                    continue
                for m in _WORD.finditer(t.text or ""):
                    if m.start() > 0 and m.end() < len(t.text or ""):
                        candidates.append((k, t, m))
        rng.shuffle(candidates)
        for k, t, m in candidates:
            if len(planted) >= count:
                break
            if k in used_paragraphs:
                continue
            used_paragraphs.add(k)
            new = f"planted{len(planted)}"
            text = t.text or ""
            t.text = text[: m.start()] + new + text[m.end() :]
            planted.append((m.group(1), new))
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)

    return rewrite_part(data, "word/document.xml", change), planted


def plant_bold(data: bytes, avoid: set[str]) -> tuple[bytes, str]:
    """One run of the body made bold without tracking (``w:b`` added to its properties): the
    first run outside any revision and field, of 4+ characters, not bold already, in a
    paragraph whose text holds none of ``avoid``; its text."""
    found: list[str] = []

    def change(xml: bytes) -> bytes:
        root = etree.fromstring(xml)
        for p in root.iter(f"{_W}p"):
            text = "".join(t.text or "" for t in p.iter(f"{_W}t", f"{_W}delText"))
            if any(word in text for word in avoid) or p.find(f".//{_W}ins") is not None:
                continue
            for t in p.iter(f"{_W}t"):
                run = t.getparent()
                if run is None or _inside_revision(t) or _in_field(t) or len((t.text or "").strip()) < 4:
                    continue
                rpr = run.find(f"{_W}rPr")
                if rpr is None:
                    rpr = etree.Element(f"{_W}rPr")
                    run.insert(0, rpr)
                if rpr.find(f"{_W}b") is not None or len(run.findall(f"{_W}t")) != 1:
                    continue
                rpr.insert(0, etree.Element(f"{_W}b"))
                found.append(t.text or "")
                return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
        raise AssertionError("no run to make bold")

    return rewrite_part(data, "word/document.xml", change), found[0]


def renumber_revisions(data: bytes, by: int = 5000) -> bytes:
    """Every revision id of the body moved by ``by`` (as a re-save by another tool renumbers)."""

    def change(xml: bytes) -> bytes:
        root = etree.fromstring(xml)
        for el in root.iter():
            if el.tag in _REVISION_TAGS and el.get(f"{_W}id") is not None:
                el.set(f"{_W}id", str(int(el.get(f"{_W}id") or 0) + by))
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)

    return rewrite_part(data, "word/document.xml", change)


def _untracked_inside(data: bytes, old: str, new: str) -> bytes:
    """Rewrite ``old`` to ``new`` in a ``w:t`` inside an insertion by ``Us``, untracked."""

    def change(xml: bytes) -> bytes:
        root = etree.fromstring(xml)
        for t in root.iter(f"{_W}t"):
            ins = next((a for a in t.iterancestors() if a.tag == f"{_W}ins"), None)
            if ins is not None and ins.get(f"{_W}author") == "Us" and old in (t.text or ""):
                t.text = (t.text or "").replace(old, new)
                break
        else:
            raise AssertionError(f"{old!r} is not in an insertion of ours")
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)

    return rewrite_part(data, "word/document.xml", change)


def _apply(data: bytes, entries: list[dict[str, object]], author: str) -> tuple[bytes, list[str]]:
    from redline.apply import ApplyOptions, apply_reply

    out = apply_reply(data, json.dumps(entries), ApplyOptions(author=author, comments=False,
                                                               date="2026-11-02T10:00:00Z"))  # fmt: skip
    assert out.output is not None, out.report.error
    return out.output, [e.status.value for e in out.report.edits]


def _unique_anchor(text: str, view_text: str, words: list[str], k: int) -> str | None:
    """Three words around word ``k`` of a paragraph, if they occur once in the document."""
    if k < 1 or k + 1 >= len(words):
        return None
    anchor = " ".join(words[k - 1 : k + 2])
    return anchor if anchor in text and view_text.count(anchor) == 1 else None


def build_round(
    doc: bytes,
    rng: random.Random,
    *,
    changes: int = 6,
    theirs: int = 2,
    untracked: int = 2,
    outcomes: list[str] | None = None,
    renumber: bool = False,
) -> Round:
    from redline.read.annotations import Revision, read_annotations
    from redline.read.load import load_view

    loaded = load_view(doc)
    assert isinstance(loaded, tuple)
    _, view = loaded
    body = [
        p for p in view.paragraphs
        if p.story == "body" and len(view.paragraph_text(p).split()) >= 12
        and getattr(p.element.getparent(), "tag", None) == f"{_W}body"
    ]  # fmt: skip
    rng.shuffle(body)
    planned: list[PlannedChange] = []
    edits: list[dict[str, object]] = []
    their_edits: list[dict[str, object]] = []
    used: list[int] = []
    kinds = ["replace", "delete", "insert"]
    for p in body:
        text = view.paragraph_text(p)
        words = text.split(" ")
        spots = [k for k, word in enumerate(words) if re.fullmatch(r"[a-z]{4,}", word)]
        rng.shuffle(spots)
        anchor = next((a for k in spots if (a := _unique_anchor(text, view.text, words, k))), None)
        if anchor is None or any(abs(p.index - u) < 2 for u in used):
            continue
        used.append(p.index)
        x, w_, y = anchor.split(" ")
        n = len(planned) + len(their_edits)
        if len(planned) < changes:
            kind = kinds[len(planned) % 3]
            if kind == "replace":
                marker = f"alpha{n} bravo{n} charlie{n}"
                edits.append({"anchor": anchor, "replacement": f"{x} {marker} {y}"})
            elif kind == "delete":
                marker = w_
                edits.append({"anchor": anchor, "replacement": f"{x} {y}"})
            else:
                marker = f"Our new clause alpha{n} bravo{n} charlie{n}."
                edits.append({"action": "insert_after", "anchor": anchor, "text": marker})
            planned.append(PlannedChange(kind, marker, "pending", around=(x, y)))
        elif len(their_edits) < theirs:
            their_edits.append({"anchor": anchor, "replacement": f"{x} their{n} {y}"})
        elif len(their_edits) == theirs:
            their_edits.append({"action": "comment", "anchor": anchor, "text": f"Their comment {n}."})
            edits.append({"action": "comment", "anchor": anchor, "text": "Our comment."})
        else:
            break
    sent, statuses = _apply(doc, edits, "Us")
    kept = [e for e, st in zip(edits, statuses, strict=True) if st == "applied"]
    if len(kept) < len(edits):  # (a place the writer refuses: the change is not part of the round)
        keep_markers = {str(e.get("text") or e.get("replacement")) for e in kept}
        planned = [
            c for c, e in zip(planned, [e for e in edits if e.get("action") != "comment"], strict=False)
            if str(e.get("text") or e.get("replacement")) in keep_markers
        ]  # fmt: skip
        sent, statuses = _apply(doc, kept, "Us")
        assert all(s == "applied" for s in statuses), statuses
    loaded = load_view(sent, trees=True)
    assert isinstance(loaded, tuple)
    package, sview = loaded
    ann = read_annotations(package, sview)
    ours = [r for r in ann.revisions if r.author == "Us"]
    for c in planned:
        if c.kind == "delete":
            at: dict[int, list[Revision]] = {}
            for r in ours:
                if r.kind.value == "delete":
                    at.setdefault(r.start, []).append(r)
            # (the same word may be deleted in two places: the words around it tell them apart)
            left, right = c.around
            found = next(
                (
                    g for s, g in at.items() if "".join(r.text for r in g).strip() == c.marker
                    and f"{left} {right}" in sview.text[max(0, s - len(left) - 2) : s + len(right) + 2]
                ),
                [],
            )  # fmt: skip
        else:
            ins = [r for r in ours if r.kind.value == "insert" and c.marker in r.text]
            assert len(ins) == 1, (c.marker, ins)
            found = [r for r in ours if r.start == ins[0].start and r.kind.value == "delete"] + ins
            if c.kind == "insert":
                found += [
                    r for r in ours if r.kind.value == "paragraph_insert" and r.paragraph == ins[0].paragraph
                ]
        assert found, c.marker
        c.ids = [r.id for r in found]
        c.paragraph = found[0].paragraph or 0
    assert sorted(i for c in planned for i in c.ids) == sorted(r.id for r in ours), (
        "every revision of ours is one planned change's"
    )
    choice = list(outcomes) if outcomes is not None else [rng.choice(OUTCOMES) for _ in planned]
    decisions: list[dict[str, object]] = []
    later: list[dict[str, object]] = []
    inside: list[tuple[str, str]] = []
    for c, outcome in zip(planned, choice, strict=False):
        if c.kind == "delete" and outcome.startswith("modified"):
            outcome = "accepted"
        c.outcome = outcome
        if outcome in ("accepted", "rejected"):
            action = "accept" if outcome == "accepted" else "reject"
            decisions += [{"action": action, "revision_id": i} for i in c.ids]
        number = re.search(r"alpha(\d+)", c.marker)
        if outcome == "modified_tracked" and number:
            later.append({"anchor": f"bravo{number.group(1)}", "replacement": f"delta{number.group(1)}"})
        if outcome == "modified_untracked" and number:
            inside.append((f"bravo{number.group(1)}", f"echo{number.group(1)}"))
    returned = sent
    if decisions:
        returned, statuses = _apply(returned, decisions, "Them")
        assert all(s == "applied" for s in statuses), statuses
    comment_ids = [c.id for c in ann.comments if c.author == "Us"]
    replies: list[dict[str, object]] = [
        {"action": "reply", "comment_id": i, "text": "Agreed."} for i in comment_ids
    ]
    before = returned
    returned, statuses = _apply(before, their_edits + later + replies, "Them")
    if any(s != "applied" for s in statuses[: len(their_edits)]):  # (a place refused: left out)
        their_edits = [e for e, st in zip(their_edits, statuses, strict=False) if st == "applied"]
        returned, statuses = _apply(before, their_edits + later + replies, "Them")
    assert all(s == "applied" for s in statuses), statuses
    their_plain = [e for e in their_edits if e.get("action") != "comment"]
    for old, new in inside:
        returned = _untracked_inside(returned, old, new)
    avoid = {c.marker.split()[0] for c in planned} | {"their", "alpha", "bravo"}
    avoid |= {str(e["anchor"]) for e in edits + their_edits}
    returned, planted = plant_untracked(returned, avoid, untracked, rng)
    if renumber:
        returned = renumber_revisions(returned)
    return Round(
        sent=sent, returned=returned, changes=planned, untracked=planted,
        their_revisions=len(their_plain),
        their_words=[(str(e["anchor"]).split(" ")[1], str(e["replacement"]).split(" ")[1])
                     for e in their_plain],
        their_comments=(len(their_edits) - len(their_plain)) + len(comment_ids),
        replies_to_ours=len(comment_ids),
    )  # fmt: skip
