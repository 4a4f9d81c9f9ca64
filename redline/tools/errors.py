"""The tools' refusals and their one boundary.

:class:`ToolError` refuses a whole call; :func:`call_error` turns whatever a call raised into
the ``error`` of its result (and the traceback to log when it is a bug of ours).
"""

from __future__ import annotations

import traceback
from typing import Any

from shared_schema import Code, Refusal

from ..errors import PackageError, Refused, Where, map_foreign, quote_value

__all__ = ["PACKAGE_HINT", "ToolError", "call_error", "document_refused", "show"]


class ToolError(Refused):
    """A refusal of the whole call: becomes ``{"error": {"code", "message", "hint", ...}}``.

    Raised (not returned) because the checks that refuse a call sit deep in its handling (an
    argument, a path, a lock, a section); :meth:`DocumentTools.handle` turns it into the
    result. ``extra`` holds what a :class:`Refusal` has no field for (outline candidates)."""

    hint: str

    def __init__(self, code: Code, message: str, hint: str, **extra: Any) -> None:
        super().__init__(code, message, hint)
        self.extra = extra

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "hint": self.hint, **self.extra}


PACKAGE_HINT = (
    "The file could not be read as a Word document; check that `path` names a .docx file "
    "(not a .doc, a PDF or an encrypted file)."
)
_BUG_HINT = "This is a bug in redline, not in your call; report it."
_RETRY_HINT = "Correct the call's arguments and call again."


def document_refused(refusal: Refusal) -> ToolError:
    """The call refused because the document (or its output) was: the refusal, with a hint."""
    hint = "Check that the folder exists and is writable." if refusal.code == Code.IO_ERROR else PACKAGE_HINT
    return ToolError(refusal.code, refusal.message, hint)


def call_error(exc: Exception) -> tuple[dict[str, Any], str | None]:
    """What a call that raised ``exc`` returns as its ``error``, and the traceback to log when
    ``exc`` is a bug of ours -- the tools' one boundary (:meth:`DocumentTools.handle`).

    A refusal (:class:`~redline.errors.Refused`: a :class:`ToolError`, a lock not had, a
    refused document) keeps its code. A foreign failure has the code
    :func:`redline.errors.map_foreign` gives it in a tool call: the operating system's
    (``OSError``) ``io_error``; a codec's (``UnicodeError``: an argument holding text no file
    name can carry, such as a lone surrogate) ``invalid_arguments``. Anything else is
    ``internal_error``, never a code about the caller's document.
    """
    if isinstance(exc, ToolError):
        return exc.to_dict(), None
    if isinstance(exc, PackageError):
        return document_refused(exc.refusal).to_dict(), None
    found = map_foreign(exc, Where.TOOL)  # a Refused is its own refusal
    if found is not None:
        return ToolError(found.code, found.message, found.hint or _RETRY_HINT).to_dict(), None
    internal = {
        "code": Code.INTERNAL_ERROR,
        "message": f"The tool failed unexpectedly ({type(exc).__name__}: {exc}).",
        "hint": _BUG_HINT,
    }
    return internal, "".join(traceback.format_exception(exc))


#: A value as a refusal quotes it: its JSON, cut to ``limit`` characters.
show = quote_value
