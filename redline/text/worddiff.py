"""The word diff the writer writes and the review page shows: which words of a located text a
replacement changes, compared under the tolerant normalisation so unchanged words keep the
document's own characters.  Also used before writing, to see what an edit would touch (a
field's result it leaves alone is no reason to refuse it)."""

from __future__ import annotations

import difflib
import re
from itertools import accumulate

from .normalize import NormalizedText, identity_normalized

# A token: whitespace, a number with its separators ("433,594.07", "4.2"), a word, or one
# punctuation mark -- so an amount or a clause number changes whole, not digit group by group.
_TOKEN = re.compile(r"\s+|\d[\d.,]*\d|\w+|[^\w\s]")
_BREAKS = re.compile(r"\n|[^\n]+")
# whitespace the one-for-one pass leaves as it is (str.isspace, but no space of normalize's)
OTHER_SPACE = re.compile("[\x1c-\x1f]")


def word_diff(
    old: str, new: str, *, old_breaks: bool = True, literal: bool = False
) -> list[tuple[str, int, int, str]]:
    """Minimal word-level changes turning ``old`` into ``new``: (kind, start, end, new text).

    Offsets are into ``old``; tokens compare under the tolerant normalisation, so a quote or
    dash that differs only typographically is not a change -- but a line break (a paragraph
    mark) is not a space.  With ``old_breaks=False`` the line breaks of ``old`` compare as
    plain spaces (for text that matched an anchor written without them).  ``kind`` is
    insert, delete or replace; an insert has start == end.  Two replacements separated only
    by one space are written as one (``Tenant shall`` -> ``Landlord will``).  ``literal``:
    tokens compare exactly (a curly quote, a second space, an NBSP are changes).
    """
    if literal:
        a, a_keys = _literal_tokens(old)
        b, b_keys = _literal_tokens(new)
    else:
        a, a_keys = tokens(old, breaks=old_breaks)
        b, b_keys = tokens(new, breaks=True)
    merged: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in diff_opcodes(a_keys, b_keys):
        if (
            tag == "replace"
            and len(merged) >= 2
            and merged[-2][0] == "replace"
            and merged[-1][0] == "equal"
            and merged[-1][2] - merged[-1][1] == 1
            and a_keys[merged[-1][1]] == " "
        ):
            merged.pop()
            first = merged.pop()
            merged.append(("replace", first[1], i2, first[3], j2))
        else:
            merged.append((tag, i1, i2, j1, j2))
    changes = _slide([m for m in merged if m[0] != "equal"], a_keys, b_keys)
    ops: list[tuple[str, int, int, str]] = []
    for kind, k1, k2, m1, m2 in changes:
        s, e = _span(a, len(old), k1, k2)
        ns, ne = _span(b, len(new), m1, m2)
        ops.append((kind, s, e, new[ns:ne]))
    return ops


