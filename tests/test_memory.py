"""Memory over many documents: a batch or an agent's loop must not keep what it has read.

A document's objects must be freed by reference counting the moment the caller drops them:
no reference cycle may hold a package, a view or its paragraphs (those would wait for the
cyclic collector), and pausing the collector during verification must leave it able to run
as before.  Once, both failed together -- a paragraph that headed a section was its own
``head``, and verification moved every survivor into the oldest generation without counting
it towards the next full collection -- and a batch kept 6 MB per document without end.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from redline.apply import ApplyOptions
from redline.match.locate import Locator
from redline.match.verify import verify
from redline.opc.package import Package
from redline.read.build import build_view
from redline.read.view import DocumentView, Paragraph
from redline_review.job import run_document
from shared_schema import Edit, EditBatch
from testing.contractgen import generate_contract

ROOT = Path(__file__).resolve().parent.parent
DATE = "2026-01-01T00:00:00Z"


def _reply(view: DocumentView, n: int) -> bytes:
    """``n`` edits on sentences of the document's body: a word changed in each."""
    edits: list[dict[str, str]] = []
    for p in view.paragraphs:
        words = view.text[p.start : p.end].split(" ")
        if p.story == "body" and len(words) > 12 and len(edits) < n:
            anchor = " ".join(words[2:10])
            if view.text.count(anchor) == 1:
                edits.append({"anchor": anchor, "replacement": anchor.replace(words[5], "reasonable", 1)})
    return json.dumps({"edits": edits}).encode()


@pytest.fixture(scope="module")
def contract() -> tuple[bytes, bytes]:
    data = generate_contract("lease", seed=3, pages=3)
    return data, _reply(build_view(Package.from_bytes(data)), 8)


@pytest.fixture
def saved_garbage() -> Iterator[list[object]]:
    """The collector paused; what ``gc.collect()`` finds unreachable is kept for the test."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


def test_a_document_leaves_no_cycle_holding_what_it_read(
    contract: tuple[bytes, bytes], saved_garbage: list[object]
) -> None:
    data, reply = contract
    result = run_document(data, reply, None, ApplyOptions(date=DATE), "lease")
    assert result.outcome == "applied" and result.output
    del result
    gc.collect()
    kept = [o for o in saved_garbage if isinstance(o, Package | DocumentView | Paragraph | bytes)]
    assert not kept, sorted({type(o).__name__ for o in kept})


def test_verification_leaves_older_garbage_to_the_young_collections(contract: tuple[bytes, bytes]) -> None:
    """A cycle made before a batch is verified is still found by a young-generation
    collection afterwards: the pause does not move it into the oldest generation (where the
    next full collection may never come)."""

    class Node:
        other: object = None

    assert gc.isenabled()
    view = build_view(Package.from_bytes(contract[0]))
    locator = Locator(view)
    gc.collect()
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    verify(locator, EditBatch(edits=[Edit(anchor=view.text[10:40], replacement="x")]))
    gc.collect(1)
    assert gone() is None


_LOOP = """
import sys
from redline.apply import ApplyOptions
from redline_review.job import run_document
data, reply = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
sizes = []
for i in range(45):
    run_document(data, reply, None, ApplyOptions(date="2026-01-01T00:00:00Z"), "c")
    if i in (14, 44):
        sizes.append(rss())
print(sizes[1] - sizes[0])
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmRSS from /proc")
def test_a_long_batch_does_not_grow(contract: tuple[bytes, bytes], tmp_path: Path) -> None:
    """Thirty more documents through one process add (almost) nothing to its resident size."""
    doc, reply = tmp_path / "c.docx", tmp_path / "c.reply.json"
    doc.write_bytes(contract[0])
    reply.write_bytes(contract[1])
    args = [sys.executable, "-c", _LOOP, str(doc), str(reply)]
    out = subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT)
    grown_kib = int(out.stdout)
    assert grown_kib < 16 * 1024, f"{grown_kib / 1024:.0f} MB more after 30 more documents"
