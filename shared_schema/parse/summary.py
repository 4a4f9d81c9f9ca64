"""Summary entries: a found JSON value read as a :class:`~shared_schema.models.SummaryReply`.

The summary text, its points, and each point's quotes.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..models import (
    SummaryPoint,
    SummaryReply,
)
from .aliases import _POINT_FIELDS, _POINTS_KEYS, _SUMMARY_KEYS, _norm
from .edits import _entries
from .extract import (
    ParseLimits,
    _duplicates,
    _ignored,
    _kind,
    _Reading,
    _Refused,
    _show,
    _Tally,
    _unsafe_reason,
)
from .fields import validation_reason


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
        summary=reading.extra or "",
        points=[p for _, p in points],
        invalid=[i.model() for i in invalid],
        notes=tally.render(),
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
        return validation_reason(err)


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
