"""Typed clause numbers out of sequence: ``numbering_gap``.

The outline (:mod:`redline.read.outline`) gives every numbered clause its parent; the clauses of
one parent (or the top level, or one schedule) are siblings.  Two siblings one after the other
whose numbers are both typed as text, of one kind and one style ("1", "a", "i", ...), and with
the same number before their last part ("4.1" then "4.3"), should count up by one: a skip
("4.1" then "4.3") or a repeat ("4.2" then "4.2") is a gap.  A number Word computes (automatic
numbering) is never one -- Word cannot skip -- and a computed sibling between two typed ones
starts the count again.  A "1" (an "a", an "i") starts a new list, never a gap, and numbers
in table cells are the table's data, not clauses; numbers that count in steps ("18.33.010",
"18.33.020") are in sequence when they keep their step.  A single number out of line ("1, 2, 4,
4, 5": the first "4" should be "3") is one finding, with the fix that retypes it; any other
gap has no one repair (a clause deleted, or every number after it to be retyped) and no fix.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from ..opc.namespaces import w
from ..read.outline import Head
from ..read.view import DocumentView
from .findings import Finding, Kind
from .references import place_of
from .unique import anchor_for

__all__ = ["numbering_gaps", "value_of"]


def value_of(head: Head) -> int | None:
    """The last part of a typed number as a count: "4.3" -> 3, "(c)" -> 3, "(iv)" -> 4."""
    number = head.number
    if number is None:
        return None
    last = number.path[-1]
    if last.isdigit():
        return int(last)
    if head.style in ("i", "I"):
        return _roman(last)
    if len(last) == 1 and last.isalpha():
        return ord(last.casefold()) - ord("a") + 1
    if len(last) == 2 and last[0] == last[1] and last.isalpha():  # "(aa)" after "(z)"
        return 26 + ord(last[0].casefold()) - ord("a") + 1
    return None


def _roman(text: str) -> int | None:
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    total, prev = 0, 0
    for ch in reversed(text.casefold()):
        v = values.get(ch)
        if v is None:
            return None
        total = total - v if v < prev else total + v
        prev = max(prev, v)
    return total


def _same_series(a: Head, b: Head) -> bool:
    na, nb = a.number, b.number
    return (
        na is not None
        and nb is not None
        and a.typed
        and b.typed
        and na.kind is nb.kind
        and a.style == b.style
        and na.parenthesised == nb.parenthesised
        and len(na.path) == len(nb.path)
        and na.path[:-1] == nb.path[:-1]
    )


def _families(view: DocumentView) -> list[list[Head]]:
    top = [h for h in view.outline.heads if h.parent is None and view.paragraphs[h.index].story == "body"]
    families = [top]
    for head in view.outline.heads:
        if head.children:
            families.append(head.children)
    return families


def _runs(family: list[Head]) -> list[list[Head]]:
    """The runs of typed siblings of one series (an automatic or other number breaks a run)."""
    runs: list[list[Head]] = []
    current: list[Head] = []
    for head in family:
        if head.number is None:
            continue  # an unnumbered heading between clauses leaves the count as it was
        if current and _same_series(current[-1], head):
            current.append(head)
            continue
        if len(current) > 1:
            runs.append(current)
        current = [head] if head.typed else []
    if len(current) > 1:
        runs.append(current)
    return runs


def numbering_gaps(view: DocumentView) -> list[Finding]:
    """A ``numbering_gap`` for each typed clause number out of sequence (see the module)."""
    out: list[Finding] = []
    for family in _families(view):
        for run in _runs(family):
            values = [value_of(h) for h in run]
            step = _step(values, run)
            k = 1
            while k < len(run):
                prev, value = values[k - 1], values[k]
                head = run[k]
                if (
                    prev is None
                    or value is None
                    or value == prev + step
                    or value == 1
                    or _in_table(view, head, run[k - 1])
                ):
                    k += 1  # (a "1" starts a new list; numbers in a table's cells are its data)
                    continue
                expected = _shown_as(head, prev + step)
                alone = k + 1 < len(run) and values[k + 1] == prev + 2 * step
                what = "repeats" if value == prev else "skips"
                message = (
                    f"Clause number \u201c{head.shown}\u201d {what} the sequence after "
                    f"\u201c{run[k - 1].shown}\u201d: the next number is \u201c{expected}\u201d."
                )
                fix = _fix(view, head, expected) if alone and expected else None
                out.append(
                    Finding(
                        Kind.NUMBERING_GAP,
                        message,
                        place_of(view, head.index, head.shown or ""),
                        (place_of(view, run[k - 1].index, run[k - 1].shown or ""),),
                        fix,
                    )
                )
                k += 2 if alone else 1
    return out


_TC = w("tc")


def _step(values: list[int | None], run: list[Head]) -> int:
    """The step a run counts in: 1, or the one most of its numbers keep when they are written
    with a leading zero ("010, 020": 10)."""
    padded = all((h.shown or "").rstrip(".").rsplit(".", 1)[-1].startswith("0") for h in run)
    if not padded:
        return 1
    steps = Counter(b - a for a, b in pairwise(values) if a is not None and b is not None)
    if not steps:
        return 1
    step, n = steps.most_common(1)[0]
    return step if step > 1 and n * 2 >= sum(steps.values()) else 1


def _in_table(view: DocumentView, *heads: Head) -> bool:
    """Whether any of the heads' paragraphs lies in a table cell."""
    for head in heads:
        try:
            element = view.paragraphs[head.index].element
        except TypeError:  # a verify-only view holds no trees
            return False
        if any(True for _ in element.iterancestors(_TC)):
            return True
    return False


def _shown_as(head: Head, value: int) -> str | None:
    """``head``'s typed number as it would read with ``value`` as its last part, or None."""
    shown = head.shown or ""
    number = head.number
    if number is None or not shown:
        return None
    last = number.path[-1]
    if last.isdigit():
        new = str(value)
    elif head.style in ("i", "I"):
        new = _to_roman(value)
    elif len(last) == 1 and 1 <= value <= 26:
        new = chr(ord("a") + value - 1)
    else:
        return None
    # the last part as typed: its last run of the same characters in the shown number
    lowered = shown.casefold()
    at = lowered.rfind(last)
    if at < 0:
        return None
    written = shown[at : at + len(last)]
    if written.isupper():
        new = new.upper()
    return shown[:at] + new + shown[at + len(last) :]


def _to_roman(value: int) -> str:
    out = ""
    for n, s in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                 (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):  # fmt: skip
        while value >= n:
            out += s
            value -= n
    return out


def _fix(view: DocumentView, head: Head, expected: str) -> dict[str, object] | None:
    """The reply entry that retypes ``head``'s number as ``expected``."""
    para = view.paragraphs[head.index]
    text = view.text[para.start : para.end]
    shown = head.shown or ""
    at = text.find(shown)
    if at < 0:
        return None
    found = anchor_for(view, para.start + at, para.start + at + len(shown))
    if found is None:
        return None
    anchor, s, _e = found
    offset = para.start + at - s
    replacement = anchor[:offset] + expected + anchor[offset + len(shown) :]
    return {"anchor": anchor, "replacement": replacement, "rationale": "Number the clauses in sequence."}
