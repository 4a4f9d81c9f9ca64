"""Tolerant parsing of model replies: find the JSON, undo the usual variations, keep what is usable.

The JSON is looked for in fenced blocks first (any tag: ```json, ```python, ~~~), then in the
whole text.  Candidate starts (``{"``, ``[{`` ...) are decoded with ``raw_decode`` and the value
that actually holds edits (or points) wins, so braces in prose ("clause {4.2}") cannot derail it.
Each coercion is recorded in ``notes``; each entry present but unusable is listed in ``invalid``
(index, reason, raw value) and the valid entries keep their order.

``None`` means nothing could be read: empty text, no JSON, broken or truncated JSON, JSON without
edits (or points), or a reply refused as a whole: over ``max_chars``, nested deeper than
``max_depth``, more than ``max_values`` JSON values, a container key given twice, two different
lists of edits, broken JSON anywhere in the searched text that holds edit (or point) keys.
Repaired with a note: trailing commas, // and /* */ comments, raw line breaks inside strings.

Coercions refused as unsafe:

* invalid UTF-8 bytes become lone surrogates, so only the entries holding them are refused;
* entries beyond ``max_edits`` (``max_points``) are refused one by one, unread;
* a missing or ``null`` replacement is never read as a deletion; ``delete`` with a replacement
  text, an unknown ``action`` and aliases that disagree refuse the entry;
* fields whose loss would change the edit (``position``, ``insert_after``, ``regex``,
  ``occurrence`` ...) refuse the entry; fields whose loss only makes it stricter (``count``,
  ``replace_all``, ``confidence`` ...) are dropped with a note, so a replace-all still needs
  ``expected_matches``;
* numbers never become anchor or replacement text; a float ``section`` (4.10 or 4.1?) is refused.
"""

from __future__ import annotations

import codecs
import functools
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, TypeVar

from pydantic import ValidationError

from .models import (
    MAX_SECTION,
    Edit,
    EditBatch,
    InvalidEntry,
    SummaryPoint,
    SummaryReply,
    xml_unsafe_character,
)

T = TypeVar("T")


@dataclass(frozen=True)
class ParseLimits:
    """Bounds that keep a hostile reply from costing more than a clear ``None``."""

    max_chars: int = 50_000_000  # longer replies give None (bytes: 4 bytes a character)
    max_edits: int = 5_000  # later edits are refused one by one
    max_depth: int = 64  # deeper JSON nesting gives None
    max_points: int = 5_000  # later summary points are refused one by one
    max_candidates: int = 10_000  # JSON start positions tried per search
    max_values: int = 1_000_000  # JSON objects, numbers, lists and strings (by brackets and quotes)


def parse_edit_reply(text: str | bytes, limits: ParseLimits | None = None) -> EditBatch | None:
    """Read a model's proposed edits from its reply; ``None`` when no edits can be read at all."""
    limits = limits or ParseLimits()
    found = _find(text, limits, _EDITS)
    return None if found is None else _edit_batch(*found, limits)


def parse_summary_reply(text: str | bytes, limits: ParseLimits | None = None) -> SummaryReply | None:
    """Read a model's summary from its reply; ``None`` when no summary can be read at all."""
    limits = limits or ParseLimits()
    found = _find(text, limits, _SUMMARY)
    return None if found is None else _summary_reply(*found, limits)


# ---------------------------------------------------------------------------------------------
# Field names


def _norm(key: str) -> str:
    return key.lower().replace("_", "").replace("-", "").replace(" ", "")


_EDIT_FIELDS: dict[str, str] = {
    **dict.fromkeys(
        [
            "anchor",
            "find",
            "search",
            "oldtext",
            "original",
            "quote",
            "targettext",
            "oldstring",
            "oldstr",
            "originaltext",
            "anchortext",
            "findtext",
            "searchtext",
        ],
        "anchor",
    ),
    **dict.fromkeys(
        [
            "replacement",
            "replace",
            "newtext",
            "revised",
            "newstring",
            "suggestion",
            "newstr",
            "replacementtext",
            "revisedtext",
            "suggestedtext",
            "replacewith",
        ],
        "replacement",
    ),
    **dict.fromkeys(["rationale", "reason", "explanation", "comment", "justification"], "rationale"),
    **dict.fromkeys(["expectedmatches"], "expected_matches"),
    **dict.fromkeys(["section", "clause", "sectionnumber", "clausenumber"], "section"),
    **dict.fromkeys(["id", "editid"], "id"),
    **dict.fromkeys(["text", "paragraphtext", "newparagraph", "newparagraphs", "content"], "text"),
    **dict.fromkeys(["level", "levelchange", "indent"], "level"),
    **dict.fromkeys(["action", "op", "operation"], "action"),
    **dict.fromkeys(
        ["revisionid", "changeid", "trackedchangeid", "revid", "rid", "revisionnumber"], "revision_id"
    ),
    **dict.fromkeys(["author", "revisionauthor", "authorname", "changeauthor"], "author"),
    **dict.fromkeys(
        ["commentid", "parentid", "parentcommentid", "replyto", "inreplyto", "cid", "thread", "threadid"],
        "comment_id",
    ),
    **dict.fromkeys(["type", "kind", "edittype", "changetype"], "kind"),
}
# Fields whose meaning an Edit cannot carry: dropping them would apply a different edit.
_MEANING_CHANGING = frozenset(
    [
        "position",
        "insertposition",
        "placement",
        "where",
        "insert",
        "insertafter",
        "insertbefore",
        "inserttext",
        "append",
        "prepend",
        "regex",
        "isregex",
        "useregex",
        "pattern",
        "occurrence",
        "occurrenceindex",
        "nth",
        "matchindex",
        "instance",
    ]
)
_DELETE_ACTIONS = frozenset(["delete", "remove"])
_REPLACE_ACTIONS = frozenset(["replace", "modify", "change", "edit", "update"])
_INSERT_ACTIONS = {
    **dict.fromkeys(["insert_after", "insertafter", "add_after", "insert_below"], "insert_after"),
    **dict.fromkeys(["insert_before", "insertbefore", "add_before", "insert_above"], "insert_before"),
}
_OTHER_ACTIONS = {
    **dict.fromkeys(
        ["accept", "approve", "accept_change", "accept_revision", "accept_changes", "accept_all"],
        "accept",
    ),
    **dict.fromkeys(
        ["reject", "decline", "reject_change", "reject_revision", "reject_changes", "reject_all"],
        "reject",
    ),
    **dict.fromkeys(["comment", "add_comment", "annotate", "new_comment"], "comment"),
    **dict.fromkeys(["reply", "respond", "reply_to_comment", "answer", "comment_reply"], "reply"),
    **dict.fromkeys(
        ["resolve", "mark_resolved", "resolve_comment", "resolve_thread", "done", "mark_done"],
        "resolve",
    ),
}
_ACTION_WORDS = re.compile(
    r"insert|add|append|prepend|comment|move|format|highlight|split|merge|annotat|note"
)
_EDIT_CONTAINERS = frozenset(
    ["edits", "redlines", "changes", "proposededits", "proposedchanges", "suggestededits"]
)
_REVISION_KEYS = frozenset(["revision", "documentrevision", "docrevision", "revisionid"])

