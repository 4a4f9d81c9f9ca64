"""The author and date checks, now in :mod:`redline.write.options` beside the options they guard
(:class:`redline.write.options.WriteOptions` runs them when it is made); this path keeps working."""

from __future__ import annotations

from .options import MAX_AUTHOR_CHARS, ArgumentError, check_author, check_date

__all__ = ["MAX_AUTHOR_CHARS", "ArgumentError", "check_author", "check_date"]
