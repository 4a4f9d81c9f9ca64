"""The tools a model calls -- ``read_region``, ``apply_edits`` and ``check`` -- and the MCP server
over them.

* :mod:`~redline.tools.session` -- :class:`DocumentTools`: the calls, their checks and their log
* :mod:`~redline.tools.definitions` -- the tools' names, descriptions and JSON Schemas
* :mod:`~redline.tools.errors` -- :class:`ToolError` and :func:`call_error`, the tools' boundary
* :mod:`~redline.tools.sandbox` -- the root folder: paths resolved under it, the locks, overwrites
* :mod:`~redline.tools.locks` -- per-document locks, taken with a deadline
* :mod:`~redline.tools.mcp_server` -- ``redline mcp``: the same tools over MCP (stdio)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "APPLY_EDITS",
    "CHECK",
    "MAX_REGION_CHARS",
    "READ_REGION",
    "STALE_HINT",
    "TOOL_NAMES",
    "DocumentTools",
    "ToolError",
    "arguments_digest",
    "call_error",
    "refused_whole",
    "tool_definitions",
]

# where each public name lives (imported on first use: ``import redline.tools`` is cheap)
_HOME = {
    "APPLY_EDITS": "definitions",
    "CHECK": "definitions",
    "MAX_REGION_CHARS": "definitions",
    "READ_REGION": "definitions",
    "STALE_HINT": "definitions",
    "TOOL_NAMES": "definitions",
    "refused_whole": "definitions",
    "tool_definitions": "definitions",
    "ToolError": "errors",
    "call_error": "errors",
    "DocumentTools": "session",
    "arguments_digest": "session",
}

if TYPE_CHECKING:
    from .definitions import (
        APPLY_EDITS,
        CHECK,
        MAX_REGION_CHARS,
        READ_REGION,
        STALE_HINT,
        TOOL_NAMES,
        refused_whole,
        tool_definitions,
    )
    from .errors import ToolError, call_error
    from .session import DocumentTools, arguments_digest


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'redline.tools' has no attribute {name!r}")
    return getattr(importlib.import_module(f"redline.tools.{home}"), name)
