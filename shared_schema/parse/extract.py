"""Finding the JSON in a model's prose: fences, candidate starts, the tolerant decoder and its repairs.

Generic to both replies: :func:`_find` decodes the candidates a flavour (edits, or summary points)
recognises and chooses the value that holds its entries; the :class:`_Tally` of notes, the
:class:`ParseLimits` that bound the work, and the small helpers that describe what was read
(:func:`_kind`, :func:`_raw`, :func:`_show`) live here too.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from ..rules import XML_UNSAFE
from .aliases import _key_pattern


@dataclass(frozen=True)
class ParseLimits:
    """Bounds that keep a hostile reply from costing more than a clear ``None``."""

    max_chars: int = 50_000_000  # longer replies give None (bytes: 4 bytes a character)
    max_edits: int = 5_000  # later edits are refused one by one
    max_depth: int = 64  # deeper JSON nesting gives None
    max_points: int = 5_000  # later summary points are refused one by one
    max_candidates: int = 10_000  # JSON start positions tried per search
    max_values: int = 1_000_000  # JSON objects, numbers, lists and strings (by brackets and quotes)


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


def _unsafe_reason(name: str, value: str) -> str | None:
    found = XML_UNSAFE.search(value)
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
