"""The fields every kind of reply entry shares, read the same way for each: its ``section`` and
``id``, its ``expected_matches``, the check that its text fields are text a Word document can
hold, and the entry built, a pydantic refusal given as one line for its reason.

Each reader returns the value, or the reason to refuse the entry (a ``str``), and appends to
``notes`` what it converted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..records import EditRecord
from ..rules import MAX_SECTION, entry_failures
from .extract import _HugeNumber, _kind, _show, _unsafe_reason

if TYPE_CHECKING:
    from pydantic import ValidationError


def build_edit(**fields: Any) -> EditRecord | str:
    """The entry of these fields (:class:`~shared_schema.records.EditRecord`, made without
    pydantic when every value passes the rules the model's validators apply), or the reason
    to refuse it: the rules' own words when they alone refuse it, as pydantic would word them
    (:func:`shared_schema.rules.entry_failures`); anything else is validated by
    :class:`~shared_schema.models.Edit` itself, so its verdict and its error are the model's."""
    failures = entry_failures(fields)
    if failures == []:
        return EditRecord.of_values(fields)
    if failures is not None:  # refused by the rules alone: in validation_reason's words
        return "; ".join(f"{name}: {message}" for name, message in failures)
    from pydantic import ValidationError

    from ..models import Edit

    try:
        return EditRecord.of(Edit(**fields))
    except ValidationError as err:
        return validation_reason(err)


def texts_reason(texts: Mapping[str, Any]) -> str | None:
    """The reason to refuse an entry one of whose text fields (by name; None: absent) is not
    text, or holds a character a Word document cannot hold -- or None."""
    for name, value in texts.items():
        if value is None:
            continue
        if not isinstance(value, str):
            return f"the {name} is {_kind(value)}, not text"
        reason = _unsafe_reason(name, value)
        if reason is not None:
            return reason
    return None


def section_and_id(values: dict[str, Any], notes: list[str]) -> tuple[str | None, Any] | str:
    """The two fields every kind of entry takes: its ``section`` (:func:`read_section`) and
    its ``id`` (a whole number converted to text, with a note; any other kind is left for the
    caller's text check) -- or the reason to refuse the entry."""
    section, refused = read_section(values.get("section"), notes)
    if refused is not None:
        return refused
    ident = values.get("id")
    if isinstance(ident, int) and not isinstance(ident, bool):
        notes.append("converted a numeric 'id' to text")
        ident = str(ident)
    return section, ident


def read_section(section: Any, notes: list[str]) -> tuple[str | None, str | None]:
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


_DIGITS = re.compile("[0-9]{1,9}")


def expected_matches(value: Any, notes: list[str]) -> int | str | None:
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


def validation_reason(err: ValidationError) -> str:
    parts = []
    for error in err.errors():
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