_SUMMARY_KEYS = frozenset(["summary", "overview", "executivesummary", "summarytext", "tldr"])
_POINTS_KEYS = frozenset(["points", "keypoints", "highlights", "findings", "keyfindings", "mainpoints"])
_POINT_FIELDS: dict[str, str] = {
    **dict.fromkeys(["title", "heading", "name", "topic", "header", "label"], "title"),
    **dict.fromkeys(
        [
            "text",
            "body",
            "detail",
            "details",
            "description",
            "content",
            "explanation",
            "point",
            "summary",
        ],
        "text",
    ),
    **dict.fromkeys(
        [
            "quotes",
            "quote",
            "citation",
            "citations",
            "supportingquotes",
            "evidence",
            "excerpts",
            "sourcequotes",
        ],
        "quotes",
    ),
}


@functools.cache
def _key_pattern(names: frozenset[str]) -> re.Pattern[str]:
    """A regex for a quoted JSON key spelling one of ``names`` in any case, with _ - or space
    (compiled when first needed: only broken JSON is searched with it, and compiling takes as
    long as parsing a reply)."""
    spelled = ("[_\\- ]?".join(re.escape(ch) for ch in name) for name in sorted(names))
    return re.compile('"(?:' + "|".join(spelled) + ')"[ \\t\\r\\n]*:', re.IGNORECASE)


# ---------------------------------------------------------------------------------------------
# Small helpers


def _show(value: str, limit: int = 60) -> str:
    """Quote text from the reply for a note or reason: short, with unsafe characters escaped."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float | _HugeNumber):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


# The characters ``models.xml_unsafe_character`` refuses, as one regex (fast on a 10 MB anchor).
_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _unsafe_reason(name: str, value: str) -> str | None:
    found = _XML_UNSAFE.search(value)
    if found is None:
        return None
    bad = found.group()
    if 0xDC80 <= ord(bad) <= 0xDCFF:
        return f"the {name} holds bytes that are not valid UTF-8"
    return f"the {name} contains the character U+{ord(bad):04X}, which a Word document cannot hold"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _ignored(keys: list[str]) -> str:
    return f"ignored top-level field{'s' if len(keys) > 1 else ''} {', '.join(keys)}"


def _raw(value: Any, depth: int = 0) -> Any:
    """A JSON-safe, size-bounded copy of an entry for ``InvalidEntry.raw``."""
    if isinstance(value, str):
        text = value if len(value) <= 2_000 else value[:2_000] + "…"
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, _HugeNumber):
        return f"<a number with {value.digits} digits>"
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if depth >= 6:
        return "…"
    if isinstance(value, list):
        kept = [_raw(item, depth + 1) for item in islice(value, 50)]
        if len(value) > 50:
            kept.append(f"… {len(value) - 50} more")
        return kept
    if isinstance(value, dict):
        pairs_iter = _numbered(value.pairs) if isinstance(value, _Obj) else value.items()
        out = {_raw(k, depth + 1): _raw(v, depth + 1) for k, v in islice(pairs_iter, 50)}
        if len(value) > 50:
            out["…"] = f"{len(value) - 50} more keys"
        return out
    return repr(value)


def _numbered(pairs: list[tuple[str, Any]]) -> Iterable[tuple[str, Any]]:
    """Every pair of an object with repeated keys, the repeats renamed ``key (2)``, ``key (3)``."""
    seen: dict[str, int] = {}
    for key, value in pairs:
        seen[key] = seen.get(key, 0) + 1
        yield (key if seen[key] == 1 else f"{key} ({seen[key]})"), value


class _Tally:
    """Notes for a reply: one-off sentences, then per-entry coercions with their counts."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.reply: list[str] = []
        self.counts: dict[str, int] = {}

    def add(self, note: str) -> None:
        if note not in self.reply:
            self.reply.append(note)

    def count(self, notes: Iterable[str]) -> None:
        for note in dict.fromkeys(notes):
            self.counts[note] = self.counts.get(note, 0) + 1

    def render(self, limit: int = 100) -> list[str]:
        """The notes in order, at most ``limit`` of them."""
        counted = [f"{note} in {n} {self.unit}{'' if n == 1 else 's'}" for note, n in self.counts.items()]
        notes = self.reply + counted
        if len(notes) > limit:
            notes = [*notes[: limit - 1], f"and {len(notes) - limit + 1} more notes"]
        return notes


# ---------------------------------------------------------------------------------------------
# Decoding


class _Refused(Exception):
    """The reply as a whole is hostile or ambiguous: the parse gives ``None``."""


class _Obj(dict[str, Any]):
    """A decoded JSON object that held some keys more than once (others decode to plain dicts)."""

    __slots__ = ("duplicates", "pairs")
    duplicates: tuple[str, ...]
    pairs: list[tuple[str, Any]]


@dataclass(frozen=True)
class _HugeNumber:
    """An integer too long for Python to convert (thousands of digits)."""

    digits: int


def _duplicates(value: Any) -> tuple[str, ...]:
    return value.duplicates if isinstance(value, _Obj) else ()


_CONTROL_NOTE = "accepted raw line breaks or tabs inside JSON strings"
_MAX_REPAIRS = 16
_WS = " \t\r\n"


