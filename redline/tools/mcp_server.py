"""`redline mcp`: ``read_region``, ``apply_edits`` and ``check`` served over MCP (stdio), official SDK.

A thin adapter: the tool definitions come from :func:`redline.tools.tool_definitions` and every
call goes to :meth:`redline.tools.DocumentTools.handle`, which holds the rules (root, revision,
per-document queue, log). Each call runs in a worker thread, so calls on different documents
run in parallel while the tools' per-document locks queue calls on the same one. A result is
returned twice: as structured content (valid against the tool's ``outputSchema``) and as one text
block holding the same JSON; a result holding ``error``, and an ``apply_edits`` whose every edit
was refused (``status`` ``unapplied``), is flagged ``isError`` (:func:`redline.tools.refused_whole`):
the flag every client shows the model, so an agent loop that checks only it still notices.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from ..exits import EXIT_OK, EXIT_USAGE
from .definitions import READ_ONLY, refused_whole, tool_definitions
from .session import DocumentTools

__all__ = ["INSTRUCTIONS", "build_server", "serve"]

SERVER_NAME = "redline"
INSTRUCTIONS = (
    "Edit Word contracts as tracked changes. First call read_region (no section for the "
    "outline, then the section you need); copy anchors character for character from its text; "
    "call apply_edits with those edits and the revision read_region returned. Use the revision "
    "and paragraphs apply_edits returns for the next edit; if a call is refused as stale, call "
    "read_region again. To answer the other side's redline, read it with markup and send "
    "accept / reject (by revision_id or author), comment, reply and resolve entries in "
    "apply_edits, as its description says. Before apply_edits, call check with the same path, "
    "edits and revision: repair each finding whose from_edits is true (add its fix to your "
    "edits, or change the edit that causes it) and check again; leave the document's own "
    "findings unless the task asks."
)


def _version() -> str:
    from .. import __version__

    return __version__


def build_server(tools: DocumentTools) -> Server[Any]:
    """An MCP server (not yet running) exposing ``tools``."""
    listed = [
        types.Tool(
            name=d["name"],
            description=d["description"],
            input_schema=d["inputSchema"],
            output_schema=d["outputSchema"],
            annotations=types.ToolAnnotations(
                read_only_hint=d["name"] in READ_ONLY,
                destructive_hint=False,
                idempotent_hint=d["name"] in READ_ONLY,
                open_world_hint=False,
            ),
        )
        for d in tool_definitions()
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        work = functools.partial(tools.handle, params.name, params.arguments or {})
        result = await anyio.to_thread.run_sync(work)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))],
            structured_content=result,
            is_error=refused_whole(result),
        )

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _run(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(root: Path, log: Path | None) -> int:
    """Serve the tools on standard input/output until the client closes; the exit code."""
    try:
        tools = DocumentTools(root, log)
    except ValueError as exc:
        print(f"redline mcp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    anyio.run(_run, build_server(tools))
    return EXIT_OK
