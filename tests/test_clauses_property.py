"""Property: on generated numbered contracts (Word's own list labels, cross-reference fields),
any mix of clause strikes, inserted clauses (``insert_after`` / ``insert_before``, with a
level) and replacements inside clauses (over a cross-reference's number too) is applied; the
output loads; pandoc's reject-all reads as the original; pandoc's accept-all reads as an
independent oracle -- the original's clause texts with the edits made as plain text.

The oracle works on the generator's paragraphs as text, not on anything the writer computes:
a struck clause is gone, an inserted one stands beside its neighbour, a replacement replaces
its words.  List numbers are left out of the comparison (pandoc numbers a list by position,
so a struck clause renumbers the rest, which is what must happen)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.read.load import load_view
from testing.numbered import contract
from tests.oracles import ITEM, pandoc_plain

ARTICLES, CLAUSES = 3, 3
DOC = contract(articles=ARTICLES, clauses=CLAUSES, seed=11)
_WORDS = ("promptly", "in writing", "at its own cost", "Lessee", "the Customer", "twelve")
_NEW = ("A new clause about audits.", "The parties shall meet quarterly.", "Notices go by email.")


def _paragraphs() -> list[tuple[str, str]]:
    loaded = load_view(DOC.data)
    assert isinstance(loaded, tuple)
    view = loaded[1]
    return [(p.label or "", view.paragraph_text(p)) for p in view.paragraphs if view.paragraph_text(p)]


PARAGRAPHS = _paragraphs()


def plain(text: str) -> str:
    """pandoc's plain text without list numbers, one space between words."""
    lines = [ITEM.sub("", line) for line in text.split("\n")]
    return " ".join(" ".join(lines).split())


@st.composite
def batches(draw: st.DrawFn) -> list[tuple[str, int, str]]:
    """Edits on distinct clauses: (kind, paragraph, argument)."""
    chosen = draw(st.lists(st.integers(0, len(PARAGRAPHS) - 1), min_size=1, max_size=5, unique=True))
    out = []
    for k in chosen:
        text = PARAGRAPHS[k][1]
        kinds = ["strike", "after", "before", "replace"]
        if "Section" in text:
            kinds.append("retarget")
        kind = draw(st.sampled_from(kinds))
        if kind in ("after", "before"):
            arg = draw(st.sampled_from(_NEW))
        elif kind == "replace":
            arg = draw(st.sampled_from(_WORDS))
        elif kind == "retarget":
            current = text.split("Section ")[1].split()[0]
            arg = draw(st.sampled_from([x for x in DOC.labels if x != current] + ["9.9"]))
        else:
            arg = ""
        out.append((kind, k, arg))
    return out


def _edit(kind: str, k: int, arg: str, level: int) -> tuple[dict[str, object], str]:
    """The reply entry and the paragraph text the oracle expects in its place ("" for none;
    a paragraph inserted beside it is joined to it with a space)."""
    text = PARAGRAPHS[k][1]
    anchor = text.split(":")[0] + ":"  # "Obligation 7:" is unique; an article heading is whole
    if not anchor[:-1].startswith("Obligation"):
        anchor = text
    if kind == "strike":
        return {"anchor": text, "replacement": ""}, ""
    if kind == "after":
        entry: dict[str, object] = {"action": "insert_after", "anchor": anchor, "text": arg}
        if level:
            entry["level"] = f"{level:+d}"
        return entry, f"{text} {arg}"
    if kind == "before":
        return {"action": "insert_before", "anchor": anchor, "text": arg}, f"{arg} {text}"
    if kind == "replace":
        old = text.split()[-3]  # a word near the end ("of this Agreement.", "number 3")
        start = text.rindex(old)
        new_text = text[:start] + arg + text[start + len(old) :]
        if not text.startswith("Obligation"):  # an article heading: quoted whole
            return {"anchor": text, "replacement": new_text}, new_text
        quoted = text[: start + len(old)]  # from the start: "Obligation 7:" makes it unique
        return {"anchor": quoted, "replacement": quoted[: len(quoted) - len(old)] + arg}, new_text
    # retarget: the cross-reference's number becomes another clause's (or a number none has)
    at = text.index("Section ") + len("Section ")
    end = text.index(" ", at)
    quoted = text[:end]
    return (
        {"anchor": quoted, "replacement": quoted[: len(quoted) - (end - at)] + arg},
        text[:at] + arg + text[end:],
    )


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(batch=batches(), levels=st.lists(st.sampled_from([0, 0, 1, -1]), min_size=5, max_size=5))
def test_random_clause_edits_read_as_the_oracle_says(
    batch: list[tuple[str, int, str]], levels: list[int]
) -> None:
    entries, expected = [], [text for _, text in PARAGRAPHS]
    for n, (kind, k, arg) in enumerate(batch):
        entry, now = _edit(kind, k, arg, levels[n])
        entries.append(entry)
        expected[k] = now
    outcome = apply_reply(DOC.data, json.dumps(entries), ApplyOptions())
    statuses = [e.status.value for e in outcome.report.edits]
    assert statuses == ["applied"] * len(entries), [e.error for e in outcome.report.edits]
    out = outcome.output
    assert out is not None
    assert isinstance(load_view(out), tuple)  # the output loads
    assert plain(pandoc_plain(out, "reject")) == plain(pandoc_plain(DOC.data, "reject"))
    assert plain(pandoc_plain(out, "accept")) == " ".join(" ".join(t for t in expected if t).split())
