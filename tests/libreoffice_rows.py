"""LibreOffice's reading of documents' tables with every tracked change accepted or rejected.

Run by a Python that has LibreOffice's ``uno`` module (Debian's ``python3-uno``), not by the
project's virtual environment:

    /usr/bin/python3 tests/libreoffice_rows.py OUT.json PROFILE_URL DOC.docx ...

For each document and each of ``accept`` and ``reject``: a copy is opened in a headless
LibreOffice, ``.uno:AcceptAllTrackedChanges`` (``.uno:RejectAllTrackedChanges``) is
dispatched, and every table's rows are read -- each row its cells' text (``getCellByPosition``
over the row's cells, ``getString``), in the document's table order -- along with the number
of tracked changes LibreOffice saw before deciding (``getRedlines().getCount()``) and the body
text (paragraphs outside tables). ``OUT.json``: ``{doc: {"accept": {...}, "reject": {...}}}``.
One LibreOffice serves every document; it is restarted after a document it fails on.
Imports nothing of the project.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from typing import Any

from libreoffice_uno import ACCEPT, REJECT, decide, office, open_docx, stop  # type: ignore[import-not-found]  # (same folder)

_PER_DOCUMENT = 120.0


def _tables(comp: Any) -> list[list[list[str]]]:
    """Every table's rows, each a list of its cells' text, in document order."""
    out = []
    tables = comp.getTextTables()
    names = list(tables.getElementNames())
    # document order: by the anchor's position
    found = [tables.getByName(n) for n in names]
    text = comp.getText()

    def position(table: Any) -> Any:
        return table.getAnchor().getStart()

    order = list(range(len(found)))
    try:
        import functools

        def cmp(a: int, b: int) -> int:
            return int(text.compareRegionStarts(position(found[b]), position(found[a])))

        order.sort(key=functools.cmp_to_key(cmp))
    except Exception:
        pass
    for k in order:
        table = found[k]
        rows = []
        for r in range(table.getRows().getCount()):
            cells = []
            c = 0
            while True:
                try:
                    cell = table.getCellByPosition(c, r)
                except Exception:
                    break
                if cell is None:
                    break
                cells.append(cell.getString())
                c += 1
            rows.append(cells)
        out.append(rows)
    return out


def _paragraphs(comp: Any) -> list[str]:
    """The body's paragraphs outside tables, in order."""
    out = []
    enum = comp.getText().createEnumeration()
    while enum.hasMoreElements():
        para = enum.nextElement()
        if para.supportsService("com.sun.star.text.Paragraph"):
            out.append(para.getString())
    return out


def _read(ctx: Any, copy: str, command: str) -> dict[str, Any]:
    comp, _desktop, dispatcher = open_docx(ctx, copy)
    try:
        redlines = comp.getRedlines().getCount()
        if command:
            decide(comp, dispatcher, command)
        return {
            "redlines": redlines,
            "left": comp.getRedlines().getCount(),
            "tables": _tables(comp),
            "paragraphs": _paragraphs(comp),
        }
    finally:
        comp.close(True)


def main(out: str, profile: str, docs: list[str]) -> int:
    work = tempfile.mkdtemp(prefix="libreoffice-rows-")
    results: dict[str, dict[str, Any]] = {}
    proc, ctx = office(profile, f"redline_rows_{os.getpid()}_0")
    restarts = 0
    try:
        for n, doc in enumerate(docs):
            results[doc] = {}
            for mode, command in (
                ("original", ""),
                ("accept", ACCEPT),
                ("reject", REJECT),
            ):
                copy = os.path.join(work, f"{n}-{mode}-{os.path.basename(doc)}")
                shutil.copyfile(doc, copy)
                watchdog = threading.Timer(_PER_DOCUMENT, os.killpg, (proc.pid, signal.SIGKILL))
                watchdog.start()
                try:
                    results[doc][mode] = _read(ctx, copy, command)
                except Exception as exc:
                    results[doc][mode] = {"error": f"{type(exc).__name__}: {exc}"}
                    stop(proc)
                    restarts += 1
                    proc, ctx = office(profile, f"redline_rows_{os.getpid()}_{restarts}")
                finally:
                    watchdog.cancel()
    finally:
        stop(proc, ctx)
        shutil.rmtree(work, ignore_errors=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
