"""The writer numbers the paragraphs each edit touched as the written document's view numbers them.

``WriteResult.touched_paragraphs`` is computed from what the writer did (splits, joins, marks
deleted, text inserted), never by reading the output; ``apply_edits`` returns those paragraphs.
Here it is held to the output itself, re-read, on many generated batches -- line breaks that
split paragraphs (one, two, at either end), marks deleted that join them, whole paragraphs
deleted, paragraphs emptied, several edits in one paragraph and in adjacent ones, tables,
another author's insertions and deleted marks, tracked and untracked:

* every line an edit wrote is in the paragraphs returned for it;
* the paragraphs returned for no edit are, in order, exactly the paragraphs of the document no
  edit touched, with their text unchanged -- so every index before, between and after the
  edits is right;
* where edits are apart, the result is what aligning the paragraph texts of the document before
  and after finds (the way the tools used to find it, kept here as the oracle).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.opc.package import Package
from redline.read.build import build_view
from redline.read.view import DocumentView
from shared_schema import Edit, EditBatch, EditResult
from testing.docbuild import Ins, P, Table, docx

DATE = "2026-01-02T03:04:05Z"
WORDS = [
    "tenant", "landlord", "premises", "rent", "deposit", "notice", "term", "renewal", "repair",
    "insurance", "liability", "assignment", "default", "remedy", "waiver", "consent", "approval",
    "schedule", "payment", "interest", "charge",
]  # fmt: skip
KINDS = ["word", "split", "splits", "end", "start", "join", "delete", "empty", "two", "cut"]
DELETED_MARK = '<w:del w:id="900" w:author="Alice" w:date="2025-01-01T00:00:00Z"/>'


def _sentence(k: int, rng: random.Random, name: str = "Clause") -> str:
    words = rng.sample(WORDS, rng.randint(5, 9))
    return f"{name}{k} " + " ".join(words) + f" ends{k}."


def _runs(text: str, rng: random.Random) -> str:
    """``text`` cut into runs at random spaces (docbuild's ``|``)."""
    parts = text.split(" ")
    cuts = [rng.choice([" ", " |", "| "]) for _ in parts[1:]] + [""]
    return "".join(p + cut for p, cut in zip(parts, cuts, strict=True))


def _document(rng: random.Random) -> bytes:
    blocks: list[object] = []
    k = 0
    for _ in range(rng.randint(14, 26)):
        roll = rng.random()
        k += 1
        if roll < 0.07:
            blocks.append(P())  # an empty paragraph
        elif roll < 0.14:
            cells: list[list[object]] = []
            for _ in range(2):
                row: list[object] = []
                for _ in range(2):
                    k += 1
                    row.append(P(_runs(_sentence(k, rng, "Cell"), rng)))
                cells.append(row)
            blocks.append(Table(cells))
        elif roll < 0.2:
            text = _sentence(k, rng)
            head, tail = text.split(" ", 1)
            blocks.append(P(head + " ", Ins(tail)))  # another author's insertion
        elif roll < 0.25:
            blocks.append(P(_runs(_sentence(k, rng), rng), mark=DELETED_MARK))  # joins the next
        else:
            blocks.append(P(_runs(_sentence(k, rng), rng)))
    blocks.append(P(_sentence(k + 1, rng)))
    return docx(*blocks)


def _edits(view: DocumentView, rng: random.Random, apart: bool, track: bool) -> list[Edit]:
    """A batch of edits of every kind on distinct paragraphs (``apart``: never adjacent).

    Untracked, a mark is deleted by joining the next paragraph into the one it ends, which the
    writer does not do across table cells (the mark is kept): no such edit there."""
    paras = view.paragraphs
    used: set[int] = set()
    edits: list[Edit] = []
    order = list(range(len(paras)))
    rng.shuffle(order)

    def unique(anchor: str) -> bool:
        return bool(anchor.strip()) and view.text.count(anchor) == 1

    def free(*indexes: int) -> bool:
        reach = 1 if apart else 0
        return all(j not in used for i in indexes for j in range(i - reach, i + reach + 1))

    for i in order[: rng.randint(3, 8)]:
        p = paras[i]
        text = view.paragraph_text(p)
        words = text.split(" ")
        nxt = paras[i + 1] if i + 1 < len(paras) else None
        joinable = (
            nxt is not None
            and nxt.story == p.story
            and nxt.start == p.end + 1  # a mark that is not already deleted
            and len(view.paragraph_text(nxt).split(" ")) >= 4
            and (track or not (text.startswith("Cell") or view.paragraph_text(nxt).startswith("Cell")))
        )
        if len(words) < 6 or not free(i):
            continue
        kind = rng.choice(KINDS)
        if kind in ("join", "cut") and not (joinable and free(i + 1)):
            kind = "split"
        if kind == "delete" and not joinable:
            kind = "empty"
        n = len(words)
        batch: list[Edit] = []
        if kind == "word":
            batch = [Edit(anchor=" ".join(words[1:4]), replacement=" ".join(words[1:3]) + " amended")]
        elif kind == "split":
            at = rng.randint(1, n - 3)
            anchor = " ".join(words[at : at + 2])
            batch = [Edit(anchor=anchor, replacement=words[at] + f"\nNew line {i} " + words[at + 1])]
        elif kind == "splits":
            two = f"{words[2]}\nOne {i}\nTwo {i} {words[3]}"
            batch = [Edit(anchor=" ".join(words[2:4]), replacement=two)]
        elif kind == "end":
            anchor = " ".join(words[-2:])
            batch = [Edit(anchor=anchor, replacement=anchor + f"\nAppended {i}.")]
        elif kind == "start":
            anchor = " ".join(words[:2])
            batch = [Edit(anchor=anchor, replacement=f"Prefix {i}.\n" + anchor)]
        elif kind == "join":
            assert nxt is not None
            tail, head = " ".join(words[-2:]), " ".join(view.paragraph_text(nxt).split(" ")[:2])
            batch = [Edit(anchor=tail + "\n" + head, replacement=tail + " " + head)]
            used.add(i + 1)
        elif kind == "cut":
            assert nxt is not None
            tail, head = " ".join(words[-3:]), " ".join(view.paragraph_text(nxt).split(" ")[:2])
            batch = [Edit(anchor=tail + "\n" + head, replacement="")]
            used.add(i + 1)
        elif kind == "delete":
            batch = [Edit(anchor=text + "\n", replacement="")]
        elif kind == "empty":
            batch = [Edit(anchor=text, replacement="")]
        else:  # two edits in one paragraph, one of them a split
            batch = [
                Edit(anchor=" ".join(words[0:2]), replacement=words[0] + " first"),
                Edit(anchor=" ".join(words[-3:-1]), replacement=f"{words[-3]}\nSecond {i} {words[-2]}"),
            ]
        if all(unique(e.anchor) for e in batch):
            edits += batch
            used.add(i)
    return edits


def _old_paragraphs(view: DocumentView, result: EditResult) -> list[int]:
    out: list[int] = []
    for loc in result.locations:
        for p in view.paragraphs_between(loc.start, max(loc.end, loc.start + 1)):
            if p.index not in out:
                out.append(p.index)
    return out


# The tools' former alignment of paragraph texts, as it was (the oracle where edits are apart
# and it could align them by the untouched paragraphs between them).


def _aligned(
    old: DocumentView, new: DocumentView, touched: Sequence[Sequence[int]]
) -> list[list[int]] | None:
    old_texts = [old.paragraph_text(p) for p in old.paragraphs]
    new_texts = [new.paragraph_text(p) for p in new.paragraphs]
    if len(set(old_texts)) < len(old_texts) or len(set(new_texts)) < len(new_texts):
        return None  # two paragraphs read the same (two empty ones): texts cannot tell them apart
    mapping = _align_by_anchors(old_texts, new_texts, {i for t in touched for i in t})
    if mapping is None:
        return None  # (the tools then fell back to a difflib alignment, a guess)
    return [sorted({j for i in indexes for j in mapping.get(i, [])}) for indexes in touched]


def _align_by_anchors(old: list[str], new: list[str], touched: set[int]) -> dict[int, list[int]] | None:
    groups: list[tuple[int, int]] = []  # inclusive old ranges of touched paragraphs
    for i in sorted(touched):
        if groups and i <= groups[-1][1] + 1:
            groups[-1] = (groups[-1][0], i)
        else:
            groups.append((i, i))
    mapping: dict[int, list[int]] = {}
    i = j = 0
    for g, (a, b) in enumerate(groups):
        span = a - i  # the untouched stretch before the group keeps its paragraphs
        if new[j : j + span] != old[i:a]:
            return None
        j += span
        # the untouched stretch after the group, up to the next group (or the end)
        stop = groups[g + 1][0] if g + 1 < len(groups) else len(old)
        follow = old[b + 1 : stop]
        k = _find_run(new, follow, j, len(new) - (len(old) - stop))
        if k is None:
            return None
        width = k - j
        if width == b - a + 1:
            for n, old_index in enumerate(range(a, b + 1)):
                mapping[old_index] = [j + n]
        else:
            for old_index in range(a, b + 1):
                mapping[old_index] = list(range(j, k))
        i, j = b + 1, k
    if new[j:] != old[i:]:
        return None
    return mapping


def _find_run(seq: list[str], run: list[str], lo: int, tail_start: int) -> int | None:
    """The first position >= lo at which ``run`` occurs in ``seq`` and ends at ``tail_start``
    or before (the untouched tail must still fit after it)."""
    n = len(run)
    if n == 0:
        return tail_start if tail_start >= lo else None
    for k in range(lo, tail_start - n + 1):
        if seq[k] == run[0] and seq[k : k + n] == run:
            return k
    return None


def _check(seed: int, track: bool, apart: bool, aligned: list[int], neighbours: list[int]) -> int:
    rng = random.Random(seed)
    data = _document(rng)
    old = build_view(Package.from_bytes(data))
    batch = _edits(old, rng, apart, track)
    if not batch:
        return 0
    outcome = apply_reply(data, EditBatch(edits=batch), ApplyOptions(date=DATE, track=track))
    edits = outcome.report.edits
    assert all(e.status.ok for e in edits), [(e.anchor, e.error) for e in edits if e.error]
    assert outcome.output is not None and outcome.written is not None
    new = build_view(Package.from_bytes(outcome.output))
    touched = outcome.written.touched_paragraphs
    assert set(touched) == {e.index for e in edits}
    for e in edits:
        got = touched[e.index]
        assert got == sorted(set(got)) and all(0 <= i < len(new.paragraphs) for i in got)
        assert got == list(range(got[0], got[-1] + 1)) if got else True  # one place: one stretch
        written = new.text[new.paragraphs[got[0]].start : new.paragraphs[got[-1]].end] if got else ""
        for line in e.replacement.split("\n"):
            assert line.strip() in written, (seed, e.anchor, e.replacement, got, written)
    # What no edit touched is the document's other paragraphs, in order and unchanged -- but
    # for a neighbour of an edit's paragraphs that new text went into (an anchor that ends or
    # starts at a paragraph mark), or that an untracked mark deletion joined into it.
    old_touched = {i for e in edits for i in _old_paragraphs(old, e)}
    returned = {i for got in touched.values() for i in got}
    rest_new = [new.paragraph_text(p) for p in new.paragraphs if p.index not in returned]
    rest_old = [(p.index, old.paragraph_text(p)) for p in old.paragraphs if p.index not in old_touched]
    k = 0
    for index, text in rest_old:
        if k < len(rest_new) and rest_new[k] == text:
            k += 1
        else:
            assert {index - 1, index + 1} & old_touched, (seed, index, text)
            neighbours.append(index)
    assert k == len(rest_new), (seed, rest_new[k:])
    if apart and track:
        oracle = _aligned(old, new, [_old_paragraphs(old, e) for e in edits])
        if oracle is not None:
            assert [touched[e.index] for e in edits] == oracle, seed
            aligned.append(seed)
    return len(edits)


@pytest.mark.parametrize("track", [True, False], ids=["tracked", "untracked"])
@pytest.mark.parametrize("apart", [True, False], ids=["apart", "adjacent"])
def test_the_writers_numbering_is_the_written_documents(track: bool, apart: bool) -> None:
    aligned: list[int] = []
    neighbours: list[int] = []  # untouched paragraphs an edit's new text went into
    edits = sum(_check(seed, track, apart, aligned, neighbours) for seed in range(150))
    assert edits > 500  # the batches did exercise the writer
    # (the exception, not the rule; untracked, striking a whole paragraph joins the next one
    # into its place, by design, so that neighbour is touched more often)
    assert len(neighbours) < edits // (10 if track else 5)
    if apart and track:
        assert len(aligned) > 30  # and most could be aligned by text


def test_edits_in_adjacent_paragraphs_each_get_their_own() -> None:
    """Aligning texts could only give both edits the whole group when one of them split its
    paragraph; the writer knows which paragraph came from which."""
    data = docx(P("Alpha one two three."), P("Beta four five six."), P("Gamma seven eight nine."))
    edits = [
        Edit(anchor="one two", replacement="one\nnew two"),
        Edit(anchor="five six", replacement="five 6"),
    ]
    outcome = apply_reply(data, EditBatch(edits=edits), ApplyOptions(date=DATE))
    assert outcome.written is not None and outcome.output is not None
    new = build_view(Package.from_bytes(outcome.output))
    assert [new.paragraph_text(p) for p in new.paragraphs] == [
        "Alpha one", "new two three.", "Beta four five 6.", "Gamma seven eight nine.",
    ]  # fmt: skip
    assert outcome.written.touched_paragraphs == {0: [0, 1], 1: [2]}


def test_new_text_after_an_anchors_mark_goes_with_the_edit() -> None:
    """An anchor that ends with a paragraph mark, and new text after it: the text starts the
    next paragraph, which the edit now touches (its own text, split off, is not touched)."""
    data = docx(P("Alpha one."), P("Beta two."), P("Gamma three."))
    for replacement, expected, texts in [
        ("Alpha one.\nInserted.\n", [0, 1], ["Alpha one.", "Inserted.", "Beta two.", "Gamma three."]),
        ("Alpha one.\nMore ", [0, 1], ["Alpha one.", "More Beta two.", "Gamma three."]),
    ]:
        edit = Edit(anchor="Alpha one.\n", replacement=replacement)
        outcome = apply_reply(data, EditBatch(edits=[edit]), ApplyOptions(date=DATE))
        assert outcome.written is not None and outcome.output is not None
        new = build_view(Package.from_bytes(outcome.output))
        assert [new.paragraph_text(p) for p in new.paragraphs] == texts
        assert outcome.written.touched_paragraphs == {0: expected}
