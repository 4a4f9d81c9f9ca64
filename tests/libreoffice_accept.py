"""LibreOffice's text export of documents with every tracked change accepted (by LibreOffice).

Run by a Python that has LibreOffice's ``uno`` module (Debian's ``python3-uno``:
``/usr/bin/python3``), not by the project's virtual environment:

    /usr/bin/python3 tests/libreoffice_accept.py [--reject] OUTDIR PROFILE_URL DOC.docx ...

For each document: a copy is opened in a headless LibreOffice of its own (``PROFILE_URL``, a
``file://`` URL of an empty folder), ``.uno:AcceptAllTrackedChanges`` is dispatched, and the
text is stored as ``OUTDIR/<stem>.txt`` with the same filter ``--convert-to`` uses.  A document
LibreOffice cannot open this way (it crashes on some) gets no file, and the next document is
tried in a new LibreOffice.  Imports nothing of the project.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import threading
from typing import Any

import uno  # type: ignore[import-not-found]
from libreoffice_uno import ACCEPT, REJECT, decide, office, open_docx, prop, stop  # type: ignore[import-not-found]  # (same folder)

_PER_DOCUMENT = 120.0  # seconds LibreOffice may take over one document


def _accept_one(ctx: Any, doc: str, copy: str, outdir: str, command: str) -> None:
    comp, desktop, dispatcher = open_docx(ctx, copy)
    try:
        if os.environ.get("REDLINE_LO_UPDATE_FIELDS"):  # fields computed by LibreOffice, not as stored
            comp.getTextFields().refresh()
        decide(comp, dispatcher, command)
        if comp.getRedlines().getCount():
            raise RuntimeError("tracked changes left after deciding them all")
        stem = os.path.splitext(os.path.basename(doc))[0]
        url = uno.systemPathToFileUrl(os.path.join(os.path.abspath(outdir), stem + ".txt"))
        comp.storeToURL(url, (prop("FilterName", "Text (encoded)"), prop("FilterOptions", "UTF8")))
    finally:
        comp.close(True)
    with contextlib.suppress(Exception):  # the bridge goes as LibreOffice quits
        desktop.terminate()


def main(outdir: str, profile: str, docs: list[str], command: str = ACCEPT) -> int:
    work = tempfile.mkdtemp(prefix="libreoffice-accept-")
    failed = 0
    try:
        for n, doc in enumerate(docs):
            copy = os.path.join(work, os.path.basename(doc))  # LibreOffice writes a lock file beside it
            shutil.copyfile(doc, copy)
            proc, ctx = office(profile, f"redline_accept_{os.getpid()}_{n}")
            watchdog = threading.Timer(_PER_DOCUMENT, os.killpg, (proc.pid, signal.SIGKILL))
            watchdog.start()  # LibreOffice hangs on some documents: this one's group goes
            try:
                _accept_one(ctx, doc, copy, outdir, command)
            except Exception as exc:  # a crash of LibreOffice is one document's failure
                failed += 1
                print(f"{doc}: {type(exc).__name__}: {exc}", file=sys.stderr)
            finally:
                watchdog.cancel()
                stop(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--reject"]:
        sys.exit(main(args[1], args[2], args[3:], REJECT))
    sys.exit(main(args[0], args[1], args[2:]))