class _Decoder:
    def __init__(self, limits: ParseLimits) -> None:
        self.limits = limits
        self.numbers = 0
        hooks: dict[str, Any] = {
            "object_pairs_hook": self._object,
            "parse_int": self._int,
            "parse_float": self._float,
        }
        self.strict = json.JSONDecoder(**hooks)
        self.lax = json.JSONDecoder(strict=False, **hooks)

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self._count()
        plain = dict(pairs)
        if len(plain) == len(pairs):
            return plain
        seen: set[str] = set()
        repeated: list[str] = []
        for key, _ in pairs:
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.add(key)
        obj = _Obj(pairs)
        obj.duplicates = tuple(repeated)
        obj.pairs = pairs
        return obj

    def _count(self) -> None:
        self.numbers += 1
        if self.numbers > self.limits.max_values:
            raise _Refused("too many objects and numbers")

    def _int(self, digits: str) -> int | _HugeNumber:
        self._count()
        try:
            return int(digits)
        except ValueError:  # longer than sys.get_int_max_str_digits()
            return _HugeNumber(len(digits.lstrip("-")))

    def _float(self, digits: str) -> float:
        self._count()
        return float(digits)

    def decode_at(self, text: str, start: int) -> tuple[Any, int, list[str]] | int:
        """The value starting at ``start`` as (value, end, repairs), or the position it broke at."""
        work, removed, decoder = text, 0, self.strict
        repairs: list[str] = []
        fixed = {"trailing comma": 0, "comment": 0}
        while True:
            try:
                value, end = decoder.raw_decode(work, start)
            except json.JSONDecodeError as err:
                if decoder is self.strict and err.msg.startswith("Invalid control character"):
                    decoder = self.lax
                    repairs.append(_CONTROL_NOTE)
                    continue
                cut = _repair(work, err.pos)
                if cut is None or sum(fixed.values()) >= _MAX_REPAIRS:
                    return err.pos + removed
                what, (a, b) = cut
                work = work[:a] + work[b:]
                removed += b - a
                fixed[what] += 1
                continue
            except RecursionError as err:
                raise _Refused("nested too deep") from err
            if _depth_exceeds(value, self.limits.max_depth):
                raise _Refused("nested too deep")
            repairs += [f"removed {_plural(n, what)}" for what, n in fixed.items() if n]
            return value, end + removed, repairs


def _repair(text: str, pos: int) -> tuple[str, tuple[int, int]] | None:
    """What to cut where the decoder stopped: a comma before ``]``/``}``, or a // or /* comment."""
    if text.startswith("//", pos):
        line_end = text.find("\n", pos)
        return "comment", (pos, len(text) if line_end < 0 else line_end)
    if text.startswith("/*", pos):
        close = text.find("*/", pos + 2)
        return None if close < 0 else ("comment", (pos, close + 2))
    if pos >= len(text) or text[pos] not in "]}":
        return None
    j = pos - 1
    while j >= 0 and pos - j < 1_000 and text[j] in _WS:
        j -= 1
    return ("trailing comma", (j, j + 1)) if j >= 0 and text[j] == "," else None


