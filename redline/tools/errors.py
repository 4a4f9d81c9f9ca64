"""The tools' refusals and their one boundary.

:class:`ToolError` refuses a whole call; :func:`call_error` turns whatever a call raised into
the ``error`` of its result (and the traceback to log when it is a bug of ours).
"""

from __future__ import annotations

import json
import traceback
from typing import Any

from shared_schema import Code, Refusal

from ..errors import PackageError
from .locks import LockError

__all__ = ["PACKAGE_HINT", "ToolError", "call_error", "document_refused", "show"]


class ToolError(Exception):
    """A refusal of the whole call: becomes ``{"error": {"code", "message", "hint", ...}}``.

    Raised (not returned) because the checks that refuse a call sit deep in its handling (an
    argument, a path, a lock, a section); :meth:`DocumentTools.handle` turns it into the
    result. ``extra`` holds what a :class:`Refusal` has no field for (outline candidates)."""

    def __init__(self, code: Code, message: str, hint: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.extra = extra

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "hint": self.hint, **self.extra}


PACKAGE_HINT = (
    "The file could not be read as a Word document; check that `path` names a .docx file "
    "(not a .doc, a PDF or an encrypted file)."
)
_BUG_HINT = "This is a bug in redline, not in your call; report it."


def document_refused(refusal: Refusal) -> ToolError:
    """The call refused because the document (or its output) was: the refusal, with a hint."""
    hint = "Check that the folder exists and is writable." if refusal.code == Code.IO_ERROR else PACKAGE_HINT
    return ToolError(refusal.code, refusal.message, hint)


def call_error(exc: Exception) -> tuple[dict[str, Any], str | None]:
    """What a call that raised ``exc`` returns as its ``error``, and the traceback to log when
    ``exc`` is a bug of ours -- the tools' one boundary (:meth:`DocumentTools.handle`).

    A refusal (:class:`ToolError`, a refused document) keeps its code. A foreign failure maps
    to a code: the operating system's (``OSError``) to ``io_error``; a codec's (``UnicodeError``:
    an argument holding text no file name can carry, such as a lone surrogate) to
    ``invalid_arguments``. Anything else is ``internal_error``, never a code about the
    caller's document.
    """
    if isinstance(exc, ToolError):
        return exc.to_dict(), None
    if isinstance(exc, LockError):  # busy, or lock_failed
        return ToolError(exc.code, exc.message, exc.hint).to_dict(), None
    if isinstance(exc, PackageError):
        return document_refused(Refusal.from_error(exc)).to_dict(), None
    if isinstance(exc, OSError):
        where = f" on {show(str(exc.filename))}" if exc.filename is not None else ""
        error = ToolError(
            Code.IO_ERROR,
            f"A file could not be read or written{where}: {exc.strerror or exc}.",
            "Check that the path and its folder exist and are accessible, then try again.",
        )
        return error.to_dict(), None
    if isinstance(exc, UnicodeError):
        error = ToolError(
            Code.INVALID_ARGUMENTS,
            f"An argument holds text that cannot be used ({type(exc).__name__}: {exc}).",
            "Pass paths and texts as plain Unicode text, without lone surrogates.",
        )
        return error.to_dict(), None
    internal = {
        "code": Code.INTERNAL_ERROR,
        "message": f"The tool failed unexpectedly ({type(exc).__name__}: {exc}).",
        "hint": _BUG_HINT,
    }
    return internal, "".join(traceback.format_exception(exc))


def show(value: Any, limit: int = 80) -> str:
    """A value as a refusal quotes it: its JSON, cut to ``limit`` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
