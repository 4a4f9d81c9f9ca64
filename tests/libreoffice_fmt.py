"""LibreOffice's reading of documents' character and paragraph formatting, as stored, with every
tracked change accepted, or with every one rejected (by LibreOffice).

Run by a Python that has LibreOffice's ``uno`` module (Debian's ``python3-uno``), not by the
project's virtual environment:

    /usr/bin/python3 tests/libreoffice_fmt.py OUT.json PROFILE_URL DOC.docx ...

For each document and each mode (``as_is``, ``accept``, ``reject``), a fresh copy is opened in
one headless LibreOffice, ``.uno:AcceptAllTrackedChanges`` / ``.uno:RejectAllTrackedChanges``
dispatched, and every paragraph of the body (table cells' included, in order) read: its
``ParaStyleName`` and, per character, ``CharWeight``, ``CharPosture``, ``CharUnderline``,
``CharStrikeout``, ``CharCaseMap``, ``CharHighlight`` and ``CharBackColor`` (one entry per text
portion, with its text).  ``as_is`` also lists the redlines' types.  OUT.json: ``{doc: {mode:
{"paragraphs": [{"style", "portions": [[text, {attr: value}]]}], "redlines": [type, ...]}}}``;
a document LibreOffice cannot open gets ``{"error": "..."}``.  Imports nothing of the project.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from typing import Any

from libreoffice_uno import ACCEPT, REJECT, decide, office, open_docx, stop, stop_now  # type: ignore[import-not-found]  # (same folder)

_PER_DOCUMENT = 180.0
ATTRS = ("CharWeight", "CharPosture", "CharUnderline", "CharStrikeout", "CharCaseMap", "CharHighlight",
         "CharBackColor")  # fmt: skip
MODES = {"as_is": None, "accept": ACCEPT, "reject": REJECT}


def _plain(value: Any) -> Any:
    if hasattr(value, "value"):  # a uno enum (CharPosture)
        return str(value.value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _paragraphs(text: Any, out: list[dict[str, Any]]) -> None:
    enum = text.createEnumeration()
    while enum.hasMoreElements():
        el = enum.nextElement()
        if el.supportsService("com.sun.star.text.TextTable"):
            for name in el.getCellNames():
                _paragraphs(el.getCellByName(name).getText(), out)
            continue
        if not el.supportsService("com.sun.star.text.Paragraph"):
            continue
        portions = []
        penum = el.createEnumeration()
        while penum.hasMoreElements():
            portion = penum.nextElement()
            if portion.TextPortionType != "Text":
                continue
            got = portion.getString()
            if got:
                portions.append([got, {a: _plain(portion.getPropertyValue(a)) for a in ATTRS}])
        out.append({"style": el.ParaStyleName, "portions": portions})


def _read(ctx: Any, path: str, command: str | None) -> dict[str, Any]:
    comp, _desktop, dispatcher = open_docx(ctx, path)
    try:
        redlines = []
        enum = comp.getRedlines().createEnumeration()
        while enum.hasMoreElements():
            redlines.append(enum.nextElement().RedlineType)
        if command is not None:
            decide(comp, dispatcher, command)
            if comp.getRedlines().getCount():
                raise RuntimeError("tracked changes left after deciding them all")
        paragraphs: list[dict[str, Any]] = []
        _paragraphs(comp.getText(), paragraphs)
        return {"paragraphs": paragraphs, "redlines": redlines}
    finally:
        comp.close(True)


def main(out: str, profile: str, docs: list[str]) -> int:
    work = tempfile.mkdtemp(prefix="libreoffice-fmt-")
    results: dict[str, Any] = {}
    proc, ctx = office(profile, f"redline_fmt_{os.getpid()}")
    try:
        for n, doc in enumerate(docs):
            watchdog = threading.Timer(_PER_DOCUMENT, os.killpg, (proc.pid, signal.SIGKILL))
            watchdog.start()
            try:
                mine: dict[str, Any] = {}
                for mode, command in MODES.items():
                    path = os.path.join(work, f"{n}-{mode}-{os.path.basename(doc)}")
                    shutil.copyfile(doc, path)
                    mine[mode] = _read(ctx, path, command)
                results[doc] = mine
            except Exception as exc:
                results[doc] = {"error": f"{type(exc).__name__}: {exc}"}
                watchdog.cancel()
                with contextlib.suppress(Exception):
                    stop_now(proc)
                proc, ctx = office(profile, f"redline_fmt_{os.getpid()}_{n}")
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
