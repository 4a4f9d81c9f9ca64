"""`redline mcp` driven by the MCP SDK's own client over stdio, as an agent would drive it.

One ``python -m redline mcp --root TMP --log LOG`` process serves the module (each test works on
its own document); the tests talk to it with ``mcp.Client`` over stdio, nothing in-process.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp.types as types
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from redline.opc.package import Package
from redline.read.build import build_view
from redline.tools.session import DocumentTools
from shared_schema import Edit
from testing.contractgen import generate_contract

T = TypeVar("T")
LEASE = generate_contract("lease")


@dataclass
class Server:
    """One ``redline mcp`` process shared by the module's tests, and its client."""

    portal: BlockingPortal
    client: Client
    root: Path
    log: Path

    def run(self, body: Callable[[Client], Awaitable[T]]) -> T:
        async def timed() -> T:
            with anyio.fail_after(60):
                return await body(self.client)

        return self.portal.call(timed)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("mcp")
    root = base / "work"
    root.mkdir()
    log = base / "calls.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "redline", "mcp", "--root", str(root), "--log", str(log)],
        cwd=str(base),
        # TMPDIR: where the server keeps its lock files; PYTHONPATH: the server is this
        # checkout's code, whichever copy of redline the interpreter has installed
        env={"TMPDIR": tempfile.gettempdir(), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(params)) as client:
        yield Server(portal, client, root, log)


@pytest.fixture
def doc(server: Server, request: pytest.FixtureRequest) -> str:
    """A fresh copy of the lease for this test, named after it."""
    name = f"{request.node.name}.docx"
    (server.root / name).write_bytes(LEASE)
    return name


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert result.structured_content is not None
    [block] = result.content
    assert isinstance(block, types.TextContent)
    data = json.loads(block.text)
    assert data == result.structured_content  # the text block and the structured result agree
    assert isinstance(data, dict)
    # flagged an error: refused whole, or every edit refused (tools.refused_whole)
    assert result.is_error == ("error" in data or data.get("status") == "unapplied")
    return data


def test_lists_the_tools_with_the_shared_edit_schema(server: Server) -> None:
    listed = server.run(lambda client: client.list_tools())
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == {"read_region", "apply_edits", "check"}
    for name, tool in tools.items():  # read_region and check never change a document
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (name != "apply_edits"), name
    assert set(tools["check"].input_schema["properties"]) == {"path", "edits", "revision"}
    apply_schema = tools["apply_edits"].input_schema
    assert set(apply_schema["required"]) == {"path", "edits", "revision"}
    items = apply_schema["properties"]["edits"]["items"]
    assert set(items["properties"]) == set(Edit.model_fields)
    assert set(tools["read_region"].input_schema["properties"]) == {"path", "section", "paragraphs", "markup"}
    assert "character for character" in (tools["apply_edits"].description or "")


def test_each_tool_declares_an_output_schema_its_results_meet(server: Server, doc: str) -> None:
    listed = server.run(lambda client: client.list_tools())
    for tool in listed.tools:
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name

    async def body(client: Client) -> None:
        # the SDK's client validates every result that is not an error against the schema
        region = await call(client, "read_region", {"path": doc, "section": "4.2"})
        await call(client, "read_region", {"path": doc})
        nothing = {"anchor": "words the lease never says", "replacement": "x"}
        refused = await client.call_tool(
            "apply_edits", {"path": doc, "edits": [nothing], "revision": region["revision"]}
        )
        # every edit refused: flagged isError, so an agent loop notices; nothing written
        assert refused.is_error is True
        assert refused.structured_content is not None
        assert refused.structured_content["status"] == "unapplied"
        assert refused.structured_content["written"] is False
        # check: findings are a result, not an error; a stale revision is refused whole
        checked = await call(
            client, "check", {"path": doc, "edits": [nothing], "revision": region["revision"]}
        )
        assert checked["revision"] == region["revision"] and isinstance(checked["findings"], list)
        assert all(f["from_edits"] is False for f in checked["findings"])  # the edit applies nowhere
        stale = await call(client, "check", {"path": doc, "revision": "sha256:0"})
        assert stale["error"]["code"] == "stale"

    server.run(body)


