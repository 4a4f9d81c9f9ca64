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

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import uno  # type: ignore[import-not-found]
from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]

_PER_DOCUMENT = 120.0


def _prop(name: str, value: object) -> Any:
    prop = PropertyValue()
    prop.Name, prop.Value = name, value
    return prop


def _office(profile: str, pipe: str) -> tuple[subprocess.Popen[bytes], Any]:
    proc = subprocess.Popen(
        ["soffice", f"-env:UserInstallation={profile}", "--headless", "--nologo", "--norestore",
         f"--accept=pipe,name={pipe};urp;"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(600):
        try:
            return proc, resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
        except Exception:
            time.sleep(0.1)
    _stop(proc, None)
    raise SystemExit("LibreOffice did not start")


def _stop(proc: subprocess.Popen[bytes], ctx: Any) -> None:
    if ctx is not None:
        with contextlib.suppress(Exception):
            ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx).terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):  # the group this script started, only that
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


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
    smgr = ctx.ServiceManager
    desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    dispatcher = smgr.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
    load = (_prop("Hidden", True), _prop("Silent", True), _prop("FilterName", "MS Word 2007 XML"))
    comp = desktop.loadComponentFromURL(uno.systemPathToFileUrl(copy), "_blank", 0, load)
    if comp is None:
        raise RuntimeError("not opened")
    try:
        redlines = comp.getRedlines().getCount()
        frame = comp.getCurrentController().getFrame()
        if command:
            dispatcher.executeDispatch(frame, command, "", 0, ())
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
    proc, ctx = _office(profile, f"redline_rows_{os.getpid()}_0")
    restarts = 0
    try:
        for n, doc in enumerate(docs):
            results[doc] = {}
            for mode, command in (
                ("original", ""),
                ("accept", ".uno:AcceptAllTrackedChanges"),
                ("reject", ".uno:RejectAllTrackedChanges"),
            ):
                copy = os.path.join(work, f"{n}-{mode}-{os.path.basename(doc)}")
                shutil.copyfile(doc, copy)
                watchdog = threading.Timer(_PER_DOCUMENT, os.killpg, (proc.pid, signal.SIGKILL))
                watchdog.start()
                try:
                    results[doc][mode] = _read(ctx, copy, command)
                except Exception as exc:
                    results[doc][mode] = {"error": f"{type(exc).__name__}: {exc}"}
                    _stop(proc, None)
                    restarts += 1
                    proc, ctx = _office(profile, f"redline_rows_{os.getpid()}_{restarts}")
                finally:
                    watchdog.cancel()
    finally:
        _stop(proc, ctx)
        shutil.rmtree(work, ignore_errors=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
