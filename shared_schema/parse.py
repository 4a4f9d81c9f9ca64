"""Tolerant parsing of model replies. (Being written: see issue 2.)"""

from __future__ import annotations

from dataclasses import dataclass

from .models import EditBatch, SummaryReply


@dataclass(frozen=True)
class ParseLimits:
    max_chars: int = 50_000_000
    max_edits: int = 5_000
    max_depth: int = 64


def parse_edit_reply(text: str | bytes, limits: ParseLimits | None = None) -> EditBatch | None:
    raise NotImplementedError


def parse_summary_reply(text: str | bytes, limits: ParseLimits | None = None) -> SummaryReply | None:
    raise NotImplementedError