def test_read_apply_and_stale(server: Server, doc: str) -> None:
    path = server.root / doc

    async def body(client: Client) -> None:
        region = await call(client, "read_region", {"path": doc, "section": "4.2"})
        assert region["region"]["title"] == "4.2 Operating Expenses"
        anchor = region["text"].split(". ")[1][:60]  # quoted from the tool's output
        applied = await call(
            client,
            "apply_edits",
            {
                "path": doc,
                "edits": [{"anchor": anchor, "replacement": anchor + " (capped)", "section": "4.2"}],
                "revision": region["revision"],
            },
        )
        assert applied["status"] == "applied"
        [edit] = applied["edits"]
        assert "(capped)" in edit["paragraphs"][0]["text"]
        assert applied["revision"] == build_view(Package.open(path)).revision

        before = path.read_bytes()
        stale = await call(
            client,
            "apply_edits",
            {
                "path": doc,
                "edits": [{"anchor": region["text"][:30], "replacement": "x"}],
                "revision": region["revision"],  # quoted before the first edit
            },
        )
        assert stale["status"] == "stale" and stale["error"]["code"] == "stale"
        assert "call read_region again" in stale["error"]["hint"]
        assert [e["status"] for e in stale["edits"]] == ["stale"]
        assert path.read_bytes() == before

    server.run(body)


def test_concurrent_apply_edits_never_lose_an_update(server: Server, doc: str) -> None:
    path = server.root / doc
    view = build_view(Package.open(path))
    targets = [
        (p.index, view.paragraph_text(p)[:40])
        for p in view.paragraphs
        if p.label in ("2.1", "2.2", "3.1", "3.2")
    ]
    markers = [f" [C{n}]" for n in range(len(targets))]
    history: list[list[dict[str, Any]]] = [[] for _ in targets]

    async def agent(client: Client, n: int, start: anyio.Event, ready: list[int]) -> None:
        index, anchor = targets[n]
        for attempt in range(50):
            region = await call(client, "read_region", {"path": doc, "paragraphs": str(index)})
            assert anchor in region["text"]
            if attempt == 0:  # every agent holds the same revision before anyone applies
                ready.append(n)
                if len(ready) == len(targets):
                    start.set()
                await start.wait()
            result = await call(
                client,
                "apply_edits",
                {
                    "path": doc,
                    "edits": [{"anchor": anchor, "replacement": anchor + markers[n]}],
                    "revision": region["revision"],
                },
            )
            history[n].append(result)
            if result["status"] != "stale":
                return
        raise AssertionError("never applied")

    async def body(client: Client) -> None:
        start = anyio.Event()
        ready: list[int] = []
        async with anyio.create_task_group() as tg:
            for n in range(len(targets)):
                tg.start_soon(agent, client, n, start, ready)

    server.run(body)

    first = [h[0]["status"] for h in history]
    assert first.count("applied") == 1 and first.count("stale") == len(targets) - 1
    applied = [r for h in history for r in h if r["status"] != "stale"]
    assert len(applied) == len(targets) and all(r["status"] == "applied" for r in applied)
    # the applied calls form one chain of revisions ending at the file on disk
    step = {r["previous_revision"]: r["revision"] for r in applied}
    assert len(step) == len(applied)
    revision = view.revision
    for _ in applied:
        revision = step[revision]
    final = build_view(Package.open(path))
    assert revision == final.revision
    for marker in markers:
        assert final.text.count(marker) == 1


