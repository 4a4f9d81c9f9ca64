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

from typing import TYPE_CHECKING

from ..records import BatchRecord
from .aliases import _EDIT_CONTAINERS, _EDIT_FIELDS, _POINT_FIELDS, _POINTS_KEYS
from .edits import _edit_batch, _read_edits
from .extract import ParseLimits, _find, _Flavour, _Reading

if TYPE_CHECKING:
    from ..models import EditBatch, SummaryReply

__all__ = ["ParseLimits", "parse_edit_reply", "parse_summary_reply", "read_edit_reply"]


def parse_edit_reply(text: str | bytes, limits: ParseLimits | None = None) -> EditBatch | None:
    """Read a model's proposed edits from its reply; ``None`` when no edits can be read at all."""
    batch = read_edit_reply(text, limits)
    return None if batch is None else batch.model()


def read_edit_reply(text: str | bytes, limits: ParseLimits | None = None) -> BatchRecord | None:
    """:func:`parse_edit_reply`'s reading as the apply path's records (no pydantic model made, and
    pydantic not imported unless an entry needs its validation: :mod:`shared_schema.records`)."""
    limits = limits or ParseLimits()
    found = _find(text, limits, _EDITS)
    return None if found is None else _edit_batch(*found, limits)


def parse_summary_reply(text: str | bytes, limits: ParseLimits | None = None) -> SummaryReply | None:
    """Read a model's summary from its reply; ``None`` when no summary can be read at all."""
    from .summary import _summary_reply

    limits = limits or ParseLimits()
    found = _find(text, limits, _SUMMARY)
    return None if found is None else _summary_reply(*found, limits)


def _read_summary(value: object) -> _Reading | None:
    from .summary import _read_summary as read

    return read(value)


_EDITS = _Flavour(
    "edit",
    _read_edits,
    frozenset({k for k, v in _EDIT_FIELDS.items() if v in ("anchor", "replacement")} | _EDIT_CONTAINERS),
)
_SUMMARY = _Flavour("point", _read_summary, frozenset(_POINT_FIELDS.keys() | _POINTS_KEYS))
