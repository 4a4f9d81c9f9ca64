"""``format`` entries: a tracked formatting change of the quoted characters (run keys) or of
the paragraph(s) holding them (``style``), read into an :class:`~shared_schema.models.Edit`
whose ``format`` is a :class:`~shared_schema.models.FormatSpec`.

What is read, and how:

* ``format`` is an object of the keys to change: ``bold``, ``italic``, ``strike``, ``caps``,
  ``small_caps`` (true / false); ``underline`` (true = ``"single"``, ``"double"``, false =
  ``"none"``); ``highlight`` (a Word colour name, ``"none"`` or false to remove); ``style`` (a
  paragraph style's name or id).  Key spellings are forgiven the way field names are
  (``smallCaps``, ``Small Caps``); an unknown key, an empty object, a value of the wrong kind is
  ``invalid``, naming the keys.
* ``null``: a key left out.  OpenAI's strict dialect sends every key of the object, null the
  ones not set -- so a null never removes anything; ``highlight: null`` alone (every other key
  left out, as a non-strict model writes "remove the highlight") is the one null read as
  ``"none"``, with a note.
* docx-redline's shape, the run keys at the entry's top level (``{"action": "format",
  "anchor": …, "bold": true}``), is read with a note.
* A ``format`` entry changes no text: a non-empty ``replacement`` or a ``text`` is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..records import EditRecord
from ..rules import FORMAT_KEYS, HIGHLIGHT_COLOURS
from .aliases import _norm
from .extract import _kind
from .fields import build_edit, expected_matches, section_and_id, texts_reason

if TYPE_CHECKING:
    from ..models import FormatSpec

_KEYS: dict[str, str] = {
    **{_norm(k): k for k in FORMAT_KEYS},
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "emphasis": "italic",
    "u": "underline", "underlined": "underline", "strikethrough": "strike", "struck": "strike",
    "allcaps": "caps", "capitals": "caps", "smallcapitals": "small_caps", "paragraphstyle": "style",
    "stylename": "style", "styleid": "style", "pstyle": "style",
}  # fmt: skip
_COLOURS = {c.lower(): c for c in HIGHLIGHT_COLOURS}
_COLOURS.update({"grey": "lightGray", "gray": "lightGray", "darkgrey": "darkGray", "lightgrey": "lightGray"})
_TOGGLES = ("bold", "italic", "strike", "caps", "small_caps")
_FORMAT_FIELDS = frozenset(["format", "formatting", "formats", "properties", "props"])


def format_key(key: str) -> str | None:
    """The format key a spelling names (``smallCaps`` -> ``small_caps``), or None."""
    return _KEYS.get(_norm(key))


def read_format(
    entry: dict[str, Any], values: dict[str, Any], notes: list[str]
) -> tuple[dict[str, Any], FormatSpec] | str:
    """The format entry's fields other than ``format`` (``values`` less what it took) and its
    :class:`FormatSpec`, or the reason the entry cannot be used."""
    raw = values.pop("format", None)
    top = {k: v for k, v in entry.items() if format_key(k) is not None and _norm(k) not in _FORMAT_FIELDS}
    if raw is None and top:
        raw = top
        shown = ", ".join(repr(k) for k in top)
        notes[:] = [n for n in notes if not any(n == f"dropped unknown field {k!r}" for k in top)]
        notes.append(f"read {shown} of a format entry as its 'format'")
    elif top:
        return (
            f"the format entry gives {', '.join(map(repr, top))} beside 'format': put every key in 'format'"
        )
    if raw is None:
        return (
            "format needs 'format': an object of the keys to change, e.g. {\"bold\": true} or "
            f'{{"style": "Heading 1"}} (keys: {", ".join(FORMAT_KEYS)})'
        )
    if not isinstance(raw, dict):
        return f"'format' must be an object of the keys to change ({', '.join(FORMAT_KEYS)})"
    spec: dict[str, Any] = {}
    strict = len(raw) >= len(FORMAT_KEYS)  # every key sent (OpenAI's strict dialect): null is "unset"
    for key, value in raw.items():
        name = format_key(key) if isinstance(key, str) else None
        if name is None:
            return f"'format' has the unknown key {key!r}; the keys are {', '.join(FORMAT_KEYS)}"
        if name in spec:
            return f"'format' gives {name!r} twice: the intent is unknown"
        if value is None:
            if name == "highlight" and not strict and len(raw) == 1:
                spec[name] = "none"
                notes.append("read 'highlight': null as 'none' (remove the highlight)")
            continue
        read = _value(name, value, notes)
        if read is None:
            return _wrong(name, value)
        spec[name] = read
    if not spec:
        return (
            "'format' sets nothing: give the keys to change, e.g. {\"bold\": true} "
            f"(keys: {', '.join(FORMAT_KEYS)}; null leaves a key as it is)"
        )
    from pydantic import ValidationError  # (a format entry is validated by its model)

    from ..models import FormatSpec

    try:
        return values, FormatSpec(**spec)
    except ValidationError as err:
        return "; ".join(e["msg"].removeprefix("Value error, ") for e in err.errors())


def _value(name: str, value: Any, notes: list[str]) -> Any:
    if name in _TOGGLES:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "on", "off"):
            notes.append(f"read {name} {value!r} as {value.strip().lower() in ('true', 'on')}")
            return value.strip().lower() in ("true", "on")
        return None
    if name == "underline":
        if isinstance(value, bool):
            return "single" if value else "none"
        if isinstance(value, str) and value.strip().lower() in ("single", "double", "none"):
            return value.strip().lower()
        return None
    if name == "highlight":
        if value is False:
            return "none"
        if isinstance(value, str):
            return _COLOURS.get(value.strip().replace(" ", "").replace("_", "").lower())
        return None
    if isinstance(value, str) and value.strip() and len(value) <= 253:  # style
        return value.strip()
    return None


def _wrong(name: str, value: Any) -> str:
    shown = repr(value)[:40]
    if name in _TOGGLES:
        return f"format {name!r} is {shown}; give true or false"
    if name == "underline":
        return f"format 'underline' is {shown}; give true, false, 'single', 'double' or 'none'"
    if name == "highlight":
        return (
            f"format 'highlight' is {shown}; give a Word highlight colour ("
            + ", ".join(HIGHLIGHT_COLOURS[:-1])
            + ") or 'none' to remove it"
        )
    return f"format 'style' is {shown}; give a paragraph style's name (e.g. 'Heading 1') or id"


def read_format_entry(
    entry: dict[str, Any],
    values: dict[str, Any],
    notes: list[str],
) -> EditRecord | str:
    """A ``format`` entry (``entry`` as the reply gave it, ``values`` its fields by their
    names) as an :class:`Edit`, or the reason it cannot be used."""
    read = read_format(entry, values, notes)
    if isinstance(read, str):
        return read
    values, spec = read
    anchor = values.get("anchor")
    if not isinstance(anchor, str) or not anchor.strip():
        return "format needs an anchor: quote the characters to format (for 'style', text of the paragraph)"
    replacement = values.get("replacement")
    if isinstance(replacement, str) and replacement and replacement != anchor:
        return (
            "a format entry changes no text, but a replacement is given: send the text change "
            "as a plain edit and the formatting as a format entry"
        )
    if replacement is not None and not isinstance(replacement, str):
        return f"the replacement is {_kind(replacement)}, not text"
    for extra in ("text", "level", "revision_id", "author", "comment_id"):
        if values.get(extra) is not None:
            return f"format takes anchor, format, section, expected_matches, rationale and id, not {extra!r}"
    expected = expected_matches(values.get("expected_matches"), notes)
    if isinstance(expected, str):
        return expected
    shared = section_and_id(values, notes)
    if isinstance(shared, str):
        return shared
    section, ident = shared
    rationale = values.get("rationale")
    texts = {"anchor": anchor, "rationale": rationale, "section": section, "id": ident, "style": spec.style}
    reason = texts_reason(texts)
    if reason is not None:
        return reason
    return build_edit(
        anchor=anchor,
        replacement="",
        action="format",
        format=spec,
        rationale=rationale,
        expected_matches=expected,
        section=section,
        id=ident,
    )


__all__ = ["format_key", "read_format", "read_format_entry"]
