"""LibreOffice as the judge of tracked table rows: each document's tables (rows of cell texts)
as LibreOffice reads them as stored, with every tracked change accepted, and with every one
rejected (``tests/libreoffice_rows.py``, run by the Python that has LibreOffice's ``uno``).

:func:`libreoffice_tables` runs one LibreOffice for a whole list of documents; the test skips
when LibreOffice or that Python is missing.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.libreoffice import run, uno_python
from tests.oracles import tool

__all__ = ["Tables", "libreoffice_tables"]

Tables = list[list[list[str]]]
"""Every table of a document, in order: its rows, each its cells' text."""


def libreoffice_tables(docs: Sequence[bytes], timeout: float = 900) -> list[dict[str, Any]]:
    """For each of ``docs``: ``{"original" | "accept" | "reject": {"redlines": N (tracked
    changes LibreOffice saw), "left": N (after deciding), "tables": Tables, "paragraphs": [...]
    (the body's paragraphs outside tables)}}`` -- or ``{"error": ...}`` for a reading that failed."""
    tool("soffice")
    python = uno_python()
    if python is None:
        pytest.skip("no Python with LibreOffice's uno module")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = []
        for n, data in enumerate(docs):
            path = folder / f"doc{n}.docx"
            path.write_bytes(data)
            paths.append(path)
        out = folder / "tables.json"
        script = Path(__file__).with_name("libreoffice_rows.py")
        env = {**os.environ, "HOME": str(folder)}
        run([python, str(script), str(out), (folder / "profile").as_uri(), *map(str, paths)], env, timeout)
        if not out.exists():
            pytest.fail("LibreOffice read no document")
        found = json.loads(out.read_text(encoding="utf-8"))
        return [found[str(p)] for p in paths]
