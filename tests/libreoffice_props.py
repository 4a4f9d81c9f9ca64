"""LibreOffice's reading of documents' formatting, tables and paragraph order, optionally after
LibreOffice itself accepted or rejected every tracked change: the judge of compare's tracked
formatting and rows (issue 29).

Run by a Python that has LibreOffice's ``uno`` module (Debian's ``python3-uno``), not by the
project's virtual environment:

    /usr/bin/python3 tests/libreoffice_props.py OUTDIR PROFILE_URL MODE:DOC.docx ...

MODE is ``none``, ``accept`` or ``reject``.  One headless LibreOffice of its own (``PROFILE_URL``)
reads every document in turn; the n-th one's reading goes to ``OUTDIR/<n>.json``: the body's
blocks in order, a paragraph as ``{"text", "style", "portions": [[text, CharWeight,
CharPosture, CharUnderline, CharStrikeout, CharCaseMap, CharHighlight], ...]}``, a table as
``{"rows": [[cell, ...], ...]}`` (each cell the list of its paragraphs), plus ``"redlines"``:
how many tracked changes LibreOffice saw before deciding them.  A document LibreOffice cannot
open gets no file.  Imports nothing of the project.
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

_WHOLE_RUN = 900.0  # seconds LibreOffice may take over all the documents


def _paragraph(par: Any) -> dict[str, Any]:
    portions = []
    for portion in par.createEnumeration():
        if portion.TextPortionType != "Text":
            continue
        text = portion.getString()
        if not text:
            continue
        portions.append([
            text, float(portion.CharWeight), str(portion.CharPosture.value), int(portion.CharUnderline),
            int(portion.CharStrikeout), int(portion.CharCaseMap), int(getattr(portion, "CharHighlight", -1)),
        ])  # fmt: skip
    return {"text": par.getString(), "style": par.ParaStyleName, "portions": portions}


def _blocks(text: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for el in text.createEnumeration():
        if el.supportsService("com.sun.star.text.TextTable"):
            rows = []
            names = el.getCellNames()
            by_row: dict[int, list[str]] = {}
            for name in names:
                digits = "".join(c for c in name if c.isdigit())
                by_row.setdefault(int(digits), []).append(name)
            for r in sorted(by_row):
                rows.append([_blocks(el.getCellByName(name).getText()) for name in by_row[r]])
            out.append({"rows": rows})
        elif el.supportsService("com.sun.star.text.Paragraph"):
            out.append(_paragraph(el))
    return out


def _read(ctx: Any, path: str, mode: str) -> dict[str, Any]:
    comp, _desktop, dispatcher = open_docx(ctx, path)
    try:
        redlines = comp.getRedlines().getCount()
        kinds = sorted({r.RedlineType for r in comp.getRedlines()})
        if mode != "none":
            decide(comp, dispatcher, ACCEPT if mode == "accept" else REJECT)
        return {"redlines": redlines, "kinds": kinds, "blocks": _blocks(comp.getText())}
    finally:
        comp.close(True)


def main(outdir: str, profile: str, jobs: list[str]) -> int:
    work = tempfile.mkdtemp(prefix="libreoffice-props-")
    proc, ctx = office(profile, f"redline_props_{os.getpid()}")
    watchdog = threading.Timer(_WHOLE_RUN, os.killpg, (proc.pid, signal.SIGKILL))
    watchdog.start()
    failed = 0
    try:
        for n, job in enumerate(jobs):
            mode, doc = job.split(":", 1)
            copy = os.path.join(work, f"{n}.docx")  # LibreOffice writes a lock file beside it
            shutil.copyfile(doc, copy)
            try:
                found = _read(ctx, copy, mode)
            except Exception as exc:  # a crash of LibreOffice is one document's failure
                failed += 1
                print(f"{doc}: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            with open(os.path.join(outdir, f"{n}.json"), "w", encoding="utf-8") as f:
                json.dump(found, f)
    finally:
        watchdog.cancel()
        stop(proc, ctx)
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