def test_a_held_document_waits_while_others_go_on(server: Server) -> None:
    """The server's per-document queue honours another process's lock, and a call waiting
    for one document does not hold up a call on another."""
    held, free = "held.docx", "free.docx"
    for name in (held, free):
        (server.root / name).write_bytes(LEASE)
    lock_file = DocumentTools(server.root).lock_path(held)
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o666)
    fcntl.flock(fd, fcntl.LOCK_EX)
    done: list[str] = []

    async def read(client: Client, name: str) -> None:
        result = await call(client, "read_region", {"path": name, "section": "2.1"})
        assert "error" not in result
        done.append(name)

    async def body(client: Client) -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read, client, held)
            await anyio.sleep(0.3)
            await read(client, free)
            await anyio.sleep(0.3)
            assert done == [free]  # the held document is still waiting
            fcntl.flock(fd, fcntl.LOCK_UN)  # release: the waiting call goes through

    try:
        server.run(body)
    finally:
        os.close(fd)
    assert done == [free, held]


def test_calls_on_different_documents_all_complete(server: Server) -> None:
    names = [f"parallel-{n}.docx" for n in range(4)]
    for name in names:
        (server.root / name).write_bytes(LEASE)
    results: dict[str, dict[str, Any]] = {}

    async def one(client: Client, name: str) -> None:
        region = await call(client, "read_region", {"path": name, "section": "2.3"})
        anchor = region["text"][:40]
        results[name] = await call(
            client,
            "apply_edits",
            {
                "path": name,
                "edits": [{"anchor": anchor, "replacement": anchor + " D"}],
                "revision": region["revision"],
            },
        )

    async def body(client: Client) -> None:
        async with anyio.create_task_group() as tg:
            for name in names:
                tg.start_soon(one, client, name)

    server.run(body)
    assert all(results[name]["status"] == "applied" for name in names)


def test_outside_root_is_refused_and_the_log_groups_by_code(server: Server) -> None:
    doc = "logged.docx"
    (server.root / doc).write_bytes(LEASE)
    outside = server.root.parent / "logged-secret.docx"
    outside.write_bytes(LEASE)
    (server.root / "logged-link.docx").symlink_to(outside)

    async def body(client: Client) -> None:
        for path in ("../logged-secret.docx", str(outside), "logged-link.docx"):
            refused = await call(client, "read_region", {"path": path})
            assert refused["error"]["code"] == "outside_root", path
        region = await call(client, "read_region", {"path": doc, "section": "2.1"})
        anchor = region["text"][:40]
        escaped = await call(
            client,
            "apply_edits",
            {
                "path": doc,
                "edits": [{"anchor": anchor, "replacement": anchor + " Q"}],
                "revision": region["revision"],
                "output": "../logged-written.docx",
            },
        )
        assert escaped["error"]["code"] == "outside_root"
        mixed = await call(
            client,
            "apply_edits",
            {
                "path": doc,
                "edits": [
                    {"anchor": anchor, "replacement": anchor + " Q"},
                    {"anchor": "the lease never says this", "replacement": "x"},
                ],
                "revision": region["revision"],
            },
        )
        assert [e["status"] for e in mixed["edits"]] == ["applied", "not_found"]
        stale = await call(
            client,
            "apply_edits",
            {"path": doc, "edits": [{"anchor": anchor, "replacement": "y"}], "revision": region["revision"]},
        )
        assert stale["status"] == "stale"

    server.run(body)
    assert not (server.root.parent / "logged-written.docx").exists()

    # this test's lines of the shared log, through `redline stats`
    lines = [json.loads(line) for line in server.log.read_text().splitlines()]
    mine = [line for line in lines if "logged" in (line["path"] or "")]
    assert len(mine) == 7
    for line in mine:
        assert line["duration_ms"] >= 0 and line["arguments_digest"].startswith("sha256:")
    assert [line["tool"] for line in mine].count("apply_edits") == 3
    subset = server.log.parent / "logged.jsonl"
    subset.write_text("".join(json.dumps(line) + "\n" for line in mine))
    stats = subprocess.run(
        [sys.executable, "-m", "redline", "stats", "--json", str(subset)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(stats.stdout)["by_code"] == {"outside_root": 4, "not_found": 1, "stale": 1}