def _depth_exceeds(value: Any, max_depth: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > max_depth:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


# ---------------------------------------------------------------------------------------------
# Finding the JSON


@dataclass
class _Reading:
    """What one JSON value offers: its entries, container-level values and how it was read."""

    rank: int  # 3: entries in a container, 2: a single entry, 1: an explicit empty answer
    entries: list[Any]
    notes: list[str] = field(default_factory=list)
    extra: str | None = None  # the batch's revision, or the summary text


@dataclass
class _Found:
    reading: _Reading
    start: int
    end: int
    fence: _Fence | None
    repairs: list[str]


@dataclass(frozen=True)
class _Fence:
    marker: str
    tag: str
    open_start: int
    open_end: int
    close_start: int
    close_end: int

    @property
    def closed(self) -> bool:
        return self.close_start < self.close_end


@dataclass(frozen=True)
class _Flavour:
    unit: str
    read: Callable[[Any], _Reading | None]
    key_names: frozenset[str]

    @property
    def keys(self) -> re.Pattern[str]:
        return _key_pattern(self.key_names)


_START = re.compile(r'\{(?=[ \t\r\n]*["}/])|\[(?=[ \t\r\n]*[\[{"\]/])')
_FENCE_HINT = re.compile(r"```|~~~")
_FENCE_LINE = re.compile(r"(`{3,}|~{3,})([^\n]*)")
_INDENT = re.compile(r"[ \t]*")
_NONSPACE = re.compile(r"\S")
_MAX_FENCE_LINES = 2_000


def _find(text: str | bytes, limits: ParseLimits, flavour: _Flavour) -> tuple[_Reading, _Tally] | None:
    tally = _Tally(flavour.unit)
    source = _prepare(text, limits, tally)
    if source is None:
        return None
    decoder = _Decoder(limits)
    try:
        fences = _fences(source)
        chosen = None
        if fences:
            chosen = _choose(_scan_fences(source, fences, decoder, flavour), tally)
        if chosen is None:
            chosen = _choose(_scan(source, 0, None, decoder, flavour), tally)
    except _Refused:
        return None
    if chosen is None or len(chosen[0].entries) > limits.max_values:
        return None
    reading, used = chosen
    _note_wrapping(source, used, tally)
    for found in used:
        for note in found.repairs:
            tally.add(note)
    for note in reading.notes:
        tally.add(note)
    return reading, tally


def _prepare(text: str | bytes, limits: ParseLimits, tally: _Tally) -> str | None:
    if isinstance(text, bytes):
        if len(text) > 4 * limits.max_chars:
            return None
        if text.startswith(codecs.BOM_UTF8):
            text = text[len(codecs.BOM_UTF8) :]
            tally.add("removed a byte-order mark")
        if text.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            try:
                source = text.decode("utf-16")
            except UnicodeDecodeError:
                return None
            tally.add("decoded the reply from UTF-16")
        else:
            source = _decode_utf8(text, tally)
    else:
        source = text
    if len(source) > limits.max_chars:
        return None
    if source.startswith("\ufeff"):
        source = source[1:]
        tally.add("removed a byte-order mark")
    if _NONSPACE.search(source) is None:
        return None
    values = source.count("{") + source.count("[") + source.count('"') // 2
    if values > limits.max_values:
        return None
    return source


def _decode_utf8(data: bytes, tally: _Tally) -> str:
    """Decode UTF-8; invalid bytes become lone surrogates, which refuse the entries holding them."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        source = data.decode("utf-8", "surrogateescape")
    bad = sum(1 for _ in re.finditer("[\udc80-\udcff]", source))
    tally.add(
        f"the reply held {bad} invalid UTF-8 byte{'' if bad == 1 else 's'}; entries holding them were refused"
    )
    return source


def _fences(text: str) -> list[_Fence]:
    """The fenced blocks of a markdown reply; an unclosed fence runs to the end of the text."""
    fences: list[_Fence] = []
    opened: re.Match[str] | None = None
    pos = 0
    for _ in range(_MAX_FENCE_LINES):
        hint = _FENCE_HINT.search(text, pos)
        if hint is None:
            break
        line = _FENCE_LINE.match(text, hint.start())
        assert line is not None
        pos = line.end()
        line_start = text.rfind("\n", 0, line.start()) + 1
        if _INDENT.fullmatch(text, line_start, line.start()) is None:
            continue
        marker, info = line.group(1), line.group(2).strip()
        if opened is None:
            if not (marker[0] == "`" and "`" in info):
                opened = line
        elif marker[0] == opened.group(1)[0] and len(marker) >= len(opened.group(1)) and not info:
            fences.append(_fence(opened, line_start, line.end()))
            opened = None
    if opened is not None:
        fences.append(_fence(opened, len(text), len(text)))
    return fences


def _fence(opened: re.Match[str], close_start: int, close_end: int) -> _Fence:
    tag = opened.group(2).split()[0] if opened.group(2).split() else ""
    return _Fence(opened.group(1)[:3], tag, opened.start(), opened.end(), close_start, close_end)


def _scan_fences(text: str, fences: list[_Fence], decoder: _Decoder, flavour: _Flavour) -> list[_Found]:
    found: list[_Found] = []
    for fence in fences:
        start = min(fence.open_end + 1, fence.close_start)
        found += _scan(text[start : fence.close_start], start, fence, decoder, flavour)
    return found


def _scan(text: str, offset: int, fence: _Fence | None, decoder: _Decoder, flavour: _Flavour) -> list[_Found]:
    """Every JSON value in ``text`` that holds what ``flavour`` reads, in order."""
    found: list[_Found] = []
    pos, attempts, failed_work = 0, 0, 0
    while True:
        ahead = [i for i in (text.find("{", pos), text.find("[", pos)) if i >= 0]
        start = _START.search(text, min(ahead)) if ahead else None
        if start is None:
            break
        attempts += 1
        if attempts > decoder.limits.max_candidates or failed_work > 2 * len(text) + 1_000_000:
            break
        p = start.start()
        result = decoder.decode_at(text, p)
        if isinstance(result, int):
            end = max(result, p + 1)
            if flavour.keys.search(text, p, end + 1) is not None:
                raise _Refused("broken or truncated JSON that holds entries")
            failed_work += end - p
            pos = end
            continue
        value, end, repairs = result
        reading = flavour.read(value)
        if reading is not None:
            found.append(_Found(reading, offset + p, offset + end, fence, repairs))
        pos = end
    return found


def _choose(found: list[_Found], tally: _Tally) -> tuple[_Reading, list[_Found]] | None:
    """The container that holds entries, else every single entry joined, else an empty answer."""
    if not found:
        return None
    best = max(f.reading.rank for f in found)
    if best == 2:
        singles = [f for f in found if f.reading.rank == 2]
        if len(found) > len(singles):
            tally.add(f"ignored {_plural(len(found) - len(singles), 'empty JSON value')}")
        if len(singles) == 1:
            return singles[0].reading, singles
        reading = _Reading(
            2,
            [f.reading.entries[0] for f in singles],
            [f"joined {len(singles)} separate JSON objects into one list"],
        )
        return reading, singles
    first = next(f for f in found if f.reading.rank == best)
    others = sum(1 for f in found if f is not first and f.reading.rank >= 2)
    if others:
        tally.add(f"used the first JSON value holding {tally.unit}s and ignored {_plural(others, 'other')}")
    return first.reading, [first]


def _note_wrapping(text: str, used: list[_Found], tally: _Tally) -> None:
    spans = [(f.start, f.end) for f in used]
    fences = list(dict.fromkeys(f.fence for f in used if f.fence is not None))
    for fence in fences:
        spans += [(fence.open_start, fence.open_end), (fence.close_start, fence.close_end)]
    tags = [f"{fence.marker}{fence.tag}" for fence in fences]
    for tag in dict.fromkeys(tags):
        n = tags.count(tag)
        tally.add(f"removed a {tag} fence" if n == 1 else f"removed {n} {tag} fences")
    if any(not fence.closed for fence in fences):
        tally.add("the closing fence was missing")
    pos = 0
    for start, end in sorted(spans):
        if _NONSPACE.search(text, pos, start) is not None:
            tally.add("took the JSON from surrounding prose")
            return
        pos = max(pos, end)
    if _NONSPACE.search(text, pos) is not None:
        tally.add("took the JSON from surrounding prose")


# ---------------------------------------------------------------------------------------------
# Edits


def _is_edit(value: Any) -> bool:
    return isinstance(value, dict) and (
        any(_EDIT_FIELDS.get(_norm(k)) in ("anchor", "replacement") for k in value)
        or _other_action(value) is not None
    )


def _other_action(entry: dict[str, Any]) -> str | None:
    """The action (accept, reject, comment, reply, resolve) an entry names, or None."""
    for key, value in entry.items():
        if _EDIT_FIELDS.get(_norm(key)) == "action" and isinstance(value, str):
            found = _OTHER_ACTIONS.get(value.strip().lower().replace("-", "_").replace(" ", "_"))
            if found is not None:
                return found
    return None


def _read_edits(value: Any) -> _Reading | None:
    if isinstance(value, list):
        if not value:
            return _Reading(1, [], ["read a bare empty list as no edits"])
        if any(_is_edit(item) for item in value):
            return _Reading(3, value, ["read a bare list of edits"])
        return None
    if not isinstance(value, dict):
        return None
    container = _edit_container(value)
    if container is not None:
        return container
    if _is_edit(value):
        notes = ["read a single edit object as a batch of one"]
        revision_keys = [k for k in value if _norm(k) in _REVISION_KEYS]
        if _other_action(value) is not None:  # its revision_id names a tracked change
            revision_keys = [k for k in revision_keys if _EDIT_FIELDS.get(_norm(k)) != "revision_id"]
        revision = _revision(value, revision_keys, notes)
        entry = value
        if revision_keys:
            entry = {k: v for k, v in value.items() if k not in revision_keys}
        return _Reading(2, [entry], notes, revision)
    for key, inner in value.items():
        reading = _edit_container(inner) if isinstance(inner, dict) else None
        if reading is None and isinstance(inner, list) and any(_is_edit(x) for x in inner):
            reading = _Reading(3, inner)
        if reading is not None:
            reading.notes.insert(0, f"took the edits from inside {_show(key)}")
            return reading
    return None


def _edit_container(obj: dict[str, Any]) -> _Reading | None:
    keys = [k for k in obj if _norm(k) in _EDIT_CONTAINERS]
    if not keys:
        return None
    if any(_norm(k) in _EDIT_CONTAINERS for k in _duplicates(obj)):
        raise _Refused("duplicated list of edits")
    lists = [k for k in keys if isinstance(obj[k], list | dict) or obj[k] is None]
    if not lists:
        return None
    filled = [k for k in lists if obj[k]]
    if len(filled) > 1:
        raise _Refused("two different lists of edits")
    key = (filled or lists)[0]
    notes: list[str] = []
    if key != "edits":
        notes.append(f"read the edits from {_show(key)}")
    held = obj[key]
    if held is None:
        entries: list[Any] = []
        notes.append(f"read {_show(key)}: null as no edits")
    elif isinstance(held, dict):
        entries = [held]
        notes.append(f"read a single edit object under {_show(key)} as a list of one")
    else:
        entries = held
    revision_keys = [k for k in obj if _norm(k) in _REVISION_KEYS]
    revision = _revision(obj, revision_keys, notes)
    ignored = [_show(k) for k in obj if k not in keys and k not in revision_keys]
    if ignored:
        notes.append(_ignored(ignored))
    return _Reading(3 if entries else 1, entries, notes, revision)


def _revision(obj: dict[str, Any], keys: list[str], notes: list[str]) -> str | None:
    if len(keys) != 1 or keys[0] in _duplicates(obj):
        if keys:
            notes.append("ignored the revision: the reply gives it more than once")
        return None
    value = obj[keys[0]]
    if isinstance(value, int) and not isinstance(value, bool):
        notes.append("converted the numeric revision to text")
        value = str(value)
    if isinstance(value, str) and xml_unsafe_character(value) is None:
        if keys[0] != "revision":
            notes.append(f"renamed field {_show(keys[0])} to 'revision'")
        return value
    if value is not None:
        notes.append(f"ignored the revision: it is {_kind(value)} that cannot be used")
    return None


def _entries(
    reading: _Reading,
    tally: _Tally,
    limit: int,
    beyond: Callable[[int], str],
    read: Callable[[Any, list[str]], T | str],
) -> tuple[list[tuple[int, T]], list[InvalidEntry]]:
    """Every entry of ``reading`` read with ``read`` (which returns the shape, or the reason
    it cannot), with its position in the reply; entries past ``limit`` and unusable ones
    become invalid entries, with why."""
    kept: list[tuple[int, T]] = []
    invalid: list[InvalidEntry] = []
    for index, entry in enumerate(reading.entries):
        if index >= limit:
            invalid.append(InvalidEntry(index=index, reason=beyond(index)))
            continue
        notes: list[str] = []
        result = read(entry, notes)
        if isinstance(result, str):
            invalid.append(InvalidEntry(index=index, reason=result, raw=_raw(entry)))
        else:
            kept.append((index, result))
            tally.count(notes)
    return kept, invalid


def _edit_batch(reading: _Reading, tally: _Tally, limits: ParseLimits) -> EditBatch:
    edits, invalid = _entries(
        reading,
        tally,
        limits.max_edits,
        lambda i: (
            f"edit {i} is beyond the limit of {limits.max_edits} edits per reply; send it in another batch"
        ),
        _read_edit,
    )
    placed = [edit.placed(index) for index, edit in edits]
    return EditBatch(edits=placed, invalid=invalid, notes=tally.render(), revision=reading.extra)


def _read_edit(entry: Any, notes: list[str]) -> Edit | str:
    """An Edit from one entry of the reply, or the reason it cannot be used."""
    if not isinstance(entry, dict):
        return f"the entry is {_kind(entry)}, not an object with 'anchor' and 'replacement'"
    if _duplicates(entry):
        return f"duplicate key {_show(_duplicates(entry)[0])}: the model's intent is unknown"
    fields: dict[str, tuple[str, Any]] = {}
    for key, value in entry.items():
        name = _EDIT_FIELDS.get(_norm(key))
        if name is None:
            if _norm(key) in _MEANING_CHANGING:
                return (
                    f"field {_show(key)} asks for something an edit cannot do (an edit "
                    "replaces its anchor); dropping it would apply a different edit"
                )
            notes.append(f"dropped unknown field {_show(key)}")
            continue
        if name in fields:
            other, seen = fields[name]
            if seen != value or type(seen) is not type(value):
                return f"{_show(other)} and {_show(key)} differ: the model's intent is unknown"
        else:
            fields[name] = (key, value)
        if key != name and name not in ("action", "kind"):
            notes.append(f"renamed field {_show(key)} to {name!r}")
    values = {name: value for name, (_, value) in fields.items()}

    action = _action(fields, notes)
    if action in ("insert_after", "insert_before"):
        return _read_insert(action, fields, values, notes)
    if action is not None and action in _OTHER_ACTIONS.values():
        return _read_other(action, fields, values, notes)
    if action is not None and action not in ("delete", "replace"):
        return action
    for extra in ("text", "level", "revision_id", "author", "comment_id"):
        if extra in fields and values[extra] is None:
            del values[extra]  # null, as strict structured output sends every unused field
        elif extra in fields:
            takes = "an insert action" if extra in ("text", "level") else "another action"
            notes.append(f"dropped field {_show(fields[extra][0])} (only {takes} takes it)")
            del values[extra]
    anchor = values.get("anchor")
    if "anchor" not in values:
        return "no anchor: quote the exact text to change in 'anchor'"
    if not isinstance(anchor, str):
        return f"the anchor is {_kind(anchor)}, not text"
    if not anchor:
        return "the anchor is empty; quote the text to change"
    replacement = values.get("replacement")
    if action == "delete":
        if isinstance(replacement, str) and replacement:
            return "the action is 'delete' but a replacement text is given: the intent is unknown"
        if replacement not in (None, ""):
            return f"the replacement is {_kind(replacement)}, not text"
        replacement = ""
    elif "replacement" not in values:
        return "no replacement: give the new text in 'replacement' (\"\" deletes the anchor)"
    elif replacement is None:
        return 'the replacement is null; send "" to delete the anchor'
    elif not isinstance(replacement, str):
        return f"the replacement is {_kind(replacement)}, not text"

    rationale = values.get("rationale")
    if not isinstance(rationale, str | None):
        notes.append("dropped a rationale that was not text")
        rationale = None
    expected = _expected_matches(values.get("expected_matches"), notes)
    if isinstance(expected, str):
        return expected
    shared = _section_and_id(values, notes)
    if isinstance(shared, str):
        return shared
    section, ident = shared
    if not isinstance(ident, str | None):
        return f"the id is {_kind(ident)}, not text"

    texts = {
        "anchor": anchor,
        "replacement": replacement,
        "rationale": rationale,
        "section": section,
        "id": ident,
    }
    for name, text in texts.items():
        reason = _unsafe_reason(name, text) if text is not None else None
        if reason is not None:
            return reason
    try:
        return Edit(
            anchor=anchor,
            replacement=replacement,
            rationale=rationale,
            expected_matches=expected,
            section=section,
            id=ident,
        )
    except ValidationError as err:
        return _validation_reason(err)


def _read_insert(
    action: str, fields: dict[str, tuple[str, Any]], values: dict[str, Any], notes: list[str]
) -> Edit | str:
    """An ``insert_after`` / ``insert_before`` entry: whole new paragraphs beside the one
    holding ``anchor``, whose text is never touched."""
    anchor = values.get("anchor")
    if not isinstance(anchor, str) or not anchor.strip():
        return f"{action} needs an anchor: quote text from the paragraph to insert {action[7:]}"
    text = values.get("text")
    if text is None and isinstance(values.get("replacement"), str):
        text = values["replacement"]
        notes.append(f"read the replacement of an {action} entry as its text")
    if not isinstance(text, str) or not text.strip():
        return f"{action} needs the new paragraphs' text in 'text'"
    level = values.get("level")
    levels = {None: 0, 0: 0, "0": 0, "": 0, "same": 0, 1: 1, "1": 1, "+1": 1, "down": 1, "sub": 1,
              -1: -1, "-1": -1, "up": -1, "parent": -1}  # fmt: skip
    if isinstance(level, bool) or level not in levels:
        return (
            f"the level is {json.dumps(level, default=str)[:40]}; give '+1' (a sub-clause), '-1' "
            "(the parent's level) or leave it out"
        )
    shared = _section_and_id(values, notes)
    if isinstance(shared, str):
        return shared
    section, ident = shared
    texts = {"anchor": anchor, "text": text, "rationale": values.get("rationale"),
             "section": section, "id": ident}  # fmt: skip
    for name, value in texts.items():
        if value is not None and not isinstance(value, str):
            return f"the {name} is {_kind(value)}, not text"
        reason = _unsafe_reason(name, value) if value is not None else None
        if reason is not None:
            return reason
    try:
        return Edit(
            anchor=anchor,
            replacement="",
            action=action,
            text=text,
            level=levels[level],
            rationale=texts["rationale"],
            section=texts["section"],
            id=texts["id"],
        )
    except ValidationError as err:
        return _validation_reason(err)


def _id_text(name: str, value: Any, notes: list[str]) -> str | None:
    """A revision or comment id as text (a whole number as its digits, with a note), or None
    when it cannot be one (the caller refuses)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        notes.append(f"converted a numeric {name} to text")
        return str(value)
    if isinstance(value, float):
        return None  # 12.0 or 1.20? not guessed
    if not isinstance(value, str) or not value.strip() or len(value) > 100:
        return None
    return value  # as written: the document's own id may be any text ("r12": see redline.match.decisions)


def _read_other(
    action: str, fields: dict[str, tuple[str, Any]], values: dict[str, Any], notes: list[str]
) -> Edit | str:
    """An accept / reject / comment / reply / resolve entry: a decision on the other side's
    tracked change (by ``revision_id``, or every one by ``author``), a comment on a quoted
    passage, a reply to a comment, a thread resolved."""
    wanted = {
        "accept": ("revision_id", "author", "expected_matches"),
        "reject": ("revision_id", "author", "expected_matches"),
        "comment": ("anchor", "text", "section", "expected_matches"),
        "reply": ("comment_id", "text"),
        "resolve": ("comment_id",),
    }[action]
    kept = {"rationale", "id", "action", "kind", *wanted}
    text = values.get("text")
    if action in ("comment", "reply") and text is None:
        for other in ("rationale",):  # a model's "comment": "..." (an alias of rationale)
            if isinstance(values.get(other), str) and values[other].strip():
                text = values.pop(other)
                notes.append(f"read the {other} of a {action} entry as its text")
                break
    for name in list(values):
        if name in kept or (name == "text" and action in ("comment", "reply")):
            continue
        if values[name] is None or (name == "replacement" and values[name] == ""):
            del values[name]  # null (strict structured output) or the "" an edit needs
            continue
        if name == "anchor" and action in ("accept", "reject", "reply", "resolve"):
            notes.append(f"dropped the anchor of an entry whose action is {action!r} (found by its id)")
            del values[name]
            continue
        return (
            f"{action} takes {', '.join(wanted)}, not {name!r}: the intent is unknown"
            if name in ("replacement", "text", "level", "revision_id", "author", "comment_id")
            else f"{action} takes no {name!r}"
        )
    revision_id = comment_id = author = None
    if action in ("accept", "reject"):
        given = [n for n in ("revision_id", "author") if values.get(n) is not None]
        if len(given) != 1:
            return (
                f"{action} needs exactly one of 'revision_id' (one tracked change, as [r12 Name] "
                "shows it) and 'author' (every change by that author)"
            )
        if given == ["revision_id"]:
            revision_id = _id_text("revision_id", values["revision_id"], notes)
            if revision_id is None:
                return (
                    f"the revision_id is {_kind(values['revision_id'])} that names no tracked "
                    "change; give it as the marked-up text shows it ('12' for [r12 Name])"
                )
        else:
            author = values["author"]
            if not isinstance(author, str) or not author.strip():
                return "the author is not a name; give it as the marked-up text shows it"
    if action in ("reply", "resolve"):
        if values.get("comment_id") is None:
            return f"{action} needs 'comment_id': the comment, as [c4 Name] shows it ('4')"
        comment_id = _id_text("comment_id", values["comment_id"], notes)
        if comment_id is None:
            return (
                f"the comment_id is {_kind(values['comment_id'])} that names no comment; give "
                "it as the marked-up text shows it ('4' for [c4 Name])"
            )
    anchor = values.get("anchor") if action == "comment" else None
    if action == "comment" and (not isinstance(anchor, str) or not anchor.strip()):
        return "comment needs an anchor: quote the passage the comment is on"
    if action in ("comment", "reply") and (not isinstance(text, str) or not text.strip()):
        return f"{action} needs the comment's words in 'text'"
    if action not in ("comment", "reply"):
        text = None
    expected = _expected_matches(values.get("expected_matches"), notes)
    if isinstance(expected, str):
        return expected
    shared = _section_and_id(values, notes)
    if isinstance(shared, str):
        return shared
    section, ident = shared
    texts = {"anchor": anchor, "text": text, "rationale": values.get("rationale"), "section": section,
             "id": ident, "revision_id": revision_id, "author": author, "comment_id": comment_id}  # fmt: skip
    for name, value in texts.items():
        if value is not None and not isinstance(value, str):
            return f"the {name} is {_kind(value)}, not text"
        reason = _unsafe_reason(name, value) if value is not None else None
        if reason is not None:
            return reason
    try:
        return Edit(
            anchor=anchor or "",
            replacement="",
            action=action,
            text=text,
            expected_matches=expected,
            rationale=texts["rationale"],
            section=texts["section"],
            id=texts["id"],
            revision_id=revision_id,
            author=author,
            comment_id=comment_id,
        )
    except ValidationError as err:
        return _validation_reason(err)


def _section_and_id(values: dict[str, Any], notes: list[str]) -> tuple[str | None, Any] | str:
    """The two fields every kind of entry takes: its ``section`` (:func:`_read_section`) and
    its ``id`` (a whole number converted to text, with a note; any other kind is left for the
    caller's text check) -- or the reason to refuse the entry."""
    section, refused = _read_section(values.get("section"), notes)
    if refused is not None:
        return refused
    ident = values.get("id")
    if isinstance(ident, int) and not isinstance(ident, bool):
        notes.append("converted a numeric 'id' to text")
        ident = str(ident)
    return section, ident


def _read_section(section: Any, notes: list[str]) -> tuple[str | None, str | None]:
    """An entry's ``section`` as text (a whole number converted, with a note), and the reason
    to refuse the entry, if any: not text, empty, or longer than :data:`MAX_SECTION` -- the
    same for every action that takes one."""
    if isinstance(section, int) and not isinstance(section, bool):
        notes.append("converted a numeric section to text")
        section = str(section)
    elif not isinstance(section, str | None):
        return None, (
            f"the section is {_kind(section)}, not text; give the clause as displayed "
            "(a float cannot tell '4.10' from '4.1')"
        )
    if isinstance(section, str):
        if not section.strip():
            return None, (
                "the section is empty; name the clause as displayed ('4.2', 'Clause 4.2(b)'), or leave it out"
            )
        if len(section) > MAX_SECTION:
            return None, (
                f"the section is {len(section)} characters long; a section is named by its number "
                "or heading ('4.2', 'Schedule 2', 'Confidentiality'), at most "
                f"{MAX_SECTION} characters"
            )
    return section, None


def _action(fields: dict[str, tuple[str, Any]], notes: list[str]) -> str | None:
    """``"delete"``, ``"replace"``, ``None`` (no action given) or the reason to refuse."""
    found: list[tuple[str, str, str]] = []
    for name in ("action", "kind"):
        if name not in fields:
            continue
        key, value = fields[name]
        if value is None and name == "action":
            continue  # null: no action, as strict structured output sends an unused field
        if not isinstance(value, str):
            if name == "action":
                return f"the action is {_kind(value)}, not text"
            notes.append(f"dropped unknown field {_show(key)}")
            continue
        word = value.strip().lower().replace("-", "_").replace(" ", "_")
        if word in _DELETE_ACTIONS:
            found.append((key, value, "delete"))
        elif word in _INSERT_ACTIONS and name == "action":
            found.append((key, value, _INSERT_ACTIONS[word]))
        elif word in _OTHER_ACTIONS and name == "action":
            found.append((key, value, _OTHER_ACTIONS[word]))
        elif word in _REPLACE_ACTIONS:
            found.append((key, value, "replace"))
        elif name == "action" or _ACTION_WORDS.search(word):
            return f"unsupported action {_show(value)}: an edit can only replace or delete its anchor"
        else:
            notes.append(f"ignored {_show(key)} {_show(value)}")
    if not found:
        return None
    if len({action for _, _, action in found}) > 1:
        return f"{_show(found[0][0])} and {_show(found[1][0])} disagree: the intent is unknown"
    key, value, action = found[0]
    if action == "delete":
        notes.append(f"read {_show(key)} {_show(value)} as an empty replacement")
    elif action in ("insert_after", "insert_before") or action in _OTHER_ACTIONS.values():
        if value != action:
            notes.append(f"read {_show(key)} {_show(value)} as {action!r}")
    else:
        notes.append(f"read {_show(key)} {_show(value)} as a plain edit")
    return action


_DIGITS = re.compile("[0-9]{1,9}")


def _expected_matches(value: Any, notes: list[str]) -> int | str | None:
    """The count for a replace-all, ``None`` when absent, or the reason to refuse (a str)."""
    if value is None:
        return None
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
        notes.append("read a whole-number float expected_matches as an integer")
    elif isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        number = int(value.strip())
        notes.append("read a numeric-text expected_matches as an integer")
    elif isinstance(value, _HugeNumber):
        return f"expected_matches is a number with {value.digits} digits"
    if number is None or number < 1:
        shown = value if isinstance(value, int | float) else _kind(value)
        if isinstance(value, str):
            shown = _show(value)
        return f"expected_matches must be a whole number of at least 1, not {shown}"
    return number


def _validation_reason(err: ValidationError) -> str:
    parts = []
    for error in err.errors():
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------
# Summaries


def _is_point(value: Any) -> bool:
    return isinstance(value, dict) and any(_norm(k) in _POINT_FIELDS for k in value)


def _read_summary(value: Any) -> _Reading | None:
    if isinstance(value, list):
        if not value:
            return _Reading(1, [], ["read a bare empty list as a summary with no points"], "")
        if any(_is_point(item) or isinstance(item, str) for item in value):
            return _Reading(3, value, ["read a bare list of points, with no overall summary"], "")
        return None
    if not isinstance(value, dict):
        return None
    container = _summary_container(value)
    if container is not None:
        return container
    if _is_point(value):
        return _Reading(2, [value], ["read a single point object as a summary of one point"], "")
    for key, inner in value.items():
        reading = _summary_container(inner) if isinstance(inner, dict) else None
        if reading is not None:
            reading.notes.insert(0, f"took the summary from inside {_show(key)}")
            return reading
    return None


def _summary_container(obj: dict[str, Any]) -> _Reading | None:
    summary_keys = [k for k in obj if _norm(k) in _SUMMARY_KEYS]
    points_keys = [k for k in obj if _norm(k) in _POINTS_KEYS]
    texts = [k for k in summary_keys if isinstance(obj[k], str | list) or obj[k] is None]
    if not points_keys and not texts:
        return None
    if any(_norm(k) in _SUMMARY_KEYS | _POINTS_KEYS for k in _duplicates(obj)):
        raise _Refused("duplicated summary or points")
    if len([k for k in points_keys if obj[k]]) > 1 or len([k for k in texts if obj[k]]) > 1:
        raise _Refused("two different summaries or lists of points")
    notes: list[str] = []
    summary = ""
    if texts:
        key = next((k for k in texts if obj[k]), texts[0])
        summary = _summary_text(key, obj[key], notes)
    entries: list[Any] = []
    if points_keys:
        key = next((k for k in points_keys if obj[k]), points_keys[0])
        held = obj[key]
        if key != "points":
            notes.append(f"read the points from {_show(key)}")
        if isinstance(held, list):
            entries = held
        elif held is not None:
            entries = [held]
            notes.append(f"read {_show(key)} given as {_kind(held)} as a list of one")
    ignored = [_show(k) for k in obj if k not in texts and k not in points_keys]
    if ignored:
        notes.append(_ignored(ignored))
    return _Reading(3 if entries or summary else 1, entries, notes, summary)


def _summary_text(key: str, value: Any, notes: list[str]) -> str:
    if key != "summary":
        notes.append(f"renamed field {_show(key)} to 'summary'")
    if value is None:
        return ""
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            notes.append("ignored a summary that was a list of more than text")
            return ""
        notes.append("joined a list of summary paragraphs")
        value = "\n\n".join(value)
    if not isinstance(value, str):
        return ""
    reason = _unsafe_reason("summary", value)
    if reason is not None:
        notes.append(f"dropped the summary text: {reason}")
        return ""
    return value


def _summary_reply(reading: _Reading, tally: _Tally, limits: ParseLimits) -> SummaryReply:
    points, invalid = _entries(
        reading,
        tally,
        limits.max_points,
        lambda i: f"point {i} is beyond the limit of {limits.max_points} points per reply",
        _read_point,
    )
    return SummaryReply(
        summary=reading.extra or "", points=[p for _, p in points], invalid=invalid, notes=tally.render()
    )


def _read_point(entry: Any, notes: list[str]) -> SummaryPoint | str:
    """A SummaryPoint from one entry of the reply, or the reason it cannot be used."""
    if isinstance(entry, str):
        reason = _unsafe_reason("point", entry)
        if reason is not None:
            return reason
        if not entry.strip():
            return "the point is empty"
        notes.append("read plain text as a point without quotes")
        return SummaryPoint(text=entry)
    if not isinstance(entry, dict):
        return f"the point is {_kind(entry)}, not an object with 'title', 'text' and 'quotes'"
    if _duplicates(entry):
        return f"duplicate key {_show(_duplicates(entry)[0])}: the model's intent is unknown"
    texts: dict[str, tuple[str, str]] = {}
    quotes: list[str] = []
    for key, value in entry.items():
        name = _POINT_FIELDS.get(_norm(key))
        if name is None:
            notes.append(f"dropped unknown field {_show(key)}")
            continue
        if name == "quotes" and isinstance(value, str):
            notes.append(f"turned the single {_show(key)} into 'quotes'")
        elif key != name:
            notes.append(f"renamed field {_show(key)} to {name!r}")
        if name == "quotes":
            reason = _collect_quotes(value, quotes, notes)
            if reason is not None:
                return reason
            continue
        if value is None:
            value = ""
        if not isinstance(value, str):
            return f"the {name} is {_kind(value)}, not text"
        if name in texts and texts[name][1] != value:
            return f"{_show(texts[name][0])} and {_show(key)} differ: the model's intent is unknown"
        texts[name] = (key, value)
    title, text = texts.get("title", ("", ""))[1], texts.get("text", ("", ""))[1]
    if not (title.strip() or text.strip() or quotes):
        return "the point is empty: no title, text or quote"
    for name, value in [("title", title), ("text", text), *(("quote", q) for q in quotes)]:
        reason = _unsafe_reason(name, value)
        if reason is not None:
            return reason
    try:
        return SummaryPoint(title=title, text=text, quotes=list(dict.fromkeys(quotes)))
    except ValidationError as err:
        return _validation_reason(err)


def _collect_quotes(value: Any, quotes: list[str], notes: list[str]) -> str | None:
    """Add the quotes ``value`` holds to ``quotes``; the reason to refuse the point, if any."""
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    for n, item in enumerate(items):
        if isinstance(item, dict):
            inner = [v for k, v in item.items() if _norm(k) in ("quote", "text")]
            if len(inner) != 1 or not isinstance(inner[0], str):
                return f"quote {n} is an object without a single 'quote' text"
            notes.append("took a quote's text from an object")
            item = inner[0]
        if not isinstance(item, str):
            return f"quote {n} is {_kind(item)}, not text"
        if not item.strip():
            notes.append("dropped an empty quote")
            continue
        quotes.append(item)
    return None


_EDITS = _Flavour(
    "edit",
    _read_edits,
    frozenset({k for k, v in _EDIT_FIELDS.items() if v in ("anchor", "replacement")} | _EDIT_CONTAINERS),
)
_SUMMARY = _Flavour("point", _read_summary, frozenset(_POINT_FIELDS.keys() | _POINTS_KEYS))
