"""Stable status and refusal codes shared by every flow.

These strings are public: reports, tool results and `redline stats` group by them.
Add new codes freely; never rename or remove one.
"""

from __future__ import annotations

from enum import StrEnum


class EditStatus(StrEnum):
    """What happened to one proposed edit (the report's ``status``)."""

    APPLIED = "applied"
    VERIFIED = "verified"  # --dry-run: located and would apply
    NOT_FOUND = "not_found"
    AMBIGUOUS = "ambiguous"
    COUNT_MISMATCH = "count_mismatch"
    OUT_OF_SCOPE = "out_of_scope"
    OVERLAP = "overlap"
    NO_CHANGE = "no_change"
    STALE = "stale"
    INVALID = "invalid"
    UNSUPPORTED = "unsupported"

    @property
    def ok(self) -> bool:
        return self in (EditStatus.APPLIED, EditStatus.VERIFIED)


class QuoteStatus(StrEnum):
    """What happened to one quote of a summary."""

    VERIFIED = "verified"
    NOT_FOUND = "not_found"


class MatchKind(StrEnum):
    """How an anchor or quote was found."""

    EXACT = "exact"
    NORMALIZED = "normalized"


class Tolerance(StrEnum):
    """The only differences the tolerant match forgives (see ARCHITECTURE.md)."""

    WHITESPACE = "whitespace"
    QUOTES = "quotes"
    DASHES = "dashes"
    INVISIBLE = "invisible"  # soft hyphens, zero-width characters
    ELLIPSIS = "ellipsis"
