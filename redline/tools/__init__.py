"""The tools a model calls -- ``read_region`` and ``apply_edits`` -- and the MCP server over them.

* :mod:`~redline.tools.session` -- :class:`DocumentTools`: the calls, their checks and their log
* :mod:`~redline.tools.locks` -- per-document locks, taken with a deadline
* :mod:`~redline.tools.mcp_server` -- ``redline mcp``: the same tools over MCP (stdio)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "APPLY_EDITS",
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

if TYPE_CHECKING:
    from .session import (
        APPLY_EDITS,
        MAX_REGION_CHARS,
        READ_REGION,
        STALE_HINT,
        TOOL_NAMES,
        DocumentTools,
        ToolError,
        arguments_digest,
        call_error,
        refused_whole,
        tool_definitions,
    )


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'redline.tools' has no attribute {name!r}")
    return getattr(importlib.import_module("redline.tools.session"), name)
