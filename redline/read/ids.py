"""Ids as Word reads them: numbers.

Every ``w:id`` WordprocessingML gives a tracked change (``w:ins``, ``w:del``, the moves and
their ranges, ``w:rPrChange``, ``w:pPrChange`` ...), a comment and its marks, or a bookmark is
an ``ST_DecimalNumber``: Word reads ``"0005"``, ``" 5 "`` and ``"+5"`` as the number 5.  So the
reader, the decisions and the writer compare, look up and allocate ids by number
(:func:`id_number`, :func:`id_key`), never by the string as written; an id that is no number
(``"x"``) is compared as written.

Word reads the number as a 32-bit signed integer: :data:`MAX_ID` is the largest id written.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["BEYOND", "MAX_ID", "hex_key", "id_key", "id_number", "same_id"]

MAX_ID: Final = 2**31 - 1
"""The largest id Word reads (``ST_DecimalNumber`` is a 32-bit signed integer in practice)."""

BEYOND: Final = 10**18
"""What an id of more than 18 significant digits reads as: a number beyond any id (Python's
``int()`` refuses strings of more than 4,300 digits, and none is needed to know it is too large)."""

_NUMBER = re.compile(r"[ \t\r\n]*([+-]?)0*([0-9]+)[ \t\r\n]*")


def id_number(value: str | bytes | None) -> int | None:
    """The number Word reads ``value`` as (leading zeros, a sign and surrounding whitespace
    allowed), or None when it is no decimal number; more than 18 significant digits read as
    :data:`BEYOND`."""
    if value is None:
        return None
    text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
    m = _NUMBER.fullmatch(text)
    if m is None:
        return None
    digits = m.group(2)
    number = BEYOND if len(digits) > 18 else int(digits)
    return -number if m.group(1) == "-" else number


def id_key(value: str | None) -> str:
    """``value`` as one spelling per number ("0005" -> "5"); as written when no number."""
    number = id_number(value)
    return (value or "") if number is None else str(number)


def same_id(a: str | None, b: str | None) -> bool:
    """Whether Word reads ``a`` and ``b`` as the same id."""
    return a == b or (a is not None and b is not None and id_key(a) == id_key(b))


_HEX = re.compile(r"[ \t\r\n]*([0-9A-Fa-f]+)[ \t\r\n]*")


def hex_key(value: str | None) -> str:
    """A ``w14:paraId`` / ``w15:paraIdParent`` / ``w16cid:durableId`` (``ST_LongHexNumber``)
    as one spelling per number, as Word reads it: case and leading zeros do not matter
    ("0000000a" and "A" are the same paragraph); as written when it is no hex number."""
    m = _HEX.fullmatch(value or "")
    if m is None:
        return value or ""
    digits = m.group(1).lstrip("0").upper() or "0"
    return digits if len(digits) <= 18 else "BEYOND:" + digits