def diff_opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """``difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()``, the same list,
    about four times faster on the token lists of an edit.

    difflib's algorithm, step for step: the longest matching block (the earliest in ``a`` of
    the longest, then the earliest in ``b``), then the same on each side of it, adjacent blocks
    joined.  Only the longest-block search differs: each distinct token becomes one character,
    and :func:`_longest_match` asks ``str.find`` (C speed) whether a block one longer than the
    best so far starts at each position, instead of difflib's per-pair Python loop.
    """
    distinct = dict.fromkeys(a)
    distinct.update(dict.fromkeys(b))
    if len(distinct) > _MAX_CODES:  # far beyond any anchor; difflib itself has no such limit
        slow: list[tuple[str, int, int, int, int]] = [
            *difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        ]
        return slow
    codes = dict(zip(distinct, map(chr, range(_CODE_BASE, _CODE_BASE + len(distinct))), strict=True))
    sa = "".join(map(codes.__getitem__, a))
    sb = "".join(map(codes.__getitem__, b))
    la, lb = len(a), len(b)
    queue = [(0, la, 0, lb)]
    blocks: list[tuple[int, int, int]] = []
    while queue:
        alo, ahi, blo, bhi = queue.pop()
        i, j, k = _longest_match(sa, sb, alo, ahi, blo, bhi)
        if k:
            blocks.append((i, j, k))
            if alo < i and blo < j:
                queue.append((alo, i, blo, j))
            if i + k < ahi and j + k < bhi:
                queue.append((i + k, ahi, j + k, bhi))
    blocks.sort()
    joined: list[tuple[int, int, int]] = []
    i1 = j1 = k1 = 0
    for i2, j2, k2 in blocks:
        if i1 + k1 == i2 and j1 + k1 == j2:
            k1 += k2
        else:
            if k1:
                joined.append((i1, j1, k1))
            i1, j1, k1 = i2, j2, k2
    if k1:
        joined.append((i1, j1, k1))
    joined.append((la, lb, 0))
    ops: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for ai, bj, size in joined:
        if i < ai and j < bj:
            ops.append(("replace", i, ai, j, bj))
        elif i < ai:
            ops.append(("delete", i, ai, j, bj))
        elif j < bj:
            ops.append(("insert", i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            ops.append(("equal", ai, i, bj, j))
    return ops


# The characters tokens are coded as (below the surrogates, above ASCII for readable dumps).
_CODE_BASE = 0x100
_MAX_CODES = 0xD800 - _CODE_BASE


def _longest_match(a: str, b: str, alo: int, ahi: int, blo: int, bhi: int) -> tuple[int, int, int]:
    """difflib's ``find_longest_match`` without junk: the longest block common to
    ``a[alo:ahi]`` and ``b[blo:bhi]``, the earliest in ``a`` of those, the earliest in ``b``
    for that; ``(alo, blo, 0)`` when there is none."""
    find = b.find
    best_i, best = alo, 0
    i = alo
    while i + best < ahi:
        if find(a[i : i + best + 1], blo, bhi) >= 0:
            k = best + 1
            while i + k < ahi and find(a[i : i + k + 1], blo, bhi) >= 0:
                k += 1
            best_i, best = i, k
        i += 1
    if not best:
        return alo, blo, 0
    return best_i, find(a[best_i : best_i + best], blo, bhi), best


def _slide(
    changes: list[tuple[str, int, int, int, int]], a_keys: list[str], b_keys: list[str]
) -> list[tuple[str, int, int, int, int]]:
    """Slide a pure insertion or deletion that starts with a space past the equal space after
    it, so changes start at a word: "pay rent" -> "pay all rent" inserts "all ", not " all"."""
    out = []
    for n, (kind, i1, i2, j1, j2) in enumerate(changes):
        limit = changes[n + 1][1] if n + 1 < len(changes) else len(a_keys) + 1
        if kind == "insert":
            while j1 < j2 and b_keys[j1] == " " and i1 + 1 < limit and a_keys[i1] == " ":
                i1, i2, j1, j2 = i1 + 1, i2 + 1, j1 + 1, j2 + 1
        elif kind == "delete":
            while a_keys[i1] == " " and i2 + 1 < limit and a_keys[i2] == " ":
                i1, i2, j1, j2 = i1 + 1, i2 + 1, j1 + 1, j2 + 1
        out.append((kind, i1, i2, j1, j2))
    return out


def tokens(text: str, *, breaks: bool) -> tuple[list[tuple[int, int]], list[str]]:
    """The tokens of ``text`` as original-offset spans, and the keys they compare by.

    With ``breaks``, each line break in a stretch of whitespace is a token of its own (a
    paragraph mark), and the spaces around it are tokens apart.
    """
    spans: list[tuple[int, int]] = []
    keys: list[str] = []
    translated = identity_normalized(text)
    if translated is not None:
        # Nothing collapsed or expanded (one identity segment): normalised offsets are the
        # original's, and as the tokens cover every character they follow one another.
        found = _TOKEN.findall(translated)
        if not breaks or "\n" not in text:  # no break tokens: whole-list operations
            ends = list(accumulate(map(len, found)))
            starts = [0, *ends]  # one longer than ends: zip stops at the last token
            spans = list(zip(starts, ends, strict=False))
            if OTHER_SPACE.search(translated) is None:
                # every whitespace token is one plain space already (the text was mapped
                # one-for-one, no two spaces in a row): the tokens are their own keys
                return spans, found
            return spans, [" " if k.isspace() else k for k in found]
        s = 0
        for key in found:
            e = s + len(key)
            if not key.isspace():
                spans.append((s, e))
                keys.append(key)
            elif not breaks or "\n" not in text[s:e]:
                spans.append((s, e))
                keys.append(" ")
            else:
                _break_tokens(text, s, e, spans, keys)
            s = e
        return spans, keys
    return mapped_tokens(text, breaks=breaks)


def mapped_tokens(text: str, *, breaks: bool) -> tuple[list[tuple[int, int]], list[str]]:
    """:func:`tokens` for any text, through the normalised text's offset map (what the
    faster paths of :func:`tokens` must agree with)."""
    spans: list[tuple[int, int]] = []
    keys: list[str] = []
    norm = NormalizedText.build(text)
    for m in _TOKEN.finditer(norm.text):
        s, e = norm.orig_start(m.start()), norm.orig_end(m.end())
        key = m.group()
        if not key.isspace() or not breaks or "\n" not in text[s:e]:
            spans.append((s, e))
            keys.append(" " if key.isspace() else key)
            continue
        _break_tokens(text, s, e, spans, keys)
    return spans, keys


_LITERAL_TOKEN = re.compile(r"\n|[^\S\n]+|\d[\d.,]*\d|\w+|[^\w\s]")


def _literal_tokens(text: str) -> tuple[list[tuple[int, int]], list[str]]:
    """The tokens of ``text`` compared as written: each line break one token, every other
    whitespace run one (its key the run itself), numbers, words, punctuation marks."""
    spans: list[tuple[int, int]] = []
    keys: list[str] = []
    for m in _LITERAL_TOKEN.finditer(text):
        spans.append(m.span())
        keys.append(m.group())
    return spans, keys


def _break_tokens(text: str, s: int, e: int, spans: list[tuple[int, int]], keys: list[str]) -> None:
    """The tokens of whitespace ``text[s:e]`` holding a line break: each break one token, the
    stretches around it others.  Only invisible characters (a soft hyphen) next to a break are
    not a space of their own -- a space in the new text would "keep" them instead of itself --
    but part of the token before them (or of the break, when nothing comes before)."""
    pending = -1  # where invisible characters that start the text wait for the next token
    for piece in _BREAKS.finditer(text, s, e):
        chunk = piece.group()
        if chunk != "\n" and not any(c.isspace() for c in chunk):
            if spans:
                spans[-1] = (spans[-1][0], piece.end())
            elif pending < 0:
                pending = piece.start()
            continue
        spans.append((piece.start() if pending < 0 else pending, piece.end()))
        keys.append("\n" if chunk == "\n" else " ")
        pending = -1


def _span(tokens: list[tuple[int, int]], size: int, i: int, j: int) -> tuple[int, int]:
    if i < j:
        return tokens[i][0], tokens[j - 1][1]
    at = tokens[i][0] if i < len(tokens) else size
    return at, at
